//! The configuration the tree model and its GC read (server-wide, as RediSearch's globals):
//! set by FT.CONFIG SET and module arguments ([`set`]), read by the indexer's writes,
//! which do not see the [`crate::config::Config`].

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::time::Duration;

use super::tree::Settings;

static RANGES_PARENTS: AtomicUsize = AtomicUsize::new(0);
static COMPRESS: AtomicBool = AtomicBool::new(false);
static GC_THRESHOLD: AtomicU64 = AtomicU64::new(100);
static GC_INTERVAL_SECS: AtomicU64 = AtomicU64::new(30);
static CLEAN_EMPTY_NODES: AtomicBool = AtomicBool::new(true);
static UNIQUE_IDS: AtomicU32 = AtomicU32::new(0);

/// Records option `name`'s new value (its text as FT.CONFIG GET reports it); options the
/// model does not read are ignored.
pub fn set(name: &str, value: &str) {
    let num = || value.parse::<u64>().ok();
    let yes = || value.eq_ignore_ascii_case("true");
    match name {
        "_NUMERIC_RANGES_PARENTS" => {
            if let Some(n) = num() {
                RANGES_PARENTS.store(n as usize, Relaxed);
            }
        }
        "_NUMERIC_COMPRESS" => COMPRESS.store(yes(), Relaxed),
        "FORK_GC_CLEAN_THRESHOLD" => {
            if let Some(n) = num() {
                GC_THRESHOLD.store(n, Relaxed);
            }
        }
        "FORK_GC_RUN_INTERVAL" => {
            if let Some(n) = num() {
                GC_INTERVAL_SECS.store(n, Relaxed);
            }
        }
        "FORK_GC_CLEAN_NUMERIC_EMPTY_NODES" | "_FORK_GC_CLEAN_NUMERIC_EMPTY_NODES" => {
            CLEAN_EMPTY_NODES.store(yes(), Relaxed)
        }
        _ => {}
    }
}

/// What a tree add reads.
pub fn tree_settings() -> Settings {
    Settings { parents: RANGES_PARENTS.load(Relaxed), compress: COMPRESS.load(Relaxed) }
}

/// `FORK_GC_CLEAN_THRESHOLD`: documents that must go before a GC run does anything.
pub fn gc_threshold() -> u64 {
    GC_THRESHOLD.load(Relaxed)
}

/// `FORK_GC_RUN_INTERVAL`.
pub fn gc_interval() -> Duration {
    Duration::from_secs(GC_INTERVAL_SECS.load(Relaxed))
}

/// `FORK_GC_CLEAN_NUMERIC_EMPTY_NODES`.
pub fn clean_empty_nodes() -> bool {
    CLEAN_EMPTY_NODES.load(Relaxed)
}

/// The next tree's `uniqueId`.
pub fn next_unique_id() -> u32 {
    UNIQUE_IDS.fetch_add(1, Relaxed)
}
