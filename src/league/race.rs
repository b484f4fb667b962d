//! The playoff race, exactly: for each team, whether it is sure of a top-`spots` place
//! whatever the remaining matches' results (`Clinched`), sure to miss it (`Eliminated`), or
//! neither, and the fewest of its own remaining matches it must win to be sure.
//!
//! Teams rank by win % ((won + ½ tied) / played; docs/scoring.md §7.2). The tiebreaks read
//! scores the remaining matches have not made yet, so a tie on win % is counted against the
//! team when asking whether it is sure of a place, and for it when asking whether it is out.
//!
//! Every question is "is there an outcome of the remaining matches where …", answered
//! without trying every outcome (the baseball elimination problem, for the top k):
//! - **sure of a place** with `w` wins: the team wins `w` of its matches and loses the rest
//!   (the worst for it), and no set of `spots` other teams can all reach its win %, each set
//!   checked as a flow of the remaining matches' points, with each way of spreading its
//!   losses over the set (a set that cannot is never grown);
//! - **out**: the team wins all its matches (the best for it), and every way of keeping the
//!   others at or below its win % needs `spots` or more of them above it: the flow that
//!   keeps them below fails on a set of teams one of which must go above, and each is tried.

/// A team as the race reads it: its points so far in half-points (2 a win, 1 a draw), and
/// the matches it has finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RaceTeam {
    pub half_points: u32,
    pub played: u32,
}

/// Where a team stands in the race.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RaceStatus {
    Clinched,
    Eliminated,
    Alive,
}

impl RaceStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RaceStatus::Clinched => "clinched",
            RaceStatus::Eliminated => "eliminated",
            RaceStatus::Alive => "alive",
        }
    }
}

/// One team's place in the race.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Race {
    pub status: RaceStatus,
    pub games_left: u32,
    /// The fewest of its remaining matches it must win to be sure of a place, whatever else
    /// happens; `None` when even winning them all is not enough.
    pub wins_needed: Option<u32>,
}

/// The race of every team of `teams` for `spots` places, with the `remaining` matches
/// (pairs of indexes into `teams`) still to play; `draws` when a match may end level.
pub fn race(
    teams: &[RaceTeam],
    remaining: &[(usize, usize)],
    spots: usize,
    draws: bool,
) -> Vec<Race> {
    // No bound: the count never passes u64::MAX, so there is always an answer.
    race_within(teams, remaining, spots, draws, u64::MAX).unwrap_or_default()
}

/// [`race`], or `None` when it would take more than `flows` max-flows: early in a long
/// season almost every set of teams can still reach almost anything, and proving which
/// cannot grows fast, so a public page asks with a bound and shows no race until it is
/// settled quickly.
pub fn race_within(
    teams: &[RaceTeam],
    remaining: &[(usize, usize)],
    spots: usize,
    draws: bool,
    flows: u64,
) -> Option<Vec<Race>> {
    let field = Field::new(teams, remaining, draws, flows);
    let races: Vec<Race> = (0..teams.len()).map(|i| field.race_of(i, spots)).collect();
    (field.flows.get() <= flows).then_some(races)
}

/// A win % as a fraction: half-points over twice the games (0 with no game).
#[derive(Debug, Clone, Copy)]
struct Pct {
    half_points: u64,
    games: u64,
}

impl Pct {
    /// `a/b ≥ c/d` and `a/b > c/d` by cross products (a team with no game is at 0).
    fn cmp(self, other: Pct) -> std::cmp::Ordering {
        let (a, b) = self.parts();
        let (c, d) = other.parts();
        (a * d).cmp(&(c * b))
    }

    fn parts(self) -> (u64, u64) {
        if self.games == 0 {
            (0, 1)
        } else {
            (self.half_points, 2 * self.games)
        }
    }
}

struct Field {
    teams: Vec<RaceTeam>,
    /// Each team's remaining matches, by opponent.
    left: Vec<u32>,
    games: Vec<(usize, usize)>,
    /// Points a match gives out, in the flow's unit: 2 half-points where draws split them,
    /// else 1 win.
    unit: i64,
    /// Half-points per unit.
    per_unit: u64,
    /// Max-flows run so far, and the most allowed: past it every answer is given up.
    flows: std::cell::Cell<u64>,
    limit: u64,
}

