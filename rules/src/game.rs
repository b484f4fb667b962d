//! Scoring a hand (docs/scoring.md §3) and ending a game (§4).

use serde::Serialize;

use super::error::{ErrorCode, Field, TeamWords};
use super::hand::{Bid, Hand, HandError, PlayedHand, TeamHand, seat};
use super::params::{BagOverflow, FailedNilTricks, Rules, SetPenalty, TenFor200Set, TieRule};
use super::state::{GameState, Stage, TeamTotal, WinReason};
use super::team::Team;

/// One team's scored hand, every part of §2.2 kept apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, utoipa::ToSchema)]
pub struct TeamResult {
    pub nil_points: i32,
    /// The sum of the team's non-nil bids.
    pub contract: u8,
    /// Whether the contract was bid blind (`blind_bids`).
    pub blind: bool,
    /// Tricks that counted toward the contract, after revokes.
    pub tricks_counted: u8,
    /// `null` when the contract is 0.
    pub made: Option<bool>,
    pub contract_points: i32,
    pub bag_points: i32,
    /// Bags taken this hand.
    pub bags_taken: u8,
    pub bag_penalty: i32,
    pub revoke_award: i32,
    /// The hand's total for the team.
    pub points: i32,
    /// The bag counter after the hand (after penalties).
    pub bags: u32,
    /// The running score after the hand.
    pub score: i32,
}

/// A hand with its breakdown and the game's state after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScoredHand {
    pub number: usize,
    pub hand: Hand,
    /// This hand was played to break a tie.
    pub tiebreak: bool,
    pub a: TeamResult,
    pub b: TeamResult,
    pub state: GameState,
}

impl ScoredHand {
    pub fn team(&self, team: Team) -> &TeamResult {
        match team {
            Team::A => &self.a,
            Team::B => &self.b,
        }
    }
}

/// A game under way: the rules, the stage, both teams' totals and the state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    rules: Rules,
    stage: Stage,
    totals: [TeamTotal; 2],
    state: GameState,
    hands: usize,
}

/// A start state that cannot be (e.g. a bag counter already at the limit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartError {
    pub field: Field,
    pub message: String,
}

impl Game {
    /// A game from 0–0.
    pub fn new(rules: Rules, stage: Stage) -> Game {
        let state = GameState::InProgress;
        Game {
            rules,
            stage,
            totals: [TeamTotal::default(); 2],
            state,
            hands: 0,
        }
    }

    /// A game already under way. A start that already meets an ending (target, floor) is
    /// decided or goes to a tie-break hand, as after a hand.
    pub fn resume(
        rules: Rules,
        stage: Stage,
        a: TeamTotal,
        b: TeamTotal,
    ) -> Result<Game, StartError> {
        for (team, total) in [(Team::A, a), (Team::B, b)] {
            // Far beyond any real game; keeps every sum inside the engine's integers.
            if total.score.unsigned_abs() > 100_000 || total.bags > 10_000 {
                return Err(StartError {
                    field: Field::START,
                    message: format!(
                        "start: team {}'s score must be within ±100000 and its bags at most 10000",
                        team.as_str()
                    ),
                });
            }
            if let Some(limit) = rules.bags.limit
                && total.bags >= limit
            {
                return Err(StartError {
                    field: Field::START,
                    message: format!(
                        "start: team {} has {} bags; the counter is always below the limit of {limit}",
                        team.as_str(),
                        total.bags
                    ),
                });
            }
        }
        let mut game = Game {
            rules,
            stage,
            totals: [a, b],
            state: GameState::InProgress,
            hands: 0,
        };
        game.state = game.decide(None, false, false);
        Ok(game)
    }

