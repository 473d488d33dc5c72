//! Geo index of one GEO field: a grid pyramid. At 4, 8, 12 and 16 bits per dimension, each
//! point falls in one cell (longitude and latitude bits interleaved into a z-order code) and
//! each non-empty cell holds a bitmap of its documents. A radius query covers the circle's
//! bounding box with a few cells of the coarsest useful level, takes whole the cells inside
//! the circle, skips those outside, refines border cells into their non-empty children, and
//! measures the exact distance only for documents of border cells of the finest level.

use std::collections::{BTreeMap, HashMap};

use roaring::RoaringBitmap;

/// Earth radius used by Redis GEO commands, meters.
pub(crate) const EARTH_RADIUS_M: f64 = 6372797.560856;

/// Bits per dimension of the fine grid.
const FINE_BITS: u32 = 16;

/// Bits per dimension added from one level of the pyramid to the next.
const LEVEL_STEP: u32 = 4;

/// Levels of the pyramid (bits per dimension: 4, 8, 12, 16).
const LEVELS: usize = (FINE_BITS / LEVEL_STEP) as usize;

/// Most cells a query enumerates at its starting level (the finest level that keeps the
/// bounding box within this many cells is chosen).
const MAX_QUERY_CELLS: u64 = 64;

/// Relative and absolute slack (meters) that keeps cell classification conservative against
/// rounding: a cell is taken whole only when it is inside by more than this.
const SLACK_REL: f64 = 1e-9;
const SLACK_ABS_M: f64 = 1e-3;

/// The great-circle distance in meters between two points, as Redis's `geohashGetDistance`
/// computes it (haversine on the WGS84 radius Redis uses, each coordinate turned into radians
/// before the differences are taken): RediSearch's geo filter and `geodistance` both measure
/// with it, so a point at the radius's very edge is in or out as there. The one distance of
/// the crate. NaN for nearly antipodal points (the sine's square rounds above 1), as there.
pub fn geohash_distance(lon1: f64, lat1: f64, lon2: f64, lat2: f64) -> f64 {
    let (lat1r, lon1r, lat2r, lon2r) = (lat1 * D_R, lon1 * D_R, lat2 * D_R, lon2 * D_R);
    let u = ((lat2r - lat1r) / 2.0).sin();
    let v = ((lon2r - lon1r) / 2.0).sin();
    2.0 * EARTH_RADIUS_M * (u * u + lat1r.cos() * lat2r.cos() * v * v).sqrt().asin()
}

/// Degrees to radians, as Redis (`ang * D_R`).
pub(crate) const D_R: f64 = std::f64::consts::PI / 180.0;

/// Parses `"lon,lat"` (also `"lon lat"`), checking Redis's coordinate ranges.
pub fn parse_point(s: &str) -> Option<(f64, f64)> {
    let mut it = s.split([',', ' ']).filter(|p| !p.is_empty());
    let lon: f64 = it.next()?.trim().parse().ok()?;
    let lat: f64 = it.next()?.trim().parse().ok()?;
    if it.next().is_some() || !(-180.0..=180.0).contains(&lon) || !(-85.05112878..=85.05112878).contains(&lat)
    {
        return None;
    }
    Some((lon, lat))
}

/// A GEO field's value as RediSearch indexes it (`parseGeo`, then `calcGeoHash`): split at
/// the first blank or comma, each side read whole by `strtod` (an empty side is 0), then the
/// coordinates checked against Redis's ranges; the error is the reference's.
pub fn parse_geo_value(s: &str) -> Result<(f64, f64), String> {
    if s.len() > 128 {
        return Err("Geo string cannot be longer than 128 bytes".into());
    }
    let Some(at) = s.find([' ', ',']) else { return Err("Invalid geo string".into()) };
    let whole = |part: &str| -> Option<f64> {
        if part.is_empty() {
            return Some(0.0);
        }
        match crate::aggregate::value::strtod_prefix(part.as_bytes()) {
            Some((v, end)) if end == part.len() => Some(v),
            _ => None,
        }
    };
    let (Some(lon), Some(lat)) = (whole(&s[..at]), whole(&s[at + 1..])) else {
        return Err("Invalid geo string".into());
    };
    if !(-180.0..=180.0).contains(&lon) || !(-85.05112878..=85.05112878).contains(&lat) {
        return Err(format!("Invalid geo coordinates: {lon:.6}, {lat:.6}"));
    }
    Ok((lon, lat))
}

