//! `check`: every cache kept beside the hands, rebuilt from them and compared. A match row
//! caches its totals, state and hand count (rewritten at every write from a replay of its
//! hands); each team's record and head-to-head records are kept by triggers from the
//! matches (migration 0012). A restore, a hand-edited file or a bug would show here as a
//! difference; `rebuild_records` puts the records right.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::db::Conn;

use crate::db::Db;
use crate::db::leagues as db_leagues;
use crate::db::matches::{self as db_matches, MatchRow};
use crate::db::playoffs as db_playoffs;
use crate::domain::{BracketId, LeagueId, MatchId, MatchStatus, TeamId, TextEnum};
use crate::league::standings::{LevelRecords, Versus};
use crate::service::ServiceError;
use crate::service::night::match_view::{replay, rules_of, stored_hands};
use crate::service::night::matches::totals_of;
use crate::service::term::leagues::League;
use crate::service::views::standings;

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
    pub of: Cached,
    pub field: String,
    pub cached: String,
    /// What it should be: from the hands (a match) or the finished matches (a record).
    pub computed: String,
}

/// Where a cached value is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cached {
    /// On the match row, from its hands.
    Match(MatchId),
    /// In the team's standings record, from the finished matches.
    Team { id: TeamId, name: String },
    /// In the league's count of matches by status.
    League(LeagueId),
    /// In a playoff bracket, from its real matches.
    Bracket(BracketId),
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.of {
            Cached::Match(id) => write!(
                f,
                "match {id}: {} is {}, the hands give {}",
                self.field, self.cached, self.computed
            ),
            Cached::Team { id, name } => write!(
                f,
                "team {id} ({name}): {} is {}, the matches give {}",
                self.field, self.cached, self.computed
            ),
            Cached::League(id) => write!(
                f,
                "league {id}: {} is {}, the matches give {}",
                self.field, self.cached, self.computed
            ),
            Cached::Bracket(id) => write!(
                f,
                "bracket {id}: {} is {}, its matches give {}",
                self.field, self.cached, self.computed
            ),
        }
    }
}

/// Replays every match's hands in one read snapshot and compares the cached totals.
pub async fn check(db: &Db) -> Result<Report, ServiceError> {
    let mut tx = db.snapshot().await?;
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
    for row in db_leagues::all(&mut tx).await? {
        let league = match leagues.remove(&row.id) {
            Some(known) => known,
            None => League::from_row(row)?,
        };
        compare_records(&mut tx, &league, &mut report.differences).await?;
    }
    compare_counts(&mut tx, &mut report.differences).await?;
    for row in db_playoffs::all(&mut tx).await? {
        let id = row.id;
        for (field, cached, computed) in
            crate::service::playoffs::check_bracket(&mut tx, row).await?
        {
            report.differences.push(Difference {
                of: Cached::Bracket(id),
                field,
                cached,
                computed,
            });
        }
    }
    Ok(report)
}

