//! RediSearch 2.10's FT.CONFIG option table: every option's name, help text, whether it can
//! change at runtime, how its setter reads arguments and what it reports. Names, defaults,
//! help texts, accepted values and error texts were measured on RediSearch 2.10.5
//! (`FT.CONFIG GET/HELP *`, `FT.CONFIG SET` of each option with good and bad values).
//!
//! Options folio has a use for live in typed fields of [`Config`]; the others (GC, threading,
//! memory pools, encodings) are stored as the text RediSearch would report and change nothing
//! (README lists them).

use std::collections::BTreeMap;

use crate::config::{Config, TimeoutPolicy};
use crate::error::{Error, Result};

/// One FT.CONFIG option.
pub(crate) struct OptionDef {
    /// Upper-case name as `GET` reports it.
    pub name: &'static str,
    /// `HELP`'s description.
    pub help: &'static str,
    /// Settable only as a module argument (`SET` answers `Not modifiable at runtime`).
    pub immutable: bool,
}

const fn opt(name: &'static str, help: &'static str) -> OptionDef {
    OptionDef { name, help, immutable: false }
}

const fn fixed(name: &'static str, help: &'static str) -> OptionDef {
    OptionDef { name, help, immutable: true }
}

/// What RediSearch's deprecated thread options report (and their HELP).
const DEPRECATED_WORKERS: &str = "Deprecated, see WORKERS and MIN_OPERATION_WORKERS";

