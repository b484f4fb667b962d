//! How handlers answer: HTML, `no-store` for pages only a logged-in user sees, redirects
//! after a form post, and CSV downloads.

use actix_web::HttpResponse;
use actix_web::http::{StatusCode, header};

/// An HTML answer.
pub fn html(status: StatusCode, body: String) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .body(body)
}

/// `Cache-Control: no-store` for pages only a logged-in user sees.
pub fn no_store(mut response: HttpResponse) -> HttpResponse {
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-store"),
    );
    response
}

/// Where to go after a form post (303), never cached.
pub fn see_other(to: &str) -> HttpResponse {
    no_store(
        HttpResponse::SeeOther()
            .insert_header((header::LOCATION, to.to_string()))
            .finish(),
    )
}
