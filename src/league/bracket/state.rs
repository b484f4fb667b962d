//! The results applied to a bracket ([`BracketState`]): who is in each match and whether it
//! waits, is ready, decided, a bye or not needed, replayed from the results in match order.

use super::{Bracket, BracketError, Slot};

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
