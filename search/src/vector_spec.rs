//! The definition of a VECTOR attribute ([`VectorSpec`]): algorithm, element type,
//! dimension, distance metric and the algorithm parameters, parsed from
//! `VECTOR FLAT|HNSW <nargs> TYPE t DIM d DISTANCE_METRIC m [opts…]` with RediSearch
//! 2.10's error texts.

use crate::args::Args;
use crate::error::{Error, Result};
use crate::index::half::{bf16_to_f32, f16_to_f32, f32_to_bf16, f32_to_f16};
use crate::limits::MAX_VECTOR_DIM;

/// The index algorithm named in the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VectorAlgo {
    /// Brute force.
    Flat,
    /// Hierarchical navigable small world graph (`index/hnsw.rs`).
    Hnsw,
}

/// The element type of the vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VectorType {
    /// 4-byte IEEE floats.
    Float32,
    /// 8-byte IEEE floats.
    Float64,
    /// 2-byte IEEE floats (binary16).
    Float16,
    /// 2-byte brain floats (the top half of a FLOAT32).
    BFloat16,
    /// Signed bytes (Redis 8): HASH blobs of DIM bytes, JSON integers -128..127.
    Int8,
    /// Unsigned bytes (Redis 8): HASH blobs of DIM bytes, JSON integers 0..255.
    UInt8,
}

impl VectorType {
    /// Bytes per element in a HASH blob or query blob.
    pub fn size(self) -> usize {
        match self {
            VectorType::Float32 => 4,
            VectorType::Float64 => 8,
            VectorType::Float16 | VectorType::BFloat16 => 2,
            VectorType::Int8 | VectorType::UInt8 => 1,
        }
    }

    /// True for INT8 and UINT8.
    pub fn is_integer(self) -> bool {
        matches!(self, VectorType::Int8 | VectorType::UInt8)
    }

    /// The values an element of an integer type can hold (`None` for the float types).
    pub fn int_range(self) -> Option<(i64, i64)> {
        match self {
            VectorType::Int8 => Some((-128, 127)),
            VectorType::UInt8 => Some((0, 255)),
            _ => None,
        }
    }

    /// The name FT.INFO prints.
    pub fn name(self) -> &'static str {
        match self {
            VectorType::Float32 => "FLOAT32",
            VectorType::Float64 => "FLOAT64",
            VectorType::Float16 => "FLOAT16",
            VectorType::BFloat16 => "BFLOAT16",
            VectorType::Int8 => "INT8",
            VectorType::UInt8 => "UINT8",
        }
    }

    /// `v` as this type stores it (FLOAT32 and the 16-bit types round; the 16-bit types are
    /// computed in `f32`, as VecSim does; the integer types hold integers of their range,
    /// checked when they are read).
    pub fn round(self, v: f64) -> f64 {
        match self {
            VectorType::Float64 | VectorType::Int8 | VectorType::UInt8 => v,
            VectorType::Float32 => f64::from(v as f32),
            VectorType::Float16 => f64::from(f16_to_f32(f32_to_f16(v as f32))),
            VectorType::BFloat16 => f64::from(bf16_to_f32(f32_to_bf16(v as f32))),
        }
    }

    /// [`VectorType::round`] of every value (the type chosen once, not per value).
    pub fn round_all(self, v: &mut [f64]) {
        match self {
            VectorType::Float64 | VectorType::Int8 | VectorType::UInt8 => {}
            VectorType::Float32 => v.iter_mut().for_each(|x| *x = f64::from(*x as f32)),
            _ => v.iter_mut().for_each(|x| *x = self.round(*x)),
        }
    }
}

/// The distance metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Squared Euclidean distance.
    L2,
    /// `1 - a·b`.
    Ip,
    /// `1 - cos(a, b)`.
    Cosine,
}

impl Metric {
    /// The name FT.INFO prints.
    pub fn name(self) -> &'static str {
        match self {
            Metric::L2 => "L2",
            Metric::Ip => "IP",
            Metric::Cosine => "COSINE",
        }
    }
}

