//! The core commands: JSON.SET, GET, MGET, MSET, DEL/FORGET, TYPE, DEBUG.

use json::ops::set::{SetCondition, SetOutcome, SetPlan};
use json::path::JsonPath;
use json::{Format, Node, Value};
use redis_module::Context;

use super::{
    compile, parse_value, reply_format, send_bulk, send_document, serialize, to_resp3_native, InputFormat,
    ReplyFormat, DEFAULT_PATH,
};
use crate::args::{utf8, Args};
use crate::commands::Invocation;
use crate::error::{CommandResult, Error, SYNTAX};
use crate::keys::{self, JsonKey};
use crate::reply::{Protocol, Reply};

/// True for the root path in either syntax.
fn is_root(path: &str) -> bool {
    path == "$" || path == "."
}

/// Writes the JSON text of a list of matches, `[m1,m2,…]`, to `out`.
fn write_matches(matches: &[Node], fmt: &Format, out: &mut Vec<u8>) {
    if fmt.indent.is_empty() && fmt.newline.is_empty() && fmt.space.is_empty() {
        // Compact: the matches are written in place, without copying them into an array.
        out.push(b'[');
        for (i, v) in matches.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            v.write_json(out, fmt);
        }
        out.push(b']');
        return;
    }
    Value::array(matches.iter().map(Node::to_value).collect()).write_json(out, fmt);
}

/// JSON text of a list of matches, as `[m1,m2,…]`.
fn serialize_matches(matches: &[Node], fmt: &Format) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    write_matches(matches, fmt, &mut out);
    out
}

fn path_missing(path: &JsonPath) -> Error {
    Error::msg(format!("ERR Path '{}' does not exist", path.converted()))
}

/// JSON.SET <key> <path> <json> [NX | XX] [FPHA BF16|FP16|FP32|FP64] [FORMAT JSON|STRING|BSON]
///
/// `FPHA` (Redis 8.8) stores every non-empty array of numbers of the value as that float type
/// (see [`json::FpType`]); without its type argument the reply is the wrong-arity error, with
/// an unknown type `ERR invalid FPHA type` (Redis 8.8's replies), given twice a syntax error.
pub fn set(ctx: &Context, inv: &Invocation) -> CommandResult {
    super::path_utf8(inv)?;
    if inv.len() < 3 {
        return Err(Error::WrongArity);
    }
    // RedisJSON's order: the path and the value must be UTF-8, then each option in turn.
    utf8(inv.args[2])?;
    let mut args = Args::new(&inv.args[3..]);
    let (mut nx, mut xx) = (false, false);
    let mut input = InputFormat::Json;
    let mut fpha = None;
    while let Some(a) = args.next_opt() {
        utf8(a)?;
        if a.eq_ignore_ascii_case(b"NX") && !nx {
            nx = true;
        } else if a.eq_ignore_ascii_case(b"XX") && !xx {
            xx = true;
        } else if a.eq_ignore_ascii_case(b"FPHA") && fpha.is_none() {
            let ty = args.next_arg()?;
            fpha = Some(json::FpType::parse(ty).ok_or_else(|| Error::msg("ERR invalid FPHA type"))?);
        } else if a.eq_ignore_ascii_case(b"FORMAT") {
            input = InputFormat::parse(args.next_str()?.as_bytes())?;
        } else {
            return Err(Error::msg(SYNTAX));
        }
    }
    if nx && xx {
        return Err(Error::msg(SYNTAX));
    }
    let cond = if nx {
        SetCondition::Nx
    } else if xx {
        SetCondition::Xx
    } else {
        SetCondition::Always
    };
    let path_text = utf8(inv.args[1])?;
    // RedisJSON's order: the key's type, then the value, then the path.
    let mut key = JsonKey::open(ctx, &inv.argv[0]);
    let exists = key.value()?.is_some();
    let value = input.read_fpha(inv.args[2], fpha)?;
    // Where the write lands, for the indexer (None: the root).
    let mut written = None;
    if !exists {
        if xx {
            return Ok(Reply::Nil);
        }
        if !is_root(path_text) {
            return Err(Error::msg("ERR new objects must be created at the root"));
        }
        key.put(value)?;
    } else {
        let doc = key.existing()?;
        if is_root(path_text) {
            if nx {
                return Ok(Reply::Nil);
            }
            *doc = value;
        } else {
            let path = compile(inv.args[1])?;
            if json::ops::set::set(doc, &path, value, cond).map_err(super::op_err)? == SetOutcome::NotSet {
                return Ok(Reply::Nil);
            }
            written = Some(path);
        }
    }
    match &written {
        Some(path) => key.changed_at(c"json.set", path),
        None => key.changed(c"json.set"),
    }
    Ok(Reply::OK)
}

