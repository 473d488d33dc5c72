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
    let ((lon1, lat1), (lon2, lat2)) = (points[0], points[1]);
    let d = crate::index::geo::geohash_distance(lon1, lat1, lon2, lat2);
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
