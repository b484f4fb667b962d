//! `/admin/users`: every account (role, leagues, email, last log-in, state) with its forms:
//! add an account (role, leagues for a supervisor, email), change a role or an email,
//! deactivate or reactivate, reset a password. A one-time password is shown once, on the
//! page that answers the add or the reset: never in a URL or a log line. Every change goes
//! through `service::people::users`, which audits it.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Errors, fixable};
use crate::domain::{ErrorCode, Role, Slug, TextEnum};
use crate::service::people::users::{self, Account, AccountChange, Delivery, Handed, NewAccount};
use crate::service::{ServiceError, term::leagues};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, Authed, CsrfForm};
use crate::web::respond::{html, no_store, private_page};
use crate::web::view::nav::Nav;
use crate::web::view::time::{Stamp, stamp};

/// One account's line, with what its change form shows (as stored, or as typed when that
/// form was refused).
struct UserLine {
    username: String,
    role: &'static str,
    leagues: Vec<String>,
    email: String,
    last_login: Option<Stamp>,
    campus_login: Option<Stamp>,
    state: &'static str,
    active: bool,
    /// The change form's role and email.
    form_role: String,
    form_email: String,
}

/// A league to tick for a new supervisor.
struct LeagueChoice {
    slug: String,
    name: String,
    ticked: bool,
}

#[derive(Template)]
#[template(path = "admin/users.html")]
struct UsersPage {
    nav: Nav,
    users: Vec<UserLine>,
    leagues: Vec<LeagueChoice>,
    add: AddForm,
    /// What was just done, e.g. "sam deactivated."
    message: Option<String>,
    /// A one-time password just given: (username, password), shown on this answer only.
    password: Option<(String, String)>,
    errors: Errors,
    /// The id of the field the error summary links to.
    error_target: String,
    /// A mail relay is configured: a one-time password may be emailed instead of shown.
    mail_on: bool,
}

/// The add form as typed.
#[derive(Debug, Clone, Default)]
pub(super) struct AddForm {
    username: String,
    role: String,
    email: String,
    /// The slugs of the leagues ticked.
    leagues: Vec<String>,
    /// `email`: the one-time password goes to the address only.
    deliver: String,
}

impl AddForm {
    /// The form from its fields as posted: the league boxes repeat one name
    /// (`leagues=a&leagues=b`), which a struct cannot take.
    fn of(fields: Vec<(String, String)>) -> AddForm {
        let mut form = AddForm::default();
        for (name, value) in fields {
            match name.as_str() {
                "username" => form.username = value,
                "role" => form.role = value,
                "email" => form.email = value,
                "leagues" => form.leagues.push(value),
                "deliver" => form.deliver = value,
                _ => {}
            }
        }
        form
    }
}

/// The change form (role and email) as typed.
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct ChangeForm {
    #[serde(default)]
    role: String,
    #[serde(default)]
    email: String,
}

/// "Reset the password": `deliver=email` from the button that emails it.
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct ResetForm {
    #[serde(default)]
    deliver: String,
}

/// The deactivate / reactivate button: "0" or "1".
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct ActiveForm {
    #[serde(default)]
    active: String,
}

/// What a page answers besides the list: its message, a one-time password, the form refused
/// and the values typed in it.
#[derive(Default)]
struct Shown {
    message: Option<String>,
    password: Option<(String, String)>,
    errors: Errors,
    add: AddForm,
    /// A refused change form: (username, its typed values).
    change: Option<(String, ChangeForm)>,
}

fn state_of(a: &Account) -> &'static str {
    match (a.active, a.must_change_password) {
        (false, _) => "deactivated",
        (true, true) => "must change password",
        (true, false) => "active",
    }
}

/// The id of the field an error of `errors` belongs to, for the summary's link.
fn target(errors: &Errors) -> String {
    if errors.form == "add" {
        match errors.field.as_str() {
            "" => "add-user".into(),
            field => format!("add-{field}"),
        }
    } else if errors.field.is_empty() {
        errors.form.clone()
    } else {
        format!("{}-{}", errors.form, errors.field)
    }
}

