//! One document's record, encoded in a single allocation: the key, the sortable values, the forward list ([`super::forward`]), tags, numbers, geo points
//! and the fields without a value. A document costs its bytes and one allocation, instead
//! of a 128-byte struct and one allocation per kind of value.
//!
//! The scoring figures (score, norm, length) are in the document table's per-id
//! [`super::docs::DocHot`], not here. Layout: sections, each a varint length or count and
//! its contents:
//! - the key;
//! - the sortables, their byte length, then per value a varint field, a kind byte (0 a
//!   number, 8 bytes; 1 a string, varint length and UTF-8);
//! - numbers, their byte length, then (field varint, f64) each; the field varint is the
//!   field index times two, plus one for a field whose one value is the document's as LOAD
//!   reads it ([`RecordParts::served`]); next to the sortables, as the aggregation
//!   pipeline reads both for every row;
//! - the forward list, its byte length;
//! - tags: count, (field, tag id) varints;
//! - geo points: count, (field varint, lon f64, lat f64);
//! - missing fields: count, field varints.

use super::docs::{SortValue, TermOcc};
use super::forward::{self, Forward};
use super::varint::{get_varint, put_varint};

/// A record's parts, decoded (what the indexer builds and [`DocRecord::encode`] stores).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordParts {
    /// The Redis key.
    pub key: Vec<u8>,
    /// Term occurrences sorted by (term, field).
    pub occs: Vec<TermOcc>,
    /// (tag field index, tag id) pairs.
    pub tags: Vec<(u16, u32)>,
    /// (numeric field index, value) pairs.
    pub numerics: Vec<(u16, f64)>,
    /// The NUMERIC fields whose one value in `numerics` is the document's as the aggregation
    /// pipeline reads it ([`DocRecord::served_number`]).
    pub served: Vec<u16>,
    /// (geo field index, lon, lat).
    pub geos: Vec<(u16, f64, f64)>,
    /// (field index, value) for SORTABLE fields.
    pub sortables: Vec<(u16, SortValue)>,
    /// Field indexes with no value (INDEXMISSING fields only).
    pub missing: Vec<u16>,
}

/// A sortable value, borrowed from its record.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SortRef<'a> {
    /// Number.
    Num(f64),
    /// String (normalized unless UNF).
    Str(&'a str),
}

/// Everything the index knows about one document (see the module's layout).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocRecord(Box<[u8]>);

fn put_f64(out: &mut Vec<u8>, v: f64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn get_f64(bytes: &[u8], at: &mut usize) -> Option<f64> {
    let b = bytes.get(*at..*at + 8)?;
    *at += 8;
    Some(f64::from_le_bytes(b.try_into().ok()?))
}

fn put_len(out: &mut Vec<u8>, n: usize) {
    put_varint(out, u32::try_from(n).unwrap_or(u32::MAX));
}

/// A varint-length-prefixed section at `*at`, advancing past it.
fn section<'a>(bytes: &'a [u8], at: &mut usize) -> &'a [u8] {
    let n = get_varint(bytes, at).unwrap_or(0) as usize;
    let s = bytes.get(*at..(*at + n).min(bytes.len())).unwrap_or(&[]);
    *at += n;
    s
}

impl DocRecord {
    /// Encodes `p` (its `occs` sorted by (term, field)).
    pub fn encode(p: &RecordParts) -> DocRecord {
        let mut out = Vec::with_capacity(
            8 + p.key.len() + p.occs.len() * 3 + p.tags.len() * 4 + p.numerics.len() * 9 + 32,
        );
        put_len(&mut out, p.key.len());
        out.extend_from_slice(&p.key);
        let mut sort = Vec::new();
        for (f, v) in &p.sortables {
            put_varint(&mut sort, u32::from(*f));
            match v {
                SortValue::Num(n) => {
                    sort.push(0);
                    put_f64(&mut sort, *n);
                }
                SortValue::Str(s) => {
                    sort.push(1);
                    put_len(&mut sort, s.len());
                    sort.extend_from_slice(s.as_bytes());
                }
            }
        }
        put_len(&mut out, sort.len());
        out.extend_from_slice(&sort);
        let mut nums = Vec::with_capacity(p.numerics.len() * 9);
        for (f, v) in &p.numerics {
            put_varint(&mut nums, u32::from(*f) << 1 | u32::from(p.served.contains(f)));
            put_f64(&mut nums, *v);
        }
        put_len(&mut out, nums.len());
        out.extend_from_slice(&nums);
        let mut fwd = Vec::with_capacity(p.occs.len() * 3);
        forward::encode_into(&mut fwd, &p.occs);
        put_len(&mut out, fwd.len());
        out.extend_from_slice(&fwd);
        put_len(&mut out, p.tags.len());
        for (f, t) in &p.tags {
            put_varint(&mut out, u32::from(*f));
            put_varint(&mut out, *t);
        }
        put_len(&mut out, p.geos.len());
        for (f, x, y) in &p.geos {
            put_varint(&mut out, u32::from(*f));
            put_f64(&mut out, *x);
            put_f64(&mut out, *y);
        }
        put_len(&mut out, p.missing.len());
        for f in &p.missing {
            put_varint(&mut out, u32::from(*f));
        }
        DocRecord(out.into_boxed_slice())
    }

