//! A generated season for the benchmarks: `cargo run --release -- generate --teams 64 --matches 2000
//! --hands 30000`.
//!
//! The league and its regular-season matches are written straight through the database layer
//! in one transaction (a million hands in seconds, where the services would take a durable
//! commit per hand), but every hand is scored by the rules engine exactly as the services do,
//! so the cached totals of each match are the ones its hands rebuild. Matches are played in
//! round-robin order until the hand budget is spent: those are complete, the one that takes
//! the last hands stays in progress, the rest are scheduled. A round is a week: Tuesdays at
//! 19:00 from 6 January 2026.

use chrono::NaiveDateTime;

use crate::db::hands::{self as db_hands, NewHand};
use crate::db::leagues as db_leagues;
use crate::db::matches::{self as db_matches, NewMatch};
use crate::db::players::{self as db_players, PlayerFields};
use crate::db::{Conn, Db};
use crate::demo::{Rng, random_hand};
use crate::domain::{LeagueId, MatchId, PersonName, TeamId, TeamName, Timestamp, UserId};
use crate::league::schedule::{Pairing, round_robin};
use crate::rules::{Game, RulesSpec, Stage};
use crate::service::User;
use crate::service::term::leagues::{self, League, NewLeagueInput, StageRules};

/// What to generate.
#[derive(Debug, Clone)]
pub struct SeasonSpec {
    pub slug: String,
    pub teams: usize,
    pub matches: usize,
    pub hands: usize,
    pub seed: u64,
}

/// What was generated.
#[derive(Debug, Clone)]
pub struct Generated {
    pub league_id: LeagueId,
    pub matches: usize,
    pub complete: usize,
    pub in_progress: usize,
    pub hands: usize,
}

/// Generates the season `spec` (a league with the slug `spec.slug`, created by `admin`).
pub async fn season(db: &Db, admin: &User, spec: &SeasonSpec) -> anyhow::Result<Generated> {
    anyhow::ensure!(spec.teams >= 2, "a season needs at least 2 teams");
    let league = create_league(db, admin, spec).await?;
    let rules = league.rules_for(Stage::Regular).clone();
    let mut dealer = Dealer {
        frozen: serde_json::to_string(&rules)?,
        stamp: db.clock().now(),
        rng: Rng(spec.seed),
        recorded_by: admin.id,
        budget: spec.hands,
    };
    let mut tx = db.write().await?;
    let team_ids = insert_teams(&mut tx, league.row.id, spec.teams, db.clock().now()).await?;
    let rounds = round_robin(spec.teams);
    let mut out = Generated {
        league_id: league.row.id,
        matches: 0,
        complete: 0,
        in_progress: 0,
        hands: 0,
    };
    for n in 0..spec.matches {
        let (round, p) = nth_match(&rounds, n);
        let teams = [team_ids[p.a], team_ids[p.b]];
        let id = insert_match(&mut tx, league.row.id, round, teams).await?;
        out.matches += 1;
        if out.hands >= spec.hands {
            continue;
        }
        let game = Game::new(rules.clone(), Stage::Regular);
        play_match(&mut tx, id, game, &mut dealer, &mut out).await?;
    }
    tx.commit().await?;
    Ok(out)
}

/// The league, its rules the championship preset's.
async fn create_league(db: &Db, admin: &User, spec: &SeasonSpec) -> anyhow::Result<League> {
    leagues::create_league(
        db,
        admin,
        &NewLeagueInput {
            name: format!("Generated {} teams", spec.teams),
            slug: Some(spec.slug.clone()),
            rules: StageRules {
                // Games to 500 run ~18 hands: 30,000 hands fill most of 2,000 matches.
                regular: RulesSpec::Preset("unc-im-500".into()),
                playoff: None,
                r#final: Some(RulesSpec::Preset("unc-im-500".into())),
            },
            tiebreak_order: None,
            settings: None,
        },
    )
    .await
    .map_err(|e| anyhow::anyhow!("{e}"))
}

/// Teams `Team 0001`... with players `Player 1a`, `Player 1b`...
async fn insert_teams(
    conn: &mut Conn,
    league: LeagueId,
    teams: usize,
    now: Timestamp,
) -> anyhow::Result<Vec<TeamId>> {
    let mut team_ids = Vec::with_capacity(teams);
    for i in 1..=teams {
        let name = |text: String| {
            PersonName::new(&text).map_err(|bad| anyhow::anyhow!("{text:?} is no name: {bad:?}"))
        };
        let players = [name(format!("Player {i}a"))?, name(format!("Player {i}b"))?];
        let team = TeamName::new(&format!("Team {i:04}"))
            .map_err(|bad| anyhow::anyhow!("team {i} is no name: {bad:?}"))?;
        let id = db_leagues::insert_team(conn, league, &team, &players).await?;
        for name in players {
            let player = PlayerFields {
                name,
                student_id: None,
                email: None,
                captain: false,
                active: true,
            };
            db_players::insert(conn, id, league, &player, now).await?;
        }
        team_ids.push(id);
    }
    Ok(team_ids)
}

