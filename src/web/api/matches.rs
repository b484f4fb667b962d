//! Matches in the JSON API (docs/api.md §6–§7): a league's schedule and single matches, and
//! league night: start a match, record and correct hands, call time, forfeits.

use actix_web::{HttpRequest, HttpResponse, get, post, put, web};
use serde::{Deserialize, Serialize};

use crate::domain::{IdempotencyKey, MatchId, Slug, TeamId};
use crate::rules::HandInput;
use crate::service::night::access;
use crate::service::night::match_view::{MatchView, views_after_write};
use crate::service::night::matches::{self, AnswerShape, ForfeitInput, NewHandEntry};
use crate::service::term::admin_schedule::MatchSaved;
use crate::service::term::schedule::{
    NewMatchInput, ScheduleInput, ScheduleMode, create_match_view, generate_schedule_views,
};
use crate::service::term::swiss::pair_next_round;
use crate::web::AppState;
use crate::web::api::responses::{
    AdminOnly, BadReadCredentials, BodyRefused, MatchWritten, NoSuchLeague, NoSuchMatch,
    SignedInOnly, Unauthenticated,
};
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::{Admin, ApiJson, OptionalApiJson, Supervisor};
use crate::web::respond::{prefers_minimal, recorded_hand};

/// The writes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(schedule)
        .service(create_match)
        .service(start_match)
        .service(record_hand)
        .service(correct_hand)
        .service(call_time)
        .service(forfeit);
}

/// The public reads, served from the page cache to anonymous visitors.
pub fn reads(cfg: &mut web::ServiceConfig) {
    cfg.service(list_matches).service(show_match);
}

/// A generated schedule: a round robin's matches, or a Swiss round's with its number and bye.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct ScheduleAnswer {
    /// The Swiss round paired (`mode: swiss_round`); absent for a round robin.
    #[serde(skip_serializing_if = "Option::is_none")]
    round: Option<i64>,
    /// The team that had the Swiss round's bye (a win), `null` when the field was even;
    /// absent for a round robin.
    #[serde(skip_serializing_if = "Option::is_none")]
    bye: Option<Option<TeamId>>,
    matches: Vec<MatchView>,
}

/// Generates the regular season's schedule, or pairs its next Swiss round (admin).
#[utoipa::path(
    post,
    path = "/api/v1/leagues/{slug}/schedule",
    tag = "leagues",
    params(Slug),
    request_body = ScheduleInput,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "the scheduled matches; for a Swiss round also its number and bye", body = ScheduleAnswer),
        NoSuchLeague,
        (status = 409, description = "the league already has regular-season matches (`schedule_exists`), a match of the last Swiss round is not over (`round_unfinished`), or no Swiss round is left (`swiss_exhausted`)", body = ErrorBody),
        (status = 422, description = "invalid format, date, time or too few teams", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/leagues/{slug}/schedule")]
async fn schedule(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    body: ApiJson<ScheduleInput>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    if input.mode == ScheduleMode::SwissRound {
        let paired = pair_next_round(&state.db, &who.user, &slug, &input).await?;
        let matches = views_after_write(&state.db, &paired.matches).await?;
        return Ok(HttpResponse::Created().json(ScheduleAnswer {
            round: Some(paired.round),
            bye: Some(paired.bye),
            matches,
        }));
    }
    let matches = generate_schedule_views(&state.db, &who.user, &slug, &input).await?;
    Ok(HttpResponse::Created().json(ScheduleAnswer {
        round: None,
        bye: None,
        matches,
    }))
}

/// Adds a single match to a league (admin).
#[utoipa::path(
    post,
    path = "/api/v1/leagues/{slug}/matches",
    tag = "leagues",
    params(Slug),
    request_body = NewMatchInput,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "the new match, with `warnings` about what it clashes with (added all the same)", body = MatchSaved),
        NoSuchLeague,
        (status = 422, description = "invalid teams, stage or time", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/leagues/{slug}/matches")]
async fn create_match(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    body: ApiJson<NewMatchInput>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    let created = create_match_view(&state.db, &who.user, &slug, &input).await?;
    Ok(HttpResponse::Created().json(MatchSaved::of(&state.db, &who.user, created).await?))
}

/// A page of a league's matches; `next` is the `after` of the next page, `null` on the last.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct MatchListPage {
    matches: Vec<MatchView>,
    #[schema(value_type = Option<i64>)]
    next: Option<MatchId>,
}

/// Which page of a league's matches (docs/api.md §6.6). Other parameters are ignored.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct MatchPageQuery {
    /// Matches per page, 1 to 500 (default 200).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<i64>,
    /// A match id, the `next` of the page before: the matches after it in schedule order.
    #[param(minimum = 1)]
    after: Option<i64>,
}

