//! The schedule page's forms ([`super::schedule_page`]): change a match (time, table,
//! teams), postpone or cancel it with a reason, and move a league night, previewed first:
//! the preview lists every match that moves (from → to) and those that stay, warns of a
//! table or a team taken on the new date, and re-posts with `confirm=1` and what it listed
//! (`seen`), so a night that changed in between is previewed again (409) instead of moved.
//!
//! Each form writes through one `service::term::reschedule` call; a refused one comes back on the
//! schedule page (422 with what was typed, 409 with the match as it is now).

use crate::domain::Slug;
use crate::web::respond::private_page;
use actix_web::dev::Payload;
use actix_web::http::StatusCode;
use actix_web::{FromRequest, HttpRequest, HttpResponse, post, web};
use askama::Template;
use futures_util::future::LocalBoxFuture;
use serde::de::DeserializeOwned;

use super::schedule_page::{Refusal, ScheduleTyped, render_schedule};
use super::{Errors, fixable};
use crate::domain::ErrorCode;
use crate::domain::{LocalTime, MatchId, MatchStatus, TeamId, parse_day};
use crate::service::ServiceError;
use crate::service::term::admin_schedule::{self, NightPreview, ScheduleAdmin, ScheduleMatch};
use crate::service::term::reschedule::{self, CallOff, MatchChange, NightMove};
use crate::service::term::supervisors;
use crate::web::AppState;
use crate::web::error::{AppError, PageError};
use crate::web::extract::{Admin, Authed, CsrfForm};
use crate::web::respond::see_other;
use crate::web::view::nav::Nav;
use crate::web::view::schedule_admin::{
    CallOffForm, ChangeForm, MoveForm, long_day, short_day, status_words,
};
use crate::web::view::time;

/// A form posted about match `id` of league `slug` (`/admin/leagues/{slug}/matches/{id}…`):
/// the admin who posted it and the form. Extracted as the [`Admin`], the path and the
/// [`CsrfForm`], in that order, so a refusal is the one each of them gives.
struct MatchForm<F> {
    who: Authed,
    slug: Slug,
    id: MatchId,
    form: F,
}

impl<F: DeserializeOwned + 'static> FromRequest for MatchForm<F> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let parts = <(Admin, web::Path<(Slug, MatchId)>, CsrfForm<F>)>::from_request(req, payload);
        Box::pin(async move {
            let (Admin(who), path, CsrfForm(form)) = parts.await?;
            let (slug, id) = path.into_inner();
            Ok(MatchForm {
                who,
                slug,
                id,
                form,
            })
        })
    }
}

/// Back to the schedule page (`?{query}#{anchor}`) after a form.
fn to_schedule(slug: &Slug, query: &[(&str, String)], anchor: &str) -> HttpResponse {
    let query = serde_urlencoded::to_string(query).unwrap_or_default();
    see_other(&format!("/admin/leagues/{slug}/schedule?{query}#{anchor}"))
}

/// The match `id` of league `slug`, as it is now (404 for another league's match).
async fn league_match(
    state: &AppState,
    who: &Authed,
    slug: &Slug,
    id: MatchId,
) -> Result<ScheduleMatch, PageError> {
    let view = admin_schedule::schedule_admin(&state.db, &who.user, slug).await?;
    view.by_id(id).cloned().ok_or(PageError(AppError::NotFound))
}

fn version_of(typed: &str) -> Result<Option<i64>, ServiceError> {
    match typed.trim() {
        "" => Ok(None),
        v => v.parse().map(Some).map_err(|_| {
            ServiceError::invalid(
                ErrorCode::InvalidRequest,
                "expected_version",
                "the form is out of date: reload the page",
            )
        }),
    }
}

