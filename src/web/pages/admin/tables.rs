//! The room of a league (docs/api.md §21.1): its tables, one a line, and how the queue calls
//! matches to them (by itself or by hand only; the minutes before "no show?"); below the
//! form, the tables as they are now. One change of the league's settings, with the same
//! checks as the API's (a refused form comes back with what was typed, the summary focused
//! and the message by its field).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::Errors;
use crate::domain::Slug;
use crate::domain::table_name::shown;
use crate::service::ServiceError;
use crate::service::night::queue::{self, QueueView, TableStatus};
use crate::service::term::leagues;
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, Authed, CsrfForm};
use crate::web::respond::{private_page, see_other};
use crate::web::view::nav::Nav;

#[derive(Template)]
#[template(path = "admin/tables.html")]
struct TablesPage {
    nav: Nav,
    csrf: String,
    slug: String,
    name: String,
    typed: RoomForm,
    errors: Errors,
    saved: bool,
    /// Each table as said and what is at it, in words.
    room: Vec<(String, String)>,
    waiting: usize,
}

impl TablesPage {
    fn error(&self, field: &str) -> Option<&str> {
        self.errors.at("room", field)
    }
}

/// The form as typed.
#[derive(Deserialize, Default, Clone)]
#[serde(default)]
pub(super) struct RoomForm {
    /// One table a line.
    tables: String,
    /// "on" when checked.
    auto: Option<String>,
    call_minutes: String,
}

impl RoomForm {
    fn of(settings: &crate::league::settings::Settings) -> RoomForm {
        RoomForm {
            tables: settings.tables.join("\n"),
            auto: settings.queue.auto.then(|| "on".to_string()),
            call_minutes: settings.queue.call_minutes.to_string(),
        }
    }

    /// The change of the league's settings, or the field whose value is not a number.
    fn patch(&self) -> Result<serde_json::Value, Errors> {
        let minutes: u32 = self.call_minutes.trim().parse().map_err(|_| {
            Errors::new(
                "room",
                "call_minutes",
                "the minutes before \"no show?\" are a whole number, 1 to 60",
            )
        })?;
        let tables: Vec<&str> = self
            .tables
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        Ok(serde_json::json!({
            "tables": tables,
            "queue": {"auto": self.auto.is_some(), "call_minutes": minutes},
        }))
    }
}

/// The form's field of a settings error (`settings.tables[2]` is the tables' box).
fn field_of(e: &ServiceError) -> Errors {
    let mut errors = Errors::of("room", &[], e);
    if let ServiceError::Invalid(f) = e {
        let path = f
            .field
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        if path.starts_with("settings.tables") {
            errors.field = "tables".into();
        } else if path.starts_with("settings.queue.call_minutes") {
            errors.field = "call_minutes".into();
        }
    }
    errors
}

fn room(view: &QueueView) -> Vec<(String, String)> {
    view.tables
        .iter()
        .map(|t| {
            let teams = t
                .teams
                .as_ref()
                .map(|[a, b]| format!("{a} v {b}"))
                .unwrap_or_default();
            let words = match t.status {
                TableStatus::Free => "free".to_string(),
                TableStatus::Called if t.no_show => format!("called: {teams} — no show?"),
                TableStatus::Called => format!("called: {teams}"),
                TableStatus::Playing => format!("playing: {teams}"),
            };
            (shown(&t.name), words)
        })
        .collect()
}

async fn page(
    state: &AppState,
    who: &Authed,
    slug: &Slug,
    form: Option<(RoomForm, Errors)>,
    saved: bool,
) -> Result<HttpResponse, PageError> {
    let league = leagues::league(&state.db, slug).await?;
    let view = queue::queue(&state.db, slug).await?;
    let (typed, errors) =
        form.unwrap_or_else(|| (RoomForm::of(&league.settings), Errors::default()));
    let status = errors.status();
    let page = TablesPage {
        nav: who.nav(),
        csrf: who.csrf().to_string(),
        slug: slug.to_string(),
        name: league.row.name.clone(),
        typed,
        errors,
        saved,
        room: room(&view),
        waiting: view.waiting.len(),
    };
    private_page(status, page)
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Saved {
    saved: Option<String>,
}

#[get("/admin/leagues/{slug}/tables")]
pub(super) async fn tables_page(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    query: web::Query<Saved>,
) -> Result<HttpResponse, PageError> {
    page(&state, &who, &slug, None, query.saved.is_some()).await
}

#[post("/admin/leagues/{slug}/tables")]
pub(super) async fn save_tables(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    CsrfForm(form): CsrfForm<RoomForm>,
) -> Result<HttpResponse, PageError> {
    let patch = match form.patch() {
        Ok(patch) => patch,
        Err(errors) => return page(&state, &who, &slug, Some((form, errors)), false).await,
    };
    match leagues::change_settings(&state.db, &who.user, &slug, &patch).await {
        Ok(_) => Ok(see_other(&format!("/admin/leagues/{slug}/tables?saved=1"))),
        Err(e) if super::fixable(&e) => {
            let errors = field_of(&e);
            let status_conflict = matches!(e, ServiceError::Conflict { .. });
            let mut answer = page(&state, &who, &slug, Some((form, errors)), false).await?;
            if status_conflict {
                *answer.status_mut() = StatusCode::CONFLICT;
            }
            Ok(answer)
        }
        Err(e) => Err(e.into()),
    }
}
