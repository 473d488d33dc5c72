//! The number RediSearch 2.10 files a GEO point under in the field's numeric range tree
//! (`calcGeoHash`): Redis's 52-bit geohash of the point (`geohashEncodeWGS84`, 26 steps,
//! latitude bits in the even positions), as a double.

pub(super) const LAT_MIN: f64 = -85.05112878;
pub(super) const LAT_MAX: f64 = 85.05112878;
const STEP: u32 = 26;

/// Spreads the 32 bits of `v` over the even bits of a u64.
pub(super) fn spread(v: u32) -> u64 {
    let mut x = u64::from(v);
    x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x << 2)) & 0x3333_3333_3333_3333;
    (x | (x << 1)) & 0x5555_5555_5555_5555
}

/// The geohash of (`lon`, `lat`); 0 outside what RediSearch indexes (it refuses such values).
pub fn geohash(lon: f64, lat: f64) -> f64 {
    if !(-180.0..=180.0).contains(&lon) || !(LAT_MIN..=LAT_MAX).contains(&lat) {
        return 0.0;
    }
    let scale = (1u64 << STEP) as f64;
    let lat_off = (lat - LAT_MIN) / (LAT_MAX - LAT_MIN) * scale;
    let lon_off = (lon + 180.0) / 360.0 * scale;
    (spread(lat_off as u32) | (spread(lon_off as u32) << 1)) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_and_a_known_point() {
        assert_eq!(geohash(-180.0, LAT_MIN), 0.0);
        // GEOADD's score for (13.361389, 38.115556), Redis's own example: 3479099956230698.
        assert_eq!(geohash(13.361389, 38.115556), 3_479_099_956_230_698.0);
    }
}
