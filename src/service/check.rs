//! `check`: every cache kept beside the hands, rebuilt from them and compared. A match row
//! caches its totals, state and hand count (rewritten at every write from a replay of its
//! hands); a restore, a hand-edited file or a bug would show here as a difference.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use sqlx::Connection;

use super::ServiceError;
use super::leagues::League;
use super::match_view::{replay, rules_of, stored_hands};
use super::matches::totals_of;
use crate::db::Db;
use crate::db::leagues as db_leagues;
use crate::db::matches::{self as db_matches, MatchRow};
use crate::domain::{LeagueId, MatchId, MatchStatus};

/// What `check` found.
#[derive(Debug, Default)]
pub struct Report {
    pub matches: usize,
    pub hands: usize,
    /// Each cached value that differs from what the hands give.
    pub differences: Vec<Difference>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    pub match_id: MatchId,
    pub field: &'static str,
    pub cached: String,
    pub from_hands: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "match {}: {} is {}, the hands give {}",
            self.match_id, self.field, self.cached, self.from_hands
        )
    }
}

/// Replays every match's hands in one read snapshot and compares the cached totals.
pub async fn check(db: &Db) -> Result<Report, ServiceError> {
    let mut conn = db.reader().acquire().await?;
    let mut tx = conn.begin().await?;
    let mut leagues: HashMap<LeagueId, League> = HashMap::new();
    let mut report = Report::default();
    for m in db_matches::every(&mut tx).await? {
        let league = match leagues.entry(m.league_id) {
            Entry::Occupied(known) => known.into_mut(),
            Entry::Vacant(new) => {
                let row = db_leagues::by_id(&mut tx, m.league_id)
                    .await?
                    .ok_or_else(|| ServiceError::corrupt("match", "its league is missing"))?;
                new.insert(League::from_row(row)?)
            }
        };
        let rules = rules_of(&m, league)?;
        let (_, inputs) = stored_hands(&mut tx, m.id).await?;
        let (game, _) = replay(&rules, m.stage, &inputs)?;
        report.matches += 1;
        report.hands += inputs.len();
        compare(&m, &game, &mut report.differences);
    }
    Ok(report)
}

/// The cached values of `m` against `game`, its hands replayed. Every match keeps the score,
/// bags and hand count of its hands; a match being played or played out also its state (a
/// forfeit or a cancellation keeps the hands' score and sets its own state).
fn compare(m: &MatchRow, game: &crate::rules::Game, out: &mut Vec<Difference>) {
    let want = totals_of(game);
    let mut differ = |field: &'static str, cached: String, from_hands: String| {
        if cached != from_hands {
            out.push(Difference {
                match_id: m.id,
                field,
                cached,
                from_hands,
            });
        }
    };
    differ("score_a", m.score_a.to_string(), want.score_a.to_string());
    differ("score_b", m.score_b.to_string(), want.score_b.to_string());
    differ("bags_a", m.bags_a.to_string(), want.bags_a.to_string());
    differ("bags_b", m.bags_b.to_string(), want.bags_b.to_string());
    differ(
        "hands_played",
        m.hands_played.to_string(),
        want.hands_played.to_string(),
    );
    if matches!(m.status, MatchStatus::InProgress | MatchStatus::Complete) {
        differ(
            "status",
            format!("{:?}", m.status),
            format!("{:?}", want.status),
        );
        differ(
            "game_status",
            format!("{:?}", m.game_status),
            format!("{:?}", want.game_status),
        );
        differ(
            "winner",
            format!("{:?}", m.winner),
            format!("{:?}", want.winner),
        );
        differ(
            "reason",
            format!("{:?}", m.reason),
            format!("{:?}", want.reason),
        );
    }
}
