//! Accounts: argon2id passwords, server-side sessions, hashed API tokens.

use crate::domain::ErrorCode;
use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use sha2::{Digest, Sha256};

use crate::db::{Db, Tx, users};
use crate::domain::{Role, TextEnum, Timestamp, TokenId, UserId};
use crate::service::text::{Lines, TOKEN_NAME_MAX, TextRule};
use crate::service::{ServiceError, User, audit};

/// How long a login lasts.
pub const SESSION_HOURS: i64 = 12;

/// `n` random bytes as lowercase hex.
// Without the OS's random source no secret can be made safely: stopping is the only answer.
#[allow(clippy::expect_used)]
pub fn random_hex(n: usize) -> String {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).expect("the operating system's random source failed");
    hex(&bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 of a random secret (session id, API token): what is stored.
pub fn secret_hash(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

/// argon2id with the crate's defaults (OWASP's minimum). Slow on purpose: call it off the
/// async workers.
// As `random_hex`; argon2 with its default parameters and a 16-byte salt cannot fail.
#[allow(clippy::expect_used)]
pub fn hash_password(password: &str) -> String {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).expect("the operating system's random source failed");
    let salt = SaltString::encode_b64(&salt).expect("16 bytes is a valid salt");
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .expect("argon2 hashing with default parameters")
}

pub fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash)
        .map(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
        .unwrap_or(false)
}

/// A hash to verify against when the user does not exist, so both answers take as long.
/// Made once, off the async workers (the first logins to need it wait for it together).
pub async fn dummy_hash() -> Result<&'static str, ServiceError> {
    static DUMMY: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    DUMMY
        .get_or_try_init(|| hash_off_thread("no such user, no such password".into()))
        .await
        .map(String::as_str)
}

pub fn validate_username(name: &str) -> Result<(), ServiceError> {
    let ok = (2..=40).contains(&name.chars().count())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(ServiceError::invalid(
            ErrorCode::InvalidUser,
            "username",
            "a username is 2 to 40 letters, digits, '.', '_' or '-'",
        ))
    }
}

/// The most characters an email has (RFC 5321's limit).
pub const EMAIL_MAX_CHARS: usize = 254;

/// What [`validate_email`] accepts, or an empty text, as the OpenAPI document states it.
pub const EMAIL_PATTERN: &str = r"^(|[^@\s\x00-\x1f\x7f-\x9f]+@[^@\s\x00-\x1f\x7f-\x9f]+)$";

/// The OpenAPI schema of an optional email field (text or `null`) with its `description`:
/// every email of the API is held to [`EMAIL_PATTERN`] and [`EMAIL_MAX_CHARS`] here.
pub fn email_schema(description: &str) -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .description(Some(description))
        .max_length(Some(EMAIL_MAX_CHARS))
        .pattern(Some(EMAIL_PATTERN))
        .build()
        .into()
}

/// An email, checked loosely: one `@` between two non-empty parts, no spaces or control
/// characters, at most 254 characters (RFC 5321's limit). The message never repeats it:
/// an email is personal data.
pub fn validate_email(email: &str) -> Result<(), ServiceError> {
    let parts: Vec<&str> = email.split('@').collect();
    let ok = email.chars().count() <= EMAIL_MAX_CHARS
        && parts.len() == 2
        && parts.iter().all(|p| !p.is_empty())
        && !email.chars().any(|c| c.is_whitespace() || c.is_control());
    if ok {
        Ok(())
    } else {
        Err(ServiceError::invalid(
            ErrorCode::InvalidEmail,
            "email",
            "an email is one '@' between a name and a domain, with no spaces, at most 254 characters",
        ))
    }
}

/// Refuses `email` when an account other than `except` has it (whatever its case).
pub(in crate::service) async fn refuse_taken_email(
    tx: &mut Tx,
    email: &str,
    except: Option<UserId>,
) -> Result<(), ServiceError> {
    match users::by_email(tx, email).await? {
        Some(other) if Some(other.id) != except => Err(ServiceError::invalid(
            ErrorCode::EmailTaken,
            "email",
            "another account has this email",
        )),
        _ => Ok(()),
    }
}

pub fn validate_password(password: &str) -> Result<(), ServiceError> {
    if password.chars().count() < 10 {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidPassword,
            "password",
            "a password is at least 10 characters",
        ));
    }
    Ok(())
}

fn user_of(row: users::UserRow) -> User {
    User {
        id: row.id,
        username: row.username,
        role: row.role,
    }
}