/// The change form as the service takes it: only what differs from the match as it is
/// (`None` when nothing does). The version check is the service's: a field that differs
/// only because someone else changed it is a conflict there.
fn change_of(form: &ChangeForm, m: &ScheduleMatch) -> Result<Option<MatchChange>, ServiceError> {
    let expected_version = version_of(&form.expected_version)?.unwrap_or(m.version);
    let scheduled_at = form.scheduled_at.as_deref().map(str::trim).and_then(|at| {
        let same = match LocalTime::parse(at) {
            Ok(t) => m.scheduled_at == Some(t),
            Err(_) => at.is_empty() && m.scheduled_at.is_none(),
        };
        (!same).then(|| (!at.is_empty()).then(|| at.to_string()))
    });
    let table = form.table.as_deref().map(str::trim).and_then(|t| {
        let same = t == m.table.as_deref().unwrap_or("").trim();
        (!same).then(|| (!t.is_empty()).then(|| t.to_string()))
    });
    let team = |typed: &Option<String>, field: &str, which: &str, now: TeamId| {
        typed
            .as_deref()
            .map(|t| {
                t.parse::<TeamId>().map_err(|_| {
                    ServiceError::invalid(
                        ErrorCode::InvalidMatch,
                        field,
                        format!("pick team {which}"),
                    )
                })
            })
            .transpose()
            .map(|t| t.filter(|t| *t != now))
    };
    let team_a = team(&form.team_a, "team_a", "A", m.team_a.id)?;
    let team_b = team(&form.team_b, "team_b", "B", m.team_b.id)?;
    let change = MatchChange {
        scheduled_at,
        table,
        team_a,
        team_b,
        supervisor: form.supervisor.as_deref().map(str::trim).and_then(|s| {
            let same = s == m.supervisor.as_deref().unwrap_or("");
            (!same).then(|| (!s.is_empty()).then(|| s.to_string()))
        }),
        expected_version,
    };
    let nothing = change.scheduled_at.is_none()
        && change.table.is_none()
        && change.team_a.is_none()
        && change.team_b.is_none()
        && change.supervisor.is_none();
    Ok((!nothing).then_some(change))
}

fn teams_of(m: &ScheduleMatch) -> String {
    format!("{} v {}", m.team_a.name, m.team_b.name)
}

/// A conflict in the page's words: a stale version is "someone else changed it".
fn in_words(e: ServiceError, m: &ScheduleMatch) -> ServiceError {
    match e {
        ServiceError::Conflict {
            code: ErrorCode::VersionConflict,
            ..
        } => ServiceError::conflict(
            ErrorCode::VersionConflict,
            format!(
                "someone else changed {} v {} since this page was loaded; its current values are shown below",
                m.team_a.name, m.team_b.name
            ),
        ),
        other => other,
    }
}

const CHANGE_FIELDS: [&str; 5] = ["scheduled_at", "table", "team_a", "team_b", "supervisor"];

#[post("/admin/leagues/{slug}/matches/{id}")]
pub(super) async fn change_match(
    state: web::Data<AppState>,
    MatchForm {
        who,
        slug,
        id,
        form,
    }: MatchForm<ChangeForm>,
) -> Result<HttpResponse, PageError> {
    let m = league_match(&state, &who, &slug, id).await?;
    let result = match change_of(&form, &m) {
        Ok(None) => {
            return Ok(to_schedule(
                &slug,
                &[("done", "unchanged".into()), ("id", id.to_string())],
                &format!("match-{id}"),
            ));
        }
        Ok(Some(change)) => reschedule::change_match(&state.db, &who.user, id, &change)
            .await
            .map(drop),
        Err(e) => Err(e),
    };
    match result.map_err(|e| in_words(e, &m)) {
        Ok(()) => Ok(to_schedule(
            &slug,
            &[("done", "changed".into()), ("id", id.to_string())],
            &format!("match-{id}"),
        )),
        Err(e) if fixable(&e) => {
            let key = format!("m{id}");
            let refusal =
                Refusal::new(Errors::of(&key, &CHANGE_FIELDS, &e), &e, &key).about(teams_of(&m));
            let typed = ScheduleTyped {
                change: Some((id, form)),
                ..ScheduleTyped::default()
            };
            render_schedule(&state, &who, &slug, typed, Some(refusal), None).await
        }
        Err(e) => Err(e.into()),
    }
}

async fn call_off(
    state: &AppState,
    posted: MatchForm<CallOffForm>,
    to: MatchStatus,
) -> Result<HttpResponse, PageError> {
    let MatchForm {
        who,
        slug,
        id,
        form,
    } = posted;
    let m = league_match(state, &who, &slug, id).await?;
    let result = match version_of(&form.expected_version) {
        Ok(expected_version) => {
            let input = CallOff {
                reason: form.reason.clone(),
                expected_version,
            };
            if to == MatchStatus::Postponed {
                reschedule::postpone(&state.db, &who.user, id, &input).await
            } else {
                reschedule::cancel(&state.db, &who.user, id, &input).await
            }
            .map(drop)
        }
        Err(e) => Err(e),
    };
    match result.map_err(|e| in_words(e, &m)) {
        Ok(()) => {
            let (done, anchor) = if to == MatchStatus::Postponed {
                ("postponed", "postponed".to_string())
            } else {
                ("cancelled", format!("match-{id}"))
            };
            Ok(to_schedule(
                &slug,
                &[("done", done.into()), ("id", id.to_string())],
                &anchor,
            ))
        }
        Err(e) if fixable(&e) => {
            let key = format!("m{id}-off");
            let verb = if to == MatchStatus::Postponed {
                "postponing"
            } else {
                "cancelling"
            };
            let refusal = Refusal::new(Errors::of(&key, &["reason"], &e), &e, &key)
                .about(format!("{verb} {}", teams_of(&m)));
            let typed = ScheduleTyped {
                call_off: Some((id, form)),
                ..ScheduleTyped::default()
            };
            render_schedule(state, &who, &slug, typed, Some(refusal), None).await
        }
        Err(e) => Err(e.into()),
    }
}

