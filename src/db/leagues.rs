//! Leagues, teams and league supervisors.

use super::{Conn, StoreKind, on_store};

use crate::domain::{DivisionId, LeagueId, PersonName, Slug, TeamId, TeamName, Timestamp, UserId};

#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct LeagueRow {
    pub id: LeagueId,
    pub slug: Slug,
    pub name: String,
    pub rules_regular: String,
    pub rules_playoff: String,
    pub rules_final: String,
    pub tiebreak_order: String,
    pub created_at: Timestamp,
    /// The season settings as given (JSON of `league::settings::Settings`; migration 0008).
    pub settings: String,
    /// A past season: read-only (migration 0024, docs/api.md §18.2).
    pub archived: bool,
}

pub struct NewLeague<'a> {
    pub slug: &'a str,
    pub name: &'a str,
    pub rules_regular: &'a str,
    pub rules_playoff: &'a str,
    pub rules_final: &'a str,
    pub tiebreak_order: &'a str,
    pub now: Timestamp,
}

pub async fn insert(conn: &mut Conn, l: &NewLeague<'_>) -> sqlx::Result<LeagueId> {
    let id: i64 = on_store!(conn, |c| {
        sqlx::query_scalar(
        "INSERT INTO leagues (slug, name, rules_regular, rules_playoff, rules_final, tiebreak_order, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
    )
    .bind(l.slug)
    .bind(l.name)
    .bind(l.rules_regular)
    .bind(l.rules_playoff)
    .bind(l.rules_final)
    .bind(l.tiebreak_order)
    .bind(l.now)
    .fetch_one(c)
    .await
    })?;
    Ok(LeagueId(id))
}

/// Stores a league's season settings (JSON).
pub async fn set_settings(conn: &mut Conn, id: LeagueId, settings: &str) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE leagues SET settings = $1 WHERE id = $2"
    )
    .bind(settings)
    .bind(id))?;
    Ok(())
}

pub async fn update(conn: &mut Conn, id: LeagueId, l: &NewLeague<'_>) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE leagues SET name = $1, rules_regular = $2, rules_playoff = $3, rules_final = $4, tiebreak_order = $5
         WHERE id = $6",
    )
    .bind(l.name)
    .bind(l.rules_regular)
    .bind(l.rules_playoff)
    .bind(l.rules_final)
    .bind(l.tiebreak_order)
    .bind(id))?;
    Ok(())
}

pub async fn by_slug(conn: &mut Conn, slug: &Slug) -> sqlx::Result<Option<LeagueRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM leagues WHERE slug = $1"
    )
    .bind(slug)
    .fetch_optional(c)
    .await)
}

pub async fn by_id(conn: &mut Conn, id: LeagueId) -> sqlx::Result<Option<LeagueRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM leagues WHERE id = $1"
    )
    .bind(id)
    .fetch_optional(c)
    .await)
}

/// Every league that reads, newest first: one whose row does not read is left out and
/// logged ([`super::readable`]), so no list of leagues fails for it (`check` names it).
pub async fn all(conn: &mut Conn) -> sqlx::Result<Vec<LeagueRow>> {
    on_store!(conn, |c| sqlx::query(
        "SELECT * FROM leagues ORDER BY created_at DESC, id DESC"
    )
    .fetch_all(c)
    .await
    .map(|rows| super::readable(&rows, "league")))
}

/// Archives (`true`) or unarchives a league. The store refuses every other write to an
/// archived league (migration 0024).
pub async fn set_archived(conn: &mut Conn, id: LeagueId, archived: bool) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE leagues SET archived = $1 WHERE id = $2"
    )
    .bind(archived)
    .bind(id))?;
    Ok(())
}

/// The league's matches in progress (they keep an archive from happening).
pub async fn in_progress(conn: &mut Conn, id: LeagueId) -> sqlx::Result<Vec<i64>> {
    on_store!(conn, |c| sqlx::query_scalar(
        "SELECT id FROM matches WHERE league_id = $1 AND status = 'in_progress' ORDER BY id"
    )
    .bind(id)
    .fetch_all(c)
    .await)
}

