//! FT.SEARCH's legacy filters (FILTER, GEOFILTER, INKEYS) as clauses of the query, where
//! RediSearch 2.10 puts them (`QAST_SetGlobalFilters`): each is intersected with the query's
//! root, first the numeric filters in order, then the geo filters, then the keys. An
//! intersection root takes the clause as its first child; any other root becomes the second
//! child of a new intersection; a KNN root takes it into its filter. So a filter scores as the
//! clause would (a numeric or geo range counts frequency 1, keys nothing) and counts as a
//! child without positions in the slop measure, and a filter on a field that is not numeric
//! (or geo) matches nothing.

use crate::query::syntax::{NumBound, QueryAst};

/// A FILTER: field, lower bound (inclusive?), upper bound (inclusive?).
pub type NumericFilter = (String, f64, bool, f64, bool);
/// A GEOFILTER: field, longitude, latitude, radius in metres.
pub type GeoFilter = (String, f64, f64, f64);

/// `root` with the filters applied as RediSearch applies them.
pub fn apply(
    mut root: QueryAst,
    numeric: &[NumericFilter],
    geo: &[GeoFilter],
    keys: Option<&[Vec<u8>]>,
) -> QueryAst {
    for (field, lo, lo_incl, hi, hi_incl) in numeric {
        let clause = QueryAst::Numeric(
            field.clone(),
            NumBound { value: *lo, inclusive: *lo_incl },
            NumBound { value: *hi, inclusive: *hi_incl },
        );
        root = set_filter(root, clause);
    }
    for (field, lon, lat, radius) in geo {
        let clause =
            QueryAst::Geo { field: field.clone(), lon: *lon, lat: *lat, radius: *radius, unit: "m".into() };
        root = set_filter(root, clause);
    }
    if let Some(keys) = keys {
        root = set_filter(root, QueryAst::Keys(keys.to_vec()));
    }
    root
}

/// RediSearch's `setFilterNode`.
fn set_filter(root: QueryAst, clause: QueryAst) -> QueryAst {
    match root {
        QueryAst::And(mut items) => {
            items.insert(0, clause);
            QueryAst::And(items)
        }
        QueryAst::Knn(mut knn) => {
            let filter = std::mem::replace(&mut *knn.filter, QueryAst::MatchAll);
            *knn.filter = match filter {
                QueryAst::MatchAll => clause,
                other => QueryAst::And(vec![clause, other]),
            };
            QueryAst::Knn(knn)
        }
        other => QueryAst::And(vec![clause, other]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(f: &str) -> NumericFilter {
        (f.into(), 1.0, true, 2.0, false)
    }

    #[test]
    fn filters_join_the_root_as_redisearch_places_them() {
        let word = |w: &str| QueryAst::Word(w.into());
        // A word root becomes the second child of a new intersection.
        let q = apply(word("a"), &[num("n")], &[], None);
        assert!(matches!(&q, QueryAst::And(v) if v.len() == 2 && matches!(v[0], QueryAst::Numeric(..))));
        // An intersection root takes each filter first: the last one given ends up first.
        let q = apply(QueryAst::And(vec![word("a"), word("b")]), &[num("n"), num("m")], &[], None);
        let QueryAst::And(v) = &q else { panic!("{q:?}") };
        assert_eq!(v.len(), 4);
        assert!(matches!(&v[0], QueryAst::Numeric(f, ..) if f == "m"));
        assert!(matches!(&v[1], QueryAst::Numeric(f, ..) if f == "n"));
        // Numeric, then geo, then keys.
        let q = apply(word("a"), &[num("n")], &[("g".into(), 1.0, 2.0, 3.0)], Some(&[b"k".to_vec()]));
        let QueryAst::And(v) = &q else { panic!("{q:?}") };
        assert!(matches!(&v[0], QueryAst::Keys(_)));
        assert!(matches!(&v[1], QueryAst::Geo { .. }));
        assert!(matches!(&v[2], QueryAst::Numeric(..)));
        assert!(matches!(&v[3], QueryAst::Word(_)));
    }
}
