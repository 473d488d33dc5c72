//! FT.* command handlers: every FT command goes to the database's [`search::Catalog`], which
//! parses its arguments and executes it; this file adds what only Redis can do (the client's
//! database and protocol, deleting keys for `DD`, replication, the initial scan).

use redis_module::Context;
use search::{Catalog, Protocol as SearchProtocol, Reply as SearchReply};

use crate::commands::Invocation;
use crate::error::CommandResult;
use crate::indexing::{self, RedisDocs};
use crate::reply::{Protocol, Reply};

/// FT commands that change index definitions: replicated to replicas and the AOF when they succeed.
const DEFINITION_WRITES: &[&str] = &[
    "FT.CREATE", "FT.DROPINDEX", "FT.DROP", "FT.ALTER", "FT.ALIASADD", "FT.ALIASUPDATE", "FT.ALIASDEL",
    "FT.SYNUPDATE", "FT.DICTADD", "FT.DICTDEL",
];

fn convert(r: SearchReply, proto: Protocol) -> Reply {
    match r {
        SearchReply::Nil => Reply::Nil,
        SearchReply::Int(i) => Reply::Int(i),
        // RediSearch 2.10 runs on Redis >= 7.2, whose RESP2 doubles are the shortest text that
        // reads back as the same number (Redis 7.0 here would print 17 digits).
        SearchReply::Double(d) if proto == Protocol::Resp2 => Reply::Bulk(shortest_double(d).into_bytes()),
        SearchReply::Double(d) => Reply::Double(d),
        SearchReply::Simple(s) => Reply::Status(s),
        SearchReply::Bulk(b) => Reply::Bulk(b),
        SearchReply::Array(items) => Reply::Array(items.into_iter().map(|r| convert(r, proto)).collect()),
        SearchReply::Map(pairs) => {
            Reply::Map(pairs.into_iter().map(|(k, v)| (convert(k, proto), convert(v, proto))).collect())
        }
        SearchReply::Set(items) => Reply::Set(items.into_iter().map(|r| convert(r, proto)).collect()),
        SearchReply::Error(e) => Reply::Error(e),
    }
}

/// Every FT.* command: `FT.<NAME> args…`.
pub fn ft(ctx: &Context, inv: &Invocation) -> CommandResult {
    let name = String::from_utf8_lossy(inv.name).to_ascii_uppercase();
    let proto = match Protocol::of(ctx) {
        Protocol::Resp2 => SearchProtocol::Resp2,
        Protocol::Resp3 => SearchProtocol::Resp3,
    };
    let db = indexing::selected_db(ctx);
    let docs = RedisDocs::new(ctx);
    let outcome = indexing::with_state(ctx, |state| {
        let catalog = state.catalogs.entry(db).or_insert_with(Catalog::new);
        catalog.execute_full(&name, inv.args, &docs, &mut state.config, proto)
    });
    let ok = !matches!(outcome.reply, SearchReply::Error(_));
    // Writes happen outside the state lock: deleting keys fires keyspace events.
    indexing::delete_keys(ctx, &outcome.delete_keys);
    if ok && (name == "FT.CREATE" || name == "FT.ALTER") {
        indexing::initial_scan(ctx);
    }
    if ok && DEFINITION_WRITES.contains(&name.as_str()) {
        ctx.replicate_verbatim();
    }
    Ok(convert(outcome.reply, Protocol::of(ctx)))
}

/// A double as Redis 7.2's `addReplyDouble` writes it (`fpconv_dtoa`): the shortest digits
/// that read back as `d`, plain up to 7 zeros of padding, scientific (`1.5e+21`) beyond.
fn shortest_double(d: f64) -> String {
    if d.is_nan() {
        return "nan".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "inf" } else { "-inf" }.into();
    }
    if d == 0.0 {
        return if d.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // `{:e}` gives the shortest round-trip digits: `5.454545454545454e-1`.
    let sci = format!("{:e}", d.abs());
    let (mantissa, e) = sci.split_once('e').unwrap_or((&sci, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let n = digits.len() as i32;
    let k = e - (n - 1);
    let exp = e.abs();
    let mut out = String::with_capacity(24);
    if d < 0.0 {
        out.push('-');
    }
    if k >= 0 && exp < n + 7 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', k as usize));
    } else if k < 0 && (k > -7 || exp < 4) {
        let offset = n + k;
        if offset <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-offset) as usize));
            out.push_str(&digits);
        } else {
            let (int, frac) = digits.split_at(offset as usize);
            out.push_str(int);
            out.push('.');
            out.push_str(frac);
        }
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push('e');
        out.push(if e < 0 { '-' } else { '+' });
        out.push_str(&exp.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::shortest_double;

    #[test]
    fn doubles_read_as_redis_7_2_writes_them() {
        // Expected texts: Redis 7.2's fpconv_dtoa (RediSearch 2.10 WITHSCORES replies).
        for (d, s) in [
            (0.5454545454545454, "0.5454545454545454"),
            (4.0, "4"),
            (3.3333333333333335, "3.3333333333333335"),
            (0.4, "0.4"),
            (-2.5, "-2.5"),
            (1e21, "1e+21"),
            (1.5e-7, "1.5e-7"),
            (0.00012, "0.00012"),
            (123456789.0, "123456789"),
            (1e7, "10000000"),
        ] {
            assert_eq!(shortest_double(d), s, "{d}");
        }
    }
}