/// Whether anything was played in the league: a match started, finished or forfeited, a
/// hand recorded (a cancelled playoff match keeps its hands), or a bracket made.
pub async fn has_results(conn: &mut Conn, id: LeagueId) -> sqlx::Result<bool> {
    on_store!(conn, |c| sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM matches WHERE league_id = $1
                          AND status IN ('in_progress', 'complete', 'forfeit'))
             OR EXISTS (SELECT 1 FROM hands h JOIN matches m ON m.id = h.match_id
                         WHERE m.league_id = $1)
             OR EXISTS (SELECT 1 FROM brackets WHERE league_id = $1)"
    )
    .bind(id)
    .fetch_one(c)
    .await)
}

/// Every row the league owns, children first, then the league itself. The audit log keeps
/// its entries, no longer filed under the league or its matches: SQLite gives the next new
/// row the highest id plus one, so a new league can take a deleted one's id, and must not be
/// shown the deleted league's history.
const DELETE_LEAGUE: &[&str] = &[
    "UPDATE audit_log SET league_id = NULL, match_id = NULL WHERE league_id = $1",
    "DELETE FROM idempotency_keys WHERE match_id IN (SELECT id FROM matches WHERE league_id = $1)",
    "DELETE FROM action_keys WHERE match_id IN (SELECT id FROM matches WHERE league_id = $1)",
    "DELETE FROM rating_notes WHERE match_id IN (SELECT id FROM matches WHERE league_id = $1)",
    "DELETE FROM lineups WHERE match_id IN (SELECT id FROM matches WHERE league_id = $1)",
    "DELETE FROM reschedule_requests WHERE match_id IN (SELECT id FROM matches WHERE league_id = $1)",
    "DELETE FROM disputes WHERE match_id IN (SELECT id FROM matches WHERE league_id = $1)",
    "DELETE FROM hands WHERE match_id IN (SELECT id FROM matches WHERE league_id = $1)",
    "DELETE FROM notices WHERE league_id = $1",
    "DELETE FROM notice_subscriptions WHERE league_id = $1",
    "DELETE FROM player_eligibility_overrides
      WHERE player_id IN (SELECT id FROM players WHERE league_id = $1)",
    "DELETE FROM players WHERE league_id = $1",
    "DELETE FROM swiss_rounds WHERE league_id = $1",
    "DELETE FROM matches WHERE league_id = $1",
    "DELETE FROM eligibility_overrides WHERE team_id IN (SELECT id FROM teams WHERE league_id = $1)",
    "DELETE FROM head_to_head WHERE team_id IN (SELECT id FROM teams WHERE league_id = $1)
        OR opponent_id IN (SELECT id FROM teams WHERE league_id = $1)",
    "DELETE FROM team_records WHERE team_id IN (SELECT id FROM teams WHERE league_id = $1)",
    "DELETE FROM teams WHERE league_id = $1",
    "DELETE FROM divisions WHERE league_id = $1",
    "DELETE FROM league_supervisors WHERE league_id = $1",
    "DELETE FROM match_counts WHERE league_id = $1",
    "DELETE FROM leagues WHERE id = $1",
];

/// Deletes the league and every row it owns (`DELETE_LEAGUE`). The caller checks first that
/// nothing was played in it and that it is not archived (the store refuses that write).
pub async fn delete(conn: &mut Conn, id: LeagueId) -> sqlx::Result<()> {
    for sql in DELETE_LEAGUE {
        on_store!(conn, execute sqlx::query(*sql).bind(id))?;
    }
    Ok(())
}

/// A new league `slug` named `name` with the rules, tiebreak order and settings of `from`.
pub async fn insert_copy(
    conn: &mut Conn,
    from: LeagueId,
    slug: &str,
    name: &str,
    now: Timestamp,
) -> sqlx::Result<LeagueId> {
    let id: i64 = on_store!(conn, |c| {
        sqlx::query_scalar(
        "INSERT INTO leagues (slug, name, rules_regular, rules_playoff, rules_final, tiebreak_order, settings, created_at)
         SELECT $1, $2, rules_regular, rules_playoff, rules_final, tiebreak_order, settings, $3
         FROM leagues WHERE id = $4 RETURNING id"
    )
    .bind(slug)
    .bind(name)
    .bind(now)
    .bind(from)
    .fetch_one(c)
    .await
    })?;
    Ok(LeagueId(id))
}

