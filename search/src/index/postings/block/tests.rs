//! Tests of [`super`]: packed rows against vectors of postings (widths, re-packs, extremes).

use super::*;
use crate::index::varint::put_varint;

const B: Bound = Bound { freq: 1, norm: 1, low_score: true };

/// A block's postings with their positions.
fn contents(b: &Block) -> Vec<(Posting, Vec<u32>)> {
    (0..b.len())
        .map(|i| {
            let mut v = Vec::new();
            b.read_positions(i, b.offset_of(i), &mut v);
            (b.posting(i), v)
        })
        .collect()
}

/// The block's marks are the offsets of their rows (or not kept), and every posting's offset
/// found through them is the one counted from the block's start.
fn check_marks(b: &Block) {
    // The same block without marks: offsets counted from its ends.
    let mut unmarked = b.clone();
    unmarked.marks = [NO_MARK; 2];
    let scan = |i: usize| unmarked.offset_of(i);
    for (&row, &m) in MARKED_ROWS.iter().zip(&b.marks) {
        if row >= b.len() {
            assert_eq!(m, NO_MARK, "a mark past the last row");
        } else if m != NO_MARK {
            assert_eq!(usize::from(m), scan(row), "mark of row {row}");
        }
    }
    let mut off = 0;
    for i in 0..b.len() {
        assert_eq!(b.offset_of(i), off, "offset of posting {i}");
        for from in [0, i / 2, i.saturating_sub(1)] {
            assert_eq!(b.offset_from(from, scan(from), i), off, "offset of {i} from {from}");
        }
        off += entry_len(&b.positions, off, b.count(i));
    }
    assert_eq!(off, b.positions.len());
}

fn q(doc: u32, freq: u16, fields: u16) -> Posting {
    Posting { doc, freq, fields }
}

#[test]
fn widths_grow_on_append_and_rows_read_back() {
    let mut b = Block::new(q(10, 1, 1), &[4], B);
    // One row: every column in 0 bits.
    assert_eq!(b.row_bits(), 0);
    let mut want = vec![(q(10, 1, 1), vec![4])];
    let mut widths = vec![0];
    for (k, doc) in [11u32, 13, 20, 300, 70_000, 1 << 24].into_iter().enumerate() {
        let p = q(doc, 1, 1);
        b.push(p, &[k as u32]);
        want.push((p, vec![k as u32]));
        assert_eq!(contents(&b), want);
        widths.push(b.row_bits());
    }
    // Document offsets 1, 3, 10, 290, 69_990, 2^24 - 10 need 1, 2, 4, 9, 17 and 24 bits
    // (the other columns none: one frequency, one field, one position each).
    assert_eq!(widths, vec![0, 1, 2, 4, 9, 17, 24]);
    // Rows that fit the frame do not widen it; a second frequency takes a bit, and
    // two positions with frequency 1 then a count column bit (frequency less count
    // -1 beside 0).
    b.push(q((1 << 24) + 1, 1, 1), &[0]);
    assert_eq!(b.row_bits(), 24);
    b.push(q((1 << 24) + 2, 2, 1), &[0, 1]);
    assert_eq!(b.row_bits(), 25);
    b.push(q((1 << 24) + 3, 1, 1), &[0, 1]);
    assert_eq!(b.row_bits(), 26);
    assert_eq!(contents(&b).last().map(|c| c.1.clone()), Some(vec![0, 1]));
}

#[test]
fn extreme_values_round_trip() {
    // Huge document gaps (the whole u32 range), frequencies up to the escape, all 16
    // field bits, many positions with a frequency that differs from their count.
    let many: Vec<u32> = (0..300).map(|k| k * 1_000_003).collect();
    let rows = [
        (q(0, 1, 1), vec![]),
        (q(1 << 31, FREQ_ESCAPE, u16::MAX), many.clone()),
        (q(u32::MAX - 1, 2, 1 << 15), vec![u32::MAX]),
        (q(u32::MAX, FREQ_ESCAPE - 1, 0x5555), vec![0, 7]),
    ];
    let mut b = Block::new(rows[0].0, &rows[0].1, B);
    for (p, v) in &rows[1..] {
        b.push(*p, v);
    }
    assert_eq!(contents(&b), rows.to_vec());
    assert_eq!(b.search(0, b.len(), u32::MAX), Ok(3));
    assert_eq!(b.search(0, b.len(), 5), Err(1));
    // The widest row: 32 + 16 + 16 + 16 bits (frequency less count from 1 to 65,532).
    assert_eq!(b.row_bits(), 80);
    b.remove(0);
    assert_eq!(contents(&b), rows[1..].to_vec());
    b.insert(0, rows[0].0, &rows[0].1);
    assert_eq!(contents(&b), rows.to_vec());
}

use crate::index::postings::FREQ_ESCAPE;

