//! The JSON API of league night (docs/api.md §6–§7): the same services as
//! the pages.

use actix_web::{HttpResponse, get, post, put, web};
use serde::{Deserialize, Serialize};

use crate::domain::MatchId;
use crate::league::standings::Standing;
use crate::rules::HandInput;
use crate::service::leagues::{self, LeagueView, NewLeagueInput};
use crate::service::matches::{self, ForfeitInput, MatchView, Recorded};
use crate::service::schedule::{NewMatchInput, ScheduleInput};
use crate::service::teams::{NewTeamInput, TeamView};
use crate::web::AppState;
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::parse;
use crate::web::extract::{Admin, Supervisor};

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(create_league)
        .service(list_leagues)
        .service(show_league)
        .service(add_team)
        .service(list_teams)
        .service(add_supervisor)
        .service(schedule)
        .service(create_match)
        .service(list_matches)
        .service(show_match)
        .service(start_match)
        .service(record_hand)
        .service(correct_hand)
        .service(call_time)
        .service(forfeit)
        .service(standings);
}

/// Creates a league (admin).
#[utoipa::path(
    post,
    path = "/api/v1/leagues",
    tag = "leagues",
    request_body = NewLeagueInput,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "the new league", body = LeagueView),
        (status = 400, description = "the body is not JSON", body = ErrorBody),
        (status = 401, description = "no or bad credentials", body = ErrorBody),
        (status = 403, description = "not an admin, or a cross-site request", body = ErrorBody),
        (status = 409, description = "the slug is taken (`slug_taken`)", body = ErrorBody),
        (status = 422, description = "invalid name, rules or tiebreak order", body = ErrorBody),
    )
)]
#[post("/api/v1/leagues")]
async fn create_league(
    state: web::Data<AppState>,
    admin: Admin,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let input: NewLeagueInput = parse(&body)?;
    let league = leagues::create_league(&state.db, &admin.0.user, &input).await?;
    Ok(HttpResponse::Created().json(league.view()))
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct LeagueList {
    leagues: Vec<LeagueView>,
}

/// Lists every league.
#[utoipa::path(
    get,
    path = "/api/v1/leagues",
    tag = "leagues",
    responses(
        (status = 200, description = "every league", body = LeagueList),
    )
)]
#[get("/api/v1/leagues")]
async fn list_leagues(state: web::Data<AppState>) -> Result<HttpResponse, AppError> {
    let all = leagues::all_leagues(&state.db).await?;
    Ok(HttpResponse::Ok().json(LeagueList {
        leagues: all.iter().map(|l| l.view()).collect(),
    }))
}

/// A league with its rules resolved per stage.
#[utoipa::path(
    get,
    path = "/api/v1/leagues/{slug}",
    tag = "leagues",
    params(("slug" = String, Path, description = "the league's slug")),
    responses(
        (status = 200, description = "the league", body = LeagueView),
        (status = 404, description = "no such league", body = ErrorBody),
    )
)]
#[get("/api/v1/leagues/{slug}")]
async fn show_league(
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let mut conn = state.db.reader().acquire().await?;
    let league = leagues::league_by_slug(&mut conn, &slug).await?;
    Ok(HttpResponse::Ok().json(league.view()))
}

