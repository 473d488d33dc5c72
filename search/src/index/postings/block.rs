//! One block of a term's postings ([`super`]), bit-packed. Each posting is a row of four
//! columns: its document id, its frequency, its field mask, and its frequency less its
//! count of positions (0 when they agree, as with fields of weight 1). A column is stored
//! as each value's offset from the block's smallest, in the fewest bits that hold the
//! largest offset (frame of reference), so a block of documents a few ids apart with
//! frequency 1 in one field takes a few bits a posting. Row `i` starts at bit
//! `i * row width` and each of its columns (at most 32 bits) is read with one unaligned
//! u64 load, so lookups search the packed document ids directly (the byte vector ends with
//! [`PAD`] zero bytes for those loads).
//!
//! Finding a posting's positions means counting the varints before it; each block keeps the
//! byte offsets of two rows ([`MARKED_ROWS`]: its marks), so that the count starts from the
//! nearest of the block's two ends and those two rows, a sixth of a full block away at most.
//!
//! Appending a row that fits the block's frame writes its bits after the last row; a row
//! that does not (a larger offset, a value below a base) re-packs the block at the frame
//! of all its rows, which happens a few times a block (widths only grow while documents
//! are appended in order). Inserting, replacing or removing a row in the middle moves the
//! rows after it in place (re-packing only when the new row does not fit). Positions are
//! a separate byte stream: per posting, the varint deltas of its positions (their count
//! is the row's).

use crate::index::varint::get_varint;

use super::{Bound, Posting};

mod bits;
mod varints;

use bits::{load, load64, mask, move_bits, store};
use varints::{encode_into, entry_len, skip, skip_back};

/// The rows whose positions' byte offsets a block keeps (while it has them).
const MARKED_ROWS: [usize; 2] = [super::SPLIT_AT / 3, super::SPLIT_AT * 2 / 3];

/// A mark not kept: its row is not in the block, or its offset does not fit 16 bits.
const NO_MARK: u16 = u16::MAX;

/// Zero bytes after the last row, so that a u64 load at any row's byte stays in bounds.
const PAD: usize = 7;

/// The columns of a row: document, frequency, field mask, and frequency less count of
/// positions ([`count_column`]).
type Row = [u32; 4];

/// The count column's value: `freq - count` as a signed number, mapped to u32 in order
/// (0 with weight-1 fields, 1 with a weight-2 field holding the term once).
fn count_column(freq: u32, count: u32) -> u32 {
    freq.wrapping_sub(count) ^ (1 << 31)
}

/// One block of postings (fewer than [`super::SPLIT_AT`]).
#[derive(Debug, Clone)]
pub(super) struct Block {
    /// The rows, packed, then [`PAD`] zero bytes.
    bits: Vec<u8>,
    /// Per posting, in order: the varint deltas of its positions.
    positions: Vec<u8>,
    /// The bound of the postings the block received ([`super`]).
    pub(super) bound: Bound,
    /// Per column, the value its offsets are from.
    base: [u32; 4],
    /// Per column, its bits.
    width: [u8; 4],
    /// Bits of a row (the sum of `width`).
    row_bits: u8,
    /// The byte offsets of the positions of the [`MARKED_ROWS`], or [`NO_MARK`].
    marks: [u16; 2],
    /// Number of rows.
    n: u16,
}

/// The row of a posting with `count` positions.
fn row_of(p: Posting, count: u32) -> Row {
    let freq = u32::from(p.freq);
    [p.doc, freq, u32::from(p.fields), count_column(freq, count)]
}

/// A byte offset as a mark ([`NO_MARK`] when it does not fit).
fn mark(off: usize) -> u16 {
    u16::try_from(off).ok().filter(|&m| m != NO_MARK).unwrap_or(NO_MARK)
}

/// Bytes holding `n` rows of `bits` bits, with the padding.
fn bytes_for(n: usize, bits: u8) -> usize {
    (n * usize::from(bits)).div_ceil(8) + PAD
}

/// Makes room for `more` bytes after `v`'s end, growing by a quarter (a growing block's
/// spare capacity is memory every term's last block holds).
fn reserve(v: &mut Vec<u8>, more: usize) {
    if v.capacity() - v.len() < more {
        v.reserve_exact(more.max(v.len() / 4 + 8));
    }
}

/// Zero-extends `v` to `len` bytes (growing its capacity as [`reserve`] does).
fn grow_to(v: &mut Vec<u8>, len: usize) {
    reserve(v, len.saturating_sub(v.len()));
    v.resize(len, 0);
}

