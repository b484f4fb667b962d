//! The one name of a bracket match, wherever a match is named: "M5 · Winners semi-final".
//! `M{n}` is the match's 1-based number in its bracket; the round's name says where it is:
//! single elimination "Final", "Semi-final", "Quarter-final", "Round of 16", … and
//! "Third-place match"; double elimination "Winners final", "Winners semi-final", …,
//! "Losers round N", "Losers final", "Grand final", "Grand final reset".

use super::{Bracket, Format, Section};

/// The last round number of `section` in `bracket` (0 when it has none).
fn last_round(bracket: &Bracket, section: Section) -> usize {
    bracket
        .matches
        .iter()
        .filter(|m| m.bracket == section)
        .map(|m| m.round)
        .max()
        .unwrap_or(0)
}

/// "Semi-final" for `from_end` 1, "Quarter-final" for 2, "Round of 16" for 3 and so on;
/// `from_end` 0 is the final.
fn knockout_round(from_end: usize) -> String {
    match from_end {
        0 => "Final".into(),
        1 => "Semi-final".into(),
        2 => "Quarter-final".into(),
        n => format!(
            "Round of {}",
            1usize << (n + 1).min(usize::BITS as usize - 1)
        ),
    }
}

/// The name of round `round` (1-based) of `section` in `bracket`.
pub fn round_name(bracket: &Bracket, section: Section, round: usize) -> String {
    let single = bracket.format == Format::SingleElimination;
    match section {
        // Single elimination's final is its own section, after the winners' rounds.
        Section::Winners if single => {
            knockout_round((last_round(bracket, Section::Winners) + 1).saturating_sub(round))
        }
        Section::Winners => {
            let name = knockout_round(last_round(bracket, Section::Winners).saturating_sub(round));
            format!("Winners {}", lower_first(&name))
        }
        Section::Losers if round == last_round(bracket, Section::Losers) => "Losers final".into(),
        Section::Losers => format!("Losers round {round}"),
        Section::Final if single => "Final".into(),
        Section::Final if round <= 1 => "Grand final".into(),
        Section::Final => "Grand final reset".into(),
        Section::ThirdPlace => "Third-place match".into(),
    }
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// "M5 · Winners semi-final": match `index` (0-based) of `bracket`; `None` for no such match.
pub fn match_label(bracket: &Bracket, index: usize) -> Option<String> {
    let m = bracket.matches.get(index)?;
    Some(format!(
        "M{} · {}",
        index + 1,
        round_name(bracket, m.bracket, m.round)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::league::bracket::{GrandFinal, double_elimination, single_elimination};

    fn labels(b: &Bracket) -> Vec<String> {
        (0..b.matches.len())
            .map(|i| match_label(b, i).expect("a match"))
            .collect()
    }

    fn count(labels: &[String], name: &str) -> usize {
        labels
            .iter()
            .filter(|l| l.split(" · ").nth(1) == Some(name))
            .count()
    }

    #[test]
    fn single_elimination_rounds_are_named_from_the_final_back() {
        let b = single_elimination(8, true).unwrap();
        let l = labels(&b);
        assert_eq!(l[0], "M1 · Quarter-final");
        assert_eq!(count(&l, "Quarter-final"), 4);
        assert_eq!(count(&l, "Semi-final"), 2);
        assert_eq!(count(&l, "Final"), 1);
        assert_eq!(count(&l, "Third-place match"), 1);
        assert_eq!(
            match_label(&b, b.deciding).unwrap(),
            format!("M{} · Final", b.deciding + 1)
        );
        let b = single_elimination(16, false).unwrap();
        let l = labels(&b);
        assert_eq!(count(&l, "Round of 16"), 8);
        assert_eq!(count(&l, "Quarter-final"), 4);
        assert_eq!(match_label(&b, 99), None);
    }

    #[test]
    fn every_single_elimination_from_2_to_16_teams_has_one_final_and_two_semis() {
        for teams in 2..=16 {
            let b = single_elimination(teams, true).unwrap();
            let l = labels(&b);
            assert_eq!(count(&l, "Final"), 1, "{teams} teams: {l:?}");
            assert_eq!(
                match_label(&b, b.deciding).unwrap().split(" · ").nth(1),
                Some("Final"),
                "{teams} teams"
            );
            let rounds = teams.next_power_of_two().trailing_zeros() as usize;
            assert_eq!(
                count(&l, "Semi-final"),
                if rounds >= 2 { 2 } else { 0 },
                "{teams} teams: {l:?}"
            );
            assert_eq!(
                count(&l, "Quarter-final"),
                if rounds >= 3 { 4 } else { 0 },
                "{teams} teams: {l:?}"
            );
            assert_eq!(count(&l, "Round of 16"), if rounds >= 4 { 8 } else { 0 });
            assert!(l.iter().all(|x| !x.contains("Round 1")), "{l:?}");
        }
    }

    #[test]
    fn every_double_elimination_from_2_to_16_teams_names_both_brackets_and_the_grand_final() {
        for teams in 2..=16 {
            let b = double_elimination(teams, GrandFinal::Double).unwrap();
            let l = labels(&b);
            assert_eq!(count(&l, "Winners final"), 1, "{teams} teams: {l:?}");
            assert_eq!(count(&l, "Grand final"), 1, "{teams} teams: {l:?}");
            assert_eq!(count(&l, "Grand final reset"), 1, "{teams} teams: {l:?}");
            let losers = l.iter().filter(|x| x.contains("· Losers")).count();
            let losers_matches = b
                .matches
                .iter()
                .filter(|m| m.bracket == Section::Losers)
                .count();
            assert_eq!(losers, losers_matches, "{teams} teams");
            if losers_matches > 0 {
                assert_eq!(count(&l, "Losers final"), 1, "{teams} teams: {l:?}");
            }
            for (i, m) in b.matches.iter().enumerate() {
                assert!(l[i].starts_with(&format!("M{} · ", i + 1)));
                if m.bracket == Section::Winners {
                    assert!(l[i].contains(" · Winners "), "{l:?}");
                }
            }
        }
        let b = double_elimination(8, GrandFinal::Simple).unwrap();
        let l = labels(&b);
        assert_eq!(count(&l, "Winners quarter-final"), 4);
        assert_eq!(count(&l, "Winners semi-final"), 2);
        assert_eq!(count(&l, "Losers round 1"), 2);
        assert_eq!(count(&l, "Grand final reset"), 0);
        assert_eq!(l[b.deciding], format!("M{} · Grand final", b.deciding + 1));
    }
}