/// Formatting options of JSON.GET.
fn take_format_option(args: &mut Args, a: &[u8], fmt: &mut OwnedFormat) -> Result<bool, Error> {
    let slot = if a.eq_ignore_ascii_case(b"INDENT") {
        &mut fmt.indent
    } else if a.eq_ignore_ascii_case(b"NEWLINE") {
        &mut fmt.newline
    } else if a.eq_ignore_ascii_case(b"SPACE") {
        &mut fmt.space
    } else if a.eq_ignore_ascii_case(b"NOESCAPE") {
        return Ok(true);
    } else {
        return Ok(false);
    };
    *slot = args.next_str()?.as_bytes().to_vec();
    Ok(true)
}

#[derive(Default)]
struct OwnedFormat {
    indent: Vec<u8>,
    newline: Vec<u8>,
    space: Vec<u8>,
}

impl OwnedFormat {
    fn as_format(&self) -> Format<'_> {
        Format { indent: &self.indent, newline: &self.newline, space: &self.space }
    }
}

/// JSON.GET <key> [INDENT indent] [NEWLINE newline] [SPACE space] [NOESCAPE] [FORMAT f] [path ...]
pub fn get(ctx: &Context, inv: &Invocation) -> CommandResult {
    if inv.is_empty() {
        return Err(Error::WrongArity);
    }
    let proto = Protocol::of(ctx);
    let mut args = Args::new(&inv.args[1..]);
    let mut fmt = OwnedFormat::default();
    let mut format = ReplyFormat::String;
    let mut paths: Vec<&[u8]> = Vec::new();
    while let Some(a) = args.next_opt() {
        // RedisJSON reads arguments while they are UTF-8: the first other one ends the list.
        if std::str::from_utf8(a).is_err() {
            break;
        }
        if a.eq_ignore_ascii_case(b"FORMAT") {
            // RedisJSON 2.8.3 (measured): on RESP2 FORMAT is refused only before the first
            // path; after one its value is checked and then ignored (the reply is JSON text).
            if !proto.is_resp3() && paths.is_empty() {
                return Err(Error::msg("ERR FORMAT argument is not supported on RESP2"));
            }
            let value = args.next_arg()?;
            // Its text is read before its value is judged (RedisJSON).
            utf8(value)?;
            let f = reply_format(value)?;
            if proto.is_resp3() {
                format = f;
            }
        } else if !take_format_option(&mut args, a, &mut fmt)? {
            paths.push(a);
        }
    }
    let fmt = fmt.as_format();
    let key = keys::open(ctx, &inv.argv[0]);
    let Some(doc) = keys::read(&key)? else {
        return Ok(Reply::Nil);
    };
    if format != ReplyFormat::String {
        return Ok(get_expanded(doc, paths, format, &fmt));
    }
    let compact = fmt == Format::COMPACT;
    match paths.as_slice() {
        [] | [b"."] if compact => Ok(send_document(ctx, doc, false)),
        [b"$"] if compact => Ok(send_document(ctx, doc, true)),
        [] => Ok(send_bulk(ctx, |out| doc.write_json(out, &fmt))),
        [one] => {
            let path = compile(one)?;
            if path.is_legacy() {
                let first = path.first(doc).ok_or_else(|| path_missing(&path))?;
                Ok(send_bulk(ctx, |out| first.write_json(out, &fmt)))
            } else {
                let matches = path.select(doc);
                Ok(send_bulk(ctx, |out| write_matches(&matches, &fmt, out)))
            }
        }
        many => get_many(doc, many, &fmt),
    }
}

