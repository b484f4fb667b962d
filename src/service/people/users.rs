//! Accounts the coordinator manages (docs/api.md §13): list them, add one with a one-time
//! password, change its role, state or email, reset its password. Every change is one
//! transaction with its audit row (never a password or a hash in it). Deactivating an
//! account or resetting its password ends its sessions and revokes its API tokens in that
//! transaction, so its next request is refused. The last active admin stays one.

use serde::{Deserialize, Serialize};

use crate::db::{Db, Tx, leagues as db_leagues, users};
use crate::domain::{ErrorCode, Role, Slug, TextEnum, Timestamp, UserId};
use crate::service::notices::password_mail::{Mailer, Occasion};
use crate::service::people::accounts::{
    NewUser, email_schema, hash_off_thread, insert_user, random_hex, refuse_taken_email,
    validate_email, validate_username,
};
use crate::service::{ServiceError, User, audit, require_admin};

/// An account as admins see it (the API's `User`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Account {
    pub username: String,
    pub role: Role,
    pub active: bool,
    /// The password is a one-time password: the user must change it before anything else.
    pub must_change_password: bool,
    /// The slugs of the leagues the user supervises.
    pub leagues: Vec<String>,
    pub last_login_at: Option<Timestamp>,
    /// The last sign-in through the campus identity provider (OpenID Connect).
    pub campus_login_at: Option<Timestamp>,
    /// Personal data: admins only.
    pub email: Option<String>,
}

impl Account {
    fn of(row: users::UserRow, leagues: Vec<String>) -> Account {
        Account {
            username: row.username,
            role: row.role,
            active: row.active,
            must_change_password: row.must_change_password,
            leagues,
            last_login_at: row.last_login_at,
            campus_login_at: row.campus_login_at,
            email: row.email,
        }
    }
}

/// A new account: its username, role and (optional) email.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewAccount {
    /// 2 to 40 letters, digits, '.', '_' or '-'.
    #[schema(pattern = r"^[A-Za-z0-9._-]{2,40}$")]
    pub username: String,
    pub role: Role,
    /// The account's email (`new_account_email_schema`).
    #[schema(schema_with = new_account_email_schema)]
    #[serde(default)]
    pub email: Option<String>,
    /// `email`: the one-time password goes only to the account's email (the answer's
    /// `password` is `null`); absent: it is in the answer.
    #[serde(default)]
    pub deliver: Option<Deliver>,
}

/// How a one-time password is asked to be handed over: `email` sends it only to the
/// account's email (needs a mail relay: 409 `mail_not_configured`; an account without an
/// email: 422 on `email`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Deliver {
    Email,
}

fn new_account_email_schema() -> utoipa::openapi::schema::Schema {
    email_schema("At most 254 characters: one '@' between a name and a domain, no spaces.")
}

/// What to change on an account; a field left out stays as it is. An empty `email` removes it.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AccountChange {
    #[serde(default)]
    pub role: Option<Role>,
    #[serde(default)]
    pub active: Option<bool>,
    /// The new email, or an empty text to remove it (`account_change_email_schema`).
    #[schema(schema_with = account_change_email_schema)]
    #[serde(default)]
    pub email: Option<String>,
}

fn account_change_email_schema() -> utoipa::openapi::schema::Schema {
    email_schema(
        "An empty text removes the email.\nOr at most 254 characters: one '@' between a name and a domain, no spaces.",
    )
}

/// Every account, by username (admins).
pub async fn list(db: &Db, by: &User) -> Result<Vec<Account>, ServiceError> {
    require_admin(by)?;
    all(db).await
}

/// Every account, by username, for the command line (whoever runs it owns the database).
pub async fn all(db: &Db) -> Result<Vec<Account>, ServiceError> {
    let mut conn = db.read().await?;
    let rows = users::all(&mut conn).await?;
    let slugs = users::league_slugs(&mut conn).await?;
    Ok(rows
        .into_iter()
        .map(|row| {
            let leagues = slugs
                .iter()
                .filter(|(id, _)| *id == row.id)
                .map(|(_, slug)| slug.clone())
                .collect();
            Account::of(row, leagues)
        })
        .collect())
}

/// One account (admins); `NotFound` when there is none by that name.
pub async fn get(db: &Db, by: &User, username: &str) -> Result<Account, ServiceError> {
    list(db, by)
        .await?
        .into_iter()
        .find(|a| a.username.eq_ignore_ascii_case(username))
        .ok_or(ServiceError::NotFound)
}

/// A one-time password: 16 hex digits (64 random bits), shown once.
fn one_time_password() -> String {
    random_hex(8)
}

