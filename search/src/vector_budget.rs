//! What a VECTOR attribute may reserve, as RediSearch 2.10 checks it when a field is defined
//! (`spec.c`, `parseVectorField_validate_flat|hnsw`): a block of vectors may take at most
//! `VSS_MAX_RESIZE` bytes, or, when that is 0, a tenth of the server's memory limit (maxmemory
//! or the machine's memory, the smaller of those set). Past it, INITIAL_CAP and a FLAT
//! BLOCK_SIZE are refused with RediSearch's texts, and a BLOCK_SIZE not given becomes the
//! smaller of 1024 and what fits. A definition loaded from an RDB that no longer fits loses
//! its INITIAL_CAP and BLOCK_SIZE instead (`VecSimIndex_validate_Rdb_parameters`).
//!
//! A vector's bytes are VecSim's estimates (`EstimateElementSize`): FLAT, the vector and two
//! words (its label and a lookup entry); HNSW, the vector, its graph data (72 bytes and
//! 2·M neighbour ids) and 19 bytes of metadata.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::error::{Error, Result};
use crate::vector_spec::{VectorAlgo, VectorSpec, DEFAULT_BLOCK_SIZE};

/// The server's memory limit in bytes as the glue last read it (0: none known).
static MEMORY_LIMIT: AtomicU64 = AtomicU64::new(0);
/// FT.CONFIG's `VSS_MAX_RESIZE` (0: a tenth of the memory limit).
static MAX_RESIZE: AtomicU64 = AtomicU64::new(0);

/// The server's memory limit in bytes, read by the glue before each definition is parsed
/// (RediSearch reads it at each FT.CREATE and RDB load): the smaller of maxmemory and the
/// machine's memory where both are known; 0 when none is.
pub fn set_memory_limit(bytes: u64) {
    MEMORY_LIMIT.store(bytes, Ordering::Relaxed);
}

/// Whether the definitions now parsed come from the AOF or a master's stream: they passed on
/// the server that wrote them, and refusing them here would leave this server without the
/// index (RediSearch refuses them), so no limit applies.
static REPLAYED: AtomicBool = AtomicBool::new(false);

/// Marks the definitions that follow as replayed (see [`REPLAYED`]) or not.
pub fn set_replayed(replayed: bool) {
    REPLAYED.store(replayed, Ordering::Relaxed);
}

/// Whether the definitions now parsed are replayed (see [`REPLAYED`]).
pub(crate) fn replayed() -> bool {
    REPLAYED.load(Ordering::Relaxed)
}

/// `VSS_MAX_RESIZE` as FT.CONFIG or a module argument sets it.
pub(crate) fn set_max_resize(bytes: u64) {
    MAX_RESIZE.store(bytes, Ordering::Relaxed);
}

/// HNSW's graph data per element: its top level (8), a mutex (40), the upper levels'
/// pointer (8) and level 0's header (16), as VecSim lays `ElementGraphData` out on 64 bits.
const HNSW_GRAPH_DATA: u64 = 72;
/// HNSW's metadata per element: a visited tag (2), the packed label and flags (9) and a
/// bucket of the label lookup (8).
const HNSW_META_DATA: u64 = 19;
/// FLAT's per element: the label (8) and a lookup entry (8).
const FLAT_META_DATA: u64 = 16;

/// VecSim's estimate of one vector's bytes in an index defined by `spec`.
pub fn element_size(spec: &VectorSpec) -> u64 {
    let vector = (spec.dim as u64).saturating_mul(spec.ty.size() as u64);
    match spec.algo {
        VectorAlgo::Flat => vector + FLAT_META_DATA,
        VectorAlgo::Hnsw => vector + HNSW_GRAPH_DATA + 8 * spec.m + HNSW_META_DATA,
    }
}

/// The bytes one block may take: VSS_MAX_RESIZE, else a tenth of the memory limit; None
/// when neither is known, or for replayed definitions.
pub fn block_bytes() -> Option<u64> {
    if REPLAYED.load(Ordering::Relaxed) {
        return None;
    }
    match (MAX_RESIZE.load(Ordering::Relaxed), MEMORY_LIMIT.load(Ordering::Relaxed)) {
        (0, 0) => None,
        (0, limit) => Some(limit / 10),
        (resize, _) => Some(resize),
    }
}