#[post("/admin/leagues/{slug}/matches/{id}/postpone")]
pub(super) async fn postpone_match(
    state: web::Data<AppState>,
    posted: MatchForm<CallOffForm>,
) -> Result<HttpResponse, PageError> {
    call_off(&state, posted, MatchStatus::Postponed).await
}

/// "Cancel M12 (Team 3 v Team 4)?": the step before a cancel, with the reason typed.
#[derive(Template)]
#[template(path = "admin/schedule_cancel.html")]
struct CancelPage {
    nav: Nav,
    slug: String,
    name: String,
    m: MatchFacts,
    version: String,
    reason: String,
}

/// A match as a page that confirms a change names it: "M12 (Team 3 v Team 4)", its time and
/// its table, in words.
pub(super) struct MatchFacts {
    pub id: MatchId,
    pub label: String,
    pub when: String,
    pub table: String,
}

impl MatchFacts {
    pub(super) fn of(m: &ScheduleMatch) -> Self {
        MatchFacts {
            id: m.id,
            label: format!("M{} ({} v {})", m.id, m.team_a.name, m.team_b.name),
            when: m
                .scheduled_at
                .map_or_else(|| "No time yet".into(), time::scheduled),
            table: m.table.clone().unwrap_or_else(|| "no table".into()),
        }
    }
}

/// A cancel is asked about first (nothing written): it cannot be undone. A cancel that
/// would be refused anyway (no reason, a playoff match) goes straight to its refusal.
#[post("/admin/leagues/{slug}/matches/{id}/cancel")]
pub(super) async fn cancel_match(
    state: web::Data<AppState>,
    posted: MatchForm<CallOffForm>,
) -> Result<HttpResponse, PageError> {
    let view = admin_schedule::schedule_admin(&state.db, &posted.who.user, &posted.slug).await?;
    let m = view.by_id(posted.id).ok_or(PageError(AppError::NotFound))?;
    let ask = posted.form.confirm != "1"
        && m.stage == crate::rules::Stage::Regular
        && m.status.is_unstarted()
        && !posted.form.reason.trim().is_empty();
    if !ask {
        return call_off(&state, posted, MatchStatus::Cancelled).await;
    }
    private_page(
        StatusCode::OK,
        CancelPage {
            nav: posted.who.nav(),
            slug: view.slug.clone(),
            name: view.name.clone(),
            m: MatchFacts::of(m),
            version: if posted.form.expected_version.trim().is_empty() {
                m.version.to_string()
            } else {
                posted.form.expected_version.trim().to_string()
            },
            reason: posted.form.reason.clone(),
        },
    )
}

struct PreviewLine {
    teams: String,
    table: String,
    from: String,
    to: String,
    status: String,
}

#[derive(Template)]
#[template(path = "admin/schedule_move.html")]
struct MovePage {
    nav: Nav,
    slug: String,
    name: String,
    from: String,
    to: String,
    from_words: String,
    to_words: String,
    to_short: String,
    group: String,
    seen: String,
    moving: Vec<PreviewLine>,
    staying: Vec<PreviewLine>,
    already: Vec<PreviewLine>,
    clashes: Vec<String>,
    /// The night changed between the preview and the confirmation.
    changed: Option<String>,
    /// Why, as typed (the notices quote it).
    reason: String,
}

fn preview_line(m: &ScheduleMatch, to: Option<LocalTime>) -> PreviewLine {
    PreviewLine {
        teams: format!("{} v {}", m.team_a.name, m.team_b.name),
        table: m.table.clone().unwrap_or_else(|| "no table".into()),
        from: m.scheduled_at.map(time::scheduled).unwrap_or_default(),
        to: to.map(time::scheduled).unwrap_or_default(),
        status: status_words(m).0,
    }
}

