//! The JSON API of league night (API.md "Leagues, teams, matches"): the same services as
//! the pages.

use actix_web::{HttpResponse, get, post, put, web};
use serde::{Deserialize, Serialize};

use super::AppState;
use super::api::json_body;
use super::auth::{Admin, Authed};
use super::error::AppError;
use crate::league::standings::Standing;
use crate::rules::HandInput;
use crate::service::leagues::{
    self, LeagueView, NewLeagueInput, NewMatchInput, NewTeamInput, ScheduleInput, TeamView,
};
use crate::service::matches::{self, ForfeitInput, MatchView, Recorded};

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

/// Reads a JSON body into `T`, naming the field of a wrong shape (422) or 400 for not JSON.
pub fn parse<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, AppError> {
    let value = json_body(body)?;
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        AppError::Invalid(crate::rules::CalcError {
            code: "invalid_request".into(),
            message: format!("{path}: {}", e.inner()),
            hand: None,
            field: (path != ".").then_some(path),
            team: None,
            player: None,
        })
    })
}

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

#[derive(Serialize)]
struct LeagueList {
    leagues: Vec<LeagueView>,
}

#[get("/api/v1/leagues")]
async fn list_leagues(state: web::Data<AppState>) -> Result<HttpResponse, AppError> {
    let all = leagues::all_leagues(&state.db).await?;
    Ok(HttpResponse::Ok().json(LeagueList {
        leagues: all.iter().map(|l| l.view()).collect(),
    }))
}

#[get("/api/v1/leagues/{slug}")]
async fn show_league(
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let mut conn = state.db.reader().acquire().await?;
    let league = leagues::league_by_slug(&mut conn, &slug).await?;
    Ok(HttpResponse::Ok().json(league.view()))
}

#[post("/api/v1/leagues/{slug}/teams")]
async fn add_team(
    state: web::Data<AppState>,
    admin: Admin,
    slug: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let input: NewTeamInput = parse(&body)?;
    let team = leagues::add_team(&state.db, &admin.0.user, &slug, &input).await?;
    Ok(HttpResponse::Created().json(team))
}

#[derive(Serialize)]
struct TeamList {
    teams: Vec<TeamView>,
}

#[get("/api/v1/leagues/{slug}/teams")]
async fn list_teams(
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let mut conn = state.db.reader().acquire().await?;
    let league = leagues::league_by_slug(&mut conn, &slug).await?;
    let teams = leagues::teams(&mut conn, league.row.id).await?;
    Ok(HttpResponse::Ok().json(TeamList {
        teams: teams.iter().map(TeamView::from).collect(),
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SupervisorInput {
    username: String,
}

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

#[derive(Serialize)]
struct MatchList {
    matches: Vec<MatchView>,
}

async fn views(state: &AppState, ids: &[i64]) -> Result<Vec<MatchView>, AppError> {
    let mut conn = state.db.writer().acquire().await?;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        out.push(matches::load(&mut conn, *id).await?.0);
    }
    Ok(out)
}

#[post("/api/v1/leagues/{slug}/schedule")]
async fn schedule(
    state: web::Data<AppState>,
    admin: Admin,
    slug: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let input: ScheduleInput = parse(&body)?;
    let ids = leagues::generate_schedule(&state.db, &admin.0.user, &slug, &input).await?;
    Ok(HttpResponse::Created().json(MatchList {
        matches: views(&state, &ids).await?,
    }))
}

#[post("/api/v1/leagues/{slug}/matches")]
async fn create_match(
    state: web::Data<AppState>,
    admin: Admin,
    slug: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let input: NewMatchInput = parse(&body)?;
    let id = leagues::create_match(&state.db, &admin.0.user, &slug, &input).await?;
    let mut conn = state.db.writer().acquire().await?;
    Ok(HttpResponse::Created().json(matches::load(&mut conn, id).await?.0))
}

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

#[get("/api/v1/matches/{id}")]
async fn show_match(
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    let mut conn = state.db.reader().acquire().await?;
    Ok(HttpResponse::Ok().json(matches::load(&mut conn, *id).await?.0))
}

#[post("/api/v1/matches/{id}/start")]
async fn start_match(
    state: web::Data<AppState>,
    who: Authed,
    id: web::Path<i64>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(matches::start(&state.db, &who.user, *id).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HandRequest {
    hand: HandInput,
    expected_version: i64,
    #[serde(default)]
    idempotency_key: Option<String>,
}

#[post("/api/v1/matches/{id}/hands")]
async fn record_hand(
    state: web::Data<AppState>,
    who: Authed,
    id: web::Path<i64>,
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CorrectionRequest {
    hand: HandInput,
    reason: String,
    expected_version: i64,
}

#[put("/api/v1/matches/{id}/hands/{number}")]
async fn correct_hand(
    state: web::Data<AppState>,
    who: Authed,
    path: web::Path<(i64, i64)>,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let (id, number) = path.into_inner();
    let input: CorrectionRequest = parse(&body)?;
    let view = matches::correct_hand(
        &state.db,
        &who.user,
        id,
        number,
        &input.hand,
        &input.reason,
        input.expected_version,
    )
    .await?;
    Ok(HttpResponse::Ok().json(view))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VersionRequest {
    expected_version: i64,
}

#[post("/api/v1/matches/{id}/time")]
async fn call_time(
    state: web::Data<AppState>,
    who: Authed,
    id: web::Path<i64>,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let input: VersionRequest = parse(&body)?;
    Ok(HttpResponse::Ok()
        .json(matches::call_time(&state.db, &who.user, *id, input.expected_version).await?))
}

#[post("/api/v1/matches/{id}/forfeit")]
async fn forfeit(
    state: web::Data<AppState>,
    who: Authed,
    id: web::Path<i64>,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let input: ForfeitInput = parse(&body)?;
    Ok(HttpResponse::Ok().json(matches::forfeit(&state.db, &who.user, *id, &input).await?))
}

#[derive(Serialize)]
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

#[derive(Serialize)]
struct StandingsOut {
    rows: Vec<StandingOut>,
}

#[get("/api/v1/leagues/{slug}/standings")]
async fn standings(
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let mut conn = state.db.reader().acquire().await?;
    let league = leagues::league_by_slug(&mut conn, &slug).await?;
    let rows = leagues::standings(&mut conn, &league).await?;
    Ok(HttpResponse::Ok().json(StandingsOut {
        rows: rows.iter().map(StandingOut::from).collect(),
    }))
}