impl Field {
    fn new(teams: &[RaceTeam], remaining: &[(usize, usize)], draws: bool, limit: u64) -> Field {
        let mut left = vec![0; teams.len()];
        for &(a, b) in remaining {
            left[a] += 1;
            left[b] += 1;
        }
        Field {
            teams: teams.to_vec(),
            left,
            games: remaining.to_vec(),
            unit: if draws { 2 } else { 1 },
            per_unit: if draws { 1 } else { 2 },
            flows: std::cell::Cell::new(0),
            limit,
        }
    }

    /// Team `i`'s final win % with `extra` more half-points from its remaining matches.
    fn final_pct(&self, i: usize, extra: u64) -> Pct {
        let t = self.teams[i];
        Pct {
            half_points: u64::from(t.half_points) + extra,
            games: u64::from(t.played + self.left[i]),
        }
    }

    fn race_of(&self, i: usize, spots: usize) -> Race {
        let games_left = self.left[i];
        let wins_needed = (0..=games_left).find(|&w| self.sure_with(i, w, spots));
        let status = if wins_needed == Some(0) {
            RaceStatus::Clinched
        } else if self.out(i, spots) {
            RaceStatus::Eliminated
        } else {
            RaceStatus::Alive
        };
        Race {
            status,
            games_left,
            wins_needed,
        }
    }

    /// Whether team `i`, winning `w` of its remaining matches and losing the rest, is in the
    /// top `spots` whatever else happens (a tie counted against it).
    fn sure_with(&self, i: usize, w: u32, spots: usize) -> bool {
        let mine = self.final_pct(i, 2 * u64::from(w));
        // What each other team still needs, in units, to reach `mine` (None: it cannot).
        let mut forced = 0;
        let mut contested = Vec::new();
        let mut need = vec![0i64; self.teams.len()];
        for j in (0..self.teams.len()).filter(|&j| j != i) {
            match self.units_to_reach(j, mine) {
                Some(0) => forced += 1,
                Some(n) => {
                    need[j] = n;
                    contested.push(j);
                }
                None => {}
            }
        }
        if forced >= spots {
            return false;
        }
        let wanted = spots - forced;
        if contested.len() < wanted {
            return true;
        }
        contested.sort_by_key(|&j| (need[j], j));
        let losses = i64::from(self.left[i] - w);
        !self.some_set_reaches(i, losses, &contested, &need, wanted, &mut Vec::new(), 0)
    }

    /// The units team `j` must still gain to finish at or above `target` (0: it is there
    /// whatever happens; `None`: it cannot, even winning every match).
    fn units_to_reach(&self, j: usize, target: Pct) -> Option<i64> {
        let most = self.left[j] as i64 * self.unit;
        (0..=most).find(|&n| {
            self.final_pct(j, n as u64 * self.per_unit)
                .cmp(target)
                .is_ge()
        })
    }

    /// Depth first over the contested teams, in order: whether some `wanted` of them, with
    /// `chosen` so far, can all reach their need at once. A set that cannot is not grown.
    #[allow(clippy::too_many_arguments)]
    fn some_set_reaches(
        &self,
        i: usize,
        losses: i64,
        contested: &[usize],
        need: &[i64],
        wanted: usize,
        chosen: &mut Vec<usize>,
        from: usize,
    ) -> bool {
        if chosen.len() >= wanted {
            return true;
        }
        if chosen.len() + (contested.len() - from) < wanted {
            return false;
        }
        for k in from..contested.len() {
            if chosen.len() + (contested.len() - k) < wanted {
                return false;
            }
            chosen.push(contested[k]);
            if self.all_reach(i, losses, chosen, need)
                && self.some_set_reaches(i, losses, contested, need, wanted, chosen, k + 1)
            {
                return true;
            }
            chosen.pop();
        }
        false
    }

