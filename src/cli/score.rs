//! `score`: the calculator offline, a request on standard input and its answer (or error,
//! exit 1) as JSON on standard output.

use std::io::Read;
use std::process::ExitCode;

use crate::domain::{ErrorCode, FieldError};
use crate::rules::score_json;

pub(super) fn score() -> ExitCode {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("error: cannot read standard input: {e}");
        return ExitCode::FAILURE;
    }
    let value: serde_json::Value = match serde_json::from_str(&input) {
        Ok(v) => v,
        Err(e) => {
            let error =
                FieldError::new(ErrorCode::Malformed, format!("the input is not JSON: {e}"));
            let body = serde_json::json!({ "error": error });
            println!("{body:#}");
            return ExitCode::FAILURE;
        }
    };
    match score_json(value) {
        Ok(answer) => match serde_json::to_string_pretty(&answer) {
            Ok(text) => {
                println!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Err(error) => {
            let body = serde_json::json!({ "error": error });
            println!("{body:#}");
            ExitCode::FAILURE
        }
    }
}
