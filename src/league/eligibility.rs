//! Who may enter the playoffs (docs/api.md §6.9), and what a team needs to stay in: each
//! rule of the league's eligibility settings judged on a team's own record, in words.

use super::settings::Settings;
use super::standings::{self, Ratings};
use crate::domain::words::decimal;

/// What eligibility looks at of one team.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Record {
    pub played: u32,
    pub won: u32,
    pub tied: u32,
    pub forfeits: u32,
    /// Its sportsmanship ratings so far.
    pub ratings: Ratings,
    /// Withdrawn or dropped: out of the playoffs whatever its record.
    pub withdrawn: bool,
}

impl Record {
    pub fn win_pct(&self) -> f64 {
        standings::win_pct(self.won, self.tied, self.played)
    }

    /// The sportsmanship average, `None` before the first rating.
    pub fn average(&self) -> Option<f64> {
        self.ratings.average()
    }
}

/// The reason of a withdrawn team.
pub const WITHDRAWN: &str = "the team has withdrawn";

/// Every rule the team fails, in words; empty: eligible.
pub fn failing(settings: &Settings, record: &Record) -> Vec<String> {
    let rules = &settings.eligibility;
    let mut reasons = Vec::new();
    if record.withdrawn {
        reasons.push(WITHDRAWN.to_string());
    }
    // A team not rated yet is not held back by the sportsmanship minimum.
    if let (Some(min), Some(average)) = (rules.min_sportsmanship, record.average())
        && average < min
    {
        reasons.push(format!(
            "sportsmanship average {} is below {}",
            shown(average, min),
            decimal(min)
        ));
    }
    if let Some(max) = rules.max_forfeits
        && record.forfeits > max
    {
        let forfeits = match record.forfeits {
            1 => "1 forfeit".to_string(),
            n => format!("{n} forfeits"),
        };
        reasons.push(format!("{forfeits}, more than the {max} allowed"));
    }
    if let Some(min) = rules.min_win_pct
        && record.played > 0
        && record.win_pct() < min
    {
        reasons.push(format!(
            "win percentage {:.3} is below {min:.3}",
            record.win_pct()
        ));
    }
    reasons
}

/// An average as the lines write it, on the same side of `min` as it is: to one decimal
/// ("2.7"), or to two, cut rather than rounded, where one would cross the minimum (2.96
/// against 3.0 is "2.96", not "3.0"; 4.25 against 4.25 is "4.25", not "4.2").
fn shown(average: f64, min: f64) -> String {
    let fits = |text: &str| {
        text.parse::<f64>()
            .is_ok_and(|read| (read < min) == (average < min))
    };
    let one = format!("{average:.1}");
    if fits(&one) {
        return one;
    }
    let two = format!("{:.2}", (average * 100.0).floor() / 100.0);
    if fits(&two) {
        two
    } else {
        format!("{average}")
    }
}

/// "rating of 2 or lower", or "rating of 1" at the bottom of the scale.
fn or_lower(rating: u32, lowest: u32) -> String {
    if rating == lowest {
        format!("rating of {rating}")
    } else {
        format!("rating of {rating} or lower")
    }
}

/// The lowest rating on the scale that keeps (or brings) the average at or above `min` after
/// one more game, if any.
pub fn lowest_rating_keeping(min: f64, ratings: Ratings, scale: (u32, u32)) -> Option<u32> {
    (scale.0..=scale.1).find(|r| ratings.average_with(*r) >= min)
}

