//! The document table: key ↔ dense `u32` doc id, with id reuse (an update keeps its id,
//! a delete frees it), and per-document forward information (which terms, in which
//! fields, how often) so that removal never scans postings.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use roaring::RoaringBitmap;

pub use super::record::{DocRecord, RecordParts, SortRef};
use super::sort_numbers::SortNumbers;

/// One (term, field) occurrence group of a document (8 bytes; the term's positions are in
/// its posting, [`super::postings`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TermOcc {
    /// Term id in the text dictionary.
    pub term: u32,
    /// Text field ordinal.
    pub field: u16,
    /// Occurrences in that field (saturating).
    pub freq: u16,
}

/// A sortable value.
#[derive(Debug, Clone, PartialEq)]
pub enum SortValue {
    /// Number.
    Num(f64),
    /// String (normalized unless UNF).
    Str(String),
    /// The first value of a JSON SORTABLE attribute holding several (an array, or a path
    /// with several matches): RediSearch 2.10 keeps a duo value then (`JSON_LoadDocumentField`'s
    /// `multisv`), which sorts by its first value against another such value, as the empty
    /// string against a single string, and is shown as its first value before DIALECT 3.
    Several(Several<String>),
}

/// The first value of a SORTABLE attribute holding several ([`SortValue::Several`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Several<S> {
    /// A number.
    Num(f64),
    /// A string, as the document holds it.
    Str(S),
    /// JSON `null`.
    Null,
}

/// What scoring reads of every matching document, kept apart from the records (16 bytes a
/// document, in id order) so that scoring many matches does not read each record.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DocHot {
    /// Document score (SCORE / SCORE_FIELD).
    pub score: f32,
    /// Largest term frequency (TFIDF norm).
    pub max_freq: u32,
    /// Number of tokens (TFIDF.DOCNORM / BM25 length).
    pub len: u32,
    /// The id RediSearch gives this version of the document ([`DocTable::redisearch_id`]), its
    /// low 32 bits; 0 when the id holds no document. It sits where a `live` flag and padding
    /// would, so the figures stay 16 bytes.
    rs_id: u32,
}

impl DocHot {
    /// The figures of a live document (its RediSearch id is set by [`DocTable::put`]).
    pub fn new(score: f32, max_freq: u32, len: u32) -> DocHot {
        DocHot { score, max_freq, len, rs_id: 1 }
    }

    /// The id holds a document.
    pub fn live(&self) -> bool {
        self.rs_id != 0
    }

    /// The RediSearch id of the version of the document these figures belong to.
    pub fn redisearch_id(&self) -> u64 {
        u64::from(self.rs_id)
    }
}

/// Keys ↔ ids and the records.
///
/// Besides folio's own ids (dense, reused, kept by an update), each record has the id
/// RediSearch 2.10 would have given it: an index-wide counter from 1, bumped by every
/// document indexed, new or updated (RediSearch re-indexes an updated key under a new id and
/// never reuses ids; a document that fails to index gets none, as `doAssignIds` skips
/// errored documents). FT.DEBUG's dumps, DOCIDTOID/IDTODOCID, WITHRAWIDS, FT.INFO's
/// `max_doc_id` and the numeric range tree model ([`super::numeric_tree`]) show these. The
/// counter is 64 bits; each record keeps its low 32 bits (in [`DocHot`]'s padding), so ids
/// read back wrap after 2^32 documents indexed.
#[derive(Default)]
pub struct DocTable {
    /// The ids of the live keys, hashed by key (the key itself is in the record).
    ids: HashTable<u32>,
    hasher: foldhash::fast::RandomState,
    records: Vec<Option<DocRecord>>,
    /// Per id: the record's scoring figures ([`DocHot`]).
    hot: Vec<DocHot>,
    /// Freed ids, the smallest reused first: new documents then take ids in the order they
    /// came, as RediSearch's ever-growing ids order them (results tied on score come in id
    /// order).
    free: std::collections::BinaryHeap<std::cmp::Reverse<u32>>,
    /// Ids of live documents.
    pub live: RoaringBitmap,
    /// Per field index: how many records hold a value the aggregation pipeline reads from the
    /// index (a NUMERIC value served as the document's, a SORTABLE value), so a query knows
    /// in O(1) that every row has it ([`DocTable::in_every_record`]).
    columns: Vec<Columns>,
    /// The numbers of SORTABLE fields, out of the records ([`SortNumbers`]).
    numbers: SortNumbers,
    /// The last RediSearch id handed out (RediSearch's `maxDocId`).
    last_rs_id: u64,
    /// Per block of [`RS_BLOCK`] ids: a lower bound of the RediSearch ids of its documents
    /// ([`DocTable::redisearch_floor`]; `u32::MAX`: none yet).
    rs_floor: Vec<u32>,
    /// The live ids in RediSearch's document order, made when first asked for after a
    /// change ([`DocTable::in_document_order`]).
    doc_order: std::sync::OnceLock<Vec<u32>>,
}

