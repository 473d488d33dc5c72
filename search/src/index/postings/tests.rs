//! Tests of [`super`]: the list against a map of postings, bounds, field masks, sizes.

use super::*;

const N: DocNorm = DocNorm { max_freq: 1, low_score: true };

fn p(doc: u32, freq: u16) -> Posting {
    Posting { doc, freq, fields: 1 }
}

fn positions_for(doc: u32, freq: u16) -> Vec<u32> {
    (0..u32::from(freq)).map(|k| doc * 3 + k * 200).collect()
}

#[test]
fn set_get_remove_agree_with_a_map() {
    let mut l = PostingList::default();
    let mut m = std::collections::BTreeMap::new();
    let mut x: u64 = 7;
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let doc = (x % 3_000) as u32;
        if x.is_multiple_of(5) {
            assert_eq!(l.remove(doc), m.remove(&doc).is_some());
        } else {
            let f = (x >> 20) as u16 % 9 + 1;
            l.set(p(doc, f), &positions_for(doc, f), N);
            m.insert(doc, f);
        }
    }
    assert_eq!(l.len() as usize, m.len());
    let listed: Vec<(u32, u16)> = l.iter().map(|q| (q.doc, q.freq)).collect();
    assert_eq!(listed, m.iter().map(|(a, b)| (*a, *b)).collect::<Vec<_>>());
    let (at, pat) = (Cursor::default(), PosCursor::default());
    for doc in 0..3_000 {
        assert_eq!(l.get(doc, &at).map(|q| q.freq), m.get(&doc).copied(), "doc {doc}");
        let mut v = Vec::new();
        let got = l.positions(doc, &pat, &mut v).map(|q| q.freq);
        assert_eq!(got, m.get(&doc).copied(), "doc {doc}");
        assert_eq!(v, m.get(&doc).map_or(Vec::new(), |&f| positions_for(doc, f)), "doc {doc}");
    }
    // Out of order lookups restart the walk.
    let (at, pat) = (Cursor::default(), PosCursor::default());
    for doc in (0..3_000).rev().step_by(7) {
        assert_eq!(l.get(doc, &at).map(|q| q.freq), m.get(&doc).copied(), "doc {doc}");
        let mut v = Vec::new();
        l.positions(doc, &pat, &mut v);
        assert_eq!(v, m.get(&doc).map_or(Vec::new(), |&f| positions_for(doc, f)), "doc {doc}");
    }
    assert!(l.all_blocks().all(|b| b.len() > 0 && b.len() < SPLIT_AT));
}

#[test]
fn packed_values_of_any_range_agree_with_a_map() {
    // Documents over the whole u32 range (clusters and huge gaps), any frequency up to
    // the escape, any field mask, counts of positions unrelated to the frequency: every
    // column's width grows, blocks re-pack, split, and change in the middle.
    let mut l = PostingList::default();
    let mut m: std::collections::BTreeMap<u32, (Posting, Vec<u32>)> = Default::default();
    let mut x: u64 = 12_345;
    let mut docs = Vec::new();
    for _ in 0..30_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let doc = match x % 4 {
            0 => (x >> 32) as u32,
            1 => u32::MAX - (x >> 40) as u32 % 600,
            _ => (x >> 40) as u32 % 1_500,
        };
        docs.push(doc);
        if x.is_multiple_of(6) {
            assert_eq!(l.remove(doc), m.remove(&doc).is_some());
            continue;
        }
        let freq = match (x >> 8) % 3 {
            0 => FREQ_ESCAPE,
            1 => (x >> 16) as u16,
            _ => 1,
        };
        let fields = if (x >> 10).is_multiple_of(2) { (x >> 24) as u16 } else { 1 };
        let n = (x >> 56) as u32 % 5;
        let positions: Vec<u32> = (0..n).map(|k| k * ((x >> 20) as u32 % 100_000 + 1)).collect();
        let q = Posting { doc, freq, fields };
        l.set(q, &positions, N);
        m.insert(doc, (q, positions));
    }
    assert_eq!(l.len() as usize, m.len());
    assert_eq!(l.iter().collect::<Vec<_>>(), m.values().map(|v| v.0).collect::<Vec<_>>());
    // Lookups in any order, then in order (with repeats), and of absent neighbours.
    let at = Cursor::default();
    for &doc in docs.iter().rev() {
        assert_eq!(l.get(doc, &at), m.get(&doc).map(|v| v.0), "doc {doc}");
    }
    docs.sort_unstable();
    for &doc in &docs {
        for d in [doc.saturating_sub(1), doc, doc.saturating_add(1)] {
            assert_eq!(l.get(d, &at), m.get(&d).map(|v| v.0), "doc {d}");
        }
    }
    let (at, pat) = (Cursor::default(), PosCursor::default());
    for &doc in &docs {
        assert_eq!(l.get(doc, &at), m.get(&doc).map(|v| v.0), "doc {doc}");
        let mut v = Vec::new();
        assert_eq!(l.positions(doc, &pat, &mut v), m.get(&doc).map(|v| v.0), "doc {doc}");
        assert_eq!(v, m.get(&doc).map_or(Vec::new(), |w| w.1.clone()), "doc {doc}");
    }
    assert!(l.all_blocks().all(|b| b.len() > 0 && b.len() < SPLIT_AT));
    assert!(l.blocks().len() > 10);
    let first: Vec<u32> = l.all_blocks().map(|b| b.doc(0)).collect();
    assert_eq!(first, (0..).map_while(|b| l.first(b)).collect::<Vec<_>>());
    for doc in m.keys().copied().collect::<Vec<_>>() {
        assert!(l.remove(doc));
    }
    assert!(l.is_empty() && l.heads.is_none() && l.tail.len() == 0);
}

