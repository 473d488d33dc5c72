//! Bitmaps built from lists of document ids in one pass: the ids set in a dense bit set over
//! their span and read into roaring containers at once, where roaring's own builders push
//! them one by one (`from_sorted_iter`) or need them sorted first. Few ids for their span
//! (the bit set would be mostly zeros) go the sorted way.

use roaring::RoaringBitmap;

/// The bitmap of `ids`, in any order, maybe repeated.
pub fn bitmap_of(mut ids: Vec<u32>) -> RoaringBitmap {
    let span = ids.iter().fold(None, |s: Option<(u32, u32)>, &id| match s {
        None => Some((id, id)),
        Some((lo, hi)) => Some((lo.min(id), hi.max(id))),
    });
    if let Some(bits) = span.and_then(|(lo, hi)| dense_bits(&ids, lo, hi)) {
        return bits;
    }
    ids.sort_unstable();
    ids.dedup();
    RoaringBitmap::from_sorted_iter(ids).unwrap_or_default()
}

/// The bitmap of `ids`, given in increasing order.
pub fn bitmap_of_sorted(ids: impl IntoIterator<Item = u32>) -> RoaringBitmap {
    let ids: Vec<u32> = ids.into_iter().collect();
    if let Some(bits) = ids.first().zip(ids.last()).and_then(|(&lo, &hi)| dense_bits(&ids, lo, hi)) {
        return bits;
    }
    bitmap_of_increasing(&ids)
}

/// Roaring's portable format: the cookie of a stream without run containers.
const NO_RUN_COOKIE: u32 = 12346;

/// Most ids an array container holds (more: a bitmap container of 1024 words).
const ARRAY_MAX: usize = 4096;

/// The bitmap of `ids`, strictly increasing. Its containers are written whole in roaring's
/// portable format and read back (`deserialize_unchecked_from`: one copy per container),
/// where roaring's own builders (`append`, `from_sorted_iter`) push one id at a time, each
/// through the container and store checks (12 % of a two-word search over 20,000
/// documents). Ids that do not increase make an invalid bitmap (no memory error): callers
/// pass postings' documents, which do.
pub fn bitmap_of_increasing(ids: &[u32]) -> RoaringBitmap {
    debug_assert!(ids.windows(2).all(|w| w[0] < w[1]));
    // The containers: (key, their ids).
    let mut containers: Vec<(u16, &[u32])> = Vec::new();
    let mut rest = ids;
    while let Some(&first) = rest.first() {
        let key = first >> 16;
        let n = rest.partition_point(|&id| id >> 16 == key);
        let (part, after) = rest.split_at(n);
        containers.push((key as u16, part));
        rest = after;
    }
    let data_len = |part: &[u32]| if part.len() > ARRAY_MAX { 8192 } else { 2 * part.len() };
    let header = 8 + 8 * containers.len();
    let mut buf = Vec::with_capacity(header + containers.iter().map(|(_, p)| data_len(p)).sum::<usize>());
    buf.extend_from_slice(&NO_RUN_COOKIE.to_le_bytes());
    buf.extend_from_slice(&(containers.len() as u32).to_le_bytes());
    for (key, part) in &containers {
        buf.extend_from_slice(&key.to_le_bytes());
        buf.extend_from_slice(&((part.len() - 1) as u16).to_le_bytes());
    }
    let mut offset = header;
    for (_, part) in &containers {
        buf.extend_from_slice(&(offset as u32).to_le_bytes());
        offset += data_len(part);
    }
    for (_, part) in &containers {
        if part.len() > ARRAY_MAX {
            let mut words = [0u64; 1024];
            for &id in *part {
                let low = (id & 0xffff) as usize;
                if let Some(w) = words.get_mut(low / 64) {
                    *w |= 1 << (low % 64);
                }
            }
            buf.extend(words.iter().flat_map(|w| w.to_le_bytes()));
        } else {
            buf.extend(part.iter().flat_map(|&id| (id as u16).to_le_bytes()));
        }
    }
    RoaringBitmap::deserialize_unchecked_from(&buf[..])
        .unwrap_or_else(|_| RoaringBitmap::from_sorted_iter(ids.iter().copied()).unwrap_or_default())
}

