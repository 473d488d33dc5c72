//! What a path depends on, so that a write elsewhere is known not to change what it selects
//! (the search indexer skips the fields a JSON write left alone).
//!
//! A path's *reach* is its leading object keys: every node it selects, and everything it reads
//! to select them, lies under them. `$.a.b[*].c` reaches `$.a.b`; a path that starts with an
//! index, a wildcard or a descent, or whose filters read from the root (`$.a[?(@.x > $.y)]`),
//! reaches the whole document. Array indices end the reach: a write at `$.arr[0]` that deletes
//! the element moves every later one, so indices are never told apart.
//!
//! A write at `w` changes the nodes `w` selects and their descendants, and nothing else (it may
//! add or remove members of a container on the way, not change the others). So a path `p` is
//! independent of a write at `w` when the two reaches part ways: at some depth both name an
//! object key, different ones.

use super::ast::{Filter, Pattern, Segment, Selector, Term};
use super::JsonPath;

impl JsonPath {
    /// True when no write at the nodes `write` selects can change what `self` selects (nor
    /// their values): the leading keys of the two paths differ at some depth. False whenever
    /// that is not certain.
    pub fn independent_of(&self, write: &JsonPath) -> bool {
        let mine = self.reach();
        let theirs = write.inner.segments.iter().map_while(key_of);
        mine.zip(theirs).any(|(a, b)| a != b)
    }

    /// The leading object keys every node the path selects lies under (none when its filters
    /// read from the root).
    fn reach(&self) -> impl Iterator<Item = &str> {
        let segments: &[Segment] =
            if self.inner.segments.iter().any(reads_root) { &[] } else { &self.inner.segments };
        segments.iter().map_while(key_of)
    }
}

fn key_of(s: &Segment) -> Option<&str> {
    match s {
        Segment::Child(Selector::Key(k)) => Some(k),
        _ => None,
    }
}

/// Whether a segment's filters (at any nesting) read from the document's root.
fn reads_root(s: &Segment) -> bool {
    match s {
        Segment::Child(Selector::Filter(f)) | Segment::Descendant(Selector::Filter(f)) => {
            filter_reads_root(f)
        }
        _ => false,
    }
}

fn filter_reads_root(f: &Filter) -> bool {
    match f {
        Filter::Or(list) | Filter::And(list) => list.iter().any(filter_reads_root),
        Filter::Exists(t) => term_reads_root(t),
        Filter::Compare(a, _, b) => term_reads_root(a) || term_reads_root(b),
        Filter::Regex(t, p) => term_reads_root(t) || matches!(p, Pattern::Term(t) if term_reads_root(t)),
    }
}

fn term_reads_root(t: &Term) -> bool {
    match t {
        Term::Root(_) => true,
        Term::Current(path) => path.iter().any(reads_root),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn independent(field: &str, write: &str) -> bool {
        let (f, w) = (JsonPath::parse(field).unwrap(), JsonPath::parse(write).unwrap());
        f.independent_of(&w)
    }

    #[test]
    fn keys_that_part_ways() {
        assert!(independent("$.body", "$.price"));
        assert!(independent("$.a.b", "$.a.c"));
        assert!(independent("$.tags[*]", "$.price"));
        assert!(independent("$.items[?(@.x > 1)].name", "$.other"));
        assert!(independent("$.a.b", "$.a.c[0]"));
        assert!(independent("$.a", ".b"));
        assert!(independent(".a.b", "$.a.c"));
        assert!(independent("$['a b']", "$.c"));
    }

    #[test]
    fn writes_that_may_reach() {
        // The root, a prefix, a descendant, the same key.
        for (field, write) in [
            ("$.body", "$"),
            ("$.body", "."),
            ("$.a.b", "$.a"),
            ("$.a", "$.a.b"),
            ("$.a", "$.a"),
            ("$..a", "$.b"),
            ("$.a", "$..b"),
            ("$.*", "$.b"),
            ("$.a", "$.*"),
            ("$[0]", "$.b"),
            // Indices are never told apart (a deletion moves the later elements).
            ("$.arr[1]", "$.arr[0]"),
            ("$.arr[1].x", "$.arr[0].y"),
            // A filter that reads from the root depends on the whole document.
            ("$.a[?(@.x > $.limit)]", "$.limit"),
            ("$.a[?(@.x =~ $.re)]", "$.re"),
            ("$.a[?(@.b[?(@.c == $.d)])]", "$.d"),
            ("$.a[?(@.x > 1 && $.on == true)]", "$.on"),
        ] {
            assert!(!independent(field, write), "{field} vs a write at {write}");
        }
    }

    #[test]
    fn a_write_under_the_reach_of_a_filter_may_change_it() {
        assert!(!independent("$.items[?(@.x > 1)].name", "$.items[3].x"));
        assert!(!independent("$.items[?(@.x > 1)].name", "$.items"));
    }
}
