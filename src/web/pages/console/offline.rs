//! The console's offline support: the service worker script, served from `/supervise/` so
//! that it may control the console's pages (a worker's scope is its own path or below).
//!
//! `static/outbox/main.js` registers it with the scope `/supervise` (without the slash, so that
//! tonight's list at `/supervise` is kept too); `Service-Worker-Allowed` permits that one
//! scope just above the script's folder. The worker keeps the pages of the session that
//! saw them and the assets, network first (see the script's comments); what a supervisor
//! sends is kept by the outbox (`static/outbox/`) in the browser's storage, not by the worker.

use actix_web::{HttpResponse, get};

/// The service worker (`static/sw.js`), compiled into the binary like the other assets.
/// `no-cache`: the browser checks for a new version at every registration.
#[get("/supervise/sw.js")]
pub(super) async fn service_worker() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header(("Cache-Control", "no-cache"))
        .insert_header(("Service-Worker-Allowed", "/supervise"))
        .body(include_str!("../../../../static/sw.js"))
}
