//! The console's posts of conduct at the table (docs/api.md §6.9): a check-in or its undo,
//! the sportsmanship ratings, and the forfeit's confirmation page. Each goes through
//! `service::night::conduct`, as the JSON API's do; a refusal re-renders the console
//! ([`super::match_console::render_console`]) with the message.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::conduct::{RatingForm, conduct_view, league, names};
use super::form::HandForm;
use super::match_console::{Shown, refused, render_console};
use super::{ConsolePost, back_to_console, field, idempotency_key, supervised};
use crate::domain::{MatchId, TextEnum};
use crate::league::settings::Settings;
use crate::rules::Team;
use crate::service::ServiceError;
use crate::service::night::conduct::{self, CheckInInput};
use crate::service::night::match_view::MatchView;
use crate::service::people::accounts::random_hex;
use crate::web::AppState;
use crate::web::error::{AppError, PageError};
use crate::web::extract::Supervisor;
use crate::web::respond::{html, no_store};
use crate::web::view::nav::Nav;

/// Checks a team in (`present` other than `0`) or takes its check-in back (`present=0`).
#[post("/supervise/matches/{id}/check-in")]
pub(super) async fn check_in(
    state: web::Data<AppState>,
    ConsolePost { who, id, fields }: ConsolePost,
) -> Result<HttpResponse, PageError> {
    // The caller's rights before the form: 404 outside their leagues, whatever was sent.
    supervised(&state, &who, id).await?;
    let input = CheckInInput {
        team: field(&fields, "team").to_string(),
        present: Some(!matches!(
            field(&fields, "present").trim(),
            "0" | "false" | "no"
        )),
        idempotency_key: idempotency_key(&fields).map_err(AppError::Invalid)?,
    };
    match conduct::check_in(&state.db, &who.user, id, &input).await {
        Ok(_) => Ok(back_to_console(id)),
        Err(ServiceError::Conflict { message, .. }) => refused(&state, &who, id, message).await,
        Err(e) => Err(e.into()),
    }
}

/// Saves both teams' sportsmanship ratings (and the note).
#[post("/supervise/matches/{id}/sportsmanship")]
pub(super) async fn rate(
    state: web::Data<AppState>,
    ConsolePost { who, id, fields }: ConsolePost,
) -> Result<HttpResponse, PageError> {
    let form = RatingForm::from_pairs(&fields);
    let view = supervised(&state, &who, id).await?;
    let (view, error) = match form.to_input(&view) {
        Err(e) => (view, e),
        Ok(input) => match conduct::rate(&state.db, &who.user, id, &input).await {
            Ok(_) => return Ok(back_to_console(id)),
            Err(ServiceError::Invalid(e)) => (supervised(&state, &who, id).await?, e),
            Err(ServiceError::Conflict { message, .. }) => {
                return refused(&state, &who, id, message).await;
            }
            Err(e) => return Err(e.into()),
        },
    };
    let shown = Shown {
        ratings: Some((form, error)),
        ..Shown::default()
    };
    render_console(&state, &who, view, StatusCode::UNPROCESSABLE_ENTITY, shown).await
}

#[derive(Template)]
#[template(path = "console/forfeit_confirm.html")]
struct ForfeitConfirmPage {
    nav: Nav,
    m: MatchView,
    /// The team field as posted with the confirmation: `a`, `b`, `both`, `both-a`...
    value: String,
    /// "Forfeit Team 2?", "Record a double forfeit?"
    heading: String,
    /// "Team 2 forfeits: Team 1 wins; the match ends."
    effect: String,
    /// "Team 2 is rated 1 for sportsmanship (the league's forfeit rating)."
    rating: Option<String>,
    /// "Team 2 has not checked in, 12 minutes after the match time", after the grace period.
    absent: Option<String>,
    /// The confirming button: "Yes, record the forfeit: Team 1 wins".
    confirm: String,
    /// The form's idempotency key, fresh for each page: a resend records nothing twice.
    action_key: String,
}

#[derive(Deserialize)]
pub(super) struct ForfeitQuery {
    #[serde(default)]
    team: String,
}