/// Creates a user with `password`, by the admin `by` (none from the command line or at the
/// first start).
#[tracing::instrument(skip_all, fields(role = role.as_str()))]
pub async fn create_user(
    db: &Db,
    by: Option<&User>,
    username: &str,
    role: Role,
    password: &str,
) -> Result<User, ServiceError> {
    let now = db.clock().now();
    validate_username(username)?;
    validate_password(password)?;
    let password = password.to_string();
    let hash = hash_off_thread(password).await?;
    let mut tx = db.write().await?;
    let new = NewUser {
        username,
        role,
        email: None,
        must_change_password: false,
    };
    let user = insert_user(&mut tx, by, &new, &hash, now).await?;
    tx.commit().await?;
    Ok(user)
}

/// [`hash_password`] on a blocking thread: argon2 takes tens of milliseconds of CPU on
/// purpose, and on an async worker it would hold up every request that worker serves.
pub(in crate::service) async fn hash_off_thread(password: String) -> Result<String, ServiceError> {
    tokio::task::spawn_blocking(move || hash_password(&password))
        .await
        .map_err(|e| ServiceError::corrupt("password hashing", e))
}

/// [`verify_password`] on a blocking thread, as [`hash_off_thread`].
async fn verify_off_thread(password: &str, hash: String) -> Result<bool, ServiceError> {
    let password = password.to_string();
    tokio::task::spawn_blocking(move || verify_password(&password, &hash))
        .await
        .map_err(|e| ServiceError::corrupt("password checking", e))
}

/// A user about to be stored (its username and email already checked for form).
pub(in crate::service) struct NewUser<'a> {
    pub username: &'a str,
    pub role: Role,
    pub email: Option<&'a str>,
    pub must_change_password: bool,
}

/// Adds `new` with the password hash `hash`, with its audit row, inside the write
/// transaction `tx`; refuses a username or an email that is taken.
pub(in crate::service) async fn insert_user(
    tx: &mut Tx,
    by: Option<&User>,
    new: &NewUser<'_>,
    hash: &str,
    now: Timestamp,
) -> Result<User, ServiceError> {
    let NewUser { username, role, .. } = *new;
    if users::by_name(tx, username).await?.is_some() {
        return Err(ServiceError::invalid(
            ErrorCode::UsernameTaken,
            "username",
            format!("the username \"{username}\" is taken"),
        ));
    }
    if let Some(email) = new.email {
        refuse_taken_email(tx, email, None).await?;
    }
    let id = users::insert(
        tx,
        username,
        hash,
        role,
        new.email,
        new.must_change_password,
        now,
    )
    .await?;
    let after = format!("{username} ({})", role.as_str());
    audit::record_by(
        tx,
        by,
        now,
        audit::Change::new("create", audit::Subject::User(id)).after(&after),
    )
    .await?;
    Ok(User {
        id,
        username: username.to_string(),
        role,
    })
}

/// Checks a username and password; `None` for either wrong (same answer, similar time).
#[tracing::instrument(skip_all)]
pub async fn check_login(
    db: &Db,
    username: &str,
    password: &str,
) -> Result<Option<User>, ServiceError> {
    let mut conn = db.read().await?;
    let row = users::by_name(&mut conn, username).await?;
    drop(conn);
    let hash = match &row {
        Some(r) => r.password_hash.clone(),
        None => dummy_hash().await?.to_string(),
    };
    let ok = verify_off_thread(password, hash).await?;
    // A deactivated account gets the answer of a wrong password, after the same work.
    Ok(row.filter(|r| ok && r.active).map(user_of))
}

/// The active user whose email is `email` (a campus sign-in's, ASCII case aside), with the
/// time of this campus sign-in kept for the users page; `None` for no such user or a
/// deactivated one. A sign-in never makes an account.
///
/// A one-time password still waiting to be changed is void once its holder got in through
/// the provider: it was only ever a way in for the first time, and the coordinator who read
/// it out knows it. Its holder is not sent to choose a password they may never use.
pub async fn campus_user(db: &Db, email: &str) -> Result<Option<User>, ServiceError> {
    let mut conn = db.read().await?;
    let found = users::by_email(&mut conn, email).await?;
    drop(conn);
    let Some(row) = found.filter(|r| r.active) else {
        return Ok(None);
    };
    let void = match row.must_change_password {
        true => Some(hash_off_thread(random_hex(32)).await?),
        false => None,
    };
    let mut tx = db.write().await?;
    // Read again in the write: deactivated meanwhile is refused all the same.
    let Some(row) = users::by_email(&mut tx, email).await?.filter(|r| r.active) else {
        return Ok(None);
    };
    let now = db.clock().now();
    let user = user_of(row.clone());
    if let Some(hash) = void.as_ref().filter(|_| row.must_change_password) {
        users::set_password_once(&mut tx, row.id, hash, false).await?;
        // The sessions the one-time password opened (held to the password change) end
        // with it: whoever else knew it must not keep a session freed of that hold.
        users::delete_sessions_of(&mut tx, row.id).await?;
        let change = audit::Change::new("void_one_time_password", audit::Subject::User(user.id));
        audit::record(&mut tx, &user, now, change).await?;
    }
    users::set_campus_login(&mut tx, row.id, now).await?;
    tx.commit().await?;
    Ok(Some(user))
}

