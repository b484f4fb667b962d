//! The JSON API under `/api/v1` (docs/api.md): one module per resource; `openapi` is the
//! only module that knows them all.

pub mod audit;
pub mod captain;
pub mod conduct;
pub mod divisions;
pub mod fallback;
pub mod league_doc;
pub mod leagues;
pub mod lineups;
pub mod matches;
pub mod notices;
pub mod openapi;
pub mod player_stats;
pub mod players;
pub mod playoffs;
pub mod queue;
pub mod reschedule;
pub mod responses;
pub mod roster;
pub mod scoreboard;
pub mod standings;
pub mod teams;
pub mod users;

use actix_web::web;

use actix_web::HttpResponse;
use actix_web::http::header::ContentType;

use crate::domain::MatchId;
use crate::service::night::action_keys::{Acted, FirstAnswer};
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
    crate::service::night::access::check_writable(&state.db, &who.user, id).await?;
    body.into_inner()
}

/// The answer of an action on a match that takes an idempotency key (docs/api.md §7.8): the
/// match (200), or the body of the key's first answer again, marked `Idempotent-Replay: true`.
pub(crate) fn acted(acted: Acted) -> HttpResponse {
    match acted {
        Acted::Done(view) => HttpResponse::Ok().json(view),
        Acted::Again(FirstAnswer(body)) => HttpResponse::Ok()
            .insert_header(("Idempotent-Replay", "true"))
            .content_type(ContentType::json())
            .body(body),
    }
}

/// Writes, and the reads that are not cached (presets, the OpenAPI document).
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.configure(openapi::routes)
        .configure(league_doc::routes)
        .configure(leagues::routes)
        .configure(teams::routes)
        .configure(divisions::routes)
        .configure(roster::routes)
        .configure(matches::routes)
        .configure(reschedule::routes)
        .configure(conduct::routes)
        .configure(lineups::routes)
        .configure(captain::routes)
        .configure(playoffs::routes)
        .configure(users::routes)
        .configure(audit::routes)
        .configure(notices::routes)
        .configure(players::routes)
        .configure(player_stats::routes)
        .configure(queue::routes);
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
        .configure(queue::reads)
        .configure(player_stats::reads);
}
