//! FT.PROFILE's iterator counters as RediSearch 2.10 counts them. folio evaluates a query as
//! bitmap algebra; RediSearch reads lazy iterators (index.c), and its profile counts how often
//! each one was read or skipped (`Read` + `SkipTo` calls, the final call that found the end
//! not counted). This replays RediSearch's iterators over the documents each profiled node
//! matched, reading the root to its end as a query's pipeline does, and writes the counts
//! back. It also shapes the tree as RediSearch builds it: a term missing from the index is no
//! iterator at all (dropped from a union, printed as nil in an intersection, which then reads
//! nothing).
//!
//! Ids are RediSearch's ([`DocTable::redisearch_id`]; 0 is "not read yet"), so readers go
//! in its order. A NOT or OPTIONAL iterator and the wildcard count up to the last id given,
//! as RediSearch's do up to its `maxDocId`.

mod iterators;

use super::profile::ProfileNode;
use crate::index::docs::DocTable;
use iterators::{null, It, Kind, Rc};

/// Replays `root`'s iterators over the documents of `docs` and stores their counters;
/// `prioritize`: `_PRIORITIZE_INTERSECT_UNION_CHILDREN` (an intersection weighs a union
/// child by its number of children). Trees holding nodes whose iterators this does not
/// model (vectors) are left as they are.
pub fn replay(root: &mut ProfileNode, docs: &DocTable, prioritize: bool) {
    if !modelled(root) {
        return;
    }
    let max = u32::try_from(docs.last_redisearch_id()).unwrap_or(u32::MAX);
    reshape(root, max, prioritize);
    let mut it = build(root, max, docs);
    loop {
        let (rc, _) = it.read();
        if rc == Rc::Eof {
            break;
        }
    }
    store(root, &it);
}

/// A child of an intersection [`partial_unions`] replays: a reader of these RediSearch ids
/// (ascending), a union of such readers, or the negation of a reader.
#[derive(Debug, Clone)]
pub enum Child {
    /// A reader (a term, a range, or any clause taken as the documents it matched).
    Reader(Vec<u32>),
    /// A union of readers, in RediSearch's child order.
    Union(Vec<Vec<u32>>),
    /// NOT of a reader.
    Not(Vec<u32>),
    /// A union of groups, in RediSearch's child order: a group of one list is a reader, of
    /// several a union of readers (an OR of words, each word the union of its expansions).
    Groups(Vec<Vec<Vec<u32>>>),
}

/// What a group of a [`Child::Groups`] union contributes to its record at a hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// Nothing (it is not at the document, or the union's record holds another group).
    None,
    /// Its first reader at the document only (its own union's skip missed its target).
    First,
    /// All its readers at the document.
    Full,
}

/// Reads an intersection of `children` (in RediSearch's order) to its end, as a query reads
/// its root, and returns per child the hits (RediSearch ids) where that child, a union, held
/// the record of a skip that missed its target: only its first child holding the document
/// counted there. `max`: the largest RediSearch id.
pub fn partial_unions(children: Vec<Child>, max: u32) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new(); children.len()];
    let mut root = intersection_of(children, max);
    loop {
        let (rc, d) = root.read();
        if rc == Rc::Eof {
            break;
        }
        for (o, k) in out.iter_mut().zip(&root.kids) {
            if k.kind == Kind::Union && k.partial {
                o.push(d);
            }
        }
    }
    out
}

/// [`partial_unions`] for children that may be [`Child::Groups`]: per child, every hit with
/// what each group of such a union contributed to its record there (RediSearch's record of a
/// union is the records of its children at the document, each as its own last read or skip
/// left it; a skip that missed keeps the first child's alone). Other children: none.
pub fn group_records(children: Vec<Child>, max: u32) -> Vec<Vec<(u32, Vec<Held>)>> {
    let grouped: Vec<bool> = children.iter().map(|c| matches!(c, Child::Groups(_))).collect();
    let sizes: Vec<usize> =
        children.iter().map(|c| if let Child::Groups(g) = c { g.len() } else { 0 }).collect();
    let mut root = intersection_of(children, max);
    let mut out = vec![Vec::new(); grouped.len()];
    loop {
        let (rc, d) = root.read();
        if rc == Rc::Eof {
            break;
        }
        for (i, k) in root.kids.iter().enumerate() {
            if grouped[i] {
                out[i].push((d, k.group_record(d, sizes[i])));
            }
        }
    }
    out
}

fn intersection_of(children: Vec<Child>, max: u32) -> It {
    fn reader(docs: Vec<u32>, max: u32) -> It {
        let mut it = null(max);
        it.kind = Kind::Reader;
        it.eof = false;
        it.docs = docs;
        it
    }
    fn with_kids(kind: Kind, kids: Vec<It>, max: u32) -> It {
        let mut it = null(max);
        it.kind = kind;
        it.eof = false;
        it.kid_at = vec![0; kids.len()];
        it.active = (0..kids.len()).collect();
        it.kids = kids;
        it
    }
    let kids: Vec<It> = children
        .into_iter()
        .map(|c| match c {
            Child::Reader(d) => reader(d, max),
            Child::Union(ds) => with_kids(Kind::Union, ds.into_iter().map(|d| reader(d, max)).collect(), max),
            Child::Not(d) => with_kids(Kind::Not, vec![reader(d, max)], max),
            Child::Groups(gs) => {
                let kid = |g: Vec<Vec<u32>>| match g.len() {
                    1 => reader(g.into_iter().next().unwrap_or_default(), max),
                    _ => with_kids(Kind::Union, g.into_iter().map(|d| reader(d, max)).collect(), max),
                };
                with_kids(Kind::Union, gs.into_iter().map(kid).collect(), max)
            }
        })
        .collect();
    with_kids(Kind::Intersect, kids, max)
}