impl Block {
    /// A block of no posting (allocating nothing).
    pub(super) fn empty() -> Block {
        let bound = Bound { freq: 0, norm: 1, low_score: true };
        Block {
            bits: Vec::new(),
            positions: Vec::new(),
            bound,
            base: [0; 4],
            width: [0; 4],
            row_bits: 0,
            marks: [NO_MARK; 2],
            n: 0,
        }
    }

    /// A block of one posting.
    pub(super) fn new(p: Posting, positions: &[u32], bound: Bound) -> Block {
        let mut b = Block::packed(&[row_of(p, positions.len() as u32)], Vec::new(), bound, false);
        encode_into(&mut b.positions, positions);
        b
    }

    /// A block of `rows` in their own frame, with a quarter more capacity when `growing`.
    fn packed(rows: &[Row], positions: Vec<u8>, bound: Bound, growing: bool) -> Block {
        let (mut lo, mut hi) = ([u32::MAX; 4], [0u32; 4]);
        for r in rows {
            for c in 0..4 {
                lo[c] = lo[c].min(r[c]);
                hi[c] = hi[c].max(r[c]);
            }
        }
        if rows.is_empty() {
            lo = [0; 4];
        }
        let mut width = [0u8; 4];
        for c in 0..4 {
            width[c] = (32 - (hi[c] - lo[c]).leading_zeros()) as u8;
        }
        let row_bits = width.iter().sum();
        let len = bytes_for(rows.len(), row_bits);
        let mut bits = Vec::with_capacity(if growing { len + len / 4 + 8 } else { len });
        bits.resize(len, 0);
        let marks = [NO_MARK; 2];
        let mut b = Block { bits, positions, bound, base: lo, width, row_bits, marks, n: rows.len() as u16 };
        for (i, r) in rows.iter().enumerate() {
            b.put_row(i, r);
        }
        // Counted from the block's ends (the marks are not kept yet).
        b.marks = MARKED_ROWS.map(|m| if m < b.len() { mark(b.offset_of(m)) } else { NO_MARK });
        b
    }

    /// Per column, its first bit in a row.
    #[inline(always)]
    fn offs(&self) -> [u8; 4] {
        let w = self.width;
        [0, w[0], w[0] + w[1], w[0] + w[1] + w[2]]
    }

    /// Re-packs the block as `rows` (the block's positions unchanged), in their frame.
    fn repack(&mut self, rows: &[Row], growing: bool) {
        let positions = std::mem::take(&mut self.positions);
        *self = Block::packed(rows, positions, self.bound, growing);
    }

    /// Number of postings.
    pub(super) fn len(&self) -> usize {
        usize::from(self.n)
    }

    /// The document of posting `i`.
    #[inline(always)]
    pub(super) fn doc(&self, i: usize) -> u32 {
        load(&self.bits, i * usize::from(self.row_bits), self.width[0]).wrapping_add(self.base[0])
    }

    /// The last posting's document.
    pub(super) fn last_doc(&self) -> Option<u32> {
        self.len().checked_sub(1).map(|i| self.doc(i))
    }

    /// Columns `0..k` of row `i` (the others 0).
    #[inline(always)]
    fn columns(&self, i: usize, k: usize) -> Row {
        let mut at = i * usize::from(self.row_bits);
        let mut r = [0; 4];
        for (c, slot) in r.iter_mut().enumerate().take(k) {
            *slot = load(&self.bits, at, self.width[c]).wrapping_add(self.base[c]);
            at += usize::from(self.width[c]);
        }
        r
    }

    /// Posting `i`.
    #[inline(always)]
    pub(super) fn posting(&self, i: usize) -> Posting {
        let at = i * usize::from(self.row_bits);
        let [w0, w1, w2, _] = self.width;
        if w0 + w1 + w2 <= 56 {
            // The three columns with one load.
            let r = load64(&self.bits, at);
            let doc = (r & mask(w0)) as u32;
            let freq = ((r >> w0) & mask(w1)) as u32;
            let fields = ((r >> (w0 + w1)) & mask(w2)) as u32;
            return Posting {
                doc: doc.wrapping_add(self.base[0]),
                freq: freq.wrapping_add(self.base[1]) as u16,
                fields: fields.wrapping_add(self.base[2]) as u16,
            };
        }
        let r = self.columns(i, 3);
        Posting { doc: r[0], freq: r[1] as u16, fields: r[2] as u16 }
    }

