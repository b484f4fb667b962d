//! The fuzz targets' checks on stable, in every `cargo test` and (for longer) in `.ci/run`:
//! the very functions `cargo fuzz` drives (`fuzz/checks/*.rs`, included here as modules), fed
//! every seed of `fuzz/seeds/<target>/`, then inputs from a seeded generator: a seed mutated
//! (bytes flipped, inserted, dropped, a chunk repeated, two seeds spliced) or random bytes.
//!
//! How many: `FUZZ_INPUTS` per target (default 300), or as many as fit in `FUZZ_SECONDS` per
//! target when that is set (`.ci/run` gives each target 60 s). The generator's seed is
//! `FUZZ_SEED` if set, else the clock; it is printed, and a failing input is printed in full
//! (as Rust bytes) with it. Without libFuzzer's coverage feedback this finds far less than
//! `cargo fuzz run` (fuzz/README.md): it keeps the targets compiling, the seeds passing and
//! the checks honest on every change, and catches what random inputs reach.

#[path = "../../fuzz/checks/hand_form.rs"]
mod hand_form;
#[path = "../../fuzz/checks/score_request.rs"]
mod score_request;

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A tiny xorshift: every random choice comes from it.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn byte(&mut self) -> u8 {
        self.next().to_le_bytes()[0]
    }
}

fn seed() -> u64 {
    match std::env::var("FUZZ_SEED") {
        Ok(s) => s.parse().expect("FUZZ_SEED is a number"),
        Err(_) => {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        }
    }
}

/// Every file of `fuzz/seeds/<target>/`, in name order.
fn seeds(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no seeds in {}", dir.display());
    files.iter().map(|f| std::fs::read(f).unwrap()).collect()
}

/// An input made from the seeds: one of them changed a few times, or random bytes.
fn input(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    if rng.below(4) == 0 {
        return (0..rng.below(600)).map(|_| rng.byte()).collect();
    }
    let mut data = seeds[rng.below(seeds.len())].clone();
    for _ in 0..1 + rng.below(8) {
        let at = rng.below(data.len() + 1);
        match rng.below(6) {
            0 if at < data.len() => data[at] ^= 1 << rng.below(8),
            1 if at < data.len() => data[at] = rng.byte(),
            2 => data.insert(at, rng.byte()),
            3 if at < data.len() => {
                data.remove(at);
            }
            4 if at < data.len() => {
                let end = (at + 1 + rng.below(16)).min(data.len());
                let chunk = data[at..end].to_vec();
                data.splice(at..at, chunk);
            }
            _ => {
                let other = &seeds[rng.below(seeds.len())];
                let from = rng.below(other.len());
                data.truncate(at);
                data.extend_from_slice(&other[from..]);
            }
        }
    }
    data
}

/// Runs `check` on every seed of `target`, then on generated inputs; panics with the input
/// that failed.
fn fuzz(target: &str, check: fn(&[u8])) {
    let seeds = seeds(target);
    let seed = seed();
    let mut rng = Rng(seed);
    let budget = std::env::var("FUZZ_SECONDS")
        .ok()
        .map(|s| Duration::from_secs(s.parse().expect("FUZZ_SECONDS is a number")));
    let inputs: usize = std::env::var("FUZZ_INPUTS")
        .map(|s| s.parse().expect("FUZZ_INPUTS is a number"))
        .unwrap_or(300);
    let started = Instant::now();
    let mut ran = 0;
    let mut next = seeds.iter().cloned();
    loop {
        let data = match next.next() {
            Some(seed) => seed,
            None => {
                let done = match budget {
                    Some(budget) => started.elapsed() >= budget,
                    None => ran >= seeds.len() + inputs,
                };
                if done {
                    break;
                }
                input(&mut rng, &seeds)
            }
        };
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| check(&data))) {
            eprintln!(
                "{target}: input {ran} (FUZZ_SEED={seed}) failed: {:?}\n\
                 as text: {:?}",
                data,
                String::from_utf8_lossy(&data)
            );
            resume_unwind(panic);
        }
        ran += 1;
    }
    println!(
        "{target}: {ran} inputs ({} seeds) in {:.1} s, FUZZ_SEED={seed}",
        seeds.len(),
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn hand_form_target() {
    fuzz("hand_form", hand_form::check_input);
}

#[test]
fn score_request_target() {
    fuzz("score_request", score_request::check_input);
}
