//! The coordinator's pages under `/admin`: leagues (rules per stage with a preview in plain
//! words before saving), divisions, teams (add, rename, move to a division before it plays,
//! withdraw, roster CSV import with a preview and export),
//! a team's players (`/admin/leagues/{slug}/teams/{id}/players`), accounts (`/admin/users`), supervisors (league assignment), the schedule (generated, then changed match
//! by match or night by night on its own page), the playoffs and the backup download.
//!
//! Every route takes [`Admin`](crate::web::extract::Admin) (an anonymous browser is sent to
//! the login page, a supervisor gets 403); every POST is a
//! [`CsrfForm`](crate::web::extract::CsrfForm); every answer is `Cache-Control: no-store`.
//! Each page reads through one `service::views::admin_views` call (the schedule page through
//! `service::term::admin_schedule`) and each form writes through one service call. A form with an
//! error is shown again with every typed value and the message next to the field, and
//! nothing is written.

mod audit;
mod backup;
mod dashboard;
mod desk;
mod divisions;
mod import;
mod league;
mod league_form;
mod league_input;
mod notices;
mod players;
pub mod playoffs;
mod requests;
mod schedule;
mod schedule_edit;
mod schedule_page;
mod seasons;
mod tables;
mod teams;
mod users;

use crate::domain::Slug;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};

use crate::domain::Field;
use crate::service::ServiceError;
use crate::web::respond::see_other;

/// The admin routes (the playoffs page has its own: [`playoffs::routes`]). `/admin/leagues/new`
/// and `/admin/leagues/import` come before `/admin/leagues/{slug}`.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(dashboard::dashboard)
        .service(users::users_page)
        .service(users::add_user)
        .service(users::change_user)
        .service(users::set_active)
        .service(users::reset_form)
        .service(users::reset_password)
        .service(league_form::new_league_form)
        .service(league_form::new_league)
        .service(seasons::league_import_form)
        .service(seasons::league_import)
        .service(backup::backup_page)
        .service(backup::backup)
        .service(audit::audit_page)
        .service(audit::audit_csv)
        .service(tables::tables_page)
        .service(tables::save_tables)
        .service(desk::desk_page)
        .service(desk::arrive)
        .service(desk::check_in)
        .service(requests::requests_page)
        .service(requests::approve)
        .service(requests::decline)
        .service(requests::resolve)
        .service(notices::notices_page)
        .service(notices::resend)
        .service(notices::resend_failed)
        .service(league::league_page)
        .service(seasons::archive_form)
        .service(seasons::archive)
        .service(seasons::unarchive_form)
        .service(seasons::unarchive)
        .service(seasons::delete_league_form)
        .service(seasons::delete_league)
        .service(seasons::clone_form)
        .service(seasons::clone_league)
        .service(seasons::delete_match)
        .service(league_form::edit_league_form)
        .service(league_form::edit_league)
        .service(divisions::add_division)
        .service(teams::add_team)
        .service(teams::edit_team)
        .service(teams::withdraw_team)
        .service(players::players_page)
        .service(players::add_player)
        .service(players::change_player)
        .service(players::set_active)
        .service(players::erase_player)
        .service(players::export_player)
        .service(players::decide_eligibility)
        .service(teams::assign_supervisor)
        .service(teams::unassign_supervisor)
        .service(schedule::generate_schedule)
        .service(schedule::add_match)
        .service(schedule_page::schedule_page)
        .service(schedule_edit::change_match)
        .service(schedule_edit::postpone_match)
        .service(schedule_edit::cancel_match)
        .service(schedule_edit::move_night)
        .service(schedule_edit::spread_supervisors)
        .service(import::import_form)
        .service(import::import)
        .service(import::roster_csv);
}

/// Where a form's error goes: which form on the page, which field, what to say.
#[derive(Debug, Clone, Default)]
struct Errors {
    form: String,
    field: String,
    message: String,
}

