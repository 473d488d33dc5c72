//! GEOSHAPE fields: points and polygons in WKT, found by WITHIN, CONTAINS, INTERSECTS and
//! DISJOINT. An R-tree (rstar) of the shapes' bounding boxes narrows a query to candidates;
//! the georust `geo` crate's DE-9IM relate and intersects decide each one, as Boost.Geometry
//! does in RediSearch. Reading and validating the text is [`wkt`] and [`validate`].

pub mod validate;
pub mod wkt;

use std::collections::HashMap;

use geo::{Geometry, Intersects, Relate};
use roaring::RoaringBitmap;
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{Envelope, RTree, RTreeObject, AABB};

/// The four predicates, numbered as RediSearch's `enum QueryType` (FT.EXPLAIN prints it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShapeOp {
    /// The document's shape contains the query's.
    Contains = 1,
    /// The document's shape is within the query's.
    Within = 2,
    /// They have no point in common.
    Disjoint = 3,
    /// They have a point in common.
    Intersects = 4,
}

impl ShapeOp {
    /// The predicate named `s` (any case).
    pub fn parse(s: &str) -> Option<ShapeOp> {
        Some(match s.to_ascii_uppercase().as_str() {
            "CONTAINS" => ShapeOp::Contains,
            "WITHIN" => ShapeOp::Within,
            "DISJOINT" => ShapeOp::Disjoint,
            "INTERSECTS" => ShapeOp::Intersects,
            _ => return None,
        })
    }
}

/// Reads a WKT shape as RediSearch indexes or queries one: read, corrected, validated.
pub fn parse(text: &str) -> Result<Geometry<f64>, String> {
    let mut g = wkt::read(text)?;
    validate::correct(&mut g);
    validate::check(&g)?;
    Ok(g)
}

type Entry = GeomWithData<Rectangle<[f64; 2]>, u32>;

/// The bounding box RediSearch gives a shape: a point's is one step of `f64` around it.
fn mbr(g: &Geometry<f64>) -> AABB<[f64; 2]> {
    match g {
        Geometry::Point(p) => {
            AABB::from_corners([p.x().next_down(), p.y().next_down()], [p.x().next_up(), p.y().next_up()])
        }
        Geometry::Polygon(p) => {
            let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
            for c in &p.exterior().0 {
                lo = [lo[0].min(c.x), lo[1].min(c.y)];
                hi = [hi[0].max(c.x), hi[1].max(c.y)];
            }
            AABB::from_corners(lo, hi)
        }
        _ => AABB::from_point([0.0, 0.0]),
    }
}

/// Bytes a shape holds besides its entry: its coordinates.
fn shape_bytes(g: &Geometry<f64>) -> usize {
    let coords = match g {
        Geometry::Polygon(p) => p.exterior().0.len() + p.interiors().iter().map(|r| r.0.len()).sum::<usize>(),
        _ => 0,
    };
    std::mem::size_of::<Geometry<f64>>() + coords * std::mem::size_of::<geo::Coord<f64>>()
}

/// One GEOSHAPE field's index: a shape per document.
#[derive(Default)]
pub struct GeoShapeIndex {
    tree: RTree<Entry>,
    shapes: HashMap<u32, Geometry<f64>>,
    bytes: usize,
}

/// Bytes one document's shape costs: its tree entry, its map entry, its coordinates.
fn entry_bytes(g: &Geometry<f64>) -> usize {
    std::mem::size_of::<Entry>() + std::mem::size_of::<(u32, Geometry<f64>)>() + shape_bytes(g)
}

impl GeoShapeIndex {
    /// Sets the shape of document `id` (replacing any).
    pub fn set(&mut self, id: u32, shape: Geometry<f64>) {
        self.remove(id);
        self.tree.insert(GeomWithData::new(Rectangle::from_aabb(mbr(&shape)), id));
        self.bytes += entry_bytes(&shape);
        self.shapes.insert(id, shape);
    }

    /// Drops document `id`'s shape.
    pub fn remove(&mut self, id: u32) {
        let Some(old) = self.shapes.remove(&id) else { return };
        self.tree.remove(&GeomWithData::new(Rectangle::from_aabb(mbr(&old)), id));
        self.bytes -= entry_bytes(&old);
    }

    /// Shapes indexed (FT.DEBUG DUMP_GEOMIDX's `num_docs`).
    pub fn len(&self) -> usize {
        self.tree.size()
    }

    /// Whether no shape is indexed.
    pub fn is_empty(&self) -> bool {
        self.tree.size() == 0
    }