/// A VECTOR attribute's definition.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorSpec {
    /// FLAT or HNSW.
    pub algo: VectorAlgo,
    /// TYPE.
    pub ty: VectorType,
    /// DIM.
    pub dim: usize,
    /// DISTANCE_METRIC.
    pub metric: Metric,
    /// INITIAL_CAP (accepted; storage grows on demand).
    pub initial_cap: Option<u64>,
    /// FLAT BLOCK_SIZE as given, or as [`crate::vector_budget::fit`] chose it (0 until then:
    /// not given); VECSIM_INFO and the RDB report it (folio's storage grows by doubling).
    pub block_size: u64,
    /// HNSW M: neighbours per node (2M at level 0).
    pub m: u64,
    /// HNSW EF_CONSTRUCTION: the beam width of insertions.
    pub ef_construction: u64,
    /// HNSW EF_RUNTIME: the default beam width of KNN queries.
    pub ef_runtime: u64,
    /// HNSW EPSILON: how far past the radius range queries look.
    pub epsilon: f64,
}

/// RediSearch's default BLOCK_SIZE.
pub(crate) const DEFAULT_BLOCK_SIZE: u64 = 1024;
/// HNSW defaults (RediSearch 2.10).
const DEFAULT_M: u64 = 16;
const DEFAULT_EF_CONSTRUCTION: u64 = 200;
const DEFAULT_EF_RUNTIME: u64 = 10;
const DEFAULT_EPSILON: f64 = 0.01;

/// `Bad arguments for <what>: <reason>` (RediSearch's QERR_MKBADARGS_AC).
fn bad(what: &str, reason: &str) -> Error {
    Error::new(format!("Bad arguments for {what}: {reason}"))
}

const NOARG: &str = "Expected an argument, but none provided";
const PARSE: &str = "Could not convert argument to expected type";
const ELIMIT: &str = "Value is outside acceptable bounds";
const ENOENT: &str = "Unknown argument";

/// A size argument (`AC_GetSize`), at least `min`.
fn size(a: &mut Args, what: &str, min: u64) -> Result<u64> {
    let s = a.next_bytes().ok_or_else(|| bad(what, NOARG))?;
    let s = std::str::from_utf8(s).map_err(|_| bad(what, PARSE))?;
    let v = match s.parse::<u64>() {
        Ok(v) => v,
        // A negative integer is out of bounds, anything else does not parse (AC_GetSize).
        Err(_) if s.parse::<i64>().is_ok() => return Err(bad(what, ELIMIT)),
        Err(_) => return Err(bad(what, PARSE)),
    };
    if v < min {
        return Err(bad(what, ELIMIT));
    }
    Ok(v)
}

impl Default for VectorSpec {
    /// FLAT, FLOAT32, DIM 0, L2 (a placeholder: a parsed VECTOR field always has its own).
    fn default() -> VectorSpec {
        VectorSpec {
            algo: VectorAlgo::Flat,
            ty: VectorType::Float32,
            dim: 0,
            metric: Metric::L2,
            initial_cap: None,
            block_size: DEFAULT_BLOCK_SIZE,
            m: DEFAULT_M,
            ef_construction: DEFAULT_EF_CONSTRUCTION,
            ef_runtime: DEFAULT_EF_RUNTIME,
            epsilon: DEFAULT_EPSILON,
        }
    }
}

