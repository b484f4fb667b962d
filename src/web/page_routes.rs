//! Every route outside `/api/` (the pages, the CSV and calendar exports, the assets,
//! `/healthz`) with its method, as its handler's attribute declares it: what a request that
//! no route took is told. A path of this list asked with a method it does not answer gets an
//! HTML 405 with `Allow` (`OPTIONS` too), any other path a 404. A unit test reads the
//! handlers' `#[get(…)]` / `#[post(…)]` attributes in `src/web/` and fails when this list
//! differs from them; the tests that fuzz every page's query string take their routes from it.

use actix_web::http::Method;

use crate::web::error::AppError;

/// Method and path template (`{name}` stands for one path segment) of every route outside
/// the API, in the order of the source files.
pub const ROUTES: &[(&str, &str)] = &[
    ("GET", "/healthz"),
    ("GET", "/static/{name}"),
    ("GET", "/static/{folder}/{module}"),
    // Home, rules, calculator, account.
    ("GET", "/"),
    ("GET", "/find"),
    ("GET", "/rules"),
    ("GET", "/rules/{preset}"),
    ("GET", "/calculator"),
    ("POST", "/calculator"),
    ("GET", "/login"),
    ("POST", "/login"),
    ("POST", "/logout"),
    ("GET", "/account"),
    ("POST", "/account/password"),
    ("POST", "/account/tokens"),
    ("POST", "/account/tokens/{id}/revoke"),
    // Campus sign-in (404 when it is not configured).
    ("GET", "/auth/oidc/login"),
    ("GET", "/auth/oidc/callback"),
    // Captains: the link by email, their teams and their lineups.
    ("GET", "/captain"),
    ("POST", "/captain/login"),
    ("GET", "/captain/auth/{token}"),
    ("POST", "/captain/lineup"),
    ("POST", "/captain/default"),
    ("POST", "/captain/reschedule"),
    ("POST", "/captain/dispute"),
    ("POST", "/captain/logout"),
    // The unsubscribe link of the notices by email (404 for an unknown token).
    ("GET", "/unsubscribe/{token}"),
    ("POST", "/unsubscribe/{token}"),
    ("POST", "/unsubscribe/{token}/resubscribe"),
    // The coordinator's pages.
    ("GET", "/admin"),
    ("GET", "/admin/users"),
    ("POST", "/admin/users"),
    ("POST", "/admin/users/{username}"),
    ("POST", "/admin/users/{username}/active"),
    ("GET", "/admin/users/{username}/reset-password"),
    ("POST", "/admin/users/{username}/reset-password"),
    ("GET", "/admin/backup"),
    ("POST", "/admin/backup"),
    ("GET", "/admin/audit"),
    ("GET", "/admin/audit.csv"),
    ("GET", "/admin/leagues/{slug}/tables"),
    ("POST", "/admin/leagues/{slug}/tables"),
    ("GET", "/admin/leagues/{slug}/desk"),
    ("POST", "/admin/leagues/{slug}/desk"),
    ("POST", "/admin/leagues/{slug}/desk/{team_id}/check-in"),
    ("GET", "/admin/requests"),
    ("POST", "/admin/requests/{id}/approve"),
    ("POST", "/admin/requests/{id}/decline"),
    ("POST", "/admin/disputes/{id}/resolve"),
    ("GET", "/admin/notices"),
    ("POST", "/admin/notices/{id}/resend"),
    ("POST", "/admin/notices/resend-failed"),
    ("GET", "/admin/leagues/new"),
    ("POST", "/admin/leagues/new"),
    ("GET", "/admin/leagues/import"),
    ("POST", "/admin/leagues/import"),
    ("GET", "/admin/leagues/{slug}"),
    ("GET", "/admin/leagues/{slug}/archive"),
    ("POST", "/admin/leagues/{slug}/archive"),
    ("GET", "/admin/leagues/{slug}/unarchive"),
    ("POST", "/admin/leagues/{slug}/unarchive"),
    ("GET", "/admin/leagues/{slug}/delete"),
    ("POST", "/admin/leagues/{slug}/delete"),
    ("GET", "/admin/leagues/{slug}/clone"),
    ("POST", "/admin/leagues/{slug}/clone"),
    ("GET", "/admin/leagues/{slug}/edit"),
    ("POST", "/admin/leagues/{slug}/edit"),
    ("GET", "/admin/leagues/{slug}/import"),
    ("POST", "/admin/leagues/{slug}/import"),
    ("GET", "/admin/leagues/{slug}/roster.csv"),
    ("POST", "/admin/leagues/{slug}/divisions"),
    ("POST", "/admin/leagues/{slug}/teams"),
    ("POST", "/admin/leagues/{slug}/teams/{id}"),
    ("POST", "/admin/leagues/{slug}/teams/{id}/withdraw"),
    ("GET", "/admin/leagues/{slug}/teams/{id}/players"),
    ("POST", "/admin/leagues/{slug}/teams/{id}/players"),
    (
        "POST",
        "/admin/leagues/{slug}/teams/{id}/players/{player_id}",
    ),
    (
        "POST",
        "/admin/leagues/{slug}/teams/{id}/players/{player_id}/active",
    ),
    (
        "POST",
        "/admin/leagues/{slug}/teams/{id}/players/{player_id}/erase",
    ),
    (
        "POST",
        "/admin/leagues/{slug}/teams/{id}/players/{player_id}/export",
    ),
    (
        "POST",
        "/admin/leagues/{slug}/teams/{id}/players/{player_id}/eligibility",
    ),
    ("POST", "/admin/leagues/{slug}/supervisors"),
    ("POST", "/admin/leagues/{slug}/supervisors/{user_id}/remove"),
    ("GET", "/admin/leagues/{slug}/schedule"),
    ("POST", "/admin/leagues/{slug}/schedule"),
    ("POST", "/admin/leagues/{slug}/matches"),
    ("POST", "/admin/leagues/{slug}/matches/{id}"),
    ("POST", "/admin/leagues/{slug}/matches/{id}/postpone"),
    ("POST", "/admin/leagues/{slug}/matches/{id}/cancel"),
    ("POST", "/admin/leagues/{slug}/matches/{id}/delete"),
    ("POST", "/admin/leagues/{slug}/nights/move"),
    ("POST", "/admin/leagues/{slug}/nights/supervisors"),
    ("GET", "/admin/leagues/{slug}/playoffs"),
    ("POST", "/admin/leagues/{slug}/playoffs"),
    ("POST", "/admin/leagues/{slug}/playoffs/schedule"),
    ("POST", "/admin/leagues/{slug}/eligibility/{team_id}"),
    // The supervisor's console.
    ("GET", "/supervise"),
    ("GET", "/supervise/sw.js"),
    ("GET", "/supervise/matches/{id}"),
    ("POST", "/supervise/matches/{id}/start"),
    ("POST", "/supervise/matches/{id}/hands"),
    ("GET", "/supervise/matches/{id}/hands/{number}/edit"),
    ("POST", "/supervise/matches/{id}/hands/{number}"),
    ("POST", "/supervise/matches/{id}/time"),
    ("POST", "/supervise/matches/{id}/call"),
    ("POST", "/supervise/leagues/{slug}/queue"),
    ("GET", "/supervise/matches/{id}/forfeit"),
    ("POST", "/supervise/matches/{id}/forfeit"),
    ("POST", "/supervise/matches/{id}/check-in"),
    ("POST", "/supervise/matches/{id}/sportsmanship"),
    ("POST", "/supervise/matches/{id}/lineup"),
    // What anyone may read.
    ("GET", "/scoreboard"),
    ("GET", "/leagues"),
    ("GET", "/leagues/{slug}"),
    ("GET", "/leagues/{slug}/rules"),
    ("GET", "/leagues/{slug}/standings"),
    ("GET", "/leagues/{slug}/standings.csv"),
    ("GET", "/leagues/{slug}/schedule"),
    ("GET", "/leagues/{slug}/schedule.csv"),
    ("GET", "/leagues/{slug}/calendar.ics"),
    ("GET", "/leagues/{slug}/teams"),
    ("GET", "/leagues/{slug}/teams/{id}"),
    ("GET", "/leagues/{slug}/teams/{id}/players/{player_id}"),
    ("GET", "/leagues/{slug}/bracket"),
    ("GET", "/leagues/{slug}/bracket/print"),
    ("GET", "/leagues/{slug}/bracket.csv"),
    ("GET", "/teams/{id}/calendar.ics"),
    ("GET", "/matches/{id}"),
    ("GET", "/matches/{id}/scoresheet.csv"),
];