    /// Posting `i` and its count of positions.
    #[inline(always)]
    pub(super) fn posting_and_count(&self, i: usize) -> (Posting, u32) {
        let r = if self.row_bits <= 56 {
            // The whole row with one load.
            let w = load64(&self.bits, i * usize::from(self.row_bits));
            let offs = self.offs();
            let mut r = [0u32; 4];
            for (c, slot) in r.iter_mut().enumerate() {
                *slot = ((w >> offs[c]) & mask(self.width[c])) as u32;
                *slot = slot.wrapping_add(self.base[c]);
            }
            r
        } else {
            self.columns(i, 4)
        };
        (Posting { doc: r[0], freq: r[1] as u16, fields: r[2] as u16 }, r[1].wrapping_sub(r[3] ^ (1 << 31)))
    }

    /// Column `c` of row `i`.
    #[inline(always)]
    fn column(&self, i: usize, c: usize) -> u32 {
        let at = i * usize::from(self.row_bits) + usize::from(self.offs()[c]);
        load(&self.bits, at, self.width[c]).wrapping_add(self.base[c])
    }

    /// Posting `i`'s count of positions.
    #[inline(always)]
    fn count(&self, i: usize) -> u32 {
        self.column(i, 1).wrapping_sub(self.column(i, 3) ^ (1 << 31))
    }

    /// The counts of positions of postings `from..to`, summed.
    fn counts(&self, from: usize, to: usize) -> usize {
        let rows = to.saturating_sub(from);
        if self.width[3] == 0 {
            // Every posting's count is its frequency less the same number (0 with fields of
            // weight 1): sum the frequency column alone.
            // (The difference is signed: `count_column`.)
            let less = i64::from((self.base[3] ^ (1 << 31)) as i32);
            let (rb, at, w) = (usize::from(self.row_bits), usize::from(self.width[0]), self.width[1]);
            let sum: u64 = if w == 0 {
                0
            } else {
                (from..to).map(|k| u64::from(load(&self.bits, k * rb + at, w))).sum()
            };
            let rows = rows as i64;
            return (sum as i64 + rows * (i64::from(self.base[1]) - less)) as usize;
        }
        (from..to).map(|k| self.count(k) as usize).sum()
    }

    /// All rows.
    fn rows(&self) -> Vec<Row> {
        (0..self.len()).map(|i| self.columns(i, 4)).collect()
    }

    /// Writes row `i` (which fits the frame).
    fn put_row(&mut self, i: usize, r: &Row) {
        if self.row_bits <= 56 {
            // The whole row with one store (each column fits its width).
            let offs = self.offs();
            let v = (0..4).fold(0u64, |v, c| v | u64::from(r[c].wrapping_sub(self.base[c])) << offs[c]);
            store(&mut self.bits, i * usize::from(self.row_bits), self.row_bits, v);
            return;
        }
        let mut at = i * usize::from(self.row_bits);
        for (c, &v) in r.iter().enumerate() {
            store(&mut self.bits, at, self.width[c], u64::from(v.wrapping_sub(self.base[c])));
            at += usize::from(self.width[c]);
        }
    }

    /// Whether `r` fits the frame.
    fn fits(&self, r: &Row) -> bool {
        (0..4).all(|c| r[c] >= self.base[c] && u64::from(r[c] - self.base[c]) >> self.width[c] == 0)
    }

    /// The index of `doc` among postings `lo..hi`, or where it would go.
    pub(super) fn search(&self, mut lo: usize, mut hi: usize, doc: u32) -> Result<usize, usize> {
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.doc(mid).cmp(&doc) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Equal => return Ok(mid),
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        Err(lo)
    }

    /// Byte offset of posting `i`'s positions.
    pub(super) fn offset_of(&self, i: usize) -> usize {
        self.offset_from(0, 0, i)
    }

