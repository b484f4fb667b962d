//! Users, sessions and API tokens. Session ids and tokens are stored hashed.

use super::{Conn, Raw, on_store};

use crate::domain::{Role, Timestamp, TokenId, UserId};

#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct UserRow {
    pub id: UserId,
    pub username: String,
    pub password_hash: String,
    pub role: Role,
    pub created_at: Timestamp,
    /// Personal data: shown to admins only, never logged.
    pub email: Option<String>,
    /// A deactivated user cannot log in, and its sessions and tokens are refused.
    pub active: bool,
    /// The password is a one-time password: the user must change it before anything else.
    pub must_change_password: bool,
    pub last_login_at: Option<Timestamp>,
    /// The last sign-in through the campus identity provider.
    pub campus_login_at: Option<Timestamp>,
}

#[allow(clippy::too_many_arguments)]
pub async fn insert(
    conn: &mut Conn,
    username: &str,
    password_hash: &str,
    role: Role,
    email: Option<&str>,
    must_change_password: bool,
    now: Timestamp,
) -> sqlx::Result<UserId> {
    let id: i64 = on_store!(conn, |c| {
        sqlx::query_scalar(
        "INSERT INTO users (username, password_hash, role, created_at, email, must_change_password)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
    )
    .bind(username)
    .bind(password_hash)
    .bind(role)
    .bind(now)
    .bind(email)
    .bind(must_change_password)
    .fetch_one(c)
    .await
    })?;
    Ok(UserId(id))
}

/// The user named `username`, whatever the case of its ASCII letters (and only those: a
/// username is ASCII, and `ADMİN` with a dotted capital I is not `admin`, whatever the
/// database's locale). Each store answers from its unique index of usernames.
pub async fn by_name(conn: &mut Conn, username: &str) -> sqlx::Result<Option<UserRow>> {
    match conn.raw() {
        Raw::Sqlite(c) => {
            sqlx::query_as(BY_NAME_SQLITE)
                .bind(username)
                .fetch_optional(c)
                .await
        }
        Raw::Postgres(c) => {
            sqlx::query_as(BY_NAME_POSTGRES)
                .bind(username)
                .fetch_optional(c)
                .await
        }
    }
}

/// The column is `COLLATE NOCASE` (ASCII case folding), so `=` folds as its unique index does.
pub const BY_NAME_SQLITE: &str = "SELECT * FROM users WHERE username = $1";
/// The unique index is on `lower(username)` of a `COLLATE "C"` column, which folds ASCII only;
/// `$1` is made `"C"` too, or `lower` would fold by the database's locale.
pub const BY_NAME_POSTGRES: &str =
    "SELECT * FROM users WHERE lower(username) = lower($1 COLLATE \"C\")";

pub async fn by_id(conn: &mut Conn, id: UserId) -> sqlx::Result<Option<UserRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM users WHERE id = $1"
    )
    .bind(id)
    .fetch_optional(c)
    .await)
}

pub async fn all(conn: &mut Conn) -> sqlx::Result<Vec<UserRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM users ORDER BY lower(username)"
    )
    .fetch_all(c)
    .await)
}

pub async fn count_admins(conn: &mut Conn) -> sqlx::Result<i64> {
    on_store!(conn, |c| sqlx::query_scalar(
        "SELECT COUNT(*) FROM users WHERE role = 'admin'"
    )
    .fetch_one(c)
    .await)
}

pub async fn count_active_admins(conn: &mut Conn) -> sqlx::Result<i64> {
    on_store!(conn, |c| sqlx::query_scalar(
        "SELECT COUNT(*) FROM users WHERE role = 'admin' AND active = $1"
    )
    .bind(true)
    .fetch_one(c)
    .await)
}

/// The user with `email`, whatever the case of its ASCII letters (both stores' unique
/// indexes fold ASCII only).
pub async fn by_email(conn: &mut Conn, email: &str) -> sqlx::Result<Option<UserRow>> {
    match conn.raw() {
        Raw::Sqlite(c) => {
            sqlx::query_as("SELECT * FROM users WHERE email = $1")
                .bind(email)
                .fetch_optional(c)
                .await
        }
        Raw::Postgres(c) => {
            sqlx::query_as("SELECT * FROM users WHERE lower(email) = lower($1 COLLATE \"C\")")
                .bind(email)
                .fetch_optional(c)
                .await
        }
    }
}

