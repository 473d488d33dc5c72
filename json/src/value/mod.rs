//! [`Value`]: the in-memory JSON document tree, 16 bytes per node.
//!
//! Scalars and strings of up to 14 bytes live inline; longer strings, arrays
//! and objects are one thin heap block each (see [`string`], [`array`],
//! [`object`]). Long strings and objects' key lists (`shape`) are interned
//! process-wide and shared by every value holding equal content (`intern`).
//! Integers keep their type: `i64` when they fit, else `u64`, and floats are
//! `f64`. Arrays of numbers are stored packed ([`Packed`], 8 bytes an element
//! or less); their elements are read as [`Node`]s (see [`node`]).

mod array;
mod array_api;
mod eq;
mod fpha;
mod intern;
mod node;
mod object;
mod packed;
mod parse;
mod prefetch;
mod scan;
mod serialize;
mod shape;
mod string;

use std::fmt;

pub use array::Array;
pub use fpha::FpType;
pub use node::{ArrayRef, Elems, Node};
pub use object::{Iter as ObjIter, IterMut as ObjIterMut, Keys as ObjKeys, Object};
pub use packed::{Packed, PACK_MIN_LEN};
pub use serialize::Format;
use string::{HeapStr, InlineStr};

/// The JSON type of a [`Value`], as RedisJSON's `JSON.TYPE` distinguishes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `null`
    Null,
    /// `true` / `false`
    Bool,
    /// A number without fraction or exponent that fits `i64` or `u64`.
    Integer,
    /// Any other number (`f64`).
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

/// A JSON number in its stored representation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// A signed integer.
    I64(i64),
    /// An unsigned integer above `i64::MAX`.
    U64(u64),
    /// A floating point number.
    F64(f64),
}

impl Num {
    /// The number as `f64` (possibly rounded for large integers).
    pub fn as_f64(self) -> f64 {
        match self {
            Num::I64(i) => i as f64,
            Num::U64(u) => u as f64,
            Num::F64(f) => f,
        }
    }
}

/// A JSON value. `size_of::<Value>() == 16`.
#[derive(Clone)]
pub struct Value(Repr);

#[derive(Clone)]
enum Repr {
    Null,
    Bool(bool),
    I64(i64),
    /// Only for values above `i64::MAX` (constructors normalise).
    U64(u64),
    F64(f64),
    /// Strings of up to `string::INLINE_CAP` bytes.
    InlineStr(InlineStr),
    /// Longer strings.
    HeapStr(HeapStr),
    Array(Array),
    /// An array of numbers in packed storage.
    Packed(Packed),
    Object(Object),
}

const _: () = assert!(std::mem::size_of::<Value>() == 16);

impl Value {
    /// `null`.
    #[inline]
    pub const fn null() -> Value {
        Value(Repr::Null)
    }

    /// An array owning `items` (exact capacity), packed when they are [`PACK_MIN_LEN`] or
    /// more numbers that packed storage holds exactly.
    pub fn array(items: Vec<Value>) -> Value {
        if items.len() >= PACK_MIN_LEN {
            if let Some(p) = Packed::from_values(&items) {
                return Value(Repr::Packed(p));
            }
        }
        Value(Repr::Array(Array::from_vec(items)))
    }

    /// An array owning `items`, in general storage whatever they are.
    pub fn general_array(items: Vec<Value>) -> Value {
        Value(Repr::Array(Array::from_vec(items)))
    }

    /// An object from `pairs` in order; for a duplicate key the later value wins
    /// and keeps the first key's position.
    pub fn object(pairs: Vec<(String, Value)>) -> Value {
        let (keys, values): (Vec<String>, Vec<Value>) = pairs.into_iter().unzip();
        Value(Repr::Object(Object::from_pairs(keys.iter().map(String::as_str).zip(values))))
    }

    /// An empty array.
    #[inline]
    pub const fn empty_array() -> Value {
        Value(Repr::Array(Array::new()))
    }

    /// An empty object.
    #[inline]
    pub const fn empty_object() -> Value {
        Value(Repr::Object(Object::new()))
    }

    /// The JSON type.
    #[inline]
    pub fn kind(&self) -> Kind {
        match self.0 {
            Repr::Null => Kind::Null,
            Repr::Bool(_) => Kind::Bool,
            Repr::I64(_) | Repr::U64(_) => Kind::Integer,
            Repr::F64(_) => Kind::Number,
            Repr::InlineStr(_) | Repr::HeapStr(_) => Kind::String,
            Repr::Array(_) | Repr::Packed(_) => Kind::Array,
            Repr::Object(_) => Kind::Object,
        }
    }

