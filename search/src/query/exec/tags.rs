//! Tag clauses (`@f:{a | b*}`): values, prefixes, suffixes and infixes read from the tag
//! dictionaries.

use crate::query::syntax::unescape;
use roaring::RoaringBitmap;

use crate::error::{Error, Result};
use crate::index::text::ALL_FIELDS;
use crate::index::FieldIndex;
use crate::query::syntax::TagTerm;

use super::{Exec, NO_INDEXEMPTY};

impl<'a> Exec<'a> {
    pub(super) fn tag(&mut self, fields: &[String], terms: &[TagTerm]) -> Result<RoaringBitmap> {
        let mut acc = RoaringBitmap::new();
        for fname in fields {
            let Some((fi, FieldIndex::Tag(ti))) = self.field(fname) else { continue };
            let case_sensitive = self.idx.spec.fields.get(fi).is_some_and(|f| f.case_sensitive);
            if self.idx.spec.fields.get(fi).is_some_and(|f| f.index_empty) {
                self.empty_tag_ok = true;
            }
            let empty = |t: &TagTerm| match t {
                TagTerm::Exact(v) => v.is_empty(),
                TagTerm::Words(w) => w.iter().any(String::is_empty),
                _ => false,
            };
            if !self.empty_tag_ok && terms.iter().any(empty) {
                return Err(Error::new(NO_INDEXEMPTY));
            }
            let norm = |s: &str| if case_sensitive { s.to_string() } else { s.to_ascii_lowercase() };
            // The values read, by name (FT.PROFILE shows them as the readers of a union).
            let mut named: Vec<(String, u32)> = Vec::new();
            for t in terms {
                // MINPREFIX bounds tag prefix, suffix and infix values as it bounds text ones.
                if let TagTerm::Prefix(v) | TagTerm::Suffix(v) | TagTerm::Infix(v) = t {
                    if v.len() < self.opts.min_prefix {
                        continue;
                    }
                }
                match t {
                    TagTerm::Exact(_) | TagTerm::Words(_) => {
                        let v = t.exact_value().unwrap_or_default();
                        if let Some(id) = ti.dict.get(&norm(&v)) {
                            named.push((norm(&v), id));
                        }
                    }
                    TagTerm::Prefix(v) => {
                        let found =
                            ti.dict.prefix(&norm(v), |id| ti.is_live(id), self.opts.max_expansions + 1);
                        if found.len() > self.opts.max_expansions {
                            self.warn("Max prefix expansions limit was reached");
                        }
                        named.extend(found.into_iter().take(self.opts.max_expansions));
                    }
                    TagTerm::Wildcard(v) => {
                        let p: Vec<char> = norm(&unescape(v)).chars().collect();
                        let found = ti.dict.scan(
                            |s, id| super::glob::matches(&p, s) && ti.is_live(id),
                            self.opts.max_expansions,
                        );
                        named.extend(found);
                    }
                    TagTerm::Suffix(v) | TagTerm::Infix(v) => {
                        let p = norm(v);
                        let suffix = matches!(t, TagTerm::Suffix(_));
                        let found = ti.dict.scan(
                            |s, id| (if suffix { s.ends_with(&p) } else { s.contains(&p) }) && ti.is_live(id),
                            self.opts.max_expansions,
                        );
                        named.extend(found);
                    }
                }
            }
            if !matches!(terms, [TagTerm::Exact(_) | TagTerm::Words(_)]) {
                self.prof.readers("TAG", &named, |id| ti.docs(id).cloned().unwrap_or_default());
            }
            let ids: Vec<u32> = named.into_iter().map(|(_, id)| id).collect();
            for id in &ids {
                if let Some(bm) = ti.docs(*id) {
                    acc |= bm;
                }
            }
            self.record(ids, ALL_FIELDS, Some(fi as u16));
        }
        Ok(acc)
    }

    /// The estimate of a tag clause whose score terms are `terms`: a union of its values (or
    /// of a pattern's) estimates the sum of its readers' sizes, as RediSearch's does.
    pub(super) fn tag_estimate(&self, terms: std::ops::Range<usize>) -> u64 {
        let terms = self.out.terms.get(terms).unwrap_or(&[]);
        let size = |t: &super::ScoreTerm| match self.idx.fields.get(usize::from(t.tag_field?)) {
            Some(FieldIndex::Tag(ti)) => {
                Some(t.ids.iter().filter_map(|&id| ti.docs(id)).map(|bm| bm.len()).sum::<u64>())
            }
            _ => None,
        };
        terms.iter().filter_map(size).sum()
    }
}
