//! Playoff brackets (docs/scoring.md §9): single elimination (optional third-place match)
//! and double elimination (grand final of none, simple or double), seeded from the
//! standings, plus a pure [`BracketState`] that applies results. No web, SQL or clock.
//!
//! Conventions:
//!
//! - **Seeds** are 1-based: seed 1 is the first team of the standings (which already applies
//!   the league's tiebreak order — head-to-head, differential, points for — and then the
//!   deterministic last resort, name then id). [`seed_teams`] turns standings into the
//!   seeded list of team ids.
//! - **Size**: 2 to 256 teams. The first round is built for `P` = the next power of two of
//!   the field, in the classic recursive order (1 v P, then 2^k+1−s against s at every
//!   doubling), so seeds 1 and 2 are in opposite halves, 1–4 in different quarters, and so on.
//! - **Byes are matches**: the `P − N` missing seeds are [`Slot::Bye`]; such a match is
//!   decided at creation (the seed advances without playing) and flagged `bye: true`. The
//!   byes go to seeds `1..=P−N`. In double elimination the emptiness propagates: the loser
//!   of a bye is nobody, so a losers'-bracket match fed by one is a bye as well (possibly with
//!   nobody at all). Matches with `bye: false` are the ones actually played (the grand-final
//!   reset is played only when needed). Indexes are topological: every slot refers to an
//!   earlier match.
//! - **Sections and rounds**: rounds are 1-based within their section. The championship match
//!   of single elimination is `Final` round 1; in double elimination the grand final is
//!   `Final` round 1 and its reset `Final` round 2. The third-place match is `ThirdPlace`
//!   round 1 (only with 4 or more teams: with 3, one semi-final is a bye and there is nobody
//!   to play for third).
//! - **Double elimination**: losers'-bracket round 1 pairs the losers of winners' round 1;
//!   then rounds alternate between "drop" rounds (the survivors meet the losers of the next
//!   winners' round) and "merge" rounds (survivors meet each other); the last drop round is
//!   the losers' final against the loser of the winners' final. In each drop round the
//!   dropping teams are placed so that a dropped team never meets, in its drop match, a team
//!   it could have played in the winners' bracket: the losers of winners' match `q` go to
//!   losers' position `q ^ 1` (pairs swapped; with two matches that is also reversed), which
//!   keeps every losers' position within one region of the next winners' round. Only the
//!   losers' final (against the winners' final loser) can be a rematch in a drop match. A
//!   rematch in a merge round is possible and unavoidable in this standard structure (e.g.
//!   losers' round 3 with 8 or 16 teams: a team dropped from winners' round 2 can meet again
//!   the team it beat in round 1); with byes, a dropped team whose drop match is a bye can
//!   likewise meet an earlier opponent in the next round.
//! - **Grand final**: `None`: no grand final, the winners'-bracket champion is the champion
//!   and the losers' bracket decides the runner-up; `Simple`: one match; `Double`: if the
//!   losers'-bracket team wins it, a reset match decides (otherwise the reset is not needed).

use super::standings::Standing;

pub const MIN_TEAMS: usize = 2;
pub const MAX_TEAMS: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    SingleElimination,
    DoubleElimination,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::SingleElimination => "single_elimination",
            Format::DoubleElimination => "double_elimination",
        }
    }

    pub fn parse(name: &str) -> Option<Format> {
        match name.trim() {
            "single_elimination" => Some(Format::SingleElimination),
            "double_elimination" => Some(Format::DoubleElimination),
            _ => None,
        }
    }
}

/// The grand final of a double elimination.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GrandFinal {
    /// No grand final: the winners'-bracket champion wins; the losers' bracket is for second.
    None,
    /// One match between the two bracket champions.
    Simple,
    /// As `Simple`, plus a reset match when the losers'-bracket team wins the first.
    Double,
}

impl GrandFinal {
    pub fn as_str(self) -> &'static str {
        match self {
            GrandFinal::None => "none",
            GrandFinal::Simple => "simple",
            GrandFinal::Double => "double",
        }
    }

    pub fn parse(name: &str) -> Option<GrandFinal> {
        match name.trim() {
            "none" => Some(GrandFinal::None),
            "simple" => Some(GrandFinal::Simple),
            "double" => Some(GrandFinal::Double),
            _ => None,
        }
    }
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    Winners,
    Losers,
    Final,
    ThirdPlace,
}

impl Section {
    /// The API's name (`"winners"`, `"losers"`, `"final"`, `"third_place"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Section::Winners => "winners",
            Section::Losers => "losers",
            Section::Final => "final",
            Section::ThirdPlace => "third_place",
        }
    }
}

