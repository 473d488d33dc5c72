//! Paths into JSON documents: RedisJSON 2.8's legacy paths and its JSONPath dialect.
//!
//! ```text
//! JsonPath::parse(&str) -> Result<JsonPath, PathError>   // compile once, Clone is cheap
//! path.is_legacy()      -> bool   // `.a`, `a.b`, `[0]`… (callers report only the first match)
//! path.is_static()      -> bool   // one definite location: only keys and single indices
//! path.is_root()        -> bool   // `$` or `.`
//! path.converted()      -> &str   // JSONPath spelling, used in error texts (`$.x` for `.x`)
//! path.original()       -> &str   // the text as given
//! path.select(&root)    -> Vec<&Value>          // every match, in RedisJSON's order
//! path.first(&root)     -> Option<&Value>       // the first match (what legacy reads report)
//! path.select_locations(&root) -> Vec<Location> // the matches as key/index steps
//! path.select_located(&root)   -> Vec<(Location, &Value)>
//! path.independent_of(&write)  -> bool   // a write at `write` cannot change what it selects
//! ```
//!
//! Files: `syntax` (grammar as BNF, parser), `ast` (compiled form), [`legacy`] (legacy
//! spelling), [`error`] (RedisJSON's error wording), `eval` (selection), `filter` (filter
//! expressions), [`location`] (concrete locations of matches).
//!
//! Semantics are RedisJSON 2.8's (see `eval` for selection rules and `filter` for filter
//! expressions), with the filter behaviour of its late patches (2.8.19, RFC 9535): filters
//! select nothing on scalars, and operands that select several nodes hold when any node does.
//! Compile errors print as 2.8.19 does (`Error occurred at position N, Error at position N:
//! expected one of the following: …`), with pest's exact position and rule list.
//!
//! Evaluation never panics and never recurses per path step or per document level (only per
//! filter nesting, which compilation bounds), and static paths are walked without allocating.

mod ast;
pub mod error;
mod eval;
mod filter;
mod filter_syntax;
pub mod legacy;
pub mod location;
mod reach;
mod syntax;

use std::sync::Arc;

pub use error::{Expected, PathError};
pub use location::{Location, Step};

use crate::{Node, Value};
use ast::{Segment, Selector};

/// A compiled path (legacy or JSONPath). Cloning shares the compiled form.
#[derive(Clone, Debug)]
pub struct JsonPath {
    inner: Arc<Compiled>,
}

#[derive(Debug)]
struct Compiled {
    original: Box<str>,
    /// JSONPath spelling of a legacy path (`None` for JSONPath).
    converted: Option<Box<str>>,
    segments: Box<[Segment]>,
    is_static: bool,
}

/// `path` as RedisJSON's module API reads it (RediSearch's schema and RETURN paths go through
/// it), spelled for [`JsonPath::parse`]: the grammar lets the first member after `$` go
/// without its dot (`$t` is `$.t`, `$*` is `$.*`), where a JSON command reads `$t` as the
/// legacy path of a key named `$t`. `None` when the spelling is already the same.
pub fn api_spelling(path: &str) -> Option<String> {
    let rest = path.strip_prefix('$')?;
    let first = *rest.as_bytes().first()?;
    (syntax::is_literal_byte(first) || first == b'*').then(|| format!("$.{rest}"))
}

impl JsonPath {
    /// Compiles `text`: JSONPath when it is `$` or starts with `$.`/`$[`, legacy otherwise.
    pub fn parse(text: &str) -> Result<JsonPath, PathError> {
        let converted = legacy::to_jsonpath(text);
        let segments = syntax::parse(&converted)?;
        let is_static =
            segments.iter().all(|s| matches!(s, Segment::Child(Selector::Key(_) | Selector::Index(_))));
        let converted = (!legacy::is_jsonpath(text)).then(|| converted.into_owned().into_boxed_str());
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

impl JsonPath {
    /// Every node the path selects under `root`, in RedisJSON's order (duplicates kept: `$[0,0]`
    /// selects the first element twice).
    ///
    /// A node is borrowed from the document ([`Node::Ref`]) unless it is a number of a packed
    /// array ([`Node::Num`], by value); either way it dereferences to [`Value`].
    pub fn select<'a>(&self, root: &'a Value) -> Vec<Node<'a>> {
        if self.inner.is_static {
            return eval::walk_static(&self.inner.segments, Node::Ref(root)).into_iter().collect();
        }
        let mut cx = filter::Cx::new(root);
        eval::select(&self.inner.segments, Node::Ref(root), &mut cx)
    }

    /// The first selected node (legacy paths report only this one).
    pub fn first<'a>(&self, root: &'a Value) -> Option<Node<'a>> {
        if self.inner.is_static {
            return eval::walk_static(&self.inner.segments, Node::Ref(root));
        }
        self.select(root).into_iter().next()
    }

    /// Where each selected node is, in the order of [`Self::select`].
    pub fn select_locations(&self, root: &Value) -> Vec<Location> {
        self.select_located(root).into_iter().map(|(loc, _)| loc).collect()
    }

    /// Each selected node with its location, in the order of [`Self::select`].
    pub fn select_located<'a>(&self, root: &'a Value) -> Vec<(Location, Node<'a>)> {
        if !self.inner.is_static {
            return eval::select_located(&self.inner.segments, root);
        }
        self.walk_prefix(root, self.inner.segments.len()).into_iter().collect()
    }

    /// For a static path ending in a key: the number of segments before it and the key.
    pub(crate) fn split_last_key(&self) -> Option<(usize, &str)> {
        if !self.inner.is_static {
            return None;
        }
        let (last, parent) = self.inner.segments.split_last()?;
        match last {
            Segment::Child(Selector::Key(k)) => Some((parent.len(), k)),
            _ => None,
        }
    }

    /// For a static path: the node reached by its first `n` segments, with its location.
    pub(crate) fn walk_prefix<'a>(&self, root: &'a Value, n: usize) -> Option<(Location, Node<'a>)> {
        let mut node = Node::Ref(root);
        let mut loc = Vec::with_capacity(n);
        for seg in self.inner.segments.get(..n)? {
            node = match seg {
                Segment::Child(Selector::Key(k)) => {
                    loc.push(Step::Key(k.clone()));
                    Node::Ref(node.as_ref_value()?.obj_get(k)?)
                }
                Segment::Child(Selector::Index(i)) => {
                    let arr = node.array()?;
                    let at = eval::abs_index(*i, arr.len());
                    loc.push(Step::Index(at));
                    arr.get(at)?
                }
                _ => return None,
            };
        }
        Some((loc, node))
    }
}
