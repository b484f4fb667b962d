//! Playoffs in the JSON API (docs/api.md §8): create a league's bracket, read it, and its
//! CSV export.

use crate::rules::Team;
use actix_web::{HttpResponse, get, post, web};

use crate::service::playoffs::{self, BracketView, PlayoffsInput};
use crate::web::AppState;
use crate::web::error::{AppError, ErrorBody, PageError};
use crate::web::extract::Admin;
use crate::web::extract::parse;
use crate::web::pages::public::{csv_response, csv_row};

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(create_playoffs)
        .service(show_bracket)
        .service(bracket_csv);
}

/// Creates the league's playoff bracket, seeded from the regular-season standings (admin).
/// The matches whose two teams are known are created at once; the others as winners advance.
#[utoipa::path(
    post,
    path = "/api/v1/leagues/{slug}/playoffs",
    tag = "playoffs",
    params(("slug" = String, Path, description = "the league's slug")),
    request_body = PlayoffsInput,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "the bracket", body = BracketView),
        (status = 400, description = "the body is not JSON", body = ErrorBody),
        (status = 401, description = "no or bad credentials", body = ErrorBody),
        (status = 403, description = "not an admin, or a cross-site request", body = ErrorBody),
        (status = 404, description = "no such league", body = ErrorBody),
        (status = 409, description = "the league already has a bracket (`bracket_exists`)", body = ErrorBody),
        (status = 422, description = "invalid format, number of teams, third place or grand final", body = ErrorBody),
    )
)]
#[post("/api/v1/leagues/{slug}/playoffs")]
async fn create_playoffs(
    state: web::Data<AppState>,
    admin: Admin,
    slug: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, AppError> {
    let input: PlayoffsInput = parse(&body)?;
    let view = playoffs::create_playoffs(&state.db, &admin.0.user, &slug, &input).await?;
    Ok(HttpResponse::Created().json(view))
}

/// A league's bracket: every match with its teams, seeds, state and where the winner goes.
#[utoipa::path(
    get,
    path = "/api/v1/leagues/{slug}/bracket",
    tag = "playoffs",
    params(("slug" = String, Path, description = "the league's slug")),
    responses(
        (status = 200, description = "the bracket", body = BracketView),
        (status = 404, description = "no such league, or no bracket yet", body = ErrorBody),
    )
)]
#[get("/api/v1/leagues/{slug}/bracket")]
async fn show_bracket(
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> Result<HttpResponse, AppError> {
    let mut conn = state.db.reader().acquire().await?;
    let view = playoffs::bracket_of(&mut conn, &slug).await?;
    Ok(HttpResponse::Ok().json(view))
}

/// The bracket as CSV: one row per bracket match, in bracket order.
#[get("/leagues/{slug}/bracket.csv")]
async fn bracket_csv(
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let view = playoffs::bracket_of(&mut conn, &slug).await?;
    let mut out = csv_row(&[
        "round", "bracket", "position", "match_id", "seed_a", "team_a", "seed_b", "team_b",
        "status", "score_a", "score_b", "winner",
    ]);
    let text = |v: Option<i64>| v.map(|n| n.to_string()).unwrap_or_default();
    for m in &view.matches {
        let name = |t: &Option<crate::service::TeamRef>| {
            t.as_ref().map(|t| t.name.clone()).unwrap_or_default()
        };
        let winner = match m.winner {
            Some(Team::A) => name(&m.team_a),
            Some(Team::B) => name(&m.team_b),
            None => String::new(),
        };
        out.push_str(&csv_row(&[
            m.round.to_string(),
            m.bracket.as_str().to_string(),
            m.position.to_string(),
            text(m.match_id.map(|id| id.0)),
            text(m.seed_a),
            name(&m.team_a),
            text(m.seed_b),
            name(&m.team_b),
            m.status.as_str().to_string(),
            text(m.score_a),
            text(m.score_b),
            winner,
        ]));
    }
    Ok(csv_response(&format!("{}-bracket.csv", view.league), out))
}