#[test]
fn middle_changes_agree_with_a_vector() {
    let mut x: u64 = 99;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut b = Block::new(q(1_000, 1, 1), &[1], B);
    let mut want = vec![(q(1_000, 1, 1), vec![1])];
    for round in 0..3_000 {
        let r = next();
        let i = (r as usize >> 8) % (want.len() + 1);
        // Mostly small values (rows that fit), sometimes wide ones (re-packs).
        let wide = r % 11 == 0;
        let freq = if wide { (r >> 40) as u16 } else { (r >> 40) as u16 % 3 + 1 };
        let fields = if wide { (r >> 24) as u16 } else { 1 << ((r >> 30) % 2) };
        let n = (r >> 50) as u32 % 4;
        let positions: Vec<u32> = (0..n).map(|k| k * if wide { 70_000 } else { 3 } + round).collect();
        match r % 4 {
            // Insert a new document between its neighbours, when there is room.
            0 | 1 => {
                let lo = if i == 0 { 0 } else { want[i - 1].0.doc + 1 };
                let hi = want.get(i).map_or(u32::MAX, |w| w.0.doc);
                if lo < hi {
                    let doc = lo + ((r >> 12) as u32 % (hi - lo).min(if wide { u32::MAX } else { 50 }));
                    let p = q(doc, freq, fields);
                    if i == want.len() {
                        b.push(p, &positions);
                    } else {
                        b.insert(i, p, &positions);
                    }
                    want.insert(i, (p, positions));
                }
            }
            2 if i < want.len() => {
                let p = q(want[i].0.doc, freq, fields);
                b.replace(i, p, &positions);
                want[i] = (p, positions);
            }
            3 if i < want.len() && want.len() > 1 => {
                b.remove(i);
                want.remove(i);
            }
            _ => {}
        }
        if want.len() > 200 {
            let tail = b.split_off(100);
            let tail_want = want.split_off(100);
            assert_eq!(contents(&tail), tail_want);
        }
        assert_eq!(contents(&b), want, "round {round}");
        assert_eq!(b.last_doc(), want.last().map(|w| w.0.doc));
        check_marks(&b);
    }
    // The marks were kept, not only re-made by re-packs.
    assert!(MARKED_ROWS.iter().zip(&b.marks).all(|(&row, &m)| row >= b.len() || m != NO_MARK));
    assert!(b.len() > MARKED_ROWS[0]);
}

#[test]
fn marks_beyond_sixteen_bits_are_dropped_and_offsets_still_found() {
    let mut x: u64 = 7;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    // Postings of up to 400 positions far apart (5-byte varints): a block of a few hundred
    // kilobytes, whose later marks cannot be kept in 16 bits.
    let many = |k: u32| (0..k).map(|j| j * 300_000_000 / k.max(1)).collect::<Vec<u32>>();
    let mut b = Block::new(q(0, 1, 1), &many(1), B);
    let mut want = vec![(q(0, 1, 1), many(1))];
    for doc in 1..240u32 {
        let n = (next() % 400) as u32;
        b.push(q(doc * 4, 1, 1), &many(n));
        want.push((q(doc * 4, 1, 1), many(n)));
    }
    check_marks(&b);
    assert_eq!(b.marks[1], NO_MARK);
    for round in 0..300 {
        let r = next();
        let i = (r as usize >> 8) % want.len();
        let n = (r >> 20) as u32 % 400;
        match r % 3 {
            0 if want.get(i + 1).is_none_or(|w| w.0.doc > want[i].0.doc + 1) => {
                let p = q(want[i].0.doc + 1, 1, 1);
                b.insert(i + 1, p, &many(n));
                want.insert(i + 1, (p, many(n)));
            }
            1 => {
                b.replace(i, want[i].0, &many(n));
                want[i].1 = many(n);
            }
            _ if want.len() > 2 => {
                b.remove(i);
                want.remove(i);
            }
            _ => {}
        }
        assert_eq!(contents(&b), want, "round {round}");
        check_marks(&b);
    }
}

#[test]
fn varints_skipped_from_either_end_meet() {
    let mut x: u64 = 11;
    for len in 0..200usize {
        let mut bytes = Vec::new();
        for _ in 0..len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Values of 1 to 5 bytes.
            put_varint(&mut bytes, (x >> (x % 33)) as u32);
        }
        for back in 0..=len {
            assert_eq!(
                skip_back(&bytes, back),
                skip(&bytes, 0, len - back),
                "{len} varints, {back} from the end"
            );
        }
    }
}

#[test]
fn moved_bits_land_whole() {
    let mut x: u64 = 5;
    for round in 0..3000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // Short moves, and long ones (whole words in the middle) now and then.
        let scale = if round % 3 == 0 { 3000 } else { 150 };
        let (src, dst, len) = ((x % 90) as usize, ((x >> 8) % 90) as usize, ((x >> 16) % scale) as usize);
        let size = (src.max(dst) + len).div_ceil(8) + 16;
        let bytes: Vec<u8> = (0..size).map(|k| (x >> (k % 57)) as u8 ^ k as u8).chain([0; PAD]).collect();
        let bits = |b: &[u8], at: usize| b[at / 8] >> (at % 8) & 1;
        let mut moved = bytes.clone();
        move_bits(&mut moved, src, dst, len);
        for at in 0..bytes.len() * 8 {
            let want =
                if (dst..dst + len).contains(&at) { bits(&bytes, src + at - dst) } else { bits(&bytes, at) };
            assert_eq!(bits(&moved, at), want, "bit {at} of a move of {len} bits {src} -> {dst}");
        }
    }
}