/// Ids per block of [`DocTable::redisearch_floor`].
const RS_BLOCK: u32 = 1024;

/// Counts of one field's values in the records.
#[derive(Default, Clone, Copy)]
struct Columns {
    served: u32,
    sortable: u32,
}

/// What [`DocTable::in_every_record`] asks about a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// A NUMERIC value the index holds as the document's ([`DocRecord::served_number`]).
    Served,
    /// A SORTABLE value.
    Sortable,
}

impl DocTable {
    /// The id of `key`.
    pub fn id_of(&self, key: &[u8]) -> Option<u32> {
        let records = &self.records;
        self.ids.find(self.hasher.hash_one(key), |&id| key_of(records, id) == Some(key)).copied()
    }

    /// Asks the CPU to start loading the record of `id` (a hint): a page of ids read one after
    /// the other waits for one record's cache miss at a time, prefetched first they overlap.
    #[inline]
    pub fn prefetch(&self, id: u32) {
        if let Some(r) = self.get(id) {
            super::hnsw::prefetch_line(r.bytes_ptr().cast::<i8>());
        }
    }

    /// Asks the CPU to start loading the record of `id` and its scoring figures (which hold
    /// its RediSearch id): what a page of KNN hits reads first.
    #[inline]
    pub fn prefetch_entry(&self, id: u32) {
        if let Some(h) = self.hot.get(id as usize) {
            super::hnsw::prefetch_line((h as *const DocHot).cast::<i8>());
        }
        if let Some(r) = self.records.get(id as usize) {
            super::hnsw::prefetch_line((r as *const Option<DocRecord>).cast::<i8>());
        }
    }

    /// The record of a live id.
    pub fn get(&self, id: u32) -> Option<&DocRecord> {
        self.records.get(id as usize).and_then(|r| r.as_ref())
    }

    /// The scoring figures of a live id.
    pub fn hot(&self, id: u32) -> Option<DocHot> {
        self.hot.get(id as usize).copied().filter(DocHot::live)
    }

    /// The RediSearch id of live id `id` (0 when it holds no document).
    pub fn redisearch_id(&self, id: u32) -> u64 {
        self.hot.get(id as usize).map_or(0, |h| u64::from(h.rs_id))
    }

    /// The live id whose RediSearch id is `rs_id` (a scan: for FT.DEBUG IDTODOCID).
    pub fn by_redisearch_id(&self, rs_id: u64) -> Option<u32> {
        let low = u32::try_from(rs_id).ok().filter(|&r| r != 0)?;
        self.live.iter().find(|&id| self.hot.get(id as usize).is_some_and(|h| h.rs_id == low))
    }

    /// The last RediSearch id handed out (FT.INFO's `max_doc_id`).
    pub fn last_redisearch_id(&self) -> u64 {
        self.last_rs_id
    }

    /// A lower bound of the RediSearch ids of the documents with ids in `from..to`
    /// (`u64::MAX` when none was ever put there). A document's RediSearch id only grows (an
    /// update or a reused id gets the next one), so a bound once true stays true: it is only
    /// lowered, when a document is put, never recomputed.
    pub fn redisearch_floor(&self, from: u32, to: u32) -> u64 {
        if to <= from {
            return u64::MAX;
        }
        let (a, b) = ((from / RS_BLOCK) as usize, ((to - 1) / RS_BLOCK) as usize);
        let blocks = self.rs_floor.get(a..=b.min(self.rs_floor.len().saturating_sub(1))).unwrap_or(&[]);
        blocks.iter().min().map_or(u64::MAX, |&m| if m == u32::MAX { u64::MAX } else { u64::from(m) })
    }