/// The email as stored: `None` for none (an empty text removes it), else checked.
fn email_of(email: Option<&str>) -> Result<Option<&str>, ServiceError> {
    match email.map(str::trim) {
        None | Some("") => Ok(None),
        Some(email) => validate_email(email).map(|()| Some(email)),
    }
}

/// How the one-time password of a new account or a reset reaches its person.
#[derive(Clone, Copy)]
pub enum Delivery<'a> {
    /// In the answer, for the admin to hand over.
    Shown,
    /// Only in a message to the account's email (`None`: no mail relay is configured).
    Email(Option<&'a Mailer>),
}

/// Where a one-time password went.
#[derive(Debug)]
pub enum Handed {
    /// In the answer; `unsent` says why the message asked for did not go (the password is
    /// then shown instead, so the account is not left with a password nobody has).
    Shown {
        password: String,
        unsent: Option<String>,
    },
    /// In a message to the account's email; nobody else saw it.
    Emailed,
}

impl Handed {
    /// The password when it is shown (`None`: it was emailed).
    pub fn shown(&self) -> Option<&str> {
        match self {
            Handed::Shown { password, .. } => Some(password),
            Handed::Emailed => None,
        }
    }
}

/// The relay a delivery by email goes through, checked before anything is written: 409
/// without one configured, 422 on `email` for an account without an address.
fn mailer_for<'a>(
    delivery: Delivery<'a>,
    email: Option<&str>,
) -> Result<Option<&'a Mailer>, ServiceError> {
    let Delivery::Email(mailer) = delivery else {
        return Ok(None);
    };
    let mailer = mailer.ok_or_else(|| {
        ServiceError::conflict(
            ErrorCode::MailNotConfigured,
            "this server sends no email (no mail relay is configured): show the password instead",
        )
    })?;
    if email.is_none() {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidEmail,
            "email",
            "the account has no email to send the password to: give it one, or show the password",
        ));
    }
    Ok(Some(mailer))
}

/// Hands `password` over as `mailer` says: by email when there is one, else in the answer
/// (also when the message does not go: logged, without the password or the address).
async fn hand_over(
    mailer: Option<&Mailer>,
    (email, username): (Option<&str>, &str),
    password: String,
    occasion: Occasion,
) -> Handed {
    let (Some(mailer), Some(email)) = (mailer, email) else {
        return Handed::Shown {
            password,
            unsent: None,
        };
    };
    match mailer
        .send_password(email, username, &password, occasion)
        .await
    {
        Ok(()) => Handed::Emailed,
        Err(why) => {
            tracing::warn!(%why, "a one-time password was not emailed: it is shown instead");
            Handed::Shown {
                password,
                unsent: Some(why),
            }
        }
    }
}

/// Adds an account with a one-time password (admins, or `None` from the command line),
/// assigning a supervisor to `leagues` in the same transaction; returns it and where the
/// password went. It is never stored in clear.
#[tracing::instrument(skip_all, fields(role = new.role.as_str()))]
pub async fn add(
    db: &Db,
    by: Option<&User>,
    new: &NewAccount,
    leagues: &[Slug],
    delivery: Delivery<'_>,
) -> Result<(Account, Handed), ServiceError> {
    if let Some(by) = by {
        require_admin(by)?;
    }
    validate_username(&new.username)?;
    let email = email_of(new.email.as_deref())?;
    let mailer = mailer_for(delivery, email)?;
    if new.role == Role::Admin && !leagues.is_empty() {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidInput,
            "leagues",
            "an admin runs every league: leagues are chosen for a supervisor only",
        ));
    }
    let password = one_time_password();
    let hash = hash_off_thread(password.clone()).await?;
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let user = NewUser {
        username: &new.username,
        role: new.role,
        email,
        must_change_password: true,
    };
    let made = insert_user(&mut tx, by, &user, &hash, now).await?;
    for slug in leagues {
        assign(&mut tx, by, slug, &made, now).await?;
    }
    let mut account = stored(&mut tx, made.id).await?;
    tx.commit().await?;
    account.leagues = leagues.iter().map(Slug::to_string).collect();
    account.leagues.sort();
    let to = (account.email.as_deref(), account.username.as_str());
    let handed = hand_over(mailer, to, password, Occasion::NewAccount).await;
    Ok((account, handed))
}

/// Makes the new supervisor `user` supervise the league `slug`, with its audit row as
/// `leagues::assign_supervisor` writes it.
async fn assign(
    tx: &mut Tx,
    by: Option<&User>,
    slug: &Slug,
    user: &User,
    now: Timestamp,
) -> Result<(), ServiceError> {
    let league = db_leagues::by_slug(tx, slug).await?.ok_or_else(|| {
        ServiceError::invalid(
            ErrorCode::InvalidInput,
            "leagues",
            format!("there is no league \"{slug}\""),
        )
    })?;
    db_leagues::assign_supervisor(tx, league.id, user.id).await?;
    let entry = audit::Change::new("assign_supervisor", audit::Subject::League(league.id))
        .after(&user.username);
    audit::record_by(tx, by, now, entry).await?;
    Ok(())
}

