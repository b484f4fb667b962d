//! The captain's pages (docs/api.md §20): `/captain` asks for a sign-in link by email and,
//! once signed in, shows the captain's teams: the roster (names and emails), the coming
//! matches with a lineup form for each, and the results. The link opens the session at
//! `/captain/auth/{token}`.
//!
//! Asking for a link answers the same page whatever the address; the message is sent after
//! the answer, so the relay's time does not tell whether the address is a captain's.

use actix_web::cookie::{Cookie, SameSite, time::Duration as CookieDuration};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::domain::{MatchId, MatchStatus, PlayerId};
use crate::rules::Team;
use crate::service::ServiceError;
use crate::service::night::disputes::{self, NewDisputeInput};
use crate::service::night::lineups::{self, LineupInput};
use crate::service::night::match_view::MatchView;
use crate::service::night::matches::{self, DefaultInput, Defaulter};
use crate::service::people::captains::{self, Captain, CaptainTeam};
use crate::service::term::requests::{self, NewRequest};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{CaptainSession, session_id};
use crate::web::respond::{html, no_store, see_other};
use crate::web::view::nav::Nav;
use crate::web::view::time::scheduled;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(captain_page)
        .service(ask_link)
        .service(follow_link)
        .service(set_lineup)
        .service(default_match)
        .service(ask_to_move)
        .service(dispute)
        .service(sign_out);
}

#[derive(Template)]
#[template(path = "account/captain_signin.html")]
struct SignInPage {
    nav: Nav,
    email: String,
    /// The link was asked for: the same words whoever asked.
    sent: bool,
    /// A link that no longer works was followed.
    stale_link: bool,
    /// The service sends no email: a link cannot come.
    no_mail: bool,
    /// "Sign in with your campus account", when campus sign-in is on.
    campus: bool,
}

impl SignInPage {
    fn new(state: &AppState) -> SignInPage {
        SignInPage {
            nav: Nav::default(),
            email: String::new(),
            sent: false,
            stale_link: false,
            no_mail: state.mailer.is_none(),
            campus: state.campus.is_some(),
        }
    }

    fn answer(self, status: StatusCode) -> Result<HttpResponse, PageError> {
        Ok(no_store(html(status, self.render()?)))
    }
}

#[derive(Template)]
#[template(path = "account/captain.html")]
struct TeamsPage {
    nav: Nav,
    csrf: String,
    teams: Vec<TeamCard>,
    /// What was just saved, in words.
    saved: Option<&'static str>,
    /// A form refused: which, the words, and what it held.
    refused: Option<Refusal>,
}

impl TeamsPage {
    /// The seats a lineup form shows chosen: as sent when it was refused, else as set.
    fn chosen(&self, m: &Coming) -> [Option<PlayerId>; 2] {
        match &self.refused {
            Some(r) if r.form == format!("lineup-{}", m.id) => r.seats,
            _ => m.seats,
        }
    }

    /// The refusal of form `kind` of match `id` (`lineup-3`), if that form was refused.
    fn refusal(&self, kind: &str, id: &MatchId) -> Option<&Refusal> {
        self.refused
            .as_ref()
            .filter(|r| r.form == format!("{kind}-{id}"))
    }

    /// The dispute categories and their words.
    fn categories(&self) -> [(&'static str, &'static str); 4] {
        [
            ("scoring", "The scoring"),
            ("eligibility", "A player's eligibility"),
            ("sportsmanship", "Sportsmanship"),
            ("result", "The result"),
        ]
    }

    /// What a refused form held in field `i` (its text fields in order), else "".
    fn kept(&self, kind: &str, id: &MatchId, i: usize) -> &str {
        self.refusal(kind, id)
            .and_then(|r| r.kept.get(i))
            .map_or("", String::as_str)
    }

    /// Whether `seat` holds player `id` (a form's `selected`).
    fn picked(&self, seat: &&Option<PlayerId>, id: &PlayerId) -> bool {
        seat.as_ref() == Some(id)
    }
}

