//! Login, logout and the account page (password, API tokens). Every page here goes by the
//! browser session alone (`extract`): an API token can neither open the account page nor
//! make, revoke or change anything on it, so a stolen token cannot mint tokens that outlive
//! its revocation.

use actix_web::cookie::{Cookie, SameSite, time::Duration as CookieDuration};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use crate::domain::{Field, TextEnum, TokenId};
use crate::service::people::device_cookie::{self, DeviceKey};
use crate::service::{Role, ServiceError, people::accounts, people::throttle};
use crate::web::AppState;
use crate::web::error::{AppError, PageError};
use crate::web::extract::{Authed, CsrfForm, Supervisor, Via, Viewer};
use crate::web::respond::{html, no_store, see_other};
use crate::web::view::nav::Nav;
use crate::web::view::time::{Stamp, stamp};

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(login_form)
        .service(login)
        .service(logout)
        .service(account)
        .service(change_password)
        .service(create_token)
        .service(revoke_token);
}

#[derive(Template)]
#[template(path = "account/login.html")]
struct LoginPage {
    nav: Nav,
    username: String,
    next: String,
    error: Option<String>,
    /// "Log in with your campus account", when campus sign-in is on: its link.
    campus_href: Option<String>,
    /// Supervisors may log in only through the campus account.
    campus_only: bool,
}

impl LoginPage {
    fn new(state: &AppState, nav: Nav, username: String, next: Option<String>) -> LoginPage {
        let campus_href = state.campus.as_ref().map(|_| match &next {
            Some(next) => format!(
                "/auth/oidc/login?{}",
                url::form_urlencoded::Serializer::new(String::new())
                    .append_pair("next", next)
                    .finish()
            ),
            None => "/auth/oidc/login".to_string(),
        });
        LoginPage {
            nav,
            username,
            next: next.unwrap_or_default(),
            error: None,
            campus_href,
            campus_only: state.campus.as_ref().is_some_and(|c| c.only()),
        }
    }
}

#[derive(Deserialize)]
pub(super) struct NextQuery {
    pub(super) next: Option<String>,
}

/// Only a path on this site (never `//host` or a full URL); none when there is no such path,
/// and the login then sends the user to their own start page ([`landing`]).
pub(super) fn safe_next(next: Option<&str>) -> Option<String> {
    next.filter(|n| is_local_path(n)).map(str::to_string)
}

/// Where a login goes without a `next`: an admin to the admin dashboard (which says what to
/// do first), a supervisor to tonight's matches.
fn landing(role: Role) -> &'static str {
    match role {
        Role::Admin => "/admin",
        Role::Supervisor => "/supervise",
    }
}

/// A path on this site, and nothing a browser could read as another host: it starts with one
/// `/` and holds only letters, digits and `/ - _ . ~ ? = &` (no `//`, backslash, control
/// character, space or percent-encoding, which browsers may decode or drop into `//host`).
fn is_local_path(next: &str) -> bool {
    next.starts_with('/')
        && !next.contains("//")
        && next.len() <= 200
        && next
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/-_.~?=&".contains(&b))
}

#[get("/login")]
async fn login_form(
    who: Viewer,
    state: web::Data<AppState>,
    query: web::Query<NextQuery>,
) -> Result<HttpResponse, PageError> {
    let next = safe_next(query.next.as_deref());
    let page = LoginPage::new(&state, who.nav(), String::new(), next);
    Ok(no_store(html(StatusCode::OK, page.render()?)))
}

#[derive(Deserialize)]
struct LoginForm {
    #[serde(default)]
    username: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    next: Option<String>,
}

