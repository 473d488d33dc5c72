//! folio: the Redis glue.