/// All options in `GET *` order: RediSearch 2.10's 36 (a build without worker threads), then
/// folio's own `ACL_ALL_OR_NOTHING` and `ITERATOR_SCORES`, then `WORKERS` and the other options of RediSearch's
/// builds with worker threads, then Redis 8's `BM25STD_TANH_FACTOR` (RediSearch 8.4's help
/// text).
pub(crate) const OPTIONS: &[OptionDef] = &[
    fixed("EXTLOAD", "Load extension scoring/expansion module"),
    fixed("NOGC", "Disable garbage collection (for this process)"),
    opt("MINPREFIX", "Set the minimum prefix for expansions (`*`)"),
    opt("MINSTEMLEN", "Set the minimum word length to stem (default 4)"),
    opt(
        "FORKGC_SLEEP_BEFORE_EXIT",
        "set the amount of seconds for the fork GC to sleep before exists, should always be set to 0 (other then on tests).",
    ),
    fixed("MAXDOCTABLESIZE", "Maximum runtime document table size (for this process)"),
    opt("MAXSEARCHRESULTS", "Maximum number of results from ft.search command"),
    opt("MAXAGGREGATERESULTS", "Maximum number of results from ft.aggregate command"),
    opt("MAXEXPANSIONS", "Maximum prefix expansions to be used in a query"),
    opt("MAXPREFIXEXPANSIONS", "Maximum prefix expansions to be used in a query"),
    opt("TIMEOUT", "Query (search) timeout"),
    fixed("FRISOINI", "Path to Chinese dictionary configuration file (for Chinese tokenization)"),
    opt("ON_TIMEOUT", "Action to perform when search timeout is exceeded (choose RETURN or FAIL)"),
    opt("GCSCANSIZE", "Scan this many documents at a time during every GC iteration"),
    opt("MIN_PHONETIC_TERM_LEN", "Minumum length of term to be considered for phonetic matching"),
    fixed("GC_POLICY", "gc policy to use (DEFAULT/LEGACY)"),
    opt(
        "FORK_GC_RUN_INTERVAL",
        "interval (in seconds) in which to run the fork gc (relevant only when fork gc is used)",
    ),
    opt(
        "FORK_GC_CLEAN_THRESHOLD",
        "the fork gc will only start to clean when the number of not cleaned document will exceed this threshold",
    ),
    opt("FORK_GC_RETRY_INTERVAL", "interval (in seconds) in which to retry running the forkgc after failure."),
    opt("FORK_GC_CLEAN_NUMERIC_EMPTY_NODES", "clean empty nodes from numeric tree"),
    opt("_FORK_GC_CLEAN_NUMERIC_EMPTY_NODES", "clean empty nodes from numeric tree"),
    opt(
        "UNION_ITERATOR_HEAP",
        "minimum number of iterators in a union from which the interator willswitch to heap based implementation.",
    ),
    opt(
        "CURSOR_MAX_IDLE",
        "max idle time allowed to be set for cursor, setting it hight might cause high memory consumption.",
    ),
    fixed("NO_MEM_POOLS", "Set RediSearch to run without memory pools"),
    fixed("PARTIAL_INDEXED_DOCS", "Enable commands filter which optimize indexing on partial hash updates"),
    fixed(
        "UPGRADE_INDEX",
        "Relevant only when loading an v1.x rdb, specify argument for upgrading the index.",
    ),
    opt("_NUMERIC_COMPRESS", "Enable legacy compression of double to float."),
    opt("_FREE_RESOURCE_ON_THREAD", "Determine whether some index resources are free on a second thread."),
    opt("_PRINT_PROFILE_CLOCK", "Disable print of time for ft.profile. For testing only."),
    fixed("RAW_DOCID_ENCODING", "Disable compression for DocID inverted index. Boost CPU performance."),
    opt(
        "_NUMERIC_RANGES_PARENTS",
        "Keep numeric ranges in numeric tree parent nodes of leafs for `x` generations.",
    ),
    opt("DEFAULT_DIALECT", "Set RediSearch default dialect version throught the lifetime of the server."),
    opt("VSS_MAX_RESIZE", "Set RediSearch vector indexes max resize (in bytes)."),
    fixed(
        "MULTI_TEXT_SLOP",
        "Set RediSearch delta used to increase positional offsets between array slots for multi text values.Can control the level of separation between phrases in different array slots (related to the SLOP parameter of ft.search command)",
    ),
    fixed(
        "BG_INDEX_SLEEP_GAP",
        "The number of iterations to run while performing background indexing before we call usleep(1) (sleep for 1 micro-second) and make sure that we allow redis process other commands.",
    ),
    opt(
        "_PRIORITIZE_INTERSECT_UNION_CHILDREN",
        "Intersection iterator orders the children iterators by their relative estimated number of results in ascending order, so that if we see first iterators with a lower count of results we will skip a larger number of results, which translates into faster iteration. If this flag is set, we use this optimization in a way where union iterators are being factorize by the number of their own children, so that we sort by the number of children times the overall estimated number of results instead.",
    ),
    opt(
        "ACL_ALL_OR_NOTHING",
        "folio: fail with NOPERM instead of hiding documents the caller may not read (default false)",
    ),
    opt(
        "ITERATOR_SCORES",
        "folio: scores copy what RediSearch's iterators and numeric range trees leave in them; off (and on cluster shards) they depend on the documents alone (default true)",
    ),
    opt(
        "WORKERS",
        "Number of worker threads to use for query processing (0: queries run on Redis's main thread)",
    ),
    // The rest of RediSearch 2.10's worker-build options, stored only (a redis.conf written for
    // that build loads).
    opt(
        "MIN_OPERATION_WORKERS",
        "Number of worker threads to use for background tasks when the server is in an operation event. Default is 4",
    ),
    opt("WORKER_THREADS", DEPRECATED_WORKERS),
    opt("MT_MODE", DEPRECATED_WORKERS),
    fixed(
        "TIERED_HNSW_BUFFER_LIMIT",
        "Use for setting the buffer limit threshold for vector similarity tiered HNSW index, so that if we are using WORKERS for indexing, and the number of vectors waiting in the buffer to be indexed exceeds this limit, we insert new vectors directly into HNSW",
    ),
    fixed("PRIVILEGED_THREADS_NUM", "Deprecated. See `WORKERS_PRIORITY_BIAS_THRESHOLD`"),
    fixed(
        "WORKERS_PRIORITY_BIAS_THRESHOLD",
        "The number of high priority tasks to be executed at any given time by the worker thread pool, before executing low priority tasks. After this number of high priority tasks are being executed, the worker thread pool will execute high and low priority tasks alternately.",
    ),
    opt(
        "BM25STD_TANH_FACTOR",
        "Set the BM25STD.TANH stretch factor. This is an integer value that divides the argument of the tanh function that is used to normalize the score computed by the BM25STD scorer.The default value is 4.",
    ),
];

