//! libFuzzer entry for [`search_fuzz::suggest_ops`] (the same function replays the saved corpus in
//! `make test`: tests/fuzz_corpora.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| search_fuzz::suggest_ops(data));
