//! Just enough of the RDB format to list a file's module aux records and find their items.

use std::path::Path;

/// An RDB length at `*p` (and whether it is a special encoding), advancing `*p`.
fn len(d: &[u8], p: &mut usize) -> Option<(u64, bool)> {
    let b = *d.get(*p)?;
    *p += 1;
    Some(match b >> 6 {
        0 => (u64::from(b & 0x3f), false),
        1 => {
            *p += 1;
            ((u64::from(b & 0x3f) << 8) | u64::from(*d.get(*p - 1)?), false)
        }
        2 if b == 0x80 => {
            *p += 4;
            (u64::from(u32::from_be_bytes(d.get(*p - 4..*p)?.try_into().ok()?)), false)
        }
        2 => {
            *p += 8;
            (u64::from_be_bytes(d.get(*p - 8..*p)?.try_into().ok()?), false)
        }
        _ => (u64::from(b & 0x3f), true),
    })
}

fn skip_string(d: &[u8], p: &mut usize) -> Option<()> {
    match len(d, p)? {
        (0, true) => *p += 1,
        (1, true) => *p += 2,
        (2, true) => *p += 4,
        (3, true) => {
            let clen = len(d, p)?.0 as usize;
            len(d, p)?;
            *p += clen;
        }
        (n, _) => *p += n as usize,
    }
    Some(())
}

const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// One module aux record: its type name, `when`, and its items as (offset of the item's
/// opcode, opcode).
pub type Record = (String, u64, Vec<(usize, u64)>);

/// A module aux record at `*p` (after its 0xF7 opcode): (type name, when, item offsets), each
/// item as (offset of its opcode, opcode); `*p` ends after the record's EOF.
pub fn record(d: &[u8], p: &mut usize) -> Option<Record> {
    let id = len(d, p)?.0;
    let name: String = (0..9).map(|i| CHARS[((id >> (58 - 6 * i)) & 63) as usize] as char).collect();
    len(d, p)?;
    let when = len(d, p)?.0;
    let mut items = Vec::new();
    loop {
        let at = *p;
        match len(d, p)?.0 {
            0 => return Some((name, when, items)),
            op @ (1 | 2) => {
                len(d, p)?;
                items.push((at, op));
            }
            3 => {
                *p += 4;
                items.push((at, 3));
            }
            4 => {
                *p += 8;
                items.push((at, 4));
            }
            5 => {
                skip_string(d, p)?;
                items.push((at, 5));
            }
            _ => return None,
        }
    }
}

/// Module aux records from `*p` that run exactly to `end`.
fn records_to(d: &[u8], mut p: usize, end: usize) -> Option<Vec<(String, u64)>> {
    let mut out = Vec::new();
    while p < end {
        if d[p] != 0xF7 {
            return None;
        }
        p += 1;
        let (name, when, _) = record(d, &mut p)?;
        out.push((name, when));
    }
    (p == end).then_some(out)
}

/// The module aux records before the keys: (type name, when, offset of its 0xF7), in order.
pub fn header_records(d: &[u8]) -> Vec<(String, u64, usize)> {
    let mut p = 9;
    let mut out = Vec::new();
    loop {
        match d.get(p) {
            Some(0xFA) => {
                p += 1;
                skip_string(d, &mut p);
                skip_string(d, &mut p);
            }
            Some(0xF7) => {
                let at = p;
                p += 1;
                let (name, when, _) = record(d, &mut p).expect("module aux record");
                out.push((name, when, at));
            }
            _ => return out,
        }
    }
}

/// (type name, when) of each module aux record of an RDB file, in order: those before the keys,
/// then those after them (found as the records that run exactly to the 0xFF end marker).
pub fn aux_records(path: &Path) -> Vec<(String, u64)> {
    let d = std::fs::read(path).unwrap();
    let mut out: Vec<(String, u64)> = header_records(&d).into_iter().map(|(n, w, _)| (n, w)).collect();
    let end = d.len() - 9;
    assert_eq!(d[end], 0xFF, "RDB end marker");
    let from = header_records(&d).last().map_or(9, |r| r.2 + 1);
    if let Some(after) = (from..end).find_map(|i| (d[i] == 0xF7).then(|| records_to(&d, i, end)).flatten()) {
        out.extend(after);
    }
    out
}
