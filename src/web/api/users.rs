//! Accounts in the JSON API (docs/api.md §13): admins list, add and change users and reset
//! their passwords. A one-time password is in the answer's body only, never in a header,
//! a URL or a log line.

use actix_web::{HttpResponse, get, patch, post, web};
use serde::{Deserialize, Serialize};

use crate::service::people::users::{
    self, Account, AccountChange, Deliver, Delivery, Handed, NewAccount,
};
use crate::web::AppState;
use crate::web::api::responses::{AdminOnly, BodyRefused, Unauthenticated};
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::{Admin, ApiJson};

/// Every route: all are for admins, none is cached.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(list_users)
        .service(add_user)
        .service(change_user)
        .service(reset_password);
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct UserList {
    users: Vec<Account>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct NewUserOut {
    user: Account,
    #[serde(flatten)]
    handed: PasswordOut,
}

/// Where a one-time password went.
#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct PasswordOut {
    /// The one-time password, shown this once (it logs in to the password change only);
    /// `null` when it was emailed.
    // Always sent (as `null` too): required in the schema, and nullable.
    #[schema(required = true)]
    password: Option<String>,
    /// It went only to the account's email (`"deliver": "email"`); `false` when it is shown,
    /// also when the message asked for did not go (`unsent` says why).
    emailed: bool,
    /// Why the message asked for did not go; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    unsent: Option<String>,
}

impl From<Handed> for PasswordOut {
    fn from(handed: Handed) -> Self {
        match handed {
            Handed::Shown { password, unsent } => PasswordOut {
                password: Some(password),
                emailed: false,
                unsent,
            },
            Handed::Emailed => PasswordOut {
                password: None,
                emailed: true,
                unsent: None,
            },
        }
    }
}

/// The body of a password reset: an empty object, or `{"deliver": "email"}`.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResetRequest {
    #[serde(default)]
    deliver: Option<Deliver>,
}

fn delivery(state: &AppState, deliver: Option<Deliver>) -> Delivery<'_> {
    match deliver {
        Some(Deliver::Email) => Delivery::Email(state.mailer.as_ref()),
        None => Delivery::Shown,
    }
}

/// Every account, by username (admin).
#[utoipa::path(
    get,
    path = "/api/v1/users",
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "every account", body = UserList),
        Unauthenticated,
        AdminOnly,
    )
)]
#[get("/api/v1/users")]
async fn list_users(
    state: web::Data<AppState>,
    Admin(who): Admin,
) -> Result<HttpResponse, AppError> {
    let users = users::list(&state.db, &who.user).await?;
    Ok(HttpResponse::Ok().json(UserList { users }))
}

/// Adds an account with a one-time password (admin).
#[utoipa::path(
    post,
    path = "/api/v1/users",
    tag = "accounts",
    request_body = NewAccount,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "the new account and its one-time password, or `emailed: true` when it went only to the account's email", body = NewUserOut),
        (status = 409, description = "`deliver: email` on a server without a mail relay (`mail_not_configured`)", body = ErrorBody),
        (status = 422, description = "a bad username (`invalid_user`) or email (`invalid_email`; also no email with `deliver: email`), a username or email taken (`username_taken`, `email_taken`), or a body of the wrong shape", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/users")]
async fn add_user(
    state: web::Data<AppState>,
    Admin(who): Admin,
    body: ApiJson<NewAccount>,
) -> Result<HttpResponse, AppError> {
    let new = body.into_inner()?;
    let by = delivery(&state, new.deliver);
    let (user, handed) = users::add(&state.db, Some(&who.user), &new, &[], by).await?;
    Ok(HttpResponse::Created().json(NewUserOut {
        user,
        handed: handed.into(),
    }))
}

/// Changes an account's role, state or email (admin); deactivating it ends its sessions and
/// revokes its tokens.
#[utoipa::path(
    patch,
    path = "/api/v1/users/{username}",
    tag = "accounts",
    params(("username" = String, Path, description = "the account's username (any case)")),
    request_body = AccountChange,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the account as changed", body = Account),
        (status = 404, description = "no such account", body = ErrorBody),
        (status = 409, description = "the last active admin would be deactivated or made a supervisor (`last_admin`)", body = ErrorBody),
        (status = 422, description = "a bad email (`invalid_email`), an email taken (`email_taken`), or a body of the wrong shape", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[patch("/api/v1/users/{username}")]
async fn change_user(
    state: web::Data<AppState>,
    Admin(who): Admin,
    username: web::Path<String>,
    body: ApiJson<AccountChange>,
) -> Result<HttpResponse, AppError> {
    let change = body.into_inner()?;
    users::change(&state.db, Some(&who.user), &username, &change).await?;
    Ok(HttpResponse::Ok().json(users::get(&state.db, &who.user, &username).await?))
}

/// Gives an account a new one-time password (admin), ending its sessions and revoking its
/// tokens.
#[utoipa::path(
    post,
    path = "/api/v1/users/{username}/reset-password",
    tag = "accounts",
    params(("username" = String, Path, description = "the account's username (any case)")),
    request_body = ResetRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the one-time password, or `emailed: true` when it went only to the account's email", body = PasswordOut),
        (status = 404, description = "no such account", body = ErrorBody),
        (status = 409, description = "`deliver: email` on a server without a mail relay (`mail_not_configured`)", body = ErrorBody),
        (status = 422, description = "a body other than `{}` or `{\"deliver\": \"email\"}`, or `deliver: email` for an account without an email (`invalid_email` on `email`)", body = ErrorBody),
        BodyRefused,
        Unauthenticated,
        AdminOnly,
    )
)]
#[post("/api/v1/users/{username}/reset-password")]
async fn reset_password(
    state: web::Data<AppState>,
    Admin(who): Admin,
    username: web::Path<String>,
    body: ApiJson<ResetRequest>,
) -> Result<HttpResponse, AppError> {
    let ResetRequest { deliver } = body.into_inner()?;
    let by = delivery(&state, deliver);
    let handed = users::reset_password(&state.db, Some(&who.user), &username, by).await?;
    Ok(HttpResponse::Ok().json(PasswordOut::from(handed)))
}
