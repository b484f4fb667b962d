//! A league's roster imported from CSV in the JSON API (docs/api.md §18.2): checked row by
//! row, then written all at once or not at all; a dry run writes nothing.

use actix_web::{HttpRequest, HttpResponse, post, web};
use serde::{Deserialize, Serialize};

use crate::domain::{FieldError, Slug};
use crate::service::ServiceError;
use crate::service::term::roster::import::import_roster;
use crate::service::term::roster::plan::RosterReport;
use crate::web::AppState;
use crate::web::api::responses::{AdminOnly, NoSuchLeague, Unauthenticated};
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::{Admin, is_csv};

/// The largest roster body, as every other body: 500 rows of a roster are far below it.
const ROSTER_LIMIT: usize = 256 * 1024;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(post_roster);
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct RosterQuery {
    /// `true`: check and report, write nothing.
    #[serde(default)]
    #[param(required = false)]
    dry_run: bool,
}

/// The answer when a row has an error: the error, and the report of every row beside it.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct RosterRefused {
    error: FieldError,
    #[serde(flatten)]
    report: RosterReport,
}

/// Imports a roster CSV into a league (admin).
///
/// The body is the CSV text (UTF-8, with or without a byte order mark). A header row names
/// its columns in any order: `team`, `division`, `player` (or `name`), `student id`,
/// `email`, `captain`, `active`; one player a row, a team's rows gathered by its name.
/// Without a header, each row is a team: its name, then 2 to 8 players. A division the
/// league lacks is made; a team the league has is updated (its players matched by student
/// id, then by name, changed or added; a cell left empty keeps what is stored). The league's
/// `roster.csv` reads back as it was written.
#[utoipa::path(
    post,
    path = "/api/v1/leagues/{slug}/roster",
    tag = "leagues",
    params(Slug, RosterQuery),
    request_body(
        description = "the roster as CSV text",
        content(
            (String = "text/csv"),
            (String = "text/plain"),
        ),
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "every row is good: written (or, on a dry run, what would be)", body = RosterReport),
        (status = 400, description = "`dry_run` other than `true` or `false` (`malformed`)", body = ErrorBody),
        NoSuchLeague,
        (status = 409, description = "the league is archived, a past season (`league_archived`); a dry run still answers", body = ErrorBody),
        (status = 413, description = "the body is larger than 256 KiB (`too_large`)", body = ErrorBody),
        (status = 415, description = "the body is not sent as `text/csv` or `text/plain` (`unsupported_media_type`)", body = ErrorBody),
        (status = 422, description = "a row has an error: nothing is written, every row's outcome beside the error (`invalid_roster`); or the file gives no rows, too many, or is not UTF-8 text (`invalid_roster` on `csv`)", body = RosterRefused),
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/leagues/{slug}/roster")]
async fn post_roster(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    query: web::Query<RosterQuery>,
    req: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, AppError> {
    let body = payload
        .to_bytes_limited(ROSTER_LIMIT)
        .await
        .map_err(|_| AppError::TooLarge)?
        .map_err(|_| {
            AppError::Malformed("the body could not be read in full; send it again".into())
        })?;
    if !is_csv(&req) {
        return Err(AppError::NotCsv);
    }
    let Ok(csv) = std::str::from_utf8(&body) else {
        let message = "the file is not UTF-8 text: save it as \"CSV UTF-8\" and send it again";
        return Ok(refused(message, RosterReport::default()));
    };
    let report = match import_roster(&state.db, &who.user, &slug, csv, query.dry_run).await {
        Ok(report) => report,
        // A file with no rows, or too many: the same shape, with no row.
        Err(ServiceError::Invalid(e)) => return Ok(refused(&e.message, RosterReport::default())),
        Err(e) => return Err(e.into()),
    };
    let errors = report.errors();
    if errors == 0 {
        return Ok(HttpResponse::Ok().json(report));
    }
    let rows = if errors == 1 { "row has" } else { "rows have" };
    let message =
        format!("{errors} {rows} an error: nothing was imported (see each row's message)");
    Ok(refused(&message, report))
}

/// The 422 of a roster not imported: `invalid_roster` on `csv`, the report beside it.
fn refused(message: &str, report: RosterReport) -> HttpResponse {
    HttpResponse::UnprocessableEntity().json(RosterRefused {
        error: FieldError::at(
            crate::domain::ErrorCode::InvalidRoster,
            crate::domain::Field::path("csv".into()),
            message,
        ),
        report,
    })
}