/// The settings an admin changes on an account, written at once.
pub async fn set_account(
    conn: &mut Conn,
    id: UserId,
    role: Role,
    active: bool,
    email: Option<&str>,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE users SET role = $1, active = $2, email = $3 WHERE id = $4"
    )
    .bind(role)
    .bind(active)
    .bind(email)
    .bind(id))?;
    Ok(())
}

/// Sets the password hash and whether it is a one-time password.
pub async fn set_password_once(
    conn: &mut Conn,
    id: UserId,
    hash: &str,
    must_change: bool,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE users SET password_hash = $1, must_change_password = $2 WHERE id = $3"
    )
    .bind(hash)
    .bind(must_change)
    .bind(id))?;
    Ok(())
}

pub async fn set_last_login(conn: &mut Conn, id: UserId, at: Timestamp) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE users SET last_login_at = $1 WHERE id = $2"
    )
    .bind(at)
    .bind(id))?;
    Ok(())
}

pub async fn set_campus_login(conn: &mut Conn, id: UserId, at: Timestamp) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE users SET campus_login_at = $1 WHERE id = $2"
    )
    .bind(at)
    .bind(id))?;
    Ok(())
}

/// The slugs of the leagues each user supervises, as (user, slug) pairs in slug order.
pub async fn league_slugs(conn: &mut Conn) -> sqlx::Result<Vec<(UserId, String)>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT s.user_id, l.slug FROM league_supervisors s JOIN leagues l ON l.id = s.league_id
         ORDER BY l.slug"
    )
    .fetch_all(c)
    .await)
}

/// Revokes every live token of the user at `now`.
pub async fn revoke_tokens_of(
    conn: &mut Conn,
    user_id: UserId,
    now: Timestamp,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE api_tokens SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL"
    )
    .bind(now)
    .bind(user_id))?;
    Ok(())
}

/// Sets the password the user chose (no longer a one-time password).
pub async fn set_password(conn: &mut Conn, id: UserId, hash: &str) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE users SET password_hash = $1, must_change_password = $2 WHERE id = $3"
    )
    .bind(hash)
    .bind(false)
    .bind(id))?;
    Ok(())
}

#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct SessionRow {
    pub id_hash: String,
    pub user_id: UserId,
    pub csrf_token: String,
    pub created_at: Timestamp,
    pub expires_at: Timestamp,
}

pub async fn insert_session(
    conn: &mut Conn,
    id_hash: &str,
    user_id: UserId,
    csrf: &str,
    now: Timestamp,
    expires: Timestamp,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "INSERT INTO sessions (id_hash, user_id, csrf_token, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(id_hash)
    .bind(user_id)
    .bind(csrf)
    .bind(now)
    .bind(expires))?;
    Ok(())
}

/// A session, live or expired (the caller compares `expires_at` with its clock), with its
/// user.
pub async fn session(
    conn: &mut Conn,
    id_hash: &str,
) -> sqlx::Result<Option<(SessionRow, UserRow)>> {
    let session: Option<SessionRow> = on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM sessions WHERE id_hash = $1"
    )
    .bind(id_hash)
    .fetch_optional(c)
    .await)?;
    let Some(session) = session else {
        return Ok(None);
    };
    Ok(by_id(conn, session.user_id).await?.map(|u| (session, u)))
}

/// Deletes the session if it has expired at `now`.
pub async fn delete_expired_session(
    conn: &mut Conn,
    id_hash: &str,
    now: Timestamp,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "DELETE FROM sessions WHERE id_hash = $1 AND expires_at <= $2"
    )
    .bind(id_hash)
    .bind(now))?;
    Ok(())
}

pub async fn delete_session(conn: &mut Conn, id_hash: &str) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "DELETE FROM sessions WHERE id_hash = $1"
    )
    .bind(id_hash))?;
    Ok(())
}

pub async fn delete_sessions_of(conn: &mut Conn, user_id: UserId) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "DELETE FROM sessions WHERE user_id = $1"
    )
    .bind(user_id))?;
    Ok(())
}

/// Deletes every session of the user but the one whose id hashes to `keep`.
pub async fn delete_other_sessions_of(
    conn: &mut Conn,
    user_id: UserId,
    keep: &str,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "DELETE FROM sessions WHERE user_id = $1 AND id_hash <> $2"
    )
    .bind(user_id)
    .bind(keep))?;
    Ok(())
}

