//! The queue of a tournament night in the JSON API (docs/api.md §21.1): the room's tables,
//! the public queue, calling the next matches, and a call by hand.

use actix_web::http::header;
use actix_web::{HttpResponse, get, post, put, web};

use crate::domain::{MatchId, Slug};
use crate::service::night::queue::{self, CallInput, QueueView, TablesInput};
use crate::web::AppState;
use crate::web::api::responses::{
    AdminOnly, BadReadCredentials, BodyRefused, MatchWritten, NoSuchLeague, NoSuchMatch,
    Unauthenticated,
};
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::{Admin, ApiJson, Supervisor};

/// The writes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(set_tables)
        .service(fill_tables)
        .service(call_match);
}

/// The public reads, served from the page cache to anonymous visitors.
pub fn reads(cfg: &mut web::ServiceConfig) {
    cfg.service(show_queue);
}

/// Sets the room's tables (admin), in calling order; with `settings.queue.auto`, ready
/// matches are called to the free ones at once.
#[utoipa::path(
    put,
    path = "/api/v1/leagues/{slug}/tables",
    tag = "queue",
    params(Slug),
    request_body = TablesInput,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the tables as kept (each name trimmed)", body = TablesInput),
        NoSuchLeague,
        (status = 409, description = "the league is archived (`league_archived`)", body = ErrorBody),
        (status = 422, description = "a blank, too long or repeated name, or more than 100 tables (`invalid_settings`, naming `tables[i]`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[put("/api/v1/leagues/{slug}/tables")]
async fn set_tables(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    body: ApiJson<TablesInput>,
) -> Result<HttpResponse, AppError> {
    let input = body.into_inner()?;
    let kept = queue::set_tables(&state.db, &who.user, &slug, &input).await?;
    Ok(HttpResponse::Ok().json(kept))
}

/// The queue: each table free, called or playing ("no show?" once a call is older than
/// `settings.queue.call_minutes`), and the matches waiting in calling order.
#[utoipa::path(
    get,
    path = "/api/v1/leagues/{slug}/queue",
    tag = "queue",
    params(Slug),
    responses(
        (status = 200, description = "the queue", body = QueueView),
        NoSuchLeague,
        BadReadCredentials,
    )
)]
#[get("/api/v1/leagues/{slug}/queue")]
async fn show_queue(
    state: web::Data<AppState>,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .json(queue::queue(&state.db, &slug).await?))
}

/// Calls ready matches to the free tables now (an admin, or a supervisor of the league):
/// what the queue does by itself after every result, for the start of a night. Calls only
/// with `settings.queue.auto`.
#[utoipa::path(
    post,
    path = "/api/v1/leagues/{slug}/queue",
    tag = "queue",
    params(Slug),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the queue after the calls", body = QueueView),
        NoSuchLeague,
        (status = 409, description = "the league is archived (`league_archived`)", body = ErrorBody),
        Unauthenticated,
        (status = 403, description = "a cross-site request, or a session cookie without the session's `X-CSRF-Token`", body = ErrorBody),
    )
)]
#[post("/api/v1/leagues/{slug}/queue")]
async fn fill_tables(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, AppError> {
    let view: QueueView = queue::fill_now(&state.db, &who.user, &slug).await?;
    Ok(HttpResponse::Ok().json(view))
}

/// Calls a match to a table by hand, or puts it back in the queue (`"table": null`): an
/// admin, or a supervisor of its league.
#[utoipa::path(
    post,
    path = "/api/v1/matches/{id}/call",
    tag = "queue",
    params(("id" = i64, Path, description = "the match id", minimum = 1)),
    request_body = CallInput,
    security(("bearer" = [])),
    responses(
        MatchWritten,
        (status = 403, description = "a cross-site request, or a session cookie without the session's `X-CSRF-Token`", body = ErrorBody),
        NoSuchMatch,
        (status = 409, description = "the table holds another match (`table_busy`), a team is at another table (`team_busy`), the match has started (`match_started`), is over (`match_closed`), postponed or cancelled (`not_scheduled`), or its league is archived (`league_archived`)", body = ErrorBody),
        (status = 422, description = "`table` is none of the league's tables (`invalid_input`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
    )
)]
#[post("/api/v1/matches/{id}/call")]
async fn call_match(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    id: web::Path<MatchId>,
    body: ApiJson<CallInput>,
) -> Result<HttpResponse, AppError> {
    let input = super::match_body(&state, &who, *id, body).await?;
    Ok(HttpResponse::Ok().json(queue::call(&state.db, &who.user, *id, &input).await?))
}
