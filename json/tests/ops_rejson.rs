//! The ops against RedisJSON 2.8.3 (rejson.so): replies and resulting documents recorded in
//! `fixtures/rejson_ops.jsonl` for every command over many legacy and JSONPath paths.
//!
//! `reply` below is a minimal stand-in for the glue: it maps a command to the op and shapes the
//! op's result into the RESP2 reply RedisJSON gives (encoded as JSON, like the fixture).

use json::ops::{array, clear, del, num, object, set, string, toggle};
use json::path::JsonPath;
use json::Value;

/// Recorded cases whose 2.8.3 behaviour folio deliberately does not reproduce: (document, or
/// `#i` for the fixture's i-th shared document; command; reason). Reasons:
/// - ATOMIC: on an error (`ERR index out of bounds` at one match) RedisJSON keeps the changes
///   already made at earlier matches; folio checks every match first and changes nothing.
/// - NESTED: with matches inside other matches (`$..*`), RedisJSON mutates in match order and
///   re-resolves later paths in the changed document (hitting other nodes, failing with
///   `ERR Path does not exist`, or crashing the server for ARRINSERT); folio mutates
///   deepest-first so every match is changed exactly where it was found.
/// - DUP: `JSON.DEL $[0,0]` deletes nothing and replies 0 in RedisJSON (its de-duplication
///   drops both copies); folio deletes the element once.
const KNOWN_DEVIATIONS: &[(&str, &str, &str)] = &[
    ("#0", "JSON.ARRINSERT $.* -1 9 8", "ATOMIC"),
    ("#0", "JSON.ARRINSERT $..* -1 9 8", "ATOMIC"),
    ("#0", "JSON.ARRINSERT $[*] -1 9 8", "ATOMIC"),
    ("#1", "JSON.ARRINSERT $..* 0 9", "NESTED"),
    ("#1", "JSON.ARRINSERT $..* -1 9 8", "ATOMIC"),
    ("#1", "JSON.ARRINSERT $.x[*].arr -1 9 8", "ATOMIC"),
    ("#1", "JSON.ARRPOP $..*", "NESTED"),
    ("#1", "JSON.ARRPOP $..* 0", "NESTED"),
    ("#1", "JSON.ARRPOP $..* 99", "NESTED"),
    ("#1", "JSON.ARRTRIM $..* 1 1", "NESTED"),
    ("#1", "JSON.ARRTRIM $..* 0 -2", "NESTED"),
    ("#1", "JSON.ARRTRIM $..* 5 9", "NESTED"),
    ("#1", "JSON.ARRTRIM $..* -2 -1", "NESTED"),
    ("#2", "JSON.DEL $[0,0]", "DUP"),
    ("#2", "JSON.ARRPOP $..*", "NESTED"),
    ("#2", "JSON.ARRPOP $..* 0", "NESTED"),
    ("#2", "JSON.ARRPOP $..* 99", "NESTED"),
    ("#2", "JSON.ARRTRIM $..* 1 1", "NESTED"),
    ("#2", "JSON.ARRTRIM $..* 0 -2", "NESTED"),
    ("#2", "JSON.ARRTRIM $..* 5 9", "NESTED"),
    ("{\"a\":[[1],[2,[3]]]}", "JSON.ARRPOP $..[*] 0", "NESTED"),
];

fn error(e: impl std::fmt::Display) -> Value {
    Value::object(vec![("error".to_owned(), Value::from(e.to_string()))])
}

fn ok() -> Value {
    Value::object(vec![("status".to_owned(), Value::from("OK"))])
}

fn int(n: usize) -> Value {
    Value::from(i64::try_from(n).unwrap_or(i64::MAX))
}

fn list<T>(items: Vec<Option<T>>, f: impl Fn(T) -> Value) -> Value {
    Value::array(items.into_iter().map(|x| x.map_or(Value::null(), &f)).collect())
}

/// Legacy write reply: the last right-typed result.
fn last<T: Clone>(o: &json::ops::Outcome<T>, f: impl Fn(T) -> Value) -> Value {
    o.last().cloned().map_or(Value::null(), f)
}

/// Legacy read reply: the first slot (absent means nil).
fn first<T>(r: Vec<Option<T>>, f: impl Fn(T) -> Value) -> Value {
    r.into_iter().next().flatten().map_or(Value::null(), f)
}