/// JSON.GET with FORMAT EXPAND1/EXPAND (RESP3): one array per path, holding the matches (out of
/// line: the common JSON.GET stays small).
#[inline(never)]
fn get_expanded(doc: &Value, paths: Vec<&[u8]>, format: ReplyFormat, fmt: &Format) -> Reply {
    // RESP3 expansion: one array per path, holding the matches; EXPAND turns each into
    // native RESP3 values.
    let paths = if paths.is_empty() { vec![DEFAULT_PATH.as_bytes()] } else { paths };
    let mut out = Vec::with_capacity(paths.len());
    for p in paths {
        // A path that does not compile matches nothing here (RedisJSON).
        let Ok(path) = compile(p) else {
            out.push(Reply::Array(Vec::new()));
            continue;
        };
        let matches = path.select(doc).into_iter();
        out.push(Reply::Array(match format {
            ReplyFormat::Expand1 => matches
                .map(|v| match v.kind() {
                    json::Kind::String | json::Kind::Array | json::Kind::Object => {
                        Reply::Bulk(serialize(&v, fmt))
                    }
                    _ => to_resp3_native(&v),
                })
                .collect(),
            _ => matches.map(|v| to_resp3_native(&v)).collect(),
        }));
    }
    Reply::Array(out)
}

/// JSON.GET with several paths (out of line: the common JSON.GET stays small).
#[inline(never)]
fn get_many(doc: &Value, many: &[&[u8]], fmt: &Format) -> CommandResult {
    // Several paths: an object keyed by path, in the order given (RedisJSON's HashMap
    // loses the order). Values are single if every path is legacy, else arrays of matches.
    // A path that does not compile is dropped, and a repeated path appears once (RedisJSON).
    // Whether values are single is decided by the paths as given, dropped ones included.
    let all_legacy =
        many.iter().all(|p| std::str::from_utf8(p).is_ok_and(|t| !json::path::legacy::is_jsonpath(t)));
    let mut compiled: Vec<(&str, JsonPath)> = Vec::with_capacity(many.len());
    for p in many {
        let Ok(text) = std::str::from_utf8(p) else { continue };
        let Ok(path) = JsonPath::parse(text) else { continue };
        if !compiled.iter().any(|(t, _)| *t == text) {
            compiled.push((text, path));
        }
    }
    let mut pairs = Vec::with_capacity(compiled.len());
    for (text, path) in &compiled {
        let v = if all_legacy {
            // Here the error quotes the path as given, not its JSONPath form.
            let missing = || Error::msg(format!("ERR Path '{text}' does not exist"));
            path.first(doc).ok_or_else(missing)?.to_value()
        } else {
            Value::array(path.select(doc).iter().map(Node::to_value).collect())
        };
        pairs.push((text.to_string(), v));
    }
    Ok(Reply::Bulk(serialize(&Value::object(pairs), fmt)))
}

