//! libFuzzer's entry to `fuzz/checks/score_request.rs`: what is fuzzed and checked is described
//! there and in `fuzz/README.md`. The same checks run on stable in `cargo test`
//! (`tests/api/fuzz_targets.rs`).

#![no_main]

#[path = "../checks/score_request.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check_input(data));
