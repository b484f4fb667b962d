//! How the person who started this process runs one of its commands again, for the messages
//! that name a command ("add users with `…`"): someone who typed `cargo run --release` has
//! no `spades-im` on their PATH.

/// `args` as a command line the user can type: `cargo run --release -- ARGS` when this
/// process was started by `cargo run` (cargo sets `CARGO` for the program it runs), else the
/// program as it was invoked (`spades-im ARGS`, `./target/release/spades-im ARGS`).
pub fn command(args: &str) -> String {
    let program = std::env::args()
        .next()
        .unwrap_or_else(|| "spades-im".into());
    command_for(std::env::var_os("CARGO").is_some(), &program, args)
}

fn command_for(under_cargo: bool, program: &str, args: &str) -> String {
    let run = if under_cargo {
        "cargo run --release --"
    } else {
        program
    };
    if args.is_empty() {
        run.trim_end_matches(" --").to_string()
    } else {
        format!("{run} {args}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_is_written_as_the_user_started_the_service() {
        assert_eq!(
            command_for(true, "target/release/spades-im", "user add NAME"),
            "cargo run --release -- user add NAME"
        );
        assert_eq!(
            command_for(true, "target/release/spades-im", ""),
            "cargo run --release"
        );
        assert_eq!(command_for(false, "spades-im", "demo"), "spades-im demo");
        assert_eq!(
            command_for(false, "./target/release/spades-im", "user add NAME"),
            "./target/release/spades-im user add NAME"
        );
    }

    #[test]
    fn cargo_test_runs_under_cargo() {
        // `cargo test` sets CARGO too: the messages a test reads use the cargo form.
        assert!(command("demo").starts_with("cargo run --release -- demo"));
    }
}
