//! The [`Catalog`]: every index and alias of one database, and the open cursors, with the
//! keyspace hooks, initial-scan bookkeeping, TEMPORARY expiry and definition persistence
//! that keep them. Plain data below the commands: FT.* dispatch
//! ([`Catalog::execute`](crate::Catalog::execute)) lives in `commands`, above it.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::codec::{put_bytes, put_u32, Reader};
use crate::config::Config;
use crate::document::DocumentSource;
use crate::error::{Error, Result};
use crate::index::{Index, Kept, KeyChange};
use crate::schema::{FieldSpec, IndexSpec};
use crate::synonyms::Synonyms;

/// Which fields of an index a write cannot have changed ([`Catalog::on_key_changed_keeping`]).
pub type Unchanged<'a> = &'a dyn Fn(&IndexSpec, &FieldSpec) -> bool;

/// Initial-scan state of an index.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ScanState {
    pub(crate) pending: bool,
    pub(crate) percent: f64,
}

/// One index plus its catalog bookkeeping.
pub(crate) struct Entry {
    pub(crate) index: Index,
    /// FT.CREATE arguments after the name, with FT.ALTER field definitions appended.
    pub(crate) create_args: Vec<Vec<u8>>,
    pub(crate) scan: ScanState,
    /// What queries update through a shared reference (they may run on worker threads, beside
    /// each other, under a read lock of the catalog).
    pub(crate) usage: Usage,
}

impl Entry {
    /// Marks a use now: the time of the last use is read only for a TEMPORARY index's expiry
    /// (and FT.DEBUG TTL), so other indexes skip the clock and the lock.
    fn touch(&self) {
        if self.index.spec.temporary.is_some() {
            self.usage.touch();
        }
    }
}

/// An index's use by queries: the time of the last one (TEMPORARY expiry), how many ran
/// (FT.INFO `number_of_uses`) and in which dialects.
pub(crate) struct Usage {
    last_used: Mutex<Instant>,
    pub(crate) uses: AtomicU64,
    dialects: [AtomicBool; 4],
    /// A TEMPORARY index's timer is stopped (FT.DEBUG TTL_PAUSE).
    pub(crate) ttl_paused: AtomicBool,
    /// A TEMPORARY index expires at the next check (FT.DEBUG TTL_EXPIRE).
    pub(crate) ttl_due: AtomicBool,
}

impl Usage {
    fn new() -> Usage {
        Usage {
            last_used: Mutex::new(Instant::now()),
            uses: AtomicU64::new(0),
            dialects: Default::default(),
            ttl_paused: AtomicBool::new(false),
            ttl_due: AtomicBool::new(false),
        }
    }

    /// Marks a use now.
    pub(crate) fn touch(&self) {
        *lock(&self.last_used) = Instant::now();
    }

    pub(crate) fn last_used(&self) -> Instant {
        *lock(&self.last_used)
    }

    /// Counts one query, run in `dialect`.
    pub(crate) fn count_query(&self, dialect: u32) {
        self.uses.fetch_add(1, Ordering::Relaxed);
        self.mark_dialect(dialect);
    }

    /// Records that a command ran in `dialect` (1-4).
    pub(crate) fn mark_dialect(&self, dialect: u32) {
        if let Some(d) = self.dialects.get(dialect.saturating_sub(1) as usize) {
            d.store(true, Ordering::Relaxed);
        }
    }

    pub(crate) fn dialect_used(&self, dialect: usize) -> bool {
        self.dialects.get(dialect.wrapping_sub(1)).is_some_and(|d| d.load(Ordering::Relaxed))
    }
}

/// Locks a mutex, whether or not a panicking holder poisoned it (the data under folio's
/// mutexes stays valid across a panic: each update is a single assignment or push).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A key's change for every index of a catalog ([`Catalog::prepare_key_change`]).
pub struct PreparedChange {
    key: Vec<u8>,
    changes: Vec<(String, KeyChange)>,
}

