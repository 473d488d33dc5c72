//! FT.AGGREGATE WITHCURSOR and FT.CURSOR READ/DEL/GC.
//!
//! Contract: a cursor holds the not-yet-sent rows of one aggregation; each
//! read sends up to COUNT rows and replies `[page, next_id]` where
//! `next_id` is 0 once the rows are exhausted (the cursor is then gone).
//! A cursor idle longer than its MAXIDLE expires; time comes from the
//! caller (milliseconds of any monotonic clock), so expiry is testable.
//! At most [`MAX_CURSORS_PER_INDEX`] cursors per index.

use std::collections::{HashMap, VecDeque};

use super::error::AggError;
use super::limits::{DEFAULT_CURSOR_COUNT, DEFAULT_CURSOR_MAX_IDLE_MS, MAX_CURSORS_PER_INDEX};
use super::pipeline::AggOutput;
use super::reply::{render, AggReply, Chunk, Protocol};
use super::request::CursorOptions;
use super::rng::SplitMix64;
use super::row::Row;

struct Cursor {
    index: String,
    /// The ACL user who opened it: its rows are what that user may read.
    owner: Option<String>,
    names: Vec<String>,
    rows: VecDeque<Row>,
    chunk: u64,
    max_idle_ms: u64,
    last_used_ms: u64,
    /// Total to report on the first page; later pages report what
    /// RediSearch does (see [`CursorTable::start`]).
    first_total: u64,
    /// GROUPBY or SORTBY consumed the input up front.
    blocking: bool,
    /// Documents the query matched.
    matched: u64,
    /// [`Row::seq`] of the last row sent (documents read so far).
    read: u64,
    expand: bool,
    warning: Option<String>,
    sent_first: bool,
    sortkey: Option<Option<usize>>,
    /// The rows are the index's own documents ([`AggOutput::live_ids`]).
    live_ids: bool,
}

/// Whether the document of a key read into a cursor is still in its index: RediSearch's
/// cursor reads its index lazily and skips what was deleted since it opened.
pub type Liveness<'a> = &'a dyn Fn(&[u8]) -> bool;

/// All open cursors of the server.
pub struct CursorTable {
    cursors: HashMap<u64, Cursor>,
    rng: SplitMix64,
    /// Largest MAXIDLE granted (RediSearch's `CURSOR_MAX_IDLE`); also the
    /// default when WITHCURSOR gives none.
    pub max_idle_cap_ms: u64,
}

impl Default for CursorTable {
    fn default() -> Self {
        CursorTable::new(0x0c0f_fee5)
    }
}

impl CursorTable {
    /// An empty table; `seed` drives cursor id generation.
    pub fn new(seed: u64) -> Self {
        CursorTable {
            cursors: HashMap::new(),
            rng: SplitMix64::new(seed),
            max_idle_cap_ms: DEFAULT_CURSOR_MAX_IDLE_MS,
        }
    }

    /// The index a cursor reads, if the cursor exists.
    pub fn index_of(&self, id: u64) -> Option<&str> {
        self.cursors.get(&id).map(|c| c.index.as_str())
    }

    /// The ACL user who opened a cursor (`Some(None)`: no caller), if the cursor exists.
    pub fn owner_of(&self, id: u64) -> Option<Option<&str>> {
        self.cursors.get(&id).map(|c| c.owner.as_deref())
    }

    /// Number of open cursors.
    pub fn len(&self) -> usize {
        self.cursors.len()
    }

    /// True when no cursor is open.
    pub fn is_empty(&self) -> bool {
        self.cursors.is_empty()
    }

    /// Number of open cursors of `index`.
    pub fn count(&self, index: &str) -> usize {
        self.cursors.values().filter(|c| c.index == index).count()
    }

    /// Opens a cursor over `out` and replies its first page
    /// (`[page, cursor_id]`). When a GROUPBY or SORTBY ran, the first page
    /// reports the full total and later pages 0; otherwise each page reports
    /// the documents read since the previous page until its first row (RediSearch
    /// counts documents lazily as they are read). The cursor has no
    /// owner (see [`CursorTable::start_owned`]).
    pub fn start(
        &mut self,
        index: &str,
        out: AggOutput,
        opts: CursorOptions,
        expand: bool,
        proto: Protocol,
        now_ms: u64,
    ) -> Result<AggReply, AggError> {
        self.start_owned(index, None, out, opts, expand, proto, now_ms)
    }

    /// [`CursorTable::start`] for the ACL user `owner`, whose rows these are.
    #[allow(clippy::too_many_arguments)]
    pub fn start_owned(
        &mut self,
        index: &str,
        owner: Option<String>,
        out: AggOutput,
        opts: CursorOptions,
        expand: bool,
        proto: Protocol,
        now_ms: u64,
    ) -> Result<AggReply, AggError> {
        let id = self.reserve_owned(index, owner, out, opts, expand, now_ms)?;
        self.page(id, None, proto, now_ms, &|_| true)
    }

