//! The audit log in the JSON API (docs/api.md §18.3): admins read who changed what, newest
//! first, filtered by league, match, user and action, a page at a time.

use actix_web::{HttpResponse, get, web};
use serde::Deserialize;

use crate::domain::MatchId;
use crate::service::ServiceError;
use crate::service::audit::{self, Page, Query};
use crate::web::AppState;
use crate::web::api::responses::{AdminOnly, Unauthenticated};
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::Admin;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(audit_log);
}

/// The query string of `GET /api/v1/audit`; an empty value is no filter.
#[derive(Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct AuditParams {
    /// A league's slug: changes to it and to its teams, players, matches and bracket.
    league: Option<String>,
    /// A match id.
    #[serde(rename = "match")]
    #[param(rename = "match")]
    match_id: Option<MatchId>,
    /// A username (any case).
    user: Option<String>,
    /// An action, as entries name it (`correct_hand`, `cancel_match`…).
    action: Option<String>,
    /// An entry id: only older entries (the `next` of the page before).
    before: Option<i64>,
    /// Entries per page, 1 to 200 (default 50).
    #[param(minimum = 1, maximum = 200)]
    limit: Option<i64>,
}

/// `Some(text)` unless it is empty.
fn given(text: Option<String>) -> Option<String> {
    text.filter(|t| !t.trim().is_empty())
}

impl From<AuditParams> for Query {
    fn from(p: AuditParams) -> Query {
        Query {
            league: given(p.league),
            match_id: p.match_id,
            user: given(p.user),
            action: given(p.action),
            before: p.before,
            limit: p.limit,
        }
    }
}

/// The audit log, newest first, a page at a time (admin).
#[utoipa::path(
    get,
    path = "/api/v1/audit",
    tag = "accounts",
    params(AuditParams),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "a page of entries, newest first; `next` is the `before` of the next page, `null` on the last", body = Page),
        (status = 400, description = "a parameter given twice, unknown, or a number that is not one (`malformed`)", body = ErrorBody),
        (status = 404, description = "no league with that slug, or no user with that username (`not_found`)", body = ErrorBody),
        (status = 422, description = "`limit` outside 1 to 200 (`invalid_request`)", body = ErrorBody),
        Unauthenticated,
        AdminOnly,
    )
)]
#[get("/api/v1/audit")]
async fn audit_log(
    state: web::Data<AppState>,
    Admin(who): Admin,
    params: web::Query<AuditParams>,
) -> Result<HttpResponse, AppError> {
    let page = audit::entries(&state.db, &who.user, &params.into_inner().into())
        .await
        .map_err(ServiceError::unknown_filter_not_found)?;
    Ok(HttpResponse::Ok().json(page))
}
