//! folio JSON: value model, parse/serialize, paths, ops. No Redis here.
//!
//! # Value API (quick reference)
//!
//! [`Value`] is a 16-byte JSON node: scalars and strings up to 14 bytes
//! inline; longer strings, arrays ([`Array`]) and objects ([`Object`]) are one
//! thin heap block each. Longer strings and objects' key lists (in insertion
//! order, hash-indexed above 32 keys) are interned process-wide and
//! refcounted, so copies of a document and objects of one schema share them.
//! Object iterators go forward only (no `rev()`).
//!
//! - Parse: [`Value::parse`]`(&[u8])` (command input, depth limit 128),
//!   [`Value::parse_unlimited`] (RDB load, depth limit
//!   [`limits::MAX_LOAD_DEPTH`]; the parser itself never recurses). Errors are
//!   [`ParseError`] whose `Display` is RedisJSON's text
//!   (`expected value at line 1 column 1`; non-UTF-8 input:
//!   `Couldn't parse as UTF-8 string`), with `code()` -> [`ErrorCode`],
//!   `line()`, `column()`. Text after the value is rejected; duplicate keys:
//!   last wins at the first position.
//! - Serialize: [`Value::to_json`] (compact `String`),
//!   [`Value::write_json`]`(&mut Vec<u8>, &`[`Format`]`)` with
//!   `Format { indent, newline, space }` or [`Format::COMPACT`];
//!   [`Value::write_json_array`]`(iter of &Value, out, fmt)` writes several
//!   values as one array (the `$` reply) without cloning them.
//! - Memory: [`Value::mem_usage`] = 16 + every heap block below the value
//!   (each shared block once: what the value would take alone).
//! - Type: [`Value::kind`] -> [`Kind`], [`Value::type_name`] (`"integer"` …).
//! - Build: [`Value::null`], `From<bool | i64 | u64 | f64 | &str | String | Num | Array | Object>`,
//!   [`Value::array`]`(Vec<Value>)`, [`Value::object`]`(Vec<(String, Value)>)`,
//!   [`Value::empty_array`], [`Value::empty_object`].
//! - Scalars: `as_bool`, `as_i64`, `as_u64` (any non-negative integer), `as_f64`
//!   (any number), [`Value::as_num`] -> [`Num`]`::{I64, U64, F64}`, `as_str`,
//!   `is_null/is_bool/is_number/is_integer/is_f64/is_string/is_array/is_object`,
//!   `str_len_bytes`, `str_append(&str) -> bool`.
//! - Arrays (on `Value`, `None`/no-op/`Err(v)` when not an array): `len() -> Option<usize>`,
//!   `get(i) -> Option<`[`Node`]`>`, `get_mut(i)`, `set_num(i, n)`, `push(v) -> Result<(), Value>`,
//!   `insert(i, v) -> Result<(), Value>` (`Err` if `i > len`), `remove(i) -> Option<Value>`, `pop()`,
//!   `truncate(n)`, `retain_range(start, end)` (keeps `start..end`), `iter()` (-> [`Node`]s),
//!   `iter_mut()`. `as_array()` -> [`ArrayRef`] (either storage: `len`, `get`, `num`, `iter`,
//!   `as_values`, `as_packed`); `as_array_mut()` -> [`Array`] (Vec-like: `as_slice`, `pop`,
//!   `reserve`, …).
//! - Packed arrays: an array of [`PACK_MIN_LEN`] or more numbers is stored as bare numbers
//!   ([`Packed`], 8 bytes an element; `FPHA` types 4 or 2) and read exactly as written. Its
//!   elements are [`Node::Num`] (numbers by value) where a general array's are [`Node::Ref`];
//!   a [`Node`] dereferences to [`Value`]. `get_mut`, `iter_mut` and `as_array_mut` turn a packed
//!   array into a general one first; `set_num`, `push`/`insert` of numbers, `remove`, `pop`,
//!   `retain_range` keep it packed. `pack()`/`unpack()` convert explicitly; `is_packed()`.
//!   [`Value::parse_fpha`] parses `JSON.SET … FPHA` input ([`FpType`]).
//! - Objects (on `Value`): `obj_len() -> Option<usize>`, `obj_get(k)`, `obj_get_mut(k)`,
//!   `obj_insert(k, v) -> Result<Option<old>, Value>` (replace in place or append),
//!   `obj_remove(k)` (the last entry takes its place, as in RedisJSON), `obj_iter()` / `obj_iter_mut()` -> `(&str, &Value)`
//!   in insertion order, `obj_keys()`. Or `as_object()/as_object_mut()` -> [`Object`]
//!   (`get_index(i)` (O(i) below 33 keys), `position(k)`, `remove_index(i)`, `values()`, …).
//! - `take()` moves a value out leaving `null`.
//! - `Clone`, `Debug`/`Display` (compact JSON), `PartialEq`: deep and type-strict
//!   (`1 != 1.0`; `Value::from(1u64) == Value::from(1i64)`; object key order ignored).
//!
//! # Paths and ops
//!
//! - [`path::JsonPath`]: `parse(&str)` (legacy or JSONPath; errors are [`path::PathError`]
//!   with RedisJSON's text), `is_legacy`, `is_static`, `is_root`, `converted`, `original`,
//!   `select`, `first`, `select_locations`, `select_located` (matches are [`Node`]s). See the
//!   [`path`] module doc.
//! - [`ops`]: every JSON.* write/read semantics as pure functions (`ops::set::set`,
//!   `ops::set::merge`, `ops::del::del`, `ops::num::num_op`, `ops::string::*`, `ops::array::*`,
//!   `ops::object::*`, `ops::clear::clear`, `ops::toggle::toggle`) returning per-match results
//!   and [`ops::OpError`]s with RedisJSON's exact texts. See the [`ops`] module doc for the
//!   reply conventions (legacy vs `$`, `changed`).
#![warn(missing_docs)]

pub mod bson;
pub mod error;
pub mod limits;
pub mod ops;
pub mod path;
pub mod value;

pub use error::{ErrorCode, ParseError};
pub use value::{
    Array, ArrayRef, Elems, Format, FpType, Kind, Node, Num, Object, Packed, Value, PACK_MIN_LEN,
};
