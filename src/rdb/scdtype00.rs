//! `scdtype00`: RediSearch 2.x's aux type for the FT.DICTADD spell-check dictionaries,
//! registered under RediSearch's name and encoding version (1), saved after the keys. The
//! encoding is `search::rdb::dictionaries`.

use std::os::raw::c_int;

use redis_module::native_types::RedisType;
use redis_module::raw;
use search::rdb::dictionaries;

use super::{aux_result, io_context, log_warning, Io};
use crate::indexing::with_state;

/// The type (aux data only).
pub static SCDTYPE_TYPE: RedisType = RedisType::new(
    dictionaries::TYPE_NAME,
    dictionaries::ENCODING_VERSION,
    super::aux_methods(None, Some(aux_load), Some(aux_save), Some(aux_save2), raw::REDISMODULE_AUX_AFTER_RDB),
);

/// Writes the record (empty with no dictionary; see [`super::writes_record`]).
fn save(rdb: *mut raw::RedisModuleIO, when: c_int, always: bool) {
    if !super::writes_record(when, raw::REDISMODULE_AUX_AFTER_RDB, always, 2) {
        return;
    }
    let Some(ctx) = io_context(rdb) else { return };
    let mut io = Io(rdb);
    let saved = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::state::for_save(&ctx, |s| dictionaries::write(&mut io, &s.config.dictionaries))
    }));
    if saved.is_err() {
        log_warning("folio: internal error saving the spell-check dictionaries (scdtype00)");
    }
}

/// Redis 7.0's callback (see [`super::prepare`]).
pub(super) unsafe extern "C" fn aux_save(rdb: *mut raw::RedisModuleIO, when: c_int) {
    save(rdb, when, true);
}

unsafe extern "C" fn aux_save2(rdb: *mut raw::RedisModuleIO, when: c_int) {
    save(rdb, when, false);
}

/// RediSearch writes an empty record before the keys (its dictionaries are emptied then) and
/// the dictionaries after them.
unsafe extern "C" fn aux_load(rdb: *mut raw::RedisModuleIO, encver: c_int, when: c_int) -> c_int {
    aux_result("spell-check dictionaries (scdtype00)", || {
        let ctx = io_context(rdb).ok_or("no context")?;
        if encver != dictionaries::ENCODING_VERSION {
            return Err(format!("unsupported scdtype00 encoding version {encver}"));
        }
        if when == raw::REDISMODULE_AUX_BEFORE_RDB as c_int {
            with_state(&ctx, |s| s.config.dictionaries.clear());
            return Ok(());
        }
        let dicts = dictionaries::read(&mut Io(rdb))?;
        with_state(&ctx, |s| s.config.dictionaries = dicts);
        Ok(())
    })
}
