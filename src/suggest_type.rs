//! The `trietype0` data type: a suggestion dictionary as a Redis key (FT.SUGADD and friends).
//!
//! Name and encoding are RediSearch's, and so is the RDB format (`TrieType_GenericSave`): the
//! entry count, then per entry the string with a trailing NUL, the score as a double and (from
//! encoding 1) the payload with a trailing NUL, or a lone NUL for none. RDB files and DUMP
//! payloads move between RediSearch and folio both ways. Unlike RediSearch, whose AOF rewrite is
//! disabled for this type (the dictionary is lost from a pure-AOF rewrite), an AOF rewrite emits
//! one `FT.SUGADD key string score [PAYLOAD p]` per entry; and COPY works.

use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_void};

use redis_module::native_types::RedisType;
use redis_module::raw;
use search::suggest::Suggestions;

/// RediSearch's type name (exactly 9 characters, as Redis requires).
pub const TYPE_NAME: &str = "trietype0";
/// RediSearch's TRIE_ENCVER_CURRENT: entries carry payloads.
pub const ENCODING_VERSION: i32 = 1;
/// TRIE_ENCVER_NOPAYLOADS: entries without payloads.
const ENCODING_NO_PAYLOADS: i32 = 0;

/// The suggestion dictionary data type.
pub static SUGGEST_TYPE: RedisType = RedisType::new(
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

/// A buffer saved with RediSearch's trailing NUL, read back without it (RediSearch drops the
/// last byte whatever it is).
fn without_nul(b: &[u8]) -> &[u8] {
    b.split_last().map_or(&[][..], |(_, rest)| rest)
}

fn load(rdb: *mut raw::RedisModuleIO, encver: c_int) -> Result<Suggestions, String> {
    if !(ENCODING_NO_PAYLOADS..=ENCODING_VERSION).contains(&encver) {
        return Err(format!("unknown trietype0 encoding {encver}"));
    }
    let io = |e: redis_module::error::Error| format!("{e}");
    let mut dict = Suggestions::new();
    let count = raw::load_unsigned(rdb).map_err(io)?;
    for _ in 0..count {
        let s = raw::load_string_buffer(rdb).map_err(io)?;
        let score = raw::load_double(rdb).map_err(io)?;
        let payload = if encver > ENCODING_NO_PAYLOADS {
            Some(raw::load_string_buffer(rdb).map_err(io)?)
        } else {
            None
        };
        let p = payload.as_ref().map(|p| without_nul(p.as_ref())).filter(|p| !p.is_empty());
        dict.add(without_nul(s.as_ref()), score, false, p);
    }
    Ok(dict)
}

fn log_warning(msg: &str) {
    let level = CString::new("warning").unwrap_or_default();
    let text = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    // SAFETY: both pointers are valid NUL-terminated strings for the duration of the call; a null
    // context makes RedisModule_Log log under the module-less name, which Redis allows.
    unsafe {
        if let Some(log) = raw::RedisModule_Log {
            log(std::ptr::null_mut(), level.as_ptr(), c"%s".as_ptr(), text.as_ptr());
        }
    }
}

unsafe extern "C" fn rdb_load(rdb: *mut raw::RedisModuleIO, encver: c_int) -> *mut c_void {
    match std::panic::catch_unwind(|| load(rdb, encver)) {
        Ok(Ok(dict)) => Box::into_raw(Box::new(dict)).cast::<c_void>(),
        Ok(Err(e)) => {
            log_warning(&format!("folio: cannot load a suggestion dictionary from RDB: {e}"));
            std::ptr::null_mut()
        }
        Err(_) => {
            log_warning("folio: panic while loading a suggestion dictionary from RDB");
            std::ptr::null_mut()
        }
    }
}

unsafe extern "C" fn rdb_save(rdb: *mut raw::RedisModuleIO, value: *mut c_void) {
    // SAFETY: Redis hands back the pointer rdb_load/set_value stored: a live Box<Suggestions>.
    let dict = unsafe { &*value.cast::<Suggestions>() };
    let mut count = 0u64;
    dict.for_each(|_, _, _| count += 1);
    raw::save_unsigned(rdb, count);
    let mut buf = Vec::new();
    dict.for_each(|s, score, payload| {
        buf.clear();
        buf.extend_from_slice(s);
        buf.push(0);
        raw::save_slice(rdb, &buf);
        raw::save_double(rdb, f64::from(score));
        buf.clear();
        buf.extend_from_slice(payload.unwrap_or_default());
        buf.push(0);
        raw::save_slice(rdb, &buf);
    });
}

unsafe extern "C" fn aof_rewrite(
    aof: *mut raw::RedisModuleIO,
    key: *mut raw::RedisModuleString,
    value: *mut c_void,
) {
    // SAFETY: as in rdb_save.
    let dict = unsafe { &*value.cast::<Suggestions>() };
    // SAFETY: the API table is filled by Init and never changes.
    let Some(emit) = (unsafe { raw::RedisModule_EmitAOF }) else { return };
    let mut emitted = false;
    dict.for_each(|s, score, payload| {
        if score.is_nan() {
            // FT.SUGADD refuses NaN (only INCR of inf by -inf makes one): the entry is dropped.
            return;
        }
        emitted = true;
        let score = CString::new(f64::from(score).to_string()).unwrap_or_default();
        // SAFETY: EmitAOF is variadic: "s" takes a RedisModuleString*, "b" a buffer and its
        // length, "c" a C string; the arguments follow in that order and outlive the call.
        unsafe {
            match payload {
                Some(p) => emit(
                    aof,
                    c"FT.SUGADD".as_ptr(),
                    c"sbccb".as_ptr(),
                    key,
                    s.as_ptr().cast::<c_char>(),
                    s.len(),
                    score.as_ptr(),
                    c"PAYLOAD".as_ptr(),
                    p.as_ptr().cast::<c_char>(),
                    p.len(),
                ),
                None => emit(
                    aof,
                    c"FT.SUGADD".as_ptr(),
                    c"sbc".as_ptr(),
                    key,
                    s.as_ptr().cast::<c_char>(),
                    s.len(),
                    score.as_ptr(),
                ),
            }
        }
    });
    if !emitted {
        // An empty dictionary is still a key: a zero score creates it without adding anything.
        // SAFETY: as above ("s", then two C strings).
        unsafe { emit(aof, c"FT.SUGADD".as_ptr(), c"scc".as_ptr(), key, c"".as_ptr(), c"0".as_ptr()) };
    }
}

unsafe extern "C" fn mem_usage(value: *const c_void) -> usize {
    // SAFETY: as in rdb_save.
    let dict = unsafe { &*value.cast::<Suggestions>() };
    dict.mem_usage()
}

unsafe extern "C" fn free(value: *mut c_void) {
    // SAFETY: the pointer came from Box::into_raw of a Box<Suggestions> and Redis frees it once.
    drop(unsafe { Box::from_raw(value.cast::<Suggestions>()) });
}

unsafe extern "C" fn copy(
    _from: *mut raw::RedisModuleString,
    _to: *mut raw::RedisModuleString,
    value: *const c_void,
) -> *mut c_void {
    // SAFETY: as in rdb_save.
    let dict = unsafe { &*value.cast::<Suggestions>() };
    Box::into_raw(Box::new(dict.clone())).cast::<c_void>()
}