#[post("/login")]
async fn login(
    req: HttpRequest,
    state: web::Data<AppState>,
    form: web::Form<LoginForm>,
) -> Result<HttpResponse, PageError> {
    let username = form.username.trim().to_string();
    let next = safe_next(form.next.as_deref());
    let again = |status: StatusCode, message: String| -> Result<HttpResponse, PageError> {
        let page = LoginPage {
            error: Some(message),
            ..LoginPage::new(&state, Nav::default(), username.clone(), next.clone())
        };
        Ok(no_store(html(status, page.render()?)))
    };
    let key = state.device_keys.get(&state.db).await?;
    let attempt = attempt(&state, key, &req, &username);
    // Throttling is decided before any hashing.
    if let Some(wait) = throttle::retry_after(&state.db, &attempt).await? {
        let message = if attempt.trusted() {
            format!(
                "Too many wrong passwords on this device: {}",
                try_again_in(wait)
            )
        } else {
            format!(
                "Too many failed logins for this username or from this network: {} A phone \
                 or computer you have logged in on before is not held back.",
                try_again_in(wait)
            )
        };
        let mut response = again(StatusCode::TOO_MANY_REQUESTS, message)?;
        response.headers_mut().insert(
            actix_web::http::header::RETRY_AFTER,
            actix_web::http::header::HeaderValue::from(wait),
        );
        return Ok(response);
    }
    let Some(user) = accounts::check_login(&state.db, &username, &form.password).await? else {
        throttle::failed(&state.db, &attempt).await?;
        return again(
            StatusCode::UNAUTHORIZED,
            "Wrong username or password.".into(),
        );
    };
    if state.campus.as_ref().is_some_and(|c| c.only()) && user.role == Role::Supervisor {
        return again(
            StatusCode::FORBIDDEN,
            "Supervisors log in with their campus account here: use \"Log in with your campus \
             account\" above."
                .into(),
        );
    }
    log_in_as(&state, key, &user, next, SameSite::Strict).await
}

/// Opens a session for `user` (a password's or a campus sign-in's) and sends the browser on
/// to `next` or the user's start page: a new session id at every login, and a new device
/// cookie (this browser is now a device the user logged in on).
pub(super) async fn log_in_as(
    state: &AppState,
    key: &DeviceKey,
    user: &crate::service::User,
    next: Option<String>,
    same_site: SameSite,
) -> Result<HttpResponse, PageError> {
    let (session, _csrf) = accounts::open_session(&state.db, user).await?;
    let session = Cookie::build(state.session_cookie(), session)
        .path("/")
        .http_only(true)
        .same_site(same_site)
        .secure(state.secure_cookies)
        .max_age(CookieDuration::hours(accounts::SESSION_HOURS))
        .finish();
    let device = Cookie::build(
        device_cookie::COOKIE,
        key.issue(&throttle::fold(&user.username)),
    )
    .path("/")
    .http_only(true)
    .same_site(SameSite::Strict)
    .secure(state.secure_cookies)
    .max_age(CookieDuration::days(device_cookie::DAYS))
    .finish();
    tracing::info!(user = %user.username, "logged in");
    Ok(no_store(
        HttpResponse::SeeOther()
            .cookie(session)
            .cookie(device)
            .insert_header((
                actix_web::http::header::LOCATION,
                next.unwrap_or_else(|| landing(user.role).to_string()),
            ))
            .finish(),
    ))
}

/// A password check for `username` by the client of `req`, as the login throttle sees it:
/// by a trusted device if the request carries a device cookie signed for this username.
fn attempt(
    state: &AppState,
    key: &DeviceKey,
    req: &HttpRequest,
    username: &str,
) -> throttle::Attempt {
    let device = req
        .cookie(device_cookie::COOKIE)
        .and_then(|cookie| key.recognise(cookie.value(), &throttle::fold(username)));
    throttle::Attempt::new(username, state.client_address.of(req), device)
}

/// The form of a button: nothing but the CSRF token.
#[derive(Deserialize)]
struct Empty {}

/// The form of the header's "Log out" button.
#[derive(Deserialize)]
struct LogoutForm {
    #[serde(default)]
    csrf: String,
}

/// The session cookie's removal (a log-out's, a captain's sign-out's).
pub(super) fn session_removal(state: &AppState) -> Cookie<'static> {
    let mut gone = Cookie::build(state.session_cookie(), "")
        .path("/")
        .secure(state.secure_cookies)
        .finish();
    gone.make_removal();
    gone
}