/// JSON.MGET <key> [<key> ...] <path>
pub fn mget(ctx: &Context, inv: &Invocation) -> CommandResult {
    if inv.len() < 2 {
        return Err(Error::WrongArity);
    }
    let (path_arg, key_args) = inv.args.split_last().ok_or(Error::WrongArity)?;
    utf8(path_arg)?;
    // A path that does not compile gives nil for every key, as in RedisJSON.
    let path = compile(path_arg).ok();
    let mut out = Vec::with_capacity(key_args.len());
    for name in &inv.argv[..key_args.len()] {
        let key = keys::open(ctx, name);
        let reply = match (keys::read(&key), &path) {
            (Ok(Some(doc)), Some(path)) => {
                let matches = path.select(doc);
                if path.is_legacy() {
                    matches.first().map(|v| Reply::Bulk(serialize(v, &Format::COMPACT))).unwrap_or(Reply::Nil)
                } else {
                    Reply::Bulk(serialize_matches(&matches, &Format::COMPACT))
                }
            }
            _ => Reply::Nil,
        };
        out.push(reply);
    }
    Ok(Reply::Array(out))
}

/// JSON.MSET <key> <path> <json> [<key> <path> <json> ...]
///
/// As RedisJSON 2.8.3 (measured against rejson.so): every triple is checked first, in order
/// (key type, path, value; any error refuses the whole command), its matches found in the
/// document as it was before the command; then each triple is written in order, a
/// `json.mset` event for each one that wrote something. A triple whose path matches nothing
/// (or no longer exists after an earlier triple) is skipped, as JSON.SET replies nil there.
/// The reply is OK and the command is replicated either way.
pub fn mset(ctx: &Context, inv: &Invocation) -> CommandResult {
    if inv.len() < 3 {
        return Err(Error::WrongArity);
    }
    // Per triple: its key's argument index, the planned write and its path (None: the
    // root), the value.
    type Write = (usize, Option<(SetPlan, JsonPath)>, Value);
    let mut writes: Vec<Write> = Vec::with_capacity(inv.len() / 3);
    for (i, triple) in inv.args.chunks(3).enumerate() {
        let key = keys::open(ctx, &inv.argv[i * 3]);
        let doc = keys::read(&key)?;
        let path_arg = triple.get(1).ok_or(Error::WrongArity)?;
        // The path's text is checked before the key is (RedisJSON reads it first).
        utf8(path_arg)?;
        let root = matches!(*path_arg, b"$" | b".");
        // A root path needs no plan (the key is created or replaced); another path is planned
        // on the key's document as it is now, and a missing key takes only the root.
        let plan = match doc {
            _ if root => None,
            Some(doc) => {
                let path = compile(path_arg)?;
                Some((
                    json::ops::set::plan_set(doc, &path, SetCondition::Always).map_err(super::op_err)?,
                    path,
                ))
            }
            None => return Err(Error::msg("ERR new objects must be created at the root")),
        };
        let value = parse_value(triple.get(2).ok_or(Error::WrongArity)?)?;
        writes.push((i * 3, plan, value));
    }
    // The indexer hears of each written key once, after the command's last triple: a query
    // on a worker reads the index beside the main thread, and one change per key per command
    // never shows it a key with some of the command's paths written and not others.
    let mut written_keys: Vec<(usize, Option<JsonPath>)> = Vec::new();
    let mut slot_of_key: std::collections::HashMap<&[u8], usize> = std::collections::HashMap::new();
    for (at, plan, value) in writes {
        let name = &inv.argv[at];
        let mut key = JsonKey::open(ctx, name);
        let path = plan.as_ref().map(|(_, path)| path.clone());
        let written = match (key.value()?, plan) {
            (Some(doc), Some((plan, _))) => plan.apply_planned(doc, value),
            (Some(doc), None) => {
                *doc = value;
                true
            }
            (None, _) => {
                key.put(value)?;
                true
            }
        };
        if written {
            crate::keys::notify_event(ctx, c"json.mset", name);
            match slot_of_key.get(name.as_slice()).and_then(|&i| written_keys.get_mut(i)) {
                // Written twice: the indexer reads the key whole.
                Some(w) => w.1 = None,
                None => {
                    slot_of_key.insert(name.as_slice(), written_keys.len());
                    written_keys.push((at, path));
                }
            }
        }
    }
    for (at, path) in &written_keys {
        crate::events::key_written(ctx, inv.argv[*at].as_slice(), path.as_ref());
    }
    ctx.replicate_verbatim();
    Ok(Reply::OK)
}

