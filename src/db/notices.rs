//! Notices by email: the outbox of messages (`notices`) and the addresses that stopped a
//! league's notices (`notice_subscriptions`). Migration 0027 (SQLite) / 0015 (PostgreSQL).

use super::{Conn, on_store};

use crate::domain::{LeagueId, Timestamp};

/// A notice as stored.
#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct NoticeRow {
    pub id: i64,
    pub league_id: LeagueId,
    pub event: String,
    pub event_key: String,
    pub address: String,
    pub subject: String,
    pub body_text: String,
    pub body_html: String,
    pub status: String,
    pub attempts: i64,
    pub last_error: Option<String>,
    pub next_attempt_at: Timestamp,
    pub claimed_until: Option<Timestamp>,
    pub created_at: Timestamp,
    pub sent_at: Option<Timestamp>,
}

/// A notice to write: one event to one address.
pub struct NewNotice<'a> {
    pub league_id: LeagueId,
    pub event: &'a str,
    pub event_key: &'a str,
    pub address: &'a str,
    pub subject: &'a str,
    pub body_text: &'a str,
    pub body_html: &'a str,
}

/// Writes `n` to send now; an event already written for this address is left as it is (the
/// same event never mails an address twice). Whether a row was written.
pub async fn insert(conn: &mut Conn, n: &NewNotice<'_>, now: Timestamp) -> sqlx::Result<bool> {
    let written = on_store!(conn, execute sqlx::query(
        "INSERT INTO notices (league_id, event, event_key, address, subject, body_text,
                              body_html, next_attempt_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
         ON CONFLICT (event_key, address) DO NOTHING"
    )
    .bind(n.league_id)
    .bind(n.event)
    .bind(n.event_key)
    .bind(n.address)
    .bind(n.subject)
    .bind(n.body_text)
    .bind(n.body_html)
    .bind(now))?;
    Ok(written == 1)
}

/// Whether a notice is due at `now` and free: read first, so that an idle sender takes no
/// write lock.
pub async fn any_due(conn: &mut Conn, now: Timestamp) -> sqlx::Result<bool> {
    let due: Option<i64> = on_store!(conn, |c| sqlx::query_scalar(
        "SELECT id FROM notices
         WHERE status = 'pending' AND next_attempt_at <= $1
           AND (claimed_until IS NULL OR claimed_until < $1)
         LIMIT 1"
    )
    .bind(now)
    .fetch_optional(c)
    .await)?;
    Ok(due.is_some())
}

/// Takes the oldest notice due at `now` that no sender holds, holding it until `until`; `None`
/// when none is due. Two instances never take the same one: the update re-checks the hold
/// (PostgreSQL re-reads a row another transaction changed before updating it).
pub async fn claim_due(
    conn: &mut Conn,
    now: Timestamp,
    until: Timestamp,
) -> sqlx::Result<Option<NoticeRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "UPDATE notices SET claimed_until = $2
         WHERE id = (SELECT id FROM notices
                     WHERE status = 'pending' AND next_attempt_at <= $1
                       AND (claimed_until IS NULL OR claimed_until < $1)
                     ORDER BY next_attempt_at, id LIMIT 1)
           AND status = 'pending' AND (claimed_until IS NULL OR claimed_until < $1)
         RETURNING *"
    )
    .bind(now)
    .bind(until)
    .fetch_optional(c)
    .await)
}

/// The relay took notice `id`, held until `held`; whether the hold was still this sender's
/// (a hold that ran out and was taken again is the other sender's to record).
pub async fn mark_sent(
    conn: &mut Conn,
    id: i64,
    held: Timestamp,
    now: Timestamp,
) -> sqlx::Result<bool> {
    let changed = on_store!(conn, execute sqlx::query(
        "UPDATE notices SET status = 'sent', sent_at = $3, attempts = attempts + 1,
                claimed_until = NULL, last_error = NULL
         WHERE id = $1 AND status = 'pending' AND claimed_until = $2"
    )
    .bind(id)
    .bind(held)
    .bind(now))?;
    Ok(changed == 1)
}