/// Copies the divisions of `from` into `to`, in the order they were made.
pub async fn copy_divisions(conn: &mut Conn, from: LeagueId, to: LeagueId) -> sqlx::Result<u64> {
    on_store!(conn, execute sqlx::query(
        "INSERT INTO divisions (league_id, name)
         SELECT $1, name FROM divisions WHERE league_id = $2 ORDER BY id"
    )
    .bind(to)
    .bind(from))
}

/// Copies the teams of `from` that are not withdrawn into `to`, with their active players
/// (name, student id, email, captain), in the order they were added, each team into the
/// division of the same name (copied first, [`copy_divisions`]). Team names are unique
/// within a league, so a copied player finds their team by its name. Returns the teams copied.
pub async fn copy_teams(
    conn: &mut Conn,
    from: LeagueId,
    to: LeagueId,
    now: Timestamp,
) -> sqlx::Result<u64> {
    let teams = on_store!(conn, execute sqlx::query(
        "INSERT INTO teams (league_id, name, player1, player2, division_id)
         SELECT $1, t.name, t.player1, t.player2,
                (SELECT nd.id FROM divisions od JOIN divisions nd ON nd.league_id = $1 AND nd.name = od.name
                 WHERE od.id = t.division_id)
         FROM teams t
         WHERE t.league_id = $2 AND NOT t.withdrawn ORDER BY t.id"
    )
    .bind(to)
    .bind(from))?;
    on_store!(conn, execute sqlx::query(
        "INSERT INTO players (team_id, league_id, name, student_id, email, captain, active, created_at)
         SELECT nt.id, nt.league_id, p.name, p.student_id, p.email, p.captain, p.active, $1
         FROM players p
         JOIN teams ot ON ot.id = p.team_id
         JOIN teams nt ON nt.league_id = $2 AND nt.name = ot.name
         WHERE p.league_id = $3 AND p.active
         ORDER BY p.id"
    )
    .bind(now)
    .bind(to)
    .bind(from))?;
    Ok(teams)
}

#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct TeamRow {
    pub id: TeamId,
    pub league_id: LeagueId,
    pub name: TeamName,
    pub player1: PersonName,
    pub player2: PersonName,
    pub withdrawn: bool,
    /// Why the forfeit policy withdrew it (migration 0009).
    pub dropped_reason: Option<String>,
    /// Its division, if the league has divisions (migration 0023).
    pub division_id: Option<DivisionId>,
}

/// Withdraws a team under the league's forfeit policy, saying why.
pub async fn drop_team(conn: &mut Conn, id: TeamId, reason: &str) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "UPDATE teams SET withdrawn = TRUE, dropped_reason = $1 WHERE id = $2"
    )
    .bind(reason)
    .bind(id))?;
    Ok(())
}

pub async fn insert_team(
    conn: &mut Conn,
    league_id: LeagueId,
    name: &TeamName,
    players: &[PersonName; 2],
) -> sqlx::Result<TeamId> {
    let id: i64 = on_store!(conn, |c| {
        sqlx::query_scalar(
        "INSERT INTO teams (league_id, name, player1, player2) VALUES ($1, $2, $3, $4) RETURNING id"
    )
    .bind(league_id)
    .bind(name)
    .bind(&players[0])
    .bind(&players[1])
    .fetch_one(c)
    .await
    })?;
    Ok(TeamId(id))
}

/// Renames a team or withdraws it (its players' names are `players::sync_seats`').
pub async fn update_team(
    conn: &mut Conn,
    id: TeamId,
    name: &TeamName,
    withdrawn: bool,
) -> sqlx::Result<()> {
    // A team put back in play is no longer "dropped".
    on_store!(conn, execute sqlx::query(
        "UPDATE teams SET name = $1, withdrawn = $2,
                dropped_reason = CASE WHEN $2 THEN dropped_reason END
         WHERE id = $3",
    )
    .bind(name)
    .bind(withdrawn)
    .bind(id))?;
    Ok(())
}

pub async fn teams(conn: &mut Conn, league_id: LeagueId) -> sqlx::Result<Vec<TeamRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM teams WHERE league_id = $1 ORDER BY lower(name), id"
    )
    .bind(league_id)
    .fetch_all(c)
    .await)
}

