//! `geodistance(a, b)` (RediSearch `geo.c`): great-circle distance in meters,
//! rounded to 2 decimals.
//!
//! Contract: each point is either two numeric arguments (lon, lat) or one
//! `"lon,lat"` / `"lon lat"` string; 2–4 arguments; an unparsable point
//! gives NaN.

use super::check_arity;
use crate::aggregate::error::AggError;
use crate::aggregate::limits::MAX_GEO_STRING;
use crate::aggregate::value::{parse_number, Value};

/// Redis's `EARTH_RADIUS_IN_METERS`.
const EARTH_RADIUS_M: f64 = 6_372_797.560856;

/// `geodistance(...)`.
pub(super) fn geodistance(args: &[Value]) -> Result<Value, AggError> {
    check_arity("geodistance", args, 2, 4)?;
    let mut points = [(0.0, 0.0); 2];
    let mut j = 0;
    for p in &mut points {
        let Some(first) = args.get(j) else {
            return Ok(Value::Number(f64::NAN));
        };
        let parsed = if first.to_number().is_some() {
            let lat = args.get(j + 1).and_then(Value::to_number);
            j += 2;
            first.to_number().zip(lat)
        } else {
            j += 1;
            parse_point(first)
        };
        match parsed {
            Some(pt) => *p = pt,
            None => return Ok(Value::Number(f64::NAN)),
        }
    }
    let d = distance(points[0], points[1]);
    Ok(Value::Number((d * 100.0).round() / 100.0))
}

fn parse_point(v: &Value) -> Option<(f64, f64)> {
    let s = v.as_bytes()?;
    if s.len() > MAX_GEO_STRING {
        return None;
    }
    let cut = s.iter().position(|b| *b == b' ' || *b == b',')?;
    Some((parse_number(&s[..cut])?, parse_number(&s[cut + 1..])?))
}

/// Haversine distance as Redis's `geohashGetDistance` computes it.
fn distance((lon1, lat1): (f64, f64), (lon2, lat2): (f64, f64)) -> f64 {
    let (lat1r, lon1r, lat2r, lon2r) =
        (lat1.to_radians(), lon1.to_radians(), lat2.to_radians(), lon2.to_radians());
    let u = ((lat2r - lat1r) / 2.0).sin();
    let v = ((lon2r - lon1r) / 2.0).sin();
    2.0 * EARTH_RADIUS_M * (u * u + lat1r.cos() * lat2r.cos() * v * v).sqrt().asin()
}