    /// Whether every team of `set` can reach its need at once: team `i` loses `losses` of
    /// its matches (each a whole win to its opponent: every way of spreading them over the
    /// set's teams is tried); a match against a team outside the set gives all of it to the
    /// set's team; the matches among the set share their points by a flow.
    fn all_reach(&self, i: usize, losses: i64, set: &[usize], need: &[i64]) -> bool {
        let index = |t: usize| set.iter().position(|&s| s == t);
        let mut still: Vec<i64> = set.iter().map(|&t| need[t]).collect();
        let mut inside = Vec::new();
        let mut versus_i = vec![0i64; set.len()];
        for &(a, b) in &self.games {
            match (index(a), index(b)) {
                (Some(x), Some(y)) => inside.push((x, y)),
                (Some(x), None) if b == i => versus_i[x] += 1,
                (None, Some(y)) if a == i => versus_i[y] += 1,
                (Some(x), None) => still[x] -= self.unit,
                (None, Some(y)) => still[y] -= self.unit,
                (None, None) => {}
            }
        }
        // Losing more of its matches to the set only helps the set: as many as it can.
        let spread = losses.min(versus_i.iter().sum());
        let mut lost = vec![0i64; set.len()];
        self.some_spread_reaches(&versus_i, spread, 0, &mut lost, &still, &inside)
    }

    /// Tries each way of giving `left` more of team i's losses to the set's teams from
    /// `from` on (at most `versus_i[t]` to team t), then the flow of the inside matches.
    fn some_spread_reaches(
        &self,
        versus_i: &[i64],
        left: i64,
        from: usize,
        lost: &mut Vec<i64>,
        still: &[i64],
        inside: &[(usize, usize)],
    ) -> bool {
        if left == 0 {
            let after: Vec<i64> = still
                .iter()
                .zip(lost.iter())
                .map(|(&n, &l)| (n - l * self.unit).max(0))
                .collect();
            return self.inside_reach(&after, inside);
        }
        if from == versus_i.len() {
            return false;
        }
        (0..=versus_i[from].min(left)).rev().any(|l| {
            lost[from] = l;
            let found = self.some_spread_reaches(versus_i, left - l, from + 1, lost, still, inside);
            lost[from] = 0;
            found
        })
    }

    /// Whether the `inside` matches can give each team its `still` needed units.
    fn inside_reach(&self, still: &[i64], inside: &[(usize, usize)]) -> bool {
        let total: i64 = still.iter().sum();
        if total == 0 {
            return true;
        }
        if self.spent() {
            return false;
        }
        let (mut flow, sink) = self.sharing(inside, still);
        flow.max(0, sink) == total
    }

    /// Counts one more max-flow; whether the bound is passed (the answers are then given up).
    fn spent(&self) -> bool {
        let n = self.flows.get().saturating_add(1);
        self.flows.set(n);
        n > self.limit
    }

    /// The flow of the `inside` matches' points (source 0, then a node per match, then a
    /// node per team from `1 + inside.len()`) into the teams, each taking at most its `cap`;
    /// and the sink.
    fn sharing(&self, inside: &[(usize, usize)], cap: &[i64]) -> (Flow, usize) {
        let first_team = 1 + inside.len();
        let sink = first_team + cap.len();
        let mut flow = Flow::new(sink + 1);
        for (m, &(x, y)) in inside.iter().enumerate() {
            flow.edge(0, 1 + m, self.unit);
            flow.edge(1 + m, first_team + x, self.unit);
            flow.edge(1 + m, first_team + y, self.unit);
        }
        for (t, &n) in cap.iter().enumerate() {
            flow.edge(first_team + t, sink, n);
        }
        (flow, sink)
    }

    /// Whether team `i` misses the top `spots` whatever happens: even winning every match,
    /// every outcome puts `spots` or more teams strictly above it.
    fn out(&self, i: usize, spots: usize) -> bool {
        let mine = self.final_pct(i, 2 * u64::from(self.left[i]));
        let mut above = 0;
        let mut room = vec![0i64; self.teams.len()];
        let mut contested = Vec::new();
        for j in (0..self.teams.len()).filter(|&j| j != i) {
            // Its matches against i are lost: what it may gain elsewhere.
            let elsewhere = self.left[j] - self.games_between(i, j);
            match self.units_to_stay(j, mine) {
                None => above += 1,
                Some(n) if n >= i64::from(elsewhere) * self.unit => {}
                Some(n) => {
                    room[j] = n;
                    contested.push(j);
                }
            }
        }
        if above >= spots {
            return true;
        }
        !self.kept_below(i, &contested, &room, spots - 1 - above)
    }

