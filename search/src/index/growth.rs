//! Growing the vectors that hold a slot per document id or per term id.
//!
//! Doubling leaves up to half of such a vector's slots unused, and every document (or term)
//! pays for them: a vector of 32-byte slots at 50,000 documents wastes 10 bytes a document on
//! average. These grow by an eighth instead (still amortized: each slot is copied about eight
//! times over the vector's growth).

/// Makes room for `v` to hold `len` elements, growing it by at least an eighth when it must.
pub(crate) fn reserve_eighth<T>(v: &mut Vec<T>, len: usize) {
    if v.capacity() < len {
        let more = (len - v.len()).max(v.len() / 8 + 64);
        v.reserve_exact(more);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_by_an_eighth_and_only_when_full() {
        let mut v: Vec<u8> = Vec::new();
        reserve_eighth(&mut v, 1);
        assert_eq!(v.capacity(), 64);
        v.resize(64, 0);
        reserve_eighth(&mut v, 64);
        assert_eq!(v.capacity(), 64, "room enough: nothing moves");
        reserve_eighth(&mut v, 65);
        assert_eq!(v.capacity(), 64 + 72);
        v.resize(10_000, 0);
        reserve_eighth(&mut v, 10_001);
        assert_eq!(v.capacity(), 10_000 + 10_000 / 8 + 64);
        reserve_eighth(&mut v, 50_000);
        assert_eq!(v.capacity(), 50_000, "a jump takes what it needs");
    }
}
