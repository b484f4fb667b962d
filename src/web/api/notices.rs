//! Notices by email in the JSON API (docs/api.md §23): admins read what was sent, what waits
//! and what failed, by league and status.

use actix_web::{HttpResponse, get, web};
use serde::Deserialize;

use crate::service::ServiceError;
use crate::service::notices::listing::{self, NoticeList, NoticeStatus};
use crate::web::AppState;
use crate::web::api::responses::{AdminOnly, Unauthenticated};
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::Admin;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(notices);
}

/// The query string of `GET /api/v1/notices`; an empty league is no filter.
#[derive(Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct NoticeParams {
    /// A league's slug.
    league: Option<String>,
    /// `pending`, `sent`, `failed` or `skipped`.
    status: Option<NoticeStatus>,
}

/// The notices by email, newest first (admin).
#[utoipa::path(
    get,
    path = "/api/v1/notices",
    tag = "accounts",
    params(NoticeParams),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the notices, newest first (at most 500)", body = NoticeList),
        (status = 400, description = "a parameter given twice or unknown, or a status that is not one (`malformed`)", body = ErrorBody),
        (status = 404, description = "no league with that slug (`not_found`)", body = ErrorBody),
        Unauthenticated,
        AdminOnly,
    )
)]
#[get("/api/v1/notices")]
async fn notices(
    state: web::Data<AppState>,
    Admin(who): Admin,
    params: web::Query<NoticeParams>,
) -> Result<HttpResponse, AppError> {
    let p = params.into_inner();
    let list = listing::list(&state.db, &who.user, p.league.as_deref(), p.status)
        .await
        .map_err(ServiceError::unknown_filter_not_found)?;
    Ok(HttpResponse::Ok().json(list))
}