/// The bitmap of `ids` (spanning `lo..=hi`) read from a dense bit set, when that set has at
/// most 4 words an id; None otherwise.
fn dense_bits(ids: &[u32], lo: u32, hi: u32) -> Option<RoaringBitmap> {
    let base = lo & !63;
    let words = ((hi - base) / 64 + 1) as usize;
    if ids.len() <= 16 || words > ids.len().saturating_mul(4) {
        return None;
    }
    Some(bitmap_of_span(lo, hi, ids.iter().copied()))
}

/// The bitmap of `ids`, each in `lo..=hi`, in any order, set in a dense bit set over that span
/// and read into roaring's containers at once (for ids dense in their span).
pub fn bitmap_of_span(lo: u32, hi: u32, ids: impl IntoIterator<Item = u32>) -> RoaringBitmap {
    let base = lo & !63;
    let mut bytes = vec![0u8; (hi.saturating_sub(base) / 8 + 1) as usize];
    for id in ids {
        // (An id below `lo` would wrap past the set and be left out.)
        let at = id.wrapping_sub(base);
        if let Some(byte) = bytes.get_mut((at / 8) as usize) {
            *byte |= 1 << (at % 8);
        }
    }
    RoaringBitmap::from_lsb0_bytes(base, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitmaps_match_roarings_own_build() {
        let mut x: u64 = 7;
        let mut next = |m: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let shapes = [
            (0, 1, 0),
            (1, 1, 5),
            (20, 30, 9),
            (1000, 50_000, 0),
            (300, 1 << 20, 70_000),
            (5000, 6000, 131_000),
        ];
        for (n, span, base) in shapes {
            let ids: Vec<u32> = (0..n).map(|_| base + next(span) as u32).collect();
            let want: RoaringBitmap = ids.iter().copied().collect();
            assert_eq!(bitmap_of(ids.clone()), want, "{n} ids over {span} from {base}");
            let mut sorted = ids;
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(bitmap_of_sorted(sorted), want, "{n} sorted ids over {span} from {base}");
        }
        let top = vec![u32::MAX, u32::MAX - 1, u32::MAX - 64, u32::MAX];
        // Increasing ids written as containers: sparse, full (65,536 in one), array and
        // bitmap containers side by side, the last key.
        let shapes =
            [(1, 1, 0), (4096, 4096, 65_536), (4097, 4097, 65_536), (65_536, 65_536, 0), (3000, 300_000, 7)];
        for (n, span, base) in shapes {
            let mut ids: Vec<u32> = (0..n).map(|_| base + next(span) as u32).collect();
            if n == span {
                ids = (base..base + n as u32).collect();
            }
            ids.sort_unstable();
            ids.dedup();
            let want = RoaringBitmap::from_sorted_iter(ids.iter().copied()).unwrap();
            let got = bitmap_of_increasing(&ids);
            assert_eq!(got, want, "{n} ids over {span} from {base}");
            assert_eq!(got.len(), ids.len() as u64);
            assert!(got.internal_validate().is_ok(), "{n} ids over {span} from {base}");
        }
        assert!(bitmap_of_increasing(&[]).is_empty());
        let last: Vec<u32> = (0..5000).map(|i| u32::MAX - 9999 + 2 * i).collect();
        assert_eq!(bitmap_of_increasing(&last), last.iter().copied().collect::<RoaringBitmap>());
        assert_eq!(bitmap_of(top.clone()), top.into_iter().collect::<RoaringBitmap>());
        let top: Vec<u32> = (0..100).map(|i| u32::MAX - 99 + i).collect();
        assert_eq!(bitmap_of_sorted(top.clone()), top.into_iter().collect::<RoaringBitmap>());
    }
}