    /// `ids` (live ones) in RediSearch's document order (its ids ascending): the order its
    /// index iterators yield, so the order of unsorted results and of ties. Many ids are
    /// picked out of the table's whole order (sorted once after each change), few sorted.
    pub fn in_document_order(&self, ids: &RoaringBitmap) -> Vec<u32> {
        let (m, n) = (ids.len(), self.live.len());
        if m.saturating_mul(16) < n {
            let mut v: Vec<(u64, u32)> = ids.iter().map(|id| (self.redisearch_id(id), id)).collect();
            if !v.is_sorted() {
                v.sort_unstable();
            }
            return v.into_iter().map(|(_, id)| id).collect();
        }
        let all = self
            .doc_order
            .get_or_init(|| self.in_redisearch_order(&self.live).into_iter().map(|x| x.1).collect());
        if m == n && ids == &self.live {
            return all.clone();
        }
        let mut bits = vec![0u64; (self.max_id() as usize).div_ceil(64)];
        for id in ids {
            if let Some(w) = bits.get_mut(id as usize / 64) {
                *w |= 1 << (id % 64);
            }
        }
        all.iter()
            .copied()
            .filter(|&id| bits.get(id as usize / 64).is_some_and(|w| w & (1 << (id % 64)) != 0))
            .collect()
    }

    /// Notes that id `id` now holds RediSearch id `rs` ([`Self::redisearch_floor`]).
    fn note_redisearch_id(&mut self, id: u32, rs: u32) {
        let b = (id / RS_BLOCK) as usize;
        if self.rs_floor.len() <= b {
            self.rs_floor.resize(b + 1, u32::MAX);
        }
        if let Some(m) = self.rs_floor.get_mut(b) {
            *m = (*m).min(rs);
        }
    }

    /// `ids` ordered by their RediSearch ids (what RediSearch's dumps list ascending).
    pub fn in_redisearch_order(&self, ids: impl IntoIterator<Item = u32>) -> Vec<(u64, u32)> {
        let mut v: Vec<(u64, u32)> = ids.into_iter().map(|id| (self.redisearch_id(id), id)).collect();
        v.sort_unstable();
        v
    }

    /// Bumps the RediSearch id counter; the low 32 bits, never 0, for a record.
    fn next_rs_id(&mut self) -> u32 {
        self.last_rs_id += 1;
        match self.last_rs_id as u32 {
            0 => {
                self.last_rs_id += 1;
                1
            }
            low => low,
        }
    }

    /// True when every record holds field `field`'s value of kind `what`.
    pub fn in_every_record(&self, field: u16, what: Column) -> bool {
        let c = self.columns.get(usize::from(field)).copied().unwrap_or_default();
        u64::from(match what {
            Column::Served => c.served,
            Column::Sortable => c.sortable,
        }) == self.live.len()
    }

    /// Counts `rec`'s column values in (`add`) or out.
    fn count(&mut self, rec: &DocRecord, add: bool) {
        for f in rec.served_fields() {
            bump(&mut self.columns, f, true, add);
        }
        for (f, _) in rec.sortables() {
            bump(&mut self.columns, f, false, add);
        }
    }

    /// Makes `numbers` the sortable numbers of `id` (counted in, its previous ones out).
    fn set_numbers(&mut self, id: u32, numbers: &[(u16, f64)]) {
        for f in self.numbers.fields_of(id) {
            bump(&mut self.columns, f, false, false);
        }
        self.numbers.set(id, numbers);
        for &(f, _) in numbers {
            bump(&mut self.columns, f, false, true);
        }
    }

    /// The SORTABLE number of field `field` of live id `id`, when it has one in the sort
    /// columns ([`Self::sortable`]'s `SortRef::Num`).
    #[inline]
    pub fn sort_number(&self, id: u32, field: u16) -> Option<f64> {
        self.numbers.get(id, field)
    }

