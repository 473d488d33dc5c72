//! GEO fields end to end: `@g:[lon lat radius unit]` and GEOFILTER in m/km/mi/ft on hashes and
//! JSON (multi-value arrays), near the poles and across the antimeridian, checked against a
//! haversine written here; updates and deletions move documents in and out of the geo index.

mod common;

use common::*;

/// Haversine distance with Redis's earth radius (the test's own oracle).
fn dist(lon1: f64, lat1: f64, lon2: f64, lat2: f64) -> f64 {
    let r = 6372797.560856;
    let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
    let h = ((p2 - p1) / 2.0).sin().powi(2)
        + p1.cos() * p2.cos() * ((lon2 - lon1).to_radians() / 2.0).sin().powi(2);
    2.0 * r * h.sqrt().asin()
}

fn meters(unit: &str) -> f64 {
    match unit {
        "m" => 1.0,
        "km" => 1000.0,
        "mi" => 1609.34,
        "ft" => 0.3048,
        _ => panic!("{unit}"),
    }
}

fn ids(c: &mut Conn, args: &[&str]) -> Vec<String> {
    let mut full = args.to_vec();
    full.extend_from_slice(&["NOCONTENT", "LIMIT", "0", "10000"]);
    let r = c.call(&full);
    assert!(!r.is_error(), "{args:?}: {r:?}");
    let mut v: Vec<String> = r.items()[1..].iter().map(|i| i.text()).collect();
    v.sort();
    v
}

/// Deterministic pseudo-random numbers in [0, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[test]
fn radius_queries_match_a_haversine_oracle() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["FT.CREATE", "g", "PREFIX", "1", "p:", "SCHEMA", "loc", "GEO"]), ok());
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut points = Vec::new();
    for i in 0..400 {
        // A quarter anywhere, a quarter near the north pole, a quarter on the antimeridian, a
        // quarter around Paris.
        let (lon, lat) = match i % 4 {
            0 => (rng.next() * 360.0 - 180.0, rng.next() * 170.0 - 85.0),
            1 => (rng.next() * 360.0 - 180.0, 80.0 + rng.next() * 5.0),
            2 => (
                if rng.next() < 0.5 { 179.0 + rng.next() } else { -180.0 + rng.next() },
                rng.next() * 20.0 - 10.0,
            ),
            _ => (2.0 + rng.next() * 0.7, 48.6 + rng.next() * 0.5),
        };
        let key = format!("p:{i}");
        c.call(&["HSET", &key, "loc", &format!("{lon:.6},{lat:.6}")]);
        points.push((
            key,
            format!("{lon:.6}").parse::<f64>().unwrap(),
            format!("{lat:.6}").parse::<f64>().unwrap(),
        ));
    }
    let queries: &[(f64, f64, f64, &str)] = &[
        (2.35, 48.85, 10.0, "km"),
        (2.35, 48.85, 5.0, "mi"),
        (2.35, 48.85, 30000.0, "ft"),
        (2.35, 48.85, 2500.0, "m"),
        (179.9, 0.0, 150.0, "km"),
        (-179.9, 3.0, 200.0, "mi"),
        (0.0, 84.9, 800.0, "km"),
        (120.0, 85.0, 1500.0, "mi"),
        (-45.0, -30.0, 9000.0, "km"),
        (10.0, 10.0, 25000.0, "km"),
    ];
    for &(lon, lat, r, unit) in queries {
        let want: Vec<String> = {
            let mut v: Vec<String> = points
                .iter()
                .filter(|(_, x, y)| dist(lon, lat, *x, *y) <= r * meters(unit))
                .map(|(k, _, _)| k.clone())
                .collect();
            v.sort();
            v
        };
        let q = format!("@loc:[{lon} {lat} {r} {unit}]");
        assert_eq!(ids(&mut c, &["FT.SEARCH", "g", &q]), want, "{q}");
        let (slon, slat, sr) = (lon.to_string(), lat.to_string(), r.to_string());
        assert_eq!(
            ids(&mut c, &["FT.SEARCH", "g", "*", "GEOFILTER", "loc", &slon, &slat, &sr, unit]),
            want,
            "GEOFILTER {q}"
        );
    }
    // Updates move a document; deletions and HDEL remove it.
    let near = ids(&mut c, &["FT.SEARCH", "g", "@loc:[2.35 48.85 100 km]"]);
    assert!(near.len() > 20, "{}", near.len());
    c.call(&["HSET", &near[0], "loc", "-70.0,-40.0"]);
    c.call(&["DEL", &near[1]]);
    c.call(&["HDEL", &near[2], "loc"]);
    let after = ids(&mut c, &["FT.SEARCH", "g", "@loc:[2.35 48.85 100 km]"]);
    assert_eq!(after, near[3..].to_vec());
    assert_eq!(ids(&mut c, &["FT.SEARCH", "g", "@loc:[-70 -40 1 m]"]), vec![near[0].clone()]);
    assert!(c.call(&["FT.SEARCH", "g", "@loc:[2 48 10 parsecs]"]).is_error());
}

