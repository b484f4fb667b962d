//! Lineups at the table (docs/api.md, "Lineups"): a team's two players, by id or by student
//! id, before the first hand or as a substitution.

use actix_web::{HttpResponse, post, web};

use crate::domain::MatchId;
use crate::service::night::lineups::{self, LineupInput};
use crate::web::AppState;
use crate::web::api::responses::{
    BodyRefused, MatchWritten, NoSuchMatch, SupervisorOnly, Unauthenticated,
};
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::{Acting, ApiJson};

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(set_lineup);
}

/// Sets a team's lineup: two active players of its roster in seat order (the first is the
/// first of each hand's `bids` and `tricks`). Before the first hand it is the lineup; after,
/// a substitution from the next hand on. Sending the lineup in force again changes nothing.
/// A captain (their session, with `X-CSRF-Token`) may set their own team's before the match
/// starts: another team's is 404 to them, a match started 409 `match_started`.
#[utoipa::path(
    post,
    path = "/api/v1/matches/{id}/lineup",
    tag = "matches",
    params(("id" = i64, Path, description = "the match id", minimum = 1)),
    request_body = LineupInput,
    security(("bearer" = [])),
    responses(
        MatchWritten,
        NoSuchMatch,
        (status = 409, description = "the match is over or cancelled (`match_closed`); for a captain, started (`match_started`)", body = ErrorBody),
        (status = 422, description = "not two players, a player not active on the team's roster (`not_on_roster`), or a student id that is not one (`invalid_student_id`), an invalid `idempotency_key`, or one used before for something else (`idempotency_key_reused`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        SupervisorOnly,
    )
)]
#[post("/api/v1/matches/{id}/lineup")]
async fn set_lineup(
    state: web::Data<AppState>,
    who: Acting,
    id: web::Path<MatchId>,
    body: ApiJson<LineupInput>,
) -> Result<HttpResponse, AppError> {
    let acted = match who {
        Acting::Staff(who) => {
            let input = super::match_body(&state, &who, *id, body).await?;
            lineups::set_lineup(&state.db, &who.user, *id, &input).await?
        }
        Acting::Captain(captain) => {
            let input = body.into_inner()?;
            lineups::captain_sets_lineup(&state.db, &captain, *id, &input).await?
        }
    };
    Ok(super::acted(acted))
}
