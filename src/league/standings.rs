//! Regular-season standings (docs/scoring.md §7): played, won, lost, tied, forfeits, win %, points
//! for/against, differential; ties between teams broken by the league's order, then by name
//! and id so the order is always the same.

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::domain::TeamId;

/// A criterion of the league's tiebreak order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tiebreak {
    /// Record in the games between the tied teams.
    HeadToHead,
    /// Points for minus points against.
    Differential,
    PointsFor,
}

impl Tiebreak {
    pub fn parse(name: &str) -> Option<Tiebreak> {
        match name.trim() {
            "head_to_head" => Some(Tiebreak::HeadToHead),
            "differential" => Some(Tiebreak::Differential),
            "points_for" => Some(Tiebreak::PointsFor),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Tiebreak::HeadToHead => "head_to_head",
            Tiebreak::Differential => "differential",
            Tiebreak::PointsFor => "points_for",
        }
    }

    pub fn words(self) -> &'static str {
        match self {
            Tiebreak::HeadToHead => "record in the games between the tied teams",
            Tiebreak::Differential => "point differential",
            Tiebreak::PointsFor => "points scored",
        }
    }

    pub const DEFAULT_ORDER: [Tiebreak; 3] = [
        Tiebreak::HeadToHead,
        Tiebreak::Differential,
        Tiebreak::PointsFor,
    ];
}

#[derive(Debug, Clone)]
pub struct TeamEntry {
    pub id: TeamId,
    pub name: String,
}

/// How a finished match ended, for the standings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Played out: scores, and the winner (`None` for a draw).
    Played { winner: Option<Side> },
    /// One team forfeited (this side); the other wins.
    Forfeit(Side),
    /// Both forfeited: both lose.
    DoubleForfeit,
    /// This side defaulted (told the office in time it could not play): a loss, the other
    /// side wins, and no forfeit counted (docs/api.md §20).
    Default(Side),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    A,
    B,
}

#[derive(Debug, Clone)]
pub struct Result {
    pub team_a: TeamId,
    pub team_b: TeamId,
    pub score_a: i64,
    pub score_b: i64,
    pub outcome: Outcome,
    /// The sportsmanship rating each team got (`[a, b]`), if rated.
    pub ratings: [Option<u32>; 2],
}

#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    pub rank: usize,
    pub team_id: TeamId,
    pub team: String,
    pub played: u32,
    pub won: u32,
    pub lost: u32,
    pub tied: u32,
    pub forfeits: u32,
    pub win_pct: f64,
    pub points_for: i64,
    pub points_against: i64,
    pub differential: i64,
    /// Its sportsmanship ratings.
    pub ratings: Ratings,
    /// In a league of Swiss rounds: the sum of its opponents' wins, the first tiebreak
    /// (docs/scoring.md §7.4). `None` in any other league.
    pub buchholz: Option<u32>,
}

impl Standing {
    /// A team with nothing finished yet.
    pub fn new(team_id: TeamId, team: String) -> Standing {
        Standing {
            rank: 0,
            team_id,
            team,
            played: 0,
            won: 0,
            lost: 0,
            tied: 0,
            forfeits: 0,
            win_pct: 0.0,
            points_for: 0,
            points_against: 0,
            differential: 0,
            ratings: Ratings::default(),
            buchholz: None,
        }
    }

    /// The sportsmanship average, `None` before the first rating.
    pub fn sportsmanship(&self) -> Option<f64> {
        self.ratings.average()
    }

    /// Sets what follows from the counts: the win % and the differential.
    fn derive(&mut self) {
        self.win_pct = win_pct(self.won, self.tied, self.played);
        self.differential = self.points_for - self.points_against;
    }
}

/// A team's sportsmanship ratings: all that any rule reads of them is their sum and number.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ratings {
    pub sum: u32,
    pub count: u32,
}

impl Ratings {
    /// The sum and number of `ratings`.
    pub fn of(ratings: &[u32]) -> Ratings {
        let mut all = Ratings::default();
        for r in ratings {
            all.add(*r);
        }
        all
    }

    pub fn add(&mut self, rating: u32) {
        self.sum += rating;
        self.count += 1;
    }

    /// The average, `None` before the first rating.
    pub fn average(&self) -> Option<f64> {
        (self.count > 0).then(|| f64::from(self.sum) / f64::from(self.count))
    }

    /// The average if one more `rating` came.
    pub fn average_with(&self, rating: u32) -> f64 {
        f64::from(self.sum + rating) / f64::from(self.count + 1)
    }
}

/// A team's record against one opponent, for the head-to-head tiebreak.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Versus {
    pub played: u32,
    pub won: u32,
    pub tied: u32,
}

