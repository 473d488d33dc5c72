//! The geo cell index against brute force: random points (anywhere, near the poles, along the
//! antimeridian, clustered around the query), random centers and radii in m/km/mi/ft from a
//! meter to half the planet; the index must return exactly the documents with a point within
//! the radius by Redis's haversine distance from the point RediSearch files (the centre of the
//! value's 52-bit geohash cell), also after documents are removed.

use proptest::prelude::*;
use roaring::RoaringBitmap;
use search::index::geo::{geohash_distance, unit_factor, GeoIndex};

const MAX_LAT: f64 = 85.05112878;

/// A point: anywhere, near a pole, near the antimeridian, or near `center`.
fn point(center: (f64, f64)) -> impl Strategy<Value = (f64, f64)> {
    prop_oneof![
        (-180.0..=180.0f64, -MAX_LAT..=MAX_LAT),
        (-180.0..=180.0f64, prop_oneof![80.0..=MAX_LAT, -MAX_LAT..=-80.0]),
        (prop_oneof![175.0..=180.0f64, -180.0..=-175.0f64], -MAX_LAT..=MAX_LAT),
        (-0.05..0.05f64, -0.05..0.05f64).prop_map(move |(dx, dy)| {
            let mut lon = center.0 + dx;
            if lon > 180.0 {
                lon -= 360.0;
            } else if lon < -180.0 {
                lon += 360.0;
            }
            (lon, (center.1 + dy).clamp(-MAX_LAT, MAX_LAT))
        }),
    ]
}

/// A query center: anywhere, at a pole's edge, on the antimeridian.
fn center() -> impl Strategy<Value = (f64, f64)> {
    prop_oneof![
        (-180.0..=180.0f64, -MAX_LAT..=MAX_LAT),
        (-180.0..=180.0f64, prop_oneof![84.0..=MAX_LAT, -MAX_LAT..=-84.0]),
        (prop_oneof![179.0..=180.0f64, -180.0..=-179.0f64], -60.0..=60.0f64),
    ]
}

/// A radius in meters: 10^0..10^7.3 of one of the four units, at most 30,000 km.
fn radius() -> impl Strategy<Value = f64> {
    (0.0..7.3f64, prop::sample::select(vec!["m", "km", "mi", "ft"]))
        .prop_map(|(e, unit)| (10f64.powf(e) * unit_factor(unit).unwrap_or(1.0)).min(3e7))
}

/// (cluster center, points per document, queries as (center, radius), documents to remove).
type Case = ((f64, f64), Vec<Vec<(f64, f64)>>, Vec<((f64, f64), f64)>, Vec<usize>);

fn case() -> impl Strategy<Value = Case> {
    center().prop_flat_map(|c| {
        (
            Just(c),
            prop::collection::vec(prop::collection::vec(point(c), 1..3), 1..120),
            prop::collection::vec((prop_oneof![Just(c), center()], radius()), 1..12),
            prop::collection::vec(0usize..120, 0..30),
        )
    })
}

/// The point RediSearch files for (`lon`, `lat`), after Redis's C (`geohashEncodeWGS84` at
/// 26 steps, then the centre of the cell, `geohashDecodeToLongLatWGS84`).
fn filed(lon: f64, lat: f64) -> (f64, f64) {
    let steps = (1u64 << 26) as f64;
    let lon_cell = ((lon + 180.0) / 360.0 * steps) as u64 as f64;
    let lat_cell = ((lat + MAX_LAT) / (2.0 * MAX_LAT) * steps) as u64 as f64;
    let centre = |cell: f64, min: f64, scale: f64| {
        (min + (cell / steps) * scale + (min + ((cell + 1.0) / steps) * scale)) / 2.0
    };
    (
        centre(lon_cell, -180.0, 360.0).clamp(-180.0, 180.0),
        centre(lat_cell, -MAX_LAT, 2.0 * MAX_LAT).clamp(-MAX_LAT, MAX_LAT),
    )
}

fn brute(docs: &[Option<Vec<(f64, f64)>>], lon: f64, lat: f64, r: f64) -> RoaringBitmap {
    docs.iter()
        .enumerate()
        .filter(|(_, pts)| {
            pts.as_ref().is_some_and(|pts| {
                pts.iter().any(|&(x, y)| {
                    let (fx, fy) = filed(x, y);
                    geohash_distance(lon, lat, fx, fy) <= r
                })
            })
        })
        .map(|(d, _)| d as u32)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn index_equals_brute_force((_c, points, queries, removals) in case()) {
        let mut g = GeoIndex::default();
        let mut docs: Vec<Option<Vec<(f64, f64)>>> = Vec::new();
        for (d, pts) in points.iter().enumerate() {
            for &(x, y) in pts {
                g.add(d as u32, x, y);
            }
            docs.push(Some(pts.clone()));
        }
        for ((lon, lat), r) in &queries {
            prop_assert_eq!(g.radius(*lon, *lat, *r), brute(&docs, *lon, *lat, *r), "r={} at {},{}", r, lon, lat);
        }
        for k in removals {
            if let Some(slot) = docs.get_mut(k) {
                g.remove(k as u32);
                *slot = None;
            }
        }
        for ((lon, lat), r) in &queries {
            prop_assert_eq!(g.radius(*lon, *lat, *r), brute(&docs, *lon, *lat, *r));
        }
    }
}

/// Points exactly around a center at fixed distances: the radius boundary is inclusive and
/// all four units convert as RediSearch does.
#[test]
fn units_and_the_boundary() {
    let mut g = GeoIndex::default();
    // One degree of latitude is 111,226.3 m with Redis's earth radius (to the point filed).
    let (fx, fy) = filed(10.0, 1.0);
    let one_deg = geohash_distance(10.0, 0.0, fx, fy);
    g.add(1, 10.0, 1.0);
    g.add(2, 10.0, 2.0);
    assert_eq!(g.radius(10.0, 0.0, one_deg).iter().collect::<Vec<_>>(), vec![1]);
    assert!(g.radius(10.0, 0.0, f64::from_bits(one_deg.to_bits() - 1)).is_empty());
    for (unit, factor) in [("m", 1.0), ("km", 1000.0), ("mi", 1609.34), ("ft", 0.3048)] {
        assert_eq!(unit_factor(unit), Some(factor));
        let r = (one_deg * 1.5 / factor) * factor;
        assert_eq!(g.radius(10.0, 0.0, r).len(), 1, "{unit}");
    }
    // The whole planet.
    g.add(3, -170.0, -80.0);
    assert_eq!(g.radius(10.0, 0.0, 3e7).len(), 3);
    assert!(g.radius(10.0, 0.0, -1.0).is_empty());
    assert!(g.radius(10.0, 0.0, f64::NAN).is_empty());
}
