//! Divisions inside a league: each team's rank within its division, and playoff seeds that
//! put each division's winner first. Pure functions over the overall standings order.

use crate::domain::{DivisionId, TeamId};

/// Each row's rank within its division (`None` for a team without one), from the rows'
/// overall ranks: one more than the teams of its division ranked strictly above it, so
/// teams level overall stay level in their division.
pub fn division_ranks(rows: &[(usize, Option<DivisionId>)]) -> Vec<Option<usize>> {
    rows.iter()
        .map(|&(rank, division)| {
            let division = division?;
            let above = rows
                .iter()
                .filter(|&&(other, d)| d == Some(division) && other < rank)
                .count();
            Some(above + 1)
        })
        .collect()
}

/// Playoff seeds with each division's winner first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WinnersFirst {
    /// Seed 1 first.
    pub seeds: Vec<TeamId>,
    /// The divisions whose winners hold the first seeds, in seed order.
    pub winners_of: Vec<DivisionId>,
}

/// Seeds for `take` teams from `overall` (every team that may play, in overall standings
/// order, with its division): the best team of each division first, in their overall order,
/// then everyone else in overall order. Teams without a division are never winners.
pub fn division_winners_first(
    overall: &[(TeamId, Option<DivisionId>)],
    take: usize,
) -> WinnersFirst {
    let mut winners: Vec<(TeamId, DivisionId)> = Vec::new();
    for &(team, division) in overall {
        if let Some(d) = division
            && !winners.iter().any(|&(_, w)| w == d)
        {
            winners.push((team, d));
        }
    }
    let winners_taken: Vec<(TeamId, DivisionId)> = winners.into_iter().take(take).collect();
    let rest = overall
        .iter()
        .map(|&(team, _)| team)
        .filter(|team| !winners_taken.iter().any(|(w, _)| w == team));
    let seeds = winners_taken
        .iter()
        .map(|&(team, _)| team)
        .chain(rest)
        .take(take)
        .collect();
    WinnersFirst {
        seeds,
        winners_of: winners_taken.into_iter().map(|(_, d)| d).collect(),
    }
}

/// How `seeds` seeds were made when the winners of the divisions `winners` (names, in seed
/// order) went first: "Seeds 1–2: the winners of Competitive and Recreational; seeds 3–8 by
/// overall standing".
pub fn winners_first_words(winners: &[&str], seeds: usize) -> String {
    let k = winners.len();
    let names = match winners {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    };
    let head = match k {
        0 => String::new(),
        1 => format!("Seed 1: the winner of {names}"),
        _ => format!("Seeds 1–{k}: the winners of {names}"),
    };
    let tail = match seeds.saturating_sub(k) {
        0 => String::new(),
        1 => format!("seed {seeds} by overall standing"),
        _ => format!("seeds {}–{seeds} by overall standing", k + 1),
    };
    match (head.is_empty(), tail.is_empty()) {
        (true, _) => tail.replacen("seed", "Seed", 1),
        (false, true) => head,
        (false, false) => format!("{head}; {tail}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Option<DivisionId> = Some(DivisionId(1));
    const B: Option<DivisionId> = Some(DivisionId(2));

    #[test]
    fn each_division_ranks_its_own_teams_and_keeps_ties() {
        let rows = [(1, A), (2, B), (3, A), (3, A), (5, None), (6, B)];
        assert_eq!(
            division_ranks(&rows),
            [Some(1), Some(1), Some(2), Some(2), None, Some(2)]
        );
    }

    #[test]
    fn winners_come_first_in_overall_order_then_everyone_else() {
        let overall = [
            (TeamId(10), A),
            (TeamId(11), A),
            (TeamId(12), None),
            (TeamId(13), B),
            (TeamId(14), B),
        ];
        let seeding = division_winners_first(&overall, 4);
        assert_eq!(
            seeding.seeds,
            [TeamId(10), TeamId(13), TeamId(11), TeamId(12)]
        );
        assert_eq!(seeding.winners_of, [DivisionId(1), DivisionId(2)]);
    }

    #[test]
    fn a_bracket_smaller_than_the_divisions_takes_the_best_winners() {
        let overall = [(TeamId(1), A), (TeamId(2), A), (TeamId(3), B)];
        let seeding = division_winners_first(&overall, 1);
        assert_eq!(seeding.seeds, [TeamId(1)]);
        assert_eq!(seeding.winners_of, [DivisionId(1)]);
    }

    #[test]
    fn without_divisions_the_seeds_are_the_overall_order() {
        let overall = [(TeamId(5), None), (TeamId(6), None)];
        let seeding = division_winners_first(&overall, 2);
        assert_eq!(seeding.seeds, [TeamId(5), TeamId(6)]);
        assert!(seeding.winners_of.is_empty());
    }

    #[test]
    fn the_words_say_which_seeds_are_winners() {
        assert_eq!(
            winners_first_words(&["Competitive", "Recreational"], 8),
            "Seeds 1–2: the winners of Competitive and Recreational; seeds 3–8 by overall standing"
        );
        assert_eq!(
            winners_first_words(&["A", "B", "C"], 3),
            "Seeds 1–3: the winners of A, B and C"
        );
        assert_eq!(
            winners_first_words(&["Gold"], 2),
            "Seed 1: the winner of Gold; seed 2 by overall standing"
        );
        assert_eq!(winners_first_words(&[], 4), "Seeds 1–4 by overall standing");
    }
}
