//! libFuzzer entry for [`folio_fuzz::ft_command`] (the same function replays the saved corpus in
//! `make test`: tests/fuzz_corpora.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| folio_fuzz::ft_command(data));
