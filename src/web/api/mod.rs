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

/// Writes, and the reads that are not cached (presets, the OpenAPI document).
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.configure(openapi::routes)
        .configure(leagues::routes)
        .configure(teams::routes)
        .configure(matches::routes)
        .configure(playoffs::routes);
}

/// What anyone may read about a league night; the page cache serves these to anonymous
/// visitors.
pub fn public_reads(cfg: &mut web::ServiceConfig) {
    cfg.configure(leagues::reads)
        .configure(teams::reads)
        .configure(matches::reads)
        .configure(standings::reads)
        .configure(playoffs::reads)
        .configure(scoreboard::reads);
}