impl Errors {
    fn new(form: &str, field: &str, message: impl Into<String>) -> Errors {
        Errors {
            form: form.into(),
            field: field.into(),
            message: message.into(),
        }
    }

    /// The message when it belongs to `field` (or the form as a whole, for `""`) of `form`.
    fn at(&self, form: &str, field: &str) -> Option<&str> {
        (!self.message.is_empty() && self.form == form && self.field == field)
            .then_some(self.message.as_str())
    }

    fn bad(&self, form: &str, field: &str) -> bool {
        self.at(form, field).is_some()
    }

    fn is_empty(&self) -> bool {
        self.message.is_empty()
    }

    /// The error of a service call on `form`; `fields` are the fields the form shows (any
    /// other field's message is shown at the top of the form).
    fn of(form: &str, fields: &[&str], e: &ServiceError) -> Errors {
        let (field, message) = match e {
            ServiceError::Invalid(c) | ServiceError::ConflictOn(c) => (
                c.field.as_ref().map(Field::to_string).unwrap_or_default(),
                c.message.clone(),
            ),
            other => (String::new(), other.to_string()),
        };
        let field = if fields.contains(&field.as_str()) {
            field
        } else {
            String::new()
        };
        Errors::new(form, &field, message)
    }

    /// 200, or 422 when a form has an error.
    fn status(&self) -> StatusCode {
        if self.is_empty() {
            StatusCode::OK
        } else {
            StatusCode::UNPROCESSABLE_ENTITY
        }
    }
}

/// The form of a button: nothing but the CSRF token.
#[derive(serde::Deserialize)]
struct Empty {}

/// A service error that is the user's to fix (shown on the form) or not (an error page).
fn fixable(e: &ServiceError) -> bool {
    matches!(
        e,
        ServiceError::Invalid(_) | ServiceError::Conflict { .. } | ServiceError::ConflictOn(_)
    )
}

/// What the league's admin page says was just done (its `?done=`): each one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Done {
    Saved,
    Team,
    TeamEdit,
    Withdrawn,
    Reinstated,
    Assigned,
    Unassigned,
    Match,
    Import,
    Division,
    Archived,
    Unarchived,
    Cloned,
    Imported,
}

/// Back to the league's admin page after a change, saying what was done.
fn done(slug: &Slug, what: Done) -> HttpResponse {
    let query = serde_urlencoded::to_string([("done", what)]).unwrap_or_default();
    see_other(&format!("/admin/leagues/{slug}?{query}"))
}

/// A `?done=` as one of `T`'s values; a value it does not know is no banner, as it was
/// when the parameter was plain text (the page itself is what was asked for).
fn known_or_none<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    use serde::Deserialize;
    use serde::de::IntoDeserializer;
    let text = Option::<String>::deserialize(deserializer)?;
    Ok(text.and_then(|text| {
        T::deserialize(IntoDeserializer::<serde::de::value::Error>::into_deserializer(text)).ok()
    }))
}

#[cfg(test)]
mod done_tests {
    use super::Done;

    #[derive(Debug, serde::Deserialize)]
    struct Query {
        #[serde(default, deserialize_with = "super::known_or_none")]
        done: Option<Done>,
    }

    fn done(query: &str) -> Option<Done> {
        serde_urlencoded::from_str::<Query>(query).unwrap().done
    }

    #[test]
    fn a_known_done_reads_and_an_unknown_one_is_no_banner() {
        assert_eq!(done("done=team-edit"), Some(Done::TeamEdit));
        assert_eq!(done("done=saved"), Some(Done::Saved));
        assert_eq!(done("done=bogus"), None);
        assert_eq!(done("done="), None);
        assert_eq!(done(""), None);
    }

    #[test]
    fn the_redirect_writes_what_the_page_reads() {
        let query = serde_urlencoded::to_string([("done", Done::TeamEdit)]).unwrap();
        assert_eq!(query, "done=team-edit");
        assert_eq!(done(&query), Some(Done::TeamEdit));
    }
}
