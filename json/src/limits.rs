//! Named limits of the `json` crate (one place, one value per name).

/// Deepest nesting accepted when parsing command input, as serde_json and
/// RedisJSON count it: the 128th nested `[`/`{` fails with
/// `recursion limit exceeded`.
pub const MAX_DEPTH: usize = 128;

/// Deepest nesting accepted when loading a stored document (RDB), where
/// documents deeper than [`MAX_DEPTH`] can exist (built by nested `JSON.SET`).
pub const MAX_LOAD_DEPTH: usize = 10_000;