    /// The byte offset of posting `i`'s positions given that of posting `from` (at most `i`):
    /// counted from the nearest of `from`, the block's ends and its marks.
    pub(super) fn offset_from(&self, from: usize, off: usize, i: usize) -> usize {
        let n = self.len();
        if i >= n {
            return self.positions.len();
        }
        // The nearest known offset at or before `i`, and the nearest after it.
        let (mut lo, mut lo_off) = if from <= i { (from, off) } else { (0, 0) };
        let (mut hi, mut hi_off) = (n, self.positions.len());
        for (&row, &m) in MARKED_ROWS.iter().zip(&self.marks) {
            if m == NO_MARK || row >= n || usize::from(m) > hi_off {
                continue;
            }
            if (lo..=i).contains(&row) {
                (lo, lo_off) = (row, usize::from(m));
            } else if (i..hi).contains(&row) {
                (hi, hi_off) = (row, usize::from(m));
            }
        }
        if hi - i < i - lo {
            let before = self.positions.get(..hi_off).unwrap_or(&self.positions);
            return skip_back(before, self.counts(i, hi));
        }
        lo_off + skip(&self.positions, lo_off, self.counts(lo, i))
    }

    /// The marks after a posting of `len` bytes of positions is inserted as posting `i`, its
    /// positions from byte `at`.
    fn marks_after_insert(&self, i: usize, at: usize, len: usize) -> [u16; 2] {
        let n = self.len();
        let mut out = self.marks;
        for (slot, &row) in out.iter_mut().zip(&MARKED_ROWS) {
            // The marked row's offset before the insert (the stream's end for the row it adds).
            let old = match *slot {
                _ if row > n => continue,
                NO_MARK if row < n => continue,
                m if row < n => usize::from(m),
                _ => self.positions.len(),
            };
            if i == row {
                // The new posting is the marked row.
                *slot = mark(at);
            } else if i < row {
                // The posting before the marked row becomes it, `len` bytes further.
                let before = self.positions.get(..old).unwrap_or(&self.positions);
                *slot = mark(skip_back(before, self.count(row - 1) as usize) + len);
            }
        }
        out
    }

    /// The marks after posting `i`'s positions, `was` bytes, are replaced by `len` bytes: those
    /// after it move by the difference.
    fn marks_after_replace(&self, i: usize, len: usize, was: usize) -> [u16; 2] {
        let mut out = self.marks;
        for (slot, &row) in out.iter_mut().zip(&MARKED_ROWS) {
            if *slot != NO_MARK && i < row && row < self.len() {
                *slot = mark((usize::from(*slot) + len).wrapping_sub(was));
            }
        }
        out
    }

    /// The marks after posting `i` (of `len` bytes of positions) is removed.
    fn marks_after_remove(&self, i: usize, len: usize) -> [u16; 2] {
        let n = self.len();
        let mut out = self.marks;
        for (slot, &row) in out.iter_mut().zip(&MARKED_ROWS) {
            *slot = match *slot {
                _ if row + 1 >= n => NO_MARK,
                NO_MARK => NO_MARK,
                // The posting after the marked row becomes it.
                m if i < row => {
                    let m = usize::from(m);
                    mark(m + entry_len(&self.positions, m, self.count(row)) - len)
                }
                m => m,
            };
        }
        out
    }

    #[cfg(test)]
    /// Appends posting `i`'s positions, which start at byte `off`, to `out` (absolute);
    /// the byte offset after them.
    pub(super) fn read_positions(&self, i: usize, off: usize, out: &mut Vec<u32>) -> Option<usize> {
        self.read_n_positions(self.count(i), off, out)
    }

    /// Appends `n` positions starting at byte `off` to `out` (absolute); the byte offset
    /// after them.
    pub(super) fn read_n_positions(&self, n: u32, off: usize, out: &mut Vec<u32>) -> Option<usize> {
        let mut k = off;
        let mut last = 0u32;
        for _ in 0..n {
            last = last.wrapping_add(get_varint(&self.positions, &mut k)?);
            out.push(last);
        }
        Some(k)
    }

    /// Appends a posting after the last one (its document the largest).
    pub(super) fn push(&mut self, p: Posting, positions: &[u32]) {
        let r = row_of(p, positions.len() as u32);
        let n = self.len();
        let start = self.positions.len();
        encode_into(&mut self.positions, positions);
        if self.fits(&r) {
            grow_to(&mut self.bits, bytes_for(n + 1, self.row_bits));
            self.put_row(n, &r);
            self.n += 1;
            for (slot, &row) in self.marks.iter_mut().zip(&MARKED_ROWS) {
                if row == n {
                    *slot = mark(start);
                }
            }
        } else {
            let mut rows = self.rows();
            rows.push(r);
            self.repack(&rows, true);
        }
    }

