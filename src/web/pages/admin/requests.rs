//! The captains' requests (docs/api.md §20.5, §20.6): the reschedule requests waiting for
//! the coordinator, each approved at one of its proposed times (or declined with a reason),
//! and the open disputes beside their match's scoresheet and audit, each resolved with a
//! note.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::Errors;
use crate::service::night::disputes::{self, Dispute, Resolution};
use crate::service::night::match_view;
use crate::service::term::requests::{self, Approval, Decline, RescheduleRequest};
use crate::service::{ServiceError, User};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, CsrfForm};
use crate::web::respond::{private_page, see_other};
use crate::web::view::nav::Nav;
use crate::web::view::time::scheduled;

#[derive(Template)]
#[template(path = "admin/requests.html")]
struct RequestsPage {
    nav: Nav,
    csrf: String,
    moves: Vec<(RescheduleRequest, String)>,
    disputes: Vec<(Dispute, String)>,
    errors: Errors,
    /// The answer just given ("approved", "declined", "resolved").
    done: Option<String>,
    /// What a refused form held.
    kept: String,
}

/// The match in words: "Team 1 v Team 2, Wed 4 Nov 2026, 19:00, Table 2".
async fn match_words(state: &AppState, id: crate::domain::MatchId) -> Result<String, PageError> {
    let m = match_view::view(&state.db, id).await?;
    let mut words = format!("{} v {}", m.team_a.name, m.team_b.name);
    if let Some(label) = &m.label {
        words = format!("{label} · {words}");
    }
    words.push_str(&match m.scheduled_at {
        Some(at) => format!(", {}", scheduled(at)),
        None => ", no date set".to_string(),
    });
    if let Some(table) = &m.table {
        words.push_str(&format!(", {table}"));
    }
    Ok(words)
}

async fn page(
    state: &AppState,
    user: &User,
    nav: Nav,
    csrf: String,
    (errors, kept, done): (Errors, String, Option<String>),
) -> Result<HttpResponse, PageError> {
    let mut moves = Vec::new();
    for r in requests::list(&state.db, user, Some("pending")).await? {
        let words = match_words(state, r.match_id).await?;
        moves.push((r, words));
    }
    let mut open = Vec::new();
    for d in disputes::list(&state.db, user, Some("open")).await? {
        let words = match_words(state, d.match_id).await?;
        open.push((d, words));
    }
    let status = match errors.is_empty() {
        true => StatusCode::OK,
        false => StatusCode::UNPROCESSABLE_ENTITY,
    };
    let page = RequestsPage {
        nav,
        csrf,
        moves,
        disputes: open,
        errors,
        done,
        kept,
    };
    private_page(status, page)
}

impl RequestsPage {
    /// The id of a form of the page: `approve-3`.
    fn form_of(&self, action: &str, id: &i64) -> String {
        format!("{action}-{id}")
    }

    /// What was just done, in words.
    fn done_words(&self) -> Option<&'static str> {
        Some(match self.done.as_deref()? {
            "approved" => {
                "The request was approved: the match moved, and both teams are told by email. \
                 The league's schedule page lists any clash the new time makes."
            }
            "declined" => "The request was declined; both teams are told by email.",
            _ => "The dispute was resolved; both captains are told by email.",
        })
    }

    /// A proposal in words: "Wed 11 Nov 2026, 19:00".
    fn when(&self, proposal: &str) -> String {
        crate::domain::LocalTime::parse(proposal).map_or_else(|_| proposal.to_string(), scheduled)
    }
}

#[derive(Deserialize)]
struct Done {
    done: Option<String>,
}

#[get("/admin/requests")]
pub(super) async fn requests_page(
    state: web::Data<AppState>,
    Admin(who): Admin,
    query: web::Query<Done>,
) -> Result<HttpResponse, PageError> {
    let done = query
        .done
        .as_deref()
        .filter(|d| ["approved", "declined", "resolved"].contains(d))
        .map(str::to_string);
    let nav = who.nav();
    let csrf = who.csrf().to_string();
    page(
        &state,
        &who.user,
        nav,
        csrf,
        (Errors::default(), String::new(), done),
    )
    .await
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ApproveForm {
    scheduled_at: String,
    table: String,
}

#[post("/admin/requests/{id}/approve")]
pub(super) async fn approve(
    state: web::Data<AppState>,
    Admin(who): Admin,
    id: web::Path<i64>,
    CsrfForm(form): CsrfForm<ApproveForm>,
) -> Result<HttpResponse, PageError> {
    let form_name = format!("approve-{id}");
    if form.scheduled_at.trim().is_empty() {
        let errors = Errors::new(
            &form_name,
            "scheduled_at",
            "choose one of the proposed times",
        );
        let csrf = who.csrf().to_string();
        let kept = (errors, String::new(), None);
        return page(&state, &who.user, who.nav(), csrf, kept).await;
    }
    let input = Approval {
        scheduled_at: form.scheduled_at.clone(),
        table: Some(form.table.trim().to_string()).filter(|t| !t.is_empty()),
    };
    let answer = requests::approve(&state.db, &who.user, *id, &input).await;
    answered(
        &state,
        &who,
        answer.map(|_| "approved"),
        &form_name,
        form.scheduled_at,
    )
    .await
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ReasonForm {
    reason: String,
    note: String,
}

#[post("/admin/requests/{id}/decline")]
pub(super) async fn decline(
    state: web::Data<AppState>,
    Admin(who): Admin,
    id: web::Path<i64>,
    CsrfForm(form): CsrfForm<ReasonForm>,
) -> Result<HttpResponse, PageError> {
    let input = Decline {
        reason: form.reason.clone(),
    };
    let answer = requests::decline(&state.db, &who.user, *id, &input).await;
    let form_name = format!("decline-{id}");
    answered(
        &state,
        &who,
        answer.map(|_| "declined"),
        &form_name,
        form.reason,
    )
    .await
}

#[post("/admin/disputes/{id}/resolve")]
pub(super) async fn resolve(
    state: web::Data<AppState>,
    Admin(who): Admin,
    id: web::Path<i64>,
    CsrfForm(form): CsrfForm<ReasonForm>,
) -> Result<HttpResponse, PageError> {
    let input = Resolution {
        note: form.note.clone(),
    };
    let answer = disputes::resolve(&state.db, &who.user, *id, &input).await;
    let form_name = format!("resolve-{id}");
    answered(
        &state,
        &who,
        answer.map(|_| "resolved"),
        &form_name,
        form.note,
    )
    .await
}

/// Back to the queue with the answer given, or the page again with the error by the form
/// and what it held.
async fn answered(
    state: &AppState,
    who: &crate::web::extract::Authed,
    answer: Result<&str, ServiceError>,
    form: &str,
    kept: String,
) -> Result<HttpResponse, PageError> {
    match answer {
        Ok(done) => Ok(see_other(&format!("/admin/requests?done={done}"))),
        Err(e @ (ServiceError::Invalid(_) | ServiceError::Conflict { .. })) => {
            let fields = ["scheduled_at", "table", "reason", "note"];
            let errors = Errors::of(form, &fields, &e);
            let csrf = who.csrf().to_string();
            page(state, &who.user, who.nav(), csrf, (errors, kept, None)).await
        }
        Err(e) => Err(e.into()),
    }
}