/// Where an entrant of a match comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Slot {
    /// A first-round entrant (1-based seed).
    Seed(usize),
    /// Nobody: the other entrant advances without playing.
    Bye,
    /// The winner of an earlier match (its index).
    WinnerOf(usize),
    /// The loser of an earlier match (its index).
    LoserOf(usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BracketMatch {
    pub index: usize,
    pub bracket: Section,
    /// 1-based within its section.
    pub round: usize,
    /// 0-based within its round.
    pub position: usize,
    pub slots: [Slot; 2],
    /// Where the winner goes: (match index, slot 0 or 1).
    pub next: Option<(usize, usize)>,
    /// Where the loser goes (double elimination, third-place match, grand-final reset).
    pub loser_next: Option<(usize, usize)>,
    /// Decided at creation: at least one entrant is nobody (never played).
    pub bye: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bracket {
    pub format: Format,
    /// The number of teams (seeds `1..=seeds`).
    pub seeds: usize,
    /// Single elimination with a third-place match (never with fewer than 4 teams).
    pub third_place: bool,
    /// Double elimination's grand final (`None` for single elimination).
    pub grand_final: GrandFinal,
    pub matches: Vec<BracketMatch>,
    /// The match whose winner is the champion (for `Double`, the first grand final: see
    /// [`BracketState::champion`]).
    pub deciding: usize,
    /// The grand-final reset (`GrandFinal::Double` only).
    pub reset: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BracketError {
    #[error("a bracket needs {MIN_TEAMS} to {MAX_TEAMS} teams, not {0}")]
    FieldSize(usize),
    #[error("there is no match {0} in this bracket")]
    NoSuchMatch(usize),
    #[error("the winner must be slot 0 or 1, not {0}")]
    BadSlot(usize),
    #[error("match {0} is not ready: its entrants are not both known")]
    NotReady(usize),
    #[error("match {0} already has a result")]
    AlreadyDecided(usize),
    #[error("match {0} is a bye: it is decided without being played")]
    Bye(usize),
    #[error("match {0} is not needed: the winners'-bracket team won the grand final")]
    NotNeeded(usize),
}

/// The team ids of the top `teams` of the standings (all when `None`), in seed order: seed 1
/// first. The standings are already ranked by the league's tiebreak order.
pub fn seed_teams(standings: &[Standing], teams: Option<usize>) -> Vec<i64> {
    let mut rows: Vec<&Standing> = standings.iter().collect();
    rows.sort_by_key(|r| r.rank);
    rows.iter()
        .take(teams.unwrap_or(rows.len()))
        .map(|r| r.team_id)
        .collect()
}

/// The classic first-round order of `size` (a power of two) seeds: adjacent pairs play each
/// other (`[1, 8, 4, 5, 2, 7, 3, 6]` for 8).
pub fn seed_order(size: usize) -> Vec<usize> {
    let mut order = vec![1];
    while order.len() < size {
        let n = order.len() * 2;
        order = order.iter().flat_map(|&s| [s, n + 1 - s]).collect();
    }
    order
}

fn check_size(seeds: usize) -> Result<usize, BracketError> {
    if (MIN_TEAMS..=MAX_TEAMS).contains(&seeds) {
        Ok(seeds.next_power_of_two())
    } else {
        Err(BracketError::FieldSize(seeds))
    }
}

/// Builds the match list; keeps, per match, the mask of first-round matches (winners'
/// round 1 positions) whose teams can reach it, to place the losers'-bracket drops.
struct Builder {
    matches: Vec<BracketMatch>,
    leaves: Vec<[u64; 2]>,
}

impl Builder {
    /// A bracket's builder for `seeds` teams (2–256) with its winners' rounds (the last one
    /// in `last_section`): indexes per round.
    fn with_winners(
        seeds: usize,
        last_section: Section,
    ) -> Result<(Builder, Vec<Vec<usize>>), BracketError> {
        let size = check_size(seeds)?;
        let mut b = Builder {
            matches: Vec::new(),
            leaves: Vec::new(),
        };
        let rounds = b.winners(seeds, size, last_section);
        Ok((b, rounds))
    }

    fn push(&mut self, section: Section, round: usize, position: usize, slots: [Slot; 2]) -> usize {
        let index = self.matches.len();
        let mut leaves = [0u64; 2];
        for (k, slot) in slots.iter().enumerate() {
            match *slot {
                Slot::WinnerOf(m) => {
                    self.matches[m].next = Some((index, k));
                    or(&mut leaves, self.leaves[m]);
                }
                Slot::LoserOf(m) => {
                    self.matches[m].loser_next = Some((index, k));
                    or(&mut leaves, self.leaves[m]);
                }
                Slot::Seed(_) | Slot::Bye => {
                    leaves[position / 64] |= 1 << (position % 64);
                }
            }
        }
        let bye = slots.iter().any(|s| self.empty(*s));
        self.matches.push(BracketMatch {
            index,
            bracket: section,
            round,
            position,
            slots,
            next: None,
            loser_next: None,
            bye,
        });
        self.leaves.push(leaves);
        index
    }

    /// Whether `slot` is structurally nobody.
    fn empty(&self, slot: Slot) -> bool {
        match slot {
            Slot::Seed(_) => false,
            Slot::Bye => true,
            Slot::WinnerOf(m) => self.matches[m].slots.iter().all(|s| self.empty(*s)),
            Slot::LoserOf(m) => self.matches[m].bye,
        }
    }

    /// Winners' rounds 1..=`rounds` (the last one in `last_section`): indexes per round.
    fn winners(&mut self, seeds: usize, size: usize, last_section: Section) -> Vec<Vec<usize>> {
        let order = seed_order(size);
        let slot = |s: usize| if s > seeds { Slot::Bye } else { Slot::Seed(s) };
        let rounds = size.trailing_zeros() as usize;
        let mut all: Vec<Vec<usize>> = Vec::with_capacity(rounds);
        for round in 1..=rounds {
            let section = if round == rounds {
                last_section
            } else {
                Section::Winners
            };
            let shown_round = if section == Section::Winners {
                round
            } else {
                1
            };
            let count = size >> round;
            let ids = (0..count)
                .map(|p| {
                    let slots = if round == 1 {
                        [slot(order[2 * p]), slot(order[2 * p + 1])]
                    } else {
                        let prev = &all[round - 2];
                        [Slot::WinnerOf(prev[2 * p]), Slot::WinnerOf(prev[2 * p + 1])]
                    };
                    self.push(section, shown_round, p, slots)
                })
                .collect();
            all.push(ids);
        }
        all
    }

    fn overlaps(&self, a: usize, b: usize) -> bool {
        let (x, y) = (self.leaves[a], self.leaves[b]);
        (x[0] & y[0]) | (x[1] & y[1]) != 0
    }

    /// Where the losers of `drops` go against the survivors `survivors` (same length): the
    /// first of a few permutations with no possible rematch, else the one with the fewest.
    /// Swapping pairs comes first: it keeps every losers' position made of one region of the
    /// next winners' round, so every later drop round has a rematch-free placement too.
    fn drop_order(&self, survivors: &[usize], drops: &[usize]) -> Vec<usize> {
        let m = drops.len();
        let mut candidates: Vec<Vec<usize>> = vec![
            (0..m).map(|p| p ^ 1).collect(),
            (0..m).map(|p| m - 1 - p).collect(),
            (0..m).map(|p| (p + m / 2) % m).collect(),
        ];
        candidates.extend((0..m).map(|r| (0..m).map(|p| (p + r) % m).collect()));
        candidates.retain(|c| c.iter().all(|&q| q < m));
        let conflicts = |c: &Vec<usize>| {
            (0..m)
                .filter(|&p| self.overlaps(survivors[p], drops[c[p]]))
                .count()
        };
        candidates
            .iter()
            .min_by_key(|c| conflicts(c))
            .cloned()
            .unwrap_or_else(|| (0..m).collect())
    }
}

fn or(into: &mut [u64; 2], from: [u64; 2]) {
    into[0] |= from[0];
    into[1] |= from[1];
}

/// A single-elimination bracket for `seeds` teams (2–256), with a third-place match between
/// the semi-final losers if asked (and there are at least 4 teams).
pub fn single_elimination(seeds: usize, third_place: bool) -> Result<Bracket, BracketError> {
    let (mut b, rounds) = Builder::with_winners(seeds, Section::Final)?;
    let deciding = rounds[rounds.len() - 1][0];
    let third_place = third_place && seeds >= 4;
    if third_place {
        let semis = &rounds[rounds.len() - 2];
        b.push(
            Section::ThirdPlace,
            1,
            0,
            [Slot::LoserOf(semis[0]), Slot::LoserOf(semis[1])],
        );
    }
    Ok(Bracket {
        format: Format::SingleElimination,
        seeds,
        third_place,
        grand_final: GrandFinal::None,
        matches: b.matches,
        deciding,
        reset: None,
    })
}

/// A double-elimination bracket for `seeds` teams (2–256).
pub fn double_elimination(seeds: usize, grand_final: GrandFinal) -> Result<Bracket, BracketError> {
    let (mut b, w) = Builder::with_winners(seeds, Section::Winners)?;
    let wb_final = w[w.len() - 1][0];
    // The losers' champion comes from here (with 2 teams: the loser of the only match).
    let mut lb_champion = Slot::LoserOf(wb_final);
    if w.len() >= 2 {
        let mut round = 1;
        let mut survivors: Vec<usize> = (0..w[0].len() / 2)
            .map(|p| {
                b.push(
                    Section::Losers,
                    round,
                    p,
                    [Slot::LoserOf(w[0][2 * p]), Slot::LoserOf(w[0][2 * p + 1])],
                )
            })
            .collect();
        for k in 1..w.len() {
            let drops = &w[k];
            let order = b.drop_order(&survivors, drops);
            round += 1;
            survivors = (0..drops.len())
                .map(|p| {
                    b.push(
                        Section::Losers,
                        round,
                        p,
                        [Slot::WinnerOf(survivors[p]), Slot::LoserOf(drops[order[p]])],
                    )
                })
                .collect();
            if k + 1 < w.len() {
                round += 1;
                survivors = (0..survivors.len() / 2)
                    .map(|p| {
                        b.push(
                            Section::Losers,
                            round,
                            p,
                            [
                                Slot::WinnerOf(survivors[2 * p]),
                                Slot::WinnerOf(survivors[2 * p + 1]),
                            ],
                        )
                    })
                    .collect();
            }
        }
        lb_champion = Slot::WinnerOf(survivors[0]);
    }
    let (deciding, reset) = match grand_final {
        GrandFinal::None => (wb_final, None),
        GrandFinal::Simple | GrandFinal::Double => {
            let gf = b.push(
                Section::Final,
                1,
                0,
                [Slot::WinnerOf(wb_final), lb_champion],
            );
            let reset = (grand_final == GrandFinal::Double).then(|| {
                b.push(
                    Section::Final,
                    2,
                    0,
                    [Slot::WinnerOf(gf), Slot::LoserOf(gf)],
                )
            });
            (gf, reset)
        }
    };
    Ok(Bracket {
        format: Format::DoubleElimination,
        seeds,
        third_place: false,
        grand_final,
        matches: b.matches,
        deciding,
        reset,
    })
}

impl Bracket {
    /// The matches actually played at most (not byes; the reset counts).
    pub fn real_matches(&self) -> usize {
        self.matches.iter().filter(|m| !m.bye).count()
    }
}

/// Who is in a slot, as far as the results so far tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Entrant {
    /// Not known yet.
    Pending,
    /// A team, by seed.
    Team(usize),
    /// Nobody (a bye).
    Nobody,
}

impl Entrant {
    pub fn team(self) -> Option<usize> {
        match self {
            Entrant::Team(s) => Some(s),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchStatus {
    /// An entrant is not known yet.
    Waiting,
    /// Both teams known, no result yet.
    Ready,
    /// Played; the winner's slot.
    Decided { winner: usize },
    /// Decided without being played: at most one team (it advances).
    Bye,
    /// The grand-final reset when the winners'-bracket team won the first grand final.
    NotNeeded,
}

/// The results applied to a bracket: entrants and status of every match. The accessors taking
/// a match index panic when it is not a match of the bracket (as slice indexing does);
/// `report` returns an error instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BracketState {
    bracket: Bracket,
    results: Vec<Option<usize>>,
    entrants: Vec<[Entrant; 2]>,
    status: Vec<MatchStatus>,
}

impl BracketState {
    /// No results yet (byes already decided).
    pub fn new(bracket: &Bracket) -> BracketState {
        BracketState::replay_in_order(bracket, |_, _| None)
    }

    /// The state after `results` (match index, winner slot), applied in match order (so any
    /// order of the list works). A result for a match that is not ready, or two for one
    /// match, is an error.
    pub fn replay(bracket: &Bracket, results: &[(usize, usize)]) -> Result<Self, BracketError> {
        let mut state = BracketState::new(bracket);
        let mut sorted = results.to_vec();
        sorted.sort_by_key(|r| r.0);
        for (m, w) in sorted {
            state.report(m, w)?;
        }
        Ok(state)
    }

    pub fn bracket(&self) -> &Bracket {
        &self.bracket
    }

    /// Records that the team in `winner_slot` (0 or 1) won match `index`; the winner (and
    /// the loser, where it goes on) move to their next matches.
    pub fn report(&mut self, index: usize, winner_slot: usize) -> Result<(), BracketError> {
        let status = *self
            .status
            .get(index)
            .ok_or(BracketError::NoSuchMatch(index))?;
        if winner_slot > 1 {
            return Err(BracketError::BadSlot(winner_slot));
        }
        match status {
            MatchStatus::Ready => {}
            MatchStatus::Waiting => return Err(BracketError::NotReady(index)),
            MatchStatus::Decided { .. } => return Err(BracketError::AlreadyDecided(index)),
            MatchStatus::Bye => return Err(BracketError::Bye(index)),
            MatchStatus::NotNeeded => return Err(BracketError::NotNeeded(index)),
        }
        self.results[index] = Some(winner_slot);
        self.recompute();
        Ok(())
    }

    /// The results so far, as (match index, winner slot), in match order: `replay` input.
    pub fn results(&self) -> Vec<(usize, usize)> {
        self.results
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.map(|w| (i, w)))
            .collect()
    }

    pub fn entrants(&self, index: usize) -> [Entrant; 2] {
        self.entrants[index]
    }

    pub fn status(&self, index: usize) -> MatchStatus {
        self.status[index]
    }

    /// The seed that won (or advanced through a bye), once known.
    pub fn winner(&self, index: usize) -> Option<usize> {
        self.outcome(index, Slot::WinnerOf(index)).team()
    }

    /// The seed that lost a played match.
    pub fn loser(&self, index: usize) -> Option<usize> {
        self.outcome(index, Slot::LoserOf(index)).team()
    }

    /// Matches whose two teams are known and that wait for a result, in index order.
    pub fn ready_matches(&self) -> Vec<usize> {
        (0..self.status.len())
            .filter(|&i| self.status[i] == MatchStatus::Ready)
            .collect()
    }

    /// Every match decided, a bye or not needed.
    pub fn is_complete(&self) -> bool {
        self.status
            .iter()
            .all(|s| !matches!(s, MatchStatus::Waiting | MatchStatus::Ready))
    }

    /// The champion's seed, once decided (the other matches, e.g. third place or the losers'
    /// bracket with no grand final, may still be going on).
    pub fn champion(&self) -> Option<usize> {
        if let Some(reset) = self.bracket.reset {
            return match self.status[reset] {
                MatchStatus::NotNeeded => self.winner(self.bracket.deciding),
                _ => self.winner(reset),
            };
        }
        self.winner(self.bracket.deciding)
    }

    /// The match indexes whose entrants differ between `self` and `other` (two states of the
    /// same bracket, e.g. before and after a corrected result), in index order.
    pub fn changed_entrants(&self, other: &BracketState) -> Vec<usize> {
        (0..self.entrants.len())
            .filter(|&i| other.entrants.get(i) != Some(&self.entrants[i]))
            .collect()
    }

    fn outcome(&self, index: usize, slot: Slot) -> Entrant {
        let e = self.entrants[index];
        match (self.status[index], slot) {
            (MatchStatus::Decided { winner }, Slot::WinnerOf(_)) => e[winner],
            (MatchStatus::Decided { winner }, _) => e[1 - winner],
            (MatchStatus::Bye, Slot::WinnerOf(_)) => {
                if e[0] == Entrant::Nobody {
                    e[1]
                } else {
                    e[0]
                }
            }
            (MatchStatus::Bye | MatchStatus::NotNeeded, _) => Entrant::Nobody,
            _ => Entrant::Pending,
        }
    }

    fn recompute(&mut self) {
        for i in 0..self.bracket.matches.len() {
            self.settle(i);
        }
    }

    /// The state built in one pass over the matches in order (each depends only on earlier
    /// ones): a match that is ready takes `result_of(index, entrants)` as its result, if any
    /// (a winner slot, 0 or 1). The same state as [`BracketState::report`] of each in match
    /// order, without recomputing the whole bracket at each result: a stored bracket is
    /// loaded so at every playoff result.
    pub fn replay_in_order(
        bracket: &Bracket,
        mut result_of: impl FnMut(usize, [Entrant; 2]) -> Option<usize>,
    ) -> BracketState {
        let n = bracket.matches.len();
        let mut state = BracketState {
            bracket: bracket.clone(),
            results: vec![None; n],
            entrants: vec![[Entrant::Pending; 2]; n],
            status: vec![MatchStatus::Waiting; n],
        };
        for i in 0..n {
            state.settle(i);
            if state.status[i] == MatchStatus::Ready
                && let Some(winner) = result_of(i, state.entrants[i]).filter(|w| *w <= 1)
            {
                state.results[i] = Some(winner);
                state.status[i] = MatchStatus::Decided { winner };
            }
        }
        state
    }

    /// The entrants and status of match `i` from the earlier matches' outcomes.
    fn settle(&mut self, i: usize) {
        let slots = self.bracket.matches[i].slots;
        let resolve = |slot: Slot| match slot {
            Slot::Seed(s) => Entrant::Team(s),
            Slot::Bye => Entrant::Nobody,
            Slot::WinnerOf(m) | Slot::LoserOf(m) => self.outcome(m, slot),
        };
        let e = [resolve(slots[0]), resolve(slots[1])];
        self.entrants[i] = e;
        let not_needed = Some(i) == self.bracket.reset
            && self.status[self.bracket.deciding] == MatchStatus::Decided { winner: 0 };
        self.status[i] = if not_needed {
            self.results[i] = None;
            MatchStatus::NotNeeded
        } else if e.contains(&Entrant::Pending) {
            MatchStatus::Waiting
        } else if e.contains(&Entrant::Nobody) {
            MatchStatus::Bye
        } else {
            match self.results[i] {
                Some(winner) => MatchStatus::Decided { winner },
                None => MatchStatus::Ready,
            }
        };
        if matches!(self.status[i], MatchStatus::Waiting | MatchStatus::Bye) {
            self.results[i] = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::{BTreeMap, BTreeSet, HashSet};

    const FORMATS: [GrandFinal; 3] = [GrandFinal::None, GrandFinal::Simple, GrandFinal::Double];

    fn all_brackets(n: usize) -> Vec<Bracket> {
        let mut out = vec![
            single_elimination(n, false).unwrap(),
            single_elimination(n, true).unwrap(),
        ];
        out.extend(FORMATS.iter().map(|g| double_elimination(n, *g).unwrap()));
        out
    }

    /// Seeds that can reach each slot of each match.
    fn reachable(b: &Bracket) -> Vec<[BTreeSet<usize>; 2]> {
        let mut out: Vec<[BTreeSet<usize>; 2]> = Vec::new();
        for m in &b.matches {
            let sets = m.slots.map(|s| match s {
                Slot::Seed(n) => BTreeSet::from([n]),
                Slot::Bye => BTreeSet::new(),
                Slot::WinnerOf(i) | Slot::LoserOf(i) => {
                    out[i][0].union(&out[i][1]).copied().collect()
                }
            });
            out.push(sets);
        }
        out
    }

    /// Plays random (or first-slot) winners until nothing is ready; returns the final state
    /// and the matches played, in order, as (match, winner seed, loser seed).
    fn play(
        b: &Bracket,
        mut pick: impl FnMut(usize) -> usize,
    ) -> (BracketState, Vec<(usize, usize, usize)>) {
        let mut state = BracketState::new(b);
        let mut played = Vec::new();
        loop {
            let ready = state.ready_matches();
            if ready.is_empty() {
                break;
            }
            let m = ready[pick(ready.len()) % ready.len()];
            let w = pick(2) % 2;
            state.report(m, w).unwrap();
            played.push((m, state.winner(m).unwrap(), state.loser(m).unwrap()));
        }
        (state, played)
    }

    fn rng(seed: u64) -> impl FnMut(usize) -> usize {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        move |n| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n.max(1) as u64) as usize
        }
    }

    #[test]
    fn seed_order_is_the_classic_one() {
        assert_eq!(seed_order(2), [1, 2]);
        assert_eq!(seed_order(4), [1, 4, 2, 3]);
        assert_eq!(seed_order(8), [1, 8, 4, 5, 2, 7, 3, 6]);
        assert_eq!(
            seed_order(16),
            [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]
        );
    }

    #[test]
    fn field_size_is_checked() {
        for n in [0, 1, 257, 1000] {
            assert_eq!(single_elimination(n, true), Err(BracketError::FieldSize(n)));
            assert_eq!(
                double_elimination(n, GrandFinal::Double),
                Err(BracketError::FieldSize(n))
            );
        }
        assert!(single_elimination(256, true).is_ok());
        assert!(double_elimination(256, GrandFinal::Double).is_ok());
    }

    #[test]
    fn structure_is_consistent() {
        for n in (2usize..=64).chain([100, 127, 128, 129, 200, 255, 256]) {
            for b in all_brackets(n) {
                for (i, m) in b.matches.iter().enumerate() {
                    assert_eq!(m.index, i);
                    for (k, s) in m.slots.iter().enumerate() {
                        match *s {
                            Slot::WinnerOf(j) => {
                                assert!(j < i);
                                assert_eq!(b.matches[j].next, Some((i, k)));
                            }
                            Slot::LoserOf(j) => {
                                assert!(j < i);
                                assert_eq!(b.matches[j].loser_next, Some((i, k)));
                            }
                            Slot::Seed(_) | Slot::Bye => {
                                assert!(m.round == 1 && m.bracket != Section::Losers, "n = {n}")
                            }
                        }
                    }
                }
                // Positions 0.. within each (section, round).
                let mut rounds: BTreeMap<(Section, usize), Vec<usize>> = BTreeMap::new();
                for m in &b.matches {
                    rounds
                        .entry((m.bracket, m.round))
                        .or_default()
                        .push(m.position);
                }
                for positions in rounds.values() {
                    assert_eq!(*positions, (0..positions.len()).collect::<Vec<_>>());
                }
            }
        }
    }

    #[test]
    fn every_seed_appears_once_and_top_seeds_get_the_byes() {
        for n in (2usize..=64).chain([100, 129, 200, 255, 256]) {
            let size = n.next_power_of_two();
            let byes = size - n;
            for b in all_brackets(n) {
                let mut seen = Vec::new();
                let mut bye_seeds = Vec::new();
                for m in b
                    .matches
                    .iter()
                    .filter(|m| m.round == 1 || m.bracket == Section::Winners)
                {
                    for (k, s) in m.slots.iter().enumerate() {
                        if let Slot::Seed(x) = s {
                            seen.push(*x);
                            if m.slots[1 - k] == Slot::Bye {
                                bye_seeds.push(*x);
                            }
                        }
                    }
                }
                seen.sort();
                assert_eq!(seen, (1..=n).collect::<Vec<_>>(), "n = {n}");
                bye_seeds.sort();
                assert_eq!(bye_seeds, (1..=byes).collect::<Vec<_>>(), "n = {n}");
                assert!(!b.matches.iter().any(|m| m.slots == [Slot::Bye, Slot::Bye]));
            }
        }
    }

    #[test]
    fn single_elimination_has_n_minus_one_matches() {
        for n in (2usize..=64).chain([100, 129, 200, 255, 256]) {
            let b = single_elimination(n, false).unwrap();
            assert_eq!(b.real_matches(), n - 1, "n = {n}");
            assert_eq!(b.matches.len(), n.next_power_of_two() - 1);
            let b = single_elimination(n, true).unwrap();
            let third = usize::from(n >= 4);
            assert_eq!(b.real_matches(), n - 1 + third, "n = {n}");
            assert_eq!(b.third_place, n >= 4);
            let finals: Vec<_> = b
                .matches
                .iter()
                .filter(|m| m.bracket == Section::Final)
                .collect();
            assert_eq!(finals.len(), 1);
            assert_eq!(finals[0].index, b.deciding);
        }
    }

    #[test]
    fn double_elimination_match_counts() {
        for n in (2usize..=64).chain([100, 129, 200, 255, 256]) {
            let count = |g| double_elimination(n, g).unwrap().real_matches();
            assert_eq!(count(GrandFinal::None), 2 * n - 3, "n = {n}");
            assert_eq!(count(GrandFinal::Simple), 2 * n - 2, "n = {n}");
            assert_eq!(count(GrandFinal::Double), 2 * n - 1, "n = {n}");
        }
    }

    #[test]
    fn seeds_one_and_two_meet_only_in_the_final_and_top_seeds_are_spread() {
        for n in (2usize..=64).chain([100, 129, 200, 255, 256]) {
            let size = n.next_power_of_two();
            let rounds = size.trailing_zeros() as usize;
            for b in [
                single_elimination(n, true).unwrap(),
                double_elimination(n, GrandFinal::Double).unwrap(),
            ] {
                let reach = reachable(&b);
                // The winners' bracket, with its round numbers (the single-elimination final
                // is its last round).
                let winners = b.matches.iter().filter_map(|m| match m.bracket {
                    Section::Winners => Some((m.index, m.round)),
                    Section::Final if b.format == Format::SingleElimination => {
                        Some((m.index, rounds))
                    }
                    _ => None,
                });
                for (i, round) in winners {
                    let [a, c] = &reach[i];
                    let meet =
                        (a.contains(&1) && c.contains(&2)) || (a.contains(&2) && c.contains(&1));
                    assert_eq!(meet, round == rounds, "n = {n}, match {i}");
                    // Round r: each match holds exactly two of the top size/2^(r-1) seeds
                    // (one per half), so 1–4 are in different quarters, and so on.
                    let top = size >> (round - 1);
                    if top <= n {
                        let count = a.iter().chain(c).filter(|&&s| s <= top).count();
                        assert_eq!(count, 2, "n = {n}, match {i}");
                    }
                }
            }
        }
    }

    /// The losers' final: the last match of the losers' bracket (none without one).
    fn losers_final(b: &Bracket) -> Option<usize> {
        b.matches
            .iter()
            .filter(|m| m.bracket == Section::Losers)
            .map(|m| m.index)
            .max()
    }

    /// A played losers'-bracket match fed by a winners' loser (the losers' first round and the
    /// drop rounds), except the losers' final, is never a rematch. Without byes (8, 16, 32,
    /// 64...) that is every team's first losers' match; with byes a dropped team can skip its
    /// drop match and meet an earlier opponent in the next round (e.g. 5 teams: 4 beats 5,
    /// loses to 1, gets a bye, then may meet 5), which the structure cannot avoid.
    fn no_early_rematch(b: &Bracket, played: &[(usize, usize, usize)]) -> Result<(), String> {
        let lb_final = losers_final(b);
        let mut pairs: HashSet<(usize, usize)> = HashSet::new();
        let mut in_losers: HashSet<usize> = HashSet::new();
        for &(m, w, l) in played {
            let pair = (w.min(l), w.max(l));
            let bm = &b.matches[m];
            let fresh = !in_losers.contains(&w) || !in_losers.contains(&l);
            let drop = bm.slots.iter().any(|s| matches!(s, Slot::LoserOf(_)));
            if bm.bracket == Section::Losers && Some(m) != lb_final && pairs.contains(&pair) {
                if drop {
                    return Err(format!(
                        "n = {}: rematch {pair:?} in drop match {m}",
                        b.seeds
                    ));
                }
                if fresh && b.seeds.is_power_of_two() {
                    return Err(format!(
                        "n = {}: rematch {pair:?} in a first match {m}",
                        b.seeds
                    ));
                }
            }
            if bm.bracket == Section::Losers {
                in_losers.insert(w);
                in_losers.insert(l);
            }
            pairs.insert(pair);
        }
        Ok(())
    }

    #[test]
    fn drop_matches_cannot_be_rematches() {
        // Structurally: in every losers' match fed by a winners' loser, except the losers'
        // final, no seed that can arrive through the other slot is from the dropping winners'
        // match's region, so the two can never have met.
        for n in 2usize..=256 {
            let b = double_elimination(n, GrandFinal::Simple).unwrap();
            let reach = reachable(&b);
            let lb_final = losers_final(&b);
            for m in b.matches.iter().filter(|m| m.bracket == Section::Losers) {
                if Some(m.index) == lb_final {
                    continue;
                }
                for k in 0..2 {
                    if let Slot::LoserOf(w) = m.slots[k] {
                        let region: BTreeSet<usize> =
                            reach[w][0].union(&reach[w][1]).copied().collect();
                        assert!(
                            region.is_disjoint(&reach[m.index][1 - k]),
                            "n = {n}: drop match {}",
                            m.index
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn no_rematch_in_a_first_losers_match() {
        for n in (2usize..=64).chain([100, 129, 200, 255, 256]) {
            let b = double_elimination(n, GrandFinal::Double).unwrap();
            let runs = if n == 8 || n == 16 { 300 } else { 10 };
            for seed in 0..runs {
                let (_, played) = play(&b, rng(seed + 1000 * n as u64));
                no_early_rematch(&b, &played).unwrap();
            }
        }
    }

    #[test]
    fn grand_final_reset_only_when_the_losers_side_wins() {
        let b = double_elimination(4, GrandFinal::Double).unwrap();
        let gf = b.deciding;
        let reset = b.reset.unwrap();
        // Winners' side (slot 0) wins: no reset.
        let mut s = BracketState::new(&b);
        while let Some(&m) = s.ready_matches().first() {
            s.report(m, 0).unwrap();
        }
        assert!(s.is_complete());
        assert_eq!(s.status(reset), MatchStatus::NotNeeded);
        assert_eq!(s.champion(), Some(1));
        assert_eq!(s.report(reset, 0), Err(BracketError::NotNeeded(reset)));
        // Losers' side wins the first final: the reset is played.
        let mut s = BracketState::new(&b);
        loop {
            let ready = s.ready_matches();
            let Some(&m) = ready.first() else { break };
            s.report(m, usize::from(m == gf)).unwrap();
        }
        assert!(s.is_complete());
        assert!(matches!(
            s.status(reset),
            MatchStatus::Decided { winner: 0 }
        ));
        // 1 and 2 win the winners' side, 4 beats 3 then 2 in the losers' bracket, then 1.
        assert_eq!(s.entrants(reset), [Entrant::Team(4), Entrant::Team(1)]);
        assert_eq!(s.champion(), Some(4));
    }

    #[test]
    fn errors() {
        let b = single_elimination(3, false).unwrap();
        let mut s = BracketState::new(&b);
        // Match 0 is 1 v bye, match 1 is 2 v 3, match 2 the final.
        assert_eq!(b.matches[0].slots, [Slot::Seed(1), Slot::Bye]);
        assert!(b.matches[0].bye);
        assert_eq!(s.winner(0), Some(1));
        assert_eq!(s.ready_matches(), [1]);
        assert_eq!(s.report(0, 0), Err(BracketError::Bye(0)));
        assert_eq!(s.report(2, 0), Err(BracketError::NotReady(2)));
        assert_eq!(s.report(9, 0), Err(BracketError::NoSuchMatch(9)));
        assert_eq!(s.report(1, 2), Err(BracketError::BadSlot(2)));
        s.report(1, 1).unwrap();
        assert_eq!(s.report(1, 0), Err(BracketError::AlreadyDecided(1)));
        assert_eq!(s.entrants(2), [Entrant::Team(1), Entrant::Team(3)]);
        assert_eq!(s.champion(), None);
        s.report(2, 1).unwrap();
        assert_eq!(s.champion(), Some(3));
        assert!(s.is_complete());
    }

    #[test]
    fn a_correction_shows_the_changed_matches() {
        let b = single_elimination(8, true).unwrap();
        // Everyone's slot 0 wins, except the correction of match 0.
        let results: Vec<(usize, usize)> = (0..b.matches.len()).map(|m| (m, 0)).collect();
        let before = BracketState::replay(&b, &results).unwrap();
        assert_eq!(before.champion(), Some(1));
        let mut corrected = results.clone();
        corrected[0].1 = 1;
        let after = BracketState::replay(&b, &corrected).unwrap();
        assert_eq!(after.champion(), Some(8));
        // 1 v 8 → 8 v 4 (match 4) → 8 v 2 (final 6); 4 still loses its semi-final, so the
        // third-place match (7) keeps its entrants.
        assert_eq!(before.changed_entrants(&after), [4, 6]);
        // The results apply in match order whatever the order of the list.
        let mut reversed = corrected.clone();
        reversed.reverse();
        assert_eq!(BracketState::replay(&b, &reversed).unwrap(), after);
        assert_eq!(after.results(), corrected);
        assert!(BracketState::replay(&b, &[(0, 0), (0, 1)]).is_err());
    }

    #[test]
    fn seeds_from_the_standings() {
        use crate::league::standings::{TeamEntry, Tiebreak, standings};
        let teams: Vec<TeamEntry> = ["Zed", "Amy", "Bob"]
            .iter()
            .enumerate()
            .map(|(i, n)| TeamEntry {
                id: i as i64 + 10,
                name: n.to_string(),
            })
            .collect();
        let rows = standings(&teams, &[], &Tiebreak::DEFAULT_ORDER);
        assert_eq!(seed_teams(&rows, None), [11, 12, 10]);
        let mut shuffled = rows.clone();
        shuffled.reverse();
        assert_eq!(seed_teams(&shuffled, Some(2)), [11, 12]);
    }

    /// Checks a finished random run: one champion, losses per team, the reset rule.
    fn check_run(b: &Bracket, state: &BracketState, played: &[(usize, usize, usize)]) {
        let n = b.seeds;
        assert!(state.is_complete(), "n = {n}");
        let champion = state.champion().expect("a champion");
        assert!((1..=n).contains(&champion));
        let mut losses = vec![0usize; n + 1];
        let mut appearances = vec![0usize; n + 1];
        for &(_, w, l) in played {
            losses[l] += 1;
            appearances[w] += 1;
            appearances[l] += 1;
        }
        let played_real = played.len();
        match b.format {
            Format::SingleElimination => {
                assert_eq!(played_real, n - 1 + usize::from(b.third_place));
                for (s, &lost) in losses.iter().enumerate().skip(1) {
                    let expected = usize::from(s != champion);
                    // The third-place match adds a second loss to its loser.
                    assert!(lost == expected || (b.third_place && lost == 2), "seed {s}");
                }
                let twice = losses.iter().filter(|&&l| l == 2).count();
                assert_eq!(twice, usize::from(b.third_place));
            }
            Format::DoubleElimination => {
                let gf_loser_from_winners = b.grand_final != GrandFinal::None
                    && state.status(b.deciding) == MatchStatus::Decided { winner: 1 };
                let reset_played = b
                    .reset
                    .is_some_and(|r| matches!(state.status(r), MatchStatus::Decided { .. }));
                if let Some(r) = b.reset {
                    assert_eq!(
                        reset_played, gf_loser_from_winners,
                        "reset iff losers' side won"
                    );
                    assert_eq!(
                        state.status(r) == MatchStatus::NotNeeded,
                        !gf_loser_from_winners
                    );
                }
                let expected_matches = match b.grand_final {
                    GrandFinal::None => 2 * n - 3,
                    GrandFinal::Simple => 2 * n - 2,
                    GrandFinal::Double => 2 * n - 2 + usize::from(reset_played),
                };
                assert_eq!(played_real, expected_matches, "n = {n}");
                let runner_up = match b.grand_final {
                    GrandFinal::None if n == 2 => state.loser(b.deciding),
                    GrandFinal::None => state.winner(b.matches.len() - 1),
                    _ => None,
                };
                // Nobody plays after a second loss.
                let mut so_far = vec![0usize; n + 1];
                for &(m, w, l) in played {
                    assert!(so_far[w] < 2 && so_far[l] < 2, "n = {n}: match {m}");
                    so_far[l] += 1;
                }
                for (s, &lost) in losses.iter().enumerate().skip(1) {
                    if s == champion {
                        assert!(lost <= 1, "champion {s}: {lost} losses");
                        if b.grand_final == GrandFinal::None {
                            assert_eq!(lost, 0);
                        }
                    } else if Some(s) == runner_up
                        || (b.grand_final == GrandFinal::Simple
                            && gf_loser_from_winners
                            && state.loser(b.deciding) == Some(s))
                    {
                        // The losers' champion with no grand final, or the winners' champion
                        // beaten in a simple grand final: out with one loss.
                        assert_eq!(lost, 1, "seed {s}");
                    } else {
                        assert_eq!(lost, 2, "seed {s}: out after exactly two losses");
                    }
                }
            }
        }
        // Every team plays at least once (byes only ever go to a team that then plays).
        assert!(appearances.iter().skip(1).all(|&a| a >= 1), "n = {n}");
    }

    #[test]
    fn every_size_completes_with_one_champion() {
        for n in (2usize..=64).chain([100, 129, 200, 255, 256]) {
            for (k, b) in all_brackets(n).iter().enumerate() {
                for seed in 0..3 {
                    let (state, played) = play(b, rng(seed * 7 + k as u64 + n as u64 * 31));
                    check_run(b, &state, &played);
                    // Replaying the results gives the same state.
                    assert_eq!(BracketState::replay(b, &state.results()).unwrap(), state);
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn any_results_complete_the_bracket(
            n in 2usize..=64,
            kind in 0usize..5,
            choices in proptest::collection::vec(any::<usize>(), 300),
        ) {
            let b = all_brackets(n).swap_remove(kind);
            let mut it = choices.into_iter().cycle();
            let (state, played) = play(&b, |m| it.next().unwrap_or(0) % m.max(1));
            check_run(&b, &state, &played);
            // One pass in match order gives the state of reporting each result in turn.
            let results: std::collections::HashMap<usize, usize> =
                state.results().into_iter().collect();
            let one_pass = BracketState::replay_in_order(&b, |i, _| results.get(&i).copied());
            prop_assert_eq!(&one_pass, &state);
            // A correction of any played result: replay, and the changed matches are later ones.
            if let Some(&(m, _, _)) = played.first() {
                let mut results = state.results();
                let at = results.iter().position(|r| r.0 == m).unwrap();
                results[at].1 = 1 - results[at].1;
                // Only the results up to and including the corrected match, then the changes.
                let kept: Vec<(usize, usize)> = results.iter().copied().filter(|r| r.0 <= m).collect();
                let after = BracketState::replay(&b, &kept).unwrap();
                let before = BracketState::replay(
                    &b,
                    &state.results().into_iter().filter(|r| r.0 <= m).collect::<Vec<_>>(),
                )
                .unwrap();
                let changed = before.changed_entrants(&after);
                prop_assert!(changed.iter().all(|&c| c > m));
                let goes_on = b.matches[m].next.is_some() || b.matches[m].loser_next.is_some();
                prop_assert_eq!(changed.is_empty(), !goes_on);
            }
        }
    }
}
