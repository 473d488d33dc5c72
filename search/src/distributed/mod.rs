//! Search on a Redis Cluster, the parts without Redis: what a shard computes for the node
//! that took a query, and how that node merges the shards' answers. The networking (which
//! shards, connections, blocking the client) is the glue's (`src/cluster/`).
//!
//! - [`stats`]: global term statistics, so scores equal a single server's;
//! - [`search`]: FT.SEARCH's shard part and merge;
//! - [`aggregate`]: FT.AGGREGATE's shard part and the pipeline over all shards' documents;
//! - [`hybrid`]: FT.HYBRID's shard part (each side's candidates) and its fusion over shards;
//! - [`merge`]: FT.TAGVALS and FT.INFO;
//! - [`spell`]: FT.SPELLCHECK over shards;
//! - [`wire`]: the exact encoding shard answers travel in.

pub mod aggregate;
pub mod hybrid;
pub mod merge;
pub mod search;
pub mod spell;
pub mod stats;
pub mod wire;