/// The option named `name` (case-insensitive).
pub(crate) fn find(name: &str) -> Option<&'static OptionDef> {
    OPTIONS.iter().find(|o| o.name.eq_ignore_ascii_case(name))
}

/// The values of the options folio only stores, as RediSearch 2.10 reports them by default
/// (`None`: a null reply).
pub(crate) fn stored_defaults() -> BTreeMap<&'static str, Option<String>> {
    [
        ("EXTLOAD", None),
        ("NOGC", Some("false")),
        ("FORKGC_SLEEP_BEFORE_EXIT", Some("0")),
        ("MAXDOCTABLESIZE", Some("1000000")),
        ("FRISOINI", None),
        ("GCSCANSIZE", Some("100")),
        ("MIN_PHONETIC_TERM_LEN", Some("3")),
        ("GC_POLICY", Some("fork")),
        ("FORK_GC_RUN_INTERVAL", Some("30")),
        ("FORK_GC_CLEAN_THRESHOLD", Some("100")),
        ("FORK_GC_RETRY_INTERVAL", Some("5")),
        ("FORK_GC_CLEAN_NUMERIC_EMPTY_NODES", Some("true")),
        ("_FORK_GC_CLEAN_NUMERIC_EMPTY_NODES", Some("true")),
        ("UNION_ITERATOR_HEAP", Some("20")),
        ("NO_MEM_POOLS", Some("false")),
        ("PARTIAL_INDEXED_DOCS", Some("false")),
        ("UPGRADE_INDEX", Some("Upgrade config for upgrading")),
        ("_NUMERIC_COMPRESS", Some("false")),
        ("_FREE_RESOURCE_ON_THREAD", Some("true")),
        ("_PRINT_PROFILE_CLOCK", Some("true")),
        ("RAW_DOCID_ENCODING", Some("false")),
        ("_NUMERIC_RANGES_PARENTS", Some("0")),
        ("VSS_MAX_RESIZE", Some("0")),
        ("MULTI_TEXT_SLOP", Some("100")),
        ("BG_INDEX_SLEEP_GAP", Some("100")),
        ("_PRIORITIZE_INTERSECT_UNION_CHILDREN", Some("false")),
        ("MIN_OPERATION_WORKERS", Some("4")),
        ("WORKER_THREADS", Some(DEPRECATED_WORKERS)),
        ("MT_MODE", Some(DEPRECATED_WORKERS)),
        ("TIERED_HNSW_BUFFER_LIMIT", Some("1024")),
        ("PRIVILEGED_THREADS_NUM", Some("1")),
        ("WORKERS_PRIORITY_BIAS_THRESHOLD", Some("1")),
    ]
    .into_iter()
    .map(|(k, v)| (k, v.map(String::from)))
    .collect()
}

/// RediSearch's bound on its worker-thread options (`MAX_WORKER_THREADS`).
const MAX_WORKER_THREADS: u64 = 1 << 13;

/// RediSearch's ArgsCursor errors.
const NOARG: &str = "Expected an argument, but none provided";
const PARSE: &str = "Could not convert argument to expected type";
const ELIMIT: &str = "Value is outside acceptable bounds";

/// The arguments an option's setter reads, with RediSearch's ArgsCursor rules: an integer is
/// an integer or an integral double (`1e3`, `5.0`), `min` bounds give `Value is outside
/// acceptable bounds`.
pub(crate) struct Args<'a> {
    args: &'a [String],
    /// Arguments read so far.
    pub pos: usize,
}

impl<'a> Args<'a> {
    pub(crate) fn new(args: &'a [String]) -> Args<'a> {
        Args { args, pos: 0 }
    }

    /// Whether every argument has been read.
    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.args.len()
    }

