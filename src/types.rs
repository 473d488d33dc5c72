//! The `ReJSON-RL` data type: RDB save/load (RedisJSON 2.x encoding 3, and the 1.x node tree of
//! encoding 0), AOF rewrite, memory usage, copy and free.
//!
//! The name and encoding are RedisJSON's, so RDB files written by RedisJSON load here and files
//! written here load into RedisJSON 2.x.

use std::os::raw::{c_char, c_int, c_void};

use json::Value;
use redis_module::native_types::RedisType;
use redis_module::raw;

use crate::rdb::log_warning;

/// RedisJSON's module type name (exactly 9 characters, as Redis requires).
pub const TYPE_NAME: &str = "ReJSON-RL";
/// RedisJSON 2.x's encoding version: the document as one compact JSON string.
pub const ENCODING_VERSION: i32 = 3;

/// The JSON data type.
pub static JSON_TYPE: RedisType = RedisType::new(
    TYPE_NAME,
    ENCODING_VERSION,
    raw::RedisModuleTypeMethods {
        version: raw::REDISMODULE_TYPE_METHOD_VERSION as u64,
        rdb_load: Some(rdb_load),
        rdb_save: Some(rdb_save),
        aof_rewrite: Some(aof_rewrite),
        mem_usage: Some(mem_usage),
        digest: None,
        free: Some(free),
        aux_load: None,
        aux_save: None,
        aux_save2: None,
        aux_save_triggers: 0,
        free_effort: None,
        unlink: None,
        copy: Some(copy),
        defrag: None,
        copy2: None,
        free_effort2: None,
        mem_usage2: None,
        unlink2: None,
    },
);

/// The 1.x node tags of encoding 0.
mod v0 {
    pub const NULL: u64 = 0x1;
    pub const STRING: u64 = 0x2;
    pub const NUMBER: u64 = 0x4;
    pub const INTEGER: u64 = 0x8;
    pub const BOOLEAN: u64 = 0x10;
    pub const DICT: u64 = 0x20;
    pub const ARRAY: u64 = 0x40;
    pub const KEYVAL: u64 = 0x80;
    /// Upper bound on container lengths read from an encoding-0 stream, before allocating.
    pub const MAX_LEN: u64 = 1 << 24;
    /// Upper bound on nesting read from an encoding-0 stream (the reader recurses).
    pub const MAX_DEPTH: usize = 10_000;
}

fn load_v0(rdb: *mut raw::RedisModuleIO, depth: usize) -> Result<Value, String> {
    if depth > v0::MAX_DEPTH {
        return Err("document nested too deeply".into());
    }
    let io = |e: redis_module::error::Error| format!("{e}");
    let tag = raw::load_unsigned(rdb).map_err(io)?;
    Ok(match tag {
        v0::NULL => Value::null(),
        v0::BOOLEAN => {
            let b = raw::load_string_buffer(rdb).map_err(io)?;
            Value::from(b.as_ref().first() == Some(&b'1'))
        }
        v0::INTEGER => Value::from(raw::load_signed(rdb).map_err(io)?),
        v0::NUMBER => {
            let f = raw::load_double(rdb).map_err(io)?;
            if !f.is_finite() {
                return Err("non-finite number".into());
            }
            Value::from(f)
        }
        v0::STRING => {
            let b = raw::load_string_buffer(rdb).map_err(io)?;
            let s = std::str::from_utf8(b.as_ref()).map_err(|_| "string is not UTF-8".to_string())?;
            Value::from(s)
        }
        v0::DICT => {
            let len = raw::load_unsigned(rdb).map_err(io)?;
            if len > v0::MAX_LEN {
                return Err("dict too large".into());
            }
            let mut pairs = Vec::with_capacity(len as usize);
            for _ in 0..len {
                if raw::load_unsigned(rdb).map_err(io)? != v0::KEYVAL {
                    return Err("dict entry is not a key/value node".into());
                }
                let k = raw::load_string_buffer(rdb).map_err(io)?;
                let k = std::str::from_utf8(k.as_ref()).map_err(|_| "key is not UTF-8".to_string())?;
                let k = k.to_owned();
                pairs.push((k, load_v0(rdb, depth + 1)?));
            }
            Value::object(pairs)
        }
        v0::ARRAY => {
            let len = raw::load_unsigned(rdb).map_err(io)?;
            if len > v0::MAX_LEN {
                return Err("array too large".into());
            }
            let mut items = Vec::with_capacity(len as usize);
            for _ in 0..len {
                items.push(load_v0(rdb, depth + 1)?);
            }
            Value::array(items)
        }
        other => return Err(format!("unknown node type {other}")),
    })
}

