//! Fuzz entry points of the search crate, shared by the libFuzzer targets in
//! `fuzz_targets/` and by the corpus replay test (root `tests/fuzz_corpora.rs`), which
//! includes this file with `#[path]`. Each entry must never panic on any input.

use std::collections::HashMap;

use search::aggregate::expr::Expr;
use search::aggregate::{AggregateRequest, Row, Value};
use search::query::syntax;

/// Parses the input as a query under every dialect, with a couple of `$params` defined.
/// The first byte picks nothing: the whole input is the query text (lossy UTF-8, as the
/// glue does).
pub fn query_parse(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut params = HashMap::new();
    params.insert("p".to_string(), "hello".to_string());
    params.insert("n".to_string(), "3".to_string());
    params.insert("v".to_string(), "-1.5".to_string());
    for dialect in 1..=search::limits::MAX_DIALECT {
        let _ = syntax::parse(&text, dialect, &params);
    }
    let _ = syntax::unescape(&text);
}

/// Parses the input as an APPLY/FILTER expression, binds `@a`/`@b`/`@c`/`@s` to slots,
/// evaluates it on a few rows, and parses it once more as `FT.AGGREGATE` arguments
/// (whitespace-split) to exercise the request parser.
pub fn aggregate_expr(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(mut expr) = Expr::parse(&text) {
        let names = ["a", "b", "c", "s", "__key", "__score"];
        let bound = expr.bind(&mut |name| names.iter().position(|n| *n == name)).is_ok();
        if bound {
            let rows = [
                row(vec![Value::Number(1.0), Value::Number(-2.5), Value::str("x"), Value::str("12")]),
                row(vec![
                    Value::Number(f64::NAN),
                    Value::Number(f64::INFINITY),
                    Value::Null,
                    Value::bytes(&[0xff, 0, b'a']),
                ]),
                row(vec![
                    Value::Number(i64::MAX as f64),
                    Value::Number(0.0),
                    Value::array(vec![Value::str("a"), Value::Number(2.0)]),
                    Value::str(""),
                ]),
                Row::default(),
            ];
            for r in &rows {
                let _ = expr.eval(r);
            }
        }
        let _ = expr.properties();
    }
    let args: Vec<&[u8]> = data.split(|b| b.is_ascii_whitespace()).filter(|a| !a.is_empty()).collect();
    let _ = AggregateRequest::parse(&args);
}

fn row(values: Vec<Value>) -> Row {
    Row { values: values.into_iter().map(Some).collect(), ..Row::default() }
}

/// A length-prefixed piece of the input (length = first byte % 24), advancing `rest`.
fn piece<'a>(rest: &mut &'a [u8]) -> &'a [u8] {
    let Some((&n, tail)) = rest.split_first() else { return &[] };
    let n = usize::from(n % 24).min(tail.len());
    let (head, tail) = tail.split_at(n);
    *rest = tail;
    head
}

/// Interprets the input as FT.SUGADD/SUGDEL/SUGGET operations on one suggestion dictionary
/// (an op byte, then length-prefixed strings), then checks that the size is the number of
/// entries listed and that a dictionary rebuilt from the listing (what an RDB load does) holds
/// the same entries.
pub fn suggest_ops(data: &[u8]) {
    use search::suggest::{Query, Suggestions};
    let mut dict = Suggestions::new();
    let mut rest = data;
    while let Some((&op, tail)) = rest.split_first() {
        rest = tail;
        let s = piece(&mut rest);
        match op % 4 {
            0 | 1 => {
                let payload = (op & 0x40 != 0).then(|| piece(&mut rest));
                dict.add(s, f64::from(op as i8) / 4.0, op & 0x08 != 0, payload);
            }
            2 => {
                dict.delete(s);
            }
            _ => {
                let query = Query {
                    max: usize::from(op >> 4) + 1,
                    max_dist: u32::from(op & 0x04 != 0),
                    trim: op & 0x08 != 0,
                };
                let _ = dict.get(s, query);
            }
        }
    }
    let mut listed = Vec::new();
    dict.for_each(|s, score, p| listed.push((s.to_vec(), score.to_bits(), p.map(<[u8]>::to_vec))));
    assert_eq!(listed.len(), dict.len(), "size vs listed entries");
    let mut rebuilt = Suggestions::new();
    for (s, score, p) in &listed {
        rebuilt.add(s, f64::from(f32::from_bits(*score)), false, p.as_deref());
    }
    let mut again = std::collections::BTreeSet::new();
    rebuilt.for_each(|s, _, _| {
        again.insert(s.to_vec());
    });
    // The same strings, written back as they are listed; entries scored 0 (an INCR back to zero)
    // are not re-added, as by RediSearch's loader. (Two entries listed alike, which a rune 0
    // from a code point like U+10000 can cause, become one, as in RediSearch.)
    let listed: std::collections::BTreeSet<Vec<u8>> = listed
        .into_iter()
        .filter(|(s, score, _)| f32::from_bits(*score) != 0.0 && !s.is_empty())
        .map(|(s, _, _)| s)
        .collect();
    assert_eq!(listed, again, "rebuilt dictionary");
}
