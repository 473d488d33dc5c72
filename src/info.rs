//! The `INFO` sections RediSearch 2.10 adds (`INFO search`, `INFO modules`, `INFO everything`):
//! `search_version`, `search_index`, `search_fields_statistics`, `search_memory`,
//! `search_cursors`, `search_gc`, `search_dialect_statistics`, `search_runtime_configurations`,
//! with RediSearch's field names and value formats and folio's own figures.
//!
//! Redis prefixes each section with the name of the module that registered the callback, so
//! the callback is registered by the load that claims the name `search` (see `module.rs`), and
//! only there: the sections appear once. Figures come from `search::stats::ServerStats`; the
//! GC figures are zeros (folio removes postings as documents change, there is no collector).

use std::ffi::{c_int, CString};

use redis_module::{raw, Context};
use search::stats::ServerStats;

use crate::indexing;
use crate::SEARCH_VERSION;

/// The module's INFO callback.
///
/// # Safety
/// Redis calls it with a valid info context, on the main thread.
pub unsafe extern "C" fn info_func(ctx: *mut raw::RedisModuleInfoCtx, for_crash_report: c_int) {
    let _ = std::panic::catch_unwind(|| {
        section(ctx, "version");
        let v = SEARCH_VERSION;
        text(ctx, "version", &format!("{}.{}.{}", v / 10000, v / 100 % 100, v % 100));
        text(ctx, "redis_version", &format!("{} - oss", redis_version()));
        if for_crash_report != 0 {
            // The state may be in use by the command that crashed.
            return;
        }
        let (stats, config) =
            indexing::peek_state(|s| (ServerStats::of(s.catalogs.values()), s.config.clone()));
        write(ctx, &stats, &config);
    });
}