    /// The next argument as text.
    pub(crate) fn string(&mut self) -> Result<&'a str> {
        let s = self.args.get(self.pos).ok_or_else(|| Error::new(NOARG))?;
        self.pos += 1;
        Ok(s)
    }

    /// The next argument as an integer of at least `min` (if given) and at most `max`.
    fn int(&mut self, min: Option<i64>, max: i64) -> Result<i64> {
        let s = self.args.get(self.pos).ok_or_else(|| Error::new(NOARG))?;
        let n = match s.parse::<i64>() {
            Ok(n) => n,
            Err(_) => {
                let d: f64 = s.parse().map_err(|_| Error::new(PARSE))?;
                if !d.is_finite() || (d as i64) as f64 != d {
                    return Err(Error::new(PARSE));
                }
                d as i64
            }
        };
        if min.is_some_and(|m| n < m) || n > max {
            return Err(Error::new(ELIMIT));
        }
        self.pos += 1;
        Ok(n)
    }

    /// `AC_GetLongLong` (`min`: `AC_F_GE0`/`AC_F_GE1`).
    fn long(&mut self, min: Option<i64>) -> Result<i64> {
        self.int(min, i64::MAX)
    }

    /// `AC_GetSize`: never negative.
    fn size(&mut self, min: i64) -> Result<u64> {
        self.int(Some(min.max(0)), i64::MAX).map(|n| n as u64)
    }

    /// `AC_GetUnsigned`: never negative, at most `u32::MAX`.
    fn unsigned(&mut self, min: i64) -> Result<u64> {
        self.int(Some(min.max(0)), i64::from(u32::MAX)).map(|n| n as u64)
    }

    /// `true`/`false` in any case.
    fn boolean(&mut self) -> Result<bool> {
        let s = self.args.get(self.pos).ok_or_else(|| Error::new(NOARG))?;
        let b = if s.eq_ignore_ascii_case("true") {
            true
        } else if s.eq_ignore_ascii_case("false") {
            false
        } else {
            return Err(Error::new(PARSE));
        };
        self.pos += 1;
        Ok(b)
    }
}

/// `-1` is unlimited; other negative values wrap as RediSearch stores them (unsigned).
fn result_limit(n: i64) -> u64 {
    if n == -1 {
        u64::MAX
    } else {
        n as u64
    }
}

