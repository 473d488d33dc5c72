//! The geohash ranges RediSearch 2.10 reads for a radius query on a GEO field (`calcRanges`
//! in `rs_geo.c`, over Redis's `geohashGetAreasByRadius`): the box holding the centre at a
//! step fitted to the radius and its eight neighbours, less those the search area cannot
//! reach, each as the `[min, max]` of the 52-bit geohashes inside it. Each range is then a
//! numeric filter on the field's range tree ([`super::Tree::find`]).

use super::geohash::{spread, LAT_MAX, LAT_MIN};
use crate::index::geo::{geohash_distance as distance, D_R, EARTH_RADIUS_M as EARTH_RADIUS_IN_METERS};

const STEP_MAX: u8 = 26;
const LON_MIN: f64 = -180.0;
const LON_MAX: f64 = 180.0;
const MERCATOR_MAX: f64 = 20_037_726.37;

/// A geohash of `step` bits per coordinate (latitude bits in the even positions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hash {
    bits: u64,
    step: u8,
}

impl Hash {
    const ZERO: Hash = Hash { bits: 0, step: 0 };

    fn is_zero(self) -> bool {
        self.bits == 0 && self.step == 0
    }
}

/// A decoded box: (min, max) longitude and latitude.
#[derive(Debug, Clone, Copy)]
struct Area {
    lon: (f64, f64),
    lat: (f64, f64),
}

fn deg_rad(a: f64) -> f64 {
    a * D_R
}

fn rad_deg(a: f64) -> f64 {
    a / D_R
}

fn interleave(lat: u32, lon: u32) -> u64 {
    spread(lat) | (spread(lon) << 1)
}

/// The even bits of `v` packed down (the inverse of `spread`).
fn squash(v: u64) -> u32 {
    let mut x = v & 0x5555_5555_5555_5555;
    x = (x | (x >> 1)) & 0x3333_3333_3333_3333;
    x = (x | (x >> 2)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x >> 4)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x >> 8)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x >> 16)) & 0x0000_0000_FFFF_FFFF;
    x as u32
}

/// `geohashEncode` (WGS84 ranges); None outside them.
fn encode(lon: f64, lat: f64, step: u8) -> Option<Hash> {
    if !(LON_MIN..=LON_MAX).contains(&lon) || !(LAT_MIN..=LAT_MAX).contains(&lat) || step == 0 {
        return None;
    }
    let scale = (1u64 << step) as f64;
    let lat_off = (lat - LAT_MIN) / (LAT_MAX - LAT_MIN) * scale;
    let lon_off = (lon - LON_MIN) / (LON_MAX - LON_MIN) * scale;
    Some(Hash { bits: interleave(lat_off as u32, lon_off as u32), step })
}

/// `geohashDecode`.
fn decode(h: Hash) -> Area {
    let (ilat, ilon) = (f64::from(squash(h.bits)), f64::from(squash(h.bits >> 1)));
    let scale = (1u64 << h.step) as f64;
    let (lat_span, lon_span) = (LAT_MAX - LAT_MIN, LON_MAX - LON_MIN);
    Area {
        lat: (LAT_MIN + ilat / scale * lat_span, LAT_MIN + (ilat + 1.0) / scale * lat_span),
        lon: (LON_MIN + ilon / scale * lon_span, LON_MIN + (ilon + 1.0) / scale * lon_span),
    }
}

/// `geohash_move_x` (`odd`: the longitude bits) and `geohash_move_y`.
fn moved(h: Hash, d: i8, odd: bool) -> Hash {
    if d == 0 {
        return h;
    }
    let (mine, other) = if odd {
        (0xAAAA_AAAA_AAAA_AAAAu64, 0x5555_5555_5555_5555u64)
    } else {
        (0x5555_5555_5555_5555, 0xAAAA_AAAA_AAAA_AAAA)
    };
    let shift = 64 - u32::from(h.step) * 2;
    let mut x = h.bits & mine;
    let y = h.bits & other;
    let zz = other >> shift;
    if d > 0 {
        x = x.wrapping_add(zz.wrapping_add(1));
    } else {
        x |= zz;
        x = x.wrapping_sub(zz.wrapping_add(1));
    }
    x &= mine >> shift;
    Hash { bits: x | y, step: h.step }
}

fn neighbour(h: Hash, dx: i8, dy: i8) -> Hash {
    moved(moved(h, dx, true), dy, false)
}

/// `geohashEstimateStepsByRadius`.
fn estimate_steps(mut range: f64, lat: f64) -> u8 {
    if range == 0.0 {
        return STEP_MAX;
    }
    let mut step: i32 = 1;
    while range < MERCATOR_MAX {
        range *= 2.0;
        step += 1;
    }
    step -= 2;
    if !(-66.0..=66.0).contains(&lat) {
        step -= 1;
        if !(-80.0..=80.0).contains(&lat) {
            step -= 1;
        }
    }
    step.clamp(1, i32::from(STEP_MAX)) as u8
}

