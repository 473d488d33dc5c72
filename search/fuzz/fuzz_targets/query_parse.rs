//! libFuzzer entry for [`search_fuzz::query_parse`] (the same function replays the saved corpus in
//! `make test`: tests/fuzz_corpora.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| search_fuzz::query_parse(data));
