//! Fixed-width rows (a vector field's vectors, an HNSW graph's level-0 lists) kept in chunks
//! of a power-of-two number of rows, about [`CHUNK_BYTES`] each, as VecSim keeps its
//! vectors in blocks.
//!
//! One contiguous buffer had to be copied whole to grow: at a million 128-dimension vectors
//! a write paused the server while 512 MB moved, the old and the new buffer both held for
//! that time, and an eighth of the capacity stayed unused on average. Here every chunk but
//! the last is full and never moves; only the last grows (doubling, then by a 32nd of a
//! chunk), so a write copies at most one chunk and at most a 32nd of a chunk is unused.
//! Chunks of [`HUGE_BYTES`] or more are marked for transparent huge pages (the graph walk
//! reads rows at random: measured at 100,000 x 128, huge pages took 16 % off a search).

/// Target bytes of a full chunk (its rows: the largest power of two that fits, at least 1).
const CHUNK_BYTES: usize = 8 << 20;

/// Buffers from this size on are backed by huge pages where the system allows it.
const HUGE_BYTES: usize = 2 << 20;

/// Rows of `width` elements, in chunks.
#[derive(Debug, Clone)]
pub struct Rows<T> {
    width: usize,
    /// Rows per chunk: `1 << shift`.
    shift: u32,
    /// Every chunk but the last holds `1 << shift` rows; the last holds at least one.
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T: Copy + Default> Rows<T> {
    /// No rows yet, each to have `width` elements (at least 1).
    pub fn new(width: usize) -> Rows<T> {
        let width = width.max(1);
        let row_bytes = width * std::mem::size_of::<T>().max(1);
        let per_chunk = (CHUNK_BYTES / row_bytes).max(1);
        let shift = usize::BITS - 1 - per_chunk.leading_zeros();
        Rows { width, shift, chunks: Vec::new(), len: 0 }
    }

    /// Elements per row.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there is no row.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn per_chunk(&self) -> usize {
        1 << self.shift
    }

    /// Chunk and element offset of `row`.
    #[inline]
    fn place(&self, row: usize) -> (usize, usize) {
        (row >> self.shift, (row & (self.per_chunk() - 1)) * self.width)
    }

    /// Row `row`; empty past the end.
    #[inline]
    pub fn row(&self, row: u32) -> &[T] {
        let (c, at) = self.place(row as usize);
        self.chunks.get(c).and_then(|ch| ch.get(at..at + self.width)).unwrap_or(&[])
    }

    /// Row `row`, to write; None past the end.
    #[inline]
    pub fn row_mut(&mut self, row: u32) -> Option<&mut [T]> {
        let (c, at) = self.place(row as usize);
        let w = self.width;
        self.chunks.get_mut(c).and_then(|ch| ch.get_mut(at..at + w))
    }

    /// Appends a row: `values`, cut or padded with `T::default()` to the width.
    pub fn push(&mut self, values: &[T]) {
        let w = self.width;
        let last = self.room();
        let take = values.len().min(w);
        last.extend_from_slice(values.get(..take).unwrap_or(&[]));
        last.resize(last.len() + (w - take), T::default());
        self.len += 1;
    }

    /// The last chunk, with room for one more row (a new chunk when the last is full).
    fn room(&mut self) -> &mut Vec<T> {
        let (w, per) = (self.width, self.per_chunk());
        let in_last = self.len & (per - 1);
        if in_last == 0 || self.chunks.is_empty() {
            // Every chunk is full (or there is none): a new one, as small as a growing last
            // chunk starts.
            self.chunks.push(Vec::new());
        }
        let Some(chunk) = self.chunks.last_mut() else { unreachable!("a chunk was just pushed") };
        if chunk.len() + w > chunk.capacity() {
            let rows = chunk.len() / w;
            // Double while small, then a 32nd of a chunk at a time.
            let more = rows.max(16).min((per / 32).max(1));
            let cap = (rows + more).min(per) * w;
            regrow(chunk, cap);
        }
        chunk
    }