    /// The sort value of field `field` of live id `id`.
    #[inline]
    pub fn sortable(&self, id: u32, field: u16) -> Option<SortRef<'_>> {
        match self.numbers.get(id, field) {
            Some(n) => Some(SortRef::Num(n)),
            None => self.get(id)?.sortable(field),
        }
    }

    /// Bytes of the sort values of live id `id`, as its record would hold them all.
    pub fn sortable_bytes(&self, id: u32) -> usize {
        self.get(id).map_or(0, DocRecord::sortable_bytes) + self.numbers.record_bytes(id)
    }

    /// Stores `rec` under its key: keeps the key's id, else reuses a freed id.
    /// Returns the id and the previous record (to unindex).
    pub fn put(&mut self, rec: DocRecord, hot: DocHot) -> (u32, Option<(DocRecord, DocHot)>) {
        self.put_sorted(rec, hot, &[])
    }

    /// Like [`Self::put`], the document's SORTABLE numbers given apart from its record
    /// (fields ascending, each value [`SortNumbers::holds`]).
    pub fn put_sorted(
        &mut self,
        rec: DocRecord,
        hot: DocHot,
        numbers: &[(u16, f64)],
    ) -> (u32, Option<(DocRecord, DocHot)>) {
        let (id, old) = self.put_record(rec, hot);
        self.set_numbers(id, numbers);
        (id, old)
    }

    fn put_record(&mut self, rec: DocRecord, mut hot: DocHot) -> (u32, Option<(DocRecord, DocHot)>) {
        self.count(&rec, true);
        self.doc_order.take();
        hot.rs_id = self.next_rs_id();
        if let Some(id) = self.id_of(rec.key()) {
            self.note_redisearch_id(id, hot.rs_id);
            let old_hot = self.hot.get_mut(id as usize).map(|h| std::mem::replace(h, hot));
            let old = self.records.get_mut(id as usize).and_then(|slot| slot.replace(rec));
            if let Some(old) = &old {
                self.count(old, false);
            }
            return (id, old.zip(old_hot));
        }
        let id = match self.free.pop() {
            Some(std::cmp::Reverse(id)) => id,
            None => {
                // 32 bytes an id: grown by an eighth.
                let n = self.records.len() + 1;
                super::growth::reserve_eighth(&mut self.records, n);
                super::growth::reserve_eighth(&mut self.hot, n);
                self.records.push(None);
                self.hot.push(DocHot::default());
                (self.records.len() - 1) as u32
            }
        };
        if let Some(h) = self.hot.get_mut(id as usize) {
            *h = hot;
        }
        self.note_redisearch_id(id, hot.rs_id);
        let hash = self.hasher.hash_one(rec.key());
        if let Some(slot) = self.records.get_mut(id as usize) {
            *slot = Some(rec);
        }
        let (records, hasher) = (&self.records, &self.hasher);
        self.ids.insert_unique(hash, id, |&i| hasher.hash_one(key_of(records, i).unwrap_or_default()));
        self.live.insert(id);
        (id, None)
    }

    /// Removes `key`; returns its id, record and scoring figures.
    pub fn remove(&mut self, key: &[u8]) -> Option<(u32, DocRecord, DocHot)> {
        let records = &self.records;
        let entry =
            self.ids.find_entry(self.hasher.hash_one(key), |&id| key_of(records, id) == Some(key)).ok()?;
        let (id, _) = entry.remove();
        self.doc_order.take();
        let rec = self.records.get_mut(id as usize).and_then(|s| s.take())?;
        self.count(&rec, false);
        self.set_numbers(id, &[]);
        let hot = self.hot.get_mut(id as usize).map(std::mem::take)?;
        self.live.remove(id);
        self.free.push(std::cmp::Reverse(id));
        Some((id, rec, hot))
    }

    /// Number of live documents.
    pub fn len(&self) -> u64 {
        self.live.len()
    }

    /// True when no document is indexed.
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }

    /// One past the highest id ever handed out.
    pub fn max_id(&self) -> u32 {
        self.records.len() as u32
    }

    /// All live keys.
    pub fn keys(&self) -> impl Iterator<Item = &[u8]> {
        self.ids.iter().filter_map(|&id| key_of(&self.records, id))
    }

    /// Approximate heap bytes of the table (records excluded).
    pub fn table_bytes(&self) -> usize {
        self.ids.capacity() * (std::mem::size_of::<u32>() + 1)
            + self.records.capacity() * std::mem::size_of::<Option<DocRecord>>()
            + self.hot.capacity() * std::mem::size_of::<DocHot>()
            + self.numbers.mem_bytes()
    }
}

/// Counts one value of field `field` in `columns` (`add`) or out: a served number, or a
/// sortable.
fn bump(columns: &mut Vec<Columns>, field: u16, served: bool, add: bool) {
    let at = usize::from(field);
    if columns.len() <= at {
        columns.resize(at + 1, Columns::default());
    }
    if let Some(c) = columns.get_mut(at) {
        let n = if served { &mut c.served } else { &mut c.sortable };
        *n = if add { n.saturating_add(1) } else { n.saturating_sub(1) };
    }
}