/// The teams of every league not archived (the home page's "Find your team"), in one query.
pub async fn teams_of_current_leagues(conn: &mut Conn) -> sqlx::Result<Vec<TeamRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT t.* FROM teams t JOIN leagues l ON l.id = t.league_id
         WHERE NOT l.archived ORDER BY t.league_id, lower(t.name), t.id"
    )
    .fetch_all(c)
    .await)
}

/// The division of each of the league's teams that has one.
pub async fn team_divisions(
    conn: &mut Conn,
    league_id: LeagueId,
) -> sqlx::Result<Vec<(TeamId, DivisionId)>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT id, division_id FROM teams WHERE league_id = $1 AND division_id IS NOT NULL"
    )
    .bind(league_id)
    .fetch_all(c)
    .await)
}

/// The names of the `teams`, by id (a page of matches names only its own teams).
pub async fn names_of(conn: &mut Conn, teams: &[TeamId]) -> sqlx::Result<Vec<(TeamId, String)>> {
    let ids = serde_json::to_string(teams).unwrap_or_else(|_| "[]".to_string());
    let sql = match conn.kind() {
        StoreKind::Sqlite => {
            "SELECT id, name FROM teams WHERE id IN (SELECT value FROM json_each($1))"
        }
        StoreKind::Postgres => {
            "SELECT id, name FROM teams
             WHERE id IN (SELECT value::bigint FROM json_array_elements_text($1::json))"
        }
    };
    on_store!(conn, |c| sqlx::query_as(sql).bind(ids).fetch_all(c).await)
}

/// The league's teams that are out of it (withdrawn or dropped): the few rows the standings
/// mark, not all the league's.
pub async fn withdrawn_teams(conn: &mut Conn, league_id: LeagueId) -> sqlx::Result<Vec<TeamRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM teams WHERE league_id = $1 AND withdrawn = TRUE"
    )
    .bind(league_id)
    .fetch_all(c)
    .await)
}

pub async fn count_teams(conn: &mut Conn, league_id: LeagueId) -> sqlx::Result<i64> {
    on_store!(conn, |c| sqlx::query_scalar(
        "SELECT count(*) FROM teams WHERE league_id = $1"
    )
    .bind(league_id)
    .fetch_one(c)
    .await)
}

pub async fn team(conn: &mut Conn, id: TeamId) -> sqlx::Result<Option<TeamRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT * FROM teams WHERE id = $1"
    )
    .bind(id)
    .fetch_optional(c)
    .await)
}

/// A team and its regular-season record as the triggers keep it (migration 0012), with its
/// record against the teams level with it on win % (its pairs marked level, summed,
/// migration 0029): what the head-to-head tiebreak reads. Read from a JSON array of the
/// fields in this order (see [`records`]).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct RecordRow {
    pub team_id: TeamId,
    pub name: String,
    pub played: i64,
    pub won: i64,
    pub lost: i64,
    pub tied: i64,
    pub forfeits: i64,
    pub points_for: i64,
    pub points_against: i64,
    pub rating_sum: i64,
    pub rating_count: i64,
    pub level_played: i64,
    pub level_won: i64,
    pub level_tied: i64,
}

/// Every team of the league with its record: one row per team, whatever the season's length.
///
/// The rows come as one JSON array: SQLite's driver hands each row from its thread to the
/// server's, which cost 4–5 ms for 1,024 teams in the server against 1 ms for the array.
pub async fn records(conn: &mut Conn, league_id: LeagueId) -> sqlx::Result<Vec<RecordRow>> {
    let sql = match conn.kind() {
        StoreKind::Sqlite => {
            "SELECT json_group_array(json_array(t.id, t.name,
                 coalesce(r.played, 0), coalesce(r.won, 0), coalesce(r.lost, 0),
                 coalesce(r.tied, 0), coalesce(r.forfeits, 0), coalesce(r.points_for, 0),
                 coalesce(r.points_against, 0), coalesce(r.rating_sum, 0),
                 coalesce(r.rating_count, 0), coalesce(r.level_played, 0),
                 coalesce(r.level_won, 0), coalesce(r.level_tied, 0)))
             FROM teams t LEFT JOIN team_records r ON r.team_id = t.id
             WHERE t.league_id = $1"
        }
        StoreKind::Postgres => {
            "SELECT coalesce(json_agg(json_build_array(t.id, t.name,
                 coalesce(r.played, 0), coalesce(r.won, 0), coalesce(r.lost, 0),
                 coalesce(r.tied, 0), coalesce(r.forfeits, 0), coalesce(r.points_for, 0),
                 coalesce(r.points_against, 0), coalesce(r.rating_sum, 0),
                 coalesce(r.rating_count, 0), coalesce(r.level_played, 0),
                 coalesce(r.level_won, 0), coalesce(r.level_tied, 0))), '[]')::text
             FROM teams t LEFT JOIN team_records r ON r.team_id = t.id
             WHERE t.league_id = $1"
        }
    };
    let rows: String = on_store!(conn, |c| sqlx::query_scalar(sql)
        .bind(league_id)
        .fetch_one(c)
        .await)?;
    serde_json::from_str(&rows).map_err(|e| sqlx::Error::Decode(Box::new(e)))
}

