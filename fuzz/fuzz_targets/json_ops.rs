//! libFuzzer entry for [`folio_fuzz::json_ops`] (the same function replays the saved corpus in
//! `make test`: tests/fuzz_corpora.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| folio_fuzz::json_ops(data));
