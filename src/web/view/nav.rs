//! The site header's view of who is logged in; every page template has a `nav` field.

use crate::service::User;

#[derive(Debug, Clone, Default)]
pub struct Nav {
    pub user: Option<String>,
    pub admin: bool,
    /// The session's CSRF token, for the logout form (and any form on the page).
    pub csrf: String,
}

impl Nav {
    pub fn of(user: &User, csrf: &str) -> Nav {
        Nav {
            user: Some(user.username.clone()),
            admin: user.is_admin(),
            csrf: csrf.to_string(),
        }
    }
}
