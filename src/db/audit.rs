//! The audit log: who changed what, when, from what to what, and why; and the log read back,
//! newest first, by league, match, user and action.

use super::{Conn, on_store};

use crate::domain::{LeagueId, MatchId, Timestamp, UserId};

pub struct AuditEntry<'a> {
    pub user_id: Option<UserId>,
    /// A captain's change: the captain by name and team (migration 0032).
    pub captain: Option<&'a str>,
    pub action: &'a str,
    pub entity: &'a str,
    pub entity_id: Option<i64>,
    pub before: Option<&'a str>,
    pub after: Option<&'a str>,
    pub reason: Option<&'a str>,
    pub now: Timestamp,
}

/// Appends to the audit log; call inside the transaction of the change, before a row it
/// names is deleted. The row's league and match (for the filters) are read from the row
/// changed, as migration 0025 (SQLite) / 0013 (PostgreSQL) filled them for older rows.
pub async fn audit(conn: &mut Conn, e: &AuditEntry<'_>) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "INSERT INTO audit_log (at, user_id, action, entity, entity_id, before, after, reason,
                                league_id, match_id, captain)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8,
                 CASE $4
                     WHEN 'league' THEN $5
                     WHEN 'team' THEN (SELECT league_id FROM teams WHERE id = $5)
                     WHEN 'player' THEN (SELECT league_id FROM players WHERE id = $5)
                     WHEN 'match' THEN (SELECT league_id FROM matches WHERE id = $5)
                     WHEN 'bracket' THEN (SELECT league_id FROM brackets WHERE id = $5)
                 END,
                 CASE $4 WHEN 'match' THEN $5 END, $9)",
    )
    .bind(e.now)
    .bind(e.user_id)
    .bind(e.action)
    .bind(e.entity)
    .bind(e.entity_id)
    .bind(e.before)
    .bind(e.after)
    .bind(e.reason)
    .bind(e.captain))?;
    Ok(())
}

/// Which rows to read: each filter given narrows, `before` is an entry id (older rows only).
#[derive(Debug, Clone, Default)]
pub struct AuditFilter {
    pub league_id: Option<LeagueId>,
    pub match_id: Option<MatchId>,
    pub user_id: Option<UserId>,
    pub action: Option<String>,
    pub before: Option<i64>,
    pub limit: i64,
}

/// One row read back, with the username and league slug of the moment it is read (`None`
/// for a change by no user, or to no league, or to one since deleted).
#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct AuditRow {
    pub id: i64,
    pub at: Timestamp,
    pub username: Option<String>,
    pub action: String,
    pub league_slug: Option<String>,
    pub match_id: Option<i64>,
    pub before: Option<String>,
    pub after: Option<String>,
    pub reason: Option<String>,
    /// An entry that came with an imported league: who imported it (username) and when,
    /// and the username the document gave (migration 0030 / 0021).
    pub imported_by: Option<String>,
    pub imported_at: Option<Timestamp>,
    pub imported_user: Option<String>,
    /// The captain who made the change, by name and team.
    pub captain: Option<String>,
    /// What was changed (`league`, `team`, `player`, `match`, `bracket`, `user`,
    /// `api_token`) and the names of the moment it is read, for the entry's summary: the
    /// league's, the team's, the player's, the match's two teams, the account's. `None`
    /// for a row since deleted.
    pub entity: String,
    pub league_name: Option<String>,
    pub team_name: Option<String>,
    pub player_name: Option<String>,
    pub match_team_a: Option<String>,
    pub match_team_b: Option<String>,
    pub account: Option<String>,
}

/// The rows `filter` picks, newest first, at most `filter.limit`.
pub async fn entries(conn: &mut Conn, filter: &AuditFilter) -> sqlx::Result<Vec<AuditRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT a.id, a.at, u.username, a.action, l.slug AS league_slug, a.match_id,
                a.before, a.after, a.reason, i.username AS imported_by, a.imported_at,
                a.imported_user, a.captain, a.entity, l.name AS league_name, t.name AS team_name,
                p.name AS player_name, ta.name AS match_team_a, tb.name AS match_team_b,
                e.username AS account
         FROM audit_log a
         LEFT JOIN users u ON u.id = a.user_id
         LEFT JOIN users i ON i.id = a.imported_by
         LEFT JOIN leagues l ON l.id = a.league_id
         LEFT JOIN teams t ON a.entity = 'team' AND t.id = a.entity_id
         LEFT JOIN players p ON a.entity = 'player' AND p.id = a.entity_id
         LEFT JOIN matches m ON m.id = a.match_id
         LEFT JOIN teams ta ON ta.id = m.team_a
         LEFT JOIN teams tb ON tb.id = m.team_b
         LEFT JOIN users e ON a.entity = 'user' AND e.id = a.entity_id
         WHERE ($1 IS NULL OR a.league_id = $1)
           AND ($2 IS NULL OR a.match_id = $2)
           AND ($3 IS NULL OR a.user_id = $3)
           AND ($4 IS NULL OR a.action = $4)
           AND ($5 IS NULL OR a.id < $5)
         ORDER BY a.id DESC
         LIMIT $6",
    )
    .bind(filter.league_id)
    .bind(filter.match_id)
    .bind(filter.user_id)
    .bind(filter.action.as_deref())
    .bind(filter.before)
    .bind(filter.limit)
    .fetch_all(c)
    .await)
}