/// A new session: returns the session id (for the cookie) and its CSRF token.
pub async fn open_session(db: &Db, user: &User) -> Result<(String, String), ServiceError> {
    let now = db.clock().now();
    let id = random_hex(32);
    let csrf = random_hex(32);
    let created = now;
    let expires = created.plus_minutes(SESSION_HOURS * 60);
    let mut tx = db.write().await?;
    users::insert_session(&mut tx, &secret_hash(&id), user.id, &csrf, created, expires).await?;
    users::set_last_login(&mut tx, user.id, now).await?;
    tx.commit().await?;
    Ok((id, csrf))
}

/// A live browser session.
#[derive(Debug, Clone)]
pub struct LiveSession {
    pub user: User,
    pub csrf: String,
    /// The user logged in with a one-time password and must choose their own first.
    pub must_change_password: bool,
}

/// The user and CSRF token of a live session. A session seen expired is deleted: a clock
/// set back later (by hand, or by a time server correcting it) cannot bring it back.
pub async fn session_user(db: &Db, session_id: &str) -> Result<Option<LiveSession>, ServiceError> {
    let now = db.clock().now();
    let id_hash = secret_hash(session_id);
    let mut conn = db.read().await?;
    let found = users::session(&mut conn, &id_hash).await?;
    drop(conn);
    match found {
        // A deactivated user's sessions are deleted with the change; this refuses one that
        // a log-in racing the deactivation opened.
        Some((_, u)) if !u.active => Ok(None),
        Some((s, u)) if s.expires_at > now => Ok(Some(LiveSession {
            must_change_password: u.must_change_password,
            user: user_of(u),
            csrf: s.csrf_token,
        })),
        Some(_) => {
            end_expired_session(db, &id_hash, now).await;
            Ok(None)
        }
        None => Ok(None),
    }
}

/// Deletes an expired session. The request goes on logged out either way: a database that
/// refuses the write (a read-only standby, a busy writer) is logged, not shown to the user.
async fn end_expired_session(db: &Db, id_hash: &str, now: Timestamp) {
    let deleted = async {
        let mut tx = db.write().await?;
        users::delete_expired_session(&mut tx, id_hash, now).await?;
        tx.commit().await
    };
    if let Err(e) = deleted.await {
        tracing::warn!("an expired session could not be deleted: {e}");
    }
}

pub async fn close_session(db: &Db, session_id: &str) -> Result<(), ServiceError> {
    let mut tx = db.write().await?;
    users::delete_session(&mut tx, &secret_hash(session_id)).await?;
    tx.commit().await?;
    Ok(())
}

/// The holder of a live API token.
#[derive(Debug, Clone)]
pub struct TokenHolder {
    pub user: User,
    /// The holder's password is a one-time password: the API refuses the token until they
    /// have chosen their own.
    pub must_change_password: bool,
}

/// The user acting with `token` (unknown, revoked or of a deactivated user: `None`), and
/// whether their password is a one-time password.
pub async fn token_holder(db: &Db, token: &str) -> Result<Option<TokenHolder>, ServiceError> {
    let mut conn = db.read().await?;
    Ok(users::user_by_token(&mut conn, &secret_hash(token))
        .await?
        .map(|row| TokenHolder {
            must_change_password: row.must_change_password,
            user: user_of(row),
        }))
}

/// Creates an API token named `name` (checked as stored text) for `username`, with its
/// audit row; the token is shown once and stored hashed.
#[tracing::instrument(skip_all)]
pub async fn create_token(db: &Db, username: &str, name: &str) -> Result<String, ServiceError> {
    let name = TextRule {
        code: ErrorCode::InvalidInput,
        field: "name",
        what: "the token's name (e.g. \"scoreboard\")",
        max: TOKEN_NAME_MAX,
        lines: Lines::One,
    }
    .check(name)?;
    let name = name.as_str();
    let now = db.clock().now();
    let token = format!("spim_{}", random_hex(24));
    let mut tx = db.write().await?;
    let owner = users::by_name(&mut tx, username)
        .await?
        .map(user_of)
        .ok_or(ServiceError::NotFound)?;
    let id = users::insert_token(&mut tx, owner.id, name, &secret_hash(&token), now).await?;
    audit::record(
        &mut tx,
        &owner,
        now,
        audit::Change::new("create_token", audit::Subject::Token(id)).after(name),
    )
    .await?;
    tx.commit().await?;
    Ok(token)
}

