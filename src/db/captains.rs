//! Captains' sign-in links and sessions (migration 0032), and the teams an address captains.
//! Emails arrive folded to lower case; tokens and session ids only as their hashes.

use super::{Conn, on_store};
use crate::domain::{LeagueId, TeamId, Timestamp};

/// Records a link asked for `email`, valid until `expires`.
pub async fn insert_link(
    conn: &mut Conn,
    token_hash: &str,
    email: &str,
    now: Timestamp,
    expires: Timestamp,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "INSERT INTO captain_links (token_hash, email, created_at, expires_at) VALUES ($1, $2, $3, $4)"
    )
    .bind(token_hash)
    .bind(email)
    .bind(now)
    .bind(expires))?;
    Ok(())
}

/// How many links `email` was sent since `since`.
pub async fn links_since(conn: &mut Conn, email: &str, since: Timestamp) -> sqlx::Result<i64> {
    on_store!(conn, |c| sqlx::query_scalar(
        "SELECT count(*) FROM captain_links WHERE email = $1 AND created_at > $2"
    )
    .bind(email)
    .bind(since)
    .fetch_one(c)
    .await)
}

/// Forgets the links made before `before` (used, expired and no longer counted).
pub async fn forget_links_before(conn: &mut Conn, before: Timestamp) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "DELETE FROM captain_links WHERE created_at < $1"
    )
    .bind(before))?;
    Ok(())
}

/// Uses the link whose token hashes to `token_hash` if it is unused and unexpired at `now`:
/// its address, once; `None` ever after.
pub async fn use_link(
    conn: &mut Conn,
    token_hash: &str,
    now: Timestamp,
) -> sqlx::Result<Option<String>> {
    on_store!(conn, |c| sqlx::query_scalar(
        "UPDATE captain_links SET used_at = $2
         WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
         RETURNING email"
    )
    .bind(token_hash)
    .bind(now)
    .fetch_optional(c)
    .await)
}

pub async fn insert_session(
    conn: &mut Conn,
    id_hash: &str,
    email: &str,
    csrf: &str,
    now: Timestamp,
    expires: Timestamp,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "INSERT INTO captain_sessions (id_hash, email, csrf_token, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5)"
    )
    .bind(id_hash)
    .bind(email)
    .bind(csrf)
    .bind(now)
    .bind(expires))?;
    Ok(())
}

#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct SessionRow {
    pub email: String,
    pub csrf_token: String,
    pub expires_at: Timestamp,
}

/// A session, live or expired (the caller compares `expires_at` with its clock).
pub async fn session(conn: &mut Conn, id_hash: &str) -> sqlx::Result<Option<SessionRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT email, csrf_token, expires_at FROM captain_sessions WHERE id_hash = $1"
    )
    .bind(id_hash)
    .fetch_optional(c)
    .await)
}

pub async fn delete_session(conn: &mut Conn, id_hash: &str) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "DELETE FROM captain_sessions WHERE id_hash = $1"
    )
    .bind(id_hash))?;
    Ok(())
}

/// Deletes the sessions that have expired at `now`.
pub async fn delete_expired_sessions(conn: &mut Conn, now: Timestamp) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "DELETE FROM captain_sessions WHERE expires_at <= $1"
    )
    .bind(now))?;
    Ok(())
}

/// A team whose captain has the address: an active player marked captain, in a league
/// that is not archived.
#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct CaptainedTeam {
    pub team_id: TeamId,
    pub team_name: String,
    pub league_id: LeagueId,
    pub league_slug: String,
    pub league_name: String,
    /// The captain's name on this team.
    pub captain_name: String,
    /// The address as the roster has it (the links go there).
    pub email: String,
}

/// The teams `email` (folded) captains, by league then team name.
pub async fn teams_of(conn: &mut Conn, email: &str) -> sqlx::Result<Vec<CaptainedTeam>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT t.id AS team_id, t.name AS team_name, l.id AS league_id, l.slug AS league_slug,
                l.name AS league_name, min(p.name) AS captain_name, min(p.email) AS email
         FROM players p
         JOIN teams t ON t.id = p.team_id
         JOIN leagues l ON l.id = p.league_id
         WHERE lower(p.email) = $1 AND p.captain AND p.active AND NOT l.archived
         GROUP BY t.id, t.name, l.id, l.slug, l.name
         ORDER BY l.name, t.name, t.id"
    )
    .bind(email)
    .fetch_all(c)
    .await)
}