/// What the browser must forget at log-out (`Clear-Site-Data`): its HTTP cache and the site's
/// storage, which holds the console's service worker and the pages it keeps for a reload
/// offline (the user's name, notes, the session's CSRF token) and the outbox of entries not
/// yet sent (`static/session.js` asks first when some wait). Not `"cookies"`: that would
/// clear every cookie of the registrable domain (the campus's other sites too); the session
/// cookie is removed by name.
const CLEAR_SITE_DATA: &str = "\"cache\", \"storage\"";

/// Ends the session (with its CSRF token) and tells the browser to forget the site's data. A
/// log-out without a live session (it expired, or another tab logged out) still clears the
/// browser: a phone handed on must not keep the console's pages.
#[post("/logout")]
async fn logout(
    state: web::Data<AppState>,
    Viewer(who): Viewer,
    form: web::Form<LogoutForm>,
) -> Result<HttpResponse, PageError> {
    if let Some(who) = who {
        who.check_csrf(&form.csrf)?;
        if let Via::Session { id, .. } = &who.via {
            accounts::close_session(&state.db, id).await?;
        }
    }
    Ok(no_store(
        HttpResponse::SeeOther()
            .cookie(session_removal(&state))
            .insert_header(("Clear-Site-Data", CLEAR_SITE_DATA))
            .insert_header((actix_web::http::header::LOCATION, "/"))
            .finish(),
    ))
}

struct TokenLine {
    id: TokenId,
    name: String,
    created: Stamp,
    revoked: bool,
}

#[derive(Template)]
#[template(path = "account/account.html")]
struct AccountPage {
    nav: Nav,
    role: &'static str,
    /// Logged in with a one-time password: the page asks for a new one and shows no tokens.
    must_change_password: bool,
    tokens: Vec<TokenLine>,
    /// A token just created: shown once.
    new_token: Option<String>,
    message: Option<String>,
    /// The user's start page, linked after a password change.
    go_on: Option<&'static str>,
    error_field: String,
    error: Option<String>,
    token_name: String,
}

/// What the account page shows besides the tokens: a token just created (shown once), a
/// message, a form's error (field, message) and the token name as typed.
#[derive(Default)]
struct Shown {
    new_token: Option<String>,
    message: Option<String>,
    /// Link on to the user's start page (after a password change).
    go_on: bool,
    error: Option<(String, String)>,
    token_name: String,
}

impl Shown {
    /// A form refused: its field and why.
    fn error(field: impl Into<String>, message: impl Into<String>) -> Shown {
        Shown {
            error: Some((field.into(), message.into())),
            ..Shown::default()
        }
    }
}

async fn render_account(
    state: &AppState,
    who: &Authed,
    status: StatusCode,
    shown: Shown,
) -> Result<HttpResponse, PageError> {
    let tokens = accounts::tokens(&state.db, &who.user)
        .await?
        .into_iter()
        .map(|t| TokenLine {
            id: t.id,
            name: t.name,
            created: stamp(t.created_at),
            revoked: t.revoked,
        })
        .collect();
    let (error_field, error) = match shown.error {
        Some((f, m)) => (f, Some(m)),
        None => (String::new(), None),
    };
    let page = AccountPage {
        nav: who.nav(),
        role: who.user.role.as_str(),
        must_change_password: who.must_change_password,
        tokens,
        new_token: shown.new_token,
        message: shown.message,
        go_on: shown.go_on.then(|| landing(who.user.role)),
        error_field,
        error,
        token_name: shown.token_name,
    };
    Ok(no_store(html(status, page.render()?)))
}

/// `?done=password`: the password was just changed (post-redirect-get).
#[derive(Deserialize)]
struct AccountQuery {
    done: Option<String>,
}