/// The head-to-head records of the teams, keyed `(team, opponent)`; a pair that never met
/// has no entry.
pub type HeadToHead = HashMap<(TeamId, TeamId), Versus>;

/// Each team's record against the other teams level with it on win %: what the head-to-head
/// tiebreak reads (no entry: no such game).
pub type LevelRecords = HashMap<TeamId, Versus>;

/// (won + ½ × tied) / played, or 0 with nothing played (docs/scoring.md §7.2).
pub fn win_pct(won: u32, tied: u32, played: u32) -> f64 {
    if played == 0 {
        0.0
    } else {
        (f64::from(won) + 0.5 * f64::from(tied)) / f64::from(played)
    }
}

/// The standings of `teams` from the finished `results`, ranked: the whole computation.
pub fn standings(teams: &[TeamEntry], results: &[Result], order: &[Tiebreak]) -> Vec<Standing> {
    let (rows, versus) = tally(teams, results);
    let level = level_records(&rows, &versus);
    ranked(rows, &level, order)
}

/// Each team's record against the teams level with it on win %, summed from `versus` in
/// one pass.
pub fn level_records(rows: &[Standing], versus: &HeadToHead) -> LevelRecords {
    let group_of: HashMap<TeamId, usize> = level_groups(rows)
        .iter()
        .enumerate()
        .flat_map(|(k, group)| group.iter().map(move |s| (s.team_id, k)))
        .collect();
    let mut out = LevelRecords::new();
    for ((team, opponent), v) in versus {
        if let (Some(a), Some(b)) = (group_of.get(team), group_of.get(opponent))
            && a == b
        {
            let total = out.entry(*team).or_default();
            total.played += v.played;
            total.won += v.won;
            total.tied += v.tied;
        }
    }
    out
}

/// Each team's counts (not ranked) and the head-to-head records from the finished
/// `results`: what the records kept in the database must always equal (`check`).
pub fn tally(teams: &[TeamEntry], results: &[Result]) -> (Vec<Standing>, HeadToHead) {
    let mut rows: Vec<Standing> = teams
        .iter()
        .map(|t| Standing::new(t.id, t.name.clone()))
        .collect();
    let index: HashMap<TeamId, usize> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (r.team_id, i))
        .collect();
    let mut versus = HeadToHead::new();
    for r in results {
        let (Some(&ia), Some(&ib)) = (index.get(&r.team_a), index.get(&r.team_b)) else {
            continue;
        };
        for (i, own, other, rating) in [
            (ia, r.score_a, r.score_b, r.ratings[0]),
            (ib, r.score_b, r.score_a, r.ratings[1]),
        ] {
            rows[i].played += 1;
            if let Some(rating) = rating {
                rows[i].ratings.add(rating);
            }
            if matches!(r.outcome, Outcome::Played { .. }) {
                rows[i].points_for += own;
                rows[i].points_against += other;
            }
        }
        // Each side's (won, lost, tied, forfeited), A's then B's.
        let sides = match r.outcome {
            Outcome::Played {
                winner: Some(Side::A),
            }
            | Outcome::Forfeit(Side::B)
            | Outcome::Default(Side::B) => [(1, 0, 0), (0, 1, 0)],
            Outcome::Played {
                winner: Some(Side::B),
            }
            | Outcome::Forfeit(Side::A)
            | Outcome::Default(Side::A) => [(0, 1, 0), (1, 0, 0)],
            Outcome::Played { winner: None } => [(0, 0, 1), (0, 0, 1)],
            Outcome::DoubleForfeit => [(0, 1, 0), (0, 1, 0)],
        };
        let forfeited = match r.outcome {
            Outcome::Forfeit(Side::A) => [1, 0],
            Outcome::Forfeit(Side::B) => [0, 1],
            Outcome::DoubleForfeit => [1, 1],
            Outcome::Played { .. } | Outcome::Default(_) => [0, 0],
        };
        for (k, (i, team, opponent)) in [(ia, r.team_a, r.team_b), (ib, r.team_b, r.team_a)]
            .into_iter()
            .enumerate()
        {
            let (won, lost, tied) = sides[k];
            rows[i].won += won;
            rows[i].lost += lost;
            rows[i].tied += tied;
            rows[i].forfeits += forfeited[k];
            let v = versus.entry((team, opponent)).or_default();
            v.played += 1;
            v.won += won;
            v.tied += tied;
        }
    }
    (rows, versus)
}