/// Adds a team to a league (admin).
#[utoipa::path(
    post,
    path = "/api/v1/leagues/{slug}/teams",
    tag = "leagues",
    params(("slug" = String, Path, description = "the league's slug")),
    request_body = NewTeamInput,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "the new team", body = TeamView),
        (status = 400, description = "the body is not JSON", body = ErrorBody),
        (status = 401, description = "no or bad credentials", body = ErrorBody),
        (status = 403, description = "not an admin, or a cross-site request", body = ErrorBody),
        (status = 404, description = "no such league", body = ErrorBody),
        (status = 422, description = "invalid name or players, or the name is taken in the league", body = ErrorBody),
    )
)]
#[post("/api/v1/leagues/{slug}/teams")]
async fn add_team(
    state: web::Data<AppState>,
    admin: Admin,
    slug: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let input: NewTeamInput = parse(&body)?;
    let team = crate::service::teams::add_team(&state.db, &admin.0.user, &slug, &input).await?;
    Ok(HttpResponse::Created().json(team))
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct TeamList {
    teams: Vec<TeamView>,
}

/// A league's teams.
#[utoipa::path(
    get,
    path = "/api/v1/leagues/{slug}/teams",
    tag = "leagues",
    params(("slug" = String, Path, description = "the league's slug")),
    responses(
        (status = 200, description = "the league's teams", body = TeamList),
        (status = 404, description = "no such league", body = ErrorBody),
    )
)]
#[get("/api/v1/leagues/{slug}/teams")]
async fn list_teams(
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let mut conn = state.db.reader().acquire().await?;
    let league = leagues::league_by_slug(&mut conn, &slug).await?;
    let teams = crate::service::teams::teams(&mut conn, league.row.id).await?;
    Ok(HttpResponse::Ok().json(TeamList {
        teams: teams.iter().map(TeamView::from).collect(),
    }))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SupervisorInput {
    username: String,
}

/// Lets a user run the league's matches (admin).
#[utoipa::path(
    post,
    path = "/api/v1/leagues/{slug}/supervisors",
    tag = "leagues",
    params(("slug" = String, Path, description = "the league's slug")),
    request_body = SupervisorInput,
    security(("bearer" = [])),
    responses(
        (status = 204, description = "the user supervises the league"),
        (status = 400, description = "the body is not JSON", body = ErrorBody),
        (status = 401, description = "no or bad credentials", body = ErrorBody),
        (status = 403, description = "not an admin, or a cross-site request", body = ErrorBody),
        (status = 404, description = "no such league", body = ErrorBody),
        (status = 422, description = "no such user (`invalid_user`), or a body of the wrong shape", body = ErrorBody),
    )
)]
#[post("/api/v1/leagues/{slug}/supervisors")]
async fn add_supervisor(
    state: web::Data<AppState>,
    admin: Admin,
    slug: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let input: SupervisorInput = parse(&body)?;
    leagues::assign_supervisor(&state.db, &admin.0.user, &slug, &input.username).await?;
    Ok(HttpResponse::NoContent().finish())
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct MatchList {
    matches: Vec<MatchView>,
}

async fn views(state: &AppState, ids: &[MatchId]) -> Result<Vec<MatchView>, AppError> {
    let mut conn = state.db.writer().acquire().await?;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        out.push(matches::load(&mut conn, *id).await?.0);
    }
    Ok(out)
}

/// Generates the regular season's schedule (admin).
#[utoipa::path(
    post,
    path = "/api/v1/leagues/{slug}/schedule",
    tag = "leagues",
    params(("slug" = String, Path, description = "the league's slug")),
    request_body = ScheduleInput,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "the scheduled matches", body = MatchList),
        (status = 400, description = "the body is not JSON", body = ErrorBody),
        (status = 401, description = "no or bad credentials", body = ErrorBody),
        (status = 403, description = "not an admin, or a cross-site request", body = ErrorBody),
        (status = 404, description = "no such league", body = ErrorBody),
        (status = 409, description = "the league already has regular-season matches (`schedule_exists`)", body = ErrorBody),
        (status = 422, description = "invalid format, date, time or too few teams", body = ErrorBody),
    )
)]
#[post("/api/v1/leagues/{slug}/schedule")]
async fn schedule(
    state: web::Data<AppState>,
    admin: Admin,
    slug: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let input: ScheduleInput = parse(&body)?;
    let ids = crate::service::schedule::generate_schedule(&state.db, &admin.0.user, &slug, &input)
        .await?;
    Ok(HttpResponse::Created().json(MatchList {
        matches: views(&state, &ids).await?,
    }))
}

/// Adds a single match to a league (admin).
#[utoipa::path(
    post,
    path = "/api/v1/leagues/{slug}/matches",
    tag = "leagues",
    params(("slug" = String, Path, description = "the league's slug")),
    request_body = NewMatchInput,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "the new match", body = MatchView),
        (status = 400, description = "the body is not JSON", body = ErrorBody),
        (status = 401, description = "no or bad credentials", body = ErrorBody),
        (status = 403, description = "not an admin, or a cross-site request", body = ErrorBody),
        (status = 404, description = "no such league", body = ErrorBody),
        (status = 422, description = "invalid teams, stage or time", body = ErrorBody),
    )
)]
#[post("/api/v1/leagues/{slug}/matches")]
async fn create_match(
    state: web::Data<AppState>,
    admin: Admin,
    slug: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let input: NewMatchInput = parse(&body)?;
    let id =
        crate::service::schedule::create_match(&state.db, &admin.0.user, &slug, &input).await?;
    let mut conn = state.db.writer().acquire().await?;
    Ok(HttpResponse::Created().json(matches::load(&mut conn, id).await?.0))
}

/// A league's matches.
#[utoipa::path(
    get,
    path = "/api/v1/leagues/{slug}/matches",
    tag = "leagues",
    params(("slug" = String, Path, description = "the league's slug")),
    responses(
        (status = 200, description = "the league's matches", body = MatchList),
        (status = 404, description = "no such league", body = ErrorBody),
    )
)]
#[get("/api/v1/leagues/{slug}/matches")]
async fn list_matches(
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let mut conn = state.db.reader().acquire().await?;
    let league = leagues::league_by_slug(&mut conn, &slug).await?;
    let rows = crate::db::matches::of_league(&mut conn, league.row.id).await?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        out.push(matches::load(&mut conn, row.id).await?.0);
    }
    Ok(HttpResponse::Ok().json(MatchList { matches: out }))
}