    /// Where the record's bytes start (for a prefetch: reads nothing).
    pub fn bytes_ptr(&self) -> *const u8 {
        self.0.as_ptr()
    }

    /// The Redis key.
    pub fn key(&self) -> &[u8] {
        section(&self.0, &mut 0)
    }

    /// (sortables, numbers, forward list, offset of the tags).
    fn middle(&self) -> (&[u8], &[u8], &[u8], usize) {
        let mut at = 0;
        section(&self.0, &mut at);
        let sort = section(&self.0, &mut at);
        let nums = section(&self.0, &mut at);
        let fwd = section(&self.0, &mut at);
        (sort, nums, fwd, at)
    }

    /// The sortables and the numbers (the sections after the key).
    fn columns(&self) -> (&[u8], &[u8]) {
        let mut at = 0;
        section(&self.0, &mut at);
        let sort = section(&self.0, &mut at);
        (sort, section(&self.0, &mut at))
    }

    /// The numbers: (field varint, as encoded, value).
    fn numbers(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        let bytes = self.columns().1;
        let mut at = 0;
        std::iter::from_fn(move || Some((get_varint(bytes, &mut at)?, get_f64(bytes, &mut at)?)))
    }

    /// The (numeric field index, value) pairs, in the order the indexer gave them (a
    /// multi-valued field's values in document order, repeats kept).
    pub fn numeric_values(&self) -> impl Iterator<Item = (u16, f64)> + '_ {
        self.numbers().map(|(f, x)| ((f >> 1) as u16, x))
    }

    /// The sortable values, in field order of the schema.
    pub fn sortables(&self) -> impl Iterator<Item = (u16, SortRef<'_>)> + '_ {
        let bytes = self.columns().0;
        let mut at = 0;
        std::iter::from_fn(move || {
            let f = get_varint(bytes, &mut at)? as u16;
            let kind = *bytes.get(at)?;
            at += 1;
            if kind == 0 {
                Some((f, SortRef::Num(get_f64(bytes, &mut at)?)))
            } else {
                let s = section(bytes, &mut at);
                Some((f, SortRef::Str(std::str::from_utf8(s).unwrap_or_default())))
            }
        })
    }

    /// The sortable value of a field.
    pub fn sortable(&self, field: u16) -> Option<SortRef<'_>> {
        self.sortables().find(|(f, _)| *f == field).map(|(_, v)| v)
    }

    /// The forward list: term occurrences sorted by (term, field).
    pub fn occs(&self) -> Forward<'_> {
        Forward(self.middle().2)
    }

    /// All occurrences of `term`, any field.
    pub fn occs_of(&self, term: u32) -> impl Iterator<Item = TermOcc> + Clone + '_ {
        self.occs().iter().skip_while(move |o| o.term < term).take_while(move |o| o.term == term)
    }

    /// The distinct terms of the document, ascending.
    pub fn terms(&self) -> impl Iterator<Item = u32> + '_ {
        let mut last = None;
        self.occs().iter().filter_map(move |o| (last.replace(o.term) != Some(o.term)).then_some(o.term))
    }

    /// The tags, numbers, geo points and missing fields, decoded.
    pub fn values(&self) -> Values {
        let (_, _, _, mut at) = self.middle();
        let b = &self.0[..];
        let mut v = Values::default();
        for _ in 0..get_varint(b, &mut at).unwrap_or(0) {
            let (Some(f), Some(t)) = (get_varint(b, &mut at), get_varint(b, &mut at)) else { break };
            v.tags.push((f as u16, t));
        }
        v.numerics = self.numbers().map(|(f, x)| ((f >> 1) as u16, x)).collect();
        for _ in 0..get_varint(b, &mut at).unwrap_or(0) {
            let (Some(f), Some(x), Some(y)) =
                (get_varint(b, &mut at), get_f64(b, &mut at), get_f64(b, &mut at))
            else {
                break;
            };
            v.geos.push((f as u16, x, y));
        }
        for _ in 0..get_varint(b, &mut at).unwrap_or(0) {
            let Some(f) = get_varint(b, &mut at) else { break };
            v.missing.push(f as u16);
        }
        v
    }

    /// The (geo field index, lon, lat) points.
    pub fn geo_points(&self) -> impl Iterator<Item = (u16, f64, f64)> + '_ {
        let (_, _, _, mut at) = self.middle();
        let b = &self.0[..];
        for _ in 0..get_varint(b, &mut at).unwrap_or(0) {
            if get_varint(b, &mut at).and(get_varint(b, &mut at)).is_none() {
                break;
            }
        }
        let n = get_varint(b, &mut at).unwrap_or(0);
        (0..n).map_while(move |_| {
            Some((get_varint(b, &mut at)? as u16, get_f64(b, &mut at)?, get_f64(b, &mut at)?))
        })
    }

    /// The NUMERIC fields whose value the index holds as the document's.
    pub fn served_fields(&self) -> impl Iterator<Item = u16> + '_ {
        self.numbers().filter(|(f, _)| f & 1 == 1).map(|(f, _)| (f >> 1) as u16)
    }

    /// The value of NUMERIC field `field` when the index holds it as the document's (one
    /// number, read back as itself: [`RecordParts::served`]).
    pub fn served_number(&self, field: u16) -> Option<f64> {
        let want = u32::from(field) << 1 | 1;
        self.numbers().find(|(f, _)| *f == want).map(|(_, x)| x)
    }

    /// Whether the document has tag `tag` in tag field `field`.
    pub fn has_tag(&self, field: u16, tag: u32) -> bool {
        let (_, _, _, mut at) = self.middle();
        let b = &self.0[..];
        (0..get_varint(b, &mut at).unwrap_or(0))
            .map_while(|_| Some((get_varint(b, &mut at)? as u16, get_varint(b, &mut at)?)))
            .any(|x| x == (field, tag))
    }

    /// Heap bytes.
    pub fn mem_bytes(&self) -> usize {
        self.0.len() + std::mem::size_of::<DocRecord>()
    }

    /// Bytes of the sortable values.
    pub fn sortable_bytes(&self) -> usize {
        self.columns().0.len()
    }
}