/// The round and pairing of the `n`-th match (0-based) of the schedule `rounds`. Past one
/// round robin, the schedule starts again (a league meeting every team twice).
fn nth_match(rounds: &[Pairing], n: usize) -> (usize, Pairing) {
    let per_cycle = rounds.len();
    let rounds_per_cycle = rounds.last().map_or(1, |p| p.round);
    let p = rounds[n % per_cycle];
    ((n / per_cycle) * rounds_per_cycle + p.round, p)
}

/// A round a week, on Tuesdays at 19:00 from 6 January 2026.
fn night(round: usize) -> anyhow::Result<NaiveDateTime> {
    chrono::NaiveDate::from_ymd_opt(2026, 1, 6)
        .and_then(|d| d.checked_add_days(chrono::Days::new(7 * (round as u64 - 1))))
        .and_then(|d| d.and_hms_opt(19, 0, 0))
        .ok_or_else(|| anyhow::anyhow!("round {round} has no date"))
}

/// A regular-season match of round `round` between `teams`, on the round's night.
async fn insert_match(
    conn: &mut Conn,
    league: LeagueId,
    round: usize,
    teams: [TeamId; 2],
) -> anyhow::Result<MatchId> {
    let night = night(round)?;
    Ok(db_matches::insert(
        conn,
        &NewMatch {
            league_id: league,
            stage: Stage::Regular,
            round: Some(round as i64),
            team_a: teams[0],
            team_b: teams[1],
            table_name: None,
            scheduled_at: Some(crate::domain::LocalTime(night)),
        },
    )
    .await?)
}

/// Where the hands come from and how they are recorded.
struct Dealer {
    /// The rules as frozen on a started match.
    frozen: String,
    /// The time every write is stamped with.
    stamp: Timestamp,
    rng: Rng,
    recorded_by: UserId,
    /// How many hands the whole season gets.
    budget: usize,
}

/// Starts match `id` and plays `game` with the dealer's hands until it is over or the
/// season's hand budget is spent, then saves its totals; counts it in `out`.
async fn play_match(
    conn: &mut Conn,
    id: MatchId,
    mut game: Game,
    dealer: &mut Dealer,
    out: &mut Generated,
) -> anyhow::Result<()> {
    db_matches::start(conn, id, dealer.stamp, &dealer.frozen).await?;
    let mut number = 0;
    while !game.state().is_over() && out.hands < dealer.budget {
        let input = overbid(random_hand(&mut dealer.rng), &mut dealer.rng);
        let hand = input
            .parse(number + 1)
            .map_err(|e| anyhow::anyhow!("generated hand {}: {e:?}", number + 1))?;
        game.play(&hand)
            .map_err(|e| anyhow::anyhow!("generated hand: {e:?}"))?;
        number += 1;
        db_hands::insert_hand(
            conn,
            &NewHand {
                match_id: id,
                number: number as i64,
                revision: 1,
                hand: &serde_json::to_string(&input)?,
                reason: None,
                recorded_by: Some(dealer.recorded_by),
                now: dealer.stamp,
            },
        )
        .await?;
        out.hands += 1;
        anyhow::ensure!(number < 500, "a generated game does not end");
    }
    if game.state().is_over() {
        out.complete += 1;
    } else {
        out.in_progress += 1;
    }
    // The totals exactly as the services write them after a hand.
    crate::service::night::matches::save_totals(conn, id, &game)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(())
}

/// One team in four overbids by a trick (a set): league play has its share of sets, and
/// the games run the ~15 hands to 500 that 30,000 hands in 2,000 matches need.
fn overbid(mut hand: crate::rules::HandInput, rng: &mut Rng) -> crate::rules::HandInput {
    use crate::rules::hand::BidInput;
    for team in [hand.a.as_mut(), hand.b.as_mut()].into_iter().flatten() {
        if !rng.chance(25) {
            continue;
        }
        let total: i64 = team.tricks.iter().sum();
        if let Some(BidInput::Number(first)) = team.bids.first_mut()
            && total < 13
        {
            *first += 1;
        }
    }
    hand
}

/// The first admin of the database, created (and its password returned) when there is none.
pub async fn admin(db: &Db) -> anyhow::Result<(User, Option<String>)> {
    let created = crate::service::people::accounts::ensure_admin(db)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut conn = db.read().await?;
    let row = crate::db::users::all(&mut conn)
        .await?
        .into_iter()
        .find(|u| u.role == crate::domain::Role::Admin)
        .ok_or_else(|| anyhow::anyhow!("no admin account"))?;
    Ok((
        User {
            id: row.id,
            username: row.username,
            role: crate::service::Role::Admin,
        },
        created.map(|(_, password)| password),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_one_round_robin_the_schedule_starts_again() {
        // 4 teams: 3 rounds of 2 matches.
        let rounds = round_robin(4);
        assert_eq!(rounds.len(), 6);
        assert_eq!(nth_match(&rounds, 0), (1, rounds[0]));
        assert_eq!(nth_match(&rounds, 5), (3, rounds[5]));
        assert_eq!(nth_match(&rounds, 6), (4, rounds[0]));
        assert_eq!(nth_match(&rounds, 13), (7, rounds[1]));
    }

    #[test]
    fn a_round_a_week_on_tuesdays_at_seven() {
        let night = |round| night(round).map(|t| t.to_string()).ok();
        assert_eq!(night(1).as_deref(), Some("2026-01-06 19:00:00"));
        assert_eq!(night(4).as_deref(), Some("2026-01-27 19:00:00"));
    }
}
