//! FT.AGGREGATE replies as a neutral tree, in RediSearch's RESP2 and RESP3
//! shapes.
//!
//! Contract: RESP2 is `[total, [k, v, …], …]`; RESP3 is a map
//! `{attributes: [], format, results: [{extra_attributes: {…}, values: []}],
//! total_results, warning: [...]}` (key order of RediSearch 2.10.32's
//! `sendChunk_Resp3`). Numbers print as RediSearch prints them
//! ([`format_number`]) unless FORMAT EXPAND asks for typed numbers.

use super::pipeline::AggOutput;
use super::row::Row;
use super::value::{format_number, Value};

/// The reply tree: the crate's neutral [`Reply`](crate::reply::Reply).
pub type AggReply = crate::reply::Reply;

pub use crate::reply::Protocol;

/// One page of rows to reply.
#[derive(Debug, Clone, Copy)]
pub struct Chunk<'a> {
    /// Property names by slot.
    pub names: &'a [String],
    /// The rows of this page.
    pub rows: &'a [Row],
    /// The `total` to report.
    pub total: u64,
    /// Warning to report in RESP3.
    pub warning: Option<&'a str>,
    /// FORMAT EXPAND.
    pub expand: bool,
    /// WITHSORTKEYS: the slot of each row's sort key (`Some(None)`: none, a nil).
    pub sortkey: Option<Option<usize>>,
}

impl<'a> Chunk<'a> {
    /// The whole output as one chunk.
    pub fn of(out: &'a AggOutput, expand: bool) -> Chunk<'a> {
        Chunk {
            names: &out.names,
            rows: &out.rows,
            total: out.total,
            warning: out.warning.as_deref(),
            expand,
            sortkey: out.sortkey,
        }
    }
}

/// The reply of a (non-cursor) FT.AGGREGATE, or of one cursor page.
pub fn render(chunk: &Chunk<'_>, proto: Protocol) -> AggReply {
    match proto {
        Protocol::Resp2 => {
            let mut out = Vec::with_capacity(chunk.rows.len() + 1);
            out.push(AggReply::Int(chunk.total as i64));
            for r in chunk.rows {
                if let Some(slot) = chunk.sortkey {
                    out.push(sortkey_reply(slot, r));
                }
                out.push(if r.expired {
                    AggReply::Nil
                } else {
                    AggReply::Array(flat_fields(chunk.names, r, chunk.expand))
                });
            }
            AggReply::Array(out)
        }
        Protocol::Resp3 => {
            let results = chunk
                .rows
                .iter()
                .map(|r| {
                    let mut m = Vec::with_capacity(3);
                    if let Some(slot) = chunk.sortkey {
                        m.push((simple("sortkey"), sortkey_reply(slot, r)));
                    }
                    let fields = if r.expired {
                        AggReply::Nil
                    } else {
                        AggReply::Map(map_fields(chunk.names, r, chunk.expand))
                    };
                    m.push((simple("extra_attributes"), fields));
                    m.push((simple("values"), AggReply::Array(Vec::new())));
                    AggReply::Map(m)
                })
                .collect();
            let warning = chunk.warning.map(|w| vec![simple(w)]).unwrap_or_default();
            AggReply::Map(vec![
                (simple("attributes"), AggReply::Array(Vec::new())),
                (simple("total_results"), AggReply::Int(chunk.total as i64)),
                (simple("format"), simple(if chunk.expand { "EXPAND" } else { "STRING" })),
                (simple("results"), AggReply::Array(results)),
                (simple("warning"), AggReply::Array(warning)),
            ])
        }
    }
}

/// A row's sort key as RediSearch's `reeval_key` sends it: `#` and the number (`%.17g`), `$`
/// and the string, else nil; a duo's key is its first value (`$Ab` for `[["Ab","c"]]`).
fn sortkey_reply(slot: Option<usize>, row: &Row) -> AggReply {
    let mut v = slot.and_then(|i| row.values.get(i)).and_then(|v| v.as_ref());
    if let Some(Value::Duo(d)) = v {
        v = Some(&d.0);
    }
    match v {
        Some(Value::Number(n)) => AggReply::Bulk(format!("#{}", super::value::format_g(*n, 17)).into_bytes()),
        Some(Value::String(s)) => {
            let mut b = b"$".to_vec();
            b.extend_from_slice(s);
            AggReply::Bulk(b)
        }
        _ => AggReply::Nil,
    }
}

fn simple(s: &str) -> AggReply {
    AggReply::Simple(s.to_string())
}

fn fields<'r>(names: &'r [String], row: &'r Row) -> impl Iterator<Item = (&'r String, &'r Value)> {
    row.values.iter().enumerate().filter_map(move |(i, v)| Some((names.get(i)?, v.as_ref()?)))
}

pub(crate) fn flat_fields(names: &[String], row: &Row, expand: bool) -> Vec<AggReply> {
    let mut out = Vec::new();
    for (n, v) in fields(names, row) {
        out.push(AggReply::Bulk(n.as_bytes().to_vec()));
        out.push(value_reply(v, expand));
    }
    out
}

pub(crate) fn map_fields(names: &[String], row: &Row, expand: bool) -> Vec<(AggReply, AggReply)> {
    fields(names, row).map(|(n, v)| (AggReply::Bulk(n.as_bytes().to_vec()), value_reply(v, expand))).collect()
}

/// A row value as a reply (`RSValue_SendReply`). Under FORMAT EXPAND a duo value (a JSON
/// value read from DIALECT 3 on) is sent as its matches themselves, typed (RediSearch's third
/// duo value, `RS_DUOVAL_OTHER2VAL`, chosen in `sendChunk`'s row serializer); anywhere else,
/// its JSON array text.
pub fn value_reply(v: &Value, expand: bool) -> AggReply {
    match v {
        Value::Duo(d) if expand => match d.1.as_bytes() {
            Some(text) => crate::commands::expand::expand_json(&String::from_utf8_lossy(text)),
            None => send(&d.1, expand),
        },
        v => send(v, expand),
    }
}

/// `RSValue_SendReply`: a number as its text, or under FORMAT EXPAND as an integer when it
/// is one, else a double; an array's items the same way, a duo value among them as its JSON
/// array text even under EXPAND (only a row's own value is sent expanded: TOLIST of a JSON
/// attribute gives `["bar"]` strings).
fn send(v: &Value, expand: bool) -> AggReply {
    match v {
        Value::Null => AggReply::Nil,
        Value::Number(n) if expand => {
            if n.fract() == 0.0 && n.abs() < 9.2e18 {
                AggReply::Int(*n as i64)
            } else {
                AggReply::Double(*n)
            }
        }
        Value::Number(n) => AggReply::Bulk(format_number(*n).into_bytes()),
        Value::String(s) => AggReply::Bulk(s.to_vec()),
        Value::Array(items) => AggReply::Array(items.iter().map(|x| send(x, expand)).collect()),
        Value::Duo(d) => send(&d.1, expand),
    }
}