#[test]
fn a_posting_takes_a_few_bytes() {
    // Documents a few ids apart with frequency 1 or 2 in one of two fields: a few bits a
    // posting, and a full block's vectors hold no spare capacity.
    let mut l = PostingList::default();
    for k in 0..2_560u32 {
        let q = Posting { doc: k * 5 + k % 3, freq: (k % 2 + 1) as u16, fields: 1 << (k % 2) };
        l.set(q, &positions_for(k, q.freq), N);
    }
    assert_eq!(l.all_blocks().count(), 11);
    let full = &l.blocks()[0];
    assert_eq!(full.len(), SPLIT_AT - 1);
    // Offsets under 1,280: 11 bits, a bit for the frequency, one for the fields.
    assert_eq!(full.row_bits(), 13);
    // 255 rows of 13 bits and the padding of a u64 load: 1.65 bytes a posting.
    assert_eq!(full.mem_bytes(), (255 * 13usize).div_ceil(8) + 7 + full.position_bytes());
}

#[test]
fn bounds_cover_every_posting_of_a_range() {
    let mut l = PostingList::default();
    for doc in 0..2_000u32 {
        let norm = DocNorm { max_freq: doc % 7 + 3, low_score: doc != 1_500 };
        l.set(p(doc * 2, (doc % 5 + 1) as u16), &[], norm);
    }
    let at = Cursor::default();
    for from in (0..4_000).step_by(333) {
        let to = from + 333;
        let b = l.bound_in(from, to, &at).expect("postings in range");
        for doc in (from..to).filter(|d| d % 2 == 0).map(|d| d / 2) {
            let (f, n) = (doc % 5 + 1, doc % 7 + 3);
            assert!(u64::from(f) * u64::from(b.norm) <= u64::from(b.freq) * u64::from(n));
            if doc == 1_500 {
                assert!(!b.low_score);
            }
        }
    }
    assert_eq!(l.bound_in(5_000, 6_000, &Cursor::default()), None);
}

#[test]
fn field_masks_share_their_last_bit() {
    assert_eq!(field_bit(3), 8);
    assert_eq!(field_bit(15), 1 << 15);
    assert_eq!(field_bit(40), 1 << 15);
    let q = Posting { doc: 0, freq: 1, fields: field_bit(2) | field_bit(20) };
    assert_eq!(q.in_fields(1 << 2), Some(true));
    assert_eq!(q.in_fields(1 << 3), Some(false));
    assert_eq!(q.in_fields(1 << 20), None);
    assert_eq!(q.in_fields(1 << 99), None);
    assert_eq!(Posting { fields: field_bit(1), ..q }.in_fields(1 << 99), Some(false));
}

#[test]
fn ranges_list_the_postings_between_two_documents() {
    let mut l = PostingList::default();
    let docs: Vec<u32> = (0..3_000u32).map(|i| i * 7 + (i % 5)).collect();
    for &d in &docs {
        l.set(p(d, 1), &[], N);
    }
    for (from, to) in [(0, 10), (5, 5_000), (1_000, 1_001), (20_000, 30_000), (0, u32::MAX), (700, 699)] {
        let got: Vec<u32> = l.range(from, to).map(|q| q.doc).collect();
        let want: Vec<u32> = docs.iter().copied().filter(|&d| d >= from && d < to).collect();
        assert_eq!(got, want, "{from}..{to}");
    }
}

