//! How RediSearch 2.10.5 folds and orders text outside its tokenizer (which lowercases ASCII
//! only, see [`super::tokenizer`]).
//!
//! - A prefix, suffix, infix, wildcard or fuzzy pattern is matched against the terms of its
//!   rune trie after `strToFoldedRunes` folds each of its characters (nunicode's
//!   `nu_tofold`, the first character of the folding), while the terms themselves are kept
//!   as indexed: `ÉC*` finds no `École`, `*É` finds `café`.
//! - Its trie maps (tag values, stopword lists) keep children in the order of their first
//!   byte as a C `char`, signed on x86 (`__cmp_chars`, triemap.c): values starting with a
//!   non-ASCII byte list before ASCII ones.

use std::cmp::Ordering;

/// One character of a query pattern as `strToFoldedRunes` folds it.
fn fold_char(c: char) -> char {
    match c {
        // Case folding, where it differs from the first character of lowercasing.
        'ς' => 'σ',
        'ß' | 'ẞ' => 's',
        _ => c.to_lowercase().next().unwrap_or(c),
    }
}

/// A query pattern folded as RediSearch folds it before walking its terms.
pub fn fold_pattern(s: &str) -> String {
    s.chars().map(fold_char).collect()
}

/// The order of RediSearch's trie maps: bytes compared as signed C `char`s.
pub fn c_char_order(a: &str, b: &str) -> Ordering {
    a.bytes().map(|x| x as i8).cmp(b.bytes().map(|x| x as i8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_patterns_and_orders_as_c_chars() {
        assert_eq!(fold_pattern("ÉC*"), "éc*");
        assert_eq!(fold_pattern("İx ΣΟΦΟΣ"), "ix σοφοσ");
        let mut v = vec!["the", "zeta", "ÉtÉ", "abc"];
        v.sort_by(|a, b| c_char_order(a, b));
        assert_eq!(v, ["ÉtÉ", "abc", "the", "zeta"]);
    }
}
