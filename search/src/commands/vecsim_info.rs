//! `FT.DEBUG VECSIM_INFO idx field`: a vector field's statistics in VecSim's reply shape
//! (RediSearch 2.10.5, measured): a FLAT field is one brute-force index; an HNSW field is
//! RediSearch's tiered index, an empty FLAT front end (folio indexes every vector at once, as
//! RediSearch does without worker threads) before the HNSW back end. MEMORY is what FT.INFO's
//! `vector_index_sz_mb` counts for the field, in bytes.

use crate::index::docs::DocTable;
use crate::index::vector::VectorIndex;
use crate::index::vector_mode::SearchMode;
use crate::reply::Reply;
use crate::vector_spec::{VectorAlgo, VectorSpec};

/// RediSearch's swap-jobs threshold of a tiered index (its default, without worker threads).
const SWAP_JOBS_THRESHOLD: i64 = 1024;

fn bulk(s: &str) -> Reply {
    Reply::Bulk(s.as_bytes().to_vec())
}

fn int(n: usize) -> Reply {
    Reply::Int(i64::try_from(n).unwrap_or(i64::MAX))
}

/// The fields every VecSim index reports first.
struct Common<'a> {
    algorithm: &'a str,
    spec: &'a VectorSpec,
    multi: bool,
    size: usize,
    labels: usize,
    memory: usize,
    mode: SearchMode,
}

impl Common<'_> {
    fn pairs(&self) -> Vec<(&'static str, Reply)> {
        vec![
            ("ALGORITHM", bulk(self.algorithm)),
            ("TYPE", bulk(self.spec.ty.name())),
            ("DIMENSION", int(self.spec.dim)),
            ("METRIC", bulk(self.spec.metric.name())),
            ("IS_MULTI_VALUE", Reply::Int(i64::from(self.multi))),
            ("INDEX_SIZE", int(self.size)),
            ("INDEX_LABEL_COUNT", int(self.labels)),
            ("MEMORY", int(self.memory)),
            ("LAST_SEARCH_MODE", bulk(self.mode.name())),
        ]
    }
}

fn flat(pairs: Vec<(&'static str, Reply)>) -> Reply {
    Reply::Array(pairs.into_iter().flat_map(|(k, v)| [bulk(k), v]).collect())
}

/// The reply for a vector field defined by `spec` and indexed in `vi`; `multi`: a JSON path
/// that may hold several vectors.
pub(crate) fn vecsim_info(spec: &VectorSpec, vi: &VectorIndex, multi: bool, docs: &DocTable) -> Reply {
    let block = ("BLOCK_SIZE", Reply::Int(i64::try_from(spec.block_size).unwrap_or(i64::MAX)));
    let whole = Common {
        algorithm: "FLAT",
        spec,
        multi,
        size: vi.len(),
        labels: vi.doc_count(),
        memory: vi.memory(),
        mode: vi.last_search_mode(),
    };
    if spec.algo == VectorAlgo::Flat {
        let mut pairs = whole.pairs();
        pairs.push(block);
        return flat(pairs);
    }
    let front = Common { size: 0, labels: 0, memory: 0, mode: SearchMode::Empty, ..whole };
    let mut front = front.pairs();
    front.push(block.clone());
    let mut back = Common { algorithm: "HNSW", ..whole }.pairs();
    let (level, entry) = match vi.entry_point() {
        Some((level, doc)) => {
            (i64::try_from(level).unwrap_or(-1), doc.map_or(-1, |d| docs.redisearch_id(d) as i64))
        }
        None => (-1, -1),
    };
    back.extend([
        block,
        ("M", Reply::Int(spec.m as i64)),
        ("EF_CONSTRUCTION", Reply::Int(spec.ef_construction as i64)),
        ("EF_RUNTIME", Reply::Int(spec.ef_runtime as i64)),
        ("MAX_LEVEL", Reply::Int(level)),
        ("ENTRYPOINT", Reply::Int(entry)),
        ("EPSILON", Reply::Double(spec.epsilon)),
        ("NUMBER_OF_MARKED_DELETED", int(vi.marked_deleted())),
    ]);
    let mut pairs = Common { algorithm: "TIERED", ..whole }.pairs();
    pairs.extend([
        ("MANAGEMENT_LAYER_MEMORY", Reply::Int(0)),
        ("BACKGROUND_INDEXING", Reply::Int(0)),
        ("TIERED_BUFFER_LIMIT", Reply::Int(0)),
        ("FRONTEND_INDEX", flat(front)),
        ("BACKEND_INDEX", flat(back)),
        ("TIERED_HNSW_SWAP_JOBS_THRESHOLD", Reply::Int(SWAP_JOBS_THRESHOLD)),
    ]);
    flat(pairs)
}
