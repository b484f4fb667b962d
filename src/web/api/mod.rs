//! The JSON API under `/api/v1` (docs/api.md): one module per resource; `openapi` is the
//! only module that knows them all.

pub mod leagues;
pub mod matches;
pub mod openapi;
pub mod playoffs;
pub mod scoreboard;
pub mod standings;
pub mod teams;

use actix_web::web;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.configure(openapi::routes)
        .configure(leagues::routes)
        .configure(teams::routes)
        .configure(matches::routes)
        .configure(standings::routes)
        .configure(playoffs::routes)
        .configure(scoreboard::routes);
}
