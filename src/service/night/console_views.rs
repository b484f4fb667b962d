//! What the supervisor console reads besides the writes of `matches`: a match the user may
//! run, the players at its table, the revisions of a hand, its league's season settings
//! (grace period, sportsmanship scale), and which finished matches still miss a rating.

use crate::domain::Slug;
use std::collections::{HashMap, HashSet};

use crate::db::Db;

use crate::db::leagues as db_leagues;
use crate::db::matches as db_matches;
use crate::domain::{LeagueId, MatchId, Timestamp};
use crate::rules::HandInput;
use crate::service::night::access;
use crate::service::night::match_view::MatchView;
use crate::service::term::leagues::League;
use crate::service::{ServiceError, User};

/// Match `id` if `user` may run it (admins anywhere, supervisors in their leagues); for
/// anyone else it does not exist (`NotFound`).
pub async fn supervised(db: &Db, user: &User, id: MatchId) -> Result<MatchView, ServiceError> {
    let mut conn = db.read().await?;
    let (view, league) = crate::service::night::match_view::load(&mut conn, id).await?;
    if !access::may_supervise(&mut conn, user, league.row.id).await? {
        return Err(ServiceError::NotFound);
    }
    Ok(view)
}

/// The number of match `id`'s next hand if `user` may run it (else `NotFound`), from the
/// match's row: what a hand post needs before it is recorded, at a cost that does not grow
/// with the match (no hand is read or replayed).
pub async fn next_hand(db: &Db, user: &User, id: MatchId) -> Result<usize, ServiceError> {
    let mut conn = db.read().await?;
    let m = db_matches::by_id(&mut conn, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    if !access::may_supervise(&mut conn, user, m.league_id).await? {
        return Err(ServiceError::NotFound);
    }
    Ok(usize::try_from(m.hands_played).unwrap_or(0) + 1)
}

/// The players at the table at hand `hand` (1 is the first), `[team][player]`: team a's
/// seats 1 and 3, team b's seats 2 and 4. A team's lineup in force then where it has one,
/// else the team's first two players (blank for a team that is gone).
pub async fn lineup(
    db: &Db,
    view: &MatchView,
    hand: usize,
) -> Result<[[String; 2]; 2], ServiceError> {
    let mut conn = db.read().await?;
    let rows = crate::db::lineups::of_match(&mut conn, view.id).await?;
    let set = crate::service::night::match_view::Lineup::at_hand(
        &rows,
        i64::try_from(hand).unwrap_or(i64::MAX),
    );
    let mut out: [[String; 2]; 2] = Default::default();
    for ((seats, id), team) in out
        .iter_mut()
        .zip([view.team_a.id, view.team_b.id])
        .zip(crate::rules::Team::BOTH)
    {
        if let Some([first, second]) = set.of(team) {
            *seats = [first.name.clone(), second.name.clone()];
        } else if let Some(team) = db_leagues::team(&mut conn, id).await? {
            *seats = [team.player1.into(), team.player2.into()];
        }
    }
    Ok(out)
}

/// One revision of a hand.
#[derive(Debug, Clone)]
pub struct Revision {
    pub revision: i64,
    pub recorded_at: Timestamp,
    /// Why it was corrected (revisions after the first).
    pub reason: Option<String>,
    /// The hand as entered (`None` if the stored text does not read back).
    pub hand: Option<HandInput>,
}

/// Every revision of hand `number` of match `id`, first to last.
pub async fn revisions(db: &Db, id: MatchId, number: usize) -> Result<Vec<Revision>, ServiceError> {
    let mut conn = db.read().await?;
    Ok(crate::service::night::match_view::history(&mut conn, id)
        .await?
        .into_iter()
        .filter(|r| usize::try_from(r.number).is_ok_and(|n| n == number))
        .map(|r| Revision {
            revision: r.revision,
            recorded_at: r.recorded_at,
            hand: serde_json::from_str(&r.hand).ok(),
            reason: r.reason,
        })
        .collect())
}

/// The season settings of the league of `view` (the grace period, the sportsmanship scale).
pub async fn league_of(
    db: &Db,
    view: &MatchView,
) -> Result<crate::service::term::leagues::League, ServiceError> {
    let slug: Slug = view
        .league
        .parse()
        .map_err(|e| ServiceError::corrupt("a match's league", e))?;
    crate::service::term::leagues::league(db, &slug).await
}

/// Of the matches `ids`, those finished (complete or forfeited) in a league that requires
/// sportsmanship ratings with a team not rated yet: "rating missing" on tonight's list. One
/// read per match and per league (the list shows a dozen finished matches).
pub async fn ratings_missing(db: &Db, ids: &[MatchId]) -> Result<HashSet<MatchId>, ServiceError> {
    let mut conn = db.read().await?;
    let conn = &mut conn;
    let mut required: HashMap<LeagueId, bool> = HashMap::new();
    let mut missing = HashSet::new();
    for id in ids {
        let Some(m) = db_matches::by_id(conn, *id).await? else {
            continue;
        };
        if !m.status.is_result() || (m.rating_a.is_some() && m.rating_b.is_some()) {
            continue;
        }
        let needs = match required.get(&m.league_id) {
            Some(needs) => *needs,
            None => {
                let needs = match db_leagues::by_id(conn, m.league_id).await? {
                    Some(row) => League::from_row(row)?
                        .settings
                        .sportsmanship
                        .is_some_and(|s| s.required),
                    None => false,
                };
                required.insert(m.league_id, needs);
                needs
            }
        };
        if needs {
            missing.insert(m.id);
        }
    }
    Ok(missing)
}