    fn games_between(&self, i: usize, j: usize) -> u32 {
        let n = self
            .games
            .iter()
            .filter(|&&(a, b)| (a, b) == (i, j) || (a, b) == (j, i))
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// The most units team `j` may still gain and stay at or below `target` (`None`: it is
    /// above already).
    fn units_to_stay(&self, j: usize, target: Pct) -> Option<i64> {
        let most = self.left[j] as i64 * self.unit;
        (0..=most)
            .take_while(|&n| {
                self.final_pct(j, n as u64 * self.per_unit)
                    .cmp(target)
                    .is_le()
            })
            .last()
    }

    /// Whether the `contested` teams can all be kept at or below team `i` (who wins every
    /// match) but for at most `budget` of them let go above: the matches among the teams
    /// kept share their points within each one's `room`; a failed flow names a set of teams
    /// one of which must go, and each is tried.
    fn kept_below(&self, i: usize, contested: &[usize], room: &[i64], budget: usize) -> bool {
        let index = |t: usize| contested.iter().position(|&s| s == t);
        let inside: Vec<(usize, usize)> = self
            .games
            .iter()
            .filter(|&&(a, b)| a != i && b != i)
            .filter_map(|&(a, b)| Some((index(a)?, index(b)?)))
            .collect();
        if self.spent() {
            return true;
        }
        let caps: Vec<i64> = contested.iter().map(|&j| room[j]).collect();
        let (mut flow, sink) = self.sharing(&inside, &caps);
        let first_team = 1 + inside.len();
        if flow.max(0, sink) == inside.len() as i64 * self.unit {
            return true;
        }
        if budget == 0 {
            return false;
        }
        let crowded: Vec<usize> = (0..contested.len())
            .filter(|&t| flow.reachable[first_team + t])
            .map(|t| contested[t])
            .collect();
        crowded.iter().any(|&goes| {
            let rest: Vec<usize> = contested.iter().copied().filter(|&t| t != goes).collect();
            self.kept_below(i, &rest, room, budget - 1)
        })
    }
}

/// A small max-flow (Edmonds–Karp): the graphs here have a few dozen nodes.
struct Flow {
    capacity: Vec<Vec<i64>>,
    /// After `max`: the nodes the source still reaches (the crowded side of the cut).
    reachable: Vec<bool>,
}

impl Flow {
    fn new(nodes: usize) -> Flow {
        Flow {
            capacity: vec![vec![0; nodes]; nodes],
            reachable: vec![false; nodes],
        }
    }

    fn edge(&mut self, from: usize, to: usize, capacity: i64) {
        self.capacity[from][to] += capacity;
    }