/// The key of record `id`.
fn key_of(records: &[Option<DocRecord>], id: u32) -> Option<&[u8]> {
    records.get(id as usize).and_then(|r| r.as_ref()).map(DocRecord::key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(key: &str) -> DocRecord {
        DocRecord::encode(&RecordParts { key: key.as_bytes().into(), ..Default::default() })
    }

    #[test]
    fn ids_are_kept_on_update_and_reused_after_delete() {
        let mut t = DocTable::default();
        let (a, _) = t.put(rec("a"), DocHot::new(1.0, 1, 1));
        let (b, _) = t.put(rec("b"), DocHot::new(1.0, 1, 1));
        let (a2, old) = t.put(rec("a"), DocHot::new(1.0, 1, 1));
        assert_eq!(a, a2);
        assert!(old.is_some());
        t.remove(b"a");
        let (c, _) = t.put(rec("c"), DocHot::new(1.0, 1, 1));
        assert_eq!(c, a);
        assert_eq!(t.max_id(), 2);
        assert_eq!(t.len(), 2);
        assert_ne!(b, c);
    }

    #[test]
    fn redisearch_ids_count_every_version_and_are_never_reused() {
        let mut t = DocTable::default();
        let hot = || DocHot::new(1.0, 1, 1);
        let (a, _) = t.put(rec("a"), hot());
        let (b, _) = t.put(rec("b"), hot());
        assert_eq!((t.redisearch_id(a), t.redisearch_id(b)), (1, 2));
        let (_, old) = t.put(rec("a"), hot());
        assert_eq!(old.map(|(_, h)| h.redisearch_id()), Some(1), "the replaced version's id");
        assert_eq!(t.redisearch_id(a), 3, "an update is a new RediSearch id, folio's id kept");
        t.remove(b"b");
        let (c, _) = t.put(rec("c"), hot());
        assert_eq!((c, t.redisearch_id(c)), (b, 4), "folio reuses the id, RediSearch does not");
        assert_eq!(t.last_redisearch_id(), 4);
        assert_eq!(t.by_redisearch_id(3), Some(a));
        assert_eq!((t.by_redisearch_id(1), t.by_redisearch_id(0)), (None, None));
        assert_eq!(t.in_redisearch_order([a, c]), vec![(3, a), (4, c)]);
        assert_eq!(t.redisearch_id(b), 4);
        t.remove(b"c");
        assert_eq!((t.redisearch_id(c), t.hot(c)), (0, None));
    }

    #[test]
    fn document_order_and_floors_follow_redisearch_ids() {
        let mut t = DocTable::default();
        let hot = || DocHot::new(1.0, 1, 1);
        assert_eq!(t.redisearch_floor(0, 10), u64::MAX, "nothing put yet");
        let (a, _) = t.put(rec("a"), hot());
        let (b, _) = t.put(rec("b"), hot());
        let (c, _) = t.put(rec("c"), hot());
        let order = |t: &DocTable, ids: &[u32]| t.in_document_order(&ids.iter().copied().collect());
        assert_eq!(order(&t, &[a, b, c]), vec![a, b, c]);
        t.put(rec("a"), hot());
        assert_eq!(order(&t, &[a, b, c]), vec![b, c, a], "a rewritten document comes last");
        assert_eq!(order(&t, &[a, c]), vec![c, a], "picked out of the whole order");
        t.remove(b"b");
        let (d, _) = t.put(rec("d"), hot());
        assert_eq!(d, b);
        assert_eq!(order(&t, &[a, c, d]), vec![c, a, d]);
        for i in 0..40 {
            t.put(rec(&format!("k{i}")), hot());
        }
        t.put(rec("c"), hot());
        assert_eq!(order(&t, &[a, c]), vec![a, c], "few ids: sorted");
        assert_eq!(t.redisearch_floor(0, 3), 1, "a bound, not the minimum (3 now)");
        assert_eq!(t.redisearch_floor(RS_BLOCK, 2 * RS_BLOCK), u64::MAX);
        assert_eq!(t.redisearch_floor(5, 5), u64::MAX);
    }

    #[test]
    fn columns_are_counted_as_records_come_and_go() {
        let with = |key: &str, served: bool, sortable: bool| {
            DocRecord::encode(&RecordParts {
                key: key.as_bytes().into(),
                numerics: vec![(1, 5.0)],
                served: if served { vec![1] } else { Vec::new() },
                sortables: if sortable { vec![(2, SortValue::Num(1.0))] } else { Vec::new() },
                ..Default::default()
            })
        };
        let hot = || DocHot::new(1.0, 1, 1);
        let every =
            |t: &DocTable| (t.in_every_record(1, Column::Served), t.in_every_record(2, Column::Sortable));
        let mut t = DocTable::default();
        assert_eq!(every(&t), (true, true), "no record: every one has it");
        t.put(with("a", true, true), hot());
        t.put(with("b", true, false), hot());
        assert_eq!(every(&t), (true, false));
        t.put(with("b", false, true), hot());
        assert_eq!(every(&t), (false, true), "a replaced record counts as the new one");
        t.remove(b"b");
        assert_eq!(every(&t), (true, true));
        t.put(with("c", false, false), hot());
        t.put(with("c", true, true), hot());
        assert_eq!(every(&t), (true, true));
        assert!(!t.in_every_record(9, Column::Served), "a field no record has");
        t.remove(b"a");
        t.remove(b"c");
        assert_eq!((t.len(), every(&t)), (0, (true, true)));
    }
}
