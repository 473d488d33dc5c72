//! folio JSON: value model, parse/serialize, paths, ops. No Redis here.
