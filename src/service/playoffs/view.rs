//! A bracket as the API and the pages show it.

use crate::domain::Slug;
use std::collections::HashMap;

use serde::Serialize;

use super::stored::{load, seed_of};
use crate::db::leagues as db_leagues;
use crate::db::playoffs::{self as db_playoffs, RealMatch};
use crate::db::{Conn, Db};
use crate::domain::{BracketMatchStatus, LeagueId, MatchId, MatchStatus, TeamId};
use crate::league::bracket::{
    Bracket, BracketState, Entrant, Format, GrandFinal, MatchStatus as Slot, Section, match_label,
};
use crate::rules::Team;
use crate::service::term::leagues::league_by_slug;
use crate::service::{ServiceError, TeamRef};

/// A match of the bracket (docs/api.md §4.8).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct BracketMatchView {
    /// The bracket match's number (0-based, stable; `next_match` refers to it).
    pub id: i64,
    /// The real match (`/api/v1/matches/{id}`) once both teams are known.
    pub match_id: Option<MatchId>,
    pub round: i64,
    pub position: i64,
    /// `winners`, `losers`, `final` or `third_place`.
    pub bracket: Section,
    /// Its name wherever a match is named: "M5 · Winners semi-final" (docs/api.md §18.5).
    pub label: String,
    /// Null while not known, or for a bye.
    pub team_a: Option<TeamRef>,
    pub team_b: Option<TeamRef>,
    pub seed_a: Option<i64>,
    pub seed_b: Option<i64>,
    /// `waiting` (an entrant is not known), `bye`, `not_needed` (grand-final reset), or the
    /// real match's status: `scheduled`, `in_progress`, `complete`, `forfeit`.
    #[schema(value_type = String)]
    pub status: BracketMatchStatus,
    pub score_a: Option<i64>,
    pub score_b: Option<i64>,
    /// `a` or `b` once decided (for a bye, the side that advances).
    pub winner: Option<Team>,
    /// Where the winner goes: a bracket match `id` and its slot (0 = team_a, 1 = team_b).
    pub next_match: Option<i64>,
    pub next_slot: Option<i64>,
    /// Where the loser goes (double elimination, third place, grand-final reset).
    pub loser_next_match: Option<i64>,
    pub loser_next_slot: Option<i64>,
}

/// A league's bracket (docs/api.md §4.8).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct BracketView {
    pub league: String,
    /// `single_elimination` or `double_elimination`.
    pub format: Format,
    pub teams: i64,
    pub third_place: bool,
    /// `none`, `simple` or `double` (`none` for single elimination).
    pub grand_final: GrandFinal,
    pub matches: Vec<BracketMatchView>,
    /// Once decided.
    pub champion: Option<TeamRef>,
    /// How the seeds were made from divisions, in words ("Seeds 1–2: the winners of
    /// Competitive and Recreational; seeds 3–8 by overall standing"); absent when seeded by
    /// the overall standings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seeding: Option<String>,
}

/// A league's bracket as the API shows it, for anyone (404 when the league has none).
pub async fn bracket(db: &Db, slug: &Slug) -> Result<BracketView, ServiceError> {
    let mut conn = db.read().await?;
    bracket_of(&mut conn, slug).await
}

