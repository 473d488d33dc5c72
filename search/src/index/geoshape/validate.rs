//! What RediSearch does to a geometry after reading it: Boost.Geometry's `correct` (rings
//! closed, the outer one clockwise, holes counter-clockwise) and `is_valid`, whose first
//! failure is the error, in Boost's order and words: invalid coordinates, then per ring
//! (outer first) too few points, wrong topological dimension, spikes, wrong orientation;
//! then self-intersections, holes outside the outer ring, nested holes, a disconnected
//! interior.

use geo::coordinate_position::{CoordPos, CoordinatePosition};
use geo::kernels::{Kernel, Orientation, RobustKernel};
use geo::line_intersection::{line_intersection, LineIntersection};
use geo::{Coord, Geometry, Line, LineString, Polygon};
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{RTree, RTreeObject, AABB};

use super::wkt::fmt_num;

/// Boost's `correct`: closes each ring and orients it (outer clockwise, holes
/// counter-clockwise); a ring of zero area is left as it is.
pub fn correct(g: &mut Geometry<f64>) {
    let Geometry::Polygon(p) = g else { return };
    let fix = |r: &mut LineString<f64>, clockwise: bool| {
        if let (Some(first), Some(last)) = (r.0.first().copied(), r.0.last().copied()) {
            if first != last {
                r.0.push(first);
            }
        }
        let a = signed_area(r);
        if (clockwise && a > 0.0) || (!clockwise && a < 0.0) {
            r.0.reverse();
        }
    };
    p.exterior_mut(|e| fix(e, true));
    p.interiors_mut(|rings| rings.iter_mut().for_each(|r| fix(r, false)));
}

/// Twice the signed area of a closed ring (positive counter-clockwise).
fn signed_area(r: &LineString<f64>) -> f64 {
    r.0.windows(2).map(|w| w[0].x * w[1].y - w[1].x * w[0].y).sum()
}

/// Boost's `is_valid` with its message: `Err("invalid geometry: …")` at the first failure.
pub fn check(g: &Geometry<f64>) -> Result<(), String> {
    failure(g).map_or(Ok(()), |m| Err(format!("invalid geometry: {m}")))
}

fn failure(g: &Geometry<f64>) -> Option<String> {
    let finite = |c: &Coord<f64>| c.x.is_finite() && c.y.is_finite();
    let p = match g {
        Geometry::Point(pt) => {
            return (!finite(&pt.0)).then(|| "Geometry has point(s) with invalid coordinate(s)".into())
        }
        Geometry::Polygon(p) => p,
        _ => return Some("Geometry type is not supported".into()),
    };
    let rings: Vec<&LineString<f64>> = std::iter::once(p.exterior()).chain(p.interiors()).collect();
    if rings.iter().any(|r| !r.0.iter().all(finite)) {
        return Some("Geometry has point(s) with invalid coordinate(s)".into());
    }
    for (i, r) in rings.iter().enumerate() {
        if let Some(m) = ring_failure(r, i == 0) {
            return Some(m);
        }
    }
    let mut contacts = match turns(&rings) {
        Ok(c) => c,
        Err(at) => {
            return Some(format!(
                "Geometry has invalid self-intersections. A self-intersection point was found at ({}, {})",
                fmt_num(at.x),
                fmt_num(at.y)
            ))
        }
    };
    holes_failure(&rings).or_else(|| {
        disconnecting_contact(rings.len(), &mut contacts).map(|_| "Geometry has disconnected interior".into())
    })
}

/// The ring's points without consecutive repeats (and without the closing point).
fn distinct(r: &LineString<f64>) -> Vec<Coord<f64>> {
    let mut out: Vec<Coord<f64>> = Vec::with_capacity(r.0.len());
    for c in &r.0 {
        if out.last() != Some(c) {
            out.push(*c);
        }
    }
    if out.len() > 1 && out.first() == out.last() {
        out.pop();
    }
    out
}

/// Whether `a`, `b` and `c` are on one line (exact predicate).
fn collinear(a: Coord<f64>, b: Coord<f64>, c: Coord<f64>) -> bool {
    RobustKernel::orient2d(a, b, c) == Orientation::Collinear
}