struct Refusal {
    /// The form's id: `lineup-3`, `default-3`, `move-3`, `dispute-3`.
    form: String,
    message: String,
    seats: [Option<PlayerId>; 2],
    /// The form's text fields as sent, in order.
    kept: Vec<String>,
}

impl Refusal {
    fn of(kind: &str, id: MatchId, e: ServiceError) -> Result<Refusal, PageError> {
        let message = match e {
            ServiceError::Invalid(e) => e.message,
            ServiceError::Conflict { message, .. } => message,
            other => return Err(other.into()),
        };
        Ok(Refusal {
            form: format!("{kind}-{id}"),
            message: capitalised(&message),
            seats: [None, None],
            kept: Vec::new(),
        })
    }
}

/// One team on the captain's page.
struct TeamCard {
    id: crate::domain::TeamId,
    name: String,
    league_name: String,
    league: String,
    players: Vec<captains::TeamMate>,
    coming: Vec<Coming>,
    results: Vec<Played>,
    /// "A default is sent at least 24 hours before the match"; `None`: no defaults.
    defaults: Option<String>,
    asked: Vec<String>,
}

/// A finished match from the team's side.
struct Played {
    id: MatchId,
    words: String,
    /// Its result may still be disputed.
    disputable: bool,
}

/// A match not yet played, from the team's side.
struct Coming {
    id: MatchId,
    side: &'static str,
    words: String,
    /// The lineup may still be set (the match has not started).
    open: bool,
    seats: [Option<PlayerId>; 2],
}

impl TeamCard {
    fn of(team: CaptainTeam) -> TeamCard {
        let (mut coming, mut results) = (Vec::new(), Vec::new());
        for m in &team.matches {
            let side = if m.team_a.id == team.id {
                Team::A
            } else {
                Team::B
            };
            match m.status {
                MatchStatus::Complete | MatchStatus::Forfeit => results.push(Played {
                    id: m.id,
                    words: result_words(m, side),
                    disputable: team.disputable.contains(&m.id),
                }),
                MatchStatus::Cancelled => {}
                _ => coming.push(Coming::of(m, side)),
            }
        }
        TeamCard {
            id: team.id,
            name: team.name,
            league_name: team.league_name,
            league: team.league,
            players: team.players,
            coming,
            results,
            defaults: team.default_notice_hours.map(|h| match h {
                0 => "until the match starts".to_string(),
                1 => "at least 1 hour before the match".to_string(),
                h => format!("at least {h} hours before the match"),
            }),
            asked: team.asked,
        }
    }
}

impl Coming {
    fn of(m: &MatchView, side: Team) -> Coming {
        let opponent = match side {
            Team::A => &m.team_b.name,
            Team::B => &m.team_a.name,
        };
        let when = m
            .scheduled_at
            .map_or_else(|| "no date set".to_string(), scheduled);
        let mut words = format!("{when} · v {opponent}");
        if let Some(label) = &m.label {
            words = format!("{label} · {words}");
        }
        if let Some(table) = &m.table {
            words.push_str(&format!(" · {table}"));
        }
        if m.status != MatchStatus::Scheduled {
            words.push_str(&format!(" ({})", m.status.words()));
        }
        let seats = m
            .lineup
            .of(side)
            .map_or([None, None], |s| [Some(s[0].id), Some(s[1].id)]);
        Coming {
            id: m.id,
            side: side.as_str(),
            words,
            open: matches!(m.status, MatchStatus::Scheduled | MatchStatus::Postponed)
                && m.hands.is_empty(),
            seats,
        }
    }
}

