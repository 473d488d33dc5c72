//! FT.AGGREGATE: the expression language, reducers, the step pipeline,
//! replies and cursors.
//!
//! Contract: everything but `command.rs` is independent of the index. A
//! caller (here `command.rs`, reached from the FT.AGGREGATE and FT.CURSOR
//! of `commands`' dispatch) runs, in order: [`AggregateRequest::parse_with`] on the
//! arguments after the query string; the query engine with the request's
//! [`request::QueryOptions`]; [`Plan::new`] with a [`FieldLoader`] over the
//! index; [`Plan::execute`] with the matching documents; then
//! [`reply::render`] (or [`CursorTable::start`] for WITHCURSOR). FT.CREATE's
//! FILTER uses [`expr::Expr`] directly.
//!
//! Layout: `expr/` (lexer, parser, evaluator, `functions/`), `reducers/` (one
//! file each), `request.rs` (argument parsing), `pipeline.rs` (planning and
//! execution), `reply.rs`, `cursor.rs`, `command.rs` (the index seam).

pub(crate) mod command;
pub mod cursor;
pub mod error;
pub mod expr;
mod group;
mod group_order;
pub mod hash;
pub mod limits;
mod loader;
mod number_text;
pub mod pipeline;
pub mod reducers;
pub mod reply;
pub mod request;
pub mod rng;
pub mod row;
mod sort;
pub mod staged;
pub mod value;

pub use cursor::CursorTable;
pub use error::{AggError, AggResult};
pub use pipeline::{AggOutput, DocHit, DocRef, FieldInfo, FieldLoader, LoadRequest, PartialGroup, Plan};
pub use reply::{AggReply, Protocol};
pub use request::AggregateRequest;
pub use row::Row;
pub use value::Value;

/// A per-query seed for RANDOM_SAMPLE: a hash of the index name, query and
/// arguments, so the same query samples the same rows.
pub fn query_seed<A: AsRef<[u8]>>(index: &[u8], query: &[u8], args: &[A]) -> u64 {
    let mut parts: Vec<&[u8]> = vec![index, query];
    parts.extend(args.iter().map(AsRef::as_ref));
    rng::fnv1a(&parts)
}