fn ring_failure(r: &LineString<f64>, outer: bool) -> Option<String> {
    if r.0.len() < 4 {
        return Some("Geometry has too few points".into());
    }
    let pts = distinct(r);
    if pts.len() < 3 {
        return Some("Geometry has wrong topological dimension".into());
    }
    // A spike: the ring goes out to a point and straight back.
    let n = pts.len();
    for i in 0..n {
        let (prev, cur, next) = (pts[(i + n - 1) % n], pts[i], pts[(i + 1) % n]);
        let back = (cur.x - prev.x) * (next.x - cur.x) + (cur.y - prev.y) * (next.y - cur.y);
        if collinear(prev, cur, next) && back < 0.0 {
            return Some(format!(
                "Geometry has spikes. A spike point was found with apex at ({}, {})",
                fmt_num(cur.x),
                fmt_num(cur.y)
            ));
        }
    }
    let a = signed_area(r);
    if (outer && a >= 0.0) || (!outer && a <= 0.0) {
        return Some("Geometry has wrong orientation".into());
    }
    None
}

/// A segment of ring `ring` (index `seg` among the ring's non-degenerate segments).
struct Seg {
    line: Line<f64>,
    ring: usize,
    seg: usize,
}

impl RTreeObject for Seg {
    type Envelope = AABB<[f64; 2]>;
    fn envelope(&self) -> Self::Envelope {
        let (a, b) = (self.line.start, self.line.end);
        AABB::from_corners([a.x, a.y], [b.x, b.y])
    }
}

/// Where the rings meet: `Err` with the first point where rings cross or overlap or a ring
/// touches itself, else the points where two rings touch (ring, ring, point).
type Contact = (usize, usize, Coord<f64>);
fn turns(rings: &[&LineString<f64>]) -> Result<Vec<Contact>, Coord<f64>> {
    let mut segs = Vec::new();
    let mut counts = Vec::new();
    for (ri, r) in rings.iter().enumerate() {
        let pts = distinct(r);
        let n = pts.len();
        counts.push(n);
        for i in 0..n {
            segs.push(Seg { line: Line::new(pts[i], pts[(i + 1) % n]), ring: ri, seg: i });
        }
    }
    let boxes =
        segs.iter().enumerate().map(|(k, s)| GeomWithData::new(Rectangle::from_aabb(s.envelope()), k));
    let tree = RTree::bulk_load(boxes.collect::<Vec<_>>());
    let adjacent = |ring: usize, a: usize, b: usize| {
        let n = counts[ring];
        (a + 1) % n == b || (b + 1) % n == a
    };
    // Rings that touch at points: a loop among them disconnects the interior.
    let mut contacts: Vec<Contact> = Vec::new();
    for s in &segs {
        for hit in tree.locate_in_envelope_intersecting(&s.envelope()) {
            let o = &segs[hit.data];
            if (o.ring, o.seg) <= (s.ring, s.seg) || (o.ring == s.ring && adjacent(s.ring, s.seg, o.seg)) {
                continue;
            }
            match line_intersection(s.line, o.line) {
                None => {}
                Some(LineIntersection::Collinear { intersection }) => return Err(intersection.start),
                Some(LineIntersection::SinglePoint { intersection, is_proper }) => {
                    if is_proper || s.ring == o.ring {
                        return Err(intersection);
                    }
                    contacts.push((s.ring, o.ring, intersection));
                }
            }
        }
    }
    Ok(contacts)
}

/// A point of contact that closes a loop in the graph of rings and contact points.
fn disconnecting_contact(rings: usize, contacts: &mut Vec<Contact>) -> Option<Coord<f64>> {
    contacts.sort_by(|a, b| (a.2.x, a.2.y).partial_cmp(&(b.2.x, b.2.y)).unwrap_or(std::cmp::Ordering::Equal));
    contacts.dedup_by(|a, b| a.2 == b.2 && a.0.min(a.1) == b.0.min(b.1) && a.0.max(a.1) == b.0.max(b.1));
    // Union-find over rings; each distinct point joins the rings meeting there.
    let mut parent: Vec<usize> = (0..rings).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    for group in contacts.chunk_by(|a, b| a.2 == b.2) {
        let mut rs: Vec<usize> = group.iter().flat_map(|c| [c.0, c.1]).collect();
        rs.sort_unstable();
        rs.dedup();
        let roots: Vec<usize> = rs.iter().map(|&r| root(&mut parent, r)).collect();
        let mut distinct_roots = roots.clone();
        distinct_roots.sort_unstable();
        distinct_roots.dedup();
        if distinct_roots.len() < roots.len() {
            return Some(group[0].2);
        }
        for r in &distinct_roots[1..] {
            parent[*r] = distinct_roots[0];
        }
    }
    None
}

