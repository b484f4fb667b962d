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

    #[test]
    fn fewer_than_two_teams_have_no_matches() {
        assert!(round_robin(0).is_empty());
        assert!(round_robin(1).is_empty());
    }
}