/// A match with its hands and totals.
#[utoipa::path(
    get,
    path = "/api/v1/matches/{id}",
    tag = "matches",
    params(("id" = i64, Path, description = "the match id")),
    responses(
        (status = 200, description = "the match", body = MatchView),
        (status = 404, description = "no such match", body = ErrorBody),
    )
)]
#[get("/api/v1/matches/{id}")]
async fn show_match(
    state: web::Data<AppState>,
    id: web::Path<MatchId>,
) -> Result<HttpResponse, AppError> {
    let mut conn = state.db.reader().acquire().await?;
    Ok(HttpResponse::Ok().json(matches::load(&mut conn, *id).await?.0))
}

/// Starts a match: its rules are frozen and its clock runs (admin or supervisor).
#[utoipa::path(
    post,
    path = "/api/v1/matches/{id}/start",
    tag = "matches",
    params(("id" = i64, Path, description = "the match id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the started match", body = MatchView),
        (status = 401, description = "no or bad credentials", body = ErrorBody),
        (status = 403, description = "a cross-site request", body = ErrorBody),
        (status = 404, description = "no such match, or not one of the leagues you supervise", body = ErrorBody),
        (status = 409, description = "the match is not scheduled (`not_scheduled`)", body = ErrorBody),
    )
)]
#[post("/api/v1/matches/{id}/start")]
async fn start_match(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    id: web::Path<MatchId>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(matches::start(&state.db, &who.user, *id).await?))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct HandRequest {
    hand: HandInput,
    expected_version: i64,
    #[serde(default)]
    idempotency_key: Option<String>,
}

/// Records the next hand (admin or supervisor).
#[utoipa::path(
    post,
    path = "/api/v1/matches/{id}/hands",
    tag = "matches",
    params(("id" = i64, Path, description = "the match id")),
    request_body = HandRequest,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "the match with the hand; a repeated `idempotency_key` answers the first answer again",
            body = MatchView,
            headers(("Idempotent-Replay" = String, description = "`true` when the answer is a replay"))),
        (status = 400, description = "the body is not JSON", body = ErrorBody),
        (status = 401, description = "no or bad credentials", body = ErrorBody),
        (status = 403, description = "a cross-site request", body = ErrorBody),
        (status = 404, description = "no such match, or not one of the leagues you supervise", body = ErrorBody),
        (status = 409, description = "stale `expected_version` (`version_conflict`) or the match is not started (`not_started`)", body = ErrorBody),
        (status = 422, description = "an invalid hand, or the match is over (`game_over`)", body = ErrorBody),
    )
)]
#[post("/api/v1/matches/{id}/hands")]
async fn record_hand(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    id: web::Path<MatchId>,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let input: HandRequest = parse(&body)?;
    let recorded = matches::record_hand(
        &state.db,
        &who.user,
        *id,
        &input.hand,
        input.expected_version,
        input.idempotency_key.as_deref(),
    )
    .await?;
    Ok(match recorded {
        Recorded::New(view) => HttpResponse::Created().json(view),
        Recorded::Repeat(answer) => HttpResponse::Created()
            .content_type("application/json")
            .insert_header(("Idempotent-Replay", "true"))
            .body(answer),
    })
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CorrectionRequest {
    hand: HandInput,
    reason: String,
    expected_version: i64,
    /// Admin only: confirms resetting started playoff matches whose teams this correction
    /// changes (after a `bracket_reset_needed` answer). They are cancelled, hands kept.
    #[serde(default)]
    reset_bracket_path: bool,
}

/// Corrects a hand (a new revision with a reason), rescoring later ones (admin or supervisor).
#[utoipa::path(
    put,
    path = "/api/v1/matches/{id}/hands/{number}",
    tag = "matches",
    params(
        ("id" = i64, Path, description = "the match id"),
        ("number" = i64, Path, description = "the hand's number, from 1"),
    ),
    request_body = CorrectionRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the match with the corrected hand", body = MatchView),
        (status = 400, description = "the body is not JSON", body = ErrorBody),
        (status = 401, description = "no or bad credentials", body = ErrorBody),
        (status = 403, description = "a cross-site request", body = ErrorBody),
        (status = 404, description = "no such match or hand, or not one of the leagues you supervise", body = ErrorBody),
        (status = 409, description = "stale `expected_version` (`version_conflict`), the match is closed (`match_closed`), or started playoff matches would change (`bracket_reset_needed`)", body = ErrorBody),
        (status = 422, description = "an invalid hand or no reason", body = ErrorBody),
    )
)]
#[put("/api/v1/matches/{id}/hands/{number}")]
async fn correct_hand(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    path: web::Path<(MatchId, i64)>,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let (id, number) = path.into_inner();
    let input: CorrectionRequest = parse(&body)?;
    let view = matches::correct_hand(
        &state.db,
        &who.user,
        id,
        &matches::Correction {
            number,
            hand: &input.hand,
            reason: &input.reason,
            expected_version: input.expected_version,
            reset_bracket_path: input.reset_bracket_path,
        },
    )
    .await?;
    Ok(HttpResponse::Ok().json(view))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct VersionRequest {
    expected_version: i64,
}

/// Calls time: the hand in play is the last (admin or supervisor).
#[utoipa::path(
    post,
    path = "/api/v1/matches/{id}/time",
    tag = "matches",
    params(("id" = i64, Path, description = "the match id")),
    request_body = VersionRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the match with time called", body = MatchView),
        (status = 400, description = "the body is not JSON", body = ErrorBody),
        (status = 401, description = "no or bad credentials", body = ErrorBody),
        (status = 403, description = "a cross-site request", body = ErrorBody),
        (status = 404, description = "no such match, or not one of the leagues you supervise", body = ErrorBody),
        (status = 409, description = "stale `expected_version`, the match is not in play, time already called, or no time limit", body = ErrorBody),
        (status = 422, description = "a body of the wrong shape", body = ErrorBody),
    )
)]
#[post("/api/v1/matches/{id}/time")]
async fn call_time(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    id: web::Path<MatchId>,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let input: VersionRequest = parse(&body)?;
    Ok(HttpResponse::Ok()
        .json(matches::call_time(&state.db, &who.user, *id, input.expected_version).await?))
}

