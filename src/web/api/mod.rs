//! The JSON API under `/api/v1` (docs/api.md): one module per resource; `openapi` is the
//! only module that knows them all.

pub mod leagues;
pub mod openapi;
pub mod playoffs;
pub mod scoreboard;

use actix_web::web;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.configure(openapi::routes)
        .configure(leagues::routes)
        .configure(playoffs::routes)
        .configure(scoreboard::routes);
}