/// Rewrites `team_records` and `head_to_head` (with each pair's level) from the finished
/// matches and `match_counts` from the matches (what the triggers keep, migrations 0012,
/// 0013 and 0029), and counts a change for the page cache; answers how many teams have a
/// record.
pub async fn rebuild_records(conn: &mut Conn) -> sqlx::Result<u64> {
    on_store!(conn, execute sqlx::raw_sql(
        "DELETE FROM team_records; DELETE FROM head_to_head; DELETE FROM match_counts;
         UPDATE data_version SET n = n + 1;
         INSERT INTO match_counts
         SELECT league_id, status, count(*) FROM matches GROUP BY league_id, status;
         INSERT INTO head_to_head (team_id, opponent_id, played, won, tied)
         SELECT team_id, opponent_id, count(*), sum(won), sum(tied)
         FROM result_sides GROUP BY team_id, opponent_id;",
    ))?;
    let done = on_store!(conn, execute sqlx::query(
        "INSERT INTO team_records (team_id, played, won, lost, tied, forfeits, points_for,
                                   points_against, rating_sum, rating_count)
         SELECT team_id, count(*), sum(won), sum(lost), sum(tied), sum(forfeits), sum(points_for),
                sum(points_against), sum(rating_sum), sum(rating_count)
         FROM result_sides GROUP BY team_id",
    ))?;
    let levels = match conn.kind() {
        StoreKind::Sqlite => {
            "UPDATE head_to_head SET level = coalesce((
                 SELECT p.level FROM pair_levels p
                 WHERE p.team_id = head_to_head.team_id AND p.opponent_id = head_to_head.opponent_id
             ), 0);
             UPDATE team_records SET (level_played, level_won, level_tied) = (
                 SELECT coalesce(sum(h.played), 0), coalesce(sum(h.won), 0), coalesce(sum(h.tied), 0)
                 FROM head_to_head h WHERE h.team_id = team_records.team_id AND h.level
             );"
        }
        StoreKind::Postgres => {
            "UPDATE head_to_head h SET level = p.level FROM pair_levels p
             WHERE p.team_id = h.team_id AND p.opponent_id = h.opponent_id;
             UPDATE team_records r SET (level_played, level_won, level_tied) = (
                 SELECT coalesce(sum(h.played), 0), coalesce(sum(h.won), 0), coalesce(sum(h.tied), 0)
                 FROM head_to_head h WHERE h.team_id = r.team_id AND h.level
             );"
        }
    };
    on_store!(conn, execute sqlx::raw_sql(levels))?;
    Ok(done)
}

/// A team's record against one opponent (migration 0012).
#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct VersusRow {
    pub team_id: TeamId,
    pub opponent_id: TeamId,
    pub played: i64,
    pub won: i64,
    pub tied: i64,
}

/// The records of the `teams` against each of their opponents (the head-to-head of tied
/// teams: the caller keeps those against each other). One range of the primary key per
/// team: `opponent_id IN (…)` as well would have SQLite seek every pair of the list.
pub async fn head_to_head(conn: &mut Conn, teams: &[TeamId]) -> sqlx::Result<Vec<VersusRow>> {
    let ids = serde_json::to_string(teams).unwrap_or_else(|_| "[]".to_string());
    let sql = match conn.kind() {
        StoreKind::Sqlite => {
            "SELECT team_id, opponent_id, played, won, tied FROM head_to_head
             WHERE team_id IN (SELECT value FROM json_each($1))"
        }
        StoreKind::Postgres => {
            "SELECT team_id, opponent_id, played, won, tied FROM head_to_head
             WHERE team_id IN (SELECT value::bigint FROM json_array_elements_text($1::json))"
        }
    };
    on_store!(conn, |c| sqlx::query_as(sql).bind(ids).fetch_all(c).await)
}

