//! What one document's record contributes to the field indexes (text records, tags,
//! numbers, geo points, missing fields), copied out of the record so that an update can
//! touch only what changed ([`Postings::diff`]).

use super::docs::{DocRecord, RecordParts};
use super::numeric;

/// The postings a record contributes (copied out before the record moves into the table).
pub(super) struct Postings {
    pub(super) terms: Vec<(u32, u16)>,
    pub(super) tags: Vec<(u16, u32)>,
    pub(super) numerics: Vec<(u16, f64)>,
    pub(super) geos: Vec<(u16, f64, f64)>,
    pub(super) missing: Vec<u16>,
    pub(super) len: u32,
}

impl Postings {
    /// What a new record contributes (its parts, once encoded into the record).
    pub(super) fn of(p: RecordParts, len: u32) -> Postings {
        Postings::sorted(
            p.occs.iter().map(|o| (o.term, o.field)).collect(),
            p.tags,
            p.numerics,
            p.geos,
            p.missing,
            len,
        )
    }

    /// The inverted-index records these postings make: one per term, whatever the fields it is
    /// in (RediSearch's records hold a field mask; FT.INFO `num_records`). `terms` is sorted
    /// by term, then field.
    pub(super) fn records(&self) -> u64 {
        let t = &self.terms;
        (0..t.len()).filter(|&i| i == 0 || t[i - 1].0 != t[i].0).count() as u64
    }

    fn sorted(
        terms: Vec<(u32, u16)>,
        mut tags: Vec<(u16, u32)>,
        mut numerics: Vec<(u16, f64)>,
        geos: Vec<(u16, f64, f64)>,
        missing: Vec<u16>,
        len: u32,
    ) -> Postings {
        tags.sort_unstable();
        numerics.sort_unstable_by_key(|a| (a.0, numeric::order_key(a.1)));
        numerics.dedup_by(|a, b| (a.0, numeric::order_key(a.1)) == (b.0, numeric::order_key(b.1)));
        Postings { terms, tags, numerics, geos, missing, len }
    }
}

impl DocRecord {
    /// What the record contributes; `len` is the document's length (its [`super::docs::DocHot`]).
    pub(super) fn clone_postings(&self, len: u32) -> Postings {
        let v = self.values();
        Postings::sorted(
            self.occs().iter().map(|o| (o.term, o.field)).collect(),
            v.tags,
            v.numerics,
            v.geos,
            v.missing,
            len,
        )
    }
}

/// `a - b` and `b - a` of two sorted lists under the key `k`.
fn sorted_diff<T: Copy, K: Ord>(a: &[T], b: &[T], k: impl Fn(&T) -> K) -> (Vec<T>, Vec<T>) {
    let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => match k(x).cmp(&k(y)) {
                std::cmp::Ordering::Less => {
                    only_a.push(*x);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    only_b.push(*y);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    i += 1;
                    j += 1;
                }
            },
            (Some(x), None) => {
                only_a.push(*x);
                i += 1;
            }
            (None, Some(y)) => {
                only_b.push(*y);
                j += 1;
            }
            (None, None) => break,
        }
    }
    (only_a, only_b)
}

impl Postings {
    /// Splits an update into (postings to remove, postings to add).
    pub(super) fn diff(self, new: Postings) -> (Postings, Postings) {
        let (t_gone, t_new) = sorted_diff(&self.terms, &new.terms, |x| *x);
        let (g_gone, g_new) = sorted_diff(&self.tags, &new.tags, |x| *x);
        let (n_gone, n_new) = sorted_diff(&self.numerics, &new.numerics, |x| (x.0, numeric::order_key(x.1)));
        let (m_gone, m_new) = sorted_diff(&self.missing, &new.missing, |x| *x);
        let geo_same = self.geos == new.geos;
        let gone = Postings {
            terms: t_gone,
            tags: g_gone,
            numerics: n_gone,
            geos: if geo_same { Vec::new() } else { self.geos },
            missing: m_gone,
            len: self.len,
        };
        let added = Postings {
            terms: t_new,
            tags: g_new,
            numerics: n_new,
            geos: if geo_same { Vec::new() } else { new.geos },
            missing: m_new,
            len: new.len,
        };
        (gone, added)
    }
}
