//! A student id as the service stores it: personal data (an education record), so it is
//! checked here once and never written into a message, a log line or a public page.

use std::fmt;

use serde::Serialize;

/// The longest student id, in characters.
pub const STUDENT_ID_MAX: usize = 40;

/// Why a student id is refused. It never carries the id itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadStudentId {
    Empty,
    TooLong,
    /// A character that is not an ASCII letter, digit or dash.
    Character,
}

impl fmt::Display for BadStudentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BadStudentId::Empty => "a student id has at least one letter or digit",
            BadStudentId::TooLong => "a student id has at most 40 characters",
            BadStudentId::Character => "a student id holds only letters, digits and dashes",
        })
    }
}

/// A student id: 1 to [`STUDENT_ID_MAX`] ASCII letters, digits and dashes, trimmed, letters
/// in capitals (so `a123` and `A123` are the same student).
#[derive(Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct StudentId(String);

impl StudentId {
    pub fn new(text: &str) -> Result<StudentId, BadStudentId> {
        let text = text.trim();
        if text.is_empty() {
            return Err(BadStudentId::Empty);
        }
        if !text.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(BadStudentId::Character);
        }
        if text.len() > STUDENT_ID_MAX {
            return Err(BadStudentId::TooLong);
        }
        Ok(StudentId(text.to_ascii_uppercase()))
    }

    pub fn from_stored(text: String) -> StudentId {
        StudentId(text)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Never the id itself: a `{:?}` in a log line or a panic message shows no personal data.
impl fmt::Debug for StudentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StudentId(…)")
    }
}

crate::domain::text::sql_text!(StudentId, &str, |v| v.as_str(), |s| Ok::<
    _,
    sqlx::error::BoxDynError,
>(
    StudentId::from_stored(s.to_string())
));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_student_id_is_trimmed_in_capitals_and_checked() {
        assert_eq!(StudentId::new(" a12-3b ").unwrap().as_str(), "A12-3B");
        assert_eq!(StudentId::new("  "), Err(BadStudentId::Empty));
        assert_eq!(StudentId::new("A 1"), Err(BadStudentId::Character));
        assert_eq!(StudentId::new("Ä1"), Err(BadStudentId::Character));
        assert_eq!(StudentId::new(&"1".repeat(41)), Err(BadStudentId::TooLong));
        assert!(StudentId::new(&"1".repeat(40)).is_ok());
        assert_eq!(
            format!("{:?}", StudentId::new("S1").unwrap()),
            "StudentId(…)"
        );
    }
}
