//! The prefix filter of FT.SUGGET: a Levenshtein automaton fed one trie rune at a time.
//!
//! RediSearch builds a DFA from a sparse Levenshtein automaton (Jules Jacobs' formulation) and
//! walks it alongside the trie, keeping a stack of states (one per rune consumed) and a parallel
//! stack of the smallest distance seen on the path. A DFA state is exactly the sparse vector it
//! was built from, so stepping the automaton directly is the same machine; the quirks that
//! decide the reported distance (a match state reached *before* the last rune counts, the
//! distance written only when a state matches, an exhausted prefix continuing with no state) are
//! kept, because that distance is part of a FUZZY score.

use super::runes::{fold_rune, Rune};

/// One automaton state: `(position in the query, edits so far)`, positions increasing, edits
/// at most the maximum.
type State = Vec<(usize, u32)>;

/// A Levenshtein automaton over a folded query.
struct Automaton {
    query: Vec<Rune>,
    max: u32,
}

impl Automaton {
    fn start(&self) -> State {
        (0..=self.max).map(|i| (i as usize, i)).collect()
    }

    /// `SparseAutomaton_Step`.
    fn step(&self, state: &State, c: Rune) -> State {
        let mut next: State = Vec::with_capacity(state.len());
        if let Some(&(0, v)) = state.first() {
            if v < self.max {
                next.push((0, v + 1));
            }
        }
        for (j, &(idx, val)) in state.iter().enumerate() {
            if idx == self.query.len() {
                break;
            }
            let mut val = val;
            if self.query.get(idx) != Some(&c) {
                val += 1;
            }
            if let Some(&(last_idx, last_val)) = next.last() {
                if last_idx == idx {
                    val = val.min(last_val + 1);
                }
            }
            if let Some(&(next_idx, next_val)) = state.get(j + 1) {
                if next_idx == idx + 1 {
                    val = val.min(next_val + 1);
                }
            }
            if val <= self.max {
                next.push((idx + 1, val));
            }
        }
        next
    }

    fn is_match(&self, state: &State) -> bool {
        state.last().is_some_and(|&(idx, _)| idx == self.query.len())
    }

    /// The distance of the DFA node built for a state reached by a step: the edits of its last
    /// entry (the start node's is 0, set apart in [`PrefixFilter::new`]).
    fn distance(state: &State) -> u32 {
        state.last().map_or(0, |&(_, v)| v)
    }
}

/// What the filter says about one rune.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// Go on down this branch; `matched` when the path so far matches the query.
    Continue {
        /// The path so far is a match (a result if a terminal node ends here).
        matched: bool,
    },
    /// Stop this branch.
    Stop,
}

/// RediSearch's `DFAFilter` in prefix mode: the automaton plus the per-rune stacks.
pub(super) struct PrefixFilter {
    automaton: Automaton,
    /// One entry per rune consumed (plus the start): the state and its node's distance (None
    /// once the prefix is exhausted and anything goes) and the smallest distance on the path.
    stack: Vec<(Option<(State, u32)>, u32)>,
}

impl PrefixFilter {
    /// A filter for `query` (folded runes) with at most `max_dist` edits.
    pub(super) fn new(query: Vec<Rune>, max_dist: u32) -> PrefixFilter {
        let automaton = Automaton { query, max: max_dist };
        let start = automaton.start();
        PrefixFilter { automaton, stack: vec![(Some((start, 0)), max_dist + 1)] }
    }

    /// `FilterFunc`: feeds rune `b` (the trie's, unfolded). Writes the path's distance to `dist`
    /// when it matches, as RediSearch does (left alone otherwise).
    pub(super) fn step(&mut self, b: Rune, dist: &mut u32) -> Step {
        let Some((state, min_dist)) = self.stack.last() else { return Step::Stop };
        let min_dist = *min_dist;
        let Some((state, distance)) = state else {
            self.stack.push((None, min_dist));
            return Step::Continue { matched: true };
        };
        let mut matched = self.automaton.is_match(state);
        if matched {
            *dist = (*distance).min(min_dist);
        }
        let next = self.automaton.step(state, fold_rune(b));
        if !next.is_empty() {
            let d = Automaton::distance(&next);
            if self.automaton.is_match(&next) {
                matched = true;
                *dist = d.min(min_dist);
            }
            self.stack.push((Some((next, d)), d.min(min_dist)));
            return Step::Continue { matched };
        }
        if matched {
            self.stack.push((None, min_dist));
            return Step::Continue { matched };
        }
        Step::Stop
    }

    /// `StackPop`: forgets the last `n` runes.
    pub(super) fn pop(&mut self, n: usize) {
        let keep = self.stack.len().saturating_sub(n);
        self.stack.truncate(keep);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runes(s: &str) -> Vec<Rune> {
        s.encode_utf16().collect()
    }

    /// Feeds `word` and reports whether the last rune matched.
    fn matches(query: &str, max: u32, word: &str) -> bool {
        let mut f = PrefixFilter::new(runes(query), max);
        let mut dist = 0;
        let mut last = false;
        for r in runes(word) {
            match f.step(r, &mut dist) {
                Step::Continue { matched } => last = matched,
                Step::Stop => return false,
            }
        }
        last
    }

    #[test]
    fn exact_prefixes_match_case_insensitively() {
        assert!(matches("hel", 0, "hello"));
        assert!(matches("hel", 0, "HELLO"));
        assert!(matches("hel", 0, "hel"));
        assert!(!matches("hel", 0, "help me"[..2].as_ref()));
        assert!(!matches("hel", 0, "hex"));
    }

    #[test]
    fn one_edit_is_allowed_when_fuzzy() {
        assert!(matches("hel", 1, "hxl"));
        assert!(matches("hel", 1, "hl"));
        assert!(matches("hel", 1, "heel"));
        assert!(!matches("hel", 1, "xxl"));
    }
}