#[get("/account")]
async fn account(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    query: web::Query<AccountQuery>,
) -> Result<HttpResponse, PageError> {
    let shown = match query.done.as_deref() {
        Some("password") => Shown {
            message: Some(
                "Password changed. You stay signed in here; your other sessions and your API \
                 tokens ended."
                    .into(),
            ),
            go_on: true,
            ..Shown::default()
        },
        _ => Shown::default(),
    };
    render_account(&state, &who, StatusCode::OK, shown).await
}

#[derive(Deserialize)]
struct PasswordForm {
    #[serde(default)]
    current: String,
    #[serde(default)]
    new: String,
    #[serde(default)]
    repeat: String,
}

/// "try again in 3 seconds" / "… in 2 minutes".
fn try_again_in(secs: u64) -> String {
    match secs {
        1 => "try again in a second.".into(),
        0..60 => format!("try again in {secs} seconds."),
        _ => format!("try again in {} minutes.", secs.div_ceil(60)),
    }
}

/// The current password is checked under the login throttle: a session left open on a shared
/// computer must not become a way to guess the password.
#[post("/account/password")]
async fn change_password(
    req: HttpRequest,
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    CsrfForm(form): CsrfForm<PasswordForm>,
) -> Result<HttpResponse, PageError> {
    let key = state.device_keys.get(&state.db).await?;
    let attempt = attempt(&state, key, &req, &who.user.username);
    let (status, refused) = if form.new != form.repeat {
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            Shown::error("repeat", "the two new passwords differ"),
        )
    } else if let Some(wait) = throttle::retry_after(&state.db, &attempt).await? {
        (
            StatusCode::TOO_MANY_REQUESTS,
            Shown::error(
                "current",
                format!("Too many wrong passwords: {}", try_again_in(wait)),
            ),
        )
    } else {
        // A form is posted from a session only (the CSRF check): its id is here.
        let Via::Session { id: session, .. } = &who.via else {
            return Err(
                AppError::Forbidden("a password is changed from a browser session".into()).into(),
            );
        };
        match accounts::change_password(&state.db, &who.user, session, &form.current, &form.new)
            .await
        {
            // This session stays logged in (the others and the tokens ended): the account
            // page says so, with the way on to the user's start page.
            Ok(()) => return Ok(see_other("/account?done=password")),
            Err(ServiceError::Invalid(e)) => {
                if e.field == Some(Field::CURRENT) {
                    throttle::failed(&state.db, &attempt).await?;
                }
                (
                    StatusCode::UNPROCESSABLE_ENTITY,
                    Shown::error(
                        e.field.as_ref().map(Field::to_string).unwrap_or_default(),
                        e.message,
                    ),
                )
            }
            Err(e) => return Err(e.into()),
        }
    };
    render_account(&state, &who, status, refused).await
}

#[derive(Deserialize)]
struct TokenForm {
    #[serde(default)]
    name: String,
}

#[post("/account/tokens")]
async fn create_token(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    CsrfForm(form): CsrfForm<TokenForm>,
) -> Result<HttpResponse, PageError> {
    let token = match accounts::create_token(&state.db, &who.user.username, &form.name).await {
        Ok(token) => token,
        Err(ServiceError::Invalid(e)) => {
            let refused = Shown {
                token_name: form.name.clone(),
                ..Shown::error("name", e.message)
            };
            return render_account(&state, &who, StatusCode::UNPROCESSABLE_ENTITY, refused).await;
        }
        Err(e) => return Err(e.into()),
    };
    let shown = Shown {
        new_token: Some(token),
        ..Shown::default()
    };
    render_account(&state, &who, StatusCode::OK, shown).await
}

#[post("/account/tokens/{id}/revoke")]
async fn revoke_token(
    state: web::Data<AppState>,
    Supervisor(who): Supervisor,
    id: web::Path<TokenId>,
    _: CsrfForm<Empty>,
) -> Result<HttpResponse, PageError> {
    accounts::revoke_token(&state.db, &who.user, *id).await?;
    let shown = Shown {
        message: Some("Token revoked.".into()),
        ..Shown::default()
    };
    render_account(&state, &who, StatusCode::OK, shown).await
}