impl VectorSpec {
    /// Parses what follows `VECTOR` in a field definition.
    /// `altering`: FT.ALTER, whose odd-`nargs` message RediSearch 2.10 words differently.
    pub(crate) fn parse(a: &mut Args, altering: bool) -> Result<VectorSpec> {
        let algo_name = a.next_bytes().ok_or_else(|| bad("vector similarity algorithm", NOARG))?;
        let algo = if algo_name.eq_ignore_ascii_case(b"FLAT") {
            VectorAlgo::Flat
        } else if algo_name.eq_ignore_ascii_case(b"HNSW") {
            VectorAlgo::Hnsw
        } else {
            return Err(bad("vector similarity algorithm", ENOENT));
        };
        let (label, alg) = match algo {
            VectorAlgo::Flat => ("FLAT", "FLAT"),
            VectorAlgo::Hnsw => ("HNSW", "HNSW"),
        };
        let nargs = size(a, "vector similarity number of parameters", 0)?;
        if nargs % 2 != 0 {
            let why = if altering {
                "(as algorithm parameters should be submitted as named arguments)"
            } else {
                "as algorithm parameters (should be submitted as named arguments)"
            };
            return Err(Error::new(format!(
                "Bad number of arguments for vector similarity index: got {nargs} but expected even number {why}"
            )));
        }
        let expected = nargs / 2;
        let (mut ty, mut dim, mut metric) = (None, None, None);
        // Block size 0: not given ([`crate::vector_budget::fit`] chooses it).
        let mut spec = VectorSpec { algo, block_size: 0, ..VectorSpec::default() };
        let hnsw = algo == VectorAlgo::Hnsw;
        let mut seen = 0;
        while seen < expected && !a.is_empty() {
            let what = |p: &str| format!("vector similarity {label} index {p}");
            if a.eat("TYPE") {
                let t = a.next_bytes().ok_or_else(|| bad(&what("type"), NOARG))?;
                ty = Some(if t.eq_ignore_ascii_case(b"FLOAT32") {
                    VectorType::Float32
                } else if t.eq_ignore_ascii_case(b"FLOAT64") {
                    VectorType::Float64
                } else if t.eq_ignore_ascii_case(b"FLOAT16") {
                    VectorType::Float16
                } else if t.eq_ignore_ascii_case(b"BFLOAT16") {
                    VectorType::BFloat16
                } else if t.eq_ignore_ascii_case(b"INT8") {
                    VectorType::Int8
                } else if t.eq_ignore_ascii_case(b"UINT8") {
                    VectorType::UInt8
                } else {
                    return Err(bad(&what("type"), ENOENT));
                });
            } else if a.eat("DIM") {
                let d = size(a, &what("dim"), 1)?;
                dim = Some(d);
            } else if a.eat("DISTANCE_METRIC") {
                let m = a.next_bytes().ok_or_else(|| bad(&what("metric"), NOARG))?;
                metric = Some(if m.eq_ignore_ascii_case(b"L2") {
                    Metric::L2
                } else if m.eq_ignore_ascii_case(b"IP") {
                    Metric::Ip
                } else if m.eq_ignore_ascii_case(b"COSINE") {
                    Metric::Cosine
                } else {
                    return Err(bad(&what("metric"), ENOENT));
                });
            } else if a.eat("INITIAL_CAP") {
                spec.initial_cap = Some(size(a, &what("initial cap"), 0)?);
            } else if !hnsw && a.eat("BLOCK_SIZE") {
                spec.block_size = size(a, &what("blocksize"), 1)?;
            } else if hnsw && a.eat("M") {
                spec.m = size(a, &what("m"), 1)?;
            } else if hnsw && a.eat("EF_CONSTRUCTION") {
                spec.ef_construction = size(a, &what("efConstruction"), 1)?;
            } else if hnsw && a.eat("EF_RUNTIME") {
                spec.ef_runtime = size(a, &what("efRuntime"), 1)?;
            } else if hnsw && a.eat("EPSILON") {
                let e = a.next_bytes().ok_or_else(|| bad(&what("epsilon"), NOARG))?;
                let e = std::str::from_utf8(e).ok().and_then(|s| s.parse::<f64>().ok());
                match e {
                    Some(e) if e >= 0.0 && e.is_finite() => spec.epsilon = e,
                    Some(_) => return Err(bad(&what("epsilon"), ELIMIT)),
                    None => return Err(bad(&what("epsilon"), PARSE)),
                }
            } else {
                let tok = a.peek().map(|t| String::from_utf8_lossy(t).into_owned()).unwrap_or_default();
                return Err(Error::new(format!("Bad arguments for algorithm {alg}: {tok}")));
            }
            seen += 1;
        }
        if expected > seen {
            return Err(Error::new(format!("Expected {} parameters but got {}", expected * 2, seen * 2)));
        }
        let missing = |p: &str| {
            Error::new(format!(
                "Missing mandatory parameter: cannot create {label} index without specifying {p} argument"
            ))
        };
        spec.ty = ty.ok_or_else(|| missing("TYPE"))?;
        let dim = dim.ok_or_else(|| missing("DIM"))?;
        spec.metric = metric.ok_or_else(|| missing("DISTANCE_METRIC"))?;
        spec.dim = usize::try_from(dim).ok().filter(|d| *d <= MAX_VECTOR_DIM).ok_or_else(|| {
            Error::new(format!("Vector dimension {dim} exceeds the limit of {MAX_VECTOR_DIM}"))
        })?;
        Ok(spec)
    }

