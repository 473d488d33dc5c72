//! JSON text to [`Value`] in one pass: a serde visitor driven by serde_json's
//! deserializer, so error texts are serde_json's (`expected value at line 1
//! column 1`), as RedisJSON replies them.
//!
//! Items of arrays and members of objects collect on shared scratch stacks and
//! are moved into an exact-size block when their container closes. Text after
//! the value is rejected (`trailing characters`); duplicate keys: last wins.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::object::encoded_len;
use super::{Array, Object, Value};
use crate::error::ParseError;
use crate::limits::{MAX_DEPTH, MAX_LOAD_DEPTH};

impl Value {
    /// Parses command input (`JSON.SET` etc.): nesting limited to [`MAX_DEPTH`].
    pub fn parse(input: &[u8]) -> Result<Value, ParseError> {
        parse_with_limit(input, MAX_DEPTH)
    }

    /// Parses a stored document (RDB load): nesting up to [`MAX_LOAD_DEPTH`].
    pub fn parse_unlimited(input: &[u8]) -> Result<Value, ParseError> {
        parse_with_limit(input, MAX_LOAD_DEPTH)
    }
}

fn parse_with_limit(input: &[u8], max_depth: usize) -> Result<Value, ParseError> {
    let mut de = serde_json::Deserializer::from_slice(input);
    let mut scratch = Scratch {
        values: Vec::new(),
        keys: String::new(),
        entries: Vec::new(),
        depth: 0,
        max_depth,
    };
    let result = if max_depth == MAX_DEPTH {
        // serde_json's own limit is exactly RedisJSON's (same message and position).
        ValueSeed {
            scratch: &mut scratch,
        }
        .deserialize(&mut de)
    } else {
        de.disable_recursion_limit();
        ValueSeed {
            scratch: &mut scratch,
        }
        .deserialize(&mut de)
    };
    let value = result.map_err(|e| ParseError::new(e.to_string()))?;
    de.end().map_err(|e| ParseError::new(e.to_string()))?;
    Ok(value)
}

/// Shared stacks of finished children of the containers being parsed.
struct Scratch {
    values: Vec<Value>,
    /// Keys of the objects being parsed, back to back.
    keys: String,
    /// Members of the objects being parsed: (end of the key in `keys`, value).
    entries: Vec<(usize, Value)>,
    depth: usize,
    max_depth: usize,
}

struct ValueSeed<'s> {
    scratch: &'s mut Scratch,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl ValueSeed<'_> {
    fn enter<E: de::Error>(&mut self) -> Result<(), E> {
        self.scratch.depth += 1;
        if self.scratch.depth >= self.scratch.max_depth {
            return Err(E::custom("recursion limit exceeded"));
        }
        Ok(())
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    #[inline]
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::null())
    }

    #[inline]
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::from(b))
    }

    #[inline]
    fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
        Ok(Value::from(i))
    }

    #[inline]
    fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
        Ok(Value::from(u))
    }

    #[inline]
    fn visit_f64<E>(self, f: f64) -> Result<Value, E> {
        Ok(Value::from(f))
    }

    #[inline]
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::from(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Value, A::Error> {
        self.enter()?;
        let start = self.scratch.values.len();
        while let Some(v) = seq.next_element_seed(ValueSeed {
            scratch: &mut *self.scratch,
        })? {
            self.scratch.values.push(v);
        }
        let mut a = Array::new();
        a.append_from_vec(&mut self.scratch.values, start);
        self.scratch.depth -= 1;
        Ok(Value::from(a))
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Value, A::Error> {
        self.enter()?;
        let start = self.scratch.entries.len();
        let keys_start = self.scratch.keys.len();
        while map
            .next_key_seed(KeySeed {
                keys: &mut self.scratch.keys,
            })?
            .is_some()
        {
            let end = self.scratch.keys.len();
            let v = map.next_value_seed(ValueSeed {
                scratch: &mut *self.scratch,
            })?;
            self.scratch.entries.push((end, v));
        }
        let Scratch { keys, entries, .. } = &mut *self.scratch;
        let mut key_bytes = 0;
        let mut from = keys_start;
        for (end, _) in &entries[start..] {
            key_bytes += encoded_len(keys.get(from..*end).unwrap_or_default());
            from = *end;
        }
        let mut o = Object::with_capacity(entries.len() - start, key_bytes);
        let mut from = keys_start;
        for (end, v) in entries.drain(start..) {
            o.insert(keys.get(from..end).unwrap_or_default(), v);
            from = end;
        }
        keys.truncate(keys_start);
        self.scratch.depth -= 1;
        Ok(Value::from(o))
    }
}

/// Appends the key text to the scratch `keys`.
struct KeySeed<'s> {
    keys: &'s mut String,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = ();

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    #[inline]
    fn visit_str<E>(self, s: &str) -> Result<(), E> {
        self.keys.push_str(s);
        Ok(())
    }
}