/// Whether `path` is an instance of `template`: the same segments, where `{name}` stands for
/// any one non-empty segment.
pub(crate) fn path_matches(template: &str, path: &str) -> bool {
    let mut segments = path.split('/');
    template.split('/').all(|t| {
        segments.next().is_some_and(|segment| {
            if t.starts_with('{') && t.ends_with('}') {
                !segment.is_empty()
            } else {
                segment == t
            }
        })
    }) && segments.next().is_none()
}

/// The methods that answer `path` (`GET`, `HEAD` wherever `GET` is, then `POST`), or `None`
/// for a path outside [`ROUTES`].
pub fn allowed_methods(path: &str) -> Option<Vec<&'static str>> {
    let answers = |method: &str| {
        ROUTES
            .iter()
            .any(|(m, template)| *m == method && path_matches(template, path))
    };
    let mut allowed = Vec::new();
    if answers("GET") {
        allowed.extend(["GET", "HEAD"]);
    }
    if answers("POST") {
        allowed.push("POST");
    }
    (!allowed.is_empty()).then_some(allowed)
}

/// Why no route outside the API answered `method` on `path`: 405 (with the methods that do)
/// for a path of [`ROUTES`], else 404.
pub fn unrouted(method: &Method, path: &str) -> AppError {
    AppError::unrouted(method, allowed_methods(path))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use super::*;

    /// `(METHOD, path)` of every `#[get("…")]` / `#[post("…")]` (any method) attribute in
    /// the Rust files under `dir`.
    fn declared(dir: &Path, found: &mut BTreeSet<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                declared(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let source = std::fs::read_to_string(&path).unwrap();
                for line in source.lines().map(str::trim) {
                    for method in ["get", "post", "put", "patch", "delete", "head", "options"] {
                        let Some(rest) = line.strip_prefix(&format!("#[{method}(\"")) else {
                            continue;
                        };
                        let route = rest.split('"').next().unwrap();
                        found.insert((method.to_uppercase(), route.to_string()));
                    }
                }
            }
        }
    }

    #[test]
    fn the_list_is_every_route_outside_the_api() {
        let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/web");
        let mut found = BTreeSet::new();
        declared(&web, &mut found);
        found.retain(|(_, path)| !path.starts_with("/api/"));
        let listed: BTreeSet<(String, String)> = ROUTES
            .iter()
            .map(|(m, p)| (m.to_string(), p.to_string()))
            .collect();
        assert_eq!(ROUTES.len(), listed.len(), "a route listed twice");
        assert_eq!(
            listed.difference(&found).collect::<Vec<_>>(),
            Vec::<&(String, String)>::new(),
            "listed in ROUTES, but no handler declares it"
        );
        assert_eq!(
            found.difference(&listed).collect::<Vec<_>>(),
            Vec::<&(String, String)>::new(),
            "declared by a handler, missing from ROUTES"
        );
    }

    #[test]
    fn paths_and_their_methods() {
        assert_eq!(allowed_methods("/login"), Some(vec!["GET", "HEAD", "POST"]));
        assert_eq!(allowed_methods("/logout"), Some(vec!["POST"]));
        assert_eq!(
            allowed_methods("/leagues/fall/schedule"),
            Some(vec!["GET", "HEAD"])
        );
        // `new` is also a slug: the methods of both.
        assert_eq!(
            allowed_methods("/admin/leagues/new"),
            Some(vec!["GET", "HEAD", "POST"])
        );
        assert_eq!(allowed_methods("/leagues/fall/nothing"), None);
        assert_eq!(allowed_methods("/leagues//schedule"), None);
        assert_eq!(allowed_methods("/leagues/fall/schedule/"), None);
        assert!(matches!(
            unrouted(&Method::DELETE, "/leagues/fall"),
            AppError::MethodNotAllowed(m) if m == ["GET", "HEAD"]
        ));
        assert!(matches!(
            unrouted(&Method::OPTIONS, "/logout"),
            AppError::MethodNotAllowed(m) if m == ["POST"]
        ));
        assert!(matches!(
            unrouted(&Method::GET, "/nothing"),
            AppError::NotFound
        ));
    }
}
