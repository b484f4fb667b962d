//! The JSON API (`/api/v1`): API.md.

use actix_web::{HttpResponse, get, post, web};
use serde::Serialize;
use utoipa::OpenApi;

use super::error::{AppError, ErrorBody};
use crate::rules::calculator::{ScoreRequest, ScoreResponse, ScoredHandOut, StartInput};
use crate::rules::hand::{BidInput, HandInput, RevokesInput, TeamHandInput};
use crate::rules::params::{self, Rules, RulesSpec};
use crate::rules::{TeamResult, TeamTotal, score_json};

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
    paths(score, list_presets),
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
        PresetList
    ))
)]
pub struct ApiDoc;

/// The OpenAPI 3 document of this API, generated from the handlers and types.
#[get("/api/v1/openapi.json")]
async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok().json(ApiDoc::openapi())
}
