//! The JSON API (`/api/v1`): API.md.

use actix_web::{HttpResponse, get, post, web};
use serde::Serialize;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use super::api_league::{
    CorrectionRequest, HandRequest, LeagueList, MatchList, StandingOut, StandingsOut,
    SupervisorInput, TeamList, VersionRequest,
};
use super::error::{AppError, ErrorBody};
use super::public::{Board, BoardMatch};
use crate::rules::calculator::{ScoreRequest, ScoreResponse, ScoredHandOut, StartInput};
use crate::rules::hand::{BidInput, HandInput, RevokesInput, TeamHandInput};
use crate::rules::params::{self, Rules, RulesSpec};
use crate::rules::{TeamResult, TeamTotal, score_json};
use crate::service::leagues::{
    LeagueView, NewLeagueInput, NewMatchInput, NewTeamInput, RulesByStage, ScheduleInput,
    StageRules, TeamView,
};
use crate::service::matches::{ForfeitInput, HandView, MatchView, TeamRef};

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(score)
        .service(list_presets)
        .service(openapi_json);
}

/// Reads a JSON body: not JSON at all is a 400, JSON of the wrong shape a 422.
pub fn json_body(body: &[u8]) -> Result<serde_json::Value, AppError> {
    serde_json::from_slice(body)
        .map_err(|e| AppError::Malformed(format!("the body is not JSON: {e}")))
}

/// Scores a game from its hands, statelessly.
#[utoipa::path(
    post,
    path = "/api/v1/score",
    request_body = ScoreRequest,
    responses(
        (status = 200, description = "every hand's breakdown and the game's state", body = ScoreResponse),
        (status = 400, description = "the body is not JSON", body = ErrorBody),
        (status = 422, description = "invalid rules, start or hand; or a hand after the game is decided (`game_over`)", body = ErrorBody),
    )
)]
#[post("/api/v1/score")]
async fn score(body: web::Bytes) -> Result<web::Json<ScoreResponse>, AppError> {
    let value = json_body(&body)?;
    Ok(web::Json(score_json(value)?))
}

/// A preset with every field resolved.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PresetOut {
    pub name: &'static str,
    pub title: &'static str,
    /// The rule document it encodes (`shared/rules/NNN_*.txt`).
    pub source: &'static str,
    pub rules: Rules,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PresetList {
    pub presets: Vec<PresetOut>,
}

/// Lists every preset with its resolved fields.
#[utoipa::path(get, path = "/api/v1/presets", responses((status = 200, body = PresetList)))]
#[get("/api/v1/presets")]
async fn list_presets() -> web::Json<PresetList> {
    web::Json(PresetList {
        presets: params::presets()
            .into_iter()
            .map(|p| PresetOut {
                name: p.name,
                title: p.title,
                source: p.source,
                rules: p.rules,
            })
            .collect(),
    })
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "spades-im",
        version = "1",
        description = "Scoring, standings and playoffs for intramural Spades leagues."
    ),
    paths(
        score,
        list_presets,
        openapi_json,
        super::api_league::create_league,
        super::api_league::list_leagues,
        super::api_league::show_league,
        super::api_league::add_team,
        super::api_league::list_teams,
        super::api_league::add_supervisor,
        super::api_league::schedule,
        super::api_league::create_match,
        super::api_league::list_matches,
        super::api_league::show_match,
        super::api_league::start_match,
        super::api_league::record_hand,
        super::api_league::correct_hand,
        super::api_league::call_time,
        super::api_league::forfeit,
        super::api_league::standings,
        super::api_playoffs::create_playoffs,
        super::api_playoffs::show_bracket,
        super::public::scoreboard_json,
    ),
    components(schemas(
        ScoreRequest,
        ScoreResponse,
        ScoredHandOut,
        StartInput,
        HandInput,
        TeamHandInput,
        RevokesInput,
        BidInput,
        RulesSpec,
        Rules,
        TeamResult,
        TeamTotal,
        ErrorBody,
        PresetOut,
        PresetList,
        StageRules,
        NewLeagueInput,
        RulesByStage,
        LeagueView,
        LeagueList,
        NewTeamInput,
        TeamView,
        TeamList,
        SupervisorInput,
        ScheduleInput,
        NewMatchInput,
        TeamRef,
        HandView,
        MatchView,
        MatchList,
        HandRequest,
        CorrectionRequest,
        VersionRequest,
        ForfeitInput,
        StandingOut,
        StandingsOut,
        BoardMatch,
        Board,
        crate::service::playoffs::PlayoffsInput,
        crate::service::playoffs::BracketView,
        crate::service::playoffs::BracketMatchView
    )),
    modifiers(&BearerAuth),
    tags(
        (name = "leagues", description = "Leagues, teams, supervisors, schedules and standings."),
        (name = "matches", description = "League night: start a match, record and correct hands, call time, forfeits."),
        (name = "scoreboard", description = "Every match in play."),
        (name = "playoffs", description = "Playoff brackets seeded from the standings.")
    )
)]
pub struct ApiDoc;

/// The `bearer` scheme of the writes: an API token from the account page.
struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        openapi
            .components
            .get_or_insert_with(utoipa::openapi::Components::new)
            .add_security_scheme(
                "bearer",
                SecurityScheme::Http(
                    HttpBuilder::new()
                        .scheme(HttpAuthScheme::Bearer)
                        .description(Some(
                            "An API token (account page): `Authorization: Bearer <token>`",
                        ))
                        .build(),
                ),
            );
    }
}

/// The OpenAPI 3 document of this API, generated from the handlers and types.
#[utoipa::path(
    get,
    path = "/api/v1/openapi.json",
    responses((status = 200, description = "this document (OpenAPI 3)"))
)]
#[get("/api/v1/openapi.json")]
async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok().json(ApiDoc::openapi())
}
