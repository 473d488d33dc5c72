//! One document's record, encoded in a single allocation: the key, the sortable values, the forward list ([`super::forward`]), tags, numbers, geo points
//! and the fields without a value. A document costs its bytes and one allocation, instead
//! of a 128-byte struct and one allocation per kind of value.
//!
//! The scoring figures (score, norm, length) are in the document table's per-id
//! [`super::docs::DocHot`], not here. Layout: sections, each a varint length or count and
//! its contents:
//! - the key;
//! - the sortables, their byte length, then per value a varint field, a kind byte (0 a
//!   number, 8 bytes; 1 a string, varint length and UTF-8; 2, 3 and 4 the same and a null
//!   as the first of several values, [`SortValue::Several`]);
//! - numbers, their byte length, then (header varint, value) each; the header is the field
//!   index times two, plus one for a field whose one value is the document's as LOAD reads
//!   it ([`RecordParts::served`]), times four plus the value's form ([`put_number`]: an f64,
//!   or a zigzag varint of the value times 1, 10 or 100 when that reads back as the same
//!   double: a year, a rating or a price in one to three bytes); next to the sortables, as
//!   the aggregation pipeline reads both for every row;
//! - the forward list, its byte length;
//! - tags: count, (field, tag id) varints;
//! - geo points: count, (field varint, lon f64, lat f64);
//! - missing fields: count, field varints.

use super::docs::{Several, SortValue, TermOcc};
use super::forward::{self, Forward};
use super::thin::ThinBytes;
use super::varint::{get_varint, get_varint64, put_varint, put_varint64};

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
    /// The first of several values ([`SortValue::Several`]).
    Several(Several<&'a str>),
}

/// Everything the index knows about one document (see the module's layout), behind one
/// pointer ([`ThinBytes`]: the document table holds one per id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocRecord(ThinBytes);