    fn max(&mut self, source: usize, sink: usize) -> i64 {
        let n = self.capacity.len();
        let mut total = 0;
        loop {
            let mut before = vec![usize::MAX; n];
            before[source] = source;
            let mut queue = std::collections::VecDeque::from([source]);
            while let Some(u) = queue.pop_front() {
                for (v, came) in before.iter_mut().enumerate() {
                    if *came == usize::MAX && self.capacity[u][v] > 0 {
                        *came = u;
                        queue.push_back(v);
                    }
                }
            }
            if before[sink] == usize::MAX {
                self.reachable = before.iter().map(|&b| b != usize::MAX).collect();
                return total;
            }
            let mut push = i64::MAX;
            let mut v = sink;
            while v != source {
                push = push.min(self.capacity[before[v]][v]);
                v = before[v];
            }
            let mut v = sink;
            while v != source {
                self.capacity[before[v]][v] -= push;
                self.capacity[v][before[v]] += push;
                v = before[v];
            }
            total += push;
        }
    }
}

/// The race when each division's winner takes a place before the rest
/// (`settings.playoffs.division_winners_first`): the places are the winner of each division
/// (its best team) and then the best of the others. `divisions` gives each team's division
/// (`None`: none; such a team is never a winner). Exact by trying every result of the
/// remaining matches, so only while they have at most `most_outcomes` results together;
/// `None` past that, or when there are as many divisions as places or more.
pub fn race_by_division(
    teams: &[RaceTeam],
    divisions: &[Option<usize>],
    remaining: &[(usize, usize)],
    spots: usize,
    draws: bool,
    most_outcomes: u64,
) -> Option<Vec<Race>> {
    let kinds: u64 = if draws { 3 } else { 2 };
    let outcomes = u32::try_from(remaining.len())
        .ok()
        .and_then(|n| kinds.checked_pow(n))
        .filter(|&o| o <= most_outcomes)?;
    let mut named: Vec<usize> = divisions.iter().flatten().copied().collect();
    named.sort_unstable();
    named.dedup();
    let pool = spots.checked_sub(named.len()).filter(|&p| p > 0)?;
    let field = Field::new(teams, remaining, draws, u64::MAX);
    let n = teams.len();
    // For each team and number of its own wins: in (ties against it) in every outcome
    // with at least those wins; and out (ties for it) in every outcome where it wins all.
    let mut sure = vec![vec![true; field.left.iter().max().map_or(1, |&m| m as usize + 1)]; n];
    let mut out = vec![true; n];
    for code in 0..outcomes {
        let (extra, wins) = outcome(remaining, n, code, kinds);
        let pct: Vec<Pct> = (0..n).map(|i| field.final_pct(i, extra[i])).collect();
        for i in 0..n {
            if !in_places(i, &pct, divisions, pool, true) {
                sure[i][..=wins[i] as usize].fill(false);
            }
            if wins[i] == field.left[i] && in_places(i, &pct, divisions, pool, false) {
                out[i] = false;
            }
        }
    }
    Some(
        (0..n)
            .map(|i| {
                let wins_needed = (0..=field.left[i]).find(|&w| sure[i][w as usize]);
                let status = match (wins_needed, out[i]) {
                    (Some(0), _) => RaceStatus::Clinched,
                    (_, true) => RaceStatus::Eliminated,
                    _ => RaceStatus::Alive,
                };
                Race {
                    status,
                    games_left: field.left[i],
                    wins_needed,
                }
            })
            .collect(),
    )
}

/// Outcome number `code` of the `remaining` matches (`kinds` results each: a win for the
/// first team, for the second, a draw): each team's extra half-points and wins.
fn outcome(remaining: &[(usize, usize)], n: usize, code: u64, kinds: u64) -> (Vec<u64>, Vec<u32>) {
    let (mut extra, mut wins) = (vec![0u64; n], vec![0u32; n]);
    let mut c = code;
    for &(a, b) in remaining {
        match c % kinds {
            0 => {
                extra[a] += 2;
                wins[a] += 1;
            }
            1 => {
                extra[b] += 2;
                wins[b] += 1;
            }
            _ => {
                extra[a] += 1;
                extra[b] += 1;
            }
        }
        c /= kinds;
    }
    (extra, wins)
}

/// Whether team `i` takes a place with these final win percentages: its division's winner
/// (no rival above it), or among the best `pool` of the teams that are no division's winner.
/// `ties_against`: a level team counts as above it (for "clinched"), else as below.
fn in_places(
    i: usize,
    pct: &[Pct],
    divisions: &[Option<usize>],
    pool: usize,
    ties_against: bool,
) -> bool {
    let above = |j: usize| {
        j != i
            && match ties_against {
                true => pct[j].cmp(pct[i]).is_ge(),
                false => pct[j].cmp(pct[i]).is_gt(),
            }
    };
    let own = divisions[i];
    if own.is_some() && !(0..pct.len()).any(|j| divisions[j] == own && above(j)) {
        return true;
    }
    // Every team above it, less each division's winner, who is above it whenever any team
    // of that division is (a team without a division is no winner).
    let mut ahead = (0..pct.len())
        .filter(|&j| above(j) && divisions[j].is_none())
        .count();
    let mut seen: Vec<usize> = Vec::new();
    for j in (0..pct.len()).filter(|&j| above(j)) {
        if let Some(d) = divisions[j] {
            if seen.contains(&d) {
                ahead += 1;
            } else {
                seen.push(d);
            }
        }
    }
    ahead < pool
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The race by its definition: every outcome of the remaining matches tried.
    fn brute(
        teams: &[RaceTeam],
        remaining: &[(usize, usize)],
        spots: usize,
        draws: bool,
    ) -> Vec<Race> {
        let field = Field::new(teams, remaining, draws, u64::MAX);
        let kinds: u32 = if draws { 3 } else { 2 };
        let outcomes = kinds.pow(remaining.len() as u32);
        // For each team and each number of its own wins: is it in (ties against) in every
        // outcome, and is it out (ties for) in every outcome where it wins all.
        let n = teams.len();
        let mut sure = vec![vec![true; 64]; n];
        let mut out = vec![true; n];
        for code in 0..outcomes {
            let (extra, wins) = outcome(remaining, n, u64::from(code), u64::from(kinds));
            let pct: Vec<Pct> = (0..n).map(|i| field.final_pct(i, extra[i])).collect();
            for i in 0..n {
                let level_or_above = (0..n)
                    .filter(|&j| j != i && pct[j].cmp(pct[i]).is_ge())
                    .count();
                let above = (0..n)
                    .filter(|&j| j != i && pct[j].cmp(pct[i]).is_gt())
                    .count();
                // Not in with these wins: not sure with any number of wins up to them.
                if level_or_above >= spots {
                    sure[i][..=wins[i] as usize].fill(false);
                }
                if wins[i] == field.left[i] && above < spots {
                    out[i] = false;
                }
            }
        }
        (0..n)
            .map(|i| {
                let wins_needed = (0..=field.left[i]).find(|&w| sure[i][w as usize]);
                let status = if wins_needed == Some(0) {
                    RaceStatus::Clinched
                } else if out[i] {
                    RaceStatus::Eliminated
                } else {
                    RaceStatus::Alive
                };
                Race {
                    status,
                    games_left: field.left[i],
                    wins_needed,
                }
            })
            .collect()
    }

    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// A random small league part played: records, the matches left, the places.
    fn league(rng: &mut Rng) -> (Vec<RaceTeam>, Vec<(usize, usize)>, usize, bool) {
        let n = 2 + rng.below(5) as usize;
        let draws = rng.below(3) == 0;
        let teams: Vec<RaceTeam> = (0..n)
            .map(|_| {
                let played = rng.below(6) as u32;
                let half_points = if draws {
                    rng.below(u64::from(2 * played) + 1) as u32
                } else {
                    2 * rng.below(u64::from(played) + 1) as u32
                };
                RaceTeam {
                    half_points,
                    played,
                }
            })
            .collect();
        let most = if draws { 7 } else { 10 };
        let games = rng.below(most + 1) as usize;
        let remaining = (0..games)
            .filter_map(|_| {
                let a = rng.below(n as u64) as usize;
                let b = rng.below(n as u64) as usize;
                (a != b).then_some((a, b))
            })
            .collect();
        let spots = 1 + rng.below(n as u64 - 1) as usize;
        (teams, remaining, spots, draws)
    }

    #[test]
    fn the_race_is_what_every_outcome_says() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut statuses = [0; 3];
        for case in 0..4000 {
            let (teams, remaining, spots, draws) = league(&mut rng);
            let fast = race(&teams, &remaining, spots, draws);
            let slow = brute(&teams, &remaining, spots, draws);
            assert_eq!(
                fast, slow,
                "case {case}: {teams:?}, left {remaining:?}, {spots} places, draws {draws}"
            );
            for r in fast {
                statuses[r.status as usize] += 1;
            }
        }
        // Every answer was met many times.
        assert!(statuses.iter().all(|&n| n > 300), "{statuses:?}");
    }

