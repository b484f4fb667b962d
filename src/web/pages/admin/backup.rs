//! `/admin/backup`: a download of a fresh copy of the whole database.

use crate::web::respond::private_page;
use actix_web::http::{StatusCode, header};
use actix_web::{HttpResponse, get, post, web};
use askama::Template;

use super::Empty;
use crate::db::StoreKind;
use crate::service::views::admin_views;
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, CsrfForm};
use crate::web::respond::no_store;
use crate::web::view::nav::Nav;

#[derive(Template)]
#[template(path = "admin/backup.html")]
struct BackupPage {
    nav: Nav,
    /// The copy is an SQLite file; a PostgreSQL database is backed up on its server.
    sqlite: bool,
}

#[get("/admin/backup")]
pub(super) async fn backup_page(
    state: web::Data<AppState>,
    Admin(who): Admin,
) -> Result<HttpResponse, PageError> {
    private_page(
        StatusCode::OK,
        BackupPage {
            nav: who.nav(),
            sqlite: state.db.kind() == StoreKind::Sqlite,
        },
    )
}

/// A fresh `VACUUM INTO` copy (integrity checked), sent as a download (404 on PostgreSQL).
#[post("/admin/backup")]
pub(super) async fn backup(
    state: web::Data<AppState>,
    Admin(who): Admin,
    _: CsrfForm<Empty>,
) -> Result<HttpResponse, PageError> {
    let bytes = admin_views::backup(&state.db, &who.user).await?;
    let name = format!(
        "spades-im-{}.sqlite3",
        state.db.clock().local_now().0.format("%Y%m%d-%H%M")
    );
    Ok(no_store(
        HttpResponse::Ok()
            .content_type("application/octet-stream")
            .insert_header((
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ))
            .body(bytes),
    ))
}