/// Meters per unit (`m`, `km`, `mi`, `ft`).
pub fn unit_factor(unit: &str) -> Option<f64> {
    match unit.to_ascii_lowercase().as_str() {
        "m" => Some(1.0),
        "km" => Some(1000.0),
        "mi" => Some(1609.34),
        "ft" => Some(0.3048),
        _ => None,
    }
}

/// Fine grid column of a longitude.
fn grid_x(lon: f64) -> u32 {
    let max = (1u32 << FINE_BITS) - 1;
    let v = ((lon + 180.0) / 360.0 * f64::from(1u32 << FINE_BITS)).floor();
    if v.is_nan() || v < 0.0 {
        0
    } else {
        (v as u32).min(max)
    }
}

/// Fine grid row of a latitude.
fn grid_y(lat: f64) -> u32 {
    let max = (1u32 << FINE_BITS) - 1;
    let v = ((lat + 90.0) / 180.0 * f64::from(1u32 << FINE_BITS)).floor();
    if v.is_nan() || v < 0.0 {
        0
    } else {
        (v as u32).min(max)
    }
}

/// Spreads the low 16 bits of `v` to the even bit positions.
fn spread(v: u32) -> u32 {
    let mut x = v & 0xffff;
    x = (x | (x << 8)) & 0x00ff_00ff;
    x = (x | (x << 4)) & 0x0f0f_0f0f;
    x = (x | (x << 2)) & 0x3333_3333;
    x = (x | (x << 1)) & 0x5555_5555;
    x
}

/// Z-order code of a cell (`x` in the even bits, `y` in the odd ones).
fn morton(x: u32, y: u32) -> u32 {
    spread(x) | (spread(y) << 1)
}

/// A cell of the grid at some level: its bounds in degrees.
#[derive(Debug, Clone, Copy)]
struct Cell {
    lon_lo: f64,
    lon_hi: f64,
    lat_lo: f64,
    lat_hi: f64,
}

impl Cell {
    /// Cell (`x`, `y`) of the grid with `bits` bits per dimension.
    fn at(x: u32, y: u32, bits: u32) -> Cell {
        let n = f64::from(1u32 << bits);
        let (w, h) = (360.0 / n, 180.0 / n);
        Cell {
            lon_lo: -180.0 + f64::from(x) * w,
            lon_hi: -180.0 + f64::from(x + 1) * w,
            lat_lo: -90.0 + f64::from(y) * h,
            lat_hi: -90.0 + f64::from(y + 1) * h,
        }
    }

    /// Where the cell lies relative to the circle of `radius_m` around (`lon`, `lat`): the
    /// distance to the cell's center plus or minus an upper bound of the distance from the
    /// center to any point of the cell.
    fn relation(&self, lon: f64, lat: f64, radius_m: f64) -> Relation {
        let (clon, clat) = ((self.lon_lo + self.lon_hi) / 2.0, (self.lat_lo + self.lat_hi) / 2.0);
        let h = ((self.lat_hi - self.lat_lo) / 2.0).to_radians();
        let w = ((self.lon_hi - self.lon_lo) / 2.0).to_radians();
        let max_cos = if self.lat_lo <= 0.0 && self.lat_hi >= 0.0 {
            1.0
        } else {
            self.lat_lo.abs().min(self.lat_hi.abs()).to_radians().cos()
        };
        let a = (h / 2.0).sin().powi(2) + clat.to_radians().cos() * max_cos * (w / 2.0).sin().powi(2);
        let reach = 2.0 * EARTH_RADIUS_M * a.sqrt().min(1.0).asin();
        // NaN (nearly antipodal) makes the cell a border cell: its points are measured.
        let d = geohash_distance(lon, lat, clon, clat);
        let slack = radius_m * SLACK_REL + SLACK_ABS_M;
        if d + reach <= radius_m - slack {
            Relation::Inside
        } else if d - reach > radius_m + slack {
            Relation::Outside
        } else {
            Relation::Border
        }
    }
}

/// A cell against a circle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Relation {
    Inside,
    Outside,
    Border,
}

