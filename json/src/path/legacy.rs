//! Legacy (RedisJSON 1.x) path spelling: detection and conversion to JSONPath.
//!
//! A path is JSONPath when it is exactly `$` or starts with `$.` or `$[`; anything else is
//! legacy and is rewritten to JSONPath text before compiling (RedisJSON's `Path::new`):
//! `.` → `$`, `.a` → `$.a`, `a.b` → `$.a.b`, `[0]` → `$.[0]`, `$a` → `$.$a` (the key `$a`).
//! Legacy paths therefore accept the whole JSONPath syntax; the callers only report the first
//! match.

use std::borrow::Cow;

/// True when `path` is spelled as JSONPath (`$`, `$.…`, `$[…`).
pub fn is_jsonpath(path: &str) -> bool {
    matches!(path.as_bytes(), [b'$'] | [b'$', b'.' | b'[', ..])
}

/// The JSONPath spelling of `path`: unchanged for JSONPath, converted for legacy paths.
pub fn to_jsonpath(path: &str) -> Cow<'_, str> {
    if is_jsonpath(path) {
        Cow::Borrowed(path)
    } else if path == "." {
        Cow::Borrowed("$")
    } else if path.starts_with('.') {
        Cow::Owned(format!("${path}"))
    } else {
        Cow::Owned(format!("$.{path}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_follows_the_first_two_bytes() {
        for p in ["$", "$.a", "$[0]", "$..a", "$.", "$["] {
            assert!(is_jsonpath(p), "{p}");
        }
        for p in ["", ".", ".a", "a", "a.b", "[0]", "$a", "$ .a", "$$", "$*", "@"] {
            assert!(!is_jsonpath(p), "{p}");
        }
    }

    #[test]
    fn conversion_matches_redisjson() {
        let cases = [
            (".", "$"),
            (".a", "$.a"),
            ("a.b", "$.a.b"),
            ("[0]", "$.[0]"),
            ("a[\"b\"][0]", "$.a[\"b\"][0]"),
            ("$a", "$.$a"),
            ("", "$."),
            ("..a", "$..a"),
        ];
        for (legacy, converted) in cases {
            assert_eq!(to_jsonpath(legacy), converted, "{legacy}");
        }
    }
}
