//! `/admin/audit`: the audit log, newest first, filtered by league, match, user and action
//! (a GET form, so a filtered view is a link), a page at a time ("Older entries" asks for
//! `before` the last entry shown); `/admin/audit.csv` is the same filter as a download.

use crate::web::respond::private_page;
use actix_web::{HttpResponse, get, web};
use askama::Template;
use serde::Deserialize;

use super::Errors;
use crate::service::ServiceError;
use crate::service::audit::{self, Entry, Query};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, Authed};
use crate::web::respond::{Csv, no_store};
use crate::web::view::nav::Nav;
use crate::web::view::time::{Stamp, stamp};

/// The filters as typed: every one text, so a value that does not read is shown again with
/// its error instead of refusing the page.
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct Filters {
    #[serde(default)]
    league: String,
    #[serde(default, rename = "match")]
    match_id: String,
    #[serde(default)]
    user: String,
    #[serde(default)]
    action: String,
    #[serde(default)]
    before: String,
}

/// A number typed in `field`, or the error that says it is not one.
fn number<T: std::str::FromStr>(text: &str, field: &str, what: &str) -> Result<Option<T>, Errors> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    text.parse()
        .map(Some)
        .map_err(|_| Errors::new("audit", field, format!("{what} is a number, such as 12")))
}

fn text(s: &str) -> Option<String> {
    Some(s.trim().to_string()).filter(|s| !s.is_empty())
}

impl Filters {
    /// The service's query, `limit` entries a page.
    fn query(&self, limit: i64) -> Result<Query, Errors> {
        Ok(Query {
            league: text(&self.league),
            match_id: number(&self.match_id, "match", "the match")?,
            user: text(&self.user),
            action: text(&self.action),
            before: number(&self.before, "before", "\"before\"")?,
            limit: Some(limit),
        })
    }

    /// The query string of these filters with `before` (the next page's link, the CSV's).
    fn link(&self, before: Option<i64>) -> String {
        let before = before.map(|b| b.to_string()).unwrap_or_default();
        let pairs = [
            ("league", self.league.trim()),
            ("match", self.match_id.trim()),
            ("user", self.user.trim()),
            ("action", self.action.trim()),
            ("before", before.as_str()),
        ];
        let given: Vec<(&str, &str)> = pairs.into_iter().filter(|(_, v)| !v.is_empty()).collect();
        serde_urlencoded::to_string(given).unwrap_or_default()
    }
}

/// One entry as the page shows it.
struct Line {
    entry: Entry,
    at: Stamp,
}

#[derive(Template)]
#[template(path = "admin/audit.html")]
struct AuditPage {
    nav: Nav,
    leagues: Vec<(String, String)>,
    filters: Filters,
    errors: Errors,
    lines: Vec<Line>,
    /// The link to the next page, when there is one.
    older: Option<String>,
    /// The CSV of these filters (from the first page).
    csv: String,
    /// Whether this is a later page (a "Newest entries" link).
    paged: bool,
}

/// Entries a page shows.
const PAGE: i64 = 50;

#[get("/admin/audit")]
pub(super) async fn audit_page(
    state: web::Data<AppState>,
    Admin(who): Admin,
    filters: web::Query<Filters>,
) -> Result<HttpResponse, PageError> {
    page(&state, &who, filters.into_inner()).await
}

/// The page for `filters`: 422 with the form's error when a filter does not read or names
/// no league or user.
async fn page(state: &AppState, who: &Authed, filters: Filters) -> Result<HttpResponse, PageError> {
    let leagues = audit::league_choices(&state.db, &who.user).await?;
    let read = match filters.query(PAGE) {
        Ok(query) => audit::entries(&state.db, &who.user, &query)
            .await
            .map_err(shown),
        Err(errors) => Err(Ok(errors)),
    };
    let (page, errors) = match read {
        Ok(page) => (Some(page), Errors::default()),
        Err(Ok(errors)) => (None, errors),
        Err(Err(e)) => return Err(e.into()),
    };
    let (lines, next) = page.map_or((Vec::new(), None), |p| {
        let lines = p
            .entries
            .into_iter()
            .map(|entry| Line {
                at: stamp(entry.at),
                entry,
            })
            .collect();
        (lines, p.next)
    });
    let status = errors.status();
    private_page(
        status,
        AuditPage {
            nav: who.nav(),
            leagues,
            older: next.map(|n| filters.link(Some(n))),
            csv: filters.link(None),
            paged: !filters.before.trim().is_empty(),
            errors,
            filters,
            lines,
        },
    )
}

/// A filter the service refused (an unknown league or user, a bad id), for the form; any
/// other error stays an error.
fn shown(e: ServiceError) -> Result<Errors, ServiceError> {
    if matches!(e, ServiceError::Invalid(_)) {
        Ok(Errors::of(
            "audit",
            &["league", "match", "user", "action", "before"],
            &e,
        ))
    } else {
        Err(e)
    }
}

/// An imported entry's origin in words ("by admin at …, was alice"); empty for one made here.
fn imported_words(e: &audit::Entry) -> String {
    let Some(at) = e.imported_at else {
        return String::new();
    };
    let by = e.imported_by.as_deref().unwrap_or("a removed account");
    match &e.imported_user {
        Some(user) => format!("by {by} at {at}, was {user}"),
        None => format!("by {by} at {at}"),
    }
}

/// Every entry the filters pick (newest first), as CSV; a filter that does not read is the
/// page's 422.
#[get("/admin/audit.csv")]
pub(super) async fn audit_csv(
    state: web::Data<AppState>,
    Admin(who): Admin,
    filters: web::Query<Filters>,
) -> Result<HttpResponse, PageError> {
    let Ok(mut query) = filters.query(*audit::LIMITS.end()) else {
        return page(&state, &who, filters.into_inner()).await;
    };
    let mut csv = Csv::with_header(&[
        "id", "at", "user", "action", "league", "match", "reason", "before", "after", "imported",
        "summary",
    ])?;
    loop {
        let page = match audit::entries(&state.db, &who.user, &query).await {
            Ok(page) => page,
            Err(ServiceError::Invalid(_)) => {
                return page(&state, &who, filters.into_inner()).await;
            }
            Err(e) => return Err(e.into()),
        };
        for e in &page.entries {
            csv.row(&[
                e.id.to_string(),
                e.at.to_string(),
                e.user.clone().unwrap_or_default(),
                e.action.clone(),
                e.league.clone().unwrap_or_default(),
                e.match_id.map(|m| m.to_string()).unwrap_or_default(),
                e.reason.clone().unwrap_or_default(),
                e.before.clone().unwrap_or_default(),
                e.after.clone().unwrap_or_default(),
                imported_words(e),
                e.summary.clone(),
            ])?;
        }
        match page.next {
            Some(next) => query.before = Some(next),
            None => break,
        }
    }
    Ok(no_store(csv.download("audit.csv")?))
}
