//! Queries: [`syntax`] turns text into a [`syntax::QueryAst`] (no index knowledge),
//! [`exec`] evaluates it against an [`crate::index::Index`] to a bitmap of doc ids and the
//! terms to score, [`score`] ranks candidates, [`highlight`] marks matches in returned text,
//! `trace` records a run for FT.PROFILE.

pub mod exec;
pub mod global_filters;
pub mod highlight;
pub mod profile;
pub mod replay;
pub mod score;
pub mod summarize;
pub mod syntax;
pub mod topk;
pub(crate) mod trace;
pub mod vector;
