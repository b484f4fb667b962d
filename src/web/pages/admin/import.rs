//! `/admin/leagues/{slug}/import`: a roster pasted or chosen as a CSV file, checked row by
//! row (a preview that writes nothing), then imported all at once once every row is good;
//! and `/admin/leagues/{slug}/roster.csv`, the league's roster as a CSV the import reads
//! back.

use crate::domain::Slug;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Done, Errors, done, fixable};
use crate::service::term::roster::export::{ROSTER_EXPORT_COLUMNS, export_roster};
use crate::service::term::roster::import::import_roster;
use crate::service::term::roster::plan::{RosterReport, RowStatus};
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
    report: Option<RosterReport>,
    errors: Errors,
}

impl ImportPage {
    fn render_as(&self, status: StatusCode) -> Result<HttpResponse, PageError> {
        Ok(no_store(html(status, self.render()?)))
    }

    fn is_ok(status: &RowStatus) -> bool {
        *status == RowStatus::Ok
    }
}

#[derive(Deserialize)]
pub(super) struct ImportForm {
    #[serde(default)]
    csv: String,
    /// "1": import (when every row is good); else check only.
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
        report: None,
        errors: Errors::default(),
    }
    .render_as(StatusCode::OK)
}

/// Checks the CSV (confirm "0") or imports it (confirm "1"); a roster with a row in error
/// comes back with every row's outcome, what was typed kept, and nothing written.
#[post("/admin/leagues/{slug}/import")]
pub(super) async fn import(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    CsrfForm(form): CsrfForm<ImportForm>,
) -> Result<HttpResponse, PageError> {
    let dry_run = form.confirm != "1";
    let (report, errors) = match import_roster(&state.db, &who.user, &slug, &form.csv, dry_run)
        .await
    {
        Ok(report) if report.written => return Ok(done(&slug, Done::Import)),
        Ok(report) if report.errors() > 0 => {
            let n = report.errors();
            let message = format!(
                "{n} row{} {} an error: nothing was imported. Fix {} in the box and check again.",
                if n == 1 { "" } else { "s" },
                if n == 1 { "has" } else { "have" },
                if n == 1 { "it" } else { "them" },
            );
            (Some(report), Errors::new("import", "csv", message))
        }
        Ok(report) => (Some(report), Errors::default()),
        Err(e) if fixable(&e) => (None, csv_errors(&e)),
        Err(e) => return Err(e.into()),
    };
    let league = admin_views::league(&state.db, &who.user, &slug).await?;
    let page = ImportPage {
        nav: who.nav(),
        slug: league.row.slug.to_string(),
        name: league.row.name,
        csv: form.csv,
        report,
        errors,
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
