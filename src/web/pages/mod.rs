//! HTML pages, by audience: `public` (everyone), `console` (supervisors), `admin` (the
//! coordinator), `account` (anyone logged in), plus home, rules and the calculator.

pub mod account;
pub mod admin;
pub mod calculator;
pub mod campus;
pub mod captain;
pub mod console;
pub mod hand_form;
pub mod home;
pub mod public;
pub mod unsubscribe;

use actix_web::web;

/// The pages outside the page cache: home, rules, the calculator, and every page of a
/// logged-in user. The public league pages (`public::routes`) go in the cached scope.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.configure(home::routes)
        .configure(calculator::routes)
        .configure(account::routes)
        .configure(campus::routes)
        .configure(captain::routes)
        .configure(unsubscribe::routes)
        .configure(admin::routes)
        .configure(admin::playoffs::routes)
        .configure(console::routes);
}