    /// Copies row `from` over row `to`.
    pub fn copy_row(&mut self, from: u32, to: u32) {
        if from == to || from as usize >= self.len || to as usize >= self.len {
            return;
        }
        let (fc, fa) = self.place(from as usize);
        let (tc, ta) = self.place(to as usize);
        let w = self.width;
        if fc == tc {
            if let Some(ch) = self.chunks.get_mut(fc) {
                ch.copy_within(fa..fa + w, ta);
            }
            return;
        }
        let (lo, hi) = self.chunks.split_at_mut(fc.max(tc));
        let (src, dst) = if fc > tc {
            (hi.first().and_then(|c| c.get(fa..fa + w)), lo.get_mut(tc).and_then(|c| c.get_mut(ta..ta + w)))
        } else {
            (lo.get(fc).and_then(|c| c.get(fa..fa + w)), hi.first_mut().and_then(|c| c.get_mut(ta..ta + w)))
        };
        if let (Some(s), Some(d)) = (src, dst) {
            d.copy_from_slice(s);
        }
    }

    /// Keeps the first `rows` rows; chunks left empty are freed.
    pub fn truncate(&mut self, rows: usize) {
        if rows >= self.len {
            return;
        }
        let per = self.per_chunk();
        let chunks = rows.div_ceil(per);
        self.chunks.truncate(chunks);
        if let Some(last) = self.chunks.last_mut() {
            let in_last = rows - (chunks - 1) * per;
            last.truncate(in_last * self.width);
        }
        self.len = rows;
    }

    /// Moves the last row into `row` and drops the last row.
    pub fn swap_remove(&mut self, row: usize) {
        let Some(last) = self.len.checked_sub(1) else { return };
        if row > last {
            return;
        }
        self.copy_row(last as u32, row as u32);
        self.truncate(last);
    }

    /// Every row, in order.
    pub fn iter(&self) -> impl Iterator<Item = &[T]> + '_ {
        self.chunks.iter().flat_map(move |c| c.chunks_exact(self.width))
    }

    /// Every row, in order, to write.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut [T]> + '_ {
        let w = self.width;
        self.chunks.iter_mut().flat_map(move |c| c.chunks_exact_mut(w))
    }

    /// Heap bytes held (capacity, not length).
    pub fn bytes(&self) -> usize {
        let elems: usize = self.chunks.iter().map(|c| c.capacity()).sum();
        elems * std::mem::size_of::<T>() + self.chunks.capacity() * std::mem::size_of::<Vec<T>>()
    }
}

/// Moves `v` into a buffer of `cap` elements (at least its length). A buffer of at least
/// [`HUGE_BYTES`] is marked for transparent huge pages before it is written ([`advise`]);
/// the one it leaves is unmarked before it goes back to the allocator, which may reuse it
/// for anything.
fn regrow<T: Copy>(v: &mut Vec<T>, cap: usize) {
    let size = std::mem::size_of::<T>();
    let cap = cap.max(v.len());
    if cap * size < HUGE_BYTES {
        v.reserve_exact(cap - v.len());
        return;
    }
    let mut fresh: Vec<T> = Vec::with_capacity(cap);
    advise(fresh.as_ptr().cast(), fresh.capacity() * size, true);
    fresh.extend_from_slice(v);
    let old = std::mem::replace(v, fresh);
    if old.capacity() * size >= HUGE_BYTES {
        advise(old.as_ptr().cast(), old.capacity() * size, false);
    }
}

#[cfg(target_os = "linux")]
extern "C" {
    fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
}