#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct TokenRow {
    pub id: TokenId,
    pub user_id: UserId,
    pub name: String,
    pub token_hash: String,
    pub created_at: Timestamp,
    pub revoked_at: Option<Timestamp>,
}

pub async fn insert_token(
    conn: &mut Conn,
    user_id: UserId,
    name: &str,
    token_hash: &str,
    now: Timestamp,
) -> sqlx::Result<TokenId> {
    let id: i64 = on_store!(conn, |c| {
        sqlx::query_scalar(
        "INSERT INTO api_tokens (user_id, name, token_hash, created_at) VALUES ($1, $2, $3, $4) RETURNING id",
    )
    .bind(user_id)
    .bind(name)
    .bind(token_hash)
    .bind(now)
    .fetch_one(c)
    .await
    })?;
    Ok(TokenId(id))
}

pub async fn user_by_token(conn: &mut Conn, token_hash: &str) -> sqlx::Result<Option<UserRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT u.* FROM api_tokens t JOIN users u ON u.id = t.user_id
         WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND u.active = $2",
    )
    .bind(token_hash)
    .bind(true)
    .fetch_optional(c)
    .await)
}

pub async fn tokens_of(conn: &mut Conn, user_id: UserId) -> sqlx::Result<Vec<TokenRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM api_tokens WHERE user_id = $1 ORDER BY id DESC"
    )
    .bind(user_id)
    .fetch_all(c)
    .await)
}

pub async fn revoke_token(
    conn: &mut Conn,
    user_id: UserId,
    id: TokenId,
    now: Timestamp,
) -> sqlx::Result<bool> {
    let done = on_store!(conn, execute sqlx::query(
        "UPDATE api_tokens SET revoked_at = $1 WHERE id = $2 AND user_id = $3 AND revoked_at IS NULL",
    )
    .bind(now)
    .bind(id)
    .bind(user_id))?;
    Ok(done == 1)
}

/// The failures of `key` since `since`: how many, and the last one's time.
pub async fn failures(
    conn: &mut Conn,
    key: &str,
    since: Timestamp,
) -> sqlx::Result<(i64, Option<Timestamp>)> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT count(*), max(at) FROM login_failures WHERE key = $1 AND at > $2"
    )
    .bind(key)
    .bind(since)
    .fetch_one(c)
    .await)
}

/// Deletes the failures from before `forget_before`, of every key.
pub async fn forget_failures_before(conn: &mut Conn, forget_before: Timestamp) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "DELETE FROM login_failures WHERE at <= $1"
    )
    .bind(forget_before))?;
    Ok(())
}

/// Moves the failures of `key` stamped after `now` (the clock went back) to `now`.
pub async fn pull_back_failures(conn: &mut Conn, key: &str, now: Timestamp) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE login_failures SET at = $2 WHERE key = $1 AND at > $2"
    )
    .bind(key)
    .bind(now))?;
    Ok(())
}

/// One failure of `key` at `at`.
pub async fn add_failure(conn: &mut Conn, key: &str, at: Timestamp) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "INSERT INTO login_failures (key, at) VALUES ($1, $2)"
    )
    .bind(key)
    .bind(at))?;
    Ok(())
}

/// The key device cookies are signed with (`service::people::device_cookie`), if one was made.
pub async fn device_cookie_key(conn: &mut Conn) -> sqlx::Result<Option<String>> {
    on_store!(conn, |c| sqlx::query_scalar(
        "SELECT value FROM app_meta WHERE key = 'device_cookie_key'"
    )
    .fetch_optional(c)
    .await)
}

/// Stores `secret` as the device cookie key unless one is there already (made by another
/// instance meanwhile), and answers the one that is.
pub async fn make_device_cookie_key(conn: &mut Conn, secret: &str) -> sqlx::Result<String> {
    on_store!(conn, execute sqlx::query(
        "INSERT INTO app_meta (key, value) VALUES ('device_cookie_key', $1)
         ON CONFLICT (key) DO NOTHING"
    )
    .bind(secret))?;
    on_store!(conn, |c| sqlx::query_scalar(
        "SELECT value FROM app_meta WHERE key = 'device_cookie_key'"
    )
    .fetch_one(c)
    .await)
}
