//! Captains (docs/api.md §20): a team's voice, signed in without a password. A captain is an
//! active player marked captain, with an email, in a league that is not archived; one
//! address may captain several teams. They ask for a link at `/captain` and get it by
//! email (valid [`LINK_MINUTES`], used once, at most [`LINKS_AN_HOUR`] an hour for one
//! address); following it opens a captain session, under the same cookie as a log-in.
//!
//! A captain is no account: they have no role, no API token, and nothing of the
//! supervisor's or the coordinator's. What they may do names them in the audit by name and
//! team ("Kim Lee, captain of Aces"), never by email.

use crate::db::captains::{self as db_captains, CaptainedTeam};
use crate::db::matches::MatchRow;
use crate::db::players as db_players;
use crate::db::{Conn, Db};
use crate::domain::PlayerId;
use crate::rules::Team;
use crate::service::ServiceError;
use crate::service::night::match_view::{self, MatchView};
use crate::service::people::accounts::{random_hex, secret_hash};

/// How long a sign-in link works.
pub const LINK_MINUTES: i64 = 15;
/// How many links one address may be sent in an hour.
pub const LINKS_AN_HOUR: i64 = 5;
/// How long a captain's session lasts: a week, so that a captain on their phone is not
/// sent to their inbox before every match.
pub const SESSION_HOURS: i64 = 24 * 7;

/// A captain's live session: their address (folded to lower case) and the session's CSRF
/// token.
#[derive(Debug, Clone)]
pub struct Captain {
    pub email: String,
    pub csrf: String,
}

/// An address as captains are found by it: trimmed, in lower case.
pub fn fold(email: &str) -> String {
    email.trim().to_lowercase()
}

/// A sign-in link's token for `email` and the address to send it to (as the roster has
/// it), if the address captains a team and has been sent fewer than [`LINKS_AN_HOUR`] links
/// in the last hour; `None` otherwise, for the caller to answer exactly as when one was
/// made.
pub async fn new_link(db: &Db, email: &str) -> Result<Option<(String, String)>, ServiceError> {
    let email = fold(email);
    if email.is_empty() || email.len() > crate::service::people::accounts::EMAIL_MAX_CHARS {
        return Ok(None);
    }
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let Some(team) = db_captains::teams_of(&mut tx, &email).await?.pop() else {
        return Ok(None);
    };
    let hour_ago = now.plus_minutes(-60);
    if db_captains::links_since(&mut tx, &email, hour_ago).await? >= LINKS_AN_HOUR {
        tracing::info!("a captain's sign-in link was not sent: five this hour already");
        return Ok(None);
    }
    // Links older than a day count for nothing and open nothing.
    db_captains::forget_links_before(&mut tx, now.plus_minutes(-24 * 60)).await?;
    let token = random_hex(32);
    let expires = now.plus_minutes(LINK_MINUTES);
    db_captains::insert_link(&mut tx, &secret_hash(&token), &email, now, expires).await?;
    tx.commit().await?;
    Ok(Some((token, team.email)))
}

/// Follows a sign-in link: a new session (its id and CSRF token) if the link is unused,
/// unexpired and its address still captains a team; `None` otherwise. Used either way.
pub async fn follow_link(db: &Db, token: &str) -> Result<Option<(String, String)>, ServiceError> {
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let Some(email) = db_captains::use_link(&mut tx, &secret_hash(token), now).await? else {
        return Ok(None);
    };
    tx.commit().await?;
    open_session(db, &email).await
}

/// A new session for `email` (a link's, or a campus sign-in's), if it captains a team.
pub async fn open_session(db: &Db, email: &str) -> Result<Option<(String, String)>, ServiceError> {
    let email = fold(email);
    let now = db.clock().now();
    let mut tx = db.write().await?;
    if db_captains::teams_of(&mut tx, &email).await?.is_empty() {
        return Ok(None);
    }
    db_captains::delete_expired_sessions(&mut tx, now).await?;
    let (id, csrf) = (random_hex(32), random_hex(32));
    let expires = now.plus_minutes(SESSION_HOURS * 60);
    db_captains::insert_session(&mut tx, &secret_hash(&id), &email, &csrf, now, expires).await?;
    tx.commit().await?;
    tracing::info!("a captain signed in");
    Ok(Some((id, csrf)))
}

/// The captain of a live session. An expired session, or one whose address no longer
/// captains any team (the coordinator took the mark away), is no session.
pub async fn session(db: &Db, session_id: &str) -> Result<Option<Captain>, ServiceError> {
    let now = db.clock().now();
    let mut conn = db.read().await?;
    let Some(row) = db_captains::session(&mut conn, &secret_hash(session_id)).await? else {
        return Ok(None);
    };
    if row.expires_at <= now
        || db_captains::teams_of(&mut conn, &row.email)
            .await?
            .is_empty()
    {
        return Ok(None);
    }
    Ok(Some(Captain {
        email: row.email,
        csrf: row.csrf_token,
    }))
}