fn parse(text: &str) -> Result<Value, Value> {
    Value::parse(text.as_bytes()).map_err(error)
}

fn arg_i64(text: &str) -> Result<i64, Value> {
    text.parse().map_err(|_| error("ERR value is not an integer or out of range"))
}

/// Runs `cmd` (`[name, path, args…]`) on `doc` like RedisJSON would; `None` doc = key deleted.
fn reply(doc: &mut Option<Value>, cmd: &[String]) -> Value {
    match run(doc, cmd) {
        Ok(v) | Err(v) => v,
    }
}

fn run(doc_slot: &mut Option<Value>, cmd: &[String]) -> Result<Value, Value> {
    let name = cmd[0].as_str();
    let path = JsonPath::parse(&cmd[1]).map_err(error)?;
    let args = &cmd[2..];
    let legacy = path.is_legacy();
    let Some(doc) = doc_slot.as_mut() else {
        return Ok(Value::null());
    };
    Ok(match name {
        "JSON.SET" => {
            let value = parse(&args[0])?;
            let cond = match args.get(1).map(String::as_str) {
                Some("NX") => set::SetCondition::Nx,
                Some("XX") => set::SetCondition::Xx,
                _ => set::SetCondition::Always,
            };
            match set::set(doc, &path, value, cond).map_err(error)? {
                set::SetOutcome::Set => ok(),
                set::SetOutcome::NotSet => Value::null(),
            }
        }
        "JSON.MERGE" => {
            let patch = parse(&args[0])?;
            match set::merge(doc, &path, &patch).map_err(error)? {
                set::SetOutcome::Set => ok(),
                set::SetOutcome::NotSet => Value::null(),
            }
        }
        "JSON.DEL" => {
            if path.is_root() {
                *doc_slot = None;
                return Ok(int(1));
            }
            int(del::del(doc, &path))
        }
        "JSON.TYPE" => {
            let names = path.select(doc).into_iter().map(|v| Value::from(v.type_name()));
            if legacy {
                names.take(1).next().unwrap_or(Value::null())
            } else {
                Value::array(names.collect())
            }
        }
        "JSON.NUMINCRBY" | "JSON.NUMMULTBY" | "JSON.NUMPOWBY" => {
            let which = match name {
                "JSON.NUMINCRBY" => num::NumOp::Incr,
                "JSON.NUMMULTBY" => num::NumOp::Mult,
                _ => num::NumOp::Pow,
            };
            let o = num::num_op(doc, &path, &args[0], which).map_err(error)?;
            if legacy {
                last(&o, |n| Value::from(Value::from(n).to_json()))
            } else {
                Value::from(list(o.results, Value::from).to_json())
            }
        }
        "JSON.STRAPPEND" => {
            let o = string::str_append(doc, &path, &args[0]).map_err(error)?;
            if legacy {
                last(&o, int)
            } else {
                list(o.results, int)
            }
        }
        "JSON.STRLEN" => {
            let r = string::str_len(doc, &path).map_err(error)?;
            if legacy {
                first(r, int)
            } else {
                list(r, int)
            }
        }
        "JSON.ARRAPPEND" => {
            let values = args.iter().map(|a| parse(a)).collect::<Result<Vec<_>, _>>()?;
            let o = array::arr_append(doc, &path, &values).map_err(error)?;
            if legacy {
                last(&o, int)
            } else {
                list(o.results, int)
            }
        }
        "JSON.ARRINDEX" => {
            let value = parse(&args[0])?;
            let start = args.get(1).map_or(Ok(0), |a| arg_i64(a))?;
            let stop = args.get(2).map_or(Ok(0), |a| arg_i64(a))?;
            let r = array::arr_index(doc, &path, &value, start, stop).map_err(error)?;
            if legacy {
                first(r, Value::from)
            } else {
                list(r, Value::from)
            }
        }
        "JSON.ARRINSERT" => {
            let index = arg_i64(&args[0])?;
            let values = args[1..].iter().map(|a| parse(a)).collect::<Result<Vec<_>, _>>()?;
            let o = array::arr_insert(doc, &path, index, &values).map_err(error)?;
            if legacy {
                last(&o, int)
            } else {
                list(o.results, int)
            }
        }
        "JSON.ARRLEN" => {
            let r = array::arr_len(doc, &path).map_err(error)?;
            if legacy {
                first(r, int)
            } else {
                list(r, int)
            }
        }
        "JSON.ARRPOP" => {
            let index = args.first().map_or(Ok(-1), |a| arg_i64(a))?;
            let o = array::arr_pop(doc, &path, index).map_err(error)?;
            let shown = |p: Option<Value>| p.map_or(Value::null(), |v| Value::from(v.to_json()));
            if legacy {
                last(&o, shown)
            } else {
                list(o.results, shown)
            }
        }
        "JSON.ARRTRIM" => {
            let (start, stop) = (arg_i64(&args[0])?, arg_i64(&args[1])?);
            let o = array::arr_trim(doc, &path, start, stop).map_err(error)?;
            if legacy {
                last(&o, int)
            } else {
                list(o.results, int)
            }
        }
        "JSON.OBJKEYS" => {
            let keys = |k: Vec<&str>| Value::array(k.into_iter().map(Value::from).collect());
            let r = object::obj_keys(doc, &path).map_err(error)?;
            if legacy {
                first(r, keys)
            } else {
                list(r, keys)
            }
        }
        "JSON.OBJLEN" => {
            let r = object::obj_len(doc, &path).map_err(error)?;
            if legacy {
                first(r, int)
            } else {
                list(r, int)
            }
        }
        "JSON.CLEAR" => int(clear::clear(doc, &path)),
        "JSON.TOGGLE" => {
            let o = toggle::toggle(doc, &path).map_err(error)?;
            if legacy {
                last(&o, |b| Value::from(b.to_string()))
            } else {
                list(o.results, |b| Value::from(i64::from(b)))
            }
        }
        other => panic!("unknown command {other}"),
    })
}