/// Fine-grid column ranges and the row range covering the circle (with a margin): one or
/// two column ranges (two when the box crosses the antimeridian), all columns when it
/// reaches a pole.
fn bounding_box(lon: f64, lat: f64, radius_m: f64) -> (Vec<(u32, u32)>, (u32, u32)) {
    let all = (0, (1u32 << FINE_BITS) - 1);
    let delta = radius_m / EARTH_RADIUS_M; // angular radius
    if delta >= std::f64::consts::PI / 2.0 {
        return (vec![all], all);
    }
    let margin = 1e-7;
    let dlat = delta.to_degrees() + margin;
    let (lat_lo, lat_hi) = (lat - dlat, lat + dlat);
    let rows = (grid_y(lat_lo.max(-90.0)), grid_y(lat_hi.min(90.0)));
    let cos_lat = lat.to_radians().cos();
    if lat_hi >= 90.0 || lat_lo <= -90.0 || delta.sin() >= cos_lat {
        return (vec![all], rows);
    }
    let dlon = (delta.sin() / cos_lat).asin().to_degrees() + margin;
    if dlon >= 180.0 {
        return (vec![all], rows);
    }
    let (lo, hi) = (lon - dlon, lon + dlon);
    let cols = if lo < -180.0 {
        vec![(grid_x(lo + 360.0), all.1), (0, grid_x(hi))]
    } else if hi > 180.0 {
        vec![(grid_x(lo), all.1), (0, grid_x(hi - 360.0))]
    } else {
        vec![(grid_x(lo), grid_x(hi))]
    };
    (cols, rows)
}

/// One GEO field's index.
#[derive(Default)]
pub struct GeoIndex {
    /// Points of each document (for exact checks on border cells and for removal).
    points: HashMap<u32, Vec<(f64, f64)>>,
    /// Per level (4, 8, 12, 16 bits): cell z-code → documents with a point in it.
    levels: [BTreeMap<u32, RoaringBitmap>; LEVELS],
}

/// Bits per dimension of pyramid level `k`.
fn level_bits(k: usize) -> u32 {
    (k as u32 + 1) * LEVEL_STEP
}

/// The z-codes of a point at every level.
fn codes(lon: f64, lat: f64) -> [u32; LEVELS] {
    let (x, y) = (grid_x(lon), grid_y(lat));
    std::array::from_fn(|k| {
        let shift = FINE_BITS - level_bits(k);
        morton(x >> shift, y >> shift)
    })
}

impl GeoIndex {
    /// Adds a point of `doc`. What is kept, and measured by queries, is the point RediSearch
    /// files (`calcGeoHash`, then `decodeGeo` when a filter checks it): the centre of the
    /// point's 52-bit geohash cell, up to about half a meter from the value written.
    pub fn add(&mut self, doc: u32, lon: f64, lat: f64) {
        use super::numeric_tree::{geo_ranges::decode_point, geohash::geohash};
        let (lon, lat) = decode_point(geohash(lon, lat));
        self.points.entry(doc).or_default().push((lon, lat));
        for (level, code) in self.levels.iter_mut().zip(codes(lon, lat)) {
            level.entry(code).or_default().insert(doc);
        }
    }

    /// Points indexed (RediSearch counts each as a record).
    pub fn records(&self) -> u64 {
        self.points.values().map(|p| p.len() as u64).sum()
    }

    /// Removes every point of `doc`.
    pub fn remove(&mut self, doc: u32) {
        let Some(pts) = self.points.remove(&doc) else { return };
        for (lon, lat) in pts {
            for (level, code) in self.levels.iter_mut().zip(codes(lon, lat)) {
                if let Some(bm) = level.get_mut(&code) {
                    bm.remove(doc);
                    if bm.is_empty() {
                        level.remove(&code);
                    }
                }
            }
        }
    }

    /// Docs with a point within `radius_m` of (lon, lat).
    pub fn radius(&self, lon: f64, lat: f64, radius_m: f64) -> RoaringBitmap {
        let mut q =
            Query { idx: self, lon, lat, radius_m, out: RoaringBitmap::new(), border: RoaringBitmap::new() };
        if radius_m.is_nan() || radius_m < 0.0 || !lon.is_finite() || !lat.is_finite() {
            return q.out;
        }
        let (cols, rows) = bounding_box(lon, lat, radius_m);
        // The finest level whose cells cover the box in at most MAX_QUERY_CELLS cells.
        let count = |k: usize| -> u64 {
            let s = FINE_BITS - level_bits(k);
            let ny = u64::from((rows.1 >> s) - (rows.0 >> s) + 1);
            cols.iter().map(|&(a, b)| u64::from((b >> s) - (a >> s) + 1)).sum::<u64>() * ny
        };
        let k = (0..LEVELS).rev().find(|&k| count(k) <= MAX_QUERY_CELLS).unwrap_or(0);
        let shift = FINE_BITS - level_bits(k);
        for &(c0, c1) in &cols {
            for cy in (rows.0 >> shift)..=(rows.1 >> shift) {
                for cx in (c0 >> shift)..=(c1 >> shift) {
                    let code = morton(cx, cy);
                    if let Some(bm) = self.levels.get(k).and_then(|l| l.get(&code)) {
                        q.visit(k, code, bm);
                    }
                }
            }
        }
        let Query { mut out, mut border, .. } = q;
        border -= &out;
        for d in border.iter() {
            let near = self
                .points
                .get(&d)
                // `isWithinRadius`: out only when farther than the radius (a NaN is in).
                .is_some_and(|pts| {
                    pts.iter()
                        .map(|&(x, y)| geohash_distance(lon, lat, x, y))
                        .any(|d| d <= radius_m || d.is_nan())
                });
            if near {
                out.insert(d);
            }
        }
        out
    }

