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
            Slot::WinnerOf(i) | Slot::LoserOf(i) => out[i][0].union(&out[i][1]).copied().collect(),
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
                Section::Final if b.format == Format::SingleElimination => Some((m.index, rounds)),
                _ => None,
            });
            for (i, round) in winners {
                let [a, c] = &reach[i];
                let meet = (a.contains(&1) && c.contains(&2)) || (a.contains(&2) && c.contains(&1));
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
            id: crate::domain::TeamId(i as i64 + 10),
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