/// The names of two teams, in one query.
pub async fn team_names(
    conn: &mut Conn,
    a: TeamId,
    b: TeamId,
) -> sqlx::Result<(Option<String>, Option<String>)> {
    let rows: Vec<(TeamId, String)> = on_store!(conn, |c| sqlx::query_as(
        "SELECT id, name FROM teams WHERE id IN ($1, $2)"
    )
    .bind(a)
    .bind(b)
    .fetch_all(c)
    .await)?;
    let name = |id| rows.iter().find(|(t, _)| *t == id).map(|(_, n)| n.clone());
    Ok((name(a), name(b)))
}

pub async fn assign_supervisor(
    conn: &mut Conn,
    league_id: LeagueId,
    user_id: UserId,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "INSERT INTO league_supervisors (league_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING"
    )
    .bind(league_id)
    .bind(user_id))?;
    Ok(())
}

pub async fn unassign_supervisor(
    conn: &mut Conn,
    league_id: LeagueId,
    user_id: UserId,
) -> sqlx::Result<()> {
    on_store!(conn, execute sqlx::query(
        "DELETE FROM league_supervisors WHERE league_id = $1 AND user_id = $2"
    )
    .bind(league_id)
    .bind(user_id))?;
    Ok(())
}

pub async fn is_supervisor(
    conn: &mut Conn,
    league_id: LeagueId,
    user_id: UserId,
) -> sqlx::Result<bool> {
    let found: Option<LeagueId> = on_store!(conn, |c| sqlx::query_scalar(
        "SELECT league_id FROM league_supervisors WHERE league_id = $1 AND user_id = $2"
    )
    .bind(league_id)
    .bind(user_id)
    .fetch_optional(c)
    .await)?;
    Ok(found.is_some())
}

/// Usernames of the supervisors assigned to a league.
pub async fn supervisors(
    conn: &mut Conn,
    league_id: LeagueId,
) -> sqlx::Result<Vec<(UserId, String)>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT u.id, u.username FROM league_supervisors s JOIN users u ON u.id = s.user_id
         WHERE s.league_id = $1 ORDER BY lower(u.username)",
    )
    .bind(league_id)
    .fetch_all(c)
    .await)
}

/// An admin's eligibility decision on a team (migration 0010), with who made it.
#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct OverrideRow {
    pub team_id: TeamId,
    pub eligible: bool,
    pub reason: String,
    pub set_by: String,
    pub set_at: Timestamp,
}

/// The eligibility overrides of a league's teams.
pub async fn overrides(conn: &mut Conn, league_id: LeagueId) -> sqlx::Result<Vec<OverrideRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT o.team_id, o.eligible, o.reason, u.username AS set_by, o.set_at
         FROM eligibility_overrides o JOIN teams t ON t.id = o.team_id
         JOIN users u ON u.id = o.set_by
         WHERE t.league_id = $1",
    )
    .bind(league_id)
    .fetch_all(c)
    .await)
}

/// Sets a team's override (`Some`: eligible or not, with the reason), or removes it (`None`).
pub async fn set_override(
    conn: &mut Conn,
    team: TeamId,
    decision: Option<(bool, &str)>,
    by: UserId,
    at: Timestamp,
) -> sqlx::Result<()> {
    match decision {
        Some((eligible, reason)) => {
            on_store!(conn, execute sqlx::query(
                "INSERT INTO eligibility_overrides (team_id, eligible, reason, set_by, set_at)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (team_id) DO UPDATE
                 SET eligible = $2, reason = $3, set_by = $4, set_at = $5",
            )
            .bind(team)
            .bind(eligible)
            .bind(reason)
            .bind(by)
            .bind(at))?;
        }
        None => {
            on_store!(conn, execute sqlx::query(
                "DELETE FROM eligibility_overrides WHERE team_id = $1"
            )
            .bind(team))?;
        }
    }
    Ok(())
}