/// Records a forfeit by one team or both (admin or supervisor).
#[utoipa::path(
    post,
    path = "/api/v1/matches/{id}/forfeit",
    tag = "matches",
    params(("id" = i64, Path, description = "the match id")),
    request_body = ForfeitInput,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the forfeited match", body = MatchView),
        (status = 400, description = "the body is not JSON", body = ErrorBody),
        (status = 401, description = "no or bad credentials", body = ErrorBody),
        (status = 403, description = "a cross-site request", body = ErrorBody),
        (status = 404, description = "no such match, or not one of the leagues you supervise", body = ErrorBody),
        (status = 409, description = "stale `expected_version` or the match is already over (`match_closed`)", body = ErrorBody),
        (status = 422, description = "`team` is not `a`, `b` or `both`", body = ErrorBody),
    )
)]
#[post("/api/v1/matches/{id}/forfeit")]
async fn forfeit(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    id: web::Path<MatchId>,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let input: ForfeitInput = parse(&body)?;
    Ok(HttpResponse::Ok().json(matches::forfeit(&state.db, &who.user, *id, &input).await?))
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct StandingOut {
    pub rank: usize,
    pub team_id: i64,
    pub team: String,
    pub played: u32,
    pub won: u32,
    pub lost: u32,
    pub tied: u32,
    pub forfeits: u32,
    pub win_pct: f64,
    pub points_for: i64,
    pub points_against: i64,
    pub differential: i64,
}

impl From<&Standing> for StandingOut {
    fn from(s: &Standing) -> Self {
        StandingOut {
            rank: s.rank,
            team_id: s.team_id,
            team: s.team.clone(),
            played: s.played,
            won: s.won,
            lost: s.lost,
            tied: s.tied,
            forfeits: s.forfeits,
            win_pct: (s.win_pct * 1000.0).round() / 1000.0,
            points_for: s.points_for,
            points_against: s.points_against,
            differential: s.differential,
        }
    }
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct StandingsOut {
    rows: Vec<StandingOut>,
}

/// A league's standings, ranked with its tiebreaks.
#[utoipa::path(
    get,
    path = "/api/v1/leagues/{slug}/standings",
    tag = "leagues",
    params(("slug" = String, Path, description = "the league's slug")),
    responses(
        (status = 200, description = "the standings", body = StandingsOut),
        (status = 404, description = "no such league", body = ErrorBody),
    )
)]
#[get("/api/v1/leagues/{slug}/standings")]
async fn standings(
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let mut conn = state.db.reader().acquire().await?;
    let league = leagues::league_by_slug(&mut conn, &slug).await?;
    let rows = state.standings.get(&mut conn, &league).await?;
    Ok(HttpResponse::Ok().json(StandingsOut {
        rows: rows.iter().map(StandingOut::from).collect(),
    }))
}
