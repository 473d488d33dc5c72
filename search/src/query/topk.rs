//! The top k documents by score, skipping ranges of documents that cannot enter it.
//!
//! Documents are scored in id order, in windows of [`WINDOW`] ids or more. Once k documents are
//! held, a window is skipped when an upper bound of every score in it is at most the k-th
//! best score so far: a document of the window could then at best tie with it, and ties go
//! to the lower RediSearch id ([`Ties`]), which the held documents have unless the window's
//! lowest RediSearch id is below the k-th's (then the bound must be below the k-th score).
//! The bound comes from the postings'
//! blocks ([`crate::index::postings::Bound`]): for TFIDF, a document's score is
//! `score x sum(weight x freq x idf) / norm / slop` with `slop >= 1`, and every block keeps
//! the largest `freq / norm` of its postings and whether all their documents have a score
//! between 0 and 1.
//!
//! The skip must never change the reply, so the bound is compared exactly. When every
//! weight is a whole number, the numerator `sum(weight x freq x idf)` is an exact integer
//! (IDF is a whole number under TFIDF); multiplied by a document score of at most 1,
//! divided by the norm and by a slop of at least 1, each step rounded, it can only stay at
//! or below the integer over the norm, because rounding is monotonic; so a score is at most
//! the rounded bound, and the bound is compared with the k-th score as exact fractions.
//!
//! Within a window that cannot be skipped, a union goes further (MaxScore): the terms whose
//! bounds add up to at most the k-th score are not essential, and a document holding none
//! of the other terms is not scored (its score is bounded by theirs).
//!
//! Queries outside these conditions (other scorers, tag or numeric terms, fractional
//! weights, blocks holding a document scored above 1) are scored in full.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use roaring::RoaringBitmap;

use crate::index::postings::{Bound, Cursor, PostingList};

/// Width of a window, in document ids; after a skipped window the next is twice as wide, up
/// to [`MAX_WINDOW`] (a run of hopeless windows is crossed in few steps).
pub const WINDOW: u32 = 1024;

/// The widest window.
pub const MAX_WINDOW: u32 = 1 << 16;

/// A term of the query as the bound sees it.
pub struct BoundTerm<'a> {
    /// Its expansions' postings with `weight x idf` each.
    pub lists: Vec<(&'a PostingList, u64)>,
    /// Only the first expansion a document has counts (the largest bounds it).
    pub first_only: bool,
    /// The documents the term scores in (given for unions, where documents hold some terms
    /// only).
    pub docs: Option<RoaringBitmap>,
}

/// What a top-k run can skip with.
pub struct SkipPlan<'a> {
    terms: Vec<BoundTerm<'a>>,
    cursors: Vec<Vec<Cursor>>,
}

/// An exact non-negative fraction.
#[derive(Clone, Copy)]
struct Frac {
    num: u128,
    den: u128,
}

impl Frac {
    const ZERO: Frac = Frac { num: 0, den: 1 };

    fn add(self, o: Frac) -> Option<Frac> {
        if self.num == 0 {
            return Some(o);
        }
        if o.num == 0 {
            return Some(self);
        }
        let num = self.num.checked_mul(o.den)?.checked_add(o.num.checked_mul(self.den)?)?;
        let den = self.den.checked_mul(o.den)?;
        if den >> 64 == 0 {
            return Some(Frac { num, den });
        }
        let g = gcd(num, den).max(1);
        Some(Frac { num: num / g, den: den / g })
    }

    fn max(self, o: Frac) -> Option<Frac> {
        let a = self.num.checked_mul(o.den)?;
        let b = o.num.checked_mul(self.den)?;
        Some(if b > a { o } else { self })
    }

    /// `self <= t`, or `self < t` when `strict`.
    fn within(self, t: f64, strict: bool) -> Option<bool> {
        self.cmp_to(t).map(|o| if strict { o == Ordering::Less } else { o != Ordering::Greater })
    }