/// [`bracket`] on a connection the caller holds (creating the bracket reads it back in its
/// transaction).
pub async fn bracket_of(conn: &mut Conn, slug: &Slug) -> Result<BracketView, ServiceError> {
    let league = league_by_slug(conn, slug).await?;
    let row = db_playoffs::of_league(conn, league.row.id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let seeding = row.seeding_words.clone();
    let l = load(conn, row).await?;
    let names = team_names(conn, league.row.id).await?;
    let view = view_of(
        &league.row.slug,
        &l.bracket,
        &l.state,
        &l.seeds,
        &l.real,
        &names,
    );
    Ok(BracketView { seeding, ..view })
}

/// The league's champion: the winner of its bracket's decided final (after the reset of a
/// double grand final, if it was played); `None` without a bracket or before the final.
pub async fn champion(
    conn: &mut Conn,
    league_id: LeagueId,
) -> Result<Option<TeamRef>, ServiceError> {
    let Some(row) = db_playoffs::of_league(conn, league_id).await? else {
        return Ok(None);
    };
    let l = load(conn, row).await?;
    let Some(id) = l
        .state
        .champion()
        .and_then(|seed| l.seeds.get(seed.checked_sub(1)?).copied())
    else {
        return Ok(None);
    };
    let name = db_leagues::team(conn, id)
        .await?
        .map(|t| t.name.into())
        .unwrap_or_else(|| format!("team {id}"));
    Ok(Some(TeamRef { id, name }))
}

pub(super) async fn team_names(
    conn: &mut Conn,
    league_id: LeagueId,
) -> Result<HashMap<TeamId, String>, ServiceError> {
    Ok(db_leagues::teams(conn, league_id)
        .await?
        .into_iter()
        .map(|t| (t.id, t.name.into()))
        .collect())
}

/// The bracket's view: its structure, its state, the seeded teams (team ids, seed 1 first)
/// and the real match of each bracket match, if any.
pub(super) fn view_of(
    slug: &Slug,
    structure: &Bracket,
    state: &BracketState,
    seeds: &[TeamId],
    real: &[Option<RealMatch>],
    names: &HashMap<TeamId, String>,
) -> BracketView {
    let team_of = |seed: Option<usize>| -> Option<TeamRef> {
        let id = *seeds.get(seed?.checked_sub(1)?)?;
        Some(TeamRef {
            id,
            name: names
                .get(&id)
                .cloned()
                .unwrap_or_else(|| format!("team {id}")),
        })
    };
    let mut matches = Vec::with_capacity(structure.matches.len());
    for (i, bm) in structure.matches.iter().enumerate() {
        let e = state.entrants(i);
        let real = real[i].as_ref();
        let status = match (state.status(i), real) {
            (Slot::Bye, _) => BracketMatchStatus::Bye,
            (Slot::NotNeeded, _) => BracketMatchStatus::NotNeeded,
            (_, Some(m)) => BracketMatchStatus::Match(m.status),
            (Slot::Waiting, None) => BracketMatchStatus::Waiting,
            (_, None) => BracketMatchStatus::Match(MatchStatus::Scheduled),
        };
        let winner = match state.status(i) {
            Slot::Decided { winner } => Some(winner),
            Slot::Bye => match e {
                [Entrant::Team(_), _] => Some(0),
                [_, Entrant::Team(_)] => Some(1),
                _ => None,
            },
            _ => None,
        }
        .map(|w| if w == 0 { Team::A } else { Team::B });
        matches.push(BracketMatchView {
            id: i as i64,
            match_id: real.map(|m| m.id),
            round: bm.round as i64,
            position: bm.position as i64,
            bracket: bm.bracket,
            label: match_label(structure, i).unwrap_or_default(),
            team_a: team_of(e[0].team()),
            team_b: team_of(e[1].team()),
            seed_a: seed_of(e[0]),
            seed_b: seed_of(e[1]),
            status,
            score_a: real.map(|m| m.score_a),
            score_b: real.map(|m| m.score_b),
            winner,
            next_match: bm.next.map(|(m, _)| m as i64),
            next_slot: bm.next.map(|(_, s)| s as i64),
            loser_next_match: bm.loser_next.map(|(m, _)| m as i64),
            loser_next_slot: bm.loser_next.map(|(_, s)| s as i64),
        });
    }
    BracketView {
        league: slug.to_string(),
        format: structure.format,
        teams: seeds.len() as i64,
        third_place: structure.third_place,
        grand_final: structure.grand_final,
        champion: team_of(state.champion()),
        seeding: None,
        matches,
    }
}