#[test]
fn walks_agree_with_a_map() {
    // Lists built by inserts, updates and deletes in any order (blocks split and change in
    // the middle); walks asking increasing documents with gaps of every size (the next
    // posting, a few rows on, another block, far away), reading positions of some.
    let mut x: u64 = 11;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for round in 0..6u64 {
        let mut l = PostingList::default();
        let mut m = std::collections::BTreeMap::new();
        let span = 500 + round * 4_000;
        for _ in 0..(span * 2) {
            let r = next();
            let doc = (r % span) as u32;
            if r.is_multiple_of(7) {
                l.remove(doc);
                m.remove(&doc);
            } else {
                let f = (r >> 20) as u16 % 5 + 1;
                l.set(p(doc, f), &positions_for(doc, f), N);
                m.insert(doc, f);
            }
        }
        for gap in [1u64, 2, 5, 40, 300, 5_000] {
            let mut w = l.walk();
            let mut doc = (next() % 3) as u32;
            while u64::from(doc) < span + 10 {
                let got = w.seek(doc).map(|q| q.freq);
                assert_eq!(got, m.get(&doc).copied(), "round {round} gap {gap} doc {doc}");
                if got.is_some() && next().is_multiple_of(2) {
                    let mut v = vec![99];
                    assert!(w.positions(&mut v).is_some());
                    let want: Vec<u32> = std::iter::once(99).chain(positions_for(doc, m[&doc])).collect();
                    assert_eq!(v, want, "round {round} gap {gap} doc {doc}");
                }
                doc += 1 + (next() % gap) as u32;
            }
        }
    }
}

#[test]
fn a_list_grows_blocks_shrinks_to_one_and_grows_again() {
    let mut l = PostingList::default();
    let mut m = std::collections::BTreeMap::new();
    let check = |l: &PostingList, m: &std::collections::BTreeMap<u32, u16>| {
        let listed: Vec<(u32, u16)> = l.iter().map(|q| (q.doc, q.freq)).collect();
        assert_eq!(listed, m.iter().map(|(a, b)| (*a, *b)).collect::<Vec<_>>());
        let at = Cursor::default();
        for doc in 0..2_100 {
            assert_eq!(l.get(doc, &at).map(|q| q.freq), m.get(&doc).copied(), "doc {doc}");
        }
        assert_eq!(l.heads.is_some(), l.all_blocks().count() > 1, "heads only with several blocks");
    };
    for round in 0..3u32 {
        // Out of order, so blocks split in the middle too.
        for k in 0..1_000u32 {
            let doc = (k * 7 + round) % 2_000;
            l.set(p(doc, 2), &positions_for(doc, 2), N);
            m.insert(doc, 2);
        }
        check(&l, &m);
        // Sparse blocks stay apart: the list keeps its heads while two blocks hold postings.
        for doc in m.keys().copied().filter(|d| d % 97 != 0).collect::<Vec<_>>() {
            assert!(l.remove(doc));
            m.remove(&doc);
        }
        check(&l, &m);
        for doc in m.keys().copied().skip(1).collect::<Vec<_>>() {
            assert!(l.remove(doc));
            m.remove(&doc);
        }
        check(&l, &m);
        assert!(l.heads.is_none(), "back to one block");
    }
}

#[test]
fn doc_bitmap_holds_the_listed_documents() {
    // Sparse and dense lists, within one container of 65,536 ids and across several.
    for (docs, span, base) in
        [(0u32, 1u32, 0u32), (300, 20_000, 0), (9_000, 10_000, 60_000), (20_000, 200_000, 7)]
    {
        let mut l = PostingList::default();
        let mut want = RoaringBitmap::new();
        let mut x: u64 = 0x2545_F491_4F6C_DD1D ^ u64::from(docs);
        for _ in 0..docs {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let doc = base + (x % u64::from(span)) as u32;
            l.set(p(doc, 1), &positions_for(doc, 1), N);
            want.insert(doc);
            if x.is_multiple_of(11) {
                let gone = base + ((x >> 8) % u64::from(span)) as u32;
                l.remove(gone);
                want.remove(gone);
            }
        }
        assert_eq!(l.doc_bitmap(), want, "{docs} documents over {span} from {base}");
    }
}

#[test]
fn a_list_stays_104_bytes() {
    // Every term has one (`TextIndex::lists`): the retired count lives in the padding.
    assert_eq!(std::mem::size_of::<PostingList>(), 104);
}
