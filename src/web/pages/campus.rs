//! "Log in with your campus account": the two ends of the OpenID Connect flow. The flow
//! itself is [`crate::service::people::oidc`]'s; here are the cookies, the answers and the log.
//!
//! The flow cookie is `SameSite=Lax`, as is the session cookie a campus sign-in opens: the
//! browser comes back from the provider's site, and a `Strict` cookie would be sent neither
//! to the callback nor on its redirect to the start page. Every form still checks its CSRF
//! token and the same-origin headers.

use actix_web::cookie::{Cookie, SameSite, time::Duration as CookieDuration};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, get, web};
use askama::Template;

use super::account::{NextQuery, log_in_as, safe_next};
use super::captain::with_session;
use crate::service::people::oidc::{Callback, CampusSignIn, FLOW_SECONDS, Refusal};
use crate::service::people::{accounts, captains};
use crate::web::AppState;
use crate::web::error::{AppError, PageError};
use crate::web::respond::{html, no_store};
use crate::web::view::nav::Nav;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(begin).service(callback);
}

#[derive(Template)]
#[template(path = "account/campus.html")]
struct RefusalPage {
    nav: Nav,
    title: &'static str,
    message: &'static str,
}

/// Campus sign-in, or 404 when it is not configured.
fn campus(state: &AppState) -> Result<&CampusSignIn, PageError> {
    state.campus.as_ref().ok_or(PageError(AppError::NotFound))
}

#[get("/auth/oidc/login")]
async fn begin(
    state: web::Data<AppState>,
    query: web::Query<NextQuery>,
) -> Result<HttpResponse, PageError> {
    let campus = campus(&state)?;
    let key = state.device_keys.get(&state.db).await?;
    let next = safe_next(query.next.as_deref());
    match campus.start(key, next, state.db.clock().now()).await {
        Ok((provider, flow)) => {
            let cookie = flow_cookie(&state, flow, CookieDuration::seconds(FLOW_SECONDS));
            Ok(no_store(
                HttpResponse::SeeOther()
                    .cookie(cookie)
                    .insert_header((actix_web::http::header::LOCATION, provider.as_str()))
                    .finish(),
            ))
        }
        Err(refusal) => refused(&refusal),
    }
}

#[get("/auth/oidc/callback")]
async fn callback(
    req: HttpRequest,
    state: web::Data<AppState>,
    query: web::Query<Callback>,
) -> Result<HttpResponse, PageError> {
    let campus = campus(&state)?;
    let key = state.device_keys.get(&state.db).await?;
    let flow = req.cookie(flow_cookie_name(&state).0);
    let now = state.db.clock().now();
    let finished = campus
        .finish(key, flow.as_ref().map(Cookie::value), &query, now)
        .await;
    let mut response = match finished {
        Ok((identity, next)) => match accounts::campus_user(&state.db, &identity.email).await? {
            Some(user) => log_in_as(&state, key, &user, next, SameSite::Lax).await?,
            // No account has it: a captain's address signs its captain in (docs/api.md §20).
            None => match captains::open_session(&state.db, &identity.email).await? {
                Some((session, _csrf)) => with_session(&state, session, "/captain"),
                None => {
                    tracing::warn!("campus sign-in refused: no active user has this email");
                    page(StatusCode::FORBIDDEN, UNKNOWN_PERSON)?
                }
            },
        },
        // A callback that is not this browser's sign-in (any site can send one) leaves the
        // sign-in under way alone.
        Err(refusal @ Refusal::BadState(_)) => return refused(&refusal),
        Err(refusal) => refused(&refusal)?,
    };
    // The sign-in is over: its cookie goes.
    response
        .add_cookie(&flow_cookie(&state, String::new(), CookieDuration::ZERO))
        .map_err(|e| PageError(AppError::Internal(e.to_string())))?;
    Ok(response)
}

/// The flow cookie's name and path: with `Secure` cookies `__Host-spades_oidc` on `/`, which
/// no other site of the campus's domain can set (a planted one would log the browser in as
/// someone else); without, `spades_oidc` on the two routes here.
fn flow_cookie_name(state: &AppState) -> (&'static str, &'static str) {
    match state.secure_cookies {
        true => ("__Host-spades_oidc", "/"),
        false => ("spades_oidc", "/auth/oidc"),
    }
}

/// The flow cookie.
fn flow_cookie(state: &AppState, value: String, age: CookieDuration) -> Cookie<'static> {
    let (name, path) = flow_cookie_name(state);
    Cookie::build(name, value)
        .path(path)
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(state.secure_cookies)
        .max_age(age)
        .finish()
}

const UNKNOWN_PERSON: (&str, &str) = (
    "Your campus account has no account here",
    "You signed in with your campus account, but no active account here has its email \
     address. Ask your league coordinator to add your campus email address to your account \
     (or to reactivate it), then try again. No account was made.",
);

/// The refusal logged (its reason only) and shown.
fn refused(refusal: &Refusal) -> Result<HttpResponse, PageError> {
    tracing::warn!("campus sign-in refused: {refusal}");
    let (status, words) = match refusal {
        Refusal::Unavailable(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            (
                "Campus sign-in is unavailable",
                "The campus sign-in service cannot be reached right now. Try again in a few \
                 minutes. Coordinators can log in with their password meanwhile.",
            ),
        ),
        Refusal::BadState(_) => (
            StatusCode::BAD_REQUEST,
            (
                "This sign-in was not started here",
                "This sign-in has expired or was not started in this browser. Start again from \
                 the login page.",
            ),
        ),
        Refusal::Failed(_) => (
            StatusCode::FORBIDDEN,
            (
                "Campus sign-in failed",
                "The campus sign-in could not be completed, and you are not logged in. Start \
                 again from the login page; if it fails again, tell your league coordinator.",
            ),
        ),
    };
    page(status, words)
}

fn page(
    status: StatusCode,
    (title, message): (&'static str, &'static str),
) -> Result<HttpResponse, PageError> {
    let page = RefusalPage {
        nav: Nav::default(),
        title,
        message,
    };
    Ok(no_store(html(status, page.render()?)))
}
