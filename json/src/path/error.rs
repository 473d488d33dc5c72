//! Path compilation errors, worded exactly as RedisJSON 2.8 (pest) words them.
//!
//! RedisJSON compiles paths with a pest grammar and turns pest's error into
//! `Error occurred at position N, Error at position N: expected one of the following: R1, R2`
//! where `N` is the byte offset (in the converted JSONPath spelling) of the furthest failure
//! and `R*` are the grammar rules that were tried there, in grammar order. [`Expected`] lists
//! those rules and prints them with RedisJSON's display names.

use std::fmt;

/// A grammar rule that can appear in the "expected one of the following" list.
///
/// The declaration order is the order of the rules in RedisJSON's `grammar.pest`
/// (pest sorts the list by it); the names are its display names.
#[allow(non_camel_case_types, missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Expected {
    EOI,
    literal,
    string_value,
    string_value_escape_1,
    string_value_escape_2,
    string_list,
    pos_number,
    number,
    decimal,
    numbers_list,
    numbers_range,
    right_range,
    all_range,
    left_range,
    full_range,
    from_current,
    from_root,
    ge,
    gt,
    le,
    lt,
    eq,
    ne,
    re,
    boolean_true,
    boolean_false,
    null,
    single_filter,
    and,
    or,
    filter,
    all,
    full_scan,
    root,
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::literal => f.write_str("<string>"),
            Self::all => f.write_str("'*'"),
            Self::full_scan => f.write_str("'..'"),
            Self::numbers_list => f.write_str("'<number>[,<number>,...]'"),
            Self::string_list => f.write_str("'<string>[,<string>,...]'"),
            Self::numbers_range => f.write_str("['start:end:steps']"),
            Self::number => f.write_str("'<number>'"),
            Self::filter => f.write_str("'[?(filter_expression)]'"),
            other => fmt::Debug::fmt(other, f),
        }
    }
}

/// Why a path did not compile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathError {
    position: usize,
    kind: PathErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum PathErrorKind {
    /// A grammar error: the rules tried at the furthest position (sorted, de-duplicated).
    Syntax(Box<[Expected]>),
    /// Filters nested deeper than [`crate::limits::MAX_PATH_NESTING`].
    TooDeep,
    /// Parsing needed more steps than the budget (see [`crate::limits::PATH_PARSE_STEPS_BASE`]).
    TooComplex,
}

impl PathError {
    pub(crate) fn syntax(position: usize, mut expected: Vec<Expected>) -> Self {
        expected.sort_unstable();
        expected.dedup();
        Self { position, kind: PathErrorKind::Syntax(expected.into_boxed_slice()) }
    }

    pub(crate) fn too_deep(position: usize) -> Self {
        Self { position, kind: PathErrorKind::TooDeep }
    }

    pub(crate) fn too_complex(position: usize) -> Self {
        Self { position, kind: PathErrorKind::TooComplex }
    }

    /// Byte offset of the error in the JSONPath spelling of the path
    /// (for a legacy path, in its converted form: `a[` fails at 4 of `$.a[`).
    pub fn position(&self) -> usize {
        self.position
    }

    /// The rules the grammar expected at [`Self::position`], in grammar order
    /// (empty for errors that are not grammar errors).
    pub fn expected(&self) -> &[Expected] {
        match &self.kind {
            PathErrorKind::Syntax(e) => e,
            PathErrorKind::TooDeep | PathErrorKind::TooComplex => &[],
        }
    }

    /// The message without the position prefix: `expected one of the following: …`.
    pub fn message(&self) -> String {
        match &self.kind {
            PathErrorKind::Syntax(e) if e.is_empty() => "parsing error".to_owned(),
            PathErrorKind::Syntax(e) => {
                let list: Vec<String> = e.iter().map(ToString::to_string).collect();
                format!("expected one of the following: {}", list.join(", "))
            }
            PathErrorKind::TooDeep => {
                format!("filters nested deeper than {} levels", crate::limits::MAX_PATH_NESTING)
            }
            PathErrorKind::TooComplex => "path too complex to compile".to_owned(),
        }
    }
}

impl fmt::Display for PathError {
    /// `Error occurred at position N, Error at position N: <message>` (RedisJSON 2.8.19 wording).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.position;
        write!(f, "Error occurred at position {p}, Error at position {p}: {}", self.message())
    }
}

impl std::error::Error for PathError {}