/// Marks the whole pages of `[p, p + len)` for transparent huge pages, or unmarks them
/// (Linux `MADV_HUGEPAGE` / `MADV_NOHUGEPAGE`; a hint: nothing happens where THP is off
/// or elsewhere).
pub(crate) fn advise(p: *const u8, len: usize, huge: bool) {
    #[cfg(target_os = "linux")]
    {
        const MADV_HUGEPAGE: i32 = 14;
        const MADV_NOHUGEPAGE: i32 = 15;
        const PAGE: usize = 4096;
        let start = (p as usize).div_ceil(PAGE) * PAGE;
        let end = (p as usize + len) / PAGE * PAGE;
        if end > start {
            let advice = if huge { MADV_HUGEPAGE } else { MADV_NOHUGEPAGE };
            // SAFETY: the range lies inside an allocation this process owns (whole pages of
            // it, still allocated); these advices change how its pages are backed, never
            // their contents.
            unsafe { madvise(start as *mut std::ffi::c_void, end - start, advice) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (p, len, huge);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A naive model: one Vec of rows.
    fn check(rows: &Rows<u32>, model: &[Vec<u32>]) {
        assert_eq!(rows.len(), model.len());
        for (i, m) in model.iter().enumerate() {
            assert_eq!(rows.row(i as u32), m.as_slice(), "row {i}");
        }
        assert!(rows.row(model.len() as u32).is_empty());
        let all: Vec<Vec<u32>> = rows.iter().map(|r| r.to_vec()).collect();
        assert_eq!(all, model);
    }

    #[test]
    fn rows_follow_a_model_through_pushes_copies_and_removes() {
        // Rows of 3 u32 in chunks of a few rows (a small CHUNK for the test: shift forced).
        let mut rows: Rows<u32> = Rows::new(3);
        rows.shift = 2;
        let mut model: Vec<Vec<u32>> = Vec::new();
        let mut x = 0x9E37_79B9u32;
        for step in 0..3000u32 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            match x % 7 {
                0..=3 => {
                    let r = vec![step, x, step ^ x];
                    rows.push(&r);
                    model.push(r);
                }
                4 if !model.is_empty() => {
                    let i = (x as usize / 7) % model.len();
                    rows.swap_remove(i);
                    model.swap_remove(i);
                }
                5 if !model.is_empty() => {
                    let (f, t) = ((x as usize / 7) % model.len(), (x as usize / 91) % model.len());
                    rows.copy_row(f as u32, t as u32);
                    model[t] = model[f].clone();
                }
                6 if !model.is_empty() => {
                    let keep = model.len() - (x as usize / 7) % model.len().min(9);
                    rows.truncate(keep);
                    model.truncate(keep);
                }
                _ => {}
            }
            check(&rows, &model);
            // Every chunk but the last is full; none is empty.
            let per = rows.per_chunk() * rows.width;
            let n = rows.chunks.len();
            assert!(rows.chunks.iter().take(n.saturating_sub(1)).all(|c| c.len() == per));
            assert!(rows.chunks.iter().all(|c| !c.is_empty()));
        }
        for r in rows.iter_mut() {
            r[0] = 7;
        }
        assert!(rows.iter().all(|r| r[0] == 7));
    }

    #[test]
    fn short_rows_are_padded_and_long_ones_cut() {
        let mut rows: Rows<f32> = Rows::new(2);
        rows.push(&[1.0]);
        rows.push(&[2.0, 3.0, 4.0]);
        assert_eq!(rows.row(0), &[1.0, 0.0]);
        assert_eq!(rows.row(1), &[2.0, 3.0]);
        assert_eq!(rows.row_mut(2), None);
    }

    #[test]
    fn chunks_are_about_eight_megabytes_and_the_last_grows_by_a_32nd() {
        let rows: Rows<f32> = Rows::new(128);
        assert_eq!(rows.per_chunk(), 16384, "512-byte rows: 8 MB chunks");
        let big: Rows<f32> = Rows::new(4 << 20);
        assert_eq!(big.per_chunk(), 1, "a row larger than a chunk: one row per chunk");
        let mut rows: Rows<u8> = Rows::new(1 << 10);
        for _ in 0..8192 + 100 {
            rows.push(&[1]);
        }
        // 8 MB chunks of 1 KB rows: one full chunk, then the last at 128 rows (100 used).
        assert_eq!(rows.chunks.len(), 2);
        assert_eq!(rows.chunks[0].capacity(), 8 << 20);
        assert_eq!(rows.chunks[1].capacity(), 128 << 10);
        assert!(rows.bytes() < (8 << 20) + (130 << 10));
        // Past a 32nd of a chunk (256 rows) the last grows 256 rows at a time.
        for _ in 0..300 {
            rows.push(&[1]);
        }
        assert_eq!(rows.chunks[1].capacity(), 512 << 10, "400 rows: 256 + 256");
    }
}
