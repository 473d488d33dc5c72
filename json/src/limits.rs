//! Named limits of the `json` crate (one place, one value per name).

/// Deepest nesting accepted when parsing command input, as serde_json and
/// RedisJSON count it: the 128th nested `[`/`{` fails with
/// `recursion limit exceeded`.
pub const MAX_DEPTH: usize = 128;

/// Deepest nesting accepted when loading a stored document (RDB), where
/// documents deeper than [`MAX_DEPTH`] can exist (built by nested `JSON.SET`).
/// Parsing uses no recursion; serializing, cloning, comparing and dropping
/// recurse once per level, under 130 bytes of stack each in release builds
/// (about 1.3 MB at this depth; Redis threads have 4 MB or more).
pub const MAX_LOAD_DEPTH: usize = 10_000;

/// Deepest nesting of filters a path may have: each `[?…]` and each parenthesised group inside
/// one is a level (`$[?(@.a)]` has two). Parsing and evaluation recurse once per level;
/// RedisJSON has no limit (it recurses until the stack ends).
pub const MAX_PATH_NESTING: usize = 16;

/// Path parsing budget, in grammar-rule calls: this many plus
/// [`PATH_PARSE_STEPS_PER_BYTE`] per byte of path. The grammar (pest's, which folio follows
/// for exact error texts) parses a bare filter term twice, so nested bare terms cost time
/// exponential in their nesting; paths over budget fail to compile.
pub const PATH_PARSE_STEPS_BASE: usize = 200_000;

/// See [`PATH_PARSE_STEPS_BASE`].
pub const PATH_PARSE_STEPS_PER_BYTE: usize = 64;

/// Compiled-program size limit for `=~` patterns (regex crate `size_limit`), in bytes.
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Lazy-DFA cache limit for `=~` patterns (regex crate `dfa_size_limit`), in bytes.
pub const REGEX_DFA_SIZE_LIMIT: usize = 1 << 20;

/// Distinct regex patterns taken from document strings (`@.a =~ @.pattern`) that one path
/// evaluation keeps compiled; further patterns are compiled on each use.
pub const REGEX_CACHE_ENTRIES: usize = 32;
