//! Regular-season standings (docs/scoring.md §7): played, won, lost, tied, forfeits, win %, points
//! for/against, differential; ties between teams broken by the league's order, then by name
//! and id so the order is always the same.

use std::cmp::Ordering;
use std::collections::HashMap;

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
    pub id: i64,
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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    A,
    B,
}

#[derive(Debug, Clone)]
pub struct Result {
    pub team_a: i64,
    pub team_b: i64,
    pub score_a: i64,
    pub score_b: i64,
    pub outcome: Outcome,
    /// The sportsmanship rating each team got (`[a, b]`), if rated.
    pub ratings: [Option<u32>; 2],
}

#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    pub rank: usize,
    pub team_id: i64,
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
    /// Its sportsmanship ratings, in match order.
    pub ratings: Vec<u32>,
}

impl Standing {
    /// The sportsmanship average, `None` before the first rating.
    pub fn sportsmanship(&self) -> Option<f64> {
        average(&self.ratings)
    }
}

/// The average of `ratings`, `None` for none.
pub fn average(ratings: &[u32]) -> Option<f64> {
    if ratings.is_empty() {
        return None;
    }
    let sum: u32 = ratings.iter().sum();
    Some(f64::from(sum) / ratings.len() as f64)
}

/// (won + ½ × tied) / played, or 0 with nothing played (docs/scoring.md §7.2).
pub fn win_pct(won: u32, tied: u32, played: u32) -> f64 {
    if played == 0 {
        0.0
    } else {
        (f64::from(won) + 0.5 * f64::from(tied)) / f64::from(played)
    }
}

/// The standings of `teams` from the finished `results`, ranked.
pub fn standings(teams: &[TeamEntry], results: &[Result], order: &[Tiebreak]) -> Vec<Standing> {
    let mut rows: Vec<Standing> = teams
        .iter()
        .map(|t| Standing {
            rank: 0,
            team_id: t.id,
            team: t.name.clone(),
            played: 0,
            won: 0,
            lost: 0,
            tied: 0,
            forfeits: 0,
            win_pct: 0.0,
            points_for: 0,
            points_against: 0,
            differential: 0,
            ratings: Vec::new(),
        })
        .collect();
    let index: HashMap<i64, usize> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (r.team_id, i))
        .collect();
    for r in results {
        let (Some(&ia), Some(&ib)) = (index.get(&r.team_a), index.get(&r.team_b)) else {
            continue;
        };
        for (i, own, other, rating) in [
            (ia, r.score_a, r.score_b, r.ratings[0]),
            (ib, r.score_b, r.score_a, r.ratings[1]),
        ] {
            rows[i].played += 1;
            rows[i].ratings.extend(rating);
            if matches!(r.outcome, Outcome::Played { .. }) {
                rows[i].points_for += own;
                rows[i].points_against += other;
            }
        }
        match r.outcome {
            Outcome::Played {
                winner: Some(Side::A),
            } => {
                rows[ia].won += 1;
                rows[ib].lost += 1;
            }
            Outcome::Played {
                winner: Some(Side::B),
            } => {
                rows[ib].won += 1;
                rows[ia].lost += 1;
            }
            Outcome::Played { winner: None } => {
                rows[ia].tied += 1;
                rows[ib].tied += 1;
            }
            Outcome::Forfeit(Side::A) => {
                rows[ia].lost += 1;
                rows[ia].forfeits += 1;
                rows[ib].won += 1;
            }
            Outcome::Forfeit(Side::B) => {
                rows[ib].lost += 1;
                rows[ib].forfeits += 1;
                rows[ia].won += 1;
            }
            Outcome::DoubleForfeit => {
                for i in [ia, ib] {
                    rows[i].lost += 1;
                    rows[i].forfeits += 1;
                }
            }
        }
    }
    for row in &mut rows {
        row.win_pct = win_pct(row.won, row.tied, row.played);
        row.differential = row.points_for - row.points_against;
    }
    rank(&mut rows, results, order);
    rows
}

/// Sorts by win % then the tiebreak order; teams still level share nothing: the last resort
/// is the name, then the id, so the order never depends on input order.
fn rank(rows: &mut [Standing], results: &[Result], order: &[Tiebreak]) {
    rows.sort_by(|x, y| y.win_pct.total_cmp(&x.win_pct));
    let mut start = 0;
    while start < rows.len() {
        let mut end = start + 1;
        while end < rows.len() && rows[end].win_pct == rows[start].win_pct {
            end += 1;
        }
        if end - start > 1 {
            let group = &mut rows[start..end];
            let ids: Vec<i64> = group.iter().map(|r| r.team_id).collect();
            let h2h: HashMap<i64, f64> = ids
                .iter()
                .map(|id| (*id, head_to_head(*id, &ids, results)))
                .collect();
            group.sort_by(|x, y| {
                for criterion in order {
                    let c = match criterion {
                        Tiebreak::HeadToHead => h2h[&y.team_id].total_cmp(&h2h[&x.team_id]),
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

/// Win % of `team` in the finished games against the other teams of `group`.
fn head_to_head(team: i64, group: &[i64], results: &[Result]) -> f64 {
    let (mut won, mut tied, mut played) = (0, 0, 0);
    for r in results {
        let (own, other) = if r.team_a == team {
            (Side::A, r.team_b)
        } else if r.team_b == team {
            (Side::B, r.team_a)
        } else {
            continue;
        };
        if !group.contains(&other) {
            continue;
        }
        played += 1;
        match r.outcome {
            Outcome::Played { winner: Some(w) } if w == own => won += 1,
            Outcome::Played { winner: None } => tied += 1,
            Outcome::Forfeit(f) if f != own => won += 1,
            _ => {}
        }
    }
    win_pct(won, tied, played)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn teams(names: &[&str]) -> Vec<TeamEntry> {
        names
            .iter()
            .enumerate()
            .map(|(i, n)| TeamEntry {
                id: i as i64 + 1,
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
            team_a: a,
            team_b: b,
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
                team_a: 3,
                team_b: 1,
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
            team_a: 1,
            team_b: 2,
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
    fn the_last_resort_is_the_name() {
        let t = teams(&["Zed", "Amy"]);
        let rows = standings(&t, &[], &Tiebreak::DEFAULT_ORDER);
        assert_eq!(rows[0].team, "Amy");
        assert_eq!(rows[1].rank, 2);
    }
}
