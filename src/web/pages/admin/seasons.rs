//! Past seasons on the coordinator's pages (docs/api.md §18.2, §18.4): closing a season
//! (archive) and reopening it, each after a page that says what it means; starting the next
//! term from a league (clone); importing a league document as a new league; deleting a match
//! that never began, or a league in which nothing was played, after a confirmation. The whole-league download is the API's
//! `GET /api/v1/leagues/{slug}/export`, which takes the admin's session cookie as it is.
//!
//! Each write is one call of `service::term::seasons` or `service::league_doc` (which audit it); a
//! refusal is shown on the same page, focused, with every typed value kept.

use crate::web::respond::private_page;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::schedule_edit::MatchFacts;
use super::{Done, Errors, done, fixable};
use crate::domain::{MatchId, MatchStatus, Slug};
use crate::service::league_doc::{self, ImportInput};
use crate::service::term::seasons::{self, CloneInput};
use crate::service::views::admin_views;
use crate::service::{ServiceError, term::admin_schedule, term::leagues};
use crate::web::AppState;
use crate::web::api::league_doc::IMPORT_LIMIT;
use crate::web::error::{AppError, PageError};
use crate::web::extract::{Admin, Authed, CsrfForm};
use crate::web::respond::see_other;
use crate::web::view::nav::Nav;

/// The status of a page showing a refusal: 409 for a conflict, else 422.
fn refusal_status(e: &ServiceError) -> StatusCode {
    match e {
        ServiceError::Conflict { .. }
        | ServiceError::ConflictOn(_)
        | ServiceError::Unplayed { .. } => StatusCode::CONFLICT,
        _ => StatusCode::UNPROCESSABLE_ENTITY,
    }
}

/// The confirmation a closing or reopening form sends (`confirm=1`).
#[derive(Debug, Default, Deserialize)]
pub(super) struct ConfirmForm {
    #[serde(default)]
    confirm: String,
    /// Present when "cancel the matches still to play" is ticked (closing only).
    #[serde(default)]
    cancel_unplayed: Option<String>,
}

/// "Close the season?" or "Reopen the season?": what it means, and the button that does it.
#[derive(Template)]
#[template(path = "admin/season_confirm.html")]
struct ConfirmPage {
    nav: Nav,
    slug: String,
    name: String,
    /// Closing (archive) rather than reopening (unarchive).
    closing: bool,
    /// The league is archived now.
    archived: bool,
    /// The champion's name, once the final is decided.
    champion: Option<String>,
    /// The matches still to play, by label and teams (closing only).
    unplayed: Vec<(MatchId, String)>,
    errors: Errors,
}

async fn confirm_page(
    state: &AppState,
    who: &Authed,
    slug: &Slug,
    closing: bool,
    refusal: Option<&ServiceError>,
) -> Result<HttpResponse, PageError> {
    let view = leagues::view_by_slug(&state.db, slug).await?;
    let unplayed = if closing && !view.archived {
        admin_schedule::schedule_admin(&state.db, &who.user, slug)
            .await?
            .matches
            .iter()
            .filter(|m| matches!(m.status, MatchStatus::Scheduled | MatchStatus::Postponed))
            .map(|m| (m.id, admin_schedule::named(m)))
            .collect()
    } else {
        Vec::new()
    };
    let errors = refusal.map_or_else(Errors::default, |e| Errors::of("season", &[], e));
    let status = refusal.map_or(StatusCode::OK, refusal_status);
    private_page(
        status,
        ConfirmPage {
            nav: who.nav(),
            slug: view.slug,
            name: view.name,
            closing,
            archived: view.archived,
            champion: view.champion.map(|t| t.name),
            unplayed,
            errors,
        },
    )
}