/// Runs option `def`'s setter on `args` (as FT.CONFIG SET or a module argument; immutability
/// is the caller's check). An error leaves the configuration as it was.
pub(crate) fn apply(config: &mut Config, def: &OptionDef, args: &mut Args) -> Result<()> {
    let name = def.name;
    let store = |config: &mut Config, v: String| {
        config.stored.insert(name, Some(v));
    };
    match name {
        "EXTLOAD" | "FRISOINI" => {
            let v = args.string()?.to_string();
            store(config, v);
        }
        // Flags: set by being named, no argument.
        "NOGC" | "NO_MEM_POOLS" | "FORK_GC_CLEAN_NUMERIC_EMPTY_NODES" => {
            store(config, "true".into());
            if name == "FORK_GC_CLEAN_NUMERIC_EMPTY_NODES" {
                config.stored.insert("_FORK_GC_CLEAN_NUMERIC_EMPTY_NODES", Some("true".into()));
            }
        }
        "MINPREFIX" => config.min_prefix = args.long(Some(1))? as usize,
        "MINSTEMLEN" => {
            let n = args.unsigned(1)?;
            if n < 2 {
                return Err(Error::new("Minimum stem length cannot be lower than 2"));
            }
            config.min_stem_len = n as usize;
        }
        "FORKGC_SLEEP_BEFORE_EXIT" | "FORK_GC_CLEAN_THRESHOLD" | "VSS_MAX_RESIZE" => {
            let n = args.size(0)?;
            if name == "VSS_MAX_RESIZE" {
                crate::vector_budget::set_max_resize(n);
            }
            store(config, n.to_string());
        }
        "GCSCANSIZE" | "MIN_PHONETIC_TERM_LEN" | "FORK_GC_RUN_INTERVAL" | "FORK_GC_RETRY_INTERVAL" => {
            let n = args.size(1)?;
            if name == "MIN_PHONETIC_TERM_LEN" {
                crate::analysis::phonetic::set_min_term_len(n as usize);
            }
            store(config, n.to_string());
        }
        "UNION_ITERATOR_HEAP" => {
            let n = args.long(Some(1))?;
            store(config, n.to_string());
        }
        "MAXDOCTABLESIZE" => {
            let n = args.size(1)?;
            if n > 100_000_000 {
                return Err(Error::new("Value exceeds maximum possible document table size"));
            }
            store(config, n.to_string());
        }
        "MAXSEARCHRESULTS" => config.max_search_results = result_limit(args.long(None)?),
        "MAXAGGREGATERESULTS" => config.max_aggregate_results = result_limit(args.long(None)?),
        "MAXEXPANSIONS" | "MAXPREFIXEXPANSIONS" => config.max_expansions = args.long(Some(1))? as usize,
        "TIMEOUT" => config.timeout_ms = args.long(Some(0))? as u64,
        "ON_TIMEOUT" => {
            let v = args.string()?;
            config.on_timeout = if v.eq_ignore_ascii_case("return") {
                TimeoutPolicy::Return
            } else if v.eq_ignore_ascii_case("fail") {
                TimeoutPolicy::Fail
            } else {
                return Err(Error::new("Invalid ON_TIMEOUT value"));
            };
        }
        "GC_POLICY" => {
            let v = args.string()?;
            if v.eq_ignore_ascii_case("legacy") {
                return Err(Error::new("Legacy GC policy is no longer supported (since 2.6.0)"));
            }
            if !v.eq_ignore_ascii_case("default") && !v.eq_ignore_ascii_case("fork") {
                return Err(Error::new("Invalid GC Policy value"));
            }
        }
        "_FORK_GC_CLEAN_NUMERIC_EMPTY_NODES" => {
            let b = args.boolean()?.to_string();
            config.stored.insert("FORK_GC_CLEAN_NUMERIC_EMPTY_NODES", Some(b.clone()));
            store(config, b);
        }
        "_NUMERIC_COMPRESS"
        | "_FREE_RESOURCE_ON_THREAD"
        | "_PRINT_PROFILE_CLOCK"
        | "RAW_DOCID_ENCODING"
        | "_PRIORITIZE_INTERSECT_UNION_CHILDREN" => {
            let b = args.boolean()?;
            store(config, b.to_string());
        }
        "CURSOR_MAX_IDLE" => config.cursor_max_idle = args.long(Some(1))? as u64,
        "PARTIAL_INDEXED_DOCS" => {
            let n = args.int(Some(0), i64::from(i32::MAX))?;
            store(config, (n != 0).to_string());
        }
        // The index name, then its v1 rule arguments up to the next option's name.
        "UPGRADE_INDEX" => {
            args.string().map_err(|_| Error::new("Index name was not given to upgrade argument"))?;
            while !args.at_end() && find(&args.args[args.pos]).is_none() {
                args.pos += 1;
            }
        }
        // Any bad value gets this one error in RediSearch 2.10.
        "_NUMERIC_RANGES_PARENTS" => {
            let bad = || Error::new("Max depth for range cannot be higher than max depth for balance");
            let n = args.size(0).map_err(|_| bad())?;
            if n > 2 {
                return Err(bad());
            }
            store(config, n.to_string());
        }
        "DEFAULT_DIALECT" => {
            let max = crate::limits::MAX_DIALECT;
            let bad = || Error::new(format!("Default dialect version cannot be higher than {max}"));
            let d = args.unsigned(1).map_err(|_| bad())?;
            if d > u64::from(max) {
                return Err(bad());
            }
            config.default_dialect = d as u32;
        }
        "MULTI_TEXT_SLOP" => {
            let n = args.unsigned(0)?;
            store(config, n.to_string());
        }
        "BG_INDEX_SLEEP_GAP" => {
            let n = args.unsigned(1)?;
            store(config, n.to_string());
        }
        "ACL_ALL_OR_NOTHING" => config.acl_all_or_nothing = switch(name, args.string()?)?,
        "ITERATOR_SCORES" => config.iterator_scores = switch(name, args.string()?)?,
        "WORKERS" => config.workers = args.int(Some(0), crate::config::MAX_WORKERS as i64)? as usize,
        "MIN_OPERATION_WORKERS" => {
            let n = args.size(0)?;
            if n > MAX_WORKER_THREADS {
                return Err(Error::new(format!(
                    "Number of worker threads cannot exceed {MAX_WORKER_THREADS}"
                )));
            }
            store(config, n.to_string());
        }
        // Deprecated: the value is read and dropped (RediSearch logs a warning).
        "WORKER_THREADS" | "MT_MODE" => {
            args.string()?;
        }
        "TIERED_HNSW_BUFFER_LIMIT" => {
            let n = args.size(0)?;
            store(config, n.to_string());
        }
        // One number under two names, as RediSearch's getter reads one field for both.
        "PRIVILEGED_THREADS_NUM" | "WORKERS_PRIORITY_BIAS_THRESHOLD" => {
            let n = args.size(0)?.to_string();
            config.stored.insert("PRIVILEGED_THREADS_NUM", Some(n.clone()));
            config.stored.insert("WORKERS_PRIORITY_BIAS_THRESHOLD", Some(n));
        }
        // RediSearch 8.4's `setBM25StdTanhFactor`: `AC_GetUnsigned` with `AC_F_GE1` (below 1:
        // out of bounds), then its own check of the upper bound.
        "BM25STD_TANH_FACTOR" => {
            let n = args.unsigned(1)?;
            if n > crate::query::score::TANH_FACTOR_RANGE.1 {
                return Err(crate::query::score::tanh_factor_error());
            }
            config.bm25std_tanh_factor = n;
        }
        _ => return Err(Error::new("Invalid option")),
    }
    // The numeric tree model reads its options from the indexer, which has no configuration.
    if let Some(Some(v)) = config.stored.get(name) {
        crate::index::numeric_tree::settings::set(name, v);
    }
    Ok(())
}