/// A try of notice `id`, held until `held`, failed with `error`: tried again at `retry_at`,
/// or failed for good when `None`. Whether the hold was still this sender's.
pub async fn mark_failed_try(
    conn: &mut Conn,
    (id, held): (i64, Timestamp),
    error: &str,
    retry_at: Option<Timestamp>,
) -> sqlx::Result<bool> {
    let changed = on_store!(conn, execute sqlx::query(
        "UPDATE notices SET attempts = attempts + 1, last_error = $3, claimed_until = NULL,
                status = CASE WHEN $4 IS NULL THEN 'failed' ELSE 'pending' END,
                next_attempt_at = COALESCE($4, next_attempt_at)
         WHERE id = $1 AND status = 'pending' AND claimed_until = $2"
    )
    .bind(id)
    .bind(held)
    .bind(error)
    .bind(retry_at))?;
    Ok(changed == 1)
}

/// Notice `id`, held until `held`, is not sent: its address stopped the league's notices
/// after it was written.
pub async fn mark_skipped(conn: &mut Conn, id: i64, held: Timestamp) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE notices SET status = 'skipped', claimed_until = NULL,
                last_error = 'the address stopped the league''s notices before it was sent'
         WHERE id = $1 AND status = 'pending' AND claimed_until = $2"
    )
    .bind(id)
    .bind(held))?;
    Ok(())
}

/// Lets go of notice `id`, held until `held`, untried: another sender may take it now.
pub async fn release(conn: &mut Conn, id: i64, held: Timestamp) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE notices SET claimed_until = NULL
         WHERE id = $1 AND status = 'pending' AND claimed_until = $2"
    )
    .bind(id)
    .bind(held))?;
    Ok(())
}

/// Which failed notices to send again.
#[derive(Debug, Clone, Copy)]
pub enum Failed {
    /// The one notice of this id.
    One(i64),
    /// Every failed notice of the league, or of every league.
    All(Option<LeagueId>),
}

/// Sends the `failed` notices again: pending from `now`, their attempts counted afresh (a
/// notice pending or sent is left as it is); how many.
pub async fn resend(conn: &mut Conn, failed: Failed, now: Timestamp) -> sqlx::Result<u64> {
    let (id, league) = match failed {
        Failed::One(id) => (Some(id), None),
        Failed::All(league) => (None, league),
    };
    on_store!(conn, execute sqlx::query(
        "UPDATE notices SET status = 'pending', attempts = 0, next_attempt_at = $3,
                claimed_until = NULL
         WHERE status = 'failed' AND ($1 IS NULL OR id = $1) AND ($2 IS NULL OR league_id = $2)"
    )
    .bind(id)
    .bind(league)
    .bind(now))
}

/// The notices, newest first, of `league` and in `status` where given, at most `limit`.
pub async fn list(
    conn: &mut Conn,
    league: Option<LeagueId>,
    status: Option<&str>,
    limit: i64,
) -> sqlx::Result<Vec<NoticeRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM notices
         WHERE ($1 IS NULL OR league_id = $1) AND ($2 IS NULL OR status = $2)
         ORDER BY id DESC LIMIT $3"
    )
    .bind(league)
    .bind(status)
    .bind(limit)
    .fetch_all(c)
    .await)
}

/// How many notices are in each status (for `/metrics` and the dashboard).
pub async fn counts(conn: &mut Conn) -> sqlx::Result<Vec<(String, i64)>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT status, COUNT(*) FROM notices GROUP BY status ORDER BY status"
    )
    .fetch_all(c)
    .await)
}

/// The token of `address`'s subscription to `league`'s notices, made (as `fresh`) the first
/// time; and whether the address stopped them.
pub async fn subscription(
    conn: &mut Conn,
    league: LeagueId,
    address: &str,
    fresh: &str,
) -> sqlx::Result<(String, bool)> {
    on_store!(conn, execute sqlx::query(
        "INSERT INTO notice_subscriptions (league_id, address, token) VALUES ($1, $2, $3)
         ON CONFLICT (league_id, address) DO NOTHING"
    )
    .bind(league)
    .bind(address)
    .bind(fresh))?;
    let (token, stopped): (String, Option<Timestamp>) = on_store!(conn, |c| sqlx::query_as(
        "SELECT token, unsubscribed_at FROM notice_subscriptions
         WHERE league_id = $1 AND address = $2"
    )
    .bind(league)
    .bind(address)
    .fetch_one(c)
    .await)?;
    Ok((token, stopped.is_some()))
}