/// Makes `rows` those of a league of Swiss rounds: each of the `byes` (a team, once for
/// each bye it had) a win without an opponent or points, then each team's Buchholz from
/// the head-to-head records `versus`: the wins (byes included) of every opponent, once for
/// each match against it.
pub fn add_swiss(rows: &mut [Standing], byes: &[TeamId], versus: &HeadToHead) {
    for bye in byes {
        if let Some(row) = rows.iter_mut().find(|r| r.team_id == *bye) {
            row.played += 1;
            row.won += 1;
        }
    }
    let wins: HashMap<TeamId, u32> = rows.iter().map(|r| (r.team_id, r.won)).collect();
    for row in rows.iter_mut() {
        let buchholz = versus
            .iter()
            .filter(|((team, _), _)| *team == row.team_id)
            .map(|((_, opponent), v)| v.played * wins.get(opponent).copied().unwrap_or(0))
            .sum();
        row.buchholz = Some(buchholz);
    }
}

/// `rows` (each team's counts) ranked: by win % then the tiebreak `order`, the head-to-head
/// tiebreak reading each team's record against the teams level with it from `level`.
pub fn ranked(mut rows: Vec<Standing>, level: &LevelRecords, order: &[Tiebreak]) -> Vec<Standing> {
    for row in &mut rows {
        row.derive();
    }
    rank(&mut rows, level, order);
    rows
}

/// The groups of teams of `rows` that share a win %: the only records against each other
/// the ranking reads are those within a group.
pub fn level_groups(rows: &[Standing]) -> Vec<Vec<&Standing>> {
    let mut by_pct: HashMap<u64, Vec<&Standing>> = HashMap::new();
    for r in rows {
        by_pct
            .entry(win_pct(r.won, r.tied, r.played).to_bits())
            .or_default()
            .push(r);
    }
    by_pct.into_values().filter(|g| g.len() > 1).collect()
}

