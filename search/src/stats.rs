//! Server-wide figures for Redis's `INFO` sections (`search_index`, `search_fields_statistics`,
//! `search_memory`, `search_cursors`, `search_dialect_statistics`): the sums over every
//! database's [`Catalog`] that RediSearch 2.10 keeps in its global statistics. The glue writes
//! the sections; this module only counts.

use crate::catalog::Catalog;
use crate::commands::Memory;
use crate::schema::FieldType;
use crate::vector_spec::VectorAlgo;

/// Fields of one type across every index: `[total, sortable, noindex]`.
pub type FieldCounts = [u64; 3];

/// The figures INFO reports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerStats {
    /// Indexes in every database.
    pub indexes: u64,
    /// TEXT fields.
    pub text: FieldCounts,
    /// NUMERIC fields.
    pub numeric: FieldCounts,
    /// TAG fields.
    pub tag: FieldCounts,
    /// TAG fields with CASESENSITIVE.
    pub tag_case_sensitive: u64,
    /// GEO fields.
    pub geo: FieldCounts,
    /// GEOSHAPE fields.
    pub geoshape: FieldCounts,
    /// VECTOR fields: all, FLAT, HNSW.
    pub vector: [u64; 3],
    /// Index memory in bytes (the sum of FT.INFO's `total_index_memory_sz_mb`).
    pub memory_bytes: u64,
    /// Time spent indexing, ms (the sum of FT.INFO's `total_indexing_time`).
    pub indexing_ms: f64,
    /// The indexes' collector runs, summed (INFO's `gc` section).
    pub gc: crate::index::GcStats,
    /// Open FT.AGGREGATE cursors.
    pub cursors: u64,
}

impl ServerStats {
    /// Sums `catalogs`.
    pub fn of<'a>(catalogs: impl IntoIterator<Item = &'a Catalog>) -> ServerStats {
        let mut s = ServerStats::default();
        for cat in catalogs {
            s.cursors += cat.cursors().len() as u64;
            for e in cat.indexes.values() {
                s.indexes += 1;
                let idx = &e.index;
                s.memory_bytes += Memory::of(idx).total as u64;
                s.indexing_ms += idx.stats.indexing_ms;
                s.gc.bytes_collected += idx.stats.gc.bytes_collected;
                s.gc.cycles += idx.stats.gc.cycles;
                s.gc.ms_run += idx.stats.gc.ms_run;
                for f in &idx.spec.fields {
                    let counts = match f.kind {
                        FieldType::Text => &mut s.text,
                        FieldType::Numeric => &mut s.numeric,
                        FieldType::Tag => &mut s.tag,
                        FieldType::Geo => &mut s.geo,
                        FieldType::GeoShape => &mut s.geoshape,
                        FieldType::Vector => {
                            s.vector[0] += 1;
                            match f.vector.as_ref().map(|v| v.algo) {
                                Some(VectorAlgo::Flat) => s.vector[1] += 1,
                                Some(VectorAlgo::Hnsw) => s.vector[2] += 1,
                                None => {}
                            }
                            continue;
                        }
                    };
                    counts[0] += 1;
                    counts[1] += u64::from(f.sortable);
                    counts[2] += u64::from(f.noindex);
                    if f.kind == FieldType::Tag && f.case_sensitive {
                        s.tag_case_sensitive += 1;
                    }
                }
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{DocumentSource, FieldValue, KeyType};
    use crate::{Config, Protocol};

    struct NoDocs;

    impl DocumentSource for NoDocs {
        fn key_type(&self, _: &[u8]) -> Option<KeyType> {
            None
        }
        fn values(&self, _: &[u8], _: &str) -> Result<Vec<FieldValue>, String> {
            Ok(Vec::new())
        }
        fn json_at(&self, _: &[u8], _: &str) -> Option<Vec<String>> {
            None
        }
        fn whole(&self, _: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
            None
        }
    }

    #[test]
    fn fields_are_counted_per_type_across_catalogs() {
        let mut config = Config::default();
        let mut a = Catalog::new();
        let mut b = Catalog::new();
        let create = |cat: &mut Catalog, config: &mut Config, args: &str| {
            let argv: Vec<&[u8]> = args.split(' ').map(str::as_bytes).collect();
            cat.execute("FT.CREATE", &argv, &NoDocs, config, Protocol::Resp2)
        };
        create(&mut a, &mut config, "x SCHEMA t TEXT SORTABLE n NUMERIC g TAG CASESENSITIVE");
        create(
            &mut b,
            &mut config,
            "y SCHEMA u TEXT NOINDEX SORTABLE p GEO v VECTOR HNSW 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2",
        );
        let s = ServerStats::of([&a, &b]);
        assert_eq!(s.indexes, 2);
        assert_eq!(s.text, [2, 2, 1]);
        assert_eq!(s.numeric, [1, 0, 0]);
        assert_eq!(s.tag, [1, 0, 0]);
        assert_eq!(s.tag_case_sensitive, 1);
        assert_eq!(s.geo, [1, 0, 0]);
        assert_eq!(s.vector, [1, 0, 1]);
        // Empty indexes hold nothing (RediSearch 2.10.5: search_used_memory_indexes 0).
        assert_eq!(s.memory_bytes, 0);
    }
}