#[get("/admin/leagues/{slug}/archive")]
pub(super) async fn archive_form(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, PageError> {
    confirm_page(&state, &who, &slug, true, None).await
}

/// Archives the league when the form confirms it; without `confirm=1` it asks first.
#[post("/admin/leagues/{slug}/archive")]
pub(super) async fn archive(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    CsrfForm(form): CsrfForm<ConfirmForm>,
) -> Result<HttpResponse, PageError> {
    close_or_reopen(&state, &who, &slug, &form, true).await
}

#[get("/admin/leagues/{slug}/unarchive")]
pub(super) async fn unarchive_form(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, PageError> {
    confirm_page(&state, &who, &slug, false, None).await
}

/// Reopens the league when the form confirms it; without `confirm=1` it asks first.
#[post("/admin/leagues/{slug}/unarchive")]
pub(super) async fn unarchive(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    CsrfForm(form): CsrfForm<ConfirmForm>,
) -> Result<HttpResponse, PageError> {
    close_or_reopen(&state, &who, &slug, &form, false).await
}

/// Closes (`closing`) or reopens the season once the form confirms it; a refusal (a match
/// in progress) comes back on the confirmation page.
async fn close_or_reopen(
    state: &AppState,
    who: &Authed,
    slug: &Slug,
    form: &ConfirmForm,
    closing: bool,
) -> Result<HttpResponse, PageError> {
    if form.confirm.trim() != "1" {
        return confirm_page(state, who, slug, closing, None).await;
    }
    let result = if closing {
        let input = seasons::ArchiveInput {
            unplayed: form
                .cancel_unplayed
                .is_some()
                .then_some(seasons::Unplayed::Cancel),
        };
        seasons::archive(&state.db, &who.user, slug, &input)
            .await
            .map(|_| Done::Archived)
    } else {
        seasons::unarchive(&state.db, &who.user, slug)
            .await
            .map(|_| Done::Unarchived)
    };
    match result {
        Ok(what) => Ok(done(slug, what)),
        Err(e) if fixable(&e) || matches!(e, ServiceError::Unplayed { .. }) => {
            confirm_page(state, who, slug, closing, Some(&e)).await
        }
        Err(e) => Err(e.into()),
    }
}

/// "Delete {name}?": what goes, and the button that deletes it.
#[derive(Template)]
#[template(path = "admin/league_delete.html")]
struct LeagueDeletePage {
    nav: Nav,
    slug: String,
    name: String,
    teams: usize,
    players: usize,
    matches: usize,
    errors: Errors,
}

async fn league_delete_page(
    state: &AppState,
    who: &Authed,
    slug: &Slug,
    refusal: Option<&ServiceError>,
) -> Result<HttpResponse, PageError> {
    let view = admin_views::league_admin(&state.db, &who.user, slug).await?;
    let errors = refusal.map_or_else(Errors::default, |e| Errors::of("league", &[], e));
    let status = refusal.map_or(StatusCode::OK, refusal_status);
    private_page(
        status,
        LeagueDeletePage {
            nav: who.nav(),
            slug: view.league.row.slug.to_string(),
            name: view.league.row.name.clone(),
            teams: view.teams.len(),
            players: view.teams.iter().map(|t| t.players.len()).sum(),
            matches: view.matches.len(),
            errors,
        },
    )
}

#[get("/admin/leagues/{slug}/delete")]
pub(super) async fn delete_league_form(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, PageError> {
    league_delete_page(&state, &who, &slug, None).await
}

/// Deletes the league when the form confirms it (then `/admin` says so); without
/// `confirm=1` it asks first; a refusal comes back on the confirmation page.
#[post("/admin/leagues/{slug}/delete")]
pub(super) async fn delete_league(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    CsrfForm(form): CsrfForm<ConfirmForm>,
) -> Result<HttpResponse, PageError> {
    if form.confirm.trim() != "1" {
        return league_delete_page(&state, &who, &slug, None).await;
    }
    match leagues::delete_league(&state.db, &who.user, &slug).await {
        Ok(()) => Ok(see_other("/admin?deleted=league")),
        Err(e) if fixable(&e) => league_delete_page(&state, &who, &slug, Some(&e)).await,
        Err(e) => Err(e.into()),
    }
}

/// The clone form as typed.
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct CloneForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    slug: String,
    /// Present when "copy the teams and their players" is ticked.
    #[serde(default)]
    teams: Option<String>,
}

#[derive(Template)]
#[template(path = "admin/season_clone.html")]
struct ClonePage {
    nav: Nav,
    slug: String,
    name: String,
    form: CloneForm,
    errors: Errors,
}

async fn clone_page(
    state: &AppState,
    who: &Authed,
    slug: &Slug,
    form: CloneForm,
    refusal: Option<&ServiceError>,
) -> Result<HttpResponse, PageError> {
    let view = leagues::view_by_slug(&state.db, slug).await?;
    let errors = refusal.map_or_else(Errors::default, |e| {
        Errors::of("clone", &["name", "slug"], e)
    });
    let status = refusal.map_or(StatusCode::OK, refusal_status);
    private_page(
        status,
        ClonePage {
            nav: who.nav(),
            slug: view.slug,
            name: view.name,
            form,
            errors,
        },
    )
}

#[get("/admin/leagues/{slug}/clone")]
pub(super) async fn clone_form(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, PageError> {
    let form = CloneForm {
        teams: Some("1".into()),
        ..CloneForm::default()
    };
    clone_page(&state, &who, &slug, form, None).await
}

#[post("/admin/leagues/{slug}/clone")]
pub(super) async fn clone_league(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    CsrfForm(form): CsrfForm<CloneForm>,
) -> Result<HttpResponse, PageError> {
    let input = CloneInput {
        name: form.name.clone(),
        slug: Some(form.slug.clone()),
        teams: form.teams.is_some(),
    };
    match seasons::clone_league(&state.db, &who.user, &slug, &input).await {
        Ok(league) => Ok(done(&league.row.slug, Done::Cloned)),
        Err(e) if fixable(&e) => clone_page(&state, &who, &slug, form, Some(&e)).await,
        Err(e) => Err(e.into()),
    }
}

/// The import form as typed: the document is pasted (or filled in from a file by
/// `static/file_box.js`).
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct ImportForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    slug: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    document: String,
}

#[derive(Template)]
#[template(path = "admin/league_import.html")]
struct ImportPage {
    nav: Nav,
    form: ImportForm,
    errors: Errors,
}

fn import_page(
    nav: Nav,
    form: ImportForm,
    refusal: Option<&ServiceError>,
) -> Result<HttpResponse, PageError> {
    let errors = refusal.map_or_else(Errors::default, |e| {
        Errors::of("import", &["slug", "name", "document"], e)
    });
    let status = refusal.map_or(StatusCode::OK, refusal_status);
    private_page(status, ImportPage { nav, form, errors })
}

#[get("/admin/leagues/import")]
pub(super) async fn league_import_form(Admin(who): Admin) -> Result<HttpResponse, PageError> {
    import_page(who.nav(), ImportForm::default(), None)
}

/// The largest import form: a document of [`IMPORT_LIMIT`] bytes, percent-encoded (up to three
/// bytes each), and the other fields.
const IMPORT_FORM_LIMIT: usize = 3 * IMPORT_LIMIT + 64 * 1024;

/// Imports a pasted league document as a new league. The body is read here, with a limit of
/// its own (the API's 16 MiB document, as a form), as other forms stay at 256 KiB.
#[post("/admin/leagues/import")]
pub(super) async fn league_import(
    state: web::Data<AppState>,
    Admin(who): Admin,
    payload: web::Payload,
) -> Result<HttpResponse, PageError> {
    let body = payload
        .to_bytes_limited(IMPORT_FORM_LIMIT)
        .await
        .map_err(|_| AppError::TooLarge)?
        .map_err(|e| AppError::Malformed(format!("the form could not be read: {e}")))?;
    let form: ImportForm = serde_urlencoded::from_bytes(&body)
        .map_err(|e| AppError::Malformed(format!("the form is not valid: {e}")))?;
    who.check_csrf(&form.csrf)?;
    let document = read_document(&form.document);
    let input = document.map(|document| ImportInput {
        slug: form.slug.clone(),
        name: (!form.name.trim().is_empty()).then(|| form.name.clone()),
        document,
    });
    let result = match input {
        Ok(input) => league_doc::import(&state.db, &who.user, &input).await,
        Err(e) => Err(e),
    };
    // The document is not sent back: it may be megabytes, and it holds personal data.
    let kept = ImportForm {
        document: String::new(),
        ..form
    };
    match result {
        Ok(imported) => Ok(see_other(&format!(
            "/admin/leagues/{}?done=imported",
            imported.league.slug
        ))),
        Err(e) if fixable(&e) => import_page(who.nav(), kept, Some(&e)),
        Err(e) => Err(e.into()),
    }
}

/// The pasted document as JSON: empty, too large or not JSON is `invalid_document`.
fn read_document(text: &str) -> Result<serde_json::Value, ServiceError> {
    use crate::domain::ErrorCode::InvalidDocument;
    if text.trim().is_empty() {
        return Err(ServiceError::invalid(
            InvalidDocument,
            "document",
            "paste the league document (the JSON file \"Download the whole league\" gives), or choose the file",
        ));
    }
    if text.len() > IMPORT_LIMIT {
        return Err(ServiceError::invalid(
            InvalidDocument,
            "document",
            "the document is larger than 16 MiB",
        ));
    }
    serde_json::from_str(text).map_err(|e| {
        ServiceError::invalid(
            InvalidDocument,
            "document",
            crate::rules::strict::not_json("the document", &e),
        )
    })
}

/// The delete form: `confirm=1` from the confirmation page.
#[derive(Debug, Default, Deserialize)]
pub(super) struct DeleteForm {
    #[serde(default)]
    confirm: String,
}

#[derive(Template)]
#[template(path = "admin/schedule_delete.html")]
struct DeletePage {
    nav: Nav,
    slug: String,
    name: String,
    m: MatchFacts,
    errors: Errors,
}

/// Deleting a match that never began: without `confirm=1` it asks first (nothing written);
/// a refusal (the match has begun, the league is archived) is shown on that page, in words.
#[post("/admin/leagues/{slug}/matches/{id}/delete")]
pub(super) async fn delete_match(
    state: web::Data<AppState>,
    Admin(who): Admin,
    path: web::Path<(Slug, MatchId)>,
    CsrfForm(form): CsrfForm<DeleteForm>,
) -> Result<HttpResponse, PageError> {
    let (slug, id) = path.into_inner();
    let view = admin_schedule::schedule_admin(&state.db, &who.user, &slug).await?;
    let m = view.by_id(id).ok_or(PageError(AppError::NotFound))?;
    let refusal = if form.confirm.trim() == "1" {
        match seasons::delete_match(&state.db, &who.user, id).await {
            Ok(()) => {
                return Ok(see_other(&format!(
                    "/admin/leagues/{slug}/schedule?done=deleted&id={id}"
                )));
            }
            Err(e) if fixable(&e) => Some(e),
            Err(e) => return Err(e.into()),
        }
    } else {
        None
    };
    let status = refusal.as_ref().map_or(StatusCode::OK, refusal_status);
    private_page(
        status,
        DeletePage {
            nav: who.nav(),
            slug: view.slug.clone(),
            name: view.name.clone(),
            m: MatchFacts::of(m),
            errors: refusal.map_or_else(Errors::default, |e| Errors::of("delete", &[], &e)),
        },
    )
}
