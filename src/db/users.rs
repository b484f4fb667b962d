//! Users, sessions and API tokens. Session ids and tokens are stored hashed.

use sqlx::SqliteConnection;

use crate::domain::{Role, Timestamp, TokenId, UserId};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct UserRow {
    pub id: UserId,
    pub username: String,
    pub password_hash: String,
    pub role: Role,
    pub created_at: Timestamp,
}

pub async fn insert(
    conn: &mut SqliteConnection,
    username: &str,
    password_hash: &str,
    role: Role,
    now: Timestamp,
) -> sqlx::Result<UserId> {
    let row = sqlx::query(
        "INSERT INTO users (username, password_hash, role, created_at) VALUES (?, ?, ?, ?)",
    )
    .bind(username)
    .bind(password_hash)
    .bind(role)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(UserId(row.last_insert_rowid()))
}

pub async fn by_name(conn: &mut SqliteConnection, username: &str) -> sqlx::Result<Option<UserRow>> {
    sqlx::query_as("SELECT * FROM users WHERE username = ?")
        .bind(username)
        .fetch_optional(conn)
        .await
}

pub async fn by_id(conn: &mut SqliteConnection, id: UserId) -> sqlx::Result<Option<UserRow>> {
    sqlx::query_as("SELECT * FROM users WHERE id = ?")
        .bind(id)
        .fetch_optional(conn)
        .await
}

pub async fn all(conn: &mut SqliteConnection) -> sqlx::Result<Vec<UserRow>> {
    sqlx::query_as("SELECT * FROM users ORDER BY username")
        .fetch_all(conn)
        .await
}

pub async fn count_admins(conn: &mut SqliteConnection) -> sqlx::Result<i64> {
    sqlx::query_scalar("SELECT COUNT(*) FROM users WHERE role = 'admin'")
        .fetch_one(conn)
        .await
}

pub async fn set_password(conn: &mut SqliteConnection, id: UserId, hash: &str) -> sqlx::Result<()> {
    sqlx::query("UPDATE users SET password_hash = ? WHERE id = ?")
        .bind(hash)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct SessionRow {
    pub id_hash: String,
    pub user_id: UserId,
    pub csrf_token: String,
    pub created_at: Timestamp,
    pub expires_at: Timestamp,
}

pub async fn insert_session(
    conn: &mut SqliteConnection,
    id_hash: &str,
    user_id: UserId,
    csrf: &str,
    now: Timestamp,
    expires: Timestamp,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO sessions (id_hash, user_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
    )
    .bind(id_hash)
    .bind(user_id)
    .bind(csrf)
    .bind(now)
    .bind(expires)
    .execute(conn)
    .await?;
    Ok(())
}

/// A live session (not expired at `now`) with its user.
pub async fn session(
    conn: &mut SqliteConnection,
    id_hash: &str,
    now: Timestamp,
) -> sqlx::Result<Option<(SessionRow, UserRow)>> {
    let session: Option<SessionRow> =
        sqlx::query_as("SELECT * FROM sessions WHERE id_hash = ? AND expires_at > ?")
            .bind(id_hash)
            .bind(now)
            .fetch_optional(&mut *conn)
            .await?;
    let Some(session) = session else {
        return Ok(None);
    };
    Ok(by_id(conn, session.user_id).await?.map(|u| (session, u)))
}

pub async fn delete_session(conn: &mut SqliteConnection, id_hash: &str) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM sessions WHERE id_hash = ?")
        .bind(id_hash)
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn delete_sessions_of(conn: &mut SqliteConnection, user_id: UserId) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM sessions WHERE user_id = ?")
        .bind(user_id)
        .execute(conn)
        .await?;
    Ok(())
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TokenRow {
    pub id: TokenId,
    pub user_id: UserId,
    pub name: String,
    pub token_hash: String,
    pub created_at: Timestamp,
    pub revoked_at: Option<Timestamp>,
}

pub async fn insert_token(
    conn: &mut SqliteConnection,
    user_id: UserId,
    name: &str,
    token_hash: &str,
    now: Timestamp,
) -> sqlx::Result<TokenId> {
    let row = sqlx::query(
        "INSERT INTO api_tokens (user_id, name, token_hash, created_at) VALUES (?, ?, ?, ?)",
    )
    .bind(user_id)
    .bind(name)
    .bind(token_hash)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(TokenId(row.last_insert_rowid()))
}

pub async fn user_by_token(
    conn: &mut SqliteConnection,
    token_hash: &str,
) -> sqlx::Result<Option<UserRow>> {
    sqlx::query_as(
        "SELECT u.* FROM api_tokens t JOIN users u ON u.id = t.user_id
         WHERE t.token_hash = ? AND t.revoked_at IS NULL",
    )
    .bind(token_hash)
    .fetch_optional(conn)
    .await
}

pub async fn tokens_of(
    conn: &mut SqliteConnection,
    user_id: UserId,
) -> sqlx::Result<Vec<TokenRow>> {
    sqlx::query_as("SELECT * FROM api_tokens WHERE user_id = ? ORDER BY id DESC")
        .bind(user_id)
        .fetch_all(conn)
        .await
}

pub async fn revoke_token(
    conn: &mut SqliteConnection,
    user_id: UserId,
    id: TokenId,
    now: Timestamp,
) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL",
    )
    .bind(now)
    .bind(id)
    .bind(user_id)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}
