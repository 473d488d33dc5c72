//! `ft_index0`: RediSearch 2.x's aux type for index definitions, registered under RediSearch's
//! name and encoding version (23), saved before the keys. folio writes its database-0 indexes
//! here in RediSearch 2.10's encoding and reads records of encodings 17-23 (RediSearch 2.0 to
//! 2.10); each loaded definition becomes FT.CREATE arguments for the catalog, and the index
//! fills as the keys load. The encoding is `search::rdb::ft_index`.

use std::os::raw::{c_int, c_void};

use redis_module::native_types::RedisType;
use redis_module::raw;
use search::rdb::ft_index;

use super::{aux_result, io_context, log_warning, Io};
use crate::indexing::with_state;

/// The type (no keys: aux data only; RediSearch 1.x kept indexes in keys of this type).
pub static FT_INDEX_TYPE: RedisType = RedisType::new(
    ft_index::TYPE_NAME,
    ft_index::ENCODING_VERSION,
    super::aux_methods(
        Some(legacy_rdb_load),
        Some(aux_load),
        Some(aux_save),
        Some(aux_save2),
        raw::REDISMODULE_AUX_BEFORE_RDB,
    ),
);

/// A RediSearch 1.x index key: refused (Redis then stops loading the file).
unsafe extern "C" fn legacy_rdb_load(_rdb: *mut raw::RedisModuleIO, encver: c_int) -> *mut c_void {
    log_warning(&format!(
        "folio: the RDB holds a RediSearch 1.x index key (ft_index0 encoding {encver}); only RediSearch 2.x aux data loads"
    ));
    std::ptr::null_mut()
}

/// Writes the record, empty but valid when database 0 has no index (which `aux_save2` only
/// meets when [`super::writes_record`] said there was one).
fn save(rdb: *mut raw::RedisModuleIO, when: c_int, always: bool) {
    if !super::writes_record(when, raw::REDISMODULE_AUX_BEFORE_RDB, always, 0) {
        return;
    }
    let Some(ctx) = io_context(rdb) else { return };
    let mut io = Io(rdb);
    let saved = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::state::for_save(&ctx, |s| match s.catalogs.get(&0).filter(|c| !c.is_empty()) {
            Some(cat) => {
                ft_index::write(&mut io, cat);
                true
            }
            None => false,
        })
    }));
    match saved {
        Ok(true) => {}
        Ok(false) => search::rdb::RdbWrite::put_unsigned(&mut io, 0),
        Err(_) => log_warning("folio: internal error saving index definitions (ft_index0)"),
    }
}

/// Redis 7.0's callback (see [`super::prepare`]).
pub(super) unsafe extern "C" fn aux_save(rdb: *mut raw::RedisModuleIO, when: c_int) {
    save(rdb, when, true);
}

unsafe extern "C" fn aux_save2(rdb: *mut raw::RedisModuleIO, when: c_int) {
    save(rdb, when, false);
}

unsafe extern "C" fn aux_load(rdb: *mut raw::RedisModuleIO, encver: c_int, _when: c_int) -> c_int {
    aux_result("index definitions (ft_index0)", || {
        let ctx = io_context(rdb).ok_or("no context")?;
        // An RDB's definitions are fitted to the limit (RediSearch's RDB load).
        crate::info::note_memory_limit(&ctx, false);
        let loaded = ft_index::read(&mut Io(rdb), encver)?;
        let warnings = with_state(&ctx, |s| {
            let cat = s.catalogs.entry(0).or_default();
            ft_index::restore(cat, loaded, &s.config)
        });
        for w in warnings {
            log_warning(&format!("folio: {w}"));
        }
        Ok(())
    })
}