pub async fn close_session(db: &Db, session_id: &str) -> Result<(), ServiceError> {
    let mut tx = db.write().await?;
    db_captains::delete_session(&mut tx, &secret_hash(session_id)).await?;
    tx.commit().await?;
    Ok(())
}

/// A player of a captain's team as the captain sees them: name and email, never a student
/// id.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct TeamMate {
    pub id: PlayerId,
    pub name: String,
    pub email: Option<String>,
    pub captain: bool,
}

/// One of a captain's teams: its active players and its matches.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct CaptainTeam {
    pub id: crate::domain::TeamId,
    pub name: String,
    /// The league's slug.
    pub league: String,
    #[serde(skip)]
    pub league_name: String,
    /// The captain's own name on this team.
    #[serde(skip)]
    pub captain_name: String,
    pub players: Vec<TeamMate>,
    /// As `GET /api/v1/matches/{id}` answers each, in schedule order.
    pub matches: Vec<MatchView>,
    /// The league's notice for a default, in hours (`None`: no defaults).
    #[serde(skip)]
    pub default_notice_hours: Option<u32>,
    /// The finished matches whose result may still be disputed.
    #[serde(skip)]
    pub disputable: Vec<crate::domain::MatchId>,
    /// What the team asked of the coordinator and the answers, in words, oldest first.
    #[serde(skip)]
    pub asked: Vec<String>,
}

/// The captain's teams with their rosters and matches, read in one snapshot.
pub async fn teams(db: &Db, captain: &Captain) -> Result<Vec<CaptainTeam>, ServiceError> {
    let mut conn = db.snapshot().await?;
    let mut out = Vec::new();
    for team in db_captains::teams_of(&mut conn, &captain.email).await? {
        let players = db_players::of_team(&mut conn, team.team_id)
            .await?
            .into_iter()
            .filter(|p| p.active)
            .map(|p| TeamMate {
                id: p.id,
                name: p.name.to_string(),
                email: p.email,
                captain: p.captain,
            })
            .collect();
        let matches = match_view::team_matches(&mut conn, team.team_id).await?;
        let row = crate::db::leagues::by_id(&mut conn, team.league_id)
            .await?
            .ok_or(ServiceError::NotFound)?;
        let settings = crate::service::term::leagues::League::from_row(row)?.settings;
        let mut disputable = Vec::new();
        let now = db.clock().now();
        for m in matches.iter().filter(|m| m.status.is_result()) {
            let end = crate::db::requests::match_end(&mut conn, m.id).await?;
            let hours = i64::from(settings.disputes.hours);
            if end.is_none_or(|end| now <= end.plus_minutes(hours * 60)) {
                disputable.push(m.id);
            }
        }
        let asked = asked(&mut conn, team.team_id).await?;
        out.push(CaptainTeam {
            default_notice_hours: settings.forfeit.default_notice_hours,
            disputable,
            asked,
            id: team.team_id,
            name: team.team_name,
            league: team.league_slug,
            league_name: team.league_name,
            captain_name: team.captain_name,
            players,
            matches,
        });
    }
    Ok(out)
}

/// The team's reschedule requests and disputes, in words: "Asked to move match 3 (Midterm
/// exam): approved, moved to 2026-11-11T19:00".
async fn asked(conn: &mut Conn, team: crate::domain::TeamId) -> Result<Vec<String>, ServiceError> {
    let mut out = Vec::new();
    for r in crate::db::requests::reschedules(conn, None, Some(team)).await? {
        let answer = r.answer.map(|a| format!(", {a}")).unwrap_or_default();
        out.push(format!(
            "Asked to move match {} (“{}”): {}{answer}",
            r.match_id, r.reason, r.status
        ));
    }
    for d in crate::db::requests::disputes(conn, None, Some(team)).await? {
        let note = d.note.map(|n| format!(": “{n}”")).unwrap_or_default();
        out.push(format!(
            "Disputed the {} of match {}: {}{note}",
            d.category, d.match_id, d.status
        ));
    }
    Ok(out)
}

/// The side of match `m` whose team `captain` captains, with that team as the audit names
/// it; `None` when they captain neither (both, in a league of theirs against themselves, is
/// side `a`'s). `wanted` picks the side where the request names one.
pub async fn side_of(
    conn: &mut Conn,
    captain: &Captain,
    m: &MatchRow,
    wanted: Option<Team>,
) -> Result<Option<(Team, CaptainedTeam)>, ServiceError> {
    let teams = db_captains::teams_of(conn, &captain.email).await?;
    let sides = [(Team::A, m.team_a), (Team::B, m.team_b)];
    Ok(sides
        .into_iter()
        .filter(|(side, _)| wanted.is_none_or(|w| w == *side))
        .find_map(|(side, id)| {
            teams
                .iter()
                .find(|t| t.team_id == id)
                .map(|t| (side, t.clone()))
        }))
}

/// How the audit names a captain: "Kim Lee, captain of Aces".
pub fn in_audit(team: &CaptainedTeam) -> String {
    format!("{}, captain of {}", team.captain_name, team.team_name)
}
