//! The notice of a bracket created: each seeded team hears its seed, its first opponent and
//! when they play (a time set later is told as a match scheduled).

use super::events::team_name;
use super::{Notice, enqueue, page, when};
use crate::db::Conn;
use crate::db::leagues::LeagueRow;
use crate::db::matches as db_matches;
use crate::domain::{BracketId, BracketMatchStatus, TeamId, Timestamp};
use crate::service::ServiceError;
use crate::service::playoffs::{BracketMatchView, BracketView};

/// The bracket match a team plays first: the earliest round it is in, a bye not counted.
fn first_match(view: &BracketView, team: TeamId) -> Option<&BracketMatchView> {
    let plays = |bm: &&BracketMatchView| {
        bm.status != BracketMatchStatus::Bye
            && [&bm.team_a, &bm.team_b]
                .iter()
                .any(|t| t.as_ref().is_some_and(|t| t.id == team))
    };
    view.matches
        .iter()
        .filter(plays)
        .min_by_key(|bm| (bm.round, bm.id))
}

/// Whom `team` meets in `bm`: the other team, or the winner of the match that feeds its slot.
fn opponent(view: &BracketView, bm: &BracketMatchView, team: TeamId) -> String {
    let (other, slot) = match &bm.team_a {
        Some(t) if t.id == team => (&bm.team_b, 1),
        _ => (&bm.team_a, 0),
    };
    if let Some(t) = other {
        return t.name.clone();
    }
    view.matches
        .iter()
        .find(|f| f.next_match == Some(bm.id) && f.next_slot == Some(slot))
        .map_or_else(
            || "a team still to be decided".into(),
            |f| format!("the winner of {}", f.label),
        )
}

/// Writes, for each team of `seeds` (in seed order), the notice of its place in the bracket
/// `bracket` just created (`view`): to its players only.
pub async fn tell_bracket_created(
    conn: &mut Conn,
    public_url: &url::Url,
    now: Timestamp,
    (bracket, league): (BracketId, &LeagueRow),
    seeds: &[TeamId],
    view: &BracketView,
) -> Result<(), ServiceError> {
    let bracket_page = page(public_url, &format!("/leagues/{}/bracket", league.slug));
    let league_name = league.name.as_str();
    for (i, &team) in seeds.iter().enumerate() {
        let Some(bm) = first_match(view, team) else {
            continue;
        };
        let name = team_name(conn, team).await?;
        let real = match bm.match_id {
            Some(id) => db_matches::by_id(conn, id).await?,
            None => None,
        };
        let time = real.as_ref().and_then(|m| m.scheduled_at);
        let table = real.as_ref().and_then(|m| m.table_name.clone());
        let mut paragraphs = vec![
            format!(
                "{name} is seed {} of {} in the {} playoffs.",
                i + 1,
                seeds.len(),
                league_name
            ),
            format!(
                "First match: {}, against {}: {}, {}.",
                bm.label,
                opponent(view, bm, team),
                when(time),
                table.as_deref().unwrap_or("no table yet")
            ),
        ];
        if time.is_none() {
            paragraphs.push("You will hear when its time is set.".into());
        }
        paragraphs.push(format!("The bracket: {bracket_page}"));
        let notice = Notice {
            league: league.id,
            event: "bracket_created",
            key: format!("bracket_created:{bracket}:{team}"),
            teams: vec![team],
            supervisors: false,
            subject: format!("{name} is seed {} · {league_name} playoffs", i + 1),
            paragraphs,
        };
        enqueue(conn, now, &notice).await?;
    }
    Ok(())
}
