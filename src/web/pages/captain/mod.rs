//! The captain's pages (docs/api.md §20): `/captain` asks for a sign-in link by email and,
//! once signed in, shows the captain's teams (`teams`); the link opens the session at
//! `/captain/auth/{token}`; the forms of the page post to `forms`.
//!
//! Asking for a link answers the same page whatever the address; the message is sent after
//! the answer, so the relay's time does not tell whether the address is a captain's.

mod forms;
mod teams;

use actix_web::cookie::{Cookie, SameSite, time::Duration as CookieDuration};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::service::people::captains::{self, Captain};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::session_id;
use crate::web::respond::{html, no_store, see_other};
use crate::web::view::nav::Nav;
use teams::teams_page;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(captain_page)
        .service(ask_link)
        .service(follow_link)
        .service(forms::set_lineup)
        .service(forms::default_match)
        .service(forms::ask_to_move)
        .service(forms::dispute)
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
    if crate::web::extract::constant_eq(&captain.csrf, sent) {
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
