//! Server-wide search configuration (`FT.CONFIG GET/SET`) and server-wide state (the
//! spell-check dictionaries), owned by the glue and passed by reference to every command.

use crate::config_options::{self as options, OPTIONS};
use crate::error::{Error, Result};

/// What a query does when its TIMEOUT is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutPolicy {
    /// Return the results found so far.
    Return,
    /// Fail with `Timeout limit was reached`.
    Fail,
}

/// The tunables of FT.CONFIG.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Query timeout in milliseconds (0 = none).
    pub timeout_ms: u64,
    /// ON_TIMEOUT policy.
    pub on_timeout: TimeoutPolicy,
    /// Minimum prefix length for `foo*`.
    pub min_prefix: usize,
    /// Maximum number of expansions of a prefix/fuzzy term.
    pub max_expansions: usize,
    /// Maximum LIMIT offset/count of FT.SEARCH.
    pub max_search_results: u64,
    /// Maximum rows of FT.AGGREGATE.
    pub max_aggregate_results: u64,
    /// Dialect used when a query gives none.
    pub default_dialect: u32,
    /// Minimum length of a word to be stemmed.
    pub min_stem_len: usize,
    /// Default scorer name (not an option in RediSearch 2.10: always TFIDF).
    pub default_scorer: String,
    /// Idle time of an aggregate cursor, ms.
    pub cursor_max_idle: u64,
    /// `BM25STD_TANH_FACTOR` (Redis 8's option): BM25STD.TANH's stretch factor when a query
    /// gives none, 1-10000, default 4.
    pub bm25std_tanh_factor: u64,
    /// `ACL_ALL_OR_NOTHING` (folio's own option, off by default): a command that would have to
    /// hide a document the caller may not read fails with RediSearch 8's NOPERM error instead
    /// (see [`crate::access`]).
    pub acl_all_or_nothing: bool,
    /// `ITERATOR_SCORES` (folio's own option, on by default): scores copy what RediSearch's
    /// iterators and numeric range trees leave in them (a word's expansions skipped onto a
    /// document count its first one only; a numeric or geo union counts in the slop). Off,
    /// and always on a cluster's shards, scores depend on the documents alone, not on ids
    /// or tree shapes (so a cluster answers as one server does).
    pub iterator_scores: bool,
    /// `WORKERS`: threads that run queries beside Redis's main thread (0: none, queries run on
    /// it). The glue runs the pool.
    pub workers: usize,
    /// Bit `d - 1` set once a query ran in dialect `d` (INFO's `search_dialect_statistics`;
    /// server-wide state, emptied by any flush as RediSearch does).
    pub used_dialects: DialectSet,
    /// The options folio only stores (GC, threads, encodings...): the text each reports.
    pub stored: std::collections::BTreeMap<&'static str, Option<String>>,
    /// FT.DICTADD dictionaries: global to the server like the configuration (not an
    /// FT.CONFIG option).
    pub dictionaries: crate::dictionary::Dictionaries,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            timeout_ms: 500,
            on_timeout: TimeoutPolicy::Return,
            min_prefix: 2,
            max_expansions: 200,
            max_search_results: 1_000_000,
            max_aggregate_results: u64::MAX,
            default_dialect: 1,
            min_stem_len: crate::limits::MIN_STEM_LEN,
            default_scorer: "TFIDF".into(),
            cursor_max_idle: 300_000,
            bm25std_tanh_factor: crate::query::score::DEFAULT_TANH_FACTOR,
            acl_all_or_nothing: false,
            iterator_scores: true,
            workers: default_workers(),
            used_dialects: DialectSet::default(),
            stored: options::stored_defaults(),
            dictionaries: crate::dictionary::Dictionaries::default(),
        }
    }
}

/// The most `WORKERS` a server may have.
pub const MAX_WORKERS: usize = 64;

/// `WORKERS` when nothing sets it: one thread per core but one, at least 1 and at most 8. A
/// query then never stalls the rest of Redis while it runs, queries run side by side on the
/// cores Redis's main thread leaves idle, and that thread keeps a core of its own for the
/// clients, the writes and the replies (with a worker per core, busy workers take CPU time
/// from it: measured in BENCHMARKS.md). Past 8, a shard's queries are rarely what limits it.
pub fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).saturating_sub(1).clamp(1, 8)
}

impl Config {
    /// `_PRINT_PROFILE_CLOCK`: FT.PROFILE prints its times (RediSearch's test switch).
    pub fn print_profile_clock(&self) -> bool {
        !matches!(self.stored.get("_PRINT_PROFILE_CLOCK"), Some(Some(v)) if v == "false")
    }

