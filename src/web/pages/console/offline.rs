//! The console's offline support: the service worker script, served from `/supervise/` so
//! that it may control the console's pages (a worker's scope is its own path or below).

use actix_web::{HttpResponse, get};

/// The service worker (`static/sw.js`), compiled into the binary like the other assets.
#[get("/supervise/sw.js")]
pub(super) async fn service_worker() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header(("Cache-Control", "no-cache"))
        .body(include_str!("../../../../static/sw.js"))
}