/// The value `GET` reports for option `name` (`None`: null).
pub(crate) fn value(config: &Config, name: &str) -> Option<String> {
    let limit = |n: u64| if n == u64::MAX { "unlimited".to_string() } else { n.to_string() };
    Some(match name {
        "MINPREFIX" => config.min_prefix.to_string(),
        "MINSTEMLEN" => config.min_stem_len.to_string(),
        "MAXSEARCHRESULTS" => limit(config.max_search_results),
        "MAXAGGREGATERESULTS" => limit(config.max_aggregate_results),
        "MAXEXPANSIONS" | "MAXPREFIXEXPANSIONS" => config.max_expansions.to_string(),
        "TIMEOUT" => config.timeout_ms.to_string(),
        "ON_TIMEOUT" => match config.on_timeout {
            TimeoutPolicy::Return => "return".into(),
            TimeoutPolicy::Fail => "fail".into(),
        },
        "CURSOR_MAX_IDLE" => config.cursor_max_idle.to_string(),
        "DEFAULT_DIALECT" => config.default_dialect.to_string(),
        "ACL_ALL_OR_NOTHING" => config.acl_all_or_nothing.to_string(),
        "ITERATOR_SCORES" => config.iterator_scores.to_string(),
        "WORKERS" => config.workers.to_string(),
        "BM25STD_TANH_FACTOR" => config.bm25std_tanh_factor.to_string(),
        _ => return config.stored.get(name).cloned().flatten(),
    })
}

/// The value of one of folio's own on/off options (`true`/`yes`/`1`, `false`/`no`/`0`).
fn switch(name: &str, v: &str) -> Result<bool> {
    match v.to_ascii_lowercase().as_str() {
        "true" | "yes" | "1" => Ok(true),
        "false" | "no" | "0" => Ok(false),
        _ => Err(Error::new(format!("Invalid value for option `{name}`"))),
    }
}
