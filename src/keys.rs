//! Opening keys that hold JSON documents, and the write path's epilogue.
//!
//! Write order for every JSON command (RedisJSON's): mutate the value, then
//! `notify_keyspace_event(MODULE, "json.<cmd>")`, then hand the key to the search indexer, then
//! `replicate_verbatim`, and only when something changed. The indexer is called directly rather than
//! through a subscription to our own module events: the same entry point the keyspace events use,
//! without a second trip through Redis's notification machinery on every write.

use std::ffi::CStr;

use json::Value;
use redis_module::key::{RedisKey, RedisKeyWritable};
use redis_module::{raw, Context, NotifyEvent, RedisString};

use crate::error::Error;
use crate::types::JSON_TYPE;

/// Redis's text for a key of another type (the FT.SUG* commands answer it, as RediSearch does).
pub const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";
/// RedisJSON 2.8.3's text (redismodule-rs's) when a JSON command meets a key of any other type
/// (string, hash, list, set, sorted set, stream or another module's), for every JSON command and
/// both protocols, measured against rejson.so.
pub const NOT_JSON: &str = "Existing key has wrong Redis type";
/// redismodule-rs's text for a missing key where a write needs one.
pub const NO_KEY: &str = "ERR could not perform this operation on a key that doesn't exist";

/// The document at `key`, if the key exists and holds JSON.
pub fn read(key: &RedisKey) -> Result<Option<&Value>, Error> {
    match key.key_type() {
        raw::KeyType::Empty => Ok(None),
        raw::KeyType::Module => key.get_value::<Value>(&JSON_TYPE).map_err(|_| Error::msg(NOT_JSON)),
        _ => Err(Error::msg(NOT_JSON)),
    }
}

/// Opens `name` for reading.
pub fn open(ctx: &Context, name: &RedisString) -> RedisKey {
    ctx.open_key(name)
}

/// A key opened for writing.
pub struct JsonKey<'c> {
    ctx: &'c Context,
    name: &'c RedisString,
    key: RedisKeyWritable,
}

impl<'c> JsonKey<'c> {
    /// Opens `name` for writing.
    pub fn open(ctx: &'c Context, name: &'c RedisString) -> JsonKey<'c> {
        JsonKey { ctx, name, key: ctx.open_key_writable(name) }
    }

    /// The document, if the key exists and holds JSON; `Existing key has wrong Redis type` for another type.
    pub fn value(&mut self) -> Result<Option<&mut Value>, Error> {
        match self.key.key_type() {
            raw::KeyType::Empty => Ok(None),
            raw::KeyType::Module => {
                let doc = self.key.get_value::<Value>(&JSON_TYPE).map_err(|_| Error::msg(NOT_JSON))?;
                // Whoever asks for the document mutably may change it: its cached text goes first.
                if let Some(d) = &doc {
                    crate::text_cache::forget(&**d);
                }
                Ok(doc)
            }
            _ => Err(Error::msg(NOT_JSON)),
        }
    }

    /// The document, or RedisJSON's error for a missing key.
    pub fn existing(&mut self) -> Result<&mut Value, Error> {
        self.value()?.ok_or_else(|| Error::msg(NO_KEY))
    }

    /// Stores `value` as the key's document: in place when the key holds JSON already (keeps the TTL),
    /// as a new key otherwise.
    pub fn put(&mut self, value: Value) -> Result<(), Error> {
        if let Some(doc) = self.value()? {
            *doc = value;
            return Ok(());
        }
        self.key.set_value(&JSON_TYPE, value).map_err(|e| Error::msg(format!("ERR {e}")))
    }

    /// Deletes the key.
    pub fn delete(&mut self) -> Result<(), Error> {
        self.key.delete().map(|_| ()).map_err(|e| Error::msg(format!("ERR {e}")))
    }

    /// Announces a change: keyspace event `event` (class module) and verbatim replication.
    pub fn changed(&self, event: &CStr) {
        changed(self.ctx, event, self.name);
    }

    /// Like [`Self::changed`], for a write that landed at `path` of the JSON document.
    pub fn changed_at(&self, event: &CStr, path: &json::path::JsonPath) {
        changed_at(self.ctx, event, self.name, Some(path));
    }
}

/// Announces a change to `name`: keyspace event (class module) and the search indexer, then
/// verbatim replication.
pub fn changed(ctx: &Context, event: &CStr, name: &RedisString) {
    changed_at(ctx, event, name, None);
}

/// Like [`changed`], for a write that landed at `path` of the JSON document (None: anywhere).
pub fn changed_at(ctx: &Context, event: &CStr, name: &RedisString, path: Option<&json::path::JsonPath>) {
    notify_written(ctx, event, name, path);
    ctx.replicate_verbatim();
}

/// Keyspace event `event` (class module) for `name`, and the search indexer.
pub fn notify(ctx: &Context, event: &CStr, name: &RedisString) {
    notify_written(ctx, event, name, None);
}

/// Like [`notify`], for a write that landed at `path` of the JSON document (None: anywhere):
/// the indexer keeps the fields the write cannot have changed.
pub fn notify_written(ctx: &Context, event: &CStr, name: &RedisString, path: Option<&json::path::JsonPath>) {
    notify_event(ctx, event, name);
    crate::events::key_written(ctx, name.as_slice(), path);
}

/// The keyspace event `event` (class module) for `name` alone; the caller tells the indexer.
pub fn notify_event(ctx: &Context, event: &CStr, name: &RedisString) {
    // Straight to the API with the event's static C string (redis-module's helper allocates a
    // CString per call).
    // SAFETY: 1. the API table is filled by Init and never changes. 2. `ctx` is the live context of
    // this call, `event` is NUL-terminated and `name.inner` a live string, all for the call's length.
    unsafe {
        if let Some(notify) = raw::RedisModule_NotifyKeyspaceEvent {
            notify(ctx.ctx, NotifyEvent::MODULE.bits(), event.as_ptr(), name.inner);
        }
    }
}
