//! A compact, exact binary encoding of [`Reply`] trees, for what shards send the node that
//! asked them (one bulk string per shard reply): doubles keep their bits, maps and sets keep
//! their kind, whatever protocol carries the bulk string between the two.

use crate::reply::Reply;

const NIL: u8 = 0;
const INT: u8 = 1;
const DOUBLE: u8 = 2;
const SIMPLE: u8 = 3;
const BULK: u8 = 4;
const ARRAY: u8 = 5;
const MAP: u8 = 6;
const SET: u8 = 7;
const ERROR: u8 = 8;

/// Encodes `r`.
pub fn encode(r: &Reply) -> Vec<u8> {
    let mut out = Vec::new();
    put(&mut out, r);
    out
}

fn put_len(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&(n as u64).to_le_bytes());
}

fn put(out: &mut Vec<u8>, r: &Reply) {
    match r {
        Reply::Nil => out.push(NIL),
        Reply::Int(i) => {
            out.push(INT);
            out.extend_from_slice(&i.to_le_bytes());
        }
        Reply::Double(d) => {
            out.push(DOUBLE);
            out.extend_from_slice(&d.to_bits().to_le_bytes());
        }
        Reply::Simple(s) | Reply::Error(s) => {
            out.push(if matches!(r, Reply::Simple(_)) { SIMPLE } else { ERROR });
            put_len(out, s.len());
            out.extend_from_slice(s.as_bytes());
        }
        Reply::Bulk(b) => {
            out.push(BULK);
            put_len(out, b.len());
            out.extend_from_slice(b);
        }
        Reply::Array(items) | Reply::Set(items) => {
            out.push(if matches!(r, Reply::Array(_)) { ARRAY } else { SET });
            put_len(out, items.len());
            for i in items {
                put(out, i);
            }
        }
        Reply::Map(pairs) => {
            out.push(MAP);
            put_len(out, pairs.len());
            for (k, v) in pairs {
                put(out, k);
                put(out, v);
            }
        }
    }
}

/// Decodes what [`encode`] produced; `None` for anything else (a truncated or foreign blob).
pub fn decode(bytes: &[u8]) -> Option<Reply> {
    let mut pos = 0;
    let r = get(bytes, &mut pos, 0)?;
    (pos == bytes.len()).then_some(r)
}

fn take<'a>(b: &'a [u8], pos: &mut usize, n: usize) -> Option<&'a [u8]> {
    let end = pos.checked_add(n)?;
    let s = b.get(*pos..end)?;
    *pos = end;
    Some(s)
}

fn word(b: &[u8], pos: &mut usize) -> Option<u64> {
    take(b, pos, 8).map(|s| u64::from_le_bytes(s.try_into().unwrap_or([0; 8])))
}

fn len(b: &[u8], pos: &mut usize) -> Option<usize> {
    let n = usize::try_from(word(b, pos)?).ok()?;
    // Every element takes at least one byte: a larger count is a corrupt blob.
    (n <= b.len().saturating_sub(*pos)).then_some(n)
}

fn get(b: &[u8], pos: &mut usize, depth: usize) -> Option<Reply> {
    if depth > 64 {
        return None;
    }
    let tag = *take(b, pos, 1)?.first()?;
    Some(match tag {
        NIL => Reply::Nil,
        INT => Reply::Int(word(b, pos)? as i64),
        DOUBLE => Reply::Double(f64::from_bits(word(b, pos)?)),
        SIMPLE | ERROR => {
            let n = len(b, pos)?;
            let s = String::from_utf8_lossy(take(b, pos, n)?).into_owned();
            if tag == SIMPLE {
                Reply::Simple(s)
            } else {
                Reply::Error(s)
            }
        }
        BULK => {
            let n = len(b, pos)?;
            Reply::Bulk(take(b, pos, n)?.to_vec())
        }
        ARRAY | SET => {
            let n = len(b, pos)?;
            let items = (0..n).map(|_| get(b, pos, depth + 1)).collect::<Option<Vec<_>>>()?;
            if tag == ARRAY {
                Reply::Array(items)
            } else {
                Reply::Set(items)
            }
        }
        MAP => {
            let n = len(b, pos)?;
            let mut pairs = Vec::with_capacity(n);
            for _ in 0..n {
                let k = get(b, pos, depth + 1)?;
                pairs.push((k, get(b, pos, depth + 1)?));
            }
            Reply::Map(pairs)
        }
        _ => return None,
    })
}

/// The items of a shard's encoded answer (a bulk string of [`encode`]); a shard's error
/// reply is returned as the error.
pub fn shard_items(r: &Reply) -> crate::error::Result<Vec<Reply>> {
    let bad = || crate::error::Error::new("bad shard reply");
    let bytes = match r {
        Reply::Bulk(b) => b,
        Reply::Error(e) => return Err(crate::error::Error::new(e.clone())),
        _ => return Err(bad()),
    };
    match decode(bytes) {
        Some(Reply::Array(items)) => Ok(items),
        _ => Err(bad()),
    }
}

/// The warnings a shard sent (its simple strings; anything else is not a warning).
pub fn warnings(items: Vec<Reply>) -> Vec<String> {
    items
        .into_iter()
        .filter_map(|w| match w {
            Reply::Simple(s) => Some(s),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_kind() {
        let r = Reply::Array(vec![
            Reply::Nil,
            Reply::Int(-7),
            Reply::Double(0.1 + 0.2),
            Reply::Simple("OK".into()),
            Reply::Bulk(b"a\r\nb\0".to_vec()),
            Reply::Map(vec![(Reply::Simple("k".into()), Reply::Set(vec![Reply::Int(1)]))]),
            Reply::Error("ERR x".into()),
        ]);
        assert_eq!(decode(&encode(&r)), Some(r));
    }

    #[test]
    fn rejects_truncated_and_trailing_bytes() {
        let mut b = encode(&Reply::Bulk(b"hello".to_vec()));
        assert_eq!(decode(&b[..b.len() - 1]), None);
        b.push(0);
        assert_eq!(decode(&b), None);
        assert_eq!(decode(&[ARRAY, 255, 255, 255, 255, 255, 255, 255, 255]), None);
    }
}
