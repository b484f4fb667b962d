//! The pages' errors of a form outside any hand (rules, stage, start, reason...). A hand as
//! typed is read by the rules crate (`rules::form::TypedHand`), the same reader the phone's
//! preview runs as WebAssembly.

use crate::domain::{ErrorCode, Field, FieldError};

/// An error of the form outside any hand (rules, stage, version...).
pub fn form_error(field: Field, message: String) -> FieldError {
    FieldError {
        code: ErrorCode::InvalidForm,
        message,
        hand: None,
        field: Some(field),
        team: None,
        player: None,
        words: None,
    }
}