    /// Inserts a posting as posting `i`.
    pub(super) fn insert(&mut self, i: usize, p: Posting, positions: &[u32]) {
        let r = row_of(p, positions.len() as u32);
        let n = self.len();
        let i = i.min(n);
        let at = self.offset_of(i);
        let mut bytes = Vec::new();
        encode_into(&mut bytes, positions);
        if self.fits(&r) {
            let marks = self.marks_after_insert(i, at, bytes.len());
            grow_to(&mut self.bits, bytes_for(n + 1, self.row_bits));
            let rb = usize::from(self.row_bits);
            move_bits(&mut self.bits, i * rb, (i + 1) * rb, (n - i) * rb);
            self.put_row(i, &r);
            self.n += 1;
            self.positions.splice(at..at, bytes);
            self.marks = marks;
        } else {
            let mut rows = self.rows();
            rows.insert(i, r);
            self.positions.splice(at..at, bytes);
            self.repack(&rows, false);
        }
    }

    /// Replaces posting `i` (same document).
    pub(super) fn replace(&mut self, i: usize, p: Posting, positions: &[u32]) {
        let at = self.offset_of(i);
        let old = entry_len(&self.positions, at, self.count(i));
        let mut bytes = Vec::new();
        encode_into(&mut bytes, positions);
        if self.positions.get(at..at + old) != Some(&bytes[..]) {
            self.marks = self.marks_after_replace(i, bytes.len(), old);
            self.positions.splice(at..at + old, bytes);
        }
        let r = row_of(p, positions.len() as u32);
        if self.fits(&r) {
            self.put_row(i, &r);
        } else {
            let mut rows = self.rows();
            if let Some(slot) = rows.get_mut(i) {
                *slot = r;
            }
            self.repack(&rows, false);
        }
    }

    /// Removes posting `i`.
    pub(super) fn remove(&mut self, i: usize) {
        let n = self.len();
        if i >= n {
            return;
        }
        let at = self.offset_of(i);
        let len = entry_len(&self.positions, at, self.count(i));
        self.marks = self.marks_after_remove(i, len);
        self.positions.drain(at..at + len);
        // Every remaining row still fits the frame: move the later ones down.
        let rb = usize::from(self.row_bits);
        move_bits(&mut self.bits, (i + 1) * rb, i * rb, (n - i - 1) * rb);
        let base = self.base;
        self.put_row(n - 1, &base);
        self.n -= 1;
        self.bits.truncate(bytes_for(n - 1, self.row_bits));
    }

    /// Splits off postings `at..` as a block of their own (both re-packed, exactly sized).
    pub(super) fn split_off(&mut self, at: usize) -> Block {
        let rows = self.rows();
        let off = self.offset_of(at);
        let tail_pos = self.positions.split_off(off);
        self.positions.shrink_to_fit();
        let (head, tail) = rows.split_at(at.min(rows.len()));
        let tail = Block::packed(tail, tail_pos, self.bound, false);
        self.repack(head, false);
        tail
    }

    /// Releases spare capacity (a full block only changes by updates and deletes).
    pub(super) fn shrink(&mut self) {
        self.bits.shrink_to_fit();
        self.positions.shrink_to_fit();
    }

    /// Bytes of the position deltas.
    pub(super) fn position_bytes(&self) -> usize {
        self.positions.len()
    }

    /// Starts loading the last row and the end of the positions (what appending a posting
    /// reads and writes).
    pub(super) fn prefetch_end(&self) {
        let last = (self.len().saturating_sub(1) * usize::from(self.row_bits)) / 8;
        crate::index::hnsw::prefetch_line(self.bits.as_ptr().wrapping_add(last).cast());
        crate::index::hnsw::prefetch_line(self.positions.as_ptr().wrapping_add(self.positions.len()).cast());
    }

    /// Starts loading the block's rows and positions, at most `lines` cache lines of each
    /// (what inserting, replacing or removing a posting in its middle reads and moves).
    pub(super) fn prefetch_all(&self, lines: usize) {
        for bytes in [&self.bits, &self.positions] {
            for at in (0..bytes.len()).step_by(64).take(lines) {
                crate::index::hnsw::prefetch_line(bytes.as_ptr().wrapping_add(at).cast());
            }
        }
    }

    /// Heap bytes.
    pub(super) fn mem_bytes(&self) -> usize {
        self.bits.capacity() + self.positions.capacity()
    }

    /// The bits of a row (tests).
    #[cfg(test)]
    pub(super) fn row_bits(&self) -> u8 {
        self.row_bits
    }
}

#[cfg(test)]
mod tests;
