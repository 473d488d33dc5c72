//! Compiles arbitrary text as a path and evaluates it on a fixed document: must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| json_fuzz::path_parse_eval(data));
