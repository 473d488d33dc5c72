//! The search state in RDB aux data, one file per aux type:
//!
//! - `ft_index0` ([`ft_index0`]): the index definitions of database 0 in RediSearch 2.10's own
//!   type, name and encoding, so RDB files move between folio and RediSearch both ways;
//! - `scdtype00` ([`scdtype00`]): the FT.DICTADD dictionaries, likewise;
//! - `folio-idx` ([`folio_idx`]): what RediSearch cannot hold, the indexes of other databases
//!   (and, in files of older folio versions, every definition).
//!
//! A type with nothing to save writes no record at all, so a dump without indexes or
//! dictionaries loads into a server without folio or RediSearch (RedisJSON alone). Redis 7.2+
//! offers that through `aux_save2`; on Redis 7.0, which always writes a record for a type with
//! an `aux_save`, [`arm`] clears and restores the type's `aux_save` pointer as the state changes.
//!
//! The encodings themselves are pure code in the `search` crate (`search::rdb`); this module
//! runs them over a `RedisModuleIO` ([`Io`]), propagating Redis's IO errors (the module sets
//! `REDISMODULE_OPTIONS_HANDLE_IO_ERRORS`), so a truncated or corrupt record is refused with a
//! log line: Redis then stops loading as it does for any bad RDB.

pub mod folio_idx;
pub mod ft_index0;
pub mod scdtype00;

use std::ffi::CString;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};

use redis_module::native_types::RedisType;
use redis_module::raw;
use search::rdb::{RdbRead, RdbWrite};

/// A `RedisModuleIO` as the `search` crate's reader and writer.
pub struct Io(pub *mut raw::RedisModuleIO);

fn io_err(e: redis_module::error::Error) -> String {
    format!("{e}")
}

impl RdbRead for Io {
    fn unsigned(&mut self) -> Result<u64, String> {
        raw::load_unsigned(self.0).map_err(io_err)
    }

    fn signed(&mut self) -> Result<i64, String> {
        raw::load_signed(self.0).map_err(io_err)
    }

    fn double(&mut self) -> Result<f64, String> {
        raw::load_double(self.0).map_err(io_err)
    }

    fn buffer(&mut self) -> Result<Vec<u8>, String> {
        raw::load_string_buffer(self.0).map(|b| b.as_ref().to_vec()).map_err(io_err)
    }
}

impl RdbWrite for Io {
    fn put_unsigned(&mut self, v: u64) {
        raw::save_unsigned(self.0, v);
    }

    fn put_signed(&mut self, v: i64) {
        raw::save_signed(self.0, v);
    }

    fn put_double(&mut self, v: f64) {
        raw::save_double(self.0, v);
    }

    fn put_buffer(&mut self, b: &[u8]) {
        raw::save_slice(self.0, b);
    }
}

/// Logs `msg` at warning level.
pub fn log_warning(msg: &str) {
    log("warning", msg);
}

/// Logs `msg` at `level` ("notice", "warning", ...).
pub fn log(level: &str, msg: &str) {
    let level = CString::new(level).unwrap_or_default();
    let text = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    // SAFETY: both pointers are valid NUL-terminated strings for the duration of the call; a null
    // context makes RedisModule_Log log under the module-less name, which Redis allows.
    unsafe {
        if let Some(log) = raw::RedisModule_Log {
            log(std::ptr::null_mut(), level.as_ptr(), c"%s".as_ptr(), text.as_ptr());
        }
    }
}

/// The context Redis attached to an IO.
pub(crate) fn io_context(rdb: *mut raw::RedisModuleIO) -> Option<redis_module::Context> {
    // SAFETY: GetContextFromIO returns the context Redis attached to this IO (valid for the call).
    let ctx = unsafe { raw::RedisModule_GetContextFromIO.map(|f| f(rdb)) }?;
    (!ctx.is_null()).then(|| redis_module::Context::new(ctx))
}

