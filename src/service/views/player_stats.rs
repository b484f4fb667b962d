//! Players' statistics (docs/api.md §15): what each player of a team bid and took, hand by
//! hand, from the lineups (who sat in each seat from which hand on) and the current revision
//! of each hand. A misdeal is no hand; a hand played before the team had a lineup is nobody's.
//! Names only: public pages and reads show these.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use crate::db::lineups::LineupRow;
use crate::db::player_eligibility as db_elig;
use crate::db::{Conn, Db, hands as db_hands, leagues as db_leagues, players as db_players};
use crate::domain::{MatchId, PlayerId, Slug, TeamId};
use crate::rules::{Bid, Hand, HandInput, PlayedHand};

use crate::service::ServiceError;
use crate::service::term::leagues::{League, league_by_slug};

/// One player's statistics over the team's matches (every stage).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct PlayerStats {
    pub id: PlayerId,
    pub name: String,
    /// The matches in which the player sat for at least one hand.
    pub matches: i64,
    /// The hands the player sat in (misdeals are not hands).
    pub hands: i64,
    /// The tricks the player bid, over those hands (a nil or blind nil bids 0).
    pub bid: i64,
    /// The tricks the player took.
    pub took: i64,
    /// The player's nil and blind nil bids.
    pub nil_bids: i64,
    /// Those the player made: no trick taken.
    pub nils_made: i64,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct TeamStats {
    pub players: Vec<PlayerStats>,
}

/// What a player did at the table, added up hand by hand.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    hands: i64,
    bid: i64,
    took: i64,
    nil_bids: i64,
    nils_made: i64,
}

impl PlayerStats {
    fn of(id: PlayerId, name: String, matches: i64, t: Tally) -> PlayerStats {
        PlayerStats {
            id,
            name,
            matches,
            hands: t.hands,
            bid: t.bid,
            took: t.took,
            nil_bids: t.nil_bids,
            nils_made: t.nils_made,
        }
    }
}

/// One seat's part of a hand added to a player's tally.
fn add_seat(stats: &mut Tally, bid: Bid, took: u8) {
    stats.hands += 1;
    stats.took += i64::from(took);
    match bid {
        Bid::Tricks(n) => stats.bid += i64::from(n),
        Bid::Nil | Bid::BlindNil => {
            stats.nil_bids += 1;
            if took == 0 {
                stats.nils_made += 1;
            }
        }
    }
}

/// The lineup row of `rows` (one team's, of one match) in force at hand `number`.
fn seats_at(rows: &[&LineupRow], number: i64) -> Option<[PlayerId; 2]> {
    rows.iter()
        .filter(|r| r.from_hand <= number)
        .max_by_key(|r| r.from_hand)
        .map(|r| r.seats())
}

/// The statistics of team `team`'s players, every player who is active or sat for a hand,
/// in the order they were added (404: no such team).
pub async fn of_team(conn: &mut Conn, team: TeamId) -> Result<TeamStats, ServiceError> {
    db_leagues::team(conn, team)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let lineups = db_elig::lineups_of_team(conn, team).await?;
    let mut by_match: BTreeMap<MatchId, Vec<&LineupRow>> = BTreeMap::new();
    for row in &lineups {
        by_match.entry(row.match_id).or_default().push(row);
    }
    let mut stats: HashMap<PlayerId, Tally> = HashMap::new();
    let mut sat: HashSet<(PlayerId, MatchId)> = HashSet::new();
    for (match_id, rows) in &by_match {
        for hand in db_hands::current_hands(conn, *match_id).await? {
            let Some(seats) = seats_at(rows, hand.number) else {
                continue;
            };
            let Some(side) = played(&hand)?.map(|h| *h.team(rows[0].team())) else {
                continue;
            };
            for (i, player) in seats.iter().enumerate() {
                add_seat(
                    stats.entry(*player).or_default(),
                    side.bids[i],
                    side.tricks[i],
                );
                sat.insert((*player, *match_id));
            }
        }
    }
    let mut out = Vec::new();
    for p in db_players::of_team(conn, team).await? {
        let Some(tally) = stats.remove(&p.id).or(p.active.then(Tally::default)) else {
            continue;
        };
        let matches = sat.iter().filter(|(who, _)| *who == p.id).count() as i64;
        out.push(PlayerStats::of(p.id, p.name.to_string(), matches, tally));
    }
    Ok(TeamStats { players: out })
}

/// The hand stored in `row` as played (`None`: a misdeal).
fn played(row: &db_hands::HandRow) -> Result<Option<PlayedHand>, ServiceError> {
    let input: HandInput =
        serde_json::from_str(&row.hand).map_err(|e| ServiceError::corrupt("stored hand", e))?;
    let number = usize::try_from(row.number).unwrap_or(0);
    match input.parse(number) {
        Ok(Hand::Played(hand)) => Ok(Some(hand)),
        Ok(Hand::Misdeal) => Ok(None),
        Err(e) => Err(ServiceError::corrupt("stored hand", e)),
    }
}

/// `GET /api/v1/teams/{id}/stats` (public).
pub async fn team_stats(db: &Db, team: TeamId) -> Result<TeamStats, ServiceError> {
    let mut conn = db.read().await?;
    of_team(&mut conn, team).await
}

/// A player's public page: the league, the team's name and the player's statistics.
pub struct PlayerSeason {
    pub league: League,
    pub team_id: TeamId,
    pub team: String,
    pub stats: PlayerStats,
}

/// Player `player` of team `team` of league `slug`, for the public player page (404 when
/// one is not the other's).
pub async fn player(
    db: &Db,
    slug: &Slug,
    team: TeamId,
    player: PlayerId,
) -> Result<PlayerSeason, ServiceError> {
    let mut conn = db.read().await?;
    let league = league_by_slug(&mut conn, slug).await?;
    let team_row = db_leagues::team(&mut conn, team)
        .await?
        .filter(|t| t.league_id == league.row.id)
        .ok_or(ServiceError::NotFound)?;
    let row = db_players::by_id(&mut conn, player)
        .await?
        .filter(|p| p.team_id == team)
        .ok_or(ServiceError::NotFound)?;
    // A former player who never sat for a hand is not in the team's list: nothing played.
    let stats = of_team(&mut conn, team)
        .await?
        .players
        .into_iter()
        .find(|s| s.id == player)
        .unwrap_or_else(|| PlayerStats::of(row.id, row.name.to_string(), 0, Tally::default()));
    Ok(PlayerSeason {
        league,
        team_id: team,
        team: team_row.name.to_string(),
        stats,
    })
}