/// A point of ring `r` strictly inside or outside `other` (not on its boundary).
fn off_boundary(r: &LineString<f64>, other: &Polygon<f64>) -> Option<CoordPos> {
    let candidates = r.0.iter().copied().chain(r.lines().map(|l| (l.start + l.end) / 2.0));
    candidates.map(|c| other.coordinate_position(&c)).find(|p| *p != CoordPos::OnBoundary)
}

fn holes_failure(rings: &[&LineString<f64>]) -> Option<String> {
    let (outer, holes) = rings.split_first()?;
    let outer = Polygon::new((*outer).clone(), Vec::new());
    for h in holes {
        if off_boundary(h, &outer) == Some(CoordPos::Outside) {
            return Some("Geometry has interior rings defined outside the outer boundary".into());
        }
    }
    for (i, a) in holes.iter().enumerate() {
        let pa = Polygon::new((*a).clone(), Vec::new());
        for (j, b) in holes.iter().enumerate() {
            if i != j && off_boundary(b, &pa) == Some(CoordPos::Inside) {
                return Some("Geometry has nested interior rings".into());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::wkt::read;
    use super::*;

    fn verdict(wkt: &str) -> Result<(), String> {
        let mut g = read(wkt)?;
        correct(&mut g);
        check(&g)
    }

    #[test]
    fn valid_shapes_pass() {
        for ok in [
            "POLYGON((1 1, 1 100, 100 100, 100 1, 1 1))",
            "POLYGON((1 1, 100 1, 100 100, 1 100))",
            "POLYGON((1 1, 1 200, 200 200, 200 1, 1 1), (2 2, 49 2, 49 49, 2 49, 2 2))",
            "POLYGON((1 1, 1 100, 50 50, 50 -50, 1 1))",
            "POLYGON((1 1, 1 100, 100 100, 100 1, 100 1, 1 1))",
            "POLYGON((0 0, 0 10, 10 10, 10 0, 0 0), (0 0, 2 1, 1 2, 0 0))",
            "POINT(1 2)",
        ] {
            assert_eq!(verdict(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn failures_are_boosts() {
        let cases = [
            ("POLYGON(()())", "Geometry has too few points"),
            ("POLYGON((1 1, 1 100, 1 1))", "Geometry has too few points"),
            ("POLYGON((1 1, 1 200, 1 100, 100 1, 1 1))", "Geometry has spikes. A spike point was found with apex at (1, 200)"),
            ("POLYGON((1 1, 1 100, 50 50, 50 -50, 1 150, 100 50, 1 1))", "Geometry has invalid self-intersections"),
            ("POLYGON((0 0, 10 10, 10 0, 0 10, 0 0))", "Geometry has wrong orientation"),
            ("POLYGON((1 1, 1 100, 100 100, 100 1, 1 1) (25 150, 75 150, 75 250, 25 250, 25 150))", "Geometry has interior rings defined outside the outer boundary"),
            ("POLYGON((1 1, 1 100, 100 100, 100 1, 1 1) (25 25, 75 25, 75 75, 25 75, 25 25) (49 49, 51 49, 51 51, 49 51, 49 49))", "Geometry has nested interior rings"),
            ("POINT(inf 1)", "Geometry has point(s) with invalid coordinate(s)"),
            ("POLYGON((0 0, 0 10, 10 10, 10 0, 0 0), (0 0, 5 10, 6 5, 0 0))", "Geometry has disconnected interior"),
            ("POLYGON((0 0, 0 10, 10 10, 10 0, 0 0), (0 0, 5 1, 1 5, 0 0), (5 1, 9 5, 9 1, 5 1), (1 5, 9 5, 5 9, 1 5))", "Geometry has disconnected interior"),
        ];
        for (wkt, msg) in cases {
            let e = verdict(wkt).unwrap_err();
            assert!(e.starts_with(&format!("invalid geometry: {msg}")), "{wkt}: {e}");
        }
    }

    #[test]
    fn correct_orients_and_closes() {
        let mut g = read("POLYGON((0 0, 10 0, 10 10, 0 10))").unwrap();
        correct(&mut g);
        assert_eq!(super::super::wkt::write(&g), "POLYGON((0 0,0 10,10 10,10 0,0 0))");
    }
}