/// The kept counts of matches by league and status against a count of the matches.
async fn compare_counts(conn: &mut Conn, out: &mut Vec<Difference>) -> Result<(), ServiceError> {
    let mut counts: BTreeMap<(LeagueId, &'static str), (i64, i64)> = BTreeMap::new();
    for (league, status, n) in db_matches::kept_counts(conn).await? {
        counts.entry((league, status.as_str())).or_default().0 = n;
    }
    for (league, status, n) in db_matches::counted_by_status(conn).await? {
        counts.entry((league, status.as_str())).or_default().1 = n;
    }
    for ((league, status), (kept, counted)) in counts {
        if kept != counted {
            out.push(Difference {
                of: Cached::League(league),
                field: format!("the count of {status} matches"),
                cached: kept.to_string(),
                computed: counted.to_string(),
            });
        }
    }
    Ok(())
}

/// The records kept for the teams of `league` against those computed from its matches.
async fn compare_records(
    conn: &mut Conn,
    league: &League,
    out: &mut Vec<Difference>,
) -> Result<(), ServiceError> {
    let (want, want_versus) = standings::recomputed(conn, league).await?;
    let (kept, kept_level) = standings::kept_records(conn, league).await?;
    let ids: Vec<TeamId> = want.iter().map(|s| s.team_id).collect();
    let kept_versus = standings::kept_head_to_head(conn, &ids).await?;
    let names: HashMap<TeamId, &str> = want.iter().map(|s| (s.team_id, s.team.as_str())).collect();
    let mut differ = |team: TeamId, field: String, cached: String, computed: String| {
        if cached != computed {
            out.push(Difference {
                of: Cached::Team {
                    id: team,
                    name: names.get(&team).copied().unwrap_or_default().to_string(),
                },
                field,
                cached,
                computed,
            });
        }
    };
    for w in &want {
        let Some(k) = kept.iter().find(|k| k.team_id == w.team_id) else {
            continue;
        };
        for (field, cached, computed) in [
            ("played", k.played.into(), w.played.into()),
            ("won", k.won.into(), w.won.into()),
            ("lost", k.lost.into(), w.lost.into()),
            ("tied", k.tied.into(), w.tied.into()),
            ("forfeits", k.forfeits.into(), w.forfeits.into()),
            ("points_for", k.points_for, w.points_for),
            ("points_against", k.points_against, w.points_against),
            ("rating_sum", k.ratings.sum.into(), w.ratings.sum.into()),
            (
                "rating_count",
                k.ratings.count.into(),
                w.ratings.count.into(),
            ),
        ] {
            let (cached, computed): (i64, i64) = (cached, computed);
            differ(
                w.team_id,
                field.to_string(),
                cached.to_string(),
                computed.to_string(),
            );
        }
    }
    // A pair that never met and one whose games were all undone read the same: no games.
    let pairs: BTreeSet<(TeamId, TeamId)> = want_versus
        .keys()
        .chain(kept_versus.keys())
        .copied()
        .collect();
    for (team, opponent) in pairs {
        let kept = kept_versus
            .get(&(team, opponent))
            .copied()
            .unwrap_or_default();
        let computed = want_versus
            .get(&(team, opponent))
            .copied()
            .unwrap_or_default();
        differ(
            team,
            format!("the record against team {opponent}"),
            versus_words(kept),
            versus_words(computed),
        );
    }
    // Each pair's kept level, summed as the tiebreak reads it.
    let want_level = crate::league::standings::level_records(&want, &want_versus);
    let teams: BTreeSet<TeamId> = want_level
        .keys()
        .chain(kept_level.keys())
        .copied()
        .collect();
    for team in teams {
        let of = |level: &LevelRecords| level.get(&team).copied().unwrap_or_default();
        differ(
            team,
            "the record against the teams level with it".to_string(),
            versus_words(of(&kept_level)),
            versus_words(of(&want_level)),
        );
    }
    Ok(())
}

fn versus_words(v: Versus) -> String {
    format!("{} played, {} won, {} tied", v.played, v.won, v.tied)
}

/// Rewrites every team's record and head-to-head records from the finished matches and each
/// league's counts of matches (what the triggers keep), in one transaction; answers how many
/// teams have a record.
pub async fn rebuild_records(db: &Db) -> Result<u64, ServiceError> {
    let mut tx = db.write().await?;
    let teams = db_leagues::rebuild_records(&mut tx).await?;
    tx.commit().await?;
    Ok(teams)
}

/// The cached values of `m` against `game`, its hands replayed. Every match keeps the score,
/// bags and hand count of its hands; a match being played or played out also its state (a
/// forfeit or a cancellation keeps the hands' score and sets its own state).
pub(crate) fn compare(m: &MatchRow, game: &crate::rules::Game, out: &mut Vec<Difference>) {
    let want = totals_of(game);
    let mut differ = |field: &'static str, cached: String, from_hands: String| {
        if cached != from_hands {
            out.push(Difference {
                of: Cached::Match(m.id),
                field: field.to_string(),
                cached,
                computed: from_hands,
            });
        }
    };
    let counts = [
        ("score_a", m.score_a, want.score_a),
        ("score_b", m.score_b, want.score_b),
        ("bags_a", m.bags_a, want.bags_a),
        ("bags_b", m.bags_b, want.bags_b),
        ("hands_played", m.hands_played, want.hands_played),
    ];
    for (field, cached, from_hands) in counts {
        differ(field, cached.to_string(), from_hands.to_string());
    }
    if matches!(m.status, MatchStatus::InProgress | MatchStatus::Complete) {
        let states: [(&'static str, &dyn std::fmt::Debug, &dyn std::fmt::Debug); 4] = [
            ("status", &m.status, &want.status),
            ("game_status", &m.game_status, &want.game_status),
            ("winner", &m.winner, &want.winner),
            ("reason", &m.reason, &want.reason),
        ];
        for (field, cached, from_hands) in states {
            differ(field, format!("{cached:?}"), format!("{from_hands:?}"));
        }
    }
}
