//! `/admin/notices`: the notices by email, newest first, by league and status (a GET form, so
//! a filtered view is a link), each with its tries and the relay's last answer; a failed one
//! has a button that sends it again.

use crate::web::respond::private_page;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Empty, Errors};
use crate::service::ServiceError;
use crate::service::audit;
use crate::service::notices::listing::{self, NoticeEntry, NoticeStatus};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, CsrfForm};
use crate::web::respond::see_other;
use crate::web::view::nav::Nav;
use crate::web::view::time::{Stamp, stamp};

/// The filters as typed (text, so a value that does not read is shown with its error).
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct Filters {
    #[serde(default)]
    league: String,
    #[serde(default)]
    status: String,
    /// The notice just sent again (after the button).
    #[serde(default)]
    resent: String,
    /// The notice the button found not failed (sent meanwhile, or already waiting).
    #[serde(default)]
    unchanged: String,
    /// How many failed notices "Send every failed notice again" sent again.
    #[serde(default)]
    resent_all: String,
}

impl Filters {
    fn status(&self) -> Result<Option<NoticeStatus>, Errors> {
        match self.status.trim() {
            "" => Ok(None),
            "pending" => Ok(Some(NoticeStatus::Pending)),
            "sent" => Ok(Some(NoticeStatus::Sent)),
            "failed" => Ok(Some(NoticeStatus::Failed)),
            "skipped" => Ok(Some(NoticeStatus::Skipped)),
            _ => Err(Errors::new(
                "notices",
                "status",
                "choose pending, sent, failed or skipped (or every status)",
            )),
        }
    }
}

/// One notice as the page shows it.
struct Line {
    notice: NoticeEntry,
    created: Stamp,
    sent: Option<Stamp>,
}

#[derive(Template)]
#[template(path = "admin/notices.html")]
struct NoticesPage {
    nav: Nav,
    /// The relay in words, or `None` when the service sends no mail.
    relay: Option<String>,
    leagues: Vec<(String, String)>,
    filters: Filters,
    errors: Errors,
    lines: Vec<Line>,
    /// How many of the lines are failed (the "send every failed notice again" button).
    failed: usize,
}

/// The notices that `filters` pick: 422 with the form's error when a filter does not read or
/// names no league.
#[get("/admin/notices")]
pub(super) async fn notices_page(
    state: web::Data<AppState>,
    Admin(who): Admin,
    filters: web::Query<Filters>,
) -> Result<HttpResponse, PageError> {
    let filters = filters.into_inner();
    let leagues = audit::league_choices(&state.db, &who.user).await?;
    let read = match filters.status() {
        Ok(status) => {
            let league = Some(filters.league.as_str());
            match listing::list(&state.db, &who.user, league, status).await {
                Ok(list) => Ok(list.notices),
                Err(e @ ServiceError::Invalid(_)) => Err(Errors::of("notices", &["league"], &e)),
                Err(e) => return Err(e.into()),
            }
        }
        Err(errors) => Err(errors),
    };
    let (notices, errors) = match read {
        Ok(notices) => (notices, Errors::default()),
        Err(errors) => (Vec::new(), errors),
    };
    let lines: Vec<Line> = notices
        .into_iter()
        .map(|notice| Line {
            created: stamp(notice.created_at),
            sent: notice.sent_at.map(stamp),
            notice,
        })
        .collect();
    let status = errors.status();
    let failed = lines
        .iter()
        .filter(|l| l.notice.status == NoticeStatus::Failed)
        .count();
    private_page(
        status,
        NoticesPage {
            nav: who.nav(),
            relay: state.mail.clone(),
            leagues,
            filters,
            errors,
            lines,
            failed,
        },
    )
}

/// The league a "send every failed notice again" form is about (empty: every league).
#[derive(Debug, Default, Deserialize)]
pub(super) struct ResendAll {
    #[serde(default)]
    league: String,
}

/// Sends every failed notice again (of the league the list is filtered by): back to the
/// failed ones, which says how many.
#[post("/admin/notices/resend-failed")]
pub(super) async fn resend_failed(
    state: web::Data<AppState>,
    Admin(who): Admin,
    CsrfForm(form): CsrfForm<ResendAll>,
) -> Result<HttpResponse, PageError> {
    let n = listing::resend_failed(&state.db, &who.user, Some(&form.league)).await?;
    let query = serde_urlencoded::to_string([
        ("league", form.league.trim().to_string()),
        ("resent_all", n.to_string()),
    ])
    .unwrap_or_default();
    Ok(see_other(&format!("/admin/notices?{query}")))
}

/// Sends failed notice `id` again: back to the list, which says so (or that it was not
/// failed).
#[post("/admin/notices/{id}/resend")]
pub(super) async fn resend(
    state: web::Data<AppState>,
    Admin(who): Admin,
    id: web::Path<i64>,
    _: CsrfForm<Empty>,
) -> Result<HttpResponse, PageError> {
    let id = id.into_inner();
    let said = if listing::resend(&state.db, &who.user, id).await? {
        "resent"
    } else {
        "unchanged"
    };
    Ok(see_other(&format!("/admin/notices?{said}={id}")))
}
