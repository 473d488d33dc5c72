//! `folio-idx`: folio's own aux type for what RediSearch cannot hold, the indexes of databases
//! other than 0 (folio's catalog encoding, `search::Catalog::to_definitions`), saved before the
//! keys and only when such an index exists.
//!
//! Encoding versions: 1 holds the definitions of every database; 2 adds the FT.DICTADD
//! dictionaries after them (both written by older folio versions: they still load); 3, written
//! now, holds the definitions of databases other than 0 only (database 0 is in `ft_index0`, the
//! dictionaries in `scdtype00`).

use std::os::raw::c_int;

use redis_module::native_types::RedisType;
use redis_module::raw;

use super::{aux_result, io_context, log_warning, Io};
use search::rdb::{RdbRead, RdbWrite};

/// Name of the type.
pub const TYPE_NAME: &str = "folio-idx";
/// The encoding version written.
pub const ENCODING_VERSION: i32 = 3;

/// The type (aux data only).
pub static FOLIO_IDX_TYPE: RedisType = RedisType::new(
    TYPE_NAME,
    ENCODING_VERSION,
    super::aux_methods(
        None,
        Some(aux_load),
        Some(aux_save),
        Some(aux_save2),
        raw::REDISMODULE_AUX_BEFORE_RDB,
    ),
);

/// Writes the record (empty with no index outside database 0; see [`super::writes_record`]).
fn save(rdb: *mut raw::RedisModuleIO, when: c_int, always: bool) {
    if !super::writes_record(when, raw::REDISMODULE_AUX_BEFORE_RDB, always, 1) {
        return;
    }
    let Some(ctx) = io_context(rdb) else { return };
    let defs = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| crate::indexing::definitions(&ctx)));
    let Ok(defs) = defs else {
        log_warning("folio: internal error saving index definitions (folio-idx)");
        return;
    };
    let defs: Vec<_> = defs.into_iter().filter(|(db, _)| *db != 0).collect();
    let mut io = Io(rdb);
    io.put_unsigned(defs.len() as u64);
    for (db, bytes) in defs {
        io.put_signed(i64::from(db));
        io.put_buffer(&bytes);
    }
}

/// Redis 7.0's callback (see [`super::prepare`]).
pub(super) unsafe extern "C" fn aux_save(rdb: *mut raw::RedisModuleIO, when: c_int) {
    save(rdb, when, true);
}

unsafe extern "C" fn aux_save2(rdb: *mut raw::RedisModuleIO, when: c_int) {
    save(rdb, when, false);
}

unsafe extern "C" fn aux_load(rdb: *mut raw::RedisModuleIO, encver: c_int, when: c_int) -> c_int {
    aux_result("index definitions (folio-idx)", || {
        if !(1..=ENCODING_VERSION).contains(&encver) || when != raw::REDISMODULE_AUX_BEFORE_RDB as c_int {
            return Err(format!("unsupported folio-idx encoding version {encver}"));
        }
        let ctx = io_context(rdb).ok_or("no context")?;
        // An RDB's definitions are fitted to the limit (RediSearch's RDB load).
        crate::info::note_memory_limit(&ctx, false);
        let mut io = Io(rdb);
        let n = io.unsigned()?;
        let mut defs = Vec::new();
        for _ in 0..n {
            let db = io.signed()?;
            let bytes = io.buffer()?;
            defs.push((i32::try_from(db).map_err(|_| "bad db number")?, bytes));
        }
        let dicts = if encver == 2 { Some(io.buffer()?) } else { None };
        crate::indexing::restore_definitions(&ctx, defs, dicts.as_deref())
    })
}
