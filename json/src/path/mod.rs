//! Paths into JSON documents: RedisJSON 2.8's legacy paths and its JSONPath dialect.
//!
//! ```text
//! JsonPath::parse(&str) -> Result<JsonPath, PathError>   // compile once, Clone is cheap
//! path.is_legacy()      -> bool   // `.a`, `a.b`, `[0]`… (callers report only the first match)
//! path.is_static()      -> bool   // one definite location: only keys and single indices
//! path.converted()      -> &str   // JSONPath spelling, used in error texts (`$.x` for `.x`)
//! path.original()       -> &str   // the text as given
//! path.select(&root)    -> Vec<&Value>          // matches in document order of evaluation
//! path.select_locations(&root) -> Vec<Location> // the same matches as key/index steps
//! ```
//!
//! Files: [`syntax`] (grammar as BNF, parser), [`ast`] (compiled form), [`legacy`] (legacy
//! spelling), [`error`] (RedisJSON's error wording), `eval` (selection), `filter` (filter
//! expressions), `location` (concrete locations of matches).

mod ast;
pub mod error;
pub mod legacy;
mod syntax;

use std::sync::Arc;

pub use error::{Expected, PathError};

use ast::{Segment, Selector};

/// A compiled path (legacy or JSONPath). Cloning shares the compiled form.
#[derive(Clone, Debug)]
pub struct JsonPath {
    inner: Arc<Compiled>,
}

#[derive(Debug)]
struct Compiled {
    original: Box<str>,
    /// JSONPath spelling; `None` when it equals `original`.
    converted: Option<Box<str>>,
    segments: Box<[Segment]>,
    is_static: bool,
}

impl JsonPath {
    /// Compiles `text`: JSONPath when it is `$` or starts with `$.`/`$[`, legacy otherwise.
    pub fn parse(text: &str) -> Result<JsonPath, PathError> {
        let converted = legacy::to_jsonpath(text);
        let segments = syntax::parse(&converted)?;
        let is_static = segments.iter().all(|s| {
            matches!(s, Segment::Child(Selector::Key(_) | Selector::Index(_)))
        });
        let converted = match converted {
            std::borrow::Cow::Owned(c) => Some(c.into_boxed_str()),
            std::borrow::Cow::Borrowed(_) => None,
        };
        Ok(JsonPath {
            inner: Arc::new(Compiled {
                original: text.into(),
                converted,
                segments: segments.into_boxed_slice(),
                is_static,
            }),
        })
    }

    /// True for legacy spellings (`.a`, `a`, `[0]`, `.`): callers report only the first match.
    pub fn is_legacy(&self) -> bool {
        self.inner.converted.is_some()
    }

    /// True when the path names at most one location: only keys and single indices, no
    /// wildcard, descent, filter, slice or union.
    pub fn is_static(&self) -> bool {
        self.inner.is_static
    }

    /// True for the root path (`$`, or legacy `.`).
    pub fn is_root(&self) -> bool {
        self.inner.segments.is_empty()
    }

    /// The JSONPath spelling (`$.x` for the legacy `.x`), as RedisJSON quotes it in errors.
    pub fn converted(&self) -> &str {
        self.inner.converted.as_deref().unwrap_or(&self.inner.original)
    }

    /// The path exactly as given.
    pub fn original(&self) -> &str {
        &self.inner.original
    }
}
