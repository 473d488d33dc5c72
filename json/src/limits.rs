//! Named limits of the `json` crate (one place, one value per name).

/// Deepest nesting accepted when parsing command input, as serde_json and
/// RedisJSON count it: the 128th nested `[`/`{` fails with
/// `recursion limit exceeded`.
pub const MAX_DEPTH: usize = 128;

/// Deepest nesting accepted when loading a stored document (RDB), where
/// documents deeper than [`MAX_DEPTH`] can exist (built by nested `JSON.SET`).
pub const MAX_LOAD_DEPTH: usize = 10_000;

/// Deepest nesting of filters (`[?(…)]`, parenthesised groups, paths inside filters) a path may
/// have. The grammar re-reads bare filter terms, so parse time grows with nesting; RedisJSON has
/// no limit (it recurses until the stack ends).
pub const MAX_PATH_NESTING: usize = 16;

/// Compiled-program size limit for `=~` patterns (regex crate `size_limit`), in bytes.
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Lazy-DFA cache limit for `=~` patterns (regex crate `dfa_size_limit`), in bytes.
pub const REGEX_DFA_SIZE_LIMIT: usize = 1 << 20;

/// Distinct regex patterns taken from document strings (`@.a =~ @.pattern`) that one path
/// evaluation keeps compiled; further patterns are compiled on each use.
pub const REGEX_CACHE_ENTRIES: usize = 32;
