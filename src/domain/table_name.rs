//! A match's table as people read it: its name once ("Table 1", whether the coordinator
//! typed "1" or "Table 1"), and tables in the order people count them (1, 2, …, 10, not 1,
//! 10, 11, …, 2).

use std::cmp::Ordering;

/// The longest name a table may have ("Table 3", "Lounge B").
pub const MAX: usize = 40;

/// Whether two names are one table: alike ignoring case and the "Table " people may put
/// before it ("1", "table 1" and "Table 1" are one table).
pub fn same(a: &str, b: &str) -> bool {
    key(a) == key(b)
}

/// The one spelling of a table's name that [`same`] compares: its shown name, lower case.
pub fn key(name: &str) -> String {
    shown(name.trim()).to_lowercase()
}

/// The table's name as shown: "Table 1" for "1", a name that already says "table" as typed
/// ("Table 1", "table 3"), any other name after "Table " ("Table B").
pub fn shown(name: &str) -> String {
    let says_table = name
        .get(..5)
        .is_some_and(|start| start.eq_ignore_ascii_case("table"));
    if says_table {
        name.to_string()
    } else {
        format!("Table {name}")
    }
}

/// Compares two names the way people count: runs of digits by their value, the rest
/// without regard to case ("Table 2" < "Table 10" < "table 11"); equal-looking names by
/// their bytes, so the order is total.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (chunks(a), chunks(b));
    loop {
        let order = match (x.next(), y.next()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(p), Some(q)) => compare_chunks(p, q),
        };
        if order != Ordering::Equal {
            return order;
        }
    }
}

/// A name cut into runs of digits and runs of anything else.
fn chunks(s: &str) -> impl Iterator<Item = &str> {
    let mut rest = s;
    std::iter::from_fn(move || {
        let first = rest.chars().next()?;
        let digits = first.is_ascii_digit();
        let end = rest
            .find(|c: char| c.is_ascii_digit() != digits)
            .unwrap_or(rest.len());
        let (chunk, tail) = rest.split_at(end);
        rest = tail;
        Some(chunk)
    })
}

/// Two runs: numbers by value (however long: by their length without leading zeros, then
/// digit by digit), a number before text, text without regard to case.
fn compare_chunks(p: &str, q: &str) -> Ordering {
    let number = |s: &str| s.starts_with(|c: char| c.is_ascii_digit());
    match (number(p), number(q)) {
        (true, true) => {
            let (p, q) = (p.trim_start_matches('0'), q.trim_start_matches('0'));
            p.len().cmp(&q.len()).then_with(|| p.cmp(q))
        }
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => p.to_lowercase().cmp(&q.to_lowercase()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_once() {
        assert_eq!(shown("1"), "Table 1");
        assert_eq!(shown("Table 1"), "Table 1");
        assert_eq!(shown("table 3"), "table 3");
        assert_eq!(shown("B"), "Table B");
        assert_eq!(shown("Tab"), "Table Tab");
        assert_eq!(shown("Tablé"), "Table Tablé");
    }

    #[test]
    fn tables_in_counting_order() {
        let mut names = vec![
            "Table 2", "Table 10", "Table 1", "table 11", "Table 3", "B", "A", "10", "9", "007",
        ];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            names,
            [
                "007", "9", "10", "A", "B", "Table 1", "Table 2", "Table 3", "Table 10", "table 11"
            ]
        );
        let long = "Table 123456789012345678901234567890";
        assert_eq!(natural_cmp(long, "Table 9"), Ordering::Greater);
        assert_eq!(natural_cmp("Table 1", "Table 1"), Ordering::Equal);
        assert_ne!(natural_cmp("table 1", "Table 1"), Ordering::Equal);
    }
}