/// Sorts by win % then the tiebreak order; teams still level share nothing: the last resort
/// is the name, then the id, so the order never depends on input order.
fn rank(rows: &mut [Standing], level: &LevelRecords, order: &[Tiebreak]) {
    rows.sort_by(|x, y| y.win_pct.total_cmp(&x.win_pct));
    let h2h = |team: TeamId| {
        let v = level.get(&team).copied().unwrap_or_default();
        win_pct(v.won, v.tied, v.played)
    };
    let mut start = 0;
    while start < rows.len() {
        let mut end = start + 1;
        while end < rows.len() && rows[end].win_pct == rows[start].win_pct {
            end += 1;
        }
        if end - start > 1 {
            let group = &mut rows[start..end];
            group.sort_by(|x, y| {
                // Only a league of Swiss rounds has a Buchholz: there it breaks ties first.
                let buchholz = y.buchholz.cmp(&x.buchholz);
                if buchholz != Ordering::Equal {
                    return buchholz;
                }
                for criterion in order {
                    let c = match criterion {
                        Tiebreak::HeadToHead => h2h(y.team_id).total_cmp(&h2h(x.team_id)),
                        Tiebreak::Differential => y.differential.cmp(&x.differential),
                        Tiebreak::PointsFor => y.points_for.cmp(&x.points_for),
                    };
                    if c != Ordering::Equal {
                        return c;
                    }
                }
                x.team.cmp(&y.team).then(x.team_id.cmp(&y.team_id))
            });
        }
        start = end;
    }
    for (i, row) in rows.iter_mut().enumerate() {
        row.rank = i + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn teams(names: &[&str]) -> Vec<TeamEntry> {
        names
            .iter()
            .enumerate()
            .map(|(i, n)| TeamEntry {
                id: TeamId(i as i64 + 1),
                name: n.to_string(),
            })
            .collect()
    }

    fn played(a: i64, b: i64, sa: i64, sb: i64) -> Result {
        let winner = match sa.cmp(&sb) {
            Ordering::Greater => Some(Side::A),
            Ordering::Less => Some(Side::B),
            Ordering::Equal => None,
        };
        Result {
            team_a: TeamId(a),
            team_b: TeamId(b),
            score_a: sa,
            score_b: sb,
            outcome: Outcome::Played { winner },
            ratings: [None, None],
        }
    }

    #[test]
    fn counts_wins_losses_ties_forfeits_and_points() {
        let t = teams(&["Aces", "Kings", "Queens"]);
        let results = vec![
            played(1, 2, 510, 300),
            played(2, 3, 500, 500),
            Result {
                team_a: TeamId(3),
                team_b: TeamId(1),
                score_a: 0,
                score_b: 0,
                outcome: Outcome::Forfeit(Side::A),
                ratings: [Some(1), None],
            },
        ];
        let rows = standings(&t, &results, &Tiebreak::DEFAULT_ORDER);
        let aces = rows.iter().find(|r| r.team == "Aces").unwrap();
        assert_eq!((aces.played, aces.won, aces.lost, aces.tied), (2, 2, 0, 0));
        assert_eq!(
            (aces.points_for, aces.points_against, aces.differential),
            (510, 300, 210)
        );
        let queens = rows.iter().find(|r| r.team == "Queens").unwrap();
        assert_eq!(
            (queens.won, queens.lost, queens.tied, queens.forfeits),
            (0, 1, 1, 1)
        );
        assert!((queens.win_pct - 0.25).abs() < 1e-9);
        assert_eq!(rows[0].team, "Aces");
        assert_eq!(rows[0].rank, 1);
    }

    #[test]
    fn double_forfeit_is_a_loss_for_both() {
        let t = teams(&["A", "B"]);
        let results = vec![Result {
            team_a: TeamId(1),
            team_b: TeamId(2),
            score_a: 0,
            score_b: 0,
            outcome: Outcome::DoubleForfeit,
            ratings: [None, None],
        }];
        let rows = standings(&t, &results, &Tiebreak::DEFAULT_ORDER);
        assert!(
            rows.iter()
                .all(|r| r.lost == 1 && r.forfeits == 1 && r.won == 0)
        );
    }

    #[test]
    fn head_to_head_breaks_a_tie_before_differential() {
        // A and B both 1–1; A beat B narrowly but B has the better differential.
        let t = teams(&["A", "B", "C"]);
        let results = vec![
            played(1, 2, 310, 300),
            played(2, 3, 500, 100),
            played(3, 1, 400, 100),
        ];
        let rows = standings(&t, &results, &Tiebreak::DEFAULT_ORDER);
        // All three are 1–1; head-to-head within the group is 1–1 for everyone, so the
        // differential decides: B +390, A −290, C −100.
        let names: Vec<&str> = rows.iter().map(|r| r.team.as_str()).collect();
        assert_eq!(names, ["B", "C", "A"]);
        // Two-way tie: A and B both 1–1 (C is 2–1 after beating D); A beat B, B has the
        // better differential, so head-to-head puts A first and differential alone B.
        let t2 = teams(&["A", "B", "C", "D"]);
        let results2 = vec![
            played(1, 2, 310, 300),
            played(2, 3, 500, 100),
            played(3, 1, 400, 100),
            played(3, 4, 400, 100),
        ];
        let rows2 = standings(&t2, &results2, &Tiebreak::DEFAULT_ORDER);
        assert_eq!(rows2[0].team, "C");
        let a = rows2.iter().position(|r| r.team == "A").unwrap();
        let b = rows2.iter().position(|r| r.team == "B").unwrap();
        assert!(a < b, "A beat B head to head");
        let by_diff = standings(&t2, &results2, &[Tiebreak::Differential]);
        let a = by_diff.iter().position(|r| r.team == "A").unwrap();
        let b = by_diff.iter().position(|r| r.team == "B").unwrap();
        assert!(b < a, "B has the better differential");
    }

    #[test]
    fn swiss_byes_are_wins_and_buchholz_breaks_ties_first() {
        let t = teams(&["A", "B", "C", "D", "E"]);
        let results = vec![
            played(1, 2, 310, 300),
            played(3, 4, 500, 100),
            played(1, 3, 310, 300),
            played(4, 2, 500, 100),
            played(5, 2, 500, 100),
        ];
        let (mut rows, versus) = tally(&t, &results);
        add_swiss(&mut rows, &[TeamId(4)], &versus);
        let level = level_records(&rows, &versus);
        let ranked = ranked(rows, &level, &[Tiebreak::Differential]);
        let row = |name: &str| ranked.iter().find(|r| r.team == name).unwrap().clone();
        let d = row("D");
        assert_eq!(
            (d.played, d.won, d.points_for),
            (3, 2, 600),
            "the bye: a win, no points"
        );
        // Wins: A 2, B 0, C 1, D 2 (one a bye), E 1; each Buchholz sums its opponents'.
        let buchholz: Vec<Option<u32>> = ["A", "B", "C", "D", "E"]
            .iter()
            .map(|n| row(n).buchholz)
            .collect();
        assert_eq!(buchholz, [Some(1), Some(5), Some(4), Some(1), Some(0)]);
        // A and E are both unbeaten; E has the far better differential (+400 to +20), but
        // A's opponents won more: Buchholz comes first.
        let names: Vec<String> = ranked.iter().map(|r| r.team.clone()).collect();
        assert_eq!(names, ["A", "E", "D", "C", "B"]);
    }

    #[test]
    fn the_last_resort_is_the_name() {
        let t = teams(&["Zed", "Amy"]);
        let rows = standings(&t, &[], &Tiebreak::DEFAULT_ORDER);
        assert_eq!(rows[0].team, "Amy");
        assert_eq!(rows[1].rank, 2);
    }
}