/// All indexes and aliases of one database.
#[derive(Default)]
pub struct Catalog {
    pub(crate) indexes: BTreeMap<String, Entry>,
    pub(crate) aliases: HashMap<String, String>,
    /// Open FT.AGGREGATE cursors (queries on worker threads open them).
    pub(crate) cursors: Mutex<crate::aggregate::CursorTable>,
}

const DEFS_MAGIC: &[u8] = b"FOLIOFT1";
/// Starts the optional synonyms section after the aliases.
const SYNONYMS_MAGIC: &[u8] = b"SYN1";

impl Catalog {
    /// An empty catalog.
    pub fn new() -> Catalog {
        Catalog::default()
    }

    /// Resolves an index name or alias.
    pub(crate) fn resolve(&self, name: &str) -> Option<&str> {
        if let Some((k, _)) = self.indexes.get_key_value(name) {
            return Some(k.as_str());
        }
        self.aliases.get(name).map(|s| s.as_str())
    }

    pub(crate) fn entry_mut(&mut self, name: &str) -> Option<&mut Entry> {
        let real = self.resolve(name)?.to_string();
        let e = self.indexes.get_mut(&real)?;
        e.touch();
        Some(e)
    }

    /// The entry of an index by name or alias, marked as used now (a query's view).
    pub(crate) fn entry(&self, name: &str) -> Option<&Entry> {
        let e = self.indexes.get(self.resolve(name)?)?;
        e.touch();
        Some(e)
    }

