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
//!
//! This file builds the structure; `state.rs` applies results to it ([`BracketState`]); the
//! tests of both are in `tests.rs`.

use super::standings::Standing;

mod label;
mod state;
pub use label::{match_label, round_name};
#[cfg(test)]
mod tests;

pub use state::{BracketState, Entrant, MatchStatus};

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
        .map(|r| r.team_id.0)
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