/// A record's tags, numbers, geo points and missing fields ([`DocRecord::values`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Values {
    /// (tag field index, tag id) pairs.
    pub tags: Vec<(u16, u32)>,
    /// (numeric field index, value) pairs.
    pub numerics: Vec<(u16, f64)>,
    /// (geo field index, lon, lat).
    pub geos: Vec<(u16, f64, f64)>,
    /// Field indexes with no value.
    pub missing: Vec<u16>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_round_trip() {
        let p = RecordParts {
            key: b"doc:1".to_vec(),
            occs: vec![
                TermOcc { term: 3, field: 0, freq: 1 },
                TermOcc { term: 3, field: 1, freq: 2 },
                TermOcc { term: 900, field: 1, freq: 40 },
            ],
            tags: vec![(2, 5), (2, 70_000)],
            numerics: vec![(3, 1.5), (4, -0.0), (4, f64::MAX), (200, 7.0)],
            served: vec![3, 200],
            geos: vec![(5, 2.35, 48.85)],
            sortables: vec![(0, SortValue::Str("héllo".into())), (3, SortValue::Num(1.5))],
            missing: vec![6, 300],
        };
        let r = DocRecord::encode(&p);
        assert_eq!(r.key(), b"doc:1");
        assert_eq!(r.occs().to_vec(), p.occs);
        assert_eq!(r.terms().collect::<Vec<_>>(), [3, 900]);
        assert_eq!(r.occs_of(3).count(), 2);
        assert_eq!(r.sortable(0), Some(SortRef::Str("héllo")));
        assert_eq!(r.sortable(3), Some(SortRef::Num(1.5)));
        assert_eq!(r.sortable(1), None);
        let v = r.values();
        assert_eq!(r.geo_points().collect::<Vec<_>>(), p.geos);
        assert_eq!((v.tags, v.numerics, v.geos, v.missing), (p.tags, p.numerics, p.geos, p.missing));
        assert!(r.has_tag(2, 70_000) && !r.has_tag(2, 6));
        assert_eq!((r.served_number(3), r.served_number(200)), (Some(1.5), Some(7.0)));
        assert_eq!((r.served_number(4), r.served_number(2)), (None, None));
        let empty = DocRecord::encode(&RecordParts::default());
        assert_eq!(empty.key(), b"");
        assert_eq!(empty.values(), Values::default());
        assert_eq!(empty.mem_bytes(), 7 + 16);
    }
}