/// The confirmation of a forfeit, the second tap of every forfeit on the console (the
/// forfeit box's team buttons, the forfeit offered after the grace period): what will happen,
/// "Yes, record the forfeit" (posted to the console's forfeit with `confirm`) and "Back". A
/// match that cannot be forfeited any more, or no team named, is sent back to the console.
#[get("/supervise/matches/{id}/forfeit")]
pub(super) async fn confirm_forfeit(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    id: web::Path<MatchId>,
    query: web::Query<ForfeitQuery>,
) -> Result<HttpResponse, PageError> {
    let id = *id;
    let view = supervised(&state, &who, id).await?;
    let asked = HandForm::from_pairs(&[("team".to_string(), query.team.trim().to_string())]);
    let advance = match asked.advance.as_deref().map(Team::parse) {
        None => None,
        Some(Ok(team)) => Some(team),
        Some(Err(_)) => return Ok(back_to_console(id)),
    };
    let side = match asked.forfeit_side() {
        Some(side) if !view.is_over() => side,
        _ => return Ok(back_to_console(id)),
    };
    let settings = league(&state, &view).await?.settings;
    let page = match side.team() {
        Some(team) => {
            let clock = state.db.clock();
            let absent = conduct_view(&view, &settings, clock.local_now(), clock.zone(), None)
                .absent
                .into_iter()
                .find(|a| a.key == team.as_str())
                .map(|a| {
                    format!(
                        "{} has not checked in, {} after the match time.",
                        a.name, a.late
                    )
                });
            one_forfeits(who.nav(), view, &settings, team, absent)
        }
        None => both_forfeit(who.nav(), view, &settings, advance),
    };
    Ok(no_store(html(StatusCode::OK, page.render()?)))
}

/// The league's forfeit rating, where it rates sportsmanship and has one.
fn forfeit_rating(settings: &Settings) -> Option<u32> {
    settings
        .sportsmanship
        .as_ref()
        .and_then(|s| s.forfeit_rating)
}

/// The confirmation of `team`'s forfeit; `absent`: that it has not checked in, where so.
fn one_forfeits(
    nav: Nav,
    view: MatchView,
    settings: &Settings,
    team: Team,
    absent: Option<String>,
) -> ForfeitConfirmPage {
    let names = names(&view);
    let (name, other) = (names[team.index()], names[team.other().index()]);
    let advances = if view.stage != crate::rules::Stage::Regular {
        format!(" {other} advances.")
    } else {
        String::new()
    };
    ForfeitConfirmPage {
        nav,
        value: team.as_str().to_string(),
        heading: format!("Forfeit {name}?"),
        effect: format!("{name} forfeits: {other} wins; the match ends.{advances}"),
        rating: forfeit_rating(settings).map(|r| {
            format!("{name} is rated {r} for sportsmanship (the league's forfeit rating).")
        }),
        absent,
        confirm: format!("Yes, record the forfeit: {other} wins"),
        action_key: random_hex(16),
        m: view,
    }
}

/// The confirmation of a double forfeit; `advance`: the team the coordinator sends on.
fn both_forfeit(
    nav: Nav,
    view: MatchView,
    settings: &Settings,
    advance: Option<Team>,
) -> ForfeitConfirmPage {
    let (value, effect) = match advance {
        Some(team) => (
            format!("both-{}", team.as_str()),
            format!(
                "Both teams forfeit: {} advances (the coordinator's choice); the match ends.",
                names(&view)[team.index()]
            ),
        ),
        None => (
            "both".to_string(),
            "Both teams forfeit: nobody wins, it is a loss for both; the match ends.".to_string(),
        ),
    };
    ForfeitConfirmPage {
        nav,
        value,
        heading: "Record a double forfeit?".to_string(),
        effect,
        rating: forfeit_rating(settings).map(|r| {
            format!("Both teams are rated {r} for sportsmanship (the league's forfeit rating).")
        }),
        absent: None,
        confirm: "Yes, record the double forfeit".to_string(),
        action_key: random_hex(16),
        m: view,
    }
}
