//! folio search: schema, analysis, index, query, aggregate. No Redis here.
pub mod aggregate;