/// The point RediSearch files for (`lon`, `lat`), written here after Redis's C apart from
/// folio's: `geohashEncodeWGS84` at 26 steps, then the centre of that cell
/// (`geohashDecodeToLongLatWGS84`).
fn filed(lon: f64, lat: f64) -> (f64, f64) {
    const LAT_MAX: f64 = 85.05112878;
    let steps = (1u64 << 26) as f64;
    let lon_cell = ((lon + 180.0) / 360.0 * steps) as u64 as f64;
    let lat_cell = ((lat + LAT_MAX) / (2.0 * LAT_MAX) * steps) as u64 as f64;
    let centre = |cell: f64, min: f64, scale: f64| {
        let lo = min + (cell / steps) * scale;
        let hi = min + ((cell + 1.0) / steps) * scale;
        (lo + hi) / 2.0
    };
    (
        centre(lon_cell, -180.0, 360.0).clamp(-180.0, 180.0),
        centre(lat_cell, -LAT_MAX, 2.0 * LAT_MAX).clamp(-LAT_MAX, LAT_MAX),
    )
}

/// Redis's `geohashGetDistance`, each coordinate in radians before the differences.
fn redis_distance(lon1: f64, lat1: f64, lon2: f64, lat2: f64) -> f64 {
    let d_r = std::f64::consts::PI / 180.0;
    let (lat1r, lon1r, lat2r, lon2r) = (lat1 * d_r, lon1 * d_r, lat2 * d_r, lon2 * d_r);
    let u = ((lat2r - lat1r) / 2.0).sin();
    let v = ((lon2r - lon1r) / 2.0).sin();
    2.0 * 6372797.560856 * (u * u + lat1r.cos() * lat2r.cos() * v * v).sqrt().asin()
}

/// A point exactly at the radius is in, and out one step of the radius below, as in RediSearch
/// 2.10: its filter measures from the centre of the point's geohash cell (up to half a meter
/// from the value written) with Redis's formula. folio measured the value written, with another
/// rounding of the same formula: side by side with RediSearch 2.10.5, 872 of 1,715 such
/// queries answered differently (m), 421 of 870 (km); now none.
#[test]
fn points_at_the_radius_are_in_or_out_as_in_redisearch() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["FT.CREATE", "g", "PREFIX", "1", "p:", "SCHEMA", "loc", "GEO"]), ok());
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for i in 0..120 {
        let (lon, lat) = (rng.next() * 358.0 - 179.0, rng.next() * 168.0 - 84.0);
        let key = format!("p:{i}");
        c.call(&["HSET", &key, "loc", &format!("{lon:?},{lat:?}")]);
        let (fx, fy) = filed(lon, lat);
        let (cx, cy) = (fx + rng.next() - 0.5, (fy + rng.next() - 0.5).clamp(-84.0, 84.0));
        let r = redis_distance(cx, cy, fx, fy);
        let below = f64::from_bits(r.to_bits() - 1);
        for (radius, unit, scale, inside) in
            [(r, "m", 1.0, true), (below, "m", 1.0, false), (r, "km", 1000.0, true)]
        {
            if unit == "km" && (radius / scale) * 1000.0 != radius {
                continue; // the kilometres do not give back the same meters
            }
            let q = format!("@loc:[{cx:?} {cy:?} {:?} {unit}]", radius / scale);
            let got = ids(&mut c, &["FT.SEARCH", "g", &q]).contains(&key);
            assert_eq!(got, inside, "{key} ({lon:?}, {lat:?}) filed at ({fx:?}, {fy:?}): {q}");
            let (slon, slat, sr) = (format!("{cx:?}"), format!("{cy:?}"), format!("{:?}", radius / scale));
            let got = ids(&mut c, &["FT.SEARCH", "g", "*", "GEOFILTER", "loc", &slon, &slat, &sr, unit])
                .contains(&key);
            assert_eq!(got, inside, "GEOFILTER {q}");
        }
    }
}

#[test]
fn json_geo_arrays() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(
        c.call(&[
            "FT.CREATE", "j", "ON", "JSON", "PREFIX", "1", "j:", "SCHEMA", "$.stops[*]", "AS", "stops", "GEO"
        ]),
        ok()
    );
    c.call(&["JSON.SET", "j:1", "$", r#"{"stops":["2.35,48.85","13.40,52.52"]}"#]);
    c.call(&["JSON.SET", "j:2", "$", r#"{"stops":["-0.12,51.50"]}"#]);
    c.call(&["JSON.SET", "j:3", "$", r#"{"stops":["179.99,-16.5","-179.99,-16.5"]}"#]);
    assert_eq!(ids(&mut c, &["FT.SEARCH", "j", "@stops:[13.4 52.5 20 km]"]), vec!["j:1"]);
    assert_eq!(ids(&mut c, &["FT.SEARCH", "j", "@stops:[2.35 48.85 400 km]"]), vec!["j:1", "j:2"]);
    assert_eq!(ids(&mut c, &["FT.SEARCH", "j", "@stops:[180 -16.5 2 km]"]), vec!["j:3"]);
    // JSON.ARRPOP drops Berlin: j:1 leaves the Berlin circle at once.
    c.call(&["JSON.ARRPOP", "j:1", "$.stops"]);
    assert_eq!(ids(&mut c, &["FT.SEARCH", "j", "@stops:[13.4 52.5 20 km]"]), Vec::<String>::new());
    assert_eq!(ids(&mut c, &["FT.SEARCH", "j", "@stops:[2.35 48.85 1 mi]"]), vec!["j:1"]);
}