fn put_f64(out: &mut Vec<u8>, v: f64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn get_f64(bytes: &[u8], at: &mut usize) -> Option<f64> {
    let b = bytes.get(*at..*at + 8)?;
    *at += 8;
    Some(f64::from_le_bytes(b.try_into().ok()?))
}

/// Powers of ten a number's decimal form is scaled by ([`put_number`]).
const SCALES: [f64; 3] = [1.0, 10.0, 100.0];

/// Largest scaled value kept as a varint (its zigzag form takes at most 7 bytes).
const SCALED_MAX: f64 = (1u64 << 47) as f64;

/// The form of `v` (0: f64; `1 + k`: the integer `m` with `m / SCALES[k] == v`, bit for
/// bit) and that integer.
fn number_form(v: f64) -> (u32, i64) {
    for (k, &scale) in SCALES.iter().enumerate() {
        let m = (v * scale).round();
        // The decoder's own expression, compared bit for bit (so -0.0, which would come back
        // as 0, stays an f64).
        if m.abs() < SCALED_MAX && ((m as i64) as f64 / scale).to_bits() == v.to_bits() {
            return (1 + k as u32, m as i64);
        }
    }
    (0, 0)
}

/// Appends number `v` of header `head` (field and served bit).
fn put_number(out: &mut Vec<u8>, head: u32, v: f64) {
    let (form, m) = number_form(v);
    put_varint(out, head << 2 | form);
    match form {
        0 => put_f64(out, v),
        _ => put_varint64(out, ((m << 1) ^ (m >> 63)) as u64),
    }
}

/// Reads a number written by [`put_number`]: (head, value).
fn get_number(bytes: &[u8], at: &mut usize) -> Option<(u32, f64)> {
    let h = get_varint(bytes, at)?;
    let v = match (h & 3) as usize {
        0 => get_f64(bytes, at)?,
        form => {
            let z = get_varint64(bytes, at)?;
            let m = (z >> 1) as i64 ^ -((z & 1) as i64);
            m as f64 / SCALES[form - 1]
        }
    };
    Some((h >> 2, v))
}

fn put_len(out: &mut Vec<u8>, n: usize) {
    put_varint(out, u32::try_from(n).unwrap_or(u32::MAX));
}

/// A sortable string's text.
fn utf8(s: &[u8]) -> &str {
    std::str::from_utf8(s).unwrap_or_default()
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
                SortValue::Several(Several::Num(n)) => {
                    sort.push(2);
                    put_f64(&mut sort, *n);
                }
                SortValue::Several(Several::Str(s)) => {
                    sort.push(3);
                    put_len(&mut sort, s.len());
                    sort.extend_from_slice(s.as_bytes());
                }
                SortValue::Several(Several::Null) => sort.push(4),
            }
        }
        put_len(&mut out, sort.len());
        out.extend_from_slice(&sort);
        let mut nums = Vec::with_capacity(p.numerics.len() * 9);
        for (f, v) in &p.numerics {
            put_number(&mut nums, u32::from(*f) << 1 | u32::from(p.served.contains(f)), *v);
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
        DocRecord(ThinBytes::new(&out))
    }

    /// Where the record's bytes start (for a prefetch: reads nothing).
    pub fn bytes_ptr(&self) -> *const u8 {
        self.0.start_ptr()
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
        std::iter::from_fn(move || get_number(bytes, &mut at))
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
            match kind {
                0 => Some((f, SortRef::Num(get_f64(bytes, &mut at)?))),
                2 => Some((f, SortRef::Several(Several::Num(get_f64(bytes, &mut at)?)))),
                3 => Some((f, SortRef::Several(Several::Str(utf8(section(bytes, &mut at)))))),
                4 => Some((f, SortRef::Several(Several::Null))),
                _ => Some((f, SortRef::Str(utf8(section(bytes, &mut at))))),
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

    /// The (tag field index, tag id) pairs, decoded one by one.
    pub fn tags(&self) -> impl Iterator<Item = (u16, u32)> + '_ {
        let (_, _, _, mut at) = self.middle();
        let b = &self.0[..];
        (0..get_varint(b, &mut at).unwrap_or(0))
            .map_while(move |_| Some((get_varint(b, &mut at)? as u16, get_varint(b, &mut at)?)))
    }

    /// Whether the document has tag `tag` in tag field `field`.
    pub fn has_tag(&self, field: u16, tag: u32) -> bool {
        self.tags().any(|x| x == (field, tag))
    }

    /// Heap bytes.
    pub fn mem_bytes(&self) -> usize {
        self.0.len() + super::thin::HEAD + std::mem::size_of::<DocRecord>()
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
            sortables: vec![
                (0, SortValue::Str("héllo".into())),
                (3, SortValue::Num(1.5)),
                (7, SortValue::Several(Several::Str("Ab".into()))),
                (8, SortValue::Several(Several::Num(-2.0))),
                (9, SortValue::Several(Several::Null)),
            ],
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
        assert_eq!(r.sortable(7), Some(SortRef::Several(Several::Str("Ab"))));
        assert_eq!(r.sortable(8), Some(SortRef::Several(Several::Num(-2.0))));
        assert_eq!(r.sortable(9), Some(SortRef::Several(Several::Null)));
        let v = r.values();
        assert_eq!(r.geo_points().collect::<Vec<_>>(), p.geos);
        assert_eq!((v.tags, v.numerics, v.geos, v.missing), (p.tags, p.numerics, p.geos, p.missing));
        assert!(r.has_tag(2, 70_000) && !r.has_tag(2, 6));
        assert_eq!((r.served_number(3), r.served_number(200)), (Some(1.5), Some(7.0)));
        assert_eq!((r.served_number(4), r.served_number(2)), (None, None));
        let empty = DocRecord::encode(&RecordParts::default());
        assert_eq!(empty.key(), b"");
        assert_eq!(empty.values(), Values::default());
        assert_eq!(empty.mem_bytes(), 7 + 4 + 8);
    }

    #[test]
    fn numbers_read_back_bit_for_bit() {
        let mut x: u64 = 0x853C_49E6_748F_EA9B;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut values = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            0.01,
            0.001,
            123.45,
            -123.45,
            2015.0,
            4.5,
            1e20,
            1e-300,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            SCALED_MAX,
            -SCALED_MAX,
            SCALED_MAX - 1.0,
            1.0 / 3.0,
            9_007_199_254_740_993.0,
        ];
        for _ in 0..100_000 {
            let r = next();
            values.push(match r % 3 {
                0 => f64::from_bits(next()),
                1 => (next() % 1_000_000) as f64 / [1.0, 10.0, 100.0, 1000.0][(r >> 8) as usize % 4],
                _ => ((next() % 100_000) as f64 - 50_000.0) * 0.01,
            });
        }
        let mut small = 0;
        for v in values {
            let mut out = Vec::new();
            put_number(&mut out, 77, v);
            small += usize::from(out.len() < 9);
            let mut at = 0;
            let (head, back) = get_number(&out, &mut at).unwrap_or((0, f64::NAN));
            assert_eq!((head, back.to_bits(), at), (77, v.to_bits(), out.len()), "{v:e}");
        }
        // Decimals of up to two places (most of two thirds of the values) take fewer bytes.
        assert!(small > 50_000, "{small}");
    }
}
