//! The JSON API (`/api/v1`): docs/api.md.

use actix_web::{HttpResponse, get, post, web};
use serde::Serialize;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::rules::calculator::{ScoreRequest, ScoreResponse, ScoredHandOut, StartInput};
use crate::rules::hand::{BidInput, HandInput, RevokesInput, TeamHandInput};
use crate::rules::params::{self, Rules, RulesSpec};
use crate::rules::{TeamResult, TeamTotal, score_json};
use crate::service::TeamRef;
use crate::service::leagues::{LeagueView, NewLeagueInput, RulesByStage, StageRules};
use crate::service::match_view::{HandView, MatchView};
use crate::service::matches::ForfeitInput;
use crate::service::schedule::{NewMatchInput, ScheduleInput};
use crate::service::summaries::{Board, BoardMatch};
use crate::service::teams::{NewTeamInput, TeamView};
use crate::web::api::leagues::{LeagueList, SupervisorInput};
use crate::web::api::matches::{CorrectionRequest, HandRequest, MatchList, VersionRequest};
use crate::web::api::standings::{StandingOut, StandingsOut};
use crate::web::api::teams::TeamList;
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::ApiJson;

/// The calculator, the presets and this document (not cached: they change only with a
/// release).
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(score)
        .service(list_presets)
        .service(openapi_json);
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
async fn score(body: ApiJson<serde_json::Value>) -> Result<web::Json<ScoreResponse>, AppError> {
    let value = body.into_inner()?;
    Ok(web::Json(score_json(value)?))
}

/// A preset with every field resolved.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PresetOut {
    pub name: &'static str,
    pub title: &'static str,
    /// The number of the rule document it encodes (000–004; docs/scoring.md §1.3).
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
        crate::web::api::leagues::create_league,
        crate::web::api::leagues::list_leagues,
        crate::web::api::leagues::show_league,
        crate::web::api::leagues::add_supervisor,
        crate::web::api::teams::add_team,
        crate::web::api::teams::list_teams,
        crate::web::api::matches::schedule,
        crate::web::api::matches::create_match,
        crate::web::api::matches::list_matches,
        crate::web::api::matches::show_match,
        crate::web::api::matches::start_match,
        crate::web::api::matches::record_hand,
        crate::web::api::matches::correct_hand,
        crate::web::api::matches::call_time,
        crate::web::api::matches::forfeit,
        crate::web::api::standings::standings,
        crate::web::api::playoffs::create_playoffs,
        crate::web::api::playoffs::show_bracket,
        crate::web::api::scoreboard::scoreboard_json,
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