#[test]
fn ops_match_rejson_2_8_3() {
    let file = format!("{}/tests/fixtures/rejson_ops.jsonl", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(file).expect("fixture");
    let mut docs = Vec::new();
    let mut failures = Vec::new();
    let mut compared = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let rec = Value::parse(line.as_bytes()).expect("record");
        if let Some(list) = rec.obj_get("docs") {
            docs = list.iter().filter_map(|d| d.as_str().map(str::to_owned)).collect();
            continue;
        }
        let doc_text = match (rec.obj_get("d").and_then(Value::as_i64), rec.obj_get("doc")) {
            (Some(i), _) => docs[usize::try_from(i).expect("index")].clone(),
            (None, Some(d)) => d.as_str().expect("doc").to_owned(),
            _ => panic!("record without doc"),
        };
        let cmd: Vec<String> =
            rec.obj_get("cmd").expect("cmd").iter().map(|a| a.as_str().expect("arg").to_owned()).collect();
        let expected = rec.obj_get("reply").expect("reply");
        if expected.obj_get("crash").is_some() {
            continue; // rejson.so 2.8.3 crashed (see the crash tests in ops_features.rs)
        }
        let expected_after = match rec.obj_get("after") {
            Some(a) => a.as_str().map(str::to_owned),
            None => Some(doc_text.clone()),
        };
        let mut doc = Some(Value::parse(doc_text.as_bytes()).expect("doc"));
        let got = reply(&mut doc, &cmd);
        let got_after = doc.map(|d| d.to_json());
        compared += 1;
        let doc_key = rec.obj_get("d").and_then(Value::as_i64).map_or(doc_text.clone(), |i| format!("#{i}"));
        let known = KNOWN_DEVIATIONS.iter().any(|(d, c, _)| *d == doc_key && *c == cmd.join(" "));
        // Byte for byte, key order included (removals swap-remove, as RedisJSON's store does).
        let same = got == *expected && got_after == expected_after;
        if same == known {
            failures.push(format!(
                "{doc_text} | {}\n   rejson: {expected} -> {expected_after:?}\n   folio:  {got} -> {got_after:?}",
                cmd.join(" ")
            ));
        }
    }
    assert!(failures.is_empty(), "{} of {compared} differ:\n{}", failures.len(), failures.join("\n"));
    assert!(compared > 5000);
}
