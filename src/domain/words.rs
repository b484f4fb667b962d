//! Numbers in English words, as the pages and messages write them.

use std::fmt::Display;

/// "1 match", "2 matches".
pub fn plural<N: Display + PartialEq + From<u8>>(n: N, one: &str, many: &str) -> String {
    let word = if n == N::from(1) { one } else { many };
    format!("{n} {word}")
}

/// A score as text: a negative one with a real minus sign ("−68"), so "328 – −68" never
/// reads as "328–-68".
pub fn points(n: impl Into<i64>) -> String {
    let n: i64 = n.into();
    if n < 0 {
        format!("\u{2212}{}", n.unsigned_abs())
    } else {
        n.to_string()
    }
}

/// Whether a score's text ([`points`]) is wider than three digits: four digits, or a minus
/// sign and two or more. The TV sets such a score a size smaller, so that it stays whole in
/// its half of a card.
pub fn points_wide(n: impl Into<i64>) -> bool {
    let n: i64 = n.into();
    n <= -10 || n >= 1000
}

/// "1st", "2nd", "3rd", "4th" … "11th", "12th", "13th", "21st".
pub fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A number set by a person (a minimum average): "3.0" for 3, "4.25" as typed — never
/// rounded, so "below 4.2" can't be said of a minimum of 4.25.
pub fn decimal(x: f64) -> String {
    let tenths = format!("{x:.1}");
    if tenths.parse::<f64>() == Ok(x) {
        tenths
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_points_have_a_minus_sign() {
        assert_eq!(points(328), "328");
        assert_eq!(points(0), "0");
        assert_eq!(points(-68), "\u{2212}68");
        assert_eq!(points(i32::MIN), "\u{2212}2147483648");
    }

    #[test]
    fn numbers_in_words() {
        assert_eq!(decimal(3.0), "3.0");
        assert_eq!(decimal(4.25), "4.25");
        assert_eq!(decimal(2.5), "2.5");
        assert_eq!(plural(1usize, "match", "matches"), "1 match");
        assert_eq!(plural(2u32, "match", "matches"), "2 matches");
        assert_eq!(plural(0i64, "minute", "minutes"), "0 minutes");
        for (n, word) in [
            (1, "1st"),
            (2, "2nd"),
            (3, "3rd"),
            (4, "4th"),
            (11, "11th"),
            (12, "12th"),
            (13, "13th"),
            (21, "21st"),
            (102, "102nd"),
            (111, "111th"),
        ] {
            assert_eq!(ordinal(n), word);
        }
    }

    #[test]
    fn a_score_wider_than_three_digits_is_wide() {
        for n in [-999, -10, 1000, 9999] {
            assert!(points_wide(n), "{n}");
        }
        for n in [-9, 0, 99, 450, 999] {
            assert!(!points_wide(n), "{n}");
        }
    }
}
