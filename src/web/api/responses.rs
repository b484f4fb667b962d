//! The error responses that many operations share, for their `#[utoipa::path]` attributes
//! (`responses(..., BodyRefused, Unauthenticated, AdminOnly)`): each is written once, so that
//! every operation documents it the same way. Each body is the error shape of docs/api.md §3.1.
//! The types are never built: they only describe answers that the extractors give.

use utoipa::IntoResponses;

use crate::service::night::match_view::MatchView;
use crate::web::error::ErrorBody;

/// A JSON body refused before the handler runs (`ApiJson`).
#[derive(IntoResponses)]
pub enum BodyRefused {
    #[response(status = 400, description = "the body is not JSON (`malformed`)")]
    Malformed(ErrorBody),
    #[response(
        status = 413,
        description = "the body is larger than 256 KiB (`too_large`)"
    )]
    TooLarge(ErrorBody),
    #[response(
        status = 415,
        description = "the body is not sent as `Content-Type: application/json` (`unsupported_media_type`)"
    )]
    UnsupportedMediaType(ErrorBody),
}

/// The 404 of an operation on a league's address (`{slug}`) that names none.
#[derive(IntoResponses)]
#[response(status = 404, description = "no such league")]
pub struct NoSuchLeague(pub ErrorBody);

/// The 401 of an operation for signed-in callers.
#[derive(IntoResponses)]
#[response(status = 401, description = "no or bad credentials")]
pub struct Unauthenticated(pub ErrorBody);

/// The 403 of an operation for any signed-in caller (with [`Unauthenticated`]): a forged request.
#[derive(IntoResponses)]
#[response(
    status = 403,
    description = "a cross-site request, or a session cookie without the session's `X-CSRF-Token`"
)]
pub struct SignedInOnly(pub ErrorBody);

/// The 403 of an operation for supervisors and admins (with [`Unauthenticated`]).
#[derive(IntoResponses)]
#[response(
    status = 403,
    description = "not a supervisor, a cross-site request, or a session cookie without the session's `X-CSRF-Token`"
)]
pub struct SupervisorOnly(pub ErrorBody);

/// The 403 of an operation for admins (with [`Unauthenticated`]).
#[derive(IntoResponses)]
#[response(
    status = 403,
    description = "not an admin, a cross-site request, or a session cookie without the session's `X-CSRF-Token`"
)]
pub struct AdminOnly(pub ErrorBody);

/// A public read: it needs no credentials but refuses bad ones.
#[derive(IntoResponses)]
#[response(
    status = 401,
    description = "an `Authorization: Bearer` header that is malformed, or a token unknown or revoked (`unauthorized`); the read needs none"
)]
pub struct BadReadCredentials(pub ErrorBody);

/// The 404 of an operation on a match (`{id}`) for supervisors and admins.
#[derive(IntoResponses)]
#[response(
    status = 404,
    description = "no such match, or not one of the leagues you supervise"
)]
pub struct NoSuchMatch(pub ErrorBody);

/// The 200 of a write to a match that takes an `idempotency_key`: the match after the write.
#[derive(IntoResponses)]
#[response(
    status = 200,
    description = "the match after the write; a repeated `idempotency_key` answers the first answer again",
    headers(("Idempotent-Replay" = String, description = "`true` when the answer is a replay"))
)]
pub struct MatchWritten(pub MatchView);
