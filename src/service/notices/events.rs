//! The notices of forfeits, of a team dropped and of a corrected result: what each says and
//! to whom. (A match moved, postponed or cancelled is in the module above.)

use super::{Notice, enqueue, page, when};
use crate::db::Conn;
use crate::db::leagues as db_leagues;
use crate::db::matches::MatchRow;
use crate::domain::{ForfeitSide, MatchId, MatchStatus, TeamId, Timestamp};
use crate::rules::Team;
use crate::service::ServiceError;

/// The league's and the teams' names of match `m`.
pub(super) async fn names(conn: &mut Conn, m: &MatchRow) -> Result<[String; 3], ServiceError> {
    let league = db_leagues::by_id(conn, m.league_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    Ok([
        league.name.to_string(),
        team_name(conn, m.team_a).await?,
        team_name(conn, m.team_b).await?,
    ])
}

pub(super) async fn team_name(conn: &mut Conn, team: TeamId) -> Result<String, ServiceError> {
    Ok(db_leagues::team(conn, team)
        .await?
        .map_or_else(|| format!("team {team}"), |t| t.name.to_string()))
}

/// Writes the notice of a forfeit recorded in match `m` by `who`, to both teams.
pub async fn tell_forfeit(
    conn: &mut Conn,
    public_url: &url::Url,
    now: Timestamp,
    m: &MatchRow,
    who: ForfeitSide,
) -> Result<(), ServiceError> {
    let [league, a, b] = names(conn, m).await?;
    let headline = match who {
        ForfeitSide::A => format!("{a} forfeited {a} v {b}"),
        ForfeitSide::B => format!("{b} forfeited {a} v {b}"),
        ForfeitSide::Both => format!("{a} v {b}: a double forfeit"),
    };
    let paragraphs = vec![
        format!(
            "{headline} ({league}), the match set for {}.",
            when(m.scheduled_at)
        ),
        format!(
            "The match: {}",
            page(public_url, &format!("/matches/{}", m.id))
        ),
    ];
    let notice = about_match(
        m,
        "forfeit",
        format!("forfeit:{}", m.id),
        (&headline, &league),
        paragraphs,
    );
    enqueue(conn, now, &notice).await?;
    Ok(())
}

/// Writes the notice of a default: team `side` of match `m` said it cannot play (`reason`).
pub async fn tell_default(
    conn: &mut Conn,
    public_url: &url::Url,
    now: Timestamp,
    m: &MatchRow,
    side: Team,
    reason: &str,
) -> Result<(), ServiceError> {
    let [league, a, b] = names(conn, m).await?;
    let (out, other) = match side {
        Team::A => (&a, &b),
        Team::B => (&b, &a),
    };
    let headline = format!("{out} cannot play {a} v {b}");
    let paragraphs = vec![
        format!(
            "{out} told the office it cannot play {a} v {b} ({league}), the match set for {}: \
             the match is a default, a win for {other} and a loss (not a forfeit) for {out}.",
            when(m.scheduled_at)
        ),
        format!("Why: {reason}"),
        format!(
            "The match: {}",
            page(public_url, &format!("/matches/{}", m.id))
        ),
    ];
    let notice = about_match(
        m,
        "default",
        format!("default:{}", m.id),
        (&headline, &league),
        paragraphs,
    );
    enqueue(conn, now, &notice).await?;
    Ok(())
}

/// Writes the notice of a reschedule request declined (`why`): to both teams.
pub async fn tell_reschedule_declined(
    conn: &mut Conn,
    public_url: &url::Url,
    now: Timestamp,
    m: &MatchRow,
    request: i64,
    why: &str,
) -> Result<(), ServiceError> {
    let [league, a, b] = names(conn, m).await?;
    let headline = format!("{a} v {b} stays as set");
    let paragraphs = vec![
        format!(
            "The request to move {a} v {b} ({league}) was declined: the match stays {}.",
            when(m.scheduled_at)
        ),
        format!("Why: {why}"),
        format!(
            "The match: {}",
            page(public_url, &format!("/matches/{}", m.id))
        ),
    ];
    let mut notice = about_match(
        m,
        "reschedule_declined",
        format!("reschedule_declined:{request}"),
        (&headline, &league),
        paragraphs,
    );
    notice.supervisors = false;
    enqueue(conn, now, &notice).await?;
    Ok(())
}

/// Writes the notice of a dispute resolved with `note`: to both teams' captains.
pub async fn tell_dispute_resolved(
    conn: &mut Conn,
    public_url: &url::Url,
    now: Timestamp,
    m: &MatchRow,
    dispute: i64,
    note: &str,
) -> Result<(), ServiceError> {
    let [league, a, b] = names(conn, m).await?;
    let headline = format!("The dispute of {a} v {b} is resolved");
    let paragraphs = vec![
        format!("The coordinator resolved the dispute of {a} v {b} ({league})."),
        format!("The coordinator's note: {note}"),
        format!(
            "The match: {}",
            page(public_url, &format!("/matches/{}", m.id))
        ),
    ];
    let notice = about_match(
        m,
        "dispute_resolved",
        format!("dispute_resolved:{dispute}"),
        (&headline, &league),
        paragraphs,
    );
    super::enqueue_to_captains(conn, now, &notice).await?;
    Ok(())
}

/// Writes the notice of team `team` dropped from its league (`reason`), its matches
/// `cancelled`: to the team and to the opponents of those matches.
pub async fn tell_team_dropped(
    conn: &mut Conn,
    public_url: &url::Url,
    now: Timestamp,
    team: TeamId,
    reason: &str,
    cancelled: &[MatchId],
) -> Result<(), ServiceError> {
    let Some(row) = db_leagues::team(conn, team).await? else {
        return Ok(());
    };
    let league = db_leagues::by_id(conn, row.league_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let mut teams = vec![team];
    for id in cancelled {
        if let Some(m) = crate::db::matches::by_id(conn, *id).await? {
            teams.push(if m.team_a == team { m.team_b } else { m.team_a });
        }
    }
    let name = row.name.to_string();
    let notice = Notice {
        league: row.league_id,
        event: "team_dropped",
        key: format!("team_dropped:{team}"),
        teams,
        supervisors: true,
        subject: format!("{name} is dropped from {}", league.name),
        paragraphs: vec![
            format!("{name} is dropped from {} ({reason}).", league.name),
            format!(
                "Its matches not played yet are cancelled ({}).",
                cancelled.len()
            ),
            format!(
                "The league: {}",
                page(public_url, &format!("/leagues/{}", league.slug))
            ),
        ],
    };
    enqueue(conn, now, &notice).await?;
    Ok(())
}

/// A match's result in words: "Aces 512, Kings 430: Aces won", or how it stands.
fn result_words(m: &MatchRow, a: &str, b: &str) -> String {
    let scores = format!("{a} {}, {b} {}", m.score_a, m.score_b);
    match (m.status, m.winner) {
        (MatchStatus::Complete, Some(Team::A)) => format!("{scores}: {a} won"),
        (MatchStatus::Complete, Some(Team::B)) => format!("{scores}: {b} won"),
        (MatchStatus::Complete, None) => format!("{scores}: a draw"),
        _ => format!("{scores}, not finished"),
    }
}

/// Writes the notice of a correction (`reason`, revision `revision` of hand `hand`) that
/// changed the result of match `before`, finished, to `after`; nothing when the result
/// stands or the match was not finished.
pub async fn tell_result_corrected(
    conn: &mut Conn,
    public_url: &url::Url,
    now: Timestamp,
    (before, after): (&MatchRow, &MatchRow),
    (hand, revision): (i64, i64),
    reason: &str,
) -> Result<(), ServiceError> {
    let result = |m: &MatchRow| (m.status, m.winner, m.score_a, m.score_b);
    if before.status != MatchStatus::Complete || result(before) == result(after) {
        return Ok(());
    }
    let [league, a, b] = names(conn, after).await?;
    let headline = format!("{a} v {b}: the result is corrected");
    let paragraphs = vec![
        format!("{headline} ({league}): hand {hand} was corrected."),
        format!(
            "Now: {}. Was: {}.",
            result_words(after, &a, &b),
            result_words(before, &a, &b)
        ),
        format!("Why: {reason}"),
        format!(
            "The match: {}",
            page(public_url, &format!("/matches/{}", after.id))
        ),
    ];
    let key = format!("result_corrected:{}:{hand}:{revision}", after.id);
    let notice = about_match(
        after,
        "result_corrected",
        key,
        (&headline, &league),
        paragraphs,
    );
    enqueue(conn, now, &notice).await?;
    Ok(())
}

/// The notice of `event` about match `m`, to both its teams and the league's supervisors,
/// its subject the `headline` and the league's name.
fn about_match(
    m: &MatchRow,
    event: &'static str,
    key: String,
    (headline, league): (&str, &str),
    paragraphs: Vec<String>,
) -> Notice {
    Notice {
        league: m.league_id,
        event,
        key,
        teams: vec![m.team_a, m.team_b],
        supervisors: true,
        subject: format!("{headline} · {league}"),
        paragraphs,
    }
}