/// An API token as its owner's account page lists it (never the token itself).
#[derive(Debug, Clone)]
pub struct TokenView {
    pub id: TokenId,
    pub name: String,
    pub created_at: Timestamp,
    pub revoked: bool,
}

/// The user's API tokens, newest first (revoked ones too).
pub async fn tokens(db: &Db, user: &User) -> Result<Vec<TokenView>, ServiceError> {
    let mut conn = db.read().await?;
    Ok(users::tokens_of(&mut conn, user.id)
        .await?
        .into_iter()
        .map(|t| TokenView {
            id: t.id,
            name: t.name,
            created_at: t.created_at,
            revoked: t.revoked_at.is_some(),
        })
        .collect())
}

/// Revokes one of the user's own tokens, with its audit row (not found: another user's
/// token, or one already revoked).
#[tracing::instrument(skip_all, fields(user_id = %user.id, token_id = %token_id))]
pub async fn revoke_token(db: &Db, user: &User, token_id: TokenId) -> Result<(), ServiceError> {
    let now = db.clock().now();
    let mut tx = db.write().await?;
    if !users::revoke_token(&mut tx, user.id, token_id, now).await? {
        return Err(ServiceError::NotFound);
    }
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new("revoke_token", audit::Subject::Token(token_id)),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Changes the user's own password, `current` checked. Every other way in ends with the old
/// password (OWASP ASVS V3): the user's other sessions and all their API tokens; `session`,
/// the session that made the change (its id, as in the cookie), stays logged in.
#[tracing::instrument(skip_all, fields(user_id = %user.id))]
pub async fn change_password(
    db: &Db,
    user: &User,
    session: &str,
    current: &str,
    new: &str,
) -> Result<(), ServiceError> {
    let now = db.clock().now();
    validate_password(new)?;
    if check_login(db, &user.username, current).await?.is_none() {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidPassword,
            "current",
            "the current password is wrong",
        ));
    }
    let hash = hash_off_thread(new.to_string()).await?;
    let mut tx = db.write().await?;
    users::set_password(&mut tx, user.id, &hash).await?;
    // Whoever else held the old password (a session, a token made with it) is out; the
    // session that proved it now goes on.
    users::delete_other_sessions_of(&mut tx, user.id, &secret_hash(session)).await?;
    users::revoke_tokens_of(&mut tx, user.id, now).await?;
    audit::record(
        &mut tx,
        user,
        now,
        audit::Change::new("change_password", audit::Subject::User(user.id)),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// On a database with no admin, creates `admin` with a one-time password and returns it.
/// Instances that start together on an empty database make one admin: the count is taken
/// again inside the write transaction, which holds the store's write lock, and whoever
/// finds an admin there leaves it be.
#[tracing::instrument(skip_all)]
pub async fn ensure_admin(db: &Db) -> Result<Option<(String, String)>, ServiceError> {
    let mut conn = db.read().await?;
    let admins = users::count_admins(&mut conn).await?;
    drop(conn);
    if admins > 0 {
        return Ok(None);
    }
    let now = db.clock().now();
    let password = random_hex(8);
    let hash = hash_off_thread(password.clone()).await?;
    let mut tx = db.write().await?;
    if users::count_admins(&mut tx).await? > 0 {
        return Ok(None);
    }
    // The printed password is a one-time password, as every generated one is.
    let first = NewUser {
        username: "admin",
        role: Role::Admin,
        email: None,
        must_change_password: true,
    };
    insert_user(&mut tx, None, &first, &hash, now).await?;
    tx.commit().await?;
    Ok(Some(("admin".into(), password)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_verify_only_themselves() {
        let hash = hash_password("correct horse battery");
        assert!(hash.starts_with("$argon2id$"));
        assert!(verify_password("correct horse battery", &hash));
        assert!(!verify_password("correct horse battery!", &hash));
        assert!(!verify_password("x", "not a hash"));
    }

    #[test]
    fn secrets_are_random_and_hashed() {
        let a = random_hex(32);
        assert_eq!(a.len(), 64);
        assert_ne!(a, random_hex(32));
        assert_eq!(secret_hash(&a).len(), 64);
        assert_ne!(secret_hash(&a), a);
    }
}