    /// A cursor over `out` for `owner`, its first page not sent: its id (FT.HYBRID's
    /// cursors, whose rows all come from `FT.CURSOR READ`).
    pub fn reserve_owned(
        &mut self,
        index: &str,
        owner: Option<String>,
        out: AggOutput,
        opts: CursorOptions,
        expand: bool,
        now_ms: u64,
    ) -> Result<u64, AggError> {
        if self.count(index) >= MAX_CURSORS_PER_INDEX {
            self.gc(now_ms);
            if self.count(index) >= MAX_CURSORS_PER_INDEX {
                return Err(AggError::new("Too many cursors allocated for index"));
            }
        }
        let max_idle_ms = match opts.max_idle_ms {
            Some(ms) if ms <= self.max_idle_cap_ms => ms,
            _ => self.max_idle_cap_ms,
        };
        let id = self.new_id();
        let cursor = Cursor {
            index: index.to_string(),
            owner,
            names: out.names,
            rows: if out.count_only { VecDeque::new() } else { out.rows.into() },
            chunk: opts.count.unwrap_or(DEFAULT_CURSOR_COUNT).max(1),
            max_idle_ms,
            last_used_ms: now_ms,
            first_total: out.total,
            blocking: out.blocking,
            matched: out.matched,
            read: 0,
            expand,
            warning: out.warning,
            sent_first: false,
            sortkey: out.sortkey,
            live_ids: out.live_ids,
        };
        self.cursors.insert(id, cursor);
        Ok(id)
    }

    /// `FT.CURSOR READ idx id [COUNT n]`. Rows of documents `live` says are gone are
    /// skipped, uncounted (a cursor whose input was not consumed up front).
    pub fn read(
        &mut self,
        id: u64,
        count: Option<u64>,
        proto: Protocol,
        now_ms: u64,
        live: Liveness<'_>,
    ) -> Result<AggReply, AggError> {
        self.expire(id, now_ms);
        if !self.cursors.contains_key(&id) {
            return Err(AggError::new("Cursor not found"));
        }
        self.page(id, count, proto, now_ms, live)
    }

    /// `FT.CURSOR DEL idx id`.
    pub fn delete(&mut self, id: u64, now_ms: u64) -> Result<(), AggError> {
        self.expire(id, now_ms);
        match self.cursors.remove(&id) {
            Some(_) => Ok(()),
            None => Err(AggError::new("Cursor does not exist")),
        }
    }

    /// `FT.CURSOR GC idx`: drops every expired cursor; returns how many.
    pub fn gc(&mut self, now_ms: u64) -> usize {
        let before = self.cursors.len();
        self.cursors.retain(|_, c| !expired(c, now_ms));
        before - self.cursors.len()
    }

    /// Drops the cursors of a dropped index.
    pub fn drop_index(&mut self, index: &str) {
        self.cursors.retain(|_, c| c.index != index);
    }

    fn expire(&mut self, id: u64, now_ms: u64) {
        if self.cursors.get(&id).is_some_and(|c| expired(c, now_ms)) {
            self.cursors.remove(&id);
        }
    }

    fn new_id(&mut self) -> u64 {
        loop {
            // Positive 31-bit ids, like RediSearch's, never 0.
            let id = (self.rng.next_u64() & 0x7fff_ffff) + 1;
            if !self.cursors.contains_key(&id) {
                return id;
            }
        }
    }

    fn page(
        &mut self,
        id: u64,
        count: Option<u64>,
        proto: Protocol,
        now_ms: u64,
        live: Liveness<'_>,
    ) -> Result<AggReply, AggError> {
        let Some(c) = self.cursors.get_mut(&id) else {
            return Err(AggError::new("Cursor not found"));
        };
        let n = count.filter(|&n| n > 0).unwrap_or(c.chunk);
        if count.is_some_and(|n| n > 0) {
            c.chunk = n;
        }
        let want = usize::try_from(n).unwrap_or(usize::MAX);
        let check = c.live_ids && !c.blocking;
        // Rows of documents deleted since the cursor opened, skipped before this page's first row.
        let mut gone_before_first = 0u64;
        let mut rows: Vec<Row> = Vec::with_capacity(want.min(c.rows.len()));
        while rows.len() < want {
            let Some(row) = c.rows.pop_front() else { break };
            let alive = !check || row.key.as_deref().is_none_or(live);
            if alive {
                rows.push(row);
            } else if rows.is_empty() {
                gone_before_first += 1;
            }
        }
        // Done when the rows ran out before the page filled (RediSearch only
        // notices the end when a read pulls past it).
        let done = rows.len() < want;
        let total = if !c.sent_first && c.blocking {
            c.first_total
        } else if c.blocking {
            0
        } else {
            // Documents read for this page until its first row (to the end without one).
            let first = rows.first().map_or(c.matched, |r| r.seq);
            let total = first.saturating_sub(c.read).saturating_sub(gone_before_first);
            c.read = rows.last().map_or(c.matched, |r| r.seq);
            total
        };
        let warning = if done { c.warning.take() } else { None };
        c.sent_first = true;
        c.last_used_ms = now_ms;
        let chunk = Chunk {
            names: &c.names,
            rows: &rows,
            total,
            warning: warning.as_deref(),
            expand: c.expand,
            sortkey: c.sortkey,
        };
        let page = render(&chunk, proto);
        let next = if done {
            self.cursors.remove(&id);
            0
        } else {
            id
        };
        Ok(AggReply::Array(vec![page, AggReply::Int(next as i64)]))
    }
}

fn expired(c: &Cursor, now_ms: u64) -> bool {
    now_ms.saturating_sub(c.last_used_ms) > c.max_idle_ms
}