/// A league's matches in schedule order, a page at a time.
#[utoipa::path(
    get,
    path = "/api/v1/leagues/{slug}/matches",
    tag = "leagues",
    params(
        Slug,
        MatchPageQuery,
    ),
    responses(
        (status = 200, description = "a page of the league's matches in schedule order; `next` is the `after` of the next page, `null` on the last", body = MatchListPage),
        (status = 400, description = "a parameter given twice, or a number that is not one (`malformed`)", body = ErrorBody),
        NoSuchLeague,
        (status = 422, description = "`limit` outside 1 to 500, or `after` no match of the league (`invalid_request`)", body = ErrorBody),
        BadReadCredentials,
    )
)]
#[get("/api/v1/leagues/{slug}/matches")]
async fn list_matches(
    state: web::Data<AppState>,
    slug: web::Path<Slug>,
    query: web::Query<MatchPageQuery>,
) -> Result<HttpResponse, AppError> {
    let after = query.after.map(MatchId);
    let page =
        crate::service::night::match_view::league_matches(&state.db, &slug, after, query.limit);
    let page = page.await?;
    Ok(HttpResponse::Ok().json(MatchListPage {
        matches: page.matches,
        next: page.next,
    }))
}

/// A match with its hands and totals.
#[utoipa::path(
    get,
    path = "/api/v1/matches/{id}",
    tag = "matches",
    params(("id" = i64, Path, description = "the match id", minimum = 1)),
    responses(
        (status = 200, description = "the match", body = MatchView),
        (status = 404, description = "no such match", body = ErrorBody),
        BadReadCredentials,
    )
)]
#[get("/api/v1/matches/{id}")]
async fn show_match(
    state: web::Data<AppState>,
    id: web::Path<MatchId>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(crate::service::night::match_view::view(&state.db, *id).await?))
}

/// What a start may carry: nothing (no body at all), or an idempotency key.
#[derive(Deserialize, Default, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct StartRequest {
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    idempotency_key: Option<IdempotencyKey>,
}