    /// Memory held, bytes (FT.INFO `geoshapes_sz_mb`); an empty index holds its own size.
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<Self>() + self.bytes
    }

    /// The documents whose shape is in relation `op` to `q`. The exact predicates are the
    /// `geo` crate's: should one panic on some input, the query fails with an error rather
    /// than taking the server down.
    pub fn query(&self, op: ShapeOp, q: &Geometry<f64>) -> Result<RoaringBitmap, String> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.matching(op, q)))
            .map_err(|_| "the shapes could not be compared".to_string())
    }

    fn matching(&self, op: ShapeOp, q: &Geometry<f64>) -> RoaringBitmap {
        let env = mbr(q);
        let within = |a: &Geometry<f64>, b: &Geometry<f64>| a.relate(b).is_within();
        let mut out = RoaringBitmap::new();
        let mut test = |e: &Entry, keep: &dyn Fn(&Geometry<f64>) -> bool| {
            if self.shapes.get(&e.data).is_some_and(keep) {
                out.insert(e.data);
            }
        };
        match op {
            ShapeOp::Contains => {
                for e in self.tree.locate_in_envelope_intersecting(&env) {
                    if e.geom().envelope().contains_envelope(&env) {
                        test(e, &|g| !matches!(g, Geometry::Point(_)) && within(q, g));
                    }
                }
            }
            // Nothing is within a point.
            ShapeOp::Within if matches!(q, Geometry::Point(_)) => {}
            ShapeOp::Within => {
                for e in self.tree.locate_in_envelope(&env) {
                    test(e, &|g| within(g, q));
                }
            }
            ShapeOp::Intersects => {
                for e in self.tree.locate_in_envelope_intersecting(&env) {
                    test(e, &|g| g.intersects(q));
                }
            }
            ShapeOp::Disjoint => {
                for e in self.tree.iter() {
                    let apart = !e.geom().envelope().intersects(&env);
                    test(e, &|g| apart || !g.intersects(q));
                }
            }
        }
        out
    }

    /// Every shape as FT.DEBUG DUMP_GEOMIDX lists it, by document: (id, WKT, box as WKT).
    pub fn dump(&self) -> Vec<(u32, String, String)> {
        let mut docs: Vec<(&u32, &Geometry<f64>)> = self.shapes.iter().collect();
        docs.sort_unstable_by_key(|(id, _)| **id);
        docs.into_iter()
            .map(|(id, g)| {
                let b = mbr(g);
                (*id, wkt::write(g), wkt::write_box(b.lower(), b.upper()))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(shapes: &[(u32, &str)]) -> GeoShapeIndex {
        let mut gi = GeoShapeIndex::default();
        for (id, w) in shapes {
            gi.set(*id, parse(w).unwrap());
        }
        gi
    }

    fn ids(gi: &GeoShapeIndex, op: ShapeOp, q: &str) -> Vec<u32> {
        gi.query(op, &parse(q).unwrap()).unwrap().iter().collect()
    }

    #[test]
    fn predicates_match_redisearchs_tests() {
        // test_geometry_flat.py: testSanitySearchPointWithin, test_MOD_7126.
        let gi = index(&[
            (1, "POINT(10 10)"),
            (2, "POLYGON((1 1, 1 100, 100 100, 100 1, 1 1))"),
            (3, "POLYGON((1 1, 1 200, 200 200, 200 1, 1 1))"),
        ]);
        assert_eq!(ids(&gi, ShapeOp::Within, "POLYGON((0 0, 0 150, 150 150, 150 0, 0 0))"), [1, 2]);
        assert_eq!(ids(&gi, ShapeOp::Contains, "POLYGON((2 2, 2 50, 50 50, 50 2, 2 2))"), [2, 3]);
        assert_eq!(ids(&gi, ShapeOp::Contains, "POINT(50 50)"), [2, 3]);
        assert_eq!(ids(&gi, ShapeOp::Within, "POINT(10 10)"), Vec::<u32>::new());
        let gi = index(&[
            (1, "POINT(10 10)"),
            (2, "POINT(50 50)"),
            (3, "POLYGON((20 20, 25 35, 35 25, 20 20))"),
            (4, "POLYGON((60 60, 65 75, 70 70, 65 55, 60 60))"),
        ]);
        let q = "POLYGON((15 15, 75 15, 50 70, 20 40, 15 15))";
        assert_eq!(ids(&gi, ShapeOp::Intersects, q), [2, 3]);
        assert_eq!(ids(&gi, ShapeOp::Disjoint, q), [1, 4]);
    }

    #[test]
    fn memory_follows_the_shapes() {
        let mut gi = GeoShapeIndex::default();
        let empty = gi.bytes();
        assert!(empty > 0);
        gi.set(7, parse("POLYGON((0 0, 0 1, 1 1, 0 0))").unwrap());
        let one = gi.bytes();
        assert!(one > empty);
        gi.set(7, parse("POINT(1 1)").unwrap());
        assert!(gi.bytes() > empty && gi.bytes() < one);
        gi.set(8, parse("POINT(2 2)").unwrap());
        assert_eq!(gi.len(), 2);
        gi.remove(8);
        gi.remove(7);
        assert_eq!((gi.bytes(), gi.len()), (empty, 0));
    }

    #[test]
    fn dump_prints_boosts_wkt() {
        let gi = index(&[(1, "POLYGON((0 0, 1 0, 1 1, 0 0))"), (2, "POINT(1 2)")]);
        let d = gi.dump();
        assert_eq!(d[0], (1, "POLYGON((0 0,1 1,1 0,0 0))".into(), "POLYGON((0 0,0 1,1 1,1 0,0 0))".into()));
        assert_eq!(d[1].1, "POINT(1 2)");
        assert_eq!(d[1].2, "POLYGON((1 2,1 2,1 2,1 2,1 2))");
    }
}