/// Runs an aux_load body: `Ok` is REDISMODULE_OK; an error (or a panic) is logged and refused.
pub fn aux_result(what: &str, f: impl FnOnce() -> Result<(), String>) -> c_int {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(())) => raw::REDISMODULE_OK as c_int,
        Ok(Err(e)) => {
            log_warning(&format!("folio: cannot load {what} from the RDB: {e}"));
            raw::REDISMODULE_ERR as c_int
        }
        Err(_) => {
            log_warning(&format!("folio: internal error loading {what} from the RDB"));
            raw::REDISMODULE_ERR as c_int
        }
    }
}

/// The type methods of an aux-only type: `aux_save` is Redis 7.0's callback (see [`prepare`]),
/// `aux_save2` that of 7.2+, which writes no record when nothing is saved; `rdb_load` reads keys
/// of the type (only RediSearch 1.x wrote any).
pub const fn aux_methods(
    rdb_load: raw::RedisModuleTypeLoadFunc,
    aux_load: raw::RedisModuleTypeAuxLoadFunc,
    aux_save: raw::RedisModuleTypeAuxSaveFunc,
    aux_save2: raw::RedisModuleTypeAuxSaveFunc,
    triggers: isize,
) -> raw::RedisModuleTypeMethods {
    raw::RedisModuleTypeMethods {
        version: raw::REDISMODULE_TYPE_METHOD_VERSION as u64,
        rdb_load,
        rdb_save: None,
        aof_rewrite: None,
        mem_usage: None,
        digest: None,
        free: None,
        aux_load,
        aux_save,
        aux_save2,
        aux_save_triggers: triggers as i32,
        free_effort: None,
        unlink: None,
        copy: None,
        defrag: None,
        copy2: None,
        free_effort2: None,
        mem_usage2: None,
        unlink2: None,
    }
}

/// The aux types, in the order their records are written.
pub fn types() -> [&'static RedisType; 3] {
    [&ft_index0::FT_INDEX_TYPE, &folio_idx::FOLIO_IDX_TYPE, &scdtype00::SCDTYPE_TYPE]
}

/// Which aux types have something to save.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Contents {
    /// Indexes in database 0 (`ft_index0`).
    pub indexes_db0: bool,
    /// Indexes in other databases (`folio-idx`).
    pub indexes_other: bool,
    /// Spell-check dictionaries (`scdtype00`).
    pub dictionaries: bool,
}

/// True once [`prepare`] found Redis older than 7.2 and the `aux_save` slot of each type.
static PATCHING: AtomicBool = AtomicBool::new(false);
/// The `aux_save` slot in each type's `moduleType` (Redis 7.0), in [`types`] order.
static SLOTS: [AtomicPtr<usize>; 3] = [
    AtomicPtr::new(std::ptr::null_mut()),
    AtomicPtr::new(std::ptr::null_mut()),
    AtomicPtr::new(std::ptr::null_mut()),
];
/// The `aux_save` function of each type, in [`types`] order.
static SAVERS: [AtomicUsize; 3] = [AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0)];
/// What [`arm`] last set.
static ARMED: AtomicUsize = AtomicUsize::new(usize::MAX);
/// What the search state holds, as [`arm`] was last told: bit 0 indexes in database 0, bit 1
/// indexes elsewhere, bit 2 dictionaries (the order of [`types`]).
static CONTENTS: AtomicUsize = AtomicUsize::new(0);

/// Whether an `aux_save2` callback of type `i` (the order of [`types`]) has a record to write.
///
/// It must know before it asks for the IO's context: Redis 7.2-7.4 and Valkey 8 create that
/// context as an execution unit and, when `aux_save2` writes nothing, return without freeing it
/// (`rdbSaveSingleModuleAux`), so the server's execution nesting stays raised; with an AOF or a
/// replica, the next write is then never propagated at the end of its command, and Redis
/// aborts (`server.also_propagate.numops == 0`, blocked.c). So a save that took the context
/// always writes a record (empty if need be), and one with nothing to write returns first.
fn has_contents(i: usize) -> bool {
    CONTENTS.load(Ordering::Relaxed) & (1 << i) != 0
}

