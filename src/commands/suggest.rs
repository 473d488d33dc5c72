//! FT.SUGADD, FT.SUGGET, FT.SUGDEL, FT.SUGLEN: auto-complete dictionaries stored as `trietype0`
//! keys (see `suggest_type.rs`; the dictionary itself is [`search::suggest`]).
//!
//! Checks run in RediSearch's order (src/suggest.c): arity, options, key type, then the score;
//! error texts are its own. Like RediSearch, a dictionary key stays when its last entry is
//! deleted, and a zero score creates the key without adding the entry.

use redis_module::key::RedisKey;
use redis_module::{raw, Context, RedisString};
use search::suggest::{args, Suggestions};

use crate::commands::Invocation;
use crate::error::{CommandResult, Error};
use crate::keys::WRONGTYPE;
use crate::reply::{shortest_double, Protocol, Reply};
use crate::suggest_type::SUGGEST_TYPE;

/// RediSearch's arity error (RedisModule_WrongArity, which names the command as registered).
fn arity(name: &str) -> Error {
    Error::msg(format!("ERR wrong number of arguments for '{name}' command"))
}

/// The dictionary at a key opened for reading: None when the key is missing.
fn read(key: &RedisKey) -> Result<Option<&Suggestions>, Error> {
    match key.key_type() {
        raw::KeyType::Empty => Ok(None),
        raw::KeyType::Module => {
            key.get_value::<Suggestions>(&SUGGEST_TYPE).map_err(|_| Error::msg(WRONGTYPE))
        }
        _ => Err(Error::msg(WRONGTYPE)),
    }
}

/// The key argument.
fn key_arg<'a>(inv: &'a Invocation) -> Result<&'a RedisString, Error> {
    inv.argv.first().ok_or(Error::WrongArity)
}

/// `FT.SUGADD key string score [INCR] [PAYLOAD payload]` → the dictionary's size.
pub fn sugadd(ctx: &Context, inv: &Invocation) -> CommandResult {
    if !(3..=6).contains(&inv.len()) {
        return Err(arity("FT.SUGADD"));
    }
    let (string, score, rest) = match inv.args {
        [_, string, score, rest @ ..] => (*string, *score, rest),
        _ => return Err(arity("FT.SUGADD")),
    };
    let opts = args::parse_add_options(rest)?;
    let key = ctx.open_key_writable(key_arg(inv)?);
    let existing = match key.key_type() {
        raw::KeyType::Empty => None,
        raw::KeyType::Module => {
            key.get_value::<Suggestions>(&SUGGEST_TYPE).map_err(|_| Error::msg(WRONGTYPE))?
        }
        _ => return Err(Error::msg(WRONGTYPE)),
    };
    let score = args::parse_score(score)?;
    let size = match existing {
        Some(dict) => {
            dict.add(string, score, opts.incr, opts.payload);
            dict.len()
        }
        None => {
            let mut dict = Suggestions::new();
            dict.add(string, score, opts.incr, opts.payload);
            let size = dict.len();
            key.set_value(&SUGGEST_TYPE, dict).map_err(|e| Error::msg(format!("ERR {e}")))?;
            size
        }
    };
    ctx.replicate_verbatim();
    Ok(Reply::Int(i64::try_from(size).unwrap_or(i64::MAX)))
}

/// `FT.SUGGET key prefix [FUZZY] [MAX n] [WITHSCORES] [WITHPAYLOADS] [TRIM] [OPTIMIZE]`.
pub fn sugget(ctx: &Context, inv: &Invocation) -> CommandResult {
    if !(2..=9).contains(&inv.len()) {
        return Err(arity("FT.SUGGET"));
    }
    let [_, prefix, rest @ ..] = inv.args else { return Err(arity("FT.SUGGET")) };
    args::check_prefix(prefix)?;
    let opts = args::parse_get_options(rest)?;
    let key = ctx.open_key(key_arg(inv)?);
    let Some(dict) = read(&key)? else { return Ok(Reply::Nil) };
    let found = dict.get(prefix, opts.query).ok_or_else(|| Error::msg(args::INVALID_QUERY))?;
    let per = 1 + usize::from(opts.with_scores) + usize::from(opts.with_payloads);
    let mut out = Vec::with_capacity(found.len() * per);
    for s in found {
        out.push(Reply::Bulk(s.string));
        if opts.with_scores {
            // RESP2: the text Redis 7.2 writes for the double, as RediSearch 2.10 users see it.
            out.push(match Protocol::of(ctx) {
                Protocol::Resp2 => Reply::Bulk(shortest_double(f64::from(s.score)).into_bytes()),
                Protocol::Resp3 => Reply::Double(f64::from(s.score)),
            });
        }
        if opts.with_payloads {
            out.push(s.payload.map_or(Reply::Nil, Reply::Bulk));
        }
    }
    Ok(Reply::Array(out))
}

/// `FT.SUGDEL key string` → 1 when deleted, else 0.
pub fn sugdel(ctx: &Context, inv: &Invocation) -> CommandResult {
    let [_, string] = inv.args else { return Err(arity("FT.SUGDEL")) };
    let key = ctx.open_key_writable(key_arg(inv)?);
    let deleted = match key.key_type() {
        raw::KeyType::Empty => false,
        raw::KeyType::Module => match key.get_value::<Suggestions>(&SUGGEST_TYPE) {
            Ok(Some(dict)) => dict.delete(string),
            Ok(None) => false,
            Err(_) => return Err(Error::msg(WRONGTYPE)),
        },
        _ => return Err(Error::msg(WRONGTYPE)),
    };
    ctx.replicate_verbatim();
    Ok(Reply::Int(i64::from(deleted)))
}

/// `FT.SUGLEN key` → the dictionary's size (0 for a missing key).
pub fn suglen(ctx: &Context, inv: &Invocation) -> CommandResult {
    if inv.len() != 1 {
        return Err(arity("FT.SUGLEN"));
    }
    let key = ctx.open_key(key_arg(inv)?);
    let size = read(&key)?.map_or(0, Suggestions::len);
    Ok(Reply::Int(i64::try_from(size).unwrap_or(i64::MAX)))
}
