//! The JSON API under `/api/v1` (docs/api.md): one module per resource; `openapi` is the
//! only module that knows them all.

pub mod audit;
pub mod conduct;
pub mod divisions;
pub mod fallback;
pub mod league_doc;
pub mod leagues;
pub mod lineups;
pub mod matches;
pub mod openapi;
pub mod player_stats;
pub mod players;
pub mod playoffs;
pub mod reschedule;
pub mod responses;
pub mod scoreboard;
pub mod standings;
pub mod teams;
pub mod users;

use actix_web::web;

use crate::domain::MatchId;
use crate::web::AppState;
use crate::web::error::AppError;
use crate::web::extract::{ApiJson, Authed};

/// The body of a write to match `id` by `who`, once `who` has the right to write to it. The
/// caller's rights come before the body (docs/api.md §1.1): a supervisor of another league
/// gets its 404 whatever they send, never a 400, 413 or 422 about the body or its fields. The
/// write's own transaction checks the caller again (the one check that counts if the
/// supervisors change in between).
pub(crate) async fn match_body<T>(
    state: &AppState,
    who: &Authed,
    id: MatchId,
    body: ApiJson<T>,
) -> Result<T, AppError> {
    crate::service::matches::check_writable(&state.db, &who.user, id).await?;
    body.into_inner()
}

/// Writes, and the reads that are not cached (presets, the OpenAPI document).
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.configure(openapi::routes)
        .configure(league_doc::routes)
        .configure(leagues::routes)
        .configure(teams::routes)
        .configure(divisions::routes)
        .configure(matches::routes)
        .configure(reschedule::routes)
        .configure(conduct::routes)
        .configure(lineups::routes)
        .configure(playoffs::routes)
        .configure(users::routes)
        .configure(audit::routes)
        .configure(players::routes)
        .configure(player_stats::routes);
}

/// What anyone may read about a league night; the page cache serves these to anonymous
/// visitors.
pub fn public_reads(cfg: &mut web::ServiceConfig) {
    cfg.configure(leagues::reads)
        .configure(teams::reads)
        .configure(divisions::reads)
        .configure(matches::reads)
        .configure(standings::reads)
        .configure(playoffs::reads)
        .configure(scoreboard::reads)
        .configure(player_stats::reads);
}

/// `value` with every number written as a float with no fraction (`2.0`) written as the
/// integer it is (`2`), where an `i64` or `u64` holds it. JSON Schema counts `2.0` as an
/// integer, so a client may send it where the API reads one (`expected_version`, a trick
/// count); serde would refuse it. Run on a request body before it is read into its type.
pub fn whole_numbers_as_integers(value: serde_json::Value) -> serde_json::Value {
    use serde_json::{Number, Value};
    match value {
        Value::Number(n) if n.is_f64() => {
            let whole = n.as_f64().filter(|f| f.fract() == 0.0);
            // The bounds are exact powers of two: a float in [-2^63, 2^63) converts exactly.
            match whole {
                Some(f)
                    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) =>
                {
                    Value::Number(Number::from(f as i64))
                }
                Some(f) if (0.0..18_446_744_073_709_551_616.0).contains(&f) => {
                    Value::Number(Number::from(f as u64))
                }
                _ => Value::Number(n),
            }
        }
        Value::Array(items) => {
            Value::Array(items.into_iter().map(whole_numbers_as_integers).collect())
        }
        Value::Object(fields) => Value::Object(
            fields
                .into_iter()
                .map(|(k, v)| (k, whole_numbers_as_integers(v)))
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::whole_numbers_as_integers;

    #[test]
    fn floats_without_a_fraction_become_integers() {
        let body = json!({"expected_version": 3.0, "hand": {"a": {"tricks": [4.0, -0.0], "bids": ["nil", 2.5]}},
                          "big": 1e300, "huge": 1.8e19, "n": null, "s": "4.0"});
        assert_eq!(
            whole_numbers_as_integers(body),
            json!({"expected_version": 3, "hand": {"a": {"tricks": [4, 0], "bids": ["nil", 2.5]}},
                   "big": 1e300, "huge": 18_000_000_000_000_000_000_u64, "n": null, "s": "4.0"})
        );
        assert!(whole_numbers_as_integers(json!(3.0)).is_i64());
    }
}