async fn move_preview(
    who: &Authed,
    view: &ScheduleAdmin,
    (preview, reason): (&NightPreview, &str),
    group: &str,
    changed: Option<String>,
) -> Result<HttpResponse, PageError> {
    let mut clashes = preview.clashes.clone();
    if view.blackouts.contains(&preview.to) {
        clashes.insert(
            0,
            format!("{} is a blackout night of the league", long_day(preview.to)),
        );
    }
    let status = if changed.is_some() {
        StatusCode::CONFLICT
    } else {
        StatusCode::OK
    };
    private_page(
        status,
        MovePage {
            nav: who.nav(),
            slug: view.slug.clone(),
            name: view.name.clone(),
            from: preview.from.to_string(),
            to: preview.to.to_string(),
            from_words: long_day(preview.from),
            to_words: long_day(preview.to),
            to_short: short_day(preview.to),
            group: group.to_string(),
            seen: preview.fingerprint(),
            moving: preview
                .moving
                .iter()
                .map(|m| preview_line(&m.game, Some(m.to)))
                .collect(),
            staying: preview
                .staying
                .iter()
                .map(|m| preview_line(m, None))
                .collect(),
            already: preview
                .already
                .iter()
                .map(|m| preview_line(m, None))
                .collect(),
            clashes,
            changed,
            reason: reason.to_string(),
        },
    )
}

#[post("/admin/leagues/{slug}/nights/move")]
pub(super) async fn move_night(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    CsrfForm(form): CsrfForm<MoveForm>,
) -> Result<HttpResponse, PageError> {
    let view = admin_schedule::schedule_admin(&state.db, &who.user, &slug).await?;
    let input = NightMove {
        from: form.from.clone(),
        to: form.to.clone(),
        reason: Some(form.reason.clone()),
    };
    let group = if form.group.is_empty() {
        format!("night-{}", form.from.trim())
    } else {
        form.group.clone()
    };
    let preview = match admin_schedule::night_preview(&state.db, &who.user, &slug, &input).await {
        Ok(p) => p,
        Err(e) if fixable(&e) => {
            let key = format!("move-{group}");
            let night = parse_day(&form.from).map_or_else(|_| "a night".to_string(), short_day);
            let refusal = Refusal::new(Errors::of(&key, &["to"], &e), &e, &key)
                .about(format!("moving {night}"));
            let typed = ScheduleTyped {
                night: Some(MoveForm { group, ..form }),
                ..ScheduleTyped::default()
            };
            return render_schedule(&state, &who, &slug, typed, Some(refusal), None).await;
        }
        Err(e) => return Err(e.into()),
    };
    if form.confirm.trim() != "1" {
        return move_preview(&who, &view, (&preview, &form.reason), &group, None).await;
    }
    if !form.seen.is_empty() && form.seen != preview.fingerprint() {
        return move_preview(
            &who,
            &view,
            (&preview, &form.reason),
            &group,
            Some(
                "the night changed since the preview (a match was added, changed or started): check the list again, then confirm".into(),
            ),
        )
        .await;
    }
    match reschedule::move_night(&state.db, &who.user, &slug, &input).await {
        Ok(moved) => Ok(to_schedule(
            &slug,
            &[
                ("done", "moved".into()),
                ("n", moved.moved.to_string()),
                ("from", preview.from.to_string()),
                ("to", preview.to.to_string()),
            ],
            &format!("night-{}", preview.to),
        )),
        Err(e) if fixable(&e) => {
            move_preview(
                &who,
                &view,
                (&preview, &form.reason),
                &group,
                Some(e.to_string()),
            )
            .await
        }
        Err(e) => Err(e.into()),
    }
}

/// "Supervisors for this night": spreads the ticked supervisors over the night's tables, one
/// block of tables each; a refusal comes back by the form, the ticks kept.
#[post("/admin/leagues/{slug}/nights/supervisors")]
pub(super) async fn spread_supervisors(
    state: web::Data<AppState>,
    Admin(who): Admin,
    slug: web::Path<Slug>,
    CsrfForm(fields): CsrfForm<Vec<(String, String)>>,
) -> Result<HttpResponse, PageError> {
    let field = |name: &str| {
        fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_default()
    };
    let (night, group) = (field("night"), field("group"));
    let ticked: Vec<String> = fields
        .iter()
        .filter(|(k, _)| k == "supervisors")
        .map(|(_, v)| v.clone())
        .collect();
    let spread = match parse_day(&night) {
        Ok(day) => supervisors::spread_supervisors(&state.db, &who.user, &slug, day, &ticked).await,
        Err(_) => Err(ServiceError::invalid(
            ErrorCode::InvalidSchedule,
            "supervisors",
            "the form names no night: reload the schedule and try again",
        )),
    };
    match spread {
        Ok(n) => Ok(see_other(&format!(
            "/admin/leagues/{slug}/schedule?done=supervisors&n={n}&from={night}#{group}"
        ))),
        Err(e) if fixable(&e) => {
            let key = format!("supervisors-{group}");
            let refusal = Refusal::new(Errors::of(&key, &["supervisors"], &e), &e, &key)
                .about(format!("the supervisors of {night}"));
            render_schedule(
                &state,
                &who,
                &slug,
                ScheduleTyped::default(),
                Some(refusal),
                None,
            )
            .await
        }
        Err(e) => Err(e.into()),
    }
}