/// Starts a match: its rules are frozen and its clock runs (admin or supervisor).
#[utoipa::path(
    post,
    path = "/api/v1/matches/{id}/start",
    tag = "matches",
    params(("id" = i64, Path, description = "the match id", minimum = 1)),
    request_body(content = Option<StartRequest>, description = "optional: no body, or an idempotency key"),
    security(("bearer" = [])),
    responses(
        MatchWritten,
        NoSuchMatch,
        (status = 409, description = "the match is not scheduled (`not_scheduled`); in a league with tables, its table held by another match (`table_busy`) or a team at another table (`team_busy`)", body = ErrorBody),
        (status = 422, description = "a body of the wrong shape, an invalid `idempotency_key`, or one used before for something else (`idempotency_key_reused`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        SignedInOnly,
    )
)]
#[post("/api/v1/matches/{id}/start")]
async fn start_match(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    id: web::Path<MatchId>,
    body: OptionalApiJson<StartRequest>,
) -> Result<HttpResponse, AppError> {
    // The caller's rights before the body, as every write to a match (`match_body`).
    access::check_writable(&state.db, &who.user, *id).await?;
    let input = body.into_inner()?.unwrap_or_default();
    let started = matches::start(&state.db, &who.user, *id, input.idempotency_key.as_ref());
    Ok(super::acted(started.await?))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct HandRequest {
    hand: HandInput,
    /// The match's `version` as last seen.
    #[schema(minimum = 1)]
    expected_version: i64,
    /// Unique per attempt to record one hand: a retry with the same key and hand answers
    /// the first answer again. 1 to 200 characters, no control characters.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    idempotency_key: Option<IdempotencyKey>,
}

/// Records the next hand (admin or supervisor).
#[utoipa::path(
    post,
    path = "/api/v1/matches/{id}/hands",
    tag = "matches",
    params(
        ("id" = i64, Path, description = "the match id", minimum = 1),
        ("Prefer" = Option<String>, Header, description = "`return=minimal` asks for the light answer: the totals after the hand, the same size at hand 500 as at hand 1 (RFC 7240)"),
    ),
    request_body = HandRequest,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "the match with the hand, or with `Prefer: return=minimal` its totals (`HandTotals`); a repeated `idempotency_key` answers the first answer again, in the form the first request asked for",
            body = matches::HandAnswer,
            headers(
                ("Idempotent-Replay" = String, description = "`true` when the answer is a replay"),
                ("Preference-Applied" = String, description = "`return=minimal` when the answer is the light one"),
            )),
        NoSuchMatch,
        (status = 409, description = "stale `expected_version` (`version_conflict`) or the match is not started (`not_started`)", body = ErrorBody),
        (status = 422, description = "an invalid hand, or the match is over (`game_over`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        SignedInOnly,
    )
)]
#[post("/api/v1/matches/{id}/hands")]
async fn record_hand(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    id: web::Path<MatchId>,
    request: HttpRequest,
    body: ApiJson<HandRequest>,
) -> Result<HttpResponse, AppError> {
    let input = super::match_body(&state, &who, *id, body).await?;
    let entry = NewHandEntry {
        hand: &input.hand,
        expected_version: input.expected_version,
        idempotency_key: input.idempotency_key.as_ref(),
        shape: if prefers_minimal(&request) {
            AnswerShape::Minimal
        } else {
            AnswerShape::Full
        },
    };
    let recorded = matches::record_hand(&state.db, &who.user, *id, &entry).await?;
    Ok(recorded_hand(recorded))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CorrectionRequest {
    hand: HandInput,
    /// Why: not blank, at most 500 characters, line breaks allowed, stored text
    /// (docs/api.md §1.1).
    #[schema(min_length = 1, max_length = 500)]
    reason: String,
    /// The match's `version` as last seen.
    #[schema(minimum = 1)]
    expected_version: i64,
    /// Admin only: confirms resetting started playoff matches whose teams this correction
    /// changes (after a `bracket_reset_needed` answer). They are cancelled, hands kept.
    #[serde(default)]
    reset_bracket_path: bool,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    idempotency_key: Option<IdempotencyKey>,
}

/// Corrects a hand (a new revision with a reason), rescoring later ones (admin or supervisor).
#[utoipa::path(
    put,
    path = "/api/v1/matches/{id}/hands/{number}",
    tag = "matches",
    params(
        ("id" = i64, Path, description = "the match id", minimum = 1),
        ("number" = i64, Path, description = "the hand's number, from 1", minimum = 1),
    ),
    request_body = CorrectionRequest,
    security(("bearer" = [])),
    responses(
        MatchWritten,
        (status = 403, description = "a non-admin sending `reset_bracket_path`, a cross-site request, or a session cookie without the session's `X-CSRF-Token`", body = ErrorBody),
        (status = 404, description = "no such match or hand, or not one of the leagues you supervise", body = ErrorBody),
        (status = 409, description = "stale `expected_version` (`version_conflict`), the match is closed (`match_closed`), or started playoff matches would change (`bracket_reset_needed`)", body = ErrorBody),
        (status = 422, description = "an invalid hand, a reason that is blank, too long or holds a control character (`invalid_correction`), an invalid `idempotency_key`, or one used before for something else (`idempotency_key_reused`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
    )
)]
#[put("/api/v1/matches/{id}/hands/{number}")]
async fn correct_hand(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    path: web::Path<(MatchId, i64)>,
    body: ApiJson<CorrectionRequest>,
) -> Result<HttpResponse, AppError> {
    let (id, number) = path.into_inner();
    let input = super::match_body(&state, &who, id, body).await?;
    let correction = matches::Correction {
        number,
        hand: &input.hand,
        reason: &input.reason,
        expected_version: input.expected_version,
        reset_bracket_path: input.reset_bracket_path,
        idempotency_key: input.idempotency_key.as_ref(),
    };
    Ok(super::acted(
        matches::correct_hand(&state.db, &who.user, id, &correction).await?,
    ))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct VersionRequest {
    /// The match's `version` as last seen.
    #[schema(minimum = 1)]
    expected_version: i64,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    idempotency_key: Option<IdempotencyKey>,
}

/// Calls time: the hand in play is the last (admin or supervisor).
#[utoipa::path(
    post,
    path = "/api/v1/matches/{id}/time",
    tag = "matches",
    params(("id" = i64, Path, description = "the match id", minimum = 1)),
    request_body = VersionRequest,
    security(("bearer" = [])),
    responses(
        MatchWritten,
        NoSuchMatch,
        (status = 409, description = "stale `expected_version`, the match is not in play, time already called, or no time limit", body = ErrorBody),
        (status = 422, description = "a body of the wrong shape, an invalid `idempotency_key`, or one used before for something else (`idempotency_key_reused`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        SignedInOnly,
    )
)]
#[post("/api/v1/matches/{id}/time")]
async fn call_time(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    id: web::Path<MatchId>,
    body: ApiJson<VersionRequest>,
) -> Result<HttpResponse, AppError> {
    let input = super::match_body(&state, &who, *id, body).await?;
    let key = input.idempotency_key.as_ref();
    let called = matches::call_time(&state.db, &who.user, *id, input.expected_version, key);
    Ok(super::acted(called.await?))
}

/// Records a forfeit by one team or both (admin or supervisor).
#[utoipa::path(
    post,
    path = "/api/v1/matches/{id}/forfeit",
    tag = "matches",
    params(("id" = i64, Path, description = "the match id", minimum = 1)),
    request_body = ForfeitInput,
    security(("bearer" = [])),
    responses(
        MatchWritten,
        (status = 403, description = "a non-admin sending `advance`, a cross-site request, or a session cookie without the session's `X-CSRF-Token`", body = ErrorBody),
        NoSuchMatch,
        (status = 409, description = "stale `expected_version` or the match is already over (`match_closed`)", body = ErrorBody),
        (status = 422, description = "`team` is not `a`, `b` or `both`, an invalid `idempotency_key`, or one used before for something else (`idempotency_key_reused`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
    )
)]
#[post("/api/v1/matches/{id}/forfeit")]
async fn forfeit(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    id: web::Path<MatchId>,
    body: ApiJson<ForfeitInput>,
) -> Result<HttpResponse, AppError> {
    let input = super::match_body(&state, &who, *id, body).await?;
    Ok(super::acted(
        matches::forfeit(&state.db, &who.user, *id, &input).await?,
    ))
}