/// Whether the aux callback of type `i` (the order of [`types`]), called at `when`, writes its
/// record, which it writes at `at` (`REDISMODULE_AUX_BEFORE_RDB` / `AFTER_RDB`): Redis 7.0's
/// `aux_save` (`always`) writes one every time, empty when there is nothing to save; an
/// `aux_save2` only when there is something ([`has_contents`]). A callback that goes on
/// writes a record, even an empty one.
pub(crate) fn writes_record(when: c_int, at: isize, always: bool, i: usize) -> bool {
    when == at as c_int && (always || has_contents(i))
}

/// Redis's version as `0x00MMmmpp` (0 when unknown).
fn server_version() -> c_int {
    // SAFETY: GetServerVersion takes no arguments and only reads a constant.
    unsafe { raw::RedisModule_GetServerVersion.map(|f| f()).unwrap_or(0) }
}

/// After the types are created: on Redis older than 7.2 (no `aux_save2`), finds the `aux_save`
/// pointer Redis copied into each type's `moduleType`, so that [`arm`] can clear it while the
/// type has nothing to save. The slot is found by its value (the type's own `aux_save`
/// function, present once), reading no further than the first match within the structure's
/// first 20 words (Redis 7.0's `moduleType` holds the id, the module, 16 callbacks, the
/// triggers and the name; on 7.0.15 the slot is word 13, logged at start). If any slot is not
/// found, nothing is patched and every type writes a valid empty record instead.
pub fn prepare() {
    if server_version() >= 0x00_07_02_00 {
        return;
    }
    type AuxSave = unsafe extern "C" fn(*mut raw::RedisModuleIO, c_int);
    let savers = [
        ft_index0::aux_save as AuxSave as usize,
        folio_idx::aux_save as AuxSave as usize,
        scdtype00::aux_save as AuxSave as usize,
    ];
    let mut slots = [std::ptr::null_mut::<usize>(); 3];
    for (i, t) in types().iter().enumerate() {
        let mt = *t.raw_type.borrow() as *mut usize;
        if mt.is_null() {
            return;
        }
        for w in 0..20 {
            // SAFETY: `mt` is Redis's live moduleType for this type, longer than 20 words on
            // every Redis version this runs on; the walk stops at the first match.
            let p = unsafe { mt.add(w) };
            // SAFETY: as above; an aligned read of a word inside the structure.
            if unsafe { p.read() } == savers[i] {
                slots[i] = p;
                break;
            }
        }
        if slots[i].is_null() {
            log_warning("folio: aux_save slot not found; RDB files always carry search aux records");
            return;
        }
    }
    let mut words = Vec::new();
    for (i, t) in types().iter().enumerate() {
        SAVERS[i].store(savers[i], Ordering::Relaxed);
        SLOTS[i].store(slots[i], Ordering::Relaxed);
        let base = *t.raw_type.borrow() as usize;
        words.push(((slots[i] as usize - base) / std::mem::size_of::<usize>()).to_string());
    }
    PATCHING.store(true, Ordering::Relaxed);
    log(
        "notice",
        &format!(
            "folio: Redis < 7.2: search aux types with nothing to save write no record (aux_save at word {})",
            words.join(", ")
        ),
    );
}

/// Keeps Redis 7.0 from writing a record for a type with nothing to save (see [`prepare`]);
/// called after every change to the search state. Redis 7.2+ needs nothing: `aux_save2`
/// writes no record when nothing is saved.
pub fn arm(c: Contents) {
    let bits =
        usize::from(c.indexes_db0) | usize::from(c.indexes_other) << 1 | usize::from(c.dictionaries) << 2;
    CONTENTS.store(bits, Ordering::Relaxed);
    if !PATCHING.load(Ordering::Relaxed) {
        return;
    }
    if ARMED.swap(bits, Ordering::Relaxed) == bits {
        return;
    }
    for (i, on) in [c.indexes_db0, c.indexes_other, c.dictionaries].into_iter().enumerate() {
        let slot = SLOTS[i].load(Ordering::Relaxed);
        // SAFETY: `slot` is the aux_save field of a moduleType that lives as long as the server;
        // only the main thread (commands, events, loading) writes it, and a fork child saving
        // an RDB has its own copy.
        unsafe { slot.write(if on { SAVERS[i].load(Ordering::Relaxed) } else { 0 }) };
    }
}