/// The account `id` as stored now, inside `tx` (a new account supervises no league yet;
/// a changed one keeps its leagues, read after the commit by [`get`]).
async fn stored(tx: &mut Tx, id: UserId) -> Result<Account, ServiceError> {
    let row = users::by_id(tx, id).await?.ok_or(ServiceError::NotFound)?;
    Ok(Account::of(row, Vec::new()))
}

/// Changes `username`'s role, state or email (admins, or `None` from the command line).
/// Deactivating ends its sessions and revokes its tokens; the last active admin can be
/// neither deactivated nor made a supervisor (409 `last_admin`).
#[tracing::instrument(skip_all)]
pub async fn change(
    db: &Db,
    by: Option<&User>,
    username: &str,
    change: &AccountChange,
) -> Result<(), ServiceError> {
    if let Some(by) = by {
        require_admin(by)?;
    }
    let new_email = change
        .email
        .as_deref()
        .map(|e| email_of(Some(e)))
        .transpose()?;
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let row = users::by_name(&mut tx, username)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let role = change.role.unwrap_or(row.role);
    let active = change.active.unwrap_or(row.active);
    let email = new_email.unwrap_or(row.email.as_deref());
    let stays_admin = role == Role::Admin && active;
    if row.role == Role::Admin && row.active && !stays_admin {
        refuse_last_admin(&mut tx).await?;
    }
    if let Some(email) = email {
        refuse_taken_email(&mut tx, email, Some(row.id)).await?;
    }
    users::set_account(&mut tx, row.id, role, active, email).await?;
    if row.active && !active {
        end_access(&mut tx, row.id, now).await?;
    }
    let subject = audit::Subject::User(row.id);
    let mut changed = Vec::new();
    if row.role != role {
        changed.push(("set_role", row.role.as_str(), role.as_str()));
    }
    if row.active != active {
        changed.push(("set_active", state(row.active), state(active)));
    }
    // The email itself is personal data: the audit says that it changed, not to what.
    if row.email.as_deref() != email {
        changed.push(("set_email", present(row.email.as_deref()), present(email)));
    }
    for (action, before, after) in changed {
        let entry = audit::Change::new(action, subject)
            .before(before)
            .after(after);
        audit::record_by(&mut tx, by, now, entry).await?;
    }
    tx.commit().await?;
    Ok(())
}

fn state(active: bool) -> &'static str {
    if active { "active" } else { "deactivated" }
}

fn present(email: Option<&str>) -> &'static str {
    if email.is_some() {
        "an email"
    } else {
        "no email"
    }
}

/// Refuses taking the last active admin away (409 `last_admin`): nobody could manage the
/// accounts then. Counted inside the write transaction, which holds the store's write lock.
async fn refuse_last_admin(tx: &mut Tx) -> Result<(), ServiceError> {
    if users::count_active_admins(tx).await? <= 1 {
        return Err(ServiceError::conflict(
            ErrorCode::LastAdmin,
            "this is the last active admin: make another account an admin first",
        ));
    }
    Ok(())
}

/// Ends every session of the user and revokes every token, inside the change's transaction.
async fn end_access(tx: &mut Tx, id: UserId, now: Timestamp) -> Result<(), ServiceError> {
    users::delete_sessions_of(tx, id).await?;
    users::revoke_tokens_of(tx, id, now).await?;
    Ok(())
}

/// Gives `username` a new one-time password (admins, or `None` from the command line),
/// ending its sessions and revoking its tokens; returns where the password went.
#[tracing::instrument(skip_all)]
pub async fn reset_password(
    db: &Db,
    by: Option<&User>,
    username: &str,
    delivery: Delivery<'_>,
) -> Result<Handed, ServiceError> {
    if let Some(by) = by {
        require_admin(by)?;
    }
    let password = one_time_password();
    let hash = hash_off_thread(password.clone()).await?;
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let row = users::by_name(&mut tx, username)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let mailer = mailer_for(delivery, row.email.as_deref())?;
    users::set_password_once(&mut tx, row.id, &hash, true).await?;
    end_access(&mut tx, row.id, now).await?;
    let entry = audit::Change::new("reset_password", audit::Subject::User(row.id));
    audit::record_by(&mut tx, by, now, entry).await?;
    tx.commit().await?;
    let to = (row.email.as_deref(), row.username.as_str());
    Ok(hand_over(mailer, to, password, Occasion::Reset).await)
}
