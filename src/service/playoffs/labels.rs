//! The one name of a bracket's real matches wherever a match is named (pages, TV scoreboard,
//! calendar, CSV, the match JSON): "M5 · Winners semi-final", from
//! [`crate::league::bracket::match_label`]. A regular-season match has none.

use std::collections::HashMap;

use super::stored::structure;
use crate::db::Conn;
use crate::db::playoffs as db_playoffs;
use crate::domain::{LeagueId, MatchId};
use crate::league::bracket::match_label;
use crate::rules::Stage;
use crate::service::ServiceError;

/// The label of real match `match_id` (of stage `stage`), `None` outside a bracket.
pub async fn label_of(
    conn: &mut Conn,
    match_id: MatchId,
    stage: Stage,
) -> Result<Option<String>, ServiceError> {
    // A regular-season match is never in a bracket: no query on the hot path of hand entry.
    if stage == Stage::Regular {
        return Ok(None);
    }
    let Some(row) = db_playoffs::by_match_id(conn, match_id).await? else {
        return Ok(None);
    };
    let Some(bracket) = db_playoffs::by_id(conn, row.bracket_id).await? else {
        return Ok(None);
    };
    let structure = structure(&bracket)?;
    Ok(usize::try_from(row.match_index)
        .ok()
        .and_then(|i| match_label(&structure, i)))
}

/// The label of every real match of league `league_id`'s bracket (empty without one).
pub async fn labels_of_league(
    conn: &mut Conn,
    league_id: LeagueId,
) -> Result<HashMap<MatchId, String>, ServiceError> {
    let Some(bracket) = db_playoffs::of_league(conn, league_id).await? else {
        return Ok(HashMap::new());
    };
    let structure = structure(&bracket)?;
    Ok(db_playoffs::matches(conn, bracket.id)
        .await?
        .into_iter()
        .filter_map(|r| {
            let index = usize::try_from(r.match_index).ok()?;
            Some((r.match_id?, match_label(&structure, index)?))
        })
        .collect())
}