impl It {
    /// A union of groups at its document `d`: per group (of `n`), what its record holds.
    fn group_record(&self, d: u32, n: usize) -> Vec<Held> {
        let mut held = vec![Held::None; n];
        let own = |i: usize| match &self.kids[i] {
            k if k.kind == Kind::Union && k.partial => Held::First,
            _ => Held::Full,
        };
        let at: Vec<usize> = self.active.iter().copied().filter(|&i| self.kid_at[i] == d).collect();
        if self.partial {
            // `minResult`: the first child at the lowest document.
            if let Some(&i) = at.first() {
                held[i] = own(i);
            }
        } else {
            for i in at {
                held[i] = own(i);
            }
        }
        held
    }
}

fn modelled(n: &ProfileNode) -> bool {
    matches!(
        n.kind,
        "TEXT"
            | "TAG"
            | "NUMERIC"
            | "GEO"
            | "ID-LIST"
            | "UNION"
            | "INTERSECT"
            | "NOT"
            | "OPTIONAL"
            | "WILDCARD"
            | "EMPTY"
    ) && n.children.iter().all(modelled)
}

/// RediSearch's tree: missing terms leave unions, a plain union left with one child is that
/// child, and an intersection reads its children fewest estimated documents first.
fn reshape(n: &mut ProfileNode, max: u32, prioritize: bool) {
    for c in &mut n.children {
        reshape(c, max, prioritize);
    }
    if n.kind == "INTERSECT" {
        n.children.sort_by_key(|c| {
            let e = estimate(c, max);
            if prioritize && c.kind == "UNION" {
                e.saturating_mul(c.children.len().max(1) as u64)
            } else {
                e
            }
        });
    }
    if n.kind == "UNION" && !n.children.is_empty() {
        n.children.retain(|c| c.kind != "EMPTY");
        if !n.quick && n.label.as_deref() == Some("UNION") && n.children.len() == 1 {
            if let Some(only) = n.children.pop() {
                *n = only;
            }
        }
    }
}

/// RediSearch's `NumEstimated`: a union the sum of its children's, an intersection 0 (its
/// estimate divided by its child count in integers), NOT, OPTIONAL and the wildcard the
/// largest id, a reader its documents.
fn estimate(n: &ProfileNode, max: u32) -> u64 {
    match n.kind {
        "UNION" if !n.children.is_empty() => n.children.iter().map(|c| estimate(c, max)).sum(),
        "INTERSECT" => 0,
        "NOT" | "OPTIONAL" | "WILDCARD" => u64::from(max),
        _ => n.size,
    }
}

fn build(n: &ProfileNode, max: u32, table: &DocTable) -> It {
    let kind = match n.kind {
        "UNION" | "INTERSECT" if n.children.is_empty() => Kind::Reader,
        "UNION" => Kind::Union,
        "INTERSECT" => Kind::Intersect,
        "NOT" => Kind::Not,
        "OPTIONAL" => Kind::Optional,
        "WILDCARD" => Kind::Wildcard,
        "EMPTY" => Kind::Null,
        _ => Kind::Reader,
    };
    let mut kids: Vec<It> = n.children.iter().map(|c| build(c, max, table)).collect();
    // A NOT or OPTIONAL whose clause left no node (a stopword) reads an empty child.
    if matches!(kind, Kind::Not | Kind::Optional) && kids.is_empty() {
        kids.push(null(max));
    }
    let docs = match (&n.ids, kind) {
        (Some(ids), _) => ids.clone(),
        (None, Kind::Reader) => {
            let mut ids: Vec<u32> =
                n.docs.iter().map(|d| u32::try_from(table.redisearch_id(d)).unwrap_or(u32::MAX)).collect();
            ids.sort_unstable();
            ids
        }
        _ => Vec::new(),
    };
    let active = (0..kids.len()).collect();
    It {
        kind,
        docs,
        pos: 0,
        kid_at: vec![0; kids.len()],
        active,
        kids,
        cur: 0,
        eof: kind == Kind::Null,
        calls: 0,
        last: 0,
        next_real: 0,
        max,
        quick: n.quick,
        partial: false,
    }
}

/// Writes the counters back; a missing term inside an intersection prints as nil (`NULL`).
fn store(n: &mut ProfileNode, it: &It) {
    n.counter = it.calls - u64::from(it.eof && it.calls > 0);
    if n.kind == "INTERSECT" {
        for c in n.children.iter_mut().filter(|c| c.kind == "EMPTY") {
            c.kind = "NULL";
        }
    }
    for (c, i) in n.children.iter_mut().zip(&it.kids) {
        store(c, i);
    }
}
