//! Every limit of the search crate, in one place.

/// Deepest nesting of parentheses/modifiers the query parser accepts.
pub const MAX_QUERY_DEPTH: usize = 128;
/// Most fields in one schema.
pub const MAX_FIELDS: usize = 1024;
/// Most TEXT fields in one schema.
pub const MAX_TEXT_FIELDS: usize = 128;
/// TEXT fields an index holds without the wide schema (MAXTEXTFIELDS); FT.CREATE switches
/// to it by itself, FT.ALTER refuses to cross it.
pub const NARROW_TEXT_FIELDS: usize = 32;
/// Highest DIALECT accepted.
pub const MAX_DIALECT: u32 = 4;
/// Largest fuzzy distance (`%%%t%%%`).
pub const MAX_FUZZY_DISTANCE: u32 = 3;
/// Delta entries of a term dictionary before it is merged into its fst.
pub const TERMDICT_DELTA_MERGE: usize = 4096;
/// Position gap between values of a multi-value TEXT field (RediSearch MULTI_TEXT_SLOP).
pub const MULTI_TEXT_SLOP: u32 = 100;
/// Words shorter than this are not stemmed (RediSearch MINSTEMLEN).
pub const MIN_STEM_LEN: usize = 4;
/// Longest query string accepted, in bytes: Redis's own largest argument by default
/// (`proto-max-bulk-len`, 512 MB). RediSearch sets no limit of its own (its tests send an
/// 8 MB term), and the parser is linear in the query's length and bounded in depth.
pub const MAX_QUERY_LEN: usize = 512 << 20;
/// Deepest JSON nesting FORMAT EXPAND turns into nested replies (deeper values stay text).
pub const MAX_EXPAND_DEPTH: usize = 512;
/// Largest FT.SPELLCHECK DISTANCE.
pub const MAX_SPELLCHECK_DISTANCE: u32 = 4;
/// Longest dictionary term in bytes (RediSearch's trie: 255 two-byte runes).
pub const DICT_TERM_MAX_BYTES: usize = 510;
/// Longest dictionary term in characters (the trie keeps fewer than 255 runes).
pub const DICT_TERM_MAX_CHARS: usize = 254;
/// Largest VECTOR DIM accepted (a vector of this many FLOAT64 is 8 MiB).
pub const MAX_VECTOR_DIM: usize = 1 << 20;
/// KNN K is capped here (any K is accepted; the result heap is sized by the documents).
pub const MAX_KNN_K: u64 = 1 << 24;
/// Suggestion strings must be shorter than this many runes, and at most twice as many bytes
/// (RediSearch TRIE_INITIAL_STRING_LEN).
pub const SUGGEST_MAX_RUNES: usize = 256;
/// Deepest node stack of a suggestion trie walk (RediSearch's iterator: TRIE_INITIAL_STRING_LEN - 1).
pub const SUGGEST_ITER_DEPTH: usize = 255;
/// FT.SUGGET prefixes must be shorter than this many runes, and than twice as many bytes
/// (RediSearch TRIE_MAX_PREFIX).
pub const SUGGEST_MAX_PREFIX: usize = 100;
/// FT.SUGGET's default MAX.
pub const SUGGEST_DEFAULT_MAX: usize = 5;
/// FT.SUGGET TRIM drops results scoring under the best one divided by this (SCORE_TRIM_FACTOR).
pub const SUGGEST_TRIM_FACTOR: f64 = 10.0;
/// Results FT.SUGGET reserves room for up front, whatever MAX says.
pub const SUGGEST_PREALLOC: usize = 64;
