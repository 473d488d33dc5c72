//! A key opened for reading through the module API itself, for the document reads of the
//! indexer and of query results: redis-module's `RedisKey::hash_get` builds a `CString` and
//! two vectors for every field it reads, and its scan cursor needs a second opening of the key
//! after the type check.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use json::Value;
use redis_module::{raw, Context, RedisString};

use crate::types::JSON_TYPE;

/// A key of the selected database, open for reading; closed when dropped.
pub struct ReadKey {
    ctx: *mut raw::RedisModuleCtx,
    key: *mut raw::RedisModuleKey,
    /// The key's type as the API gives it (`REDISMODULE_KEYTYPE_*`), read when it was
    /// opened: nothing runs while the key is held.
    kind: c_int,
}

impl ReadKey {
    /// Opens `name` for reading (an absent key reads as [`raw::KeyType::Empty`]).
    pub fn open(ctx: &Context, name: &[u8]) -> ReadKey {
        Self::open_mode(ctx, name, raw::REDISMODULE_READ as c_int)
    }

    /// Opens `name` for reading without deleting it if it is expired (an expired key reads as
    /// empty and stays for the next access to delete, with its events); None when the host
    /// cannot (Redis before 7.2).
    pub fn open_keeping_expired(ctx: &Context, name: &[u8]) -> Option<ReadKey> {
        static MODE: std::sync::OnceLock<Option<c_int>> = std::sync::OnceLock::new();
        let mode = MODE.get_or_init(|| {
            let no_expire = raw::REDISMODULE_OPEN_KEY_NOEXPIRE as c_int;
            // SAFETY: the API table is filled by Init; the call only reads a constant.
            let all = unsafe { raw::RedisModule_GetOpenKeyModesAll.map_or(0, |f| f()) };
            (all & no_expire != 0).then_some(raw::REDISMODULE_READ as c_int | no_expire)
        });
        mode.map(|m| Self::open_mode(ctx, name, m))
    }

    fn open_mode(ctx: &Context, name: &[u8], mode: c_int) -> ReadKey {
        let name = RedisString::create_from_slice(ctx.ctx, name);
        // SAFETY: the API table is filled by Init; `ctx` is live and `name` a valid string
        // (the opened key keeps its own reference to it).
        let key = unsafe {
            raw::RedisModule_OpenKey.map_or(ptr::null_mut(), |open| open(ctx.ctx, name.inner, mode))
        };
        let empty = raw::REDISMODULE_KEYTYPE_EMPTY as c_int;
        let kind = if key.is_null() {
            empty
        } else {
            // SAFETY: the key was just opened.
            unsafe { raw::RedisModule_KeyType.map_or(empty, |t| t(key)) }
        };
        ReadKey { ctx: ctx.ctx, key, kind }
    }

    /// The key's type.
    pub fn key_type(&self) -> raw::KeyType {
        self.kind.into()
    }

    /// The JSON document the key holds, if it holds one.
    pub fn json(&self) -> Option<&Value> {
        if self.key_type() != raw::KeyType::Module {
            return None;
        }
        let ours = *JSON_TYPE.raw_type.borrow();
        // SAFETY: an open module key; its value is a `Value` when its type is JSON_TYPE (the
        // type this module registered and only ever stores `Value`s under).
        unsafe {
            let of = raw::RedisModule_ModuleTypeGetType?(self.key);
            if of.is_null() || of != ours {
                return None;
            }
            raw::RedisModule_ModuleTypeGetValue?(self.key).cast::<Value>().as_ref()
        }
    }