    /// A game under way as a store keeps it after `hands` hands: its totals, and whether the
    /// next hand is a tie-break hand. The game the replay of those hands gives, without
    /// replaying them (a store's new hand costs the same at hand 500 as at hand 1). Refused
    /// as [`Game::resume`] refuses.
    pub fn continued(
        rules: Rules,
        stage: Stage,
        [a, b]: [TeamTotal; 2],
        hands: usize,
        tiebreak: bool,
    ) -> Result<Game, StartError> {
        let mut game = Game::resume(rules, stage, a, b)?;
        game.hands = hands;
        game.state = if tiebreak {
            GameState::Tiebreak
        } else {
            GameState::InProgress
        };
        Ok(game)
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    pub fn stage(&self) -> Stage {
        self.stage
    }

    pub fn state(&self) -> GameState {
        self.state
    }

    pub fn total(&self, team: Team) -> TeamTotal {
        self.totals[team.index()]
    }

    /// Hands recorded so far, misdeals included.
    pub fn hands_played(&self) -> usize {
        self.hands
    }

    /// Points `team` is behind the other before the next hand (negative when ahead).
    pub fn deficit(&self, team: Team) -> i32 {
        self.total(team.other())
            .score
            .saturating_sub(self.total(team).score)
    }

    /// Nil and blind nil may be bid by `team` now (for forms that offer only what is legal).
    pub fn nil_allowed(&self) -> bool {
        self.rules.nil.is_some()
    }

    pub fn blind_nil_allowed(&self, team: Team) -> bool {
        let b = &self.rules.blind_nil;
        b.when.allows(self.deficit(team), b.deficit)
    }

    pub fn blind_bid_allowed(&self, team: Team) -> bool {
        self.rules
            .blind_bids
            .as_ref()
            .is_some_and(|b| b.when.allows(self.deficit(team), b.deficit))
    }

    /// Scores the next hand. On an error nothing changes.
    pub fn play(&mut self, hand: &Hand) -> Result<ScoredHand, HandError> {
        let number = self.hands + 1;
        if self.state.is_over() {
            return Err(HandError {
                code: ErrorCode::GameOver,
                hand: number,
                field: None,
                team: None,
                player: None,
                message: format!("hand {number}: the game is already decided"),
                words: None,
            });
        }
        let tiebreak = self.state == GameState::Tiebreak;
        let Hand::Played(played) = hand else {
            self.hands = number;
            let unchanged = |t: TeamTotal| TeamResult {
                bags: t.bags,
                score: t.score,
                ..TeamResult::default()
            };
            return Ok(ScoredHand {
                number,
                hand: *hand,
                tiebreak,
                a: unchanged(self.totals[0]),
                b: unchanged(self.totals[1]),
                state: self.state,
            });
        };
        self.check(number, played)?;

        let counted = counted_tricks(&self.rules, played);
        let mut results = [TeamResult::default(); 2];
        for team in Team::BOTH {
            let total = self.totals[team.index()];
            results[team.index()] = self
                .score_team(played, team, counted)
                .and_then(|r| {
                    let score = total.score.checked_add(r.points)?;
                    Some(TeamResult { score, ..r })
                })
                .ok_or_else(|| out_of_range(number, team))?;
        }
        for team in Team::BOTH {
            let result = &results[team.index()];
            let total = &mut self.totals[team.index()];
            total.score = result.score;
            total.bags = result.bags;
        }
        self.hands = number;
        let moon_winner = self.moon_winner(played, &results);
        self.state = self.decide(moon_winner, tiebreak, played.time_called);
        Ok(ScoredHand {
            number,
            hand: *hand,
            tiebreak,
            a: results[0],
            b: results[1],
            state: self.state,
        })
    }

    /// The checks of §2.1 that depend on the rules and the score before the hand.
    fn check(&self, number: usize, hand: &PlayedHand) -> Result<(), HandError> {
        if hand.time_called && self.rules.time_limit_minutes.is_none() {
            return Err(HandError::invalid(
                number,
                Field::TIME_CALLED,
                "these rules have no time limit, so time cannot be called",
            ));
        }
        for team in Team::BOTH {
            let th = hand.team(team);
            for (player, bid) in th.bids.iter().enumerate() {
                self.check_bid(number, team, player, *bid)?;
            }
            self.check_contract(number, team, th)?;
            if th.blind {
                self.check_blind(number, team, th.contract())?;
            }
            if hand.revokes[team.index()] > 0 && self.rules.revoke.is_none() {
                return Err(HandError::invalid(
                    number,
                    Field::REVOKES,
                    "these rules have no revoke penalty",
                )
                .for_team(team));
            }
        }
        Ok(())
    }

    /// Nil and blind nil, where the rules and the score allow them.
    fn check_bid(
        &self,
        number: usize,
        team: Team,
        player: usize,
        bid: Bid,
    ) -> Result<(), HandError> {
        let seat = seat(team, player);
        match bid {
            Bid::Nil if self.rules.nil.is_none() => Err(HandError::invalid(
                number,
                Field::BIDS,
                format!("seat {seat} bid nil, but these rules have no nil"),
            )
            .for_player(team, player)),
            Bid::BlindNil if !self.blind_nil_allowed(team) => {
                let b = &self.rules.blind_nil;
                let needs = match b.when {
                    super::params::BlindWhen::Never => {
                        return Err(HandError::invalid(
                            number,
                            Field::BIDS,
                            format!(
                                "seat {seat} bid blind nil, but these rules do not allow blind nil"
                            ),
                        )
                        .for_player(team, player));
                    }
                    super::params::BlindWhen::BehindAtLeast => "at least",
                    _ => "more than",
                };
                let words = TeamWords::new(
                    format!(
                        "seat {seat} bid blind nil, but blind nil needs the team {needs} {} behind; ",
                        b.deficit
                    ),
                    team,
                    format!(" is {}", describe_deficit(self.deficit(team))),
                );
                Err(HandError::naming(number, Some(Field::BIDS), words).for_player(team, player))
            }
            _ => Ok(()),
        }
    }

    /// The team's contract: at most 13, at least the minimum unless both partners bid nil.
    fn check_contract(&self, number: usize, team: Team, th: &TeamHand) -> Result<(), HandError> {
        let contract = th.contract();
        let words = if contract > 13 {
            format!(" bid {contract}; a team cannot bid more than 13 tricks")
        } else if !th.bids.iter().all(|b| self.is_nil(*b)) && contract < self.rules.min_team_bid {
            format!(
                " bid {contract}; the minimum team bid is {} unless both partners bid nil",
                self.rules.min_team_bid
            )
        } else {
            return Ok(());
        };
        Err(HandError::naming(
            number,
            Some(Field::BIDS),
            TeamWords::starting(team, words),
        ))
    }

    /// A blind bid of `contract`: the rules have blind bids, it is high enough, and the score
    /// allows it.
    fn check_blind(&self, number: usize, team: Team, contract: u8) -> Result<(), HandError> {
        let Some(bb) = &self.rules.blind_bids else {
            return Err(
                HandError::invalid(number, Field::BLIND, "these rules have no blind bids")
                    .for_team(team),
            );
        };
        let words = if contract < bb.min_bid {
            format!(
                "'s blind bid is {contract}; a blind bid is at least {}",
                bb.min_bid
            )
        } else if !self.blind_bid_allowed(team) {
            format!(
                " may not bid blind now: it is {}",
                describe_deficit(self.deficit(team))
            )
        } else {
            return Ok(());
        };
        Err(HandError::naming(
            number,
            Some(Field::BLIND),
            TeamWords::starting(team, words),
        ))
    }

    fn is_nil(&self, bid: Bid) -> bool {
        is_nil(&self.rules, bid)
    }

    fn nil_value(&self, bid: Bid) -> Option<i32> {
        match bid {
            Bid::BlindNil => Some(self.rules.blind_nil.value),
            b if self.is_nil(b) => self.rules.nil,
            _ => None,
        }
    }

    /// `None` when a number leaves the range of an `i32` / `u32` (only rule values or a start
    /// far outside any real game get there).
    fn score_team(&self, hand: &PlayedHand, team: Team, counted: [u8; 2]) -> Option<TeamResult> {
        let rules = &self.rules;
        let th = hand.team(team);
        let mut r = TeamResult {
            contract: th.contract(),
            blind: th.blind,
            tricks_counted: counted[team.index()],
            ..TeamResult::default()
        };
        // 1. Nil results.
        let (nil_points, failed_nil_tricks) = self.nil_results(th)?;
        r.nil_points = nil_points;
        // 3. Contract.
        let mut bags_taken = contract_result(rules, th.blind, &mut r)?;
        if rules.failed_nil_tricks == FailedNilTricks::BagsOnly {
            bags_taken += i32::from(failed_nil_tricks);
        }
        r.bags_taken = bags_taken as u8;
        r.bag_points = bags_taken.checked_mul(rules.bags.value)?;
        // 4. Bag penalty.
        let bags = self.total(team).bags.checked_add(bags_taken as u32)?;
        (r.bag_penalty, r.bags) = bag_penalty(rules, bags)?;
        // 5. Revoke award: for each revoke of the other team.
        if let Some(revoke) = &rules.revoke {
            r.revoke_award = revoke
                .award
                .checked_mul(i32::from(hand.revokes[team.other().index()]))?;
        }
        r.points = [
            r.contract_points,
            r.bag_points,
            r.bag_penalty,
            r.revoke_award,
        ]
        .into_iter()
        .try_fold(r.nil_points, i32::checked_add)?;
        Some(r)
    }

    /// The team's nil points (§3 step 1) and the tricks its failed nils took.
    fn nil_results(&self, th: &TeamHand) -> Option<(i32, u8)> {
        let mut points = 0i32;
        let mut failed_nil_tricks = 0u8;
        for (bid, took) in th.bids.iter().zip(th.tricks) {
            if let Some(value) = self.nil_value(*bid) {
                if took == 0 {
                    points = points.checked_add(value)?;
                } else {
                    points = points.checked_sub(value)?;
                    failed_nil_tricks += took;
                }
            }
        }
        Some((points, failed_nil_tricks))
    }

    /// A made moon with `wins_game`.
    fn moon_winner(&self, hand: &PlayedHand, results: &[TeamResult; 2]) -> Option<Team> {
        let moon = self.rules.moon.as_ref()?;
        if !moon.wins_game {
            return None;
        }
        Team::BOTH.into_iter().find(|t| {
            let r = &results[t.index()];
            r.contract == 13 && r.made == Some(true) && hand.team(*t).contract() == 13
        })
    }

    /// The state after a hand (or at the start): where several endings apply, the first of
    /// these decides (docs/scoring.md §4.7): a made moon that wins the game, the loss floor, a
    /// tie-break hand, time, the target.
    fn decide(
        &self,
        moon_winner: Option<Team>,
        tiebreak_hand: bool,
        time_called: bool,
    ) -> GameState {
        if let Some(winner) = moon_winner {
            return won(winner, WinReason::Moon);
        }
        let [a, b] = [self.totals[0].score, self.totals[1].score];
        if let Some(floor) = self.rules.loss_floor {
            match (a <= floor, b <= floor) {
                (true, false) => return won(Team::B, WinReason::Floor),
                (false, true) => return won(Team::A, WinReason::Floor),
                (true, true) => return self.higher_or_tie(WinReason::Floor),
                (false, false) => {}
            }
        }
        if tiebreak_hand {
            return self.higher_or_tie(WinReason::Tiebreak);
        }
        if time_called {
            return self.higher_or_tie(WinReason::Time);
        }
        let target = self.rules.target;
        match (a >= target, b >= target) {
            (true, false) => won(Team::A, WinReason::Target),
            (false, true) => won(Team::B, WinReason::Target),
            (true, true) => self.higher_or_tie(WinReason::Target),
            (false, false) => GameState::InProgress,
        }
    }

    /// The higher score wins; equal scores are a draw where allowed, else a tie-break hand.
    fn higher_or_tie(&self, reason: WinReason) -> GameState {
        let [a, b] = [self.totals[0].score, self.totals[1].score];
        if a > b {
            won(Team::A, reason)
        } else if b > a {
            won(Team::B, reason)
        } else if self.stage == Stage::Regular && self.rules.regular_season_ties == TieRule::Draw {
            GameState::Tied
        } else {
            GameState::Tiebreak
        }
    }
}

/// A bid of 0 is nil where the rules say so (and have nil).
pub fn is_nil(rules: &Rules, bid: Bid) -> bool {
    match bid {
        Bid::Nil | Bid::BlindNil => true,
        Bid::Tricks(0) => rules.zero_bid_is_nil && rules.nil.is_some(),
        Bid::Tricks(_) => false,
    }
}

/// The contract's result (§3 step 3) into `r` (`made`, `contract_points`), from its
/// `contract` and `tricks_counted`; the bags it took.
fn contract_result(rules: &Rules, blind: bool, r: &mut TeamResult) -> Option<i32> {
    let multiplier = match (&rules.blind_bids, blind) {
        (Some(bb), true) => bb.multiplier,
        _ => 1,
    };
    let contract = i32::from(r.contract);
    let counted = i32::from(r.tricks_counted);
    if contract == 0 {
        return Some(counted);
    }
    let moon = rules.moon.as_ref().filter(|_| r.contract == 13);
    let ten = rules
        .ten_for_200
        .as_ref()
        .filter(|t| r.contract >= t.min_bid);
    if counted >= contract {
        r.made = Some(true);
        let base = match (moon, ten) {
            (Some(m), _) => m.value,
            (None, Some(t)) => t.value,
            (None, None) => 10 * contract,
        };
        r.contract_points = base.checked_mul(multiplier)?;
        Some(counted - contract)
    } else {
        r.made = Some(false);
        let base = match (moon, ten) {
            (Some(m), _) => m.value,
            (None, Some(t)) if t.set == TenFor200Set::Flat => t.value,
            _ => match rules.set_penalty {
                SetPenalty::PerBidTrick => 10 * contract,
                SetPenalty::PerShortTrick => 10 * (contract - counted),
            },
        };
        r.contract_points = i32::try_from(-(i64::from(base) * i64::from(multiplier))).ok()?;
        Some(0)
    }
}

/// The bag penalty (§3 step 4) for a counter at `bags` after the hand, and the counter after
/// the penalties.
fn bag_penalty(rules: &Rules, mut bags: u32) -> Option<(i32, u32)> {
    let mut penalty = 0i32;
    if let Some(limit) = rules.bags.limit {
        while bags >= limit {
            penalty = penalty.checked_sub(rules.bags.penalty)?;
            bags = match rules.bags.overflow {
                BagOverflow::Carry => bags - limit,
                BagOverflow::Discard => 0,
            };
        }
    }
    Some((penalty, bags))
}

fn won(winner: Team, reason: WinReason) -> GameState {
    GameState::Won { winner, reason }
}

fn describe_deficit(deficit: i32) -> String {
    match deficit {
        0 => "level".to_string(),
        d if d > 0 => format!("{d} behind"),
        d => format!("{} ahead", d.unsigned_abs()),
    }
}

/// A hand whose points or running score would not fit the engine's integers: only rule values
/// or a start far outside any real game get there. Nothing changes.
fn out_of_range(number: usize, team: Team) -> HandError {
    let words = TeamWords::starting(
        team,
        "'s points or score would be out of range (the rules' point values or the start are too large)",
    );
    HandError::naming(number, None, words)
}

/// Tricks that count toward each team's contract (§2.2 step 2): the non-nil players' tricks,
/// failed nils' where they count, then the revokes' tricks moved to the other team. Both
/// teams' revokes are capped by what the offending team counted before any move.
pub fn counted_tricks(rules: &Rules, hand: &PlayedHand) -> [u8; 2] {
    let mut counted = [0u8; 2];
    for team in Team::BOTH {
        let th = hand.team(team);
        counted[team.index()] = th
            .bids
            .iter()
            .zip(th.tricks)
            .filter(|(bid, _)| {
                !is_nil(rules, **bid) || rules.failed_nil_tricks == FailedNilTricks::CountTowardBid
            })
            .map(|(_, took)| took)
            .sum();
    }
    if let Some(revoke) = &rules.revoke {
        let moved = Team::BOTH.map(|team| {
            let owed = u32::from(hand.revokes[team.index()]) * u32::from(revoke.tricks);
            owed.min(u32::from(counted[team.index()])) as u8
        });
        counted = [
            counted[0] - moved[0] + moved[1],
            counted[1] - moved[1] + moved[0],
        ];
    }
    counted
}

/// Scores a whole game from its hands and an optional start. Stops at the first invalid
/// hand.
pub fn score_game(
    rules: &Rules,
    stage: Stage,
    start: Option<(TeamTotal, TeamTotal)>,
    hands: &[Hand],
) -> Result<(Game, Vec<ScoredHand>), GameError> {
    let mut game = match start {
        Some((a, b)) => Game::resume(rules.clone(), stage, a, b).map_err(GameError::Start)?,
        None => Game::new(rules.clone(), stage),
    };
    let mut scored = Vec::with_capacity(hands.len());
    for hand in hands {
        scored.push(game.play(hand).map_err(GameError::Hand)?);
    }
    Ok((game, scored))
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameError {
    Start(StartError),
    Hand(HandError),
}
