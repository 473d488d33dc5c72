//! Splits the input into a document and a path and runs every op: must never panic, and a
//! failed op must leave the document unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| json_fuzz::path_ops(data));