    /// Approximate heap bytes.
    pub fn mem_bytes(&self) -> usize {
        self.points.values().map(|v| 40 + v.len() * 16).sum::<usize>()
            + self
                .levels
                .iter()
                .flat_map(|l| l.values())
                .filter(|b| !b.is_empty())
                .map(|b| 24 + b.serialized_size())
                .sum::<usize>()
    }
}

/// One radius query's walk down the pyramid.
struct Query<'a> {
    idx: &'a GeoIndex,
    lon: f64,
    lat: f64,
    radius_m: f64,
    /// Documents certainly within the radius.
    out: RoaringBitmap,
    /// Documents of finest-level border cells, to check exactly.
    border: RoaringBitmap,
}

impl Query<'_> {
    /// Classifies the non-empty cell `code` of level `k` (documents `bm`) and refines it.
    fn visit(&mut self, k: usize, code: u32, bm: &RoaringBitmap) {
        let (x, y) = unmorton(code);
        match Cell::at(x, y, level_bits(k)).relation(self.lon, self.lat, self.radius_m) {
            Relation::Outside => {}
            Relation::Inside => self.out |= bm,
            Relation::Border => match self.idx.levels.get(k + 1) {
                None => self.border |= bm,
                Some(next) => {
                    let first = code << (2 * LEVEL_STEP);
                    let last = first | ((1u32 << (2 * LEVEL_STEP)) - 1);
                    for (&child, cbm) in next.range(first..=last) {
                        self.visit(k + 1, child, cbm);
                    }
                }
            },
        }
    }
}

/// Inverse of [`morton`].
fn unmorton(code: u32) -> (u32, u32) {
    fn squash(v: u32) -> u32 {
        let mut x = v & 0x5555_5555;
        x = (x | (x >> 1)) & 0x3333_3333;
        x = (x | (x >> 2)) & 0x0f0f_0f0f;
        x = (x | (x >> 4)) & 0x00ff_00ff;
        x = (x | (x >> 8)) & 0x0000_ffff;
        x
    }
    (squash(code), squash(code >> 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radius_filters_by_distance() {
        let mut g = GeoIndex::default();
        g.add(1, 2.3522, 48.8566); // Paris
        g.add(2, -0.1276, 51.5072); // London
        assert_eq!(g.radius(2.35, 48.85, 10_000.0).iter().collect::<Vec<_>>(), vec![1]);
        assert_eq!(g.radius(2.35, 48.85, 400_000.0).len(), 2);
        assert_eq!(parse_point("2.35,48.85"), Some((2.35, 48.85)));
        assert_eq!(parse_point("200,1"), None);
        g.remove(1);
        assert_eq!(g.radius(2.35, 48.85, 400_000.0).iter().collect::<Vec<_>>(), vec![2]);
        assert!(g.levels.iter().all(|l| l.len() == 1), "the emptied cells are dropped");
    }

    #[test]
    fn morton_round_trips() {
        for (x, y) in [(0, 0), (1, 0), (0, 1), (0xffff, 0xffff), (0x1234, 0xabcd)] {
            assert_eq!(unmorton(morton(x, y)), (x, y));
        }
    }

    #[test]
    fn across_the_antimeridian() {
        let mut g = GeoIndex::default();
        g.add(1, 179.99, 0.0);
        g.add(2, -179.99, 0.0);
        // 0.02 degrees of longitude at the equator is about 2.2 km.
        assert_eq!(g.radius(179.995, 0.0, 3_000.0).len(), 2);
        assert_eq!(g.radius(-179.995, 0.0, 3_000.0).len(), 2);
        assert_eq!(g.radius(179.995, 0.0, 1_000.0).iter().collect::<Vec<_>>(), vec![1]);
    }
}
