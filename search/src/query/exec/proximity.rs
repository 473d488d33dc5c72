//! RediSearch's proximity check over position lists.

/// RediSearch's proximity check over one sorted position list per child
/// (`IndexResult_IsWithinRange`). In order: positions chosen greedily, each at or after the
/// previous one (the same position counts, so `"dog dog"` matches one dog), and the gaps
/// `p[i] - p[i-1] - 1` summed must not exceed `slop`. Unordered: the smallest window over one
/// position per list, `max - min - (n - 1) <= slop`, skipping windows where all are equal.
pub fn within(lists: &[Vec<u32>], slop: u32, inorder: bool) -> bool {
    if lists.iter().any(|l| l.is_empty()) {
        return false;
    }
    let slop = i64::from(slop);
    let n = lists.len();
    // Per list: the index of its current position (on the stack for up to 16 lists: this
    // runs once per candidate document).
    let mut small = [0usize; 16];
    let mut large = Vec::new();
    let cur: &mut [usize] = if n <= small.len() {
        &mut small[..n]
    } else {
        large.resize(n, 0);
        &mut large
    };
    let at = |k: usize, cur: &[usize]| lists.get(k).and_then(|l| l.get(cur[k]).copied());
    if inorder {
        let mut first = 0usize;
        loop {
            let Some(p0) = lists.first().and_then(|l| l.get(first)).copied() else { return false };
            first += 1;
            let (mut last, mut span, mut ok) = (i64::from(p0), 0i64, true);
            for k in 1..n {
                while at(k, cur).is_some_and(|p| i64::from(p) < last) {
                    cur[k] += 1;
                }
                let Some(p) = at(k, cur) else { return false };
                span += i64::from(p) - last - 1;
                last = i64::from(p);
                if span > slop {
                    ok = false;
                    break;
                }
            }
            if ok {
                return true;
            }
        }
    }
    let Some(mut max) = (0..n).filter_map(|k| at(k, cur)).max() else { return false };
    loop {
        let Some((min_k, min)) =
            (0..n).filter_map(|k| at(k, cur).map(|p| (k, p))).min_by_key(|&(k, p)| (p, k))
        else {
            return false;
        };
        if min != max && i64::from(max) - i64::from(min) - (n as i64 - 1) <= slop {
            return true;
        }
        cur[min_k] += 1;
        match at(min_k, cur) {
            None => return false,
            Some(p) if p > max => max = p,
            Some(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::within;

    #[test]
    fn proximity() {
        assert!(within(&[vec![1], vec![2]], 0, true));
        assert!(!within(&[vec![2], vec![1]], 0, true));
        assert!(within(&[vec![2], vec![1]], 0, false));
        assert!(!within(&[vec![1], vec![4]], 1, true));
        assert!(within(&[vec![1], vec![4]], 2, true));
        assert!(within(&[vec![1, 10], vec![3, 11], vec![12]], 0, true));
        // The same position counts in order (RediSearch: "dog dog" matches one dog), not
        // unordered.
        assert!(within(&[vec![5], vec![5]], 0, true));
        assert!(!within(&[vec![5], vec![5]], 3, false));
        assert!(within(&[vec![5, 7], vec![5, 7]], 1, false));
    }
}
