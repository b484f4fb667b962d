//! Round-robin schedules by the circle method: every team meets every other once; with an odd
//! count one team sits out (a bye) each round.

/// One pairing of a round: indexes into the team list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pairing {
    pub round: usize,
    pub a: usize,
    pub b: usize,
}

/// Rounds of pairings for `n` teams (1-based rounds). `n − 1` rounds for an even count, `n`
/// for an odd one; each team plays at most once per round.
pub fn round_robin(n: usize) -> Vec<Pairing> {
    if n < 2 {
        return Vec::new();
    }
    // Slot `n` (when n is odd) is the bye.
    let slots = if n.is_multiple_of(2) { n } else { n + 1 };
    let mut order: Vec<usize> = (0..slots).collect();
    let mut pairings = Vec::with_capacity(n * (n - 1) / 2);
    for round in 0..slots - 1 {
        for i in 0..slots / 2 {
            let (x, y) = (order[i], order[slots - 1 - i]);
            if x >= n || y >= n {
                continue;
            }
            // Alternate who is team a so nobody is always seats 1 and 3.
            let (a, b) = if (round + i) % 2 == 0 { (x, y) } else { (y, x) };
            pairings.push(Pairing {
                round: round + 1,
                a,
                b,
            });
        }
        // Keep the first slot fixed, rotate the rest by one.
        let last = order.pop().unwrap_or_default();
        order.insert(1, last);
    }
    pairings
}

/// The rest of a round robin of `n` teams once some pairs have met or are scheduled
/// (`met`, pairs of indexes in either order): the circle method's pairings without those,
/// renumbered so that rounds left empty disappear (rounds still 1-based; each team plays at
/// most once a round).
pub fn rest_of_round_robin(n: usize, met: &[(usize, usize)]) -> Vec<Pairing> {
    let met: std::collections::HashSet<(usize, usize)> =
        met.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
    let mut rest: Vec<Pairing> = round_robin(n)
        .into_iter()
        .filter(|p| !met.contains(&(p.a.min(p.b), p.a.max(p.b))))
        .collect();
    let mut renumbered = 0;
    let mut last = 0;
    for p in &mut rest {
        if p.round != last {
            last = p.round;
            renumbered += 1;
        }
        p.round = renumbered;
    }
    rest
}

/// The rest of a round robin inside each of `groups` (indexes into one team list; a team in
/// one group only): each group its own [`rest_of_round_robin`] without the pairs in `met`,
/// all groups' round 1 on the same night, round 2 on the next... Nobody meets a team of
/// another group, and each team plays at most once a round.
pub fn rest_within_groups(groups: &[Vec<usize>], met: &[(usize, usize)]) -> Vec<Pairing> {
    let mut all = Vec::new();
    for group in groups {
        let local = |team: usize| group.iter().position(|&g| g == team);
        let met_here: Vec<(usize, usize)> = met
            .iter()
            .filter_map(|&(a, b)| Some((local(a)?, local(b)?)))
            .collect();
        all.extend(
            rest_of_round_robin(group.len(), &met_here)
                .into_iter()
                .map(|p| Pairing {
                    round: p.round,
                    a: group[p.a],
                    b: group[p.b],
                }),
        );
    }
    // Round by round (stable: within a round, group by group), as the tables are numbered.
    all.sort_by_key(|p| p.round);
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_pair_meets_exactly_once_and_nobody_plays_twice_a_round() {
        for n in 2..=40 {
            let pairings = round_robin(n);
            assert_eq!(pairings.len(), n * (n - 1) / 2, "n = {n}");
            let mut seen = HashSet::new();
            for p in &pairings {
                assert_ne!(p.a, p.b);
                assert!(seen.insert((p.a.min(p.b), p.a.max(p.b))), "n = {n}: repeat");
            }
            let rounds = if n.is_multiple_of(2) { n - 1 } else { n };
            for round in 1..=rounds {
                let mut playing = HashSet::new();
                for p in pairings.iter().filter(|p| p.round == round) {
                    assert!(
                        playing.insert(p.a) && playing.insert(p.b),
                        "n = {n}, round {round}"
                    );
                }
                // Odd counts: exactly one bye per round.
                assert_eq!(playing.len(), n - n % 2, "n = {n}, round {round}");
            }
        }
    }

    proptest::proptest! {
        /// Whatever has been played or scheduled, the rest adds every missing pair exactly
        /// once and no pair already met, nobody twice in a round.
        #[test]
        fn the_rest_completes_the_round_robin_without_repeats(
            n in 2usize..24,
            picks in proptest::collection::vec((0usize..24, 0usize..24), 0..80),
        ) {
            let met: Vec<(usize, usize)> = picks
                .into_iter()
                .map(|(a, b)| (a % n, b % n))
                .filter(|(a, b)| a != b)
                .collect();
            let already: HashSet<(usize, usize)> =
                met.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
            let rest = rest_of_round_robin(n, &met);
            let mut all = already.clone();
            for p in &rest {
                proptest::prop_assert!(all.insert((p.a.min(p.b), p.a.max(p.b))), "repeat {p:?}");
            }
            proptest::prop_assert_eq!(all.len(), n * (n - 1) / 2);
            let mut rounds: Vec<usize> = rest.iter().map(|p| p.round).collect();
            rounds.dedup();
            proptest::prop_assert!(rounds.iter().enumerate().all(|(i, r)| *r == i + 1));
            for round in rounds {
                let mut playing = HashSet::new();
                for p in rest.iter().filter(|p| p.round == round) {
                    proptest::prop_assert!(playing.insert(p.a) && playing.insert(p.b));
                }
            }
        }
    }

    #[test]
    fn groups_play_only_inside_themselves_on_shared_nights() {
        let groups = vec![vec![0, 2, 4, 6], vec![1, 3, 5]];
        let pairings = rest_within_groups(&groups, &[(0, 2)]);
        let group_of = |t: usize| groups.iter().position(|g| g.contains(&t));
        for p in &pairings {
            assert_eq!(group_of(p.a), group_of(p.b), "{p:?} crosses groups");
        }
        // 4 teams: 6 pairs less the one met; 3 teams: 3 pairs.
        assert_eq!(pairings.len(), 5 + 3);
        assert!(
            !pairings
                .iter()
                .any(|p| (p.a.min(p.b), p.a.max(p.b)) == (0, 2))
        );
        let rounds = pairings.iter().map(|p| p.round).max().unwrap_or(0);
        for round in 1..=rounds {
            let mut playing = HashSet::new();
            for p in pairings.iter().filter(|p| p.round == round) {
                assert!(playing.insert(p.a) && playing.insert(p.b), "round {round}");
            }
        }
        assert!(pairings.windows(2).all(|w| w[0].round <= w[1].round));
    }

    #[test]
    fn fewer_than_two_teams_have_no_matches() {
        assert!(round_robin(0).is_empty());
        assert!(round_robin(1).is_empty());
    }
}
