//! The site header's view of who is logged in; every page template has a `nav` field.

use super::auth::{Authed, MaybeAuthed};

#[derive(Debug, Clone, Default)]
pub struct Nav {
    pub user: Option<String>,
    pub admin: bool,
    /// The session's CSRF token, for the logout form (and any form on the page).
    pub csrf: String,
}

impl Nav {
    pub fn of(authed: &Authed) -> Nav {
        Nav {
            user: Some(authed.user.username.clone()),
            admin: authed.user.is_admin(),
            csrf: authed.csrf().to_string(),
        }
    }

    pub fn maybe(who: &MaybeAuthed) -> Nav {
        who.0.as_ref().map(Nav::of).unwrap_or_default()
    }
}