/// "Won 320–250 v Kings", "Lost by forfeit v Kings", "Lost by default v Kings".
fn result_words(m: &MatchView, side: Team) -> String {
    let (own, theirs, opponent) = match side {
        Team::A => (&m.a, &m.b, &m.team_b.name),
        Team::B => (&m.b, &m.a, &m.team_a.name),
    };
    let outcome = match m.winner {
        Some(w) if w == side => "Won",
        Some(_) => "Lost",
        None => "Tied",
    };
    match m.status {
        MatchStatus::Forfeit if m.forfeit == Some(crate::domain::ForfeitSide::Both) => {
            format!("Both teams forfeited v {opponent}")
        }
        MatchStatus::Forfeit if m.result.is_some() => format!("{outcome} by default v {opponent}"),
        MatchStatus::Forfeit => format!("{outcome} by forfeit v {opponent}"),
        _ => format!("{outcome} {}–{} v {opponent}", own.score, theirs.score),
    }
}

#[derive(Deserialize)]
struct Shown {
    saved: Option<String>,
}

/// What a form saved, in words, from the page's `?saved=`.
fn saved_words(saved: Option<&str>) -> Option<&'static str> {
    Some(match saved? {
        "lineup" => "Lineup saved. The supervisor still checks student ids at the table.",
        "default" => "The match is a default: the other team and the supervisors are told.",
        "move" => {
            "Your request to move the match is with the coordinator: both teams hear the answer."
        }
        "dispute" => "Your dispute is with the coordinator: both captains hear the answer.",
        _ => return None,
    })
}

/// The captain's teams, or the form that asks for a link.
#[get("/captain")]
async fn captain_page(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<Shown>,
) -> Result<HttpResponse, PageError> {
    match signed_in(&req, &state).await? {
        Some(captain) => {
            let saved = saved_words(query.saved.as_deref());
            teams_page(&state, &captain, saved, None).await
        }
        None => SignInPage::new(&state).answer(StatusCode::OK),
    }
}

async fn signed_in(req: &HttpRequest, state: &AppState) -> Result<Option<Captain>, PageError> {
    match session_id(req) {
        Some(id) => Ok(captains::session(&state.db, &id).await?),
        None => Ok(None),
    }
}

