//! Queries in stages ([`Catalog::stage`]), for a glue that runs the part that reads the index
//! under a shared lock on a worker thread, and reads documents only once the index is
//! released: FT.SEARCH stops at its page ([`SearchPage`], rendered by
//! [`Catalog::finish_search`]), FT.AGGREGATE at its rows' index data
//! ([`AggregateWork`], run and then finished by [`Catalog::finish_aggregate`]), and so does
//! FT.HYBRID (its fused rows, its reply in its own shape). FT.PROFILE,
//! FT.SPELLCHECK and FT.TAGVALS answer whole.

use std::time::Instant;

use super::legacy::arity_error;
use super::search::{search_page, Paging, SearchPage};
use super::{admin, profile, spell, text};
use crate::aggregate::staged::AggregateWork;
use crate::catalog::Catalog;
use crate::config::Config;
use crate::document::DocumentSource;
use crate::error::{Error, Result};
use crate::reply::{Protocol, Reply};

/// A query after its index stage.
pub enum Staged {
    /// The whole reply.
    Reply(Reply),
    /// FT.SEARCH's page, whose rows are still to be read from the documents.
    Search(Box<SearchPage>),
    /// FT.AGGREGATE's input rows, whose pipeline is still to run.
    Aggregate(Box<AggregateWork>),
}

/// The commands [`Catalog::stage`] runs.
pub const STAGED: &[&str] =
    &["FT.SEARCH", "FT.AGGREGATE", "FT.HYBRID", "FT.PROFILE", "FT.SPELLCHECK", "FT.TAGVALS"];

impl Catalog {
    /// Runs the index stage of a query (`cmd` one of [`STAGED`], upper case; `args` after it)
    /// with a shared reference to the catalog. `started`: when the command arrived (timeouts
    /// count from then). The replies and errors are the ones [`Catalog::execute`] gives.
    pub fn stage(
        &self,
        cmd: &str,
        args: &[&[u8]],
        docs: &dyn DocumentSource,
        config: &Config,
        proto: Protocol,
        started: Instant,
    ) -> Staged {
        super::dispatch::count_use(self, cmd, args);
        let staged = match cmd {
            "FT.SEARCH" => query_args(cmd, args).and_then(|_| {
                search_page(self, args, docs, config, proto, None, Paging::Client, started)
                    .map(|p| Staged::Search(Box::new(p)))
            }),
            "FT.AGGREGATE" => query_args(cmd, args).and_then(|_| {
                crate::aggregate::staged::stage(self, args, docs, config, proto, started)
                    .map(|w| Staged::Aggregate(Box::new(w)))
            }),
            "FT.HYBRID" if !args.is_empty() => super::hybrid::stage(self, args, docs, config, proto, started)
                .map(|w| Staged::Aggregate(Box::new(w))),
            "FT.PROFILE" => profile::ft_profile(self, args, docs, config, proto).map(Staged::Reply),
            "FT.SPELLCHECK" => spell::ft_spellcheck(self, args, docs, config, proto).map(Staged::Reply),
            "FT.TAGVALS" if args.len() == 2 => {
                admin::ft_tagvals(self, &text(args[0]), &text(args[1]), docs, config).map(Staged::Reply)
            }
            _ => Err(arity_error(cmd)),
        };
        staged.unwrap_or_else(|e| Staged::Reply(Reply::Error(e.0)))
    }
}

/// FT.SEARCH and FT.AGGREGATE need an index and a query.
fn query_args(cmd: &str, args: &[&[u8]]) -> Result<()> {
    match args.len() {
        0 => Err(arity_error(cmd)),
        1 => Err(Error::new("No query string provided")),
        _ => Ok(()),
    }
}
