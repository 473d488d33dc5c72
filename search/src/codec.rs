//! folio's own byte format for what it persists beside RediSearch's records (the index
//! definitions of databases other than 0, synonym groups, dictionaries): little-endian `u32`
//! counts and length-prefixed byte strings. Depends on nothing.

/// Appends a count.
pub(crate) fn put_u32(out: &mut Vec<u8>, n: u32) {
    out.extend_from_slice(&n.to_le_bytes());
}

/// Appends a byte string: its length, then its bytes.
pub(crate) fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_u32(out, b.len() as u32);
    out.extend_from_slice(b);
}

/// Reads what [`put_u32`] and [`put_bytes`] wrote.
pub(crate) struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `b`.
    pub(crate) fn new(b: &'a [u8]) -> Reader<'a> {
        Reader { b, pos: 0 }
    }

    /// True when every byte was read.
    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.b.len()
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> std::result::Result<&'a [u8], String> {
        let s = self
            .b
            .get(self.pos..self.pos.saturating_add(n))
            .ok_or_else(|| "truncated search definitions".to_string())?;
        self.pos += n;
        Ok(s)
    }

    /// A count.
    pub(crate) fn u32(&mut self) -> std::result::Result<u32, String> {
        let s = self.take(4)?;
        let arr: [u8; 4] = s.try_into().map_err(|_| "truncated search definitions".to_string())?;
        Ok(u32::from_le_bytes(arr))
    }

    /// A byte string.
    pub(crate) fn bytes(&mut self) -> std::result::Result<&'a [u8], String> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}