fn load(rdb: *mut raw::RedisModuleIO, encver: c_int) -> Result<Value, String> {
    match encver {
        0 => load_v0(rdb, 0),
        2 | 3 => {
            let text = raw::load_string_buffer(rdb).map_err(|e| format!("{e}"))?;
            Value::parse_unlimited(text.as_ref()).map_err(|e| e.to_string())
        }
        v => Err(format!("Can't load old RedisJSON RDB: {v}")),
    }
}

unsafe extern "C" fn rdb_load(rdb: *mut raw::RedisModuleIO, encver: c_int) -> *mut c_void {
    let loaded = std::panic::catch_unwind(|| load(rdb, encver));
    match loaded {
        Ok(Ok(value)) => Box::into_raw(Box::new(value)).cast::<c_void>(),
        Ok(Err(e)) => {
            log_warning(&format!("folio: cannot load a JSON document from RDB: {e}"));
            std::ptr::null_mut()
        }
        Err(_) => {
            log_warning("folio: panic while loading a JSON document from RDB");
            std::ptr::null_mut()
        }
    }
}

unsafe extern "C" fn rdb_save(rdb: *mut raw::RedisModuleIO, value: *mut c_void) {
    // SAFETY: Redis hands back the pointer rdb_load/set_value stored: a live Box<Value>.
    let value = unsafe { &*value.cast::<Value>() };
    raw::save_slice(rdb, value.to_json().as_bytes());
}

unsafe extern "C" fn aof_rewrite(
    aof: *mut raw::RedisModuleIO,
    key: *mut raw::RedisModuleString,
    value: *mut c_void,
) {
    // SAFETY: as in rdb_save.
    let value = unsafe { &*value.cast::<Value>() };
    let doc = value.to_json();
    // SAFETY: EmitAOF is variadic; "scb" takes a RedisModuleString*, a C string and a buffer with
    // its length, which is what follows. The buffers live until the call returns.
    unsafe {
        if let Some(emit) = raw::RedisModule_EmitAOF {
            emit(
                aof,
                c"JSON.SET".as_ptr(),
                c"scb".as_ptr(),
                key,
                c"$".as_ptr(),
                doc.as_ptr().cast::<c_char>(),
                doc.len(),
            );
        }
    }
}

unsafe extern "C" fn mem_usage(value: *const c_void) -> usize {
    // SAFETY: as in rdb_save.
    let value = unsafe { &*value.cast::<Value>() };
    value.mem_usage()
}

unsafe extern "C" fn free(value: *mut c_void) {
    // Its address may be reused by the next document: the cached text goes first.
    crate::text_cache::forget(value.cast::<Value>());
    // SAFETY: the pointer came from Box::into_raw of a Box<Value> and Redis frees it once.
    drop(unsafe { Box::from_raw(value.cast::<Value>()) });
}

unsafe extern "C" fn copy(
    _from: *mut raw::RedisModuleString,
    _to: *mut raw::RedisModuleString,
    value: *const c_void,
) -> *mut c_void {
    // SAFETY: as in rdb_save.
    let value = unsafe { &*value.cast::<Value>() };
    Box::into_raw(Box::new(value.clone())).cast::<c_void>()
}