    /// Bytes of one vector blob.
    pub fn blob_size(&self) -> usize {
        self.dim.saturating_mul(self.ty.size())
    }

    /// Decodes a little-endian blob of exactly [`VectorSpec::blob_size`] bytes.
    pub fn decode_blob(&self, blob: &[u8]) -> Option<Vec<f64>> {
        if blob.len() != self.blob_size() {
            return None;
        }
        Some(match self.ty {
            VectorType::Float32 => blob
                .chunks_exact(4)
                .map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
                .collect(),
            VectorType::Float64 => blob
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
                .collect(),
            VectorType::Float16 => blob
                .chunks_exact(2)
                .map(|c| f64::from(f16_to_f32(u16::from_le_bytes([c[0], c[1]]))))
                .collect(),
            VectorType::BFloat16 => blob
                .chunks_exact(2)
                .map(|c| f64::from(bf16_to_f32(u16::from_le_bytes([c[0], c[1]]))))
                .collect(),
            VectorType::Int8 => blob.iter().map(|b| f64::from(*b as i8)).collect(),
            VectorType::UInt8 => blob.iter().map(|b| f64::from(*b)).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<VectorSpec> {
        let v: Vec<&[u8]> = s.split(' ').map(|w| w.as_bytes()).collect();
        VectorSpec::parse(&mut Args::new(&v), false)
    }

    #[test]
    fn parses_and_decodes() {
        let s = parse("HNSW 8 TYPE FLOAT64 DIM 2 DISTANCE_METRIC COSINE M 4").unwrap();
        assert_eq!(
            (s.algo, s.ty, s.dim, s.metric, s.m),
            (VectorAlgo::Hnsw, VectorType::Float64, 2, Metric::Cosine, 4)
        );
        let blob: Vec<u8> = [1.5f64, -2.0].iter().flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!(s.decode_blob(&blob), Some(vec![1.5, -2.0]));
        assert_eq!(s.decode_blob(&blob[1..]), None);
        assert!(parse("FLAT 6 TYPE FLOAT32 DIM 0 DISTANCE_METRIC L2").is_err());
        assert!(parse("FLAT 5 TYPE FLOAT32 DIM 2 DISTANCE_METRIC").is_err());
        assert!(parse("FLAT 6 TYPE FLOAT32 DIM 99999999999999 DISTANCE_METRIC L2").is_err());
        let s = parse("HNSW 6 TYPE int8 DIM 3 DISTANCE_METRIC L2").unwrap();
        assert_eq!((s.ty, s.blob_size(), s.ty.name()), (VectorType::Int8, 3, "INT8"));
        assert_eq!(s.decode_blob(&[0xff, 0x80, 7]), Some(vec![-1.0, -128.0, 7.0]));
        let s = parse("FLAT 6 TYPE UINT8 DIM 2 DISTANCE_METRIC COSINE").unwrap();
        assert_eq!(s.decode_blob(&[0xff, 0x80]), Some(vec![255.0, 128.0]));
        assert_eq!(s.decode_blob(&[1, 2, 3]), None);
    }
}