    /// Counts one use of the index `name` (or the index an alias names) when it exists: FT.INFO
    /// `number_of_uses`, which RediSearch 2.10 bumps each time a command looks an index up by
    /// name (`IndexSpec_LoadUnsafeEx`), whatever the command then does.
    pub(crate) fn count_use(&self, name: &[u8]) {
        if let Some(u) = self.usage_of(name) {
            u.uses.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Takes back the use a query's index stage counted when the query runs again whole (it
    /// asked for a document there): RediSearch runs it once, so it counts once.
    pub fn take_back_use(&self, name: &[u8]) {
        if let Some(u) = self.usage_of(name) {
            let _ = u.uses.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
        }
    }

    /// The usage of the index `name` or an alias names, without marking it used now.
    fn usage_of(&self, name: &[u8]) -> Option<&Usage> {
        let real = self.resolve(&String::from_utf8_lossy(name))?;
        self.indexes.get(real).map(|e| &e.usage)
    }

    /// The open cursors.
    pub(crate) fn cursors(&self) -> MutexGuard<'_, crate::aggregate::CursorTable> {
        lock(&self.cursors)
    }

    /// Adds an index (FT.CREATE / definitions load).
    pub(crate) fn create(
        &mut self,
        name: &str,
        args: &[&[u8]],
        config: &Config,
        force_scan: bool,
    ) -> Result<()> {
        if self.indexes.contains_key(name) {
            return Err(Error::new("Index already exists"));
        }
        // `force_scan`: a definition restored from an RDB, whose vector attributes give way
        // to the server's memory limit rather than fail.
        let spec =
            if force_scan { IndexSpec::parse_loaded(name, args)? } else { IndexSpec::parse(name, args)? };
        let pending = force_scan || !spec.skip_initial_scan;
        self.indexes.insert(
            name.to_string(),
            Entry {
                index: Index::new(spec, config.min_stem_len)?,
                create_args: args.iter().map(|a| a.to_vec()).collect(),
                scan: ScanState { pending, percent: if pending { 0.0 } else { 1.0 } },
                usage: Usage::new(),
            },
        );
        Ok(())
    }

    /// A key was written: (re)index it in every index whose type, prefixes and FILTER
    /// match, and drop it from the others (a failing document is dropped and counted).
    pub fn on_key_changed(&mut self, key: &[u8], docs: &dyn DocumentSource) {
        self.on_key_changed_keeping(key, docs, &|_, _| false);
    }

    /// What [`Catalog::on_key_changed`] would do, read from the document now and applied
    /// later by [`Catalog::apply`] (the glue prepares while queries share the catalog).
    pub fn prepare_key_change(&self, key: &[u8], docs: &dyn DocumentSource) -> PreparedChange {
        self.prepare_key_change_keeping(key, docs, &|_, _| false)
    }

    /// Like [`Catalog::on_key_changed`], for a write that cannot have changed the fields
    /// `unchanged` names: each index keeps what it can of them ([`crate::index::Kept`]).
    pub fn on_key_changed_keeping(&mut self, key: &[u8], docs: &dyn DocumentSource, unchanged: Unchanged) {
        for e in self.indexes.values_mut() {
            let kept = Kept::of(&e.index.spec, unchanged);
            e.index.upsert_keeping(key, docs, kept);
        }
    }

    /// Like [`Catalog::prepare_key_change`], keeping what [`Catalog::on_key_changed_keeping`]
    /// keeps.
    pub fn prepare_key_change_keeping(
        &self,
        key: &[u8],
        docs: &dyn DocumentSource,
        unchanged: Unchanged,
    ) -> PreparedChange {
        let exists = docs.key_type(key).is_some();
        PreparedChange {
            key: key.to_vec(),
            changes: self
                .indexes
                .iter()
                .map(|(name, e)| {
                    let change = if exists {
                        e.index.prepare_keeping(key, docs, Kept::of(&e.index.spec, unchanged))
                    } else {
                        KeyChange::Remove
                    };
                    (name.clone(), change)
                })
                .collect(),
        }
    }

    /// Applies a prepared change; the catalog holds the indexes it was prepared with (every
    /// change to them is applied after the changes prepared before it).
    pub fn apply(&mut self, prepared: PreparedChange) {
        for (name, change) in prepared.changes {
            if let Some(e) = self.indexes.get_mut(&name) {
                e.index.apply(&prepared.key, change);
            }
        }
    }

    /// A key was deleted (DEL, expiry, eviction, overwrite by another type, RENAME source).
    pub fn on_key_removed(&mut self, key: &[u8]) {
        for e in self.indexes.values_mut() {
            e.index.remove(key);
        }
    }

    /// FLUSHDB: drops every document, keeps definitions and aliases.
    pub fn clear(&mut self) {
        for e in self.indexes.values_mut() {
            e.index.clear();
        }
    }

    /// Prefixes the glue must scan for pending initial scans (`b""` = every key); empty
    /// when no scan is pending.
    pub fn scan_prefixes(&self) -> Vec<Vec<u8>> {
        let mut out: Vec<Vec<u8>> = Vec::new();
        for e in self.indexes.values().filter(|e| e.scan.pending) {
            if e.index.spec.prefixes.is_empty() {
                return vec![Vec::new()];
            }
            for p in &e.index.spec.prefixes {
                if !out.contains(p) {
                    out.push(p.clone());
                }
            }
        }
        out
    }

    /// Indexes one scanned key into the indexes whose initial scan is pending.
    pub fn scan_key(&mut self, key: &[u8], docs: &dyn DocumentSource) {
        for e in self.indexes.values_mut().filter(|e| e.scan.pending) {
            e.index.upsert(key, docs);
        }
    }

    /// Reports scan progress (0.0–1.0) for FT.INFO `percent_indexed`.
    pub fn scan_progress(&mut self, fraction: f64) {
        for e in self.indexes.values_mut().filter(|e| e.scan.pending) {
            e.scan.percent = fraction.clamp(0.0, 1.0);
        }
    }

    /// Ends every pending scan.
    pub fn scan_done(&mut self) {
        for e in self.indexes.values_mut() {
            e.scan = ScanState { pending: false, percent: 1.0 };
        }
    }

    /// Drops TEMPORARY indexes idle longer than their TTL at `now`; returns the keys of
    /// their documents, which the glue must delete.
    /// The TEMPORARY indexes idle past their timeout (or made due by FT.DEBUG TTL_EXPIRE),
    /// except those whose timer FT.DEBUG TTL_PAUSE stopped: the caller drops each with
    /// `FT.DROPINDEX name DD`, replicated, as RediSearch's timer does.
    pub fn expired_temporary(&self, now: Instant) -> Vec<String> {
        self.indexes
            .iter()
            .filter(|(_, e)| {
                let u = &e.usage;
                e.index.spec.temporary.is_some_and(|s| {
                    u.ttl_due.load(Ordering::Relaxed)
                        || (!u.ttl_paused.load(Ordering::Relaxed)
                            && now.saturating_duration_since(u.last_used()) >= Duration::from_secs(s))
                })
            })
            .map(|(k, _)| k.clone())
            .collect()
    }

    pub(crate) fn drop_index(&mut self, name: &str) -> Option<Entry> {
        let e = self.indexes.remove(name)?;
        self.aliases.retain(|_, v| v != name);
        Some(e)
    }

    /// Serializes index definitions and aliases (for RDB aux data).
    pub fn to_definitions(&self) -> Vec<u8> {
        let mut out = DEFS_MAGIC.to_vec();
        put_u32(&mut out, self.indexes.len() as u32);
        for (name, e) in &self.indexes {
            put_u32(&mut out, e.create_args.len() as u32 + 1);
            put_bytes(&mut out, name.as_bytes());
            for a in &e.create_args {
                put_bytes(&mut out, a);
            }
        }
        let mut aliases: Vec<_> = self.aliases.iter().collect();
        aliases.sort();
        put_u32(&mut out, aliases.len() as u32);
        for (a, i) in aliases {
            put_bytes(&mut out, a.as_bytes());
            put_bytes(&mut out, i.as_bytes());
        }
        // Synonym groups follow (absent from definitions saved before FT.SYNUPDATE existed).
        let with_synonyms: Vec<_> =
            self.indexes.iter().filter(|(_, e)| !e.index.synonyms.is_empty()).collect();
        if !with_synonyms.is_empty() {
            out.extend_from_slice(SYNONYMS_MAGIC);
            put_u32(&mut out, with_synonyms.len() as u32);
            for (name, e) in with_synonyms {
                put_bytes(&mut out, name.as_bytes());
                e.index.synonyms.write(&mut out);
            }
        }
        out
    }

    /// Restores definitions saved by [`Catalog::to_definitions`]; every index comes back
    /// empty with a pending scan.
    pub fn from_definitions(bytes: &[u8], config: &Config) -> std::result::Result<Catalog, String> {
        let mut r = Reader::new(bytes);
        if r.take(DEFS_MAGIC.len())? != DEFS_MAGIC {
            return Err("bad search definitions header".into());
        }
        let mut cat = Catalog::new();
        let n = r.u32()?;
        for _ in 0..n {
            let argc = r.u32()? as usize;
            if argc == 0 {
                return Err("bad search definitions".into());
            }
            let name = String::from_utf8_lossy(r.bytes()?).into_owned();
            let mut args = Vec::with_capacity(argc.min(4096));
            for _ in 1..argc {
                args.push(r.bytes()?.to_vec());
            }
            let refs: Vec<&[u8]> = args.iter().map(|a| a.as_slice()).collect();
            cat.create(&name, &refs, config, true).map_err(|e| e.0)?;
        }
        let n = r.u32()?;
        for _ in 0..n {
            let a = String::from_utf8_lossy(r.bytes()?).into_owned();
            let i = String::from_utf8_lossy(r.bytes()?).into_owned();
            cat.aliases.insert(a, i);
        }
        if !r.at_end() {
            if r.take(SYNONYMS_MAGIC.len())? != SYNONYMS_MAGIC {
                return Err("bad search definitions".into());
            }
            for _ in 0..r.u32()? {
                let name = String::from_utf8_lossy(r.bytes()?).into_owned();
                let synonyms = Synonyms::read(&mut r)?;
                if let Some(e) = cat.indexes.get_mut(&name) {
                    e.index.synonyms = synonyms;
                }
            }
        }
        Ok(cat)
    }

    /// True without indexes.
    pub fn is_empty(&self) -> bool {
        self.indexes.is_empty()
    }

    /// Index names (FT._LIST order).
    pub fn index_names(&self) -> Vec<String> {
        self.indexes.keys().cloned().collect()
    }

    /// Read access to an index by name or alias (tests, benches, the aggregate module).
    pub fn index(&self, name: &str) -> Option<&Index> {
        let real = self.resolve(name)?;
        self.indexes.get(real).map(|e| &e.index)
    }
}