/// What the team needs to stay eligible (or to become eligible again), a line per rule at
/// risk, in plain words: "one more forfeit and you are out of the playoffs".
pub fn at_risk(settings: &Settings, record: &Record) -> Vec<String> {
    if record.withdrawn {
        return Vec::new();
    }
    let rules = &settings.eligibility;
    let mut lines = Vec::new();
    if let Some(drop) = settings.forfeit.drop_after
        && record.forfeits + 1 == drop
    {
        lines.push("one more forfeit and the team is dropped from the league".to_string());
    }
    if let Some(max) = rules.max_forfeits
        && record.forfeits == max
    {
        lines.push("one more forfeit and you are out of the playoffs".to_string());
    }
    // A forfeit is a loss too: the win percentage after one more.
    if let Some(min) = rules.min_win_pct
        && (record.played == 0 || record.win_pct() >= min)
    {
        let after_loss = standings::win_pct(record.won, record.tied, record.played + 1);
        if after_loss < min {
            lines.push(if record.played == 0 {
                format!(
                    "the team has not played yet: a loss (or a forfeit) in its first game puts its win percentage below {min:.3}"
                )
            } else {
                format!(
                    "your win percentage is {:.3}: a loss (or a forfeit) next game would drop it below {min:.3}",
                    record.win_pct()
                )
            });
        }
    }
    if let (Some(min), Some(scale)) = (rules.min_sportsmanship, &settings.sportsmanship)
        && record.average().is_none()
        && let Some(first) = lowest_rating_keeping(min, Ratings::default(), (scale.min, scale.max))
        && first > scale.min
    {
        lines.push(format!(
            "the team has no sportsmanship rating yet: a first {} would put it below {}",
            or_lower(first - 1, scale.min),
            decimal(min)
        ));
    }
    if let (Some(min), Some(scale)) = (rules.min_sportsmanship, &settings.sportsmanship)
        && let Some(average) = record.average()
    {
        let keeping = lowest_rating_keeping(min, record.ratings, (scale.min, scale.max));
        match keeping {
            Some(r) if average >= min && r > scale.min => lines.push(format!(
                "your sportsmanship average is {}: a {} next game would drop it below {}",
                shown(average, min),
                or_lower(r - 1, scale.min),
                decimal(min)
            )),
            Some(r) if average < min => lines.push(format!(
                "your sportsmanship average is {}, below {}: {} next game brings it back",
                shown(average, min),
                decimal(min),
                if r == scale.max {
                    format!("a rating of {r}")
                } else {
                    format!("a rating of {r} or more")
                }
            )),
            None => lines.push(format!(
                "your sportsmanship average is {}, below {}: even a {} next game would not bring it back",
                shown(average, min),
                decimal(min),
                scale.max
            )),
            _ => {}
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A team's record: `played` games, `won` of them, `forfeits` forfeits, these ratings.
    fn team_record(played: u32, won: u32, forfeits: u32, ratings: &[u32]) -> Record {
        Record {
            played,
            won,
            forfeits,
            ratings: Ratings::of(ratings),
            ..Record::default()
        }
    }

    fn settings() -> Settings {
        Settings::default()
            .merged(&json!({
                "forfeit": {"drop_after": 3},
                "sportsmanship": {"min": 1, "max": 5},
                "eligibility": {"min_sportsmanship": 3.0, "max_forfeits": 1, "min_win_pct": 0.5}
            }))
            .unwrap()
    }

    #[test]
    fn each_failing_rule_is_named() {
        let record = team_record(4, 1, 2, &[3, 2, 3]);
        assert_eq!(
            failing(&settings(), &record),
            vec![
                "sportsmanship average 2.7 is below 3.0",
                "2 forfeits, more than the 1 allowed",
                "win percentage 0.250 is below 0.500",
            ]
        );
        let fine = team_record(4, 3, 1, &[4, 3]);
        assert!(failing(&settings(), &fine).is_empty());
        // Not rated yet, nothing played: not held back.
        assert!(failing(&settings(), &Record::default()).is_empty());
        let gone = Record {
            withdrawn: true,
            ..fine
        };
        assert_eq!(failing(&settings(), &gone), vec!["the team has withdrawn"]);
    }

    #[test]
    fn what_a_team_needs_in_words() {
        let record = team_record(3, 2, 1, &[3, 3, 4, 3, 3, 3, 3, 3, 3, 3]);
        // Average 3.1: a 2 next game makes 33/11 = 3.0 (still in), a 1 makes 32/11 < 3.
        assert_eq!(
            at_risk(&settings(), &record),
            vec![
                "one more forfeit and you are out of the playoffs",
                "your sportsmanship average is 3.1: a rating of 1 next game would drop it below 3.0",
            ]
        );
        let low = team_record(2, 2, 0, &[2, 3]);
        assert_eq!(
            at_risk(&settings(), &low),
            vec![
                "your sportsmanship average is 2.5, below 3.0: a rating of 4 or more next game brings it back"
            ]
        );
    }

    #[test]
    fn an_average_under_the_minimum_never_reads_as_the_minimum() {
        assert_eq!(shown(2.7, 3.0), "2.7");
        assert_eq!(shown(2.96, 3.0), "2.96");
        assert_eq!(shown(2.999, 3.0), "2.99");
        assert_eq!(shown(4.25, 4.25), "4.25");
        assert_eq!(shown(3.1, 3.0), "3.1");
        let record = Record {
            ratings: Ratings::of(&[
                3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2,
            ]),
            ..Record::default()
        };
        assert_eq!(
            failing(&settings(), &record),
            vec!["sportsmanship average 2.95 is below 3.0"]
        );
    }

    #[test]
    fn a_loss_that_would_cost_the_win_percentage_is_at_risk() {
        let mut s = settings();
        s.eligibility.min_sportsmanship = None;
        s.forfeit.drop_after = None;
        let even = team_record(4, 2, 0, &[]);
        assert_eq!(
            at_risk(&s, &even),
            vec![
                "your win percentage is 0.500: a loss (or a forfeit) next game would drop it below 0.500"
            ]
        );
        let ahead = team_record(4, 3, 0, &[]);
        assert!(at_risk(&s, &ahead).is_empty(), "3-2 is still .600");
    }

    #[test]
    fn a_team_not_rated_yet_is_told_what_its_first_rating_must_be() {
        let mut s = settings();
        s.eligibility.min_win_pct = None;
        assert_eq!(
            at_risk(&s, &Record::default()),
            vec![
                "the team has no sportsmanship rating yet: a first rating of 2 or lower would put it below 3.0"
            ]
        );
    }

    proptest::proptest! {
        /// The line never promises what the rules would deny: the rating it names as enough
        /// keeps the team eligible by sportsmanship, and the one it warns about does not.
        #[test]
        fn the_needed_rating_is_what_the_rules_judge(
            ratings in proptest::collection::vec(1u32..=5, 1..30),
            min_tenths in 10u32..=50,
        ) {
            let min = f64::from(min_tenths) / 10.0;
            let mut s = settings();
            s.eligibility.min_sportsmanship = Some(min);
            s.eligibility.max_forfeits = None;
            s.eligibility.min_win_pct = None;
            let record = Record { ratings: Ratings::of(&ratings), ..Record::default() };
            let keeping = lowest_rating_keeping(min, record.ratings, (1, 5));
            for r in 1..=5u32 {
                let mut next = record.clone();
                next.ratings.add(r);
                let eligible = failing(&s, &next).is_empty();
                proptest::prop_assert_eq!(eligible, keeping.is_some_and(|k| r >= k), "rating {}", r);
            }
        }
    }
}
