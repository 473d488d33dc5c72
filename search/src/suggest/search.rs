//! FT.SUGGET's lookup: RediSearch's `Trie_Search`, with its scoring and its bounded heap.
//!
//! Each match is scored from its stored score: an entry equal to the query (by RediSearch's test,
//! which compares only the first `len` *bytes* of the rune arrays) scores `INT_MAX`; FUZZY
//! multiplies by `exp(-2 * distance)`; then the score is divided by
//! `sqrt(1 + |runes of the entry - bytes of the query|)`. All of it in `float`, as there. The best
//! `max` are kept in RediSearch's binary heap (whose tie order is reproduced by reproducing the
//! heap), and TRIM drops those under a tenth of the best.

use super::filter::PrefixFilter;
use super::runes::{self, Rune};
use super::trie::Node;
use crate::limits::{SUGGEST_MAX_PREFIX, SUGGEST_PREALLOC, SUGGEST_TRIM_FACTOR};

/// One FT.SUGGET result.
#[derive(Clone, Debug, PartialEq)]
pub struct Suggestion {
    /// The suggestion as stored (case kept), as RediSearch writes it back.
    pub string: Vec<u8>,
    /// Its score for this query (what WITHSCORES prints).
    pub score: f32,
    /// Its payload, if it has one.
    pub payload: Option<Vec<u8>>,
}

/// What FT.SUGGET asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Query {
    /// Most results (MAX, at least 1).
    pub max: usize,
    /// Levenshtein distance allowed (1 with FUZZY).
    pub max_dist: u32,
    /// TRIM: drop results under a tenth of the best score.
    pub trim: bool,
}

/// `cmpEntries`: a lower score is "bigger", so the heap's root is the worst result kept.
fn cmp(a: &Suggestion, b: &Suggestion) -> i32 {
    if a.score < b.score {
        1
    } else if a.score > b.score {
        -1
    } else {
        0
    }
}

/// RediSearch's `heap_t` (util/heap.c), bounded by the caller.
struct Heap {
    items: Vec<Suggestion>,
}

impl Heap {
    fn cmp_at(&self, i: usize, j: usize) -> i32 {
        match (self.items.get(i), self.items.get(j)) {
            (Some(a), Some(b)) => cmp(a, b),
            _ => 0,
        }
    }

    fn push_up(&mut self, mut idx: usize) {
        while idx != 0 {
            let parent = (idx - 1) / 2;
            if self.cmp_at(idx, parent) < 0 {
                return;
            }
            self.items.swap(idx, parent);
            idx = parent;
        }
    }

    fn push_down(&mut self, mut idx: usize) {
        let count = self.items.len();
        loop {
            let (left, right) = (idx * 2 + 1, idx * 2 + 2);
            let child = if right >= count {
                if left >= count {
                    return;
                }
                left
            } else if self.cmp_at(left, right) < 0 {
                right
            } else {
                left
            };
            if self.cmp_at(idx, child) < 0 {
                self.items.swap(idx, child);
                idx = child;
            } else {
                return;
            }
        }
    }

    fn offer(&mut self, item: Suggestion) {
        self.items.push(item);
        self.push_up(self.items.len() - 1);
    }

    fn poll(&mut self) -> Option<Suggestion> {
        if self.items.is_empty() {
            return None;
        }
        let item = self.items.swap_remove(0);
        if self.items.len() > 1 {
            self.push_down(0);
        }
        Some(item)
    }

    fn peek_score(&self) -> Option<f32> {
        self.items.first().map(|s| s.score)
    }
}

/// `memcmp(runes, rstr, n)` over little-endian 16-bit runes: the first `n` bytes.
fn first_bytes_equal(a: &[Rune], b: &[Rune], n: usize) -> bool {
    let byte = |r: &[Rune], i: usize| r.get(i / 2).map(|x| x.to_le_bytes()[i % 2]);
    (0..n).all(|i| byte(a, i) == byte(b, i))
}

/// `Trie_Search` in prefix mode. None when the folded prefix is too long (RediSearch's
/// "Invalid query").
pub(super) fn search(root: &Node, prefix: &[u8], q: Query) -> Option<Vec<Suggestion>> {
    let query = runes::to_folded_runes(prefix);
    let rlen = query.len();
    if rlen >= SUGGEST_MAX_PREFIX {
        return None;
    }
    let byte_len = prefix.len();
    let num = q.max.max(1);
    let mut heap = Heap { items: Vec::with_capacity(num.min(SUGGEST_PREALLOC)) };
    let mut min_score = i32::MIN as f32;
    let mut filter = PrefixFilter::new(query.clone(), q.max_dist);
    root.walk(Some(&mut filter), true, q.max_dist + 1, |rstr, score, payload, dist| {
        let slen = rstr.len();
        let mut s = if slen > 0 && slen == rlen && first_bytes_equal(&query, rstr, slen) {
            i32::MAX as f32
        } else {
            score
        };
        if q.max_dist > 0 {
            s = (f64::from(s) * (-2.0 * f64::from(dist)).exp()) as f32;
        }
        s = (f64::from(s) / ((1 + slen.abs_diff(byte_len)) as f64).sqrt()) as f32;
        if heap.items.len() < num {
            heap.offer(Suggestion {
                string: runes::to_bytes(rstr),
                score: s,
                payload: payload.map(<[u8]>::to_vec),
            });
            if heap.items.len() == num {
                min_score = heap.peek_score().unwrap_or(min_score);
            }
        } else if s > min_score {
            heap.poll();
            heap.offer(Suggestion {
                string: runes::to_bytes(rstr),
                score: s,
                payload: payload.map(<[u8]>::to_vec),
            });
            if let Some(top) = heap.peek_score() {
                if top > min_score {
                    min_score = top;
                }
            }
        }
        min_score
    });
    let mut out = Vec::with_capacity(heap.items.len());
    while let Some(s) = heap.poll() {
        out.push(s);
    }
    out.reverse();
    if q.trim {
        let mut max_score = 0.0f32;
        for i in 0..out.len() {
            let Some(score) = out.get(i).map(|s| s.score) else { break };
            if max_score != 0.0 && f64::from(score) < f64::from(max_score) / SUGGEST_TRIM_FACTOR {
                out.truncate(i);
                break;
            }
            max_score = if max_score > score { max_score } else { score };
        }
    }
    Some(out)
}