/// One `search_fields_*` line: field name, type name, `[total, sortable, noindex]`, extra counts.
type FieldLine<'a> = (&'a str, &'a str, [u64; 3], &'a [(&'a str, u64)]);

fn write(ctx: *mut raw::RedisModuleInfoCtx, s: &ServerStats, config: &search::Config) {
    section(ctx, "index");
    int(ctx, "number_of_indexes", s.indexes as i64);

    section(ctx, "fields_statistics");
    let kinds: [FieldLine; 4] = [
        ("fields_text", "Text", s.text, &[]),
        ("fields_numeric", "Numeric", s.numeric, &[]),
        ("fields_tag", "Tag", s.tag, &[("CaseSensitive", s.tag_case_sensitive)]),
        ("fields_geo", "Geo", s.geo, &[]),
    ];
    for (field, name, [total, sortable, noindex], extra) in kinds {
        if total == 0 {
            continue;
        }
        dict(ctx, field, |ctx| {
            int(ctx, name, total as i64);
            for (k, n) in [("Sortable", sortable), ("NoIndex", noindex)].iter().chain(extra.iter()) {
                if *n > 0 {
                    int(ctx, k, *n as i64);
                }
            }
        });
    }
    if s.vector[0] > 0 {
        dict(ctx, "fields_vector", |ctx| {
            for (k, n) in [("Vector", s.vector[0]), ("Flat", s.vector[1]), ("HNSW", s.vector[2])] {
                if k == "Vector" || n > 0 {
                    int(ctx, k, n as i64);
                }
            }
        });
    }
    if s.geoshape[0] > 0 {
        dict(ctx, "fields_geoshape", |ctx| {
            int(ctx, "Geoshape", s.geoshape[0] as i64);
            for (k, n) in [("Sortable", s.geoshape[1]), ("NoIndex", s.geoshape[2])] {
                if n > 0 {
                    int(ctx, k, n as i64);
                }
            }
        });
    }

    // RediSearch divides in single precision and prints the float as a double.
    section(ctx, "memory");
    double(ctx, "used_memory_indexes", s.memory_bytes as f64);
    double(ctx, "used_memory_indexes_human", f64::from(s.memory_bytes as f32 / 1_048_576f32));
    double(ctx, "total_indexing_time", f64::from(s.indexing_ms as f32));

    // One thread: every open cursor is idle between commands.
    section(ctx, "cursors");
    int(ctx, "global_idle", s.cursors as i64);
    int(ctx, "global_total", s.cursors as i64);

    section(ctx, "gc");
    double(ctx, "bytes_collected", s.gc.bytes_collected as f64);
    double(ctx, "total_cycles", s.gc.cycles as f64);
    double(ctx, "total_ms_run", s.gc.ms_run);

    section(ctx, "dialect_statistics");
    let used = config.used_dialects.get();
    for d in 1..=search::limits::MAX_DIALECT {
        uint(ctx, &format!("dialect_{d}"), u64::from(used >> (d - 1) & 1));
    }

    section(ctx, "runtime_configurations");
    text(ctx, "enableGC", "ON");
    int(ctx, "minimal_term_prefix", config.min_prefix as i64);
    int(ctx, "minimal_stem_length", config.min_stem_len as i64);
    int(ctx, "maximal_prefix_expansions", config.max_expansions as i64);
    int(ctx, "query_timeout_ms", config.timeout_ms as i64);
    let policy = match config.on_timeout {
        search::config::TimeoutPolicy::Return => "return",
        search::config::TimeoutPolicy::Fail => "fail",
    };
    text(ctx, "timeout_policy", policy);
    int(ctx, "cursor_read_size", search::aggregate::limits::DEFAULT_CURSOR_COUNT as i64);
    int(ctx, "cursor_max_idle_time", config.cursor_max_idle as i64);
    int(ctx, "max_doc_table_size", stored(config, "MAXDOCTABLESIZE", 1_000_000));
    int(ctx, "max_search_results", config.max_search_results as i64);
    // folio's "unlimited" is RediSearch's -1.
    let aggregate = config.max_aggregate_results;
    int(
        ctx,
        "max_aggregate_results",
        if aggregate >= search::aggregate::limits::MAX_AGGREGATE_RESULTS { -1 } else { aggregate as i64 },
    );
    int(ctx, "gc_scan_size", stored(config, "GCSCANSIZE", 100));
    int(ctx, "min_phonetic_term_length", stored(config, "MIN_PHONETIC_TERM_LEN", 3));
    // Redis 8's option, where RediSearch 8.4 lists it.
    int(ctx, "bm25std_tanh_factor", config.bm25std_tanh_factor as i64);

    // folio's own: the query workers and how long the main thread waited for them.
    section(ctx, "threads");
    let (queued, busy) = crate::workers::pool::load();
    int(ctx, "workers", crate::workers::pool::size() as i64);
    int(ctx, "workers_queued", queued as i64);
    int(ctx, "workers_busy", busy as i64);
    let waits = &crate::state::LOCK_WAITS;
    let load = |a: &std::sync::atomic::AtomicU64| a.load(std::sync::atomic::Ordering::Relaxed) as i64;
    int(ctx, "main_thread_lock_waits", load(&waits.count));
    int(ctx, "main_thread_lock_wait_total_us", load(&waits.total_us));
    int(ctx, "main_thread_lock_wait_max_us", load(&waits.max_us));
    int(ctx, "main_thread_write_waits", load(&waits.write_count));
    int(ctx, "main_thread_write_wait_total_us", load(&waits.write_total_us));
    int(ctx, "main_thread_write_wait_max_us", load(&waits.write_max_us));
    int(ctx, "writes_deferred", load(&waits.deferred));
    let t = &crate::workers::TIMES;
    for (name, v) in [
        ("worker_queries", &t.queries),
        ("worker_queries_rerun_inline", &t.fell_back),
        ("worker_queued_us", &t.queued_us),
        ("worker_index_us", &t.index_us),
        ("worker_documents_us", &t.documents_us),
        ("worker_gil_us", &t.gil_us),
        ("worker_reply_us", &t.reply_us),
    ] {
        int(ctx, name, load(v));
    }
}

/// `major.minor.patch` of the running server.
fn redis_version() -> String {
    // SAFETY: the API table is filled by Init; GetServerVersion only reads a constant.
    let v = unsafe { raw::RedisModule_GetServerVersion.map_or(0, |f| f()) };
    format!("{}.{}.{}", v >> 16 & 0xff, v >> 8 & 0xff, v & 0xff)
}

fn section(ctx: *mut raw::RedisModuleInfoCtx, name: &str) {
    raw::add_info_section(ctx, Some(name));
}

fn text(ctx: *mut raw::RedisModuleInfoCtx, name: &str, value: &str) {
    let (Ok(name), Ok(value)) = (CString::new(name), CString::new(value)) else { return };
    // SAFETY: valid info context and NUL-terminated strings that outlive the call.
    unsafe {
        if let Some(add) = raw::RedisModule_InfoAddFieldCString {
            add(ctx, name.as_ptr(), value.as_ptr());
        }
    }
}

fn int(ctx: *mut raw::RedisModuleInfoCtx, name: &str, value: i64) {
    raw::add_info_field_long_long(ctx, name, value);
}

fn uint(ctx: *mut raw::RedisModuleInfoCtx, name: &str, value: u64) {
    raw::add_info_field_unsigned_long_long(ctx, name, value);
}

fn double(ctx: *mut raw::RedisModuleInfoCtx, name: &str, value: f64) {
    raw::add_info_field_double(ctx, name, value);
}

/// A `name:k=v,k=v` field.
fn dict(ctx: *mut raw::RedisModuleInfoCtx, name: &str, fill: impl FnOnce(*mut raw::RedisModuleInfoCtx)) {
    raw::add_info_begin_dict_field(ctx, name);
    fill(ctx);
    raw::add_info_end_dict_field(ctx);
}

/// Registers [`info_func`] for the module loading in `ctx`.
pub fn register(ctx: &Context) -> bool {
    raw::register_info_function(ctx.ctx, Some(info_func)) == raw::Status::Ok
}

/// A numeric option FT.CONFIG stores as text (its current value, or `default`).
fn stored(config: &search::Config, name: &str, default: i64) -> i64 {
    config.get(name).into_iter().find_map(|(_, v)| v?.parse().ok()).unwrap_or(default)
}

/// Tells the search crate the server's memory limit, as RediSearch reads it before each
/// index definition (`spec.c`, `setMemoryInfo`): `maxmemory` and the machine's memory, the
/// smaller of those set. VECTOR attributes are sized against it (`search::vector_budget`);
/// `replayed`: the definitions come from the AOF or a master's stream (no limit applies).
pub(crate) fn note_memory_limit(ctx: &Context, replayed: bool) {
    search::vector_budget::set_replayed(replayed);
    let info = ctx.server_info("memory");
    let read = |name: &str| {
        info.field(name).and_then(|v| v.to_string_lossy().trim().parse::<u64>().ok()).unwrap_or(0)
    };
    let (max, system) = (read("maxmemory"), read("total_system_memory"));
    let limit = match (max, system) {
        (0, s) => s,
        (m, 0) => m,
        (m, s) => m.min(s),
    };
    search::vector_budget::set_memory_limit(limit);
}
