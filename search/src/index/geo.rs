//! Geo index of one GEO field: points per document; radius queries filter by great-circle
//! distance (a linear scan over the field's points).

use std::collections::HashMap;

use roaring::RoaringBitmap;

/// Earth radius used by Redis GEO commands, meters.
const EARTH_RADIUS_M: f64 = 6372797.560856;

/// Haversine distance in meters.
pub fn distance_m(lon1: f64, lat1: f64, lon2: f64, lat2: f64) -> f64 {
    let (la1, la2) = (lat1.to_radians(), lat2.to_radians());
    let dlat = la2 - la1;
    let dlon = (lon2 - lon1).to_radians();
    let a = (dlat / 2.0).sin().powi(2) + la1.cos() * la2.cos() * (dlon / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_M * a.sqrt().asin()
}

/// Parses `"lon,lat"` (also `"lon lat"`), checking Redis's coordinate ranges.
pub fn parse_point(s: &str) -> Option<(f64, f64)> {
    let mut it = s.split([',', ' ']).filter(|p| !p.is_empty());
    let lon: f64 = it.next()?.trim().parse().ok()?;
    let lat: f64 = it.next()?.trim().parse().ok()?;
    if it.next().is_some() || !(-180.0..=180.0).contains(&lon) || !(-85.05112878..=85.05112878).contains(&lat) {
        return None;
    }
    Some((lon, lat))
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

/// One GEO field's index.
#[derive(Default)]
pub struct GeoIndex {
    points: HashMap<u32, Vec<(f64, f64)>>,
}

impl GeoIndex {
    /// Adds a point of `doc`.
    pub fn add(&mut self, doc: u32, lon: f64, lat: f64) {
        self.points.entry(doc).or_default().push((lon, lat));
    }

    /// Removes every point of `doc`.
    pub fn remove(&mut self, doc: u32) {
        self.points.remove(&doc);
    }

    /// Docs with a point within `radius_m` of (lon, lat).
    pub fn radius(&self, lon: f64, lat: f64, radius_m: f64) -> RoaringBitmap {
        self.points
            .iter()
            .filter(|(_, pts)| pts.iter().any(|&(x, y)| distance_m(lon, lat, x, y) <= radius_m))
            .map(|(d, _)| *d)
            .collect()
    }

    /// Approximate heap bytes.
    pub fn mem_bytes(&self) -> usize {
        self.points.values().map(|v| 40 + v.len() * 16).sum()
    }
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
    }
}