async fn render(state: &AppState, who: &Authed, shown: Shown) -> Result<HttpResponse, PageError> {
    let accounts = users::list(&state.db, &who.user).await?;
    let all_leagues = leagues::all_leagues(&state.db).await?;
    let users = accounts
        .into_iter()
        .map(|a| {
            let typed = shown
                .change
                .as_ref()
                .filter(|(name, _)| *name == a.username)
                .map(|(_, typed)| typed.clone());
            let ChangeForm { role, email } = typed.unwrap_or_else(|| ChangeForm {
                role: a.role.as_str().to_string(),
                email: a.email.clone().unwrap_or_default(),
            });
            UserLine {
                state: state_of(&a),
                role: a.role.as_str(),
                last_login: a.last_login_at.map(stamp),
                campus_login: a.campus_login_at.map(stamp),
                active: a.active,
                email: a.email.unwrap_or_default(),
                leagues: a.leagues,
                username: a.username,
                form_role: role,
                form_email: email,
            }
        })
        .collect();
    let leagues = all_leagues
        .into_iter()
        .map(|l| {
            let slug = l.row.slug.to_string();
            LeagueChoice {
                ticked: shown.add.leagues.contains(&slug),
                slug,
                name: l.row.name,
            }
        })
        .collect();
    let status = shown.errors.status();
    let page = UsersPage {
        nav: who.nav(),
        users,
        leagues,
        add: shown.add,
        message: shown.message,
        password: shown.password,
        error_target: target(&shown.errors),
        errors: shown.errors,
        mail_on: state.mailer.is_some(),
    };
    Ok(no_store(html(status, page.render()?)))
}

#[get("/admin/users")]
pub(super) async fn users_page(
    state: web::Data<AppState>,
    Admin(who): Admin,
) -> Result<HttpResponse, PageError> {
    render(&state, &who, Shown::default()).await
}

/// "Reset the password of kim?": what a reset does, and the buttons that do it (shown,
/// or emailed when the server has a relay and the account an address).
#[derive(Template)]
#[template(path = "admin/user_reset.html")]
struct ResetPage {
    nav: Nav,
    username: String,
    mail_on: bool,
    can_email: bool,
}

#[get("/admin/users/{username}/reset-password")]
pub(super) async fn reset_form(
    state: web::Data<AppState>,
    Admin(who): Admin,
    username: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let account = users::get(&state.db, &who.user, &username).await?;
    let mail_on = state.mailer.is_some();
    private_page(
        StatusCode::OK,
        ResetPage {
            nav: who.nav(),
            can_email: mail_on && account.email.is_some(),
            mail_on,
            username: account.username,
        },
    )
}

/// A role as the forms send it ("admin" or "supervisor"), else the error by `field`.
fn role_of(text: &str, form: &str) -> Result<Role, Errors> {
    Role::parse(text).map_err(|_| Errors::new(form, "role", "choose admin or supervisor"))
}

/// The ticked leagues as slugs (a slug that does not read is no league: said by the field).
fn slugs_of(texts: &[String]) -> Result<Vec<Slug>, Errors> {
    texts
        .iter()
        .map(|t| {
            t.parse::<Slug>()
                .map_err(|_| Errors::new("add", "leagues", format!("there is no league \"{t}\"")))
        })
        .collect()
}

/// Adds an account; the answer shows its one-time password once.
#[post("/admin/users")]
pub(super) async fn add_user(
    state: web::Data<AppState>,
    Admin(who): Admin,
    CsrfForm(fields): CsrfForm<Vec<(String, String)>>,
) -> Result<HttpResponse, PageError> {
    let form = AddForm::of(fields);
    let checked = role_of(&form.role, "add").and_then(|role| Ok((role, slugs_of(&form.leagues)?)));
    let (role, slugs) = match checked {
        Ok(checked) => checked,
        Err(errors) => return refused_add(&state, &who, form, errors).await,
    };
    let new = NewAccount {
        username: form.username.trim().to_string(),
        role,
        email: Some(form.email.clone()),
        deliver: None,
    };
    let by = delivery(&state, form.deliver == "email");
    match users::add(&state.db, Some(&who.user), &new, &slugs, by).await {
        Ok((account, handed)) => {
            let added = format!("{} added ({}).", account.username, role.as_str());
            render(&state, &who, handed_over(added, account.username, handed)).await
        }
        Err(e) if fixable(&e) => {
            let errors = Errors::of("add", &["username", "role", "email", "leagues"], &e);
            refused_add(&state, &who, form, errors).await
        }
        Err(e) => Err(e.into()),
    }
}

async fn refused_add(
    state: &AppState,
    who: &Authed,
    add: AddForm,
    errors: Errors,
) -> Result<HttpResponse, PageError> {
    render(
        state,
        who,
        Shown {
            errors,
            add,
            ..Shown::default()
        },
    )
    .await
}

