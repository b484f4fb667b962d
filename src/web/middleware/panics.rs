//! A panic while answering a request is one 500 and one short log line.
//!
//! No request should panic (errors are returned), but if a handler ever does, actix-web lets
//! the panic unwind through the connection's task: the client gets no answer at all, the
//! connection is dropped, and Rust's default hook prints the panic over several lines (and,
//! with `RUST_BACKTRACE=1`, a backtrace of a hundred more) — for every such request, so a
//! client repeating one can fill the disk. Instead:
//!
//! - [`catch_panic`], the outermost middleware, wraps every request: it catches the unwinding
//!   and answers 500 `internal` in the shape of the path (the JSON error body under `/api/`,
//!   the HTML error page elsewhere, with the security headers of every answer); the worker and
//!   the connection go on serving. (It answers through the error path: it cannot keep the
//!   request to build a response with, since actix needs the request unshared while it routes
//!   it, and the middlewares inside it never see the answer: neither does the access log.)
//! - [`log_panics_in_one_line`] (installed by `serve`) replaces the panic hook: every panic is
//!   one log line, without a backtrace, naming the request being answered (`GET /path`, never
//!   the query string) when the panic is inside one.

use std::cell::RefCell;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header::HeaderValue;
use actix_web::middleware::Next;
use actix_web::{HttpResponse, ResponseError};
use futures_util::FutureExt;

use super::SECURITY_HEADERS;
use crate::web::error::{AppError, PageError};

thread_local! {
    /// `GET /path` of the request this thread is running the handler of, if any: what the
    /// panic hook names.
    static ANSWERING: RefCell<Option<Rc<str>>> = const { RefCell::new(None) };
}

/// Answers the request, or 500 if answering it panicked (see the module's documentation).
pub async fn catch_panic(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let api = req.path().starts_with("/api/");
    let route: Rc<str> = format!("{} {}", req.method(), req.path()).into();
    let answer = Answering {
        route,
        inner: Box::pin(async move { next.call(req).await }),
    };
    match AssertUnwindSafe(answer).catch_unwind().await {
        Ok(answered) => answered,
        // The hook has logged it; the answer says only "internal error".
        Err(_) => Err(Panicked { api }.into()),
    }
}

/// The answer to a request that panicked: 500 `internal`, JSON under the API, else HTML.
#[derive(Debug, thiserror::Error)]
#[error("a request panicked")]
struct Panicked {
    api: bool,
}

impl ResponseError for Panicked {
    fn status_code(&self) -> StatusCode {
        StatusCode::INTERNAL_SERVER_ERROR
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = if self.api {
            AppError::Panicked.error_response()
        } else {
            PageError(AppError::Panicked).error_response()
        };
        for (name, value) in SECURITY_HEADERS {
            response
                .headers_mut()
                .insert(name, HeaderValue::from_static(value));
        }
        response
    }
}

/// A request's future, polled with [`ANSWERING`] naming it.
struct Answering<F> {
    route: Rc<str>,
    inner: Pin<Box<F>>,
}

impl<F: Future> Future for Answering<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let _named = Named::new(self.route.clone());
        self.inner.as_mut().poll(cx)
    }
}

/// Names a request in [`ANSWERING`] while it lives; puts back what was there when dropped
/// (after a poll, or while a panic unwinds: the hook has run by then).
struct Named(Option<Rc<str>>);

impl Named {
    fn new(route: Rc<str>) -> Named {
        Named(
            ANSWERING
                .try_with(|a| a.try_borrow_mut().ok().and_then(|mut a| a.replace(route)))
                .ok()
                .flatten(),
        )
    }
}

impl Drop for Named {
    fn drop(&mut self) {
        let previous = self.0.take();
        let _ = ANSWERING.try_with(|a| {
            if let Ok(mut a) = a.try_borrow_mut() {
                *a = previous;
            }
        });
    }
}

/// The longest panic message logged, in characters: enough to see what failed, never a page
/// of someone's input.
const MESSAGE_CHARS: usize = 300;

/// Makes every panic of the process one log line (`tracing`, level error) without a
/// backtrace, whatever `RUST_BACKTRACE` says: where it happened, its message (control
/// characters as spaces, cut at [`MESSAGE_CHARS`]) and the request being answered, if any.
pub fn log_panics_in_one_line() {
    std::panic::set_hook(Box::new(|info| {
        let message: String = info
            .payload_as_str()
            .unwrap_or("(no message)")
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .take(MESSAGE_CHARS)
            .collect();
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let route = ANSWERING
            .try_with(|a| a.try_borrow().ok().and_then(|a| a.clone()))
            .ok()
            .flatten();
        match route {
            Some(route) => tracing::error!(%at, "panic answering {route}: {message}"),
            None => tracing::error!(%at, "panic: {message}"),
        }
    }));
}