/// Stops (`Some(now)`) or restarts (`None`) the notices of the subscription `token`; the
/// league it is for, `None` for an unknown token.
pub async fn set_unsubscribed(
    conn: &mut Conn,
    token: &str,
    at: Option<Timestamp>,
) -> sqlx::Result<Option<LeagueId>> {
    on_store!(conn, |c| sqlx::query_scalar(
        "UPDATE notice_subscriptions SET unsubscribed_at = $2 WHERE token = $1
         RETURNING league_id"
    )
    .bind(token)
    .bind(at)
    .fetch_optional(c)
    .await)
}

/// The addresses a notice of league `league` about teams `teams` goes to: every active
/// player of those teams with an email, and (with `supervisors`) the league's active
/// supervisors with one; less those that stopped the league's notices. Lowercased, each
/// once, in order.
/// The addresses of the captains of `teams` (active players marked captain, with an
/// email) that still take the league's notices, folded to lower case, once each.
pub async fn captain_recipients(
    conn: &mut Conn,
    league: LeagueId,
    teams: &[crate::domain::TeamId],
) -> sqlx::Result<Vec<String>> {
    let mut all: Vec<String> = Vec::new();
    for team in teams {
        let captains: Vec<String> = on_store!(conn, |c| sqlx::query_scalar(
            "SELECT email FROM players
             WHERE team_id = $1 AND active AND captain AND email IS NOT NULL AND email <> ''"
        )
        .bind(team)
        .fetch_all(c)
        .await)?;
        all.extend(captains);
    }
    still_subscribed(conn, league, all).await
}

pub async fn recipients(
    conn: &mut Conn,
    league: LeagueId,
    teams: &[crate::domain::TeamId],
    supervisors: bool,
) -> sqlx::Result<Vec<String>> {
    let mut all: Vec<String> = Vec::new();
    for team in teams {
        let players: Vec<String> = on_store!(conn, |c| sqlx::query_scalar(
            "SELECT email FROM players
             WHERE team_id = $1 AND active AND email IS NOT NULL AND email <> ''"
        )
        .bind(team)
        .fetch_all(c)
        .await)?;
        all.extend(players);
    }
    if supervisors {
        let staff: Vec<String> = on_store!(conn, |c| sqlx::query_scalar(
            "SELECT u.email FROM league_supervisors s JOIN users u ON u.id = s.user_id
             WHERE s.league_id = $1 AND u.active AND u.email IS NOT NULL AND u.email <> ''"
        )
        .bind(league)
        .fetch_all(c)
        .await)?;
        all.extend(staff);
    }
    still_subscribed(conn, league, all).await
}

/// `addresses` in lower case, once each, without those that stopped the league's notices.
async fn still_subscribed(
    conn: &mut Conn,
    league: LeagueId,
    addresses: Vec<String>,
) -> sqlx::Result<Vec<String>> {
    let stopped: Vec<String> = on_store!(conn, |c| sqlx::query_scalar(
        "SELECT address FROM notice_subscriptions
         WHERE league_id = $1 AND unsubscribed_at IS NOT NULL"
    )
    .bind(league)
    .fetch_all(c)
    .await)?;
    // Lowercased here, not in SQL: SQLite's lower() folds ASCII letters only.
    let mut all: Vec<String> = addresses.iter().map(|a| a.to_lowercase()).collect();
    all.sort();
    all.dedup();
    all.retain(|a| !stopped.contains(a));
    Ok(all)
}

/// The league of subscription `token` and whether its address stopped the notices.
pub async fn subscription_by_token(
    conn: &mut Conn,
    token: &str,
) -> sqlx::Result<Option<(LeagueId, bool)>> {
    let row: Option<(LeagueId, Option<Timestamp>)> = on_store!(conn, |c| sqlx::query_as(
        "SELECT league_id, unsubscribed_at FROM notice_subscriptions WHERE token = $1"
    )
    .bind(token)
    .fetch_optional(c)
    .await)?;
    Ok(row.map(|(league, at)| (league, at.is_some())))
}