    /// RedisJSON's `JSON.TYPE` name: `null`, `boolean`, `integer`, `number`, `string`, `array` or `object`.
    pub fn type_name(&self) -> &'static str {
        match self.kind() {
            Kind::Null => "null",
            Kind::Bool => "boolean",
            Kind::Integer => "integer",
            Kind::Number => "number",
            Kind::String => "string",
            Kind::Array => "array",
            Kind::Object => "object",
        }
    }

    /// Bytes this value owns: its 16 inline bytes plus every heap block below it
    /// (exact allocation sizes requested from the allocator).
    ///
    /// Interned blocks (long strings, object key lists) are shared by every value
    /// holding equal content. Each distinct block below this value is counted
    /// once, in full: the figure is what the value would take if it were alone
    /// in the process, so it is stable (it does not depend on what other
    /// documents exist), and summing it over documents gives an upper bound.
    /// The intern tables themselves (about 9 bytes per distinct block) are not counted.
    pub fn mem_usage(&self) -> usize {
        std::mem::size_of::<Value>() + self.heap_size(&mut intern::Counted::default())
    }

    /// Live interned blocks of the process, for leak tests: (distinct long strings,
    /// bytes of the string table, distinct object shapes, bytes of the shape table).
    #[doc(hidden)]
    pub fn interned_stats() -> (usize, usize, usize, usize) {
        let (strings, string_table) = string::table_stats();
        let (shapes, shape_table) = shape::table_stats();
        (strings, string_table, shapes, shape_table)
    }

    /// Object key-list blocks allocated or grown so far in this process (for
    /// tests that check growth is amortised).
    #[doc(hidden)]
    pub fn shape_block_allocs() -> usize {
        shape::block_allocs()
    }

    /// Heap bytes below this value (0 for scalars and short strings); shared
    /// blocks already in `counted` add nothing.
    pub(crate) fn heap_size(&self, counted: &mut intern::Counted) -> usize {
        match &self.0 {
            Repr::HeapStr(s) => s.heap_size(counted),
            Repr::Array(a) => a.heap_size(counted),
            Repr::Packed(p) => p.heap_size(),
            Repr::Object(o) => o.heap_size(counted),
            _ => 0,
        }
    }

    // ----- type tests -----

    /// True for `null`.
    #[inline]
    pub fn is_null(&self) -> bool {
        matches!(self.0, Repr::Null)
    }
    /// True for `true`/`false`.
    #[inline]
    pub fn is_bool(&self) -> bool {
        matches!(self.0, Repr::Bool(_))
    }
    /// True for any number (integer or float).
    #[inline]
    pub fn is_number(&self) -> bool {
        matches!(self.0, Repr::I64(_) | Repr::U64(_) | Repr::F64(_))
    }
    /// True for integers (`i64` or `u64`).
    #[inline]
    pub fn is_integer(&self) -> bool {
        matches!(self.0, Repr::I64(_) | Repr::U64(_))
    }
    /// True for floats.
    #[inline]
    pub fn is_f64(&self) -> bool {
        matches!(self.0, Repr::F64(_))
    }
    /// True for strings.
    #[inline]
    pub fn is_string(&self) -> bool {
        matches!(self.0, Repr::InlineStr(_) | Repr::HeapStr(_))
    }
    /// True for arrays.
    #[inline]
    pub fn is_array(&self) -> bool {
        matches!(self.0, Repr::Array(_) | Repr::Packed(_))
    }
    /// True for objects.
    #[inline]
    pub fn is_object(&self) -> bool {
        matches!(self.0, Repr::Object(_))
    }

    // ----- scalar accessors -----

    /// The boolean, if this is one.
    #[inline]
    pub fn as_bool(&self) -> Option<bool> {
        match self.0 {
            Repr::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The integer as `i64`, if this is an integer that fits.
    #[inline]
    pub fn as_i64(&self) -> Option<i64> {
        match self.0 {
            Repr::I64(i) => Some(i),
            _ => None,
        }
    }

    /// The integer as `u64`, if this is a non-negative integer.
    #[inline]
    pub fn as_u64(&self) -> Option<u64> {
        match self.0 {
            Repr::I64(i) => u64::try_from(i).ok(),
            Repr::U64(u) => Some(u),
            _ => None,
        }
    }

    /// Any number as `f64` (integers converted).
    #[inline]
    pub fn as_f64(&self) -> Option<f64> {
        self.as_num().map(Num::as_f64)
    }

    /// The number in its stored representation.
    #[inline]
    pub fn as_num(&self) -> Option<Num> {
        match self.0 {
            Repr::I64(i) => Some(Num::I64(i)),
            Repr::U64(u) => Some(Num::U64(u)),
            Repr::F64(f) => Some(Num::F64(f)),
            _ => None,
        }
    }

    /// The string, if this is one.
    #[inline]
    pub fn as_str(&self) -> Option<&str> {
        match &self.0 {
            Repr::InlineStr(s) => Some(s.as_str()),
            Repr::HeapStr(s) => Some(s.as_str()),
            _ => None,
        }
    }

    /// String length in bytes (`JSON.STRLEN`), if this is a string.
    #[inline]
    pub fn str_len_bytes(&self) -> Option<usize> {
        self.as_str().map(str::len)
    }

    /// Appends `s` to this string; returns false (and does nothing) if this is not a string.
    pub fn str_append(&mut self, s: &str) -> bool {
        match &mut self.0 {
            Repr::HeapStr(h) => {
                h.append(s);
                true
            }
            Repr::InlineStr(i) => {
                let mut joined = String::with_capacity(i.as_str().len() + s.len());
                joined.push_str(i.as_str());
                joined.push_str(s);
                *self = Value::from(joined.as_str());
                true
            }
            _ => false,
        }
    }

    // ----- objects -----

    /// The object, if this is one.
    #[inline]
    pub fn as_object(&self) -> Option<&Object> {
        match &self.0 {
            Repr::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The object mutably, if this is one.
    #[inline]
    pub fn as_object_mut(&mut self) -> Option<&mut Object> {
        match &mut self.0 {
            Repr::Object(o) => Some(o),
            _ => None,
        }
    }

    /// Number of keys, if this is an object.
    #[inline]
    pub fn obj_len(&self) -> Option<usize> {
        self.as_object().map(Object::len)
    }

    /// The value of `key` (None if not an object or absent).
    #[inline]
    pub fn obj_get(&self, key: &str) -> Option<&Value> {
        self.as_object()?.get(key)
    }

    /// The value of `key`, mutably.
    #[inline]
    pub fn obj_get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.as_object_mut()?.get_mut(key)
    }

    /// Sets `key`: replaces in place (returning `Ok(Some(old))`) or appends (`Ok(None)`);
    /// gives `v` back as `Err(v)` if this is not an object.
    pub fn obj_insert(&mut self, key: &str, v: Value) -> Result<Option<Value>, Value> {
        match self.as_object_mut() {
            Some(o) => Ok(o.insert(key, v)),
            None => Err(v),
        }
    }

    /// Removes `key`; the last entry takes its place (RedisJSON's order, see
    /// [`Object::remove_index`]).
    pub fn obj_remove(&mut self, key: &str) -> Option<Value> {
        self.as_object_mut()?.remove(key)
    }

    /// Iterates over `(key, value)` in insertion order (empty for non-objects).
    #[inline]
    pub fn obj_iter(&self) -> ObjIter<'_> {
        match self.as_object() {
            Some(o) => o.iter(),
            None => ObjIter::empty(),
        }
    }

    /// Iterates over `(key, mutable value)` in insertion order (empty for non-objects).
    #[inline]
    pub fn obj_iter_mut(&mut self) -> ObjIterMut<'_> {
        match self.as_object_mut() {
            Some(o) => o.iter_mut(),
            None => ObjIterMut::empty(),
        }
    }

    /// The keys in insertion order (empty for non-objects).
    #[inline]
    pub fn obj_keys(&self) -> ObjKeys<'_> {
        match self.as_object() {
            Some(o) => o.keys(),
            None => ObjKeys::empty(),
        }
    }

    /// Takes the value out, leaving `null`.
    #[inline]
    pub fn take(&mut self) -> Value {
        std::mem::take(self)
    }
}