/// The centre box and its neighbours in RediSearch's order (self, N, S, E, W, NE, NW, SE, SW),
/// a zero hash for a neighbour left out (`geohashGetAreasByRadius`).
fn areas(lon: f64, lat: f64, radius: f64) -> [Hash; 9] {
    let dlon = rad_deg(radius / EARTH_RADIUS_IN_METERS / deg_rad(lat).cos());
    let dlat = rad_deg(radius / EARTH_RADIUS_IN_METERS);
    let (min_lon, max_lon, min_lat, max_lat) = (lon - dlon, lon + dlon, lat - dlat, lat + dlat);
    let mut steps = estimate_steps(radius, lat);
    let boxes = |steps: u8| -> Option<[Hash; 9]> {
        let h = encode(lon, lat, steps)?;
        Some([
            h,
            neighbour(h, 0, 1),
            neighbour(h, 0, -1),
            neighbour(h, 1, 0),
            neighbour(h, -1, 0),
            neighbour(h, 1, 1),
            neighbour(h, -1, 1),
            neighbour(h, 1, -1),
            neighbour(h, -1, -1),
        ])
    };
    let Some(mut n) = boxes(steps) else { return [Hash::ZERO; 9] };
    let (north, south, east, west) = (decode(n[1]), decode(n[2]), decode(n[3]), decode(n[4]));
    let decrease = distance(lon, lat, lon, north.lat.1) < radius
        || distance(lon, lat, lon, south.lat.0) < radius
        || distance(lon, lat, east.lon.1, lat) < radius
        || distance(lon, lat, west.lon.0, lat) < radius;
    if steps > 1 && decrease {
        steps -= 1;
        if let Some(b) = boxes(steps) {
            n = b;
        }
    }
    if steps >= 2 {
        let area = decode(n[0]);
        let mut drop = |i: &[usize]| i.iter().for_each(|&i| n[i] = Hash::ZERO);
        if area.lat.0 < min_lat {
            drop(&[2, 8, 7]);
        }
        if area.lat.1 > max_lat {
            drop(&[1, 5, 6]);
        }
        if area.lon.0 < min_lon {
            drop(&[4, 8, 6]);
        }
        if area.lon.1 > max_lon {
            drop(&[3, 7, 5]);
        }
    }
    n
}

/// `geohashAlign52Bits`.
fn align52(h: Hash) -> f64 {
    (h.bits << (52 - u32::from(h.step) * 2)) as f64
}

/// The point RediSearch files under the 52-bit geohash `hash` (`decodeGeo`: the centre of its
/// cell, as `geohashDecodeToLongLatWGS84`), longitude then latitude.
pub fn decode_point(hash: f64) -> (f64, f64) {
    let a = decode(Hash { bits: hash as u64, step: STEP_MAX });
    let lon = ((a.lon.0 + a.lon.1) / 2.0).clamp(LON_MIN, LON_MAX);
    let lat = ((a.lat.0 + a.lat.1) / 2.0).clamp(LAT_MIN, LAT_MAX);
    (lon, lat)
}

/// Whether the point filed under `hash` lies within `radius` metres of (`lon`, `lat`)
/// (`isWithinRadius`, what a geo filter's reader checks of each entry).
pub fn within(lon: f64, lat: f64, radius: f64, hash: f64) -> bool {
    let (plon, plat) = decode_point(hash);
    distance(lon, lat, plon, plat) <= radius
}

/// The `[min, max]` geohash ranges RediSearch reads for points within `radius` metres of
/// (`lon`, `lat`), in its order (`calcAllNeighbors`; boxes left out, and a box equal to the
/// one before it, give none).
pub fn radius_ranges(lon: f64, lat: f64, radius: f64) -> Vec<(f64, f64)> {
    let n = areas(lon, lat, radius);
    let mut out = Vec::new();
    let mut last: Option<usize> = None;
    for (i, h) in n.iter().enumerate() {
        if h.is_zero() {
            continue;
        }
        // `last_processed` starts at 0, which is also the centre's index: RediSearch only
        // compares once a box after the centre was taken.
        if let Some(l) = last.filter(|&l| l > 0) {
            if n[l] == *h {
                continue;
            }
        }
        let min = align52(*h);
        let max = align52(Hash { bits: h.bits + 1, step: h.step });
        if min != max {
            out.push((min, max));
        }
        last = Some(i);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_centre_box_holds_the_point() {
        for &(lon, lat, r) in &[(2.35, 48.85, 10_000.0), (13.361389, 38.115556, 200.0), (-73.9, 40.7, 5.0)] {
            let point = super::super::geohash::geohash(lon, lat);
            let ranges = radius_ranges(lon, lat, r);
            assert!(!ranges.is_empty());
            assert!(ranges.iter().any(|&(a, b)| a <= point && point < b), "{lon} {lat} {r}: {ranges:?}");
        }
    }

    #[test]
    fn decode_inverts_encode() {
        let h = encode(2.35, 48.85, 20).unwrap();
        let a = decode(h);
        assert!(a.lon.0 <= 2.35 && 2.35 < a.lon.1 && a.lat.0 <= 48.85 && 48.85 < a.lat.1, "{a:?}");
        let e = decode(neighbour(h, 1, 0));
        assert!((e.lon.0 - a.lon.1).abs() < 1e-9 && (e.lat.0 - a.lat.0).abs() < 1e-9);
        let s = decode(neighbour(h, 0, -1));
        assert!((s.lat.1 - a.lat.0).abs() < 1e-9);
    }
}