    /// The value of `field` when the key is a hash holding it.
    pub fn hash_get(&self, field: &[u8]) -> Option<RedisString> {
        if self.key_type() != raw::KeyType::Hash {
            return None;
        }
        let mut value: *mut raw::RedisModuleString = ptr::null_mut();
        // SAFETY: the API table is filled by Init and never changes afterwards.
        let get = unsafe { raw::RedisModule_HashGet }?;
        if field.contains(&0) {
            // Not a C string: the field as a module string.
            let name = RedisString::create_from_slice(self.ctx, field);
            // SAFETY: an open hash key; the flag says the next argument is a module string,
            // then a place for the value, then the terminating NULL.
            unsafe {
                get(
                    self.key,
                    raw::REDISMODULE_HASH_NONE as c_int,
                    name.inner,
                    &mut value,
                    ptr::null::<c_char>(),
                )
            };
        } else {
            thread_local! {
                static NAME: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
            }
            NAME.with(|n| {
                let mut n = n.borrow_mut();
                n.clear();
                n.extend_from_slice(field);
                n.push(0);
                // SAFETY: an open hash key; CFIELDS says the next argument is a NUL-terminated
                // field name (no NUL inside, checked above), then a place for the value, then
                // the terminating NULL.
                unsafe {
                    get(
                        self.key,
                        raw::REDISMODULE_HASH_CFIELDS as c_int,
                        n.as_ptr().cast::<c_char>(),
                        &mut value,
                        ptr::null::<c_char>(),
                    )
                };
                if n.capacity() > 1024 {
                    *n = Vec::new();
                }
            });
        }
        // The value is ours (no automatic memory): RedisString frees it.
        (!value.is_null()).then(|| RedisString::from_redis_module_string(self.ctx, value))
    }

    /// A hash's field/value pairs in RedisModule_ScanKey's order (for a hash kept as a
    /// table, SCAN's cursor order, not HGETALL's): the order RediSearch 2.10 loads them in.
    pub fn hash_pairs(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut out: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        if self.key_type() != raw::KeyType::Hash {
            return out;
        }
        unsafe extern "C" fn each(
            _key: *mut raw::RedisModuleKey,
            field: *mut raw::RedisModuleString,
            value: *mut raw::RedisModuleString,
            out: *mut c_void,
        ) {
            // SAFETY: `out` is the vector `hash_pairs` passed, alive and not otherwise borrowed
            // while ScanKey runs; the strings are Redis's for the duration of the call.
            unsafe {
                let out = &mut *out.cast::<Vec<(Vec<u8>, Vec<u8>)>>();
                out.push((bytes(field).to_vec(), bytes(value).to_vec()));
            }
        }
        // SAFETY: the API table is filled by Init; the cursor is created and destroyed here,
        // and the key is an open hash for the whole scan (nothing runs in between).
        unsafe {
            let (Some(create), Some(scan), Some(destroy)) = (
                raw::RedisModule_ScanCursorCreate,
                raw::RedisModule_ScanKey,
                raw::RedisModule_ScanCursorDestroy,
            ) else {
                return out;
            };
            let cursor = create();
            while scan(self.key, cursor, Some(each), (&mut out as *mut Vec<(Vec<u8>, Vec<u8>)>).cast()) != 0 {
            }
            destroy(cursor);
        }
        out
    }
}

/// The bytes of a module string (empty for a null one).
///
/// # Safety
/// `s` is null or a live module string, which outlives the slice.
unsafe fn bytes<'s>(s: *mut raw::RedisModuleString) -> &'s [u8] {
    if s.is_null() {
        return &[];
    }
    let mut len = 0usize;
    // SAFETY: a live module string (the caller's contract).
    unsafe {
        let Some(ptr_len) = raw::RedisModule_StringPtrLen else { return &[] };
        let p = ptr_len(s, &mut len);
        if p.is_null() {
            &[]
        } else {
            std::slice::from_raw_parts(p.cast::<u8>(), len)
        }
    }
}

impl Drop for ReadKey {
    fn drop(&mut self) {
        if !self.key.is_null() {
            // SAFETY: a key this value opened, closed once.
            unsafe {
                if let Some(close) = raw::RedisModule_CloseKey {
                    close(self.key);
                }
            }
        }
    }
}