async fn teams_page(
    state: &AppState,
    captain: &Captain,
    saved: Option<&'static str>,
    refused: Option<Refusal>,
) -> Result<HttpResponse, PageError> {
    let teams = captains::teams(&state.db, captain).await?;
    let status = match refused {
        Some(_) => StatusCode::UNPROCESSABLE_ENTITY,
        None => StatusCode::OK,
    };
    let page = TeamsPage {
        nav: Nav::default(),
        csrf: captain.csrf.clone(),
        teams: teams.into_iter().map(TeamCard::of).collect(),
        saved,
        refused,
    };
    Ok(no_store(html(status, page.render()?)))
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct LinkForm {
    email: String,
}

/// Asks for a link: the same page whether or not the address captains a team.
#[post("/captain/login")]
async fn ask_link(state: web::Data<AppState>, body: web::Bytes) -> Result<HttpResponse, PageError> {
    let form: LinkForm = form(&body);
    if let Some((token, email)) = captains::new_link(&state.db, &form.email).await?
        && let Some(mailer) = state.mailer.clone()
    {
        // After the answer: the relay's time does not show in the page's.
        actix_web::rt::spawn(async move {
            let sent = mailer.send_captain_link(&email, &token, captains::LINK_MINUTES);
            if let Err(why) = sent.await {
                tracing::warn!("a captain's sign-in link was not sent: {why}");
            }
        });
    }
    SignInPage {
        email: form.email.trim().to_string(),
        sent: true,
        ..SignInPage::new(&state)
    }
    .answer(StatusCode::OK)
}

/// Follows a link: a captain session and their page, or the form again with why not.
#[get("/captain/auth/{token}")]
async fn follow_link(
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let Some((session, _csrf)) = captains::follow_link(&state.db, &token).await? else {
        return SignInPage {
            stale_link: true,
            ..SignInPage::new(&state)
        }
        .answer(StatusCode::BAD_REQUEST);
    };
    Ok(with_session(&state, session, "/captain"))
}

/// A 303 to `to` that sets the captain's session cookie (a new id at every sign-in). `Lax`:
/// the link is followed from a mail reader, another site, and the next page must have it.
pub(super) fn with_session(state: &AppState, session: String, to: &str) -> HttpResponse {
    let cookie = Cookie::build(state.session_cookie(), session)
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(state.secure_cookies)
        .max_age(CookieDuration::hours(captains::SESSION_HOURS))
        .finish();
    no_store(
        HttpResponse::SeeOther()
            .cookie(cookie)
            .insert_header((actix_web::http::header::LOCATION, to.to_string()))
            .finish(),
    )
}

/// A posted form read leniently: every field is text and a missing one empty, so nothing a
/// browser or a script sends is answered with a parser's words.
fn form<T: DeserializeOwned + Default>(body: &[u8]) -> T {
    serde_urlencoded::from_bytes(body).unwrap_or_default()
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct LineupForm {
    csrf: String,
    #[serde(rename = "match")]
    match_id: String,
    team: String,
    seat1: String,
    seat2: String,
}

/// Sets a coming match's lineup for the captain's team.
#[post("/captain/lineup")]
async fn set_lineup(
    state: web::Data<AppState>,
    CaptainSession(captain): CaptainSession,
    body: web::Bytes,
) -> Result<HttpResponse, PageError> {
    let form: LineupForm = form(&body);
    check_csrf(&captain, &form.csrf)?;
    let Ok(match_id) = form.match_id.trim().parse::<i64>().map(MatchId) else {
        return Err(PageError(crate::web::error::AppError::NotFound));
    };
    let seats = [form.seat1, form.seat2].map(|s| s.trim().parse::<i64>().ok().map(PlayerId));
    let [Some(seat1), Some(seat2)] = seats else {
        let refused = Refusal {
            form: format!("lineup-{match_id}"),
            message: "Choose both players: seat 1 and seat 2.".into(),
            seats,
            kept: Vec::new(),
        };
        return teams_page(&state, &captain, None, Some(refused)).await;
    };
    let input = LineupInput {
        team: form.team,
        players: Some(vec![seat1, seat2]),
        student_ids: None,
        idempotency_key: None,
    };
    match lineups::captain_sets_lineup(&state.db, &captain, match_id, &input).await {
        Ok(_) => Ok(see_other("/captain?saved=lineup")),
        Err(e) => {
            let refused = Refusal {
                seats,
                ..Refusal::of("lineup", match_id, e)?
            };
            teams_page(&state, &captain, None, Some(refused)).await
        }
    }
}

/// The match id a captain's form names; no such match otherwise (404).
fn match_of(text: &str) -> Result<MatchId, PageError> {
    text.trim()
        .parse::<i64>()
        .map(MatchId)
        .map_err(|_| PageError(crate::web::error::AppError::NotFound))
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct DefaultForm {
    csrf: String,
    #[serde(rename = "match")]
    match_id: String,
    team: String,
    reason: String,
}

/// "We can't play": the match ends as a default.
#[post("/captain/default")]
async fn default_match(
    state: web::Data<AppState>,
    CaptainSession(captain): CaptainSession,
    body: web::Bytes,
) -> Result<HttpResponse, PageError> {
    let form: DefaultForm = form(&body);
    check_csrf(&captain, &form.csrf)?;
    let id = match_of(&form.match_id)?;
    let input = DefaultInput {
        team: form.team,
        reason: form.reason.clone(),
    };
    let done = matches::default(&state.db, Defaulter::Captain(&captain), id, &input).await;
    answered(
        &state,
        &captain,
        done.map(|_| "default"),
        ("default", id),
        vec![form.reason],
    )
    .await
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct MoveForm {
    csrf: String,
    #[serde(rename = "match")]
    match_id: String,
    reason: String,
    time1: String,
    time2: String,
    time3: String,
}

/// Asks the coordinator to move a coming match.
#[post("/captain/reschedule")]
async fn ask_to_move(
    state: web::Data<AppState>,
    CaptainSession(captain): CaptainSession,
    body: web::Bytes,
) -> Result<HttpResponse, PageError> {
    let form: MoveForm = form(&body);
    check_csrf(&captain, &form.csrf)?;
    let id = match_of(&form.match_id)?;
    let times = [&form.time1, &form.time2, &form.time3];
    let input = NewRequest {
        reason: form.reason.clone(),
        proposals: times
            .iter()
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .collect(),
    };
    let done = requests::request(&state.db, &captain, id, &input).await;
    let kept = vec![form.reason, form.time1, form.time2, form.time3];
    answered(&state, &captain, done.map(|_| "move"), ("move", id), kept).await
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct DisputeForm {
    csrf: String,
    #[serde(rename = "match")]
    match_id: String,
    category: String,
    reason: String,
}

/// Disputes a recorded result.
#[post("/captain/dispute")]
async fn dispute(
    state: web::Data<AppState>,
    CaptainSession(captain): CaptainSession,
    body: web::Bytes,
) -> Result<HttpResponse, PageError> {
    let form: DisputeForm = form(&body);
    check_csrf(&captain, &form.csrf)?;
    let id = match_of(&form.match_id)?;
    let input = NewDisputeInput {
        category: form.category.clone(),
        reason: form.reason.clone(),
    };
    let done = disputes::file(&state.db, &captain, id, &input).await;
    let kept = vec![form.reason, form.category];
    answered(
        &state,
        &captain,
        done.map(|_| "dispute"),
        ("dispute", id),
        kept,
    )
    .await
}

/// Back to the page with what was saved, or the page again with the form's error by it and
/// what it held.
async fn answered<T>(
    state: &AppState,
    captain: &Captain,
    done: Result<T, ServiceError>,
    (kind, id): (&str, MatchId),
    kept: Vec<String>,
) -> Result<HttpResponse, PageError>
where
    T: Into<&'static str>,
{
    match done {
        Ok(saved) => Ok(see_other(&format!("/captain?saved={}", saved.into()))),
        Err(e) => {
            let refused = Refusal {
                kept,
                ..Refusal::of(kind, id, e)?
            };
            teams_page(state, captain, None, Some(refused)).await
        }
    }
}

/// A service's message as a sentence on the page.
fn capitalised(message: &str) -> String {
    let mut chars = message.chars();
    let first = chars.next().map(|c| c.to_uppercase().collect::<String>());
    format!(
        "{}{}.",
        first.unwrap_or_default(),
        chars.as_str().trim_end_matches('.')
    )
}

fn check_csrf(captain: &Captain, sent: &str) -> Result<(), PageError> {
    if captain.csrf.len() == sent.len() && captain.csrf.as_bytes() == sent.as_bytes() {
        return Ok(());
    }
    Err(PageError(crate::web::error::AppError::Forbidden(
        "the form is out of date or not from this site (CSRF check failed): reload the page and try again".into(),
    )))
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct SignOutForm {
    csrf: String,
}

/// Ends the captain's session.
#[post("/captain/logout")]
async fn sign_out(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Bytes,
) -> Result<HttpResponse, PageError> {
    let form: SignOutForm = form(&body);
    // Only a captain's cookie goes: a coordinator's session in this browser is not theirs.
    let (Some(captain), Some(id)) = (signed_in(&req, &state).await?, session_id(&req)) else {
        return Ok(no_store(see_other("/captain")));
    };
    check_csrf(&captain, &form.csrf)?;
    captains::close_session(&state.db, &id).await?;
    Ok(no_store(
        HttpResponse::SeeOther()
            .cookie(super::account::session_removal(&state))
            .insert_header((actix_web::http::header::LOCATION, "/captain"))
            .finish(),
    ))
}