/// JSON.DEL <key> [path] (and JSON.FORGET)
pub fn del(ctx: &Context, inv: &Invocation) -> CommandResult {
    // Arguments after the path are ignored, as RedisJSON does.
    if inv.is_empty() {
        return Err(Error::WrongArity);
    }
    let path_arg = inv.args.get(1).copied().unwrap_or(DEFAULT_PATH.as_bytes());
    utf8(path_arg)?;
    let mut key = JsonKey::open(ctx, &inv.argv[0]);
    let Some(doc) = key.value()? else {
        return Ok(Reply::Int(0));
    };
    let path = compile(path_arg)?;
    let deleted = if is_root(utf8(path_arg)?) {
        key.delete()?;
        1
    } else {
        json::ops::del::del(doc, &path)
    };
    if deleted > 0 {
        key.changed_at(c"json.del", &path);
    }
    Ok(Reply::Int(deleted as i64))
}

/// JSON.TYPE <key> [path]
pub fn type_(ctx: &Context, inv: &Invocation) -> CommandResult {
    // Arguments after the path are ignored, as RedisJSON does.
    if inv.is_empty() {
        return Err(Error::WrongArity);
    }
    let key = keys::open(ctx, &inv.argv[0]);
    let resp3 = Protocol::of(ctx).is_resp3();
    let reply = match keys::read(&key)? {
        None => Reply::Nil,
        Some(doc) => {
            let path = match super::lenient_path_at(inv, 1) {
                Ok(path) => path,
                // A legacy path that does not compile finds nothing: nil (RedisJSON).
                Err(_) if super::legacy_arg(inv, 1) => {
                    return Ok(if resp3 { Reply::Array(vec![Reply::Nil]) } else { Reply::Nil })
                }
                Err(e) => return Err(e),
            };
            let matches = path.select(doc);
            if path.is_legacy() {
                matches.first().map(|v| Reply::bulk(v.type_name())).unwrap_or(Reply::Nil)
            } else {
                Reply::Array(matches.iter().map(|v| Reply::bulk(v.type_name())).collect())
            }
        }
    };
    Ok(if resp3 { Reply::Array(vec![reply]) } else { reply })
}

/// JSON.DEBUG MEMORY <key> [path] | JSON.DEBUG HELP
pub fn debug(ctx: &Context, inv: &Invocation) -> CommandResult {
    let mut args = Args::new(inv.args);
    let sub = args.next_arg()?;
    if sub.eq_ignore_ascii_case(b"HELP") {
        return Ok(Reply::Array(vec![
            Reply::bulk("MEMORY <key> [path] - reports memory usage"),
            Reply::bulk("HELP                - this message"),
        ]));
    }
    if !sub.eq_ignore_ascii_case(b"MEMORY") {
        return Err(Error::msg("ERR unknown subcommand - try `JSON.DEBUG HELP`"));
    }
    let _key_arg = args.next_arg()?;
    // Arguments after the path are ignored, as RedisJSON does.
    let path_arg =
        args.next_opt().filter(|a| std::str::from_utf8(a).is_ok()).unwrap_or(DEFAULT_PATH.as_bytes());
    let key = keys::open(ctx, &inv.argv[1]);
    let Some(doc) = keys::read(&key)? else {
        let legacy = !json::path::legacy::is_jsonpath(utf8(path_arg)?);
        return Ok(if legacy { Reply::Int(0) } else { Reply::Array(vec![]) });
    };
    let path = compile(path_arg)?;
    let matches = path.select(doc);
    Ok(if path.is_legacy() {
        let first = matches.first().ok_or_else(|| path_missing(&path))?;
        Reply::Int(first.mem_usage() as i64)
    } else {
        Reply::Array(matches.iter().map(|v| Reply::Int(v.mem_usage() as i64)).collect())
    })
}
