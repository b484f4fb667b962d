//! The `spades-im` command (`cargo run --release -- COMMAND` from a checkout). Its arguments
//! and each command's body are in the library's `cli` module; `--help` says more.
//!
//! - `serve` (the default): the pages and the JSON API, on `--db` (an SQLite file or a
//!   PostgreSQL URL); prints where it listens and how to log in.
//! - `score`: the calculator offline, JSON in on standard input and out.
//! - `check [--rebuild]`: every row through the import's gate, then the cached totals,
//!   records and counts against the hands and matches.
//! - `backup FILE`, `restore BACKUP_FILE [--force]`: the SQLite file copied out and put back.
//! - `migrate-to URL`: the SQLite file copied into an empty PostgreSQL database.
//! - `user add NAME --role admin|supervisor [--password-stdin]`, `user list`,
//!   `user reset NAME`, `user disable NAME`, `user enable NAME`: accounts.
//! - `token create NAME [--label LABEL]`: an API token acting as NAME.
//! - `demo`: the sample season; `generate [--teams --matches --hands --slug --seed]`: a large
//!   season for benchmarks.
//! - `mail-test ADDRESS`: one message through the relay of `--smtp-url`.

use std::process::ExitCode;

use clap::Parser;
use spades_im::cli::{Cli, start_logging};

fn main() -> ExitCode {
    large_blocks_apart();
    let cli = Cli::parse();
    start_logging(cli.log_format);
    cli.run()
}

/// Blocks of 128 KiB and more (a page cache's copy, a rendered schedule, a document being
/// imported) each in memory of its own, returned to the system when freed. By default glibc
/// raises that threshold after the first such block is freed and serves later ones from its
/// heap, where copies the page cache lets go leave holes it keeps: 10,000 distinct query
/// strings grew the server by 139 MiB under a 64 MiB bound, 68 MiB with this (BENCHMARKS.md).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn large_blocks_apart() {
    // SAFETY: mallopt only sets a parameter of glibc's allocator; it is called first thing in
    // `main`, before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn large_blocks_apart() {}
