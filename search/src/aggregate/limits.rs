//! Named limits of FT.AGGREGATE (values from RediSearch 2.10's source/config).

/// Deepest expression accepted: parser recursion and syntax-tree height
/// (guards the recursive parser, evaluator and drop).
pub const MAX_EXPR_DEPTH: usize = 256;
/// Longest expression text accepted, in bytes.
pub const MAX_EXPR_LEN: usize = 64 * 1024;
/// `SORTASCMAP_MAXFIELDS`: at most this many SORTBY keys (8 in RediSearch 2.10.5:
/// `Cannot sort by more than 8 fields`).
pub const MAX_SORT_KEYS: usize = 8;
/// Rows returned by a SORTBY without LIMIT or MAX (`DEFAULT_LIMIT`).
pub const DEFAULT_SORT_LIMIT: u64 = 10;
/// `MAXAGGREGATERESULTS` default (unlimited in the source: 2^31 in the inventory).
pub const MAX_AGGREGATE_RESULTS: u64 = 1 << 31;
/// `MAXSEARCHRESULTS` default, which also bounds a LIMIT offset.
pub const MAX_SEARCH_RESULTS: u64 = 1_000_000;
/// Most values `split()` returns.
pub const MAX_SPLIT_VALUES: usize = 1024;
/// Most terms `matched_terms()` returns.
pub const MAX_MATCHED_TERMS: usize = 100;
/// `MAX_SAMPLE_SIZE` of RANDOM_SAMPLE and QUANTILE's resolution.
pub const MAX_SAMPLE_SIZE: u64 = 1000;
/// Longest geo string `geodistance()` parses.
pub const MAX_GEO_STRING: usize = 128;
/// Longest `timefmt()` output (RediSearch's strftime buffer).
pub const MAX_TIMEFMT_OUTPUT: usize = 1024;
/// Default rows per cursor read (`cursorReadSize`).
pub const DEFAULT_CURSOR_COUNT: u64 = 1000;
/// Default and maximal cursor idle time in ms (`CURSOR_MAX_IDLE`).
pub const DEFAULT_CURSOR_MAX_IDLE_MS: u64 = 300_000;
/// Open cursors per index (`INDEX_CURSOR_LIMIT`).
pub const MAX_CURSORS_PER_INDEX: usize = 128;
/// Highest DIALECT accepted.
pub const MAX_DIALECT: u64 = 4;
/// COUNT_DISTINCTISH stays exact up to this many distinct hashes, then
/// switches to a HyperLogLog.
pub const HLL_EXACT_THRESHOLD: usize = 1024;
/// HyperLogLog precision (2^p registers).
pub const HLL_PRECISION: u32 = 12;