/// Fits `spec` to a block budget of `bytes` (None: unlimited): a BLOCK_SIZE not given
/// becomes the smaller of 1024 and the vectors that fit; INITIAL_CAP (else the block size)
/// and a FLAT BLOCK_SIZE above that are RediSearch's errors.
pub fn fit(spec: &mut VectorSpec, bytes: Option<u64>) -> Result<()> {
    let Some(bytes) = bytes else {
        if spec.block_size == 0 {
            spec.block_size = DEFAULT_BLOCK_SIZE;
        }
        return Ok(());
    };
    let max_block = bytes / element_size(spec).max(1);
    if spec.block_size == 0 {
        spec.block_size = DEFAULT_BLOCK_SIZE.min(max_block);
    }
    let cap = spec.initial_cap.unwrap_or(spec.block_size);
    if cap > max_block {
        return Err(Error::new(format!(
            "Vector index initial capacity {cap} exceeded server limit ({max_block} with the given parameters)"
        )));
    }
    // HNSW takes no BLOCK_SIZE in 2.10, and RediSearch leaves its check commented out.
    if spec.algo == VectorAlgo::Flat && spec.block_size > max_block {
        return Err(Error::new(format!(
            "Vector index block size {} exceeded server limit ({max_block} with the given parameters)",
            spec.block_size
        )));
    }
    Ok(())
}

/// [`fit`] for a definition read back from an RDB: one that no longer fits is given the
/// defaults (no INITIAL_CAP, BLOCK_SIZE as [`fit`] chooses it) rather than refused.
pub fn fit_loaded(spec: &mut VectorSpec, bytes: Option<u64>) {
    if fit(spec, bytes).is_err() {
        spec.initial_cap = None;
        spec.block_size = 0;
        let _ = fit(spec, bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::Args;

    fn spec(s: &str) -> VectorSpec {
        let v: Vec<&[u8]> = s.split(' ').map(|w| w.as_bytes()).collect();
        VectorSpec::parse(&mut Args::new(&v), false).unwrap()
    }

    #[test]
    fn element_sizes_are_vecsims() {
        assert_eq!(element_size(&spec("FLAT 6 TYPE FLOAT32 DIM 16 DISTANCE_METRIC L2")), 80);
        assert_eq!(element_size(&spec("FLAT 6 TYPE FLOAT64 DIM 16 DISTANCE_METRIC L2")), 144);
        // 16·4 + 72 + 8·16 + 19
        assert_eq!(element_size(&spec("HNSW 6 TYPE FLOAT32 DIM 16 DISTANCE_METRIC L2")), 283);
    }

    #[test]
    fn limits_refuse_and_defaults_shrink() {
        let budget = Some(80 * 500);
        let mut s = spec("FLAT 6 TYPE FLOAT32 DIM 16 DISTANCE_METRIC L2");
        fit(&mut s, budget).unwrap();
        assert_eq!((s.block_size, s.initial_cap), (500, None));
        let mut s = spec("FLAT 8 TYPE FLOAT32 DIM 16 DISTANCE_METRIC L2 INITIAL_CAP 501");
        let e = fit(&mut s, budget).unwrap_err();
        assert_eq!(
            e.0,
            "Vector index initial capacity 501 exceeded server limit (500 with the given parameters)"
        );
        let mut s = spec("FLAT 8 TYPE FLOAT32 DIM 16 DISTANCE_METRIC L2 BLOCK_SIZE 600");
        let e = fit(&mut s, budget).unwrap_err();
        assert_eq!(
            e.0,
            "Vector index initial capacity 600 exceeded server limit (500 with the given parameters)"
        );
        let mut s = spec("FLAT 10 TYPE FLOAT32 DIM 16 DISTANCE_METRIC L2 INITIAL_CAP 0 BLOCK_SIZE 600");
        let e = fit(&mut s, budget).unwrap_err();
        assert_eq!(e.0, "Vector index block size 600 exceeded server limit (500 with the given parameters)");
        fit_loaded(&mut s, budget);
        assert_eq!((s.block_size, s.initial_cap), (500, None));
        let mut s = spec("FLAT 10 TYPE FLOAT32 DIM 16 DISTANCE_METRIC L2 INITIAL_CAP 0 BLOCK_SIZE 600");
        fit(&mut s, None).unwrap();
        assert_eq!(s.block_size, 600);
        let mut s = spec("HNSW 6 TYPE FLOAT32 DIM 16 DISTANCE_METRIC L2");
        fit(&mut s, None).unwrap();
        assert_eq!(s.block_size, DEFAULT_BLOCK_SIZE);
    }
}