    /// Records that a query ran in dialect `d` (1-4).
    pub fn mark_dialect(&self, d: u32) {
        if (1..=8).contains(&d) {
            self.used_dialects.0.fetch_or(1 << (d - 1), std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// All `(name, value)` pairs matching `pattern` (`*` or an option name, case-insensitive);
    /// a `None` value is reported as null.
    pub fn get(&self, pattern: &str) -> Vec<(String, Option<String>)> {
        self.help(pattern).into_iter().map(|(n, _, v)| (n, v)).collect()
    }

    /// `(name, description, value)` of the options matching `pattern`, as [`Config::get`].
    pub fn help(&self, pattern: &str) -> Vec<(String, &'static str, Option<String>)> {
        OPTIONS
            .iter()
            .filter(|o| pattern == "*" || o.name.eq_ignore_ascii_case(pattern))
            .map(|o| (o.name.to_string(), o.help, options::value(self, o.name)))
            .collect()
    }

    /// `FT.CONFIG SET name args...`: returns whether every argument was read (RediSearch answers
    /// `EXCESSARGS` instead of `OK` otherwise, the option being set all the same). Errors use
    /// RediSearch's texts.
    pub fn set_args(&mut self, name: &str, args: &[String]) -> Result<bool> {
        let def = options::find(name).ok_or_else(|| Error::new("Invalid option"))?;
        if def.immutable {
            return Err(Error::new("Not modifiable at runtime"));
        }
        let mut cursor = options::Args::new(args);
        let mut next = self.clone();
        options::apply(&mut next, def, &mut cursor)?;
        *self = next;
        Ok(cursor.at_end())
    }

    /// Sets one option to one value (`FT.CONFIG SET name value`).
    pub fn set(&mut self, name: &str, value: &str) -> Result<()> {
        self.set_args(name, &[value.to_string()]).map(|_| ())
    }

    /// Applies module arguments (`--loadmodule folio.so NAME [value] ...`), immutable options
    /// included, as RediSearch reads its own; the error is the text RediSearch logs.
    pub fn load_args(&mut self, args: &[String]) -> std::result::Result<(), String> {
        let mut cursor = options::Args::new(args);
        while !cursor.at_end() {
            let name = cursor.string().map_err(|e| e.to_string())?;
            let def = options::find(name).ok_or_else(|| format!("No such configuration option `{name}`"))?;
            let mut rest = options::Args::new(&args[cursor.pos..]);
            options::apply(self, def, &mut rest).map_err(|e| e.to_string())?;
            cursor.pos += rest.pos;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_and_set_round_trip() {
        let mut c = Config::default();
        assert_eq!(c.get("minprefix"), vec![("MINPREFIX".into(), Some("2".into()))]);
        c.set("MINPREFIX", "3").unwrap();
        assert_eq!(c.min_prefix, 3);
        assert!(c.set("NOPE", "1").is_err());
        assert!(c.set("TIMEOUT", "x").is_err());
        // RediSearch 2.10's 36, ACL_ALL_OR_NOTHING, ITERATOR_SCORES, the 7 worker-build
        // options, BM25STD_TANH_FACTOR.
        assert_eq!(c.get("*").len(), 46);
        c.set("BM25STD_TANH_FACTOR", "12").unwrap();
        assert_eq!(c.bm25std_tanh_factor, 12);
        assert!(c.set("BM25STD_TANH_FACTOR", "10001").is_err());
        assert_eq!(c.set_args("FORK_GC_CLEAN_NUMERIC_EMPTY_NODES", &["x".into()]), Ok(false));
        assert!(c.set("MINSTEMLEN", "1").is_err());
        assert_eq!(c.min_stem_len, crate::limits::MIN_STEM_LEN);
    }
}

/// The dialects queries ran in, one bit each (bit `d - 1`): set by queries through a shared
/// reference, from whichever thread runs them.
#[derive(Debug, Default)]
pub struct DialectSet(std::sync::atomic::AtomicU8);

impl DialectSet {
    /// The bits.
    pub fn get(&self) -> u8 {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Replaces the bits.
    pub fn set(&self, bits: u8) {
        self.0.store(bits, std::sync::atomic::Ordering::Relaxed)
    }
}

impl Clone for DialectSet {
    fn clone(&self) -> Self {
        DialectSet(std::sync::atomic::AtomicU8::new(self.get()))
    }
}

impl PartialEq for DialectSet {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}