/// A change refused by the service, by its field: a `last_admin` refusal goes by the field
/// that asked for it (`role`, or the deactivate button's `active`).
fn change_errors(form: &str, last_admin_field: &str, e: &ServiceError) -> Errors {
    match e {
        ServiceError::Conflict { code, message } if *code == ErrorCode::LastAdmin => {
            Errors::new(form, last_admin_field, message.clone())
        }
        e => Errors::of(form, &["role", "email"], e),
    }
}

/// Changes an account's role and email.
#[post("/admin/users/{username}")]
pub(super) async fn change_user(
    state: web::Data<AppState>,
    Admin(who): Admin,
    username: web::Path<String>,
    CsrfForm(form): CsrfForm<ChangeForm>,
) -> Result<HttpResponse, PageError> {
    let key = format!("user-{username}");
    let refused = match role_of(&form.role, &key) {
        Err(errors) => Some(errors),
        Ok(role) => {
            let change = AccountChange {
                role: Some(role),
                email: Some(form.email.clone()),
                ..AccountChange::default()
            };
            match users::change(&state.db, Some(&who.user), &username, &change).await {
                Ok(()) => None,
                Err(e) if fixable(&e) => Some(change_errors(&key, "role", &e)),
                Err(e) => return Err(e.into()),
            }
        }
    };
    let shown = match refused {
        None => Shown {
            message: Some(format!("{username} saved.")),
            ..Shown::default()
        },
        Some(errors) => Shown {
            errors,
            change: Some((username.to_string(), form)),
            ..Shown::default()
        },
    };
    render(&state, &who, shown).await
}

/// Deactivates ("0": its sessions end and its tokens are revoked at once) or reactivates
/// ("1") an account.
#[post("/admin/users/{username}/active")]
pub(super) async fn set_active(
    state: web::Data<AppState>,
    Admin(who): Admin,
    username: web::Path<String>,
    CsrfForm(form): CsrfForm<ActiveForm>,
) -> Result<HttpResponse, PageError> {
    let active = form.active == "1";
    let change = AccountChange {
        active: Some(active),
        ..AccountChange::default()
    };
    let shown = match users::change(&state.db, Some(&who.user), &username, &change).await {
        Ok(()) if active => Shown {
            message: Some(format!("{username} reactivated.")),
            ..Shown::default()
        },
        Ok(()) => Shown {
            message: Some(format!(
                "{username} deactivated: logged out everywhere, API tokens revoked."
            )),
            ..Shown::default()
        },
        Err(e) if fixable(&e) => Shown {
            errors: change_errors(&format!("user-{username}"), "active", &e),
            ..Shown::default()
        },
        Err(e) => return Err(e.into()),
    };
    render(&state, &who, shown).await
}

/// Gives an account a new one-time password, shown once on the answer.
#[post("/admin/users/{username}/reset-password")]
pub(super) async fn reset_password(
    state: web::Data<AppState>,
    Admin(who): Admin,
    username: web::Path<String>,
    CsrfForm(form): CsrfForm<ResetForm>,
) -> Result<HttpResponse, PageError> {
    let by = delivery(&state, form.deliver == "email");
    let handed = match users::reset_password(&state.db, Some(&who.user), &username, by).await {
        Ok(handed) => handed,
        Err(e) if fixable(&e) => {
            let shown = Shown {
                errors: Errors::of(&format!("user-{username}"), &["email"], &e),
                ..Shown::default()
            };
            return render(&state, &who, shown).await;
        }
        Err(e) => return Err(e.into()),
    };
    let done =
        format!("{username}: new one-time password; logged out everywhere, API tokens revoked.");
    render(
        &state,
        &who,
        handed_over(done, username.to_string(), handed),
    )
    .await
}

/// How the page asks for a one-time password: by email when ticked.
fn delivery(state: &AppState, email: bool) -> Delivery<'_> {
    if email {
        Delivery::Email(state.mailer.as_ref())
    } else {
        Delivery::Shown
    }
}

/// The answer after a one-time password was given: `done`, and the password shown once, or
/// where it was emailed; a message that did not go says why, with the password shown.
fn handed_over(done: String, username: String, handed: Handed) -> Shown {
    match handed {
        Handed::Emailed => Shown {
            message: Some(format!(
                "{done} The password was emailed to them; nobody else sees it."
            )),
            ..Shown::default()
        },
        Handed::Shown { password, unsent } => Shown {
            message: Some(match unsent {
                Some(why) => {
                    format!("{done} The email did not go ({why}): hand over the password below.")
                }
                None => done,
            }),
            password: Some((username, password)),
            ..Shown::default()
        },
    }
}
