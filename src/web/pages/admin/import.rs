//! `/admin/leagues/{slug}/import`: a roster pasted as CSV, checked row by row (a preview
//! that writes nothing), then its valid rows imported at once; and
//! `/admin/leagues/{slug}/roster.csv`, the league's roster as a CSV the import reads back.

use crate::domain::Slug;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Done, Errors, done, fixable};
use crate::service::term::roster::export::{ROSTER_EXPORT_COLUMNS, export_roster};
use crate::service::term::roster::import::{RosterRow, import_roster, preview_roster};
use crate::service::{ServiceError, views::admin_views};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, CsrfForm};
use crate::web::respond::{Csv, html, no_store};
use crate::web::view::nav::Nav;

#[derive(Template)]
#[template(path = "admin/import.html")]
struct ImportPage {
    nav: Nav,
    slug: String,
    name: String,
    csv: String,
    rows: Option<Vec<RosterRow>>,
    valid: usize,
    errors: Errors,
}

impl ImportPage {
    fn render_as(&self, status: StatusCode) -> Result<HttpResponse, PageError> {
        Ok(no_store(html(status, self.render()?)))
    }
}

#[derive(Deserialize)]
pub(super) struct ImportForm {
    #[serde(default)]
    csv: String,
    /// "1": import the valid rows.
    #[serde(default)]
    confirm: String,
}

#[get("/admin/leagues/{slug}/import")]
pub(super) async fn import_form(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, PageError> {
    let league = admin_views::league(&state.db, &who.user, &slug).await?;
    ImportPage {
        nav: who.nav(),
        slug: league.row.slug.to_string(),
        name: league.row.name,
        csv: String::new(),
        rows: None,
        valid: 0,
        errors: Errors::default(),
    }
    .render_as(StatusCode::OK)
}

/// Checks the CSV (confirm "0") or imports its valid rows (confirm "1"); a roster with an
/// error comes back with its rows and the message.
#[post("/admin/leagues/{slug}/import")]
pub(super) async fn import(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    CsrfForm(form): CsrfForm<ImportForm>,
) -> Result<HttpResponse, PageError> {
    let mut errors = Errors::default();
    if form.confirm == "1" {
        match import_roster(&state.db, &who.user, &slug, &form.csv).await {
            Ok(_) => return Ok(done(&slug, Done::Import)),
            Err(e) if fixable(&e) => errors = csv_errors(&e),
            Err(e) => return Err(e.into()),
        }
    }
    let page = match preview_roster(&state.db, &who.user, &slug, &form.csv).await {
        Ok(preview) => ImportPage {
            nav: who.nav(),
            slug: preview.slug,
            name: preview.name,
            csv: form.csv,
            rows: Some(preview.rows),
            valid: preview.valid,
            errors,
        },
        Err(e) if fixable(&e) => {
            let league = admin_views::league(&state.db, &who.user, &slug).await?;
            ImportPage {
                nav: who.nav(),
                slug: league.row.slug.to_string(),
                name: league.row.name,
                csv: form.csv,
                rows: None,
                valid: 0,
                errors: csv_errors(&e),
            }
        }
        Err(e) => return Err(e.into()),
    };
    page.render_as(page.errors.status())
}

fn csv_errors(e: &ServiceError) -> Errors {
    Errors::of("import", &["csv"], e)
}

/// The league's roster, one player a row with the student id and email (admins only; the
/// service audits the download), in the columns the import reads back.
#[get("/admin/leagues/{slug}/roster.csv")]
pub(super) async fn roster_csv(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, PageError> {
    let lines = export_roster(&state.db, &who.user, &slug).await?;
    let mut csv = Csv::with_header(&ROSTER_EXPORT_COLUMNS)?;
    for line in &lines {
        csv.row(&line.cells())?;
    }
    Ok(no_store(csv.download(&format!("{slug}-roster.csv"))?))
}