impl Default for Value {
    fn default() -> Self {
        Value::null()
    }
}

impl From<bool> for Value {
    #[inline]
    fn from(b: bool) -> Self {
        Value(Repr::Bool(b))
    }
}

impl From<i64> for Value {
    #[inline]
    fn from(i: i64) -> Self {
        Value(Repr::I64(i))
    }
}

impl From<u64> for Value {
    /// Stored as `i64` when it fits, so `Value::from(1u64) == Value::from(1i64)`.
    #[inline]
    fn from(u: u64) -> Self {
        match i64::try_from(u) {
            Ok(i) => Value(Repr::I64(i)),
            Err(_) => Value(Repr::U64(u)),
        }
    }
}

impl From<f64> for Value {
    #[inline]
    fn from(f: f64) -> Self {
        Value(Repr::F64(f))
    }
}

impl From<Num> for Value {
    #[inline]
    fn from(n: Num) -> Self {
        match n {
            Num::I64(i) => Value::from(i),
            Num::U64(u) => Value::from(u),
            Num::F64(f) => Value::from(f),
        }
    }
}

impl From<&str> for Value {
    #[inline]
    fn from(s: &str) -> Self {
        match InlineStr::new(s) {
            Some(i) => Value(Repr::InlineStr(i)),
            None => Value(Repr::HeapStr(HeapStr::new(s))),
        }
    }
}

impl Value {
    /// A string value from the parser, which knows when `s` is plain (no byte
    /// needs escaping): `plain == true` must be right; `false` means "unknown".
    #[inline]
    pub(crate) fn from_parsed_str(s: &str, plain: bool) -> Value {
        match InlineStr::new(s) {
            Some(i) => Value(Repr::InlineStr(i)),
            None => Value(Repr::HeapStr(HeapStr::with_plain(s, plain.then_some(true)))),
        }
    }
}

impl From<String> for Value {
    #[inline]
    fn from(s: String) -> Self {
        Value::from(s.as_str())
    }
}

impl From<Array> for Value {
    #[inline]
    fn from(a: Array) -> Self {
        Value(Repr::Array(a))
    }
}

impl From<Packed> for Value {
    #[inline]
    fn from(p: Packed) -> Self {
        Value(Repr::Packed(p))
    }
}

impl From<Object> for Value {
    #[inline]
    fn from(o: Object) -> Self {
        Value(Repr::Object(o))
    }
}

impl fmt::Debug for Value {
    /// The compact JSON text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

impl fmt::Display for Value {
    /// The compact JSON text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}