    /// `self` against `t`, exactly (`None` when the arithmetic would overflow).
    fn cmp_to(self, t: f64) -> Option<Ordering> {
        if !t.is_finite() || t < 0.0 {
            return None;
        }
        if t == 0.0 {
            return Some(if self.num == 0 { Ordering::Equal } else { Ordering::Greater });
        }
        let bits = t.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i32;
        let frac = u128::from(bits & ((1u64 << 52) - 1));
        let (mant, e) = if exp == 0 { (frac, -1074) } else { (frac | 1 << 52, exp - 1075) };
        // num / den <= mant * 2^e
        if e >= 0 {
            let rhs = mant.checked_mul(self.den)?.checked_shl(e as u32)?;
            if rhs >> e != mant.checked_mul(self.den)? {
                return None;
            }
            Some(self.num.cmp(&rhs))
        } else {
            let shift = e.unsigned_abs();
            if shift >= 127 || self.num.leading_zeros() <= shift {
                return None;
            }
            Some((self.num << shift).cmp(&mant.checked_mul(self.den)?))
        }
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl<'a> SkipPlan<'a> {
    /// A plan over `terms`.
    pub fn new(terms: Vec<BoundTerm<'a>>) -> SkipPlan<'a> {
        let cursors = terms.iter().map(|t| t.lists.iter().map(|_| Cursor::default()).collect()).collect();
        SkipPlan { terms, cursors }
    }

    /// Per term, a bound of what it adds to the score of a document in `from..to`; `None`
    /// when some document there is not bounded (a score above 1, an overflow).
    fn parts(&self, from: u32, to: u32) -> Option<Vec<Frac>> {
        let mut out = Vec::with_capacity(self.terms.len());
        for (term, cursors) in self.terms.iter().zip(&self.cursors) {
            let mut part = Frac::ZERO;
            for ((list, c), at) in term.lists.iter().zip(cursors) {
                let Some(Bound { freq, norm, low_score }) = list.bound_in(from, to, at) else { continue };
                // A norm of 0 scores `inf` ([`crate::query::score`]): no bound.
                if !low_score || norm == 0 {
                    return None;
                }
                let f = Frac { num: u128::from(*c) * u128::from(freq), den: u128::from(norm) };
                part = if term.first_only { part.max(f) } else { part.add(f) }?;
            }
            out.push(part);
        }
        Some(out)
    }

    /// What a window `from..to` gives when the k-th score is `t`: skipped whole, or the
    /// documents of the essential terms only (module text), or everything. With `strict`
    /// (a document of the window may win a tie with the k-th), a bound must be below `t`.
    fn window(&self, from: u32, to: u32, t: f64, strict: bool) -> Window<'_> {
        let Some(parts) = self.parts(from, to) else { return Window::All };
        let total = parts.iter().try_fold(Frac::ZERO, |a, p| a.add(*p));
        match total.and_then(|f| f.within(t, strict)) {
            Some(true) => return Window::Skip,
            None => return Window::All,
            Some(false) => {}
        }
        if self.terms.len() < 2 || self.terms.iter().any(|t| t.docs.is_none()) {
            return Window::All;
        }
        // The smallest parts first, as many as stay at most `t` together. The order only
        // chooses which terms to try; the sum below is exact, so an approximate (and total:
        // no overflow in a product of two u128) order is enough.
        let approx = |f: &Frac| f.num as f64 / f.den as f64;
        let mut order: Vec<usize> = (0..parts.len()).collect();
        order.sort_by(|&a, &b| approx(&parts[a]).total_cmp(&approx(&parts[b])));
        let mut sum = Frac::ZERO;
        let mut spare = 0;
        for &i in &order {
            let Some(next) = sum.add(parts[i]) else { break };
            if next.within(t, strict) != Some(true) {
                break;
            }
            sum = next;
            spare += 1;
        }
        if spare == 0 {
            return Window::All;
        }
        let essential = order[spare..].iter().filter_map(|&i| self.terms.get(i)?.docs.as_ref()).collect();
        Window::Essential(essential)
    }
}

/// How [`top_k`] reads a window.
enum Window<'p> {
    /// Every document is scored.
    All,
    /// No document can enter the top k.
    Skip,
    /// Only documents of these terms can.
    Essential(Vec<&'p RoaringBitmap>),
}

/// How ties go: by a rank per document, the lowest first (RediSearch's document id:
/// [`crate::index::docs::DocTable`]).
pub trait Ties {
    /// The rank of document `d`.
    fn rank(&self, d: u32) -> u64;
    /// A lower bound of the ranks of the documents in `from..to`.
    fn floor(&self, from: u32, to: u32) -> u64;
}

impl Ties for crate::index::docs::DocTable {
    #[inline]
    fn rank(&self, d: u32) -> u64 {
        self.redisearch_id(d)
    }

    fn floor(&self, from: u32, to: u32) -> u64 {
        self.redisearch_floor(from, to)
    }
}

/// Ties by document id.
pub struct ById;

impl Ties for ById {
    fn rank(&self, d: u32) -> u64 {
        u64::from(d)
    }

    fn floor(&self, from: u32, _: u32) -> u64 {
        u64::from(from)
    }
}

/// A held document: score, tie rank, id; the greatest is the worst (lowest score, then
/// highest rank).
#[derive(PartialEq)]
struct Held(f64, u64, u32);

impl Eq for Held {}

impl PartialOrd for Held {
    fn partial_cmp(&self, o: &Held) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Held {
    fn cmp(&self, o: &Held) -> Ordering {
        crate::query::score::score_order(o.0, self.0).then(self.1.cmp(&o.1)).then(self.2.cmp(&o.2))
    }
}

/// What [`top_k`] returns: the documents kept, best first, and how many it went through
/// (scored or skipped; fewer than all when `stop` ended it).
pub struct TopK {
    /// (document, score), best first.
    pub rows: Vec<(u32, f64)>,
    /// Documents scored or skipped.
    pub seen: u64,
    /// Set when `stop` ended the run.
    pub stopped: bool,
}

/// The `k` best of `ids` by `score` (highest first, ties by lower rank in `ties`),
/// skipping windows `plan` rules out; `stop` is asked every 4096 documents scored whether
/// to stop.
///
/// `score(d, floor)` is given a score a document must be above to enter (`-inf` until k
/// are held: the k-th best so far; asked again just below it for a document whose answer
/// ties with the k-th and whose rank is lower), so for a document scoring at most that,
/// `score` may return any value at most `floor`.
pub fn top_k(
    ids: &RoaringBitmap,
    k: usize,
    plan: Option<&SkipPlan>,
    ties: &impl Ties,
    mut score: impl FnMut(u32, f64) -> f64,
    mut stop: impl FnMut() -> bool,
) -> TopK {
    if k == 0 {
        return TopK { rows: Vec::new(), seen: ids.len(), stopped: false };
    }
    let mut heap: BinaryHeap<Held> = BinaryHeap::with_capacity(k + 1);
    let mut it = ids.iter();
    let (mut window_end, mut width, mut scored, mut stopped_at) = (0u32, WINDOW, 0u64, None);
    let mut essential: Vec<&RoaringBitmap> = Vec::new();
    while let Some(d) = it.next() {
        if d >= window_end {
            window_end = d.saturating_add(width);
            essential.clear();
            if let (Some(plan), Some(worst)) = (plan, heap.peek().filter(|_| heap.len() >= k)) {
                let strict = ties.floor(d, window_end) < worst.1;
                match plan.window(d, window_end, worst.0, strict) {
                    Window::Skip => {
                        width = width.saturating_mul(2).min(MAX_WINDOW);
                        it.advance_to(window_end);
                        continue;
                    }
                    Window::Essential(e) => essential = e,
                    Window::All => {}
                }
            }
            width = WINDOW;
        }
        if !essential.is_empty() && !essential.iter().any(|bm| bm.contains(d)) {
            continue;
        }
        scored += 1;
        if scored % 4096 == 0 && stop() {
            stopped_at = Some(d);
            break;
        }
        let worst = heap.peek().filter(|_| heap.len() >= k).map(|w| (w.0, w.1));
        let Some((floor, worst_rank)) = worst else {
            heap.push(Held(score(d, f64::NEG_INFINITY), ties.rank(d), d));
            continue;
        };
        let mut s = score(d, floor);
        match crate::query::score::score_order(floor, s) {
            Ordering::Greater => continue,
            Ordering::Less => {}
            Ordering::Equal => {
                // A tie with the k-th: the lower rank wins, and the score given may have been
                // a bound; asked again just below the floor it is exact if it ties.
                if ties.rank(d) > worst_rank {
                    continue;
                }
                s = score(d, floor.next_down());
                if crate::query::score::score_order(floor, s) == Ordering::Greater {
                    continue;
                }
            }
        }
        heap.pop();
        heap.push(Held(s, ties.rank(d), d));
    }
    // Every document before the stop was scored or skipped.
    let seen = match stopped_at {
        Some(d) => ids.range_cardinality(..d),
        None => ids.len(),
    };
    let stopped = stopped_at.is_some();
    let mut rows: Vec<Held> = heap.into_vec();
    rows.sort();
    TopK { rows: rows.into_iter().map(|h| (h.2, h.0)).collect(), seen, stopped }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_compare_exactly_with_doubles() {
        let f = |num: u128, den: u128| Frac { num, den };
        assert_eq!(f(2, 1).within(2.0, false), Some(true));
        assert_eq!(f(2, 1).within(2.0, true), Some(false), "not below itself");
        assert_eq!(f(1, 3).within(1.0 / 3.0, false), Some(false), "1/3 is above its rounding down");
        assert_eq!(f(1, 3).within(0.33333333333333337, false), Some(true));
        assert_eq!(f(1, 3).within(0.33333333333333337, true), Some(true));
        assert_eq!(f(0, 1).within(0.0, false), Some(true));
        assert_eq!(f(0, 1).within(0.0, true), Some(false));
        assert_eq!(f(7, 2).within(3.5, false), Some(true));
        assert_eq!(f(7, 2).within(3.4999999999999996, false), Some(false));
        assert_eq!(f(1, 1).add(f(1, 2)).and_then(|x| x.within(1.5, false)), Some(true));
        assert_eq!(f(3, 4).max(f(2, 3)).map(|x| (x.num, x.den)), Some((3, 4)));
    }

    #[test]
    fn top_k_without_a_plan_is_a_sort() {
        let ids: RoaringBitmap = (0..5000u32).filter(|d| d % 3 != 0).collect();
        let score = |d: u32| f64::from(d % 17);
        let got = top_k(&ids, 25, None, &ById, |d, _| score(d), || false);
        let mut all: Vec<(u32, f64)> = ids.iter().map(|d| (d, score(d))).collect();
        all.sort_by(|a, b| crate::query::score::score_order(b.1, a.1).then(a.0.cmp(&b.0)));
        all.truncate(25);
        assert_eq!(got.rows, all);
        assert_eq!(got.seen, ids.len());
    }

    /// Ranks not in id order: ids from 100 down rank first.
    struct Reversed;

    impl Ties for Reversed {
        fn rank(&self, d: u32) -> u64 {
            u64::from(10_000 - d)
        }

        fn floor(&self, _: u32, to: u32) -> u64 {
            u64::from(10_000 - to)
        }
    }

    #[test]
    fn ties_go_by_rank_and_a_floor_never_hides_a_winner() {
        let ids: RoaringBitmap = (0..3000u32).collect();
        let score = |d: u32| f64::from(d % 5);
        // A scorer answering with the floor itself whenever the score is at most the floor
        // (allowed): a document that wins the tie must be asked below the floor.
        let got =
            top_k(&ids, 10, None, &Reversed, |d, floor| score(d).max(floor.min(score(d) + 1.0)), || false);
        let mut all: Vec<(u32, f64)> = ids.iter().map(|d| (d, score(d))).collect();
        all.sort_by(|a, b| crate::query::score::score_order(b.1, a.1).then(b.0.cmp(&a.0)));
        all.truncate(10);
        assert_eq!(got.rows, all);
    }
}