    /// A bound too small gives nothing; a large one gives the race itself.
    #[test]
    fn a_bounded_race_is_the_race_or_nothing() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut given_up = 0;
        for _ in 0..300 {
            let (teams, remaining, spots, draws) = league(&mut rng);
            let full = race(&teams, &remaining, spots, draws);
            assert_eq!(
                race_within(&teams, &remaining, spots, draws, 1_000_000),
                Some(full.clone())
            );
            match race_within(&teams, &remaining, spots, draws, 2) {
                Some(r) => assert_eq!(r, full),
                None => given_up += 1,
            }
        }
        assert!(given_up > 0, "some race needs more than two flows");
    }

    #[test]
    fn a_team_that_lost_once_in_four_is_still_in_the_race() {
        // Four teams, one place each for the top two, three nights left of a double round.
        let teams = [
            RaceTeam {
                half_points: 6,
                played: 3,
            },
            RaceTeam {
                half_points: 4,
                played: 3,
            },
            RaceTeam {
                half_points: 2,
                played: 3,
            },
            RaceTeam {
                half_points: 0,
                played: 3,
            },
        ];
        let left = [(0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2)];
        let r = race(&teams, &left, 2, false);
        assert_eq!(r[0].status, RaceStatus::Alive);
        assert_eq!(r[0].wins_needed, Some(2), "{r:?}");
        assert_eq!(r[3].status, RaceStatus::Alive, "3 wins would tie at 3–3");
    }

    /// Without divisions the division race is the race: every place is an overall one (the
    /// max-flow answer checked against the division race's every outcome).
    #[test]
    fn without_divisions_the_division_race_is_the_race() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for case in 0..1500 {
            let (teams, remaining, spots, draws) = league(&mut rng);
            let none = vec![None; teams.len()];
            let by_division = race_by_division(&teams, &none, &remaining, spots, draws, u64::MAX);
            assert_eq!(
                by_division,
                Some(race(&teams, &remaining, spots, draws)),
                "case {case}: {teams:?}, left {remaining:?}, {spots} places"
            );
        }
    }

    fn team(half_points: u32, played: u32) -> RaceTeam {
        RaceTeam {
            half_points,
            played,
        }
    }

    /// A division title is a place: the leader of a weak division is in though four teams
    /// are above it overall.
    #[test]
    fn a_division_title_is_a_place() {
        // Division 0: 3–0, 2–1, 2–1; division 1: 1–2, 0–3, 0–3. Three places: the two
        // winners and one more.
        let teams = [
            team(6, 3),
            team(4, 3),
            team(4, 3),
            team(2, 3),
            team(0, 3),
            team(0, 3),
        ];
        let divisions = [Some(0), Some(0), Some(0), Some(1), Some(1), Some(1)];
        let r = race_by_division(&teams, &divisions, &[], 3, false, 1).unwrap();
        let statuses: Vec<&str> = r.iter().map(|r| r.status.as_str()).collect();
        assert_eq!(
            statuses,
            [
                "clinched",
                "alive",
                "alive",
                "clinched",
                "eliminated",
                "eliminated"
            ]
        );
        assert_eq!(
            race(&teams, &[], 3, false)[3].status,
            RaceStatus::Eliminated
        );
        // One match left in division 1: its leader must win it to be sure.
        let r = race_by_division(&teams, &divisions, &[(3, 4)], 3, false, 2).unwrap();
        assert_eq!(
            (r[3].status, r[3].wins_needed),
            (RaceStatus::Alive, Some(1))
        );
        // More results than allowed, or no place beyond the titles: no answer.
        assert_eq!(
            race_by_division(&teams, &divisions, &[(3, 4)], 3, false, 1),
            None
        );
        assert_eq!(race_by_division(&teams, &divisions, &[], 2, false, 1), None);
    }

    /// With every match played and no two teams level, "clinched" is exactly the playoff
    /// seeding's own choice (`divisions::division_winners_first`).
    #[test]
    fn a_finished_season_is_clinched_as_the_seeding_takes_it() {
        use crate::domain::{DivisionId, TeamId};
        let mut rng = Rng(0x1234_5678_9abc_def1);
        for case in 0..500 {
            let n = 3 + rng.below(8) as usize;
            let mut points: Vec<u32> = (0..n as u32).map(|i| 2 * i).collect();
            for i in (1..n).rev() {
                points.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let teams: Vec<RaceTeam> = points.iter().map(|&p| team(p, 2 * n as u32)).collect();
            let divisions: Vec<Option<usize>> = (0..n)
                .map(|_| match rng.below(4) {
                    0 => None,
                    d => Some(d as usize),
                })
                .collect();
            let named = {
                let mut d: Vec<usize> = divisions.iter().flatten().copied().collect();
                d.sort_unstable();
                d.dedup();
                d.len()
            };
            if named >= n {
                continue;
            }
            let spots = named + 1 + rng.below((n - named) as u64) as usize;
            let Some(r) = race_by_division(&teams, &divisions, &[], spots, false, 1) else {
                continue;
            };
            let mut overall: Vec<usize> = (0..n).collect();
            overall.sort_by_key(|&i| std::cmp::Reverse(points[i]));
            let ordered: Vec<(TeamId, Option<DivisionId>)> = overall
                .iter()
                .map(|&i| (TeamId(i as i64), divisions[i].map(|d| DivisionId(d as i64))))
                .collect();
            let seeds = crate::league::divisions::division_winners_first(&ordered, spots).seeds;
            for (i, race) in r.iter().enumerate() {
                assert_eq!(
                    race.status == RaceStatus::Clinched,
                    seeds.contains(&TeamId(i as i64)),
                    "case {case}: team {i} of {teams:?} {divisions:?}, {spots} places"
                );
            }
        }
    }
}
