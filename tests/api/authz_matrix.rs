//! Who may call what, route by route: every route of the service (the JSON API as its OpenAPI
//! document lists it, the pages as the code declares them) asked by every kind of caller —
//! nobody, a revoked token, a supervisor of another league (by token and by cookie), the
//! league's supervisor, the coordinator — with the answer docs/api.md §2 and §12 (and the
//! table of pages in docs/features.md) promise, and nothing written by any refusal.
//!
//! The routes come from the code: every `#[get("…")]`, `#[post("…")]`… attribute under
//! `src/web` (the only way the service declares a route) is read when the test runs, and the
//! test fails if one is missing from [`ROUTES`] below or listed there without existing, and if
//! the API's routes and its OpenAPI document differ. A new route cannot go unjudged.
//!
//! Every request carries an empty body (`{}`, or a form holding only the session's CSRF
//! token): a refusal comes before the body is read (§1.1), so a refused caller gets the
//! refusal whatever it sends. An allowed caller gets through to the body or the match's state
//! (a 2xx or 3xx, or a 400, 409 or 422 about what was sent), which is what is checked for
//! them here: not a 401, 403, 404 or a trip to the login form. That each write works with a
//! real body is the business of each feature's own tests.

use std::collections::BTreeSet;
use std::path::Path;

use reqwest::Method;
use serde_json::{Value, json};
use spades_im::service::{Role, people::accounts};

use crate::helpers::{
    Browser, PASSWORD, TestApp, hand_of, json_with_status, on_postgres, spawn_app,
};

/// Who may call a route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// Anyone, logged in or not.
    Public,
    /// Anyone logged in (pages only: the account, tonight's matches).
    LoggedIn,
    /// The coordinator, and the supervisors of the match's league.
    League,
    /// The coordinator only.
    Admin,
    /// Campus sign-in's two ends: anyone's when it is configured, a 404 for everyone when
    /// it is not, as on this matrix's server (tests/api/oidc.rs signs in through them).
    CampusOnly,
    /// The unsubscribe link of a notice: its token is the key; a token no notice gave (as
    /// `{token}` here) is a 404 for everyone (tests/api/notices.rs uses real ones).
    TokenOnly,
    /// A captain's session only (tests/api/captains.rs signs one in): the API refuses every
    /// other caller with 401, a page sends them to `/captain`.
    Captain,
    /// A captain's sign-in link: a token no link gave (as `{token}` here) is a 400 page.
    CaptainLink,
}

use Access::{Admin, CampusOnly, Captain, CaptainLink, League, LoggedIn, Public, TokenOnly};

/// Every route, as the code declares it, and who may call it.
pub(crate) const ROUTES: &[(&str, &str, Access)] = &[
    // Health and assets.
    ("GET", "/healthz", Public),
    ("GET", "/static/{name}", Public),
    ("GET", "/static/{folder}/{module}", Public),
    // The JSON API (docs/api.md §12).
    ("POST", "/api/v1/score", Public),
    ("GET", "/api/v1/presets", Public),
    ("GET", "/api/v1/openapi.json", Public),
    ("POST", "/api/v1/leagues", Admin),
    ("GET", "/api/v1/leagues", Public),
    ("GET", "/api/v1/leagues/{slug}", Public),
    ("PATCH", "/api/v1/leagues/{slug}", Admin),
    ("POST", "/api/v1/leagues/{slug}/teams", Admin),
    ("GET", "/api/v1/leagues/{slug}/teams", Public),
    ("PATCH", "/api/v1/teams/{id}", Admin),
    ("POST", "/api/v1/leagues/{slug}/divisions", Admin),
    ("GET", "/api/v1/leagues/{slug}/divisions", Public),
    ("POST", "/api/v1/leagues/{slug}/roster", Admin),
    ("POST", "/api/v1/leagues/{slug}/supervisors", Admin),
    ("POST", "/api/v1/leagues/{slug}/archive", Admin),
    ("POST", "/api/v1/leagues/{slug}/unarchive", Admin),
    ("POST", "/api/v1/leagues/{slug}/clone", Admin),
    ("GET", "/api/v1/leagues/{slug}/export", Admin),
    ("POST", "/api/v1/leagues/import", Admin),
    ("POST", "/api/v1/leagues/{slug}/schedule", Admin),
    ("GET", "/api/v1/leagues/{slug}/schedule/warnings", League),
    ("PUT", "/api/v1/leagues/{slug}/tables", Admin),
    ("GET", "/api/v1/leagues/{slug}/queue", Public),
    ("POST", "/api/v1/leagues/{slug}/queue", League),
    ("POST", "/api/v1/matches/{id}/call", League),
    ("POST", "/api/v1/leagues/{slug}/matches", Admin),
    ("GET", "/api/v1/leagues/{slug}/matches", Public),
    ("GET", "/api/v1/leagues/{slug}/standings", Public),
    ("GET", "/api/v1/leagues/{slug}/eligibility", Public),
    (
        "POST",
        "/api/v1/leagues/{slug}/eligibility/{team_id}",
        Admin,
    ),
    ("POST", "/api/v1/leagues/{slug}/nights/move", Admin),
    ("POST", "/api/v1/leagues/{slug}/bracket/schedule", Admin),
    ("POST", "/api/v1/leagues/{slug}/playoffs", Admin),
    ("GET", "/api/v1/leagues/{slug}/bracket", Public),
    ("GET", "/api/v1/matches/{id}", Public),
    ("PATCH", "/api/v1/matches/{id}", Admin),
    ("DELETE", "/api/v1/leagues/{slug}", Admin),
    ("DELETE", "/api/v1/matches/{id}", Admin),
    ("POST", "/api/v1/matches/{id}/start", League),
    ("POST", "/api/v1/matches/{id}/hands", League),
    ("PUT", "/api/v1/matches/{id}/hands/{number}", League),
    ("POST", "/api/v1/matches/{id}/time", League),
    ("POST", "/api/v1/matches/{id}/forfeit", League),
    ("POST", "/api/v1/matches/{id}/check-in", League),
    ("POST", "/api/v1/matches/{id}/lineup", League),
    ("GET", "/api/v1/captain", Captain),
    ("POST", "/api/v1/matches/{id}/default", Admin),
    ("POST", "/api/v1/matches/{id}/reschedule-requests", Captain),
    ("GET", "/api/v1/reschedule-requests", Admin),
    ("POST", "/api/v1/reschedule-requests/{id}/approve", Admin),
    ("POST", "/api/v1/reschedule-requests/{id}/decline", Admin),
    ("POST", "/api/v1/matches/{id}/disputes", Captain),
    ("GET", "/api/v1/disputes", Admin),
    ("POST", "/api/v1/disputes/{id}/resolve", Admin),
    ("POST", "/api/v1/matches/{id}/sportsmanship", League),
    ("POST", "/api/v1/matches/{id}/postpone", Admin),
    ("POST", "/api/v1/matches/{id}/cancel", Admin),
    ("GET", "/api/v1/scoreboard", Public),
    ("GET", "/api/v1/users", Admin),
    ("POST", "/api/v1/users", Admin),
    ("PATCH", "/api/v1/users/{username}", Admin),
    ("POST", "/api/v1/users/{username}/reset-password", Admin),
    ("GET", "/api/v1/teams/{id}/roster", Admin),
    ("POST", "/api/v1/teams/{id}/players", Admin),
    ("PATCH", "/api/v1/players/{id}", Admin),
    ("POST", "/api/v1/players/{id}/erase", Admin),
    ("POST", "/api/v1/players/{id}/eligibility-override", Admin),
    ("GET", "/api/v1/teams/{id}/stats", Public),
    ("POST", "/api/v1/people/export", Admin),
    ("GET", "/api/v1/audit", Admin),
    ("GET", "/api/v1/notices", Admin),
    // Public pages, exports and feeds (docs/features.md, "Pages"; docs/api.md §10).
    ("GET", "/", Public),
    ("GET", "/find", Public),
    ("GET", "/rules", Public),
    ("GET", "/rules/{preset}", Public),
    ("GET", "/calculator", Public),
    ("POST", "/calculator", Public),
    ("GET", "/login", Public),
    ("POST", "/login", Public),
    ("GET", "/auth/oidc/login", CampusOnly),
    ("GET", "/auth/oidc/callback", CampusOnly),
    ("GET", "/captain", Public),
    ("POST", "/captain/login", Public),
    ("GET", "/captain/auth/{token}", CaptainLink),
    ("POST", "/captain/lineup", Captain),
    ("POST", "/captain/default", Captain),
    ("POST", "/captain/reschedule", Captain),
    ("POST", "/captain/dispute", Captain),
    ("POST", "/captain/logout", Public),
    ("GET", "/unsubscribe/{token}", TokenOnly),
    ("POST", "/unsubscribe/{token}", TokenOnly),
    ("POST", "/unsubscribe/{token}/resubscribe", TokenOnly),
    ("GET", "/leagues", Public),
    ("GET", "/leagues/{slug}", Public),
    ("GET", "/leagues/{slug}/rules", Public),
    ("GET", "/leagues/{slug}/schedule", Public),
    ("GET", "/leagues/{slug}/schedule.csv", Public),
    ("GET", "/leagues/{slug}/standings", Public),
    ("GET", "/leagues/{slug}/standings.csv", Public),
    ("GET", "/leagues/{slug}/teams", Public),
    ("GET", "/leagues/{slug}/teams/{id}", Public),
    (
        "GET",
        "/leagues/{slug}/teams/{id}/players/{player_id}",
        Public,
    ),
    ("GET", "/leagues/{slug}/bracket", Public),
    ("GET", "/leagues/{slug}/bracket.csv", Public),
    ("GET", "/leagues/{slug}/bracket/print", Public),
    ("GET", "/leagues/{slug}/calendar.ics", Public),
    ("GET", "/teams/{id}/calendar.ics", Public),
    ("GET", "/matches/{id}", Public),
    ("GET", "/matches/{id}/scoresheet.csv", Public),
    ("GET", "/scoreboard", Public),
    // The console (supervisors).
    ("GET", "/supervise", LoggedIn),
    ("GET", "/supervise/sw.js", Public),
    ("GET", "/supervise/matches/{id}", League),
    ("POST", "/supervise/matches/{id}/start", League),
    ("POST", "/supervise/matches/{id}/hands", League),
    ("GET", "/supervise/matches/{id}/hands/{number}/edit", League),
    ("POST", "/supervise/matches/{id}/hands/{number}", League),
    ("POST", "/supervise/matches/{id}/time", League),
    ("POST", "/supervise/matches/{id}/call", League),
    ("POST", "/supervise/leagues/{slug}/queue", League),
    ("GET", "/supervise/matches/{id}/forfeit", League),
    ("POST", "/supervise/matches/{id}/forfeit", League),
    ("POST", "/supervise/matches/{id}/check-in", League),
    ("POST", "/supervise/matches/{id}/sportsmanship", League),
    ("POST", "/supervise/matches/{id}/lineup", League),
    // The coordinator's pages.
    ("GET", "/admin", Admin),
    ("GET", "/admin/users", Admin),
    ("GET", "/admin/audit", Admin),
    ("GET", "/admin/audit.csv", Admin),
    ("GET", "/admin/leagues/{slug}/tables", Admin),
    ("POST", "/admin/leagues/{slug}/tables", Admin),
    ("GET", "/admin/leagues/{slug}/desk", Admin),
    ("POST", "/admin/leagues/{slug}/desk", Admin),
    (
        "POST",
        "/admin/leagues/{slug}/desk/{team_id}/check-in",
        Admin,
    ),
    ("GET", "/admin/requests", Admin),
    ("POST", "/admin/requests/{id}/approve", Admin),
    ("POST", "/admin/requests/{id}/decline", Admin),
    ("POST", "/admin/disputes/{id}/resolve", Admin),
    ("GET", "/admin/notices", Admin),
    ("POST", "/admin/notices/{id}/resend", Admin),
    ("POST", "/admin/notices/resend-failed", Admin),
    ("POST", "/admin/users", Admin),
    ("POST", "/admin/users/{username}", Admin),
    ("POST", "/admin/users/{username}/active", Admin),
    ("GET", "/admin/users/{username}/reset-password", Admin),
    ("POST", "/admin/users/{username}/reset-password", Admin),
    ("GET", "/admin/backup", Admin),
    ("POST", "/admin/backup", Admin),
    ("GET", "/admin/leagues/new", Admin),
    ("POST", "/admin/leagues/new", Admin),
    ("GET", "/admin/leagues/import", Admin),
    ("POST", "/admin/leagues/import", Admin),
    ("GET", "/admin/leagues/{slug}", Admin),
    ("GET", "/admin/leagues/{slug}/archive", Admin),
    ("POST", "/admin/leagues/{slug}/archive", Admin),
    ("GET", "/admin/leagues/{slug}/unarchive", Admin),
    ("POST", "/admin/leagues/{slug}/unarchive", Admin),
    ("GET", "/admin/leagues/{slug}/delete", Admin),
    ("POST", "/admin/leagues/{slug}/delete", Admin),
    ("GET", "/admin/leagues/{slug}/clone", Admin),
    ("POST", "/admin/leagues/{slug}/clone", Admin),
    ("GET", "/admin/leagues/{slug}/edit", Admin),
    ("POST", "/admin/leagues/{slug}/edit", Admin),
    ("GET", "/admin/leagues/{slug}/import", Admin),
    ("POST", "/admin/leagues/{slug}/import", Admin),
    ("GET", "/admin/leagues/{slug}/roster.csv", Admin),
    ("POST", "/admin/leagues/{slug}/divisions", Admin),
    ("POST", "/admin/leagues/{slug}/teams", Admin),
    ("POST", "/admin/leagues/{slug}/teams/{id}", Admin),
    ("POST", "/admin/leagues/{slug}/teams/{id}/withdraw", Admin),
    ("GET", "/admin/leagues/{slug}/teams/{id}/players", Admin),
    ("POST", "/admin/leagues/{slug}/teams/{id}/players", Admin),
    (
        "POST",
        "/admin/leagues/{slug}/teams/{id}/players/{player_id}",
        Admin,
    ),
    (
        "POST",
        "/admin/leagues/{slug}/teams/{id}/players/{player_id}/active",
        Admin,
    ),
    (
        "POST",
        "/admin/leagues/{slug}/teams/{id}/players/{player_id}/erase",
        Admin,
    ),
    (
        "POST",
        "/admin/leagues/{slug}/teams/{id}/players/{player_id}/export",
        Admin,
    ),
    (
        "POST",
        "/admin/leagues/{slug}/teams/{id}/players/{player_id}/eligibility",
        Admin,
    ),
    ("POST", "/admin/leagues/{slug}/supervisors", Admin),
    (
        "POST",
        "/admin/leagues/{slug}/supervisors/{user_id}/remove",
        Admin,
    ),
    ("GET", "/admin/leagues/{slug}/schedule", Admin),
    ("POST", "/admin/leagues/{slug}/schedule", Admin),
    ("POST", "/admin/leagues/{slug}/matches", Admin),
    ("POST", "/admin/leagues/{slug}/matches/{id}", Admin),
    ("POST", "/admin/leagues/{slug}/matches/{id}/postpone", Admin),
    ("POST", "/admin/leagues/{slug}/matches/{id}/cancel", Admin),
    ("POST", "/admin/leagues/{slug}/matches/{id}/delete", Admin),
    ("POST", "/admin/leagues/{slug}/nights/move", Admin),
    ("POST", "/admin/leagues/{slug}/nights/supervisors", Admin),
    ("GET", "/admin/leagues/{slug}/playoffs", Admin),
    ("POST", "/admin/leagues/{slug}/playoffs", Admin),
    ("POST", "/admin/leagues/{slug}/playoffs/schedule", Admin),
    ("POST", "/admin/leagues/{slug}/eligibility/{team_id}", Admin),
    // The account (a browser session).
    ("GET", "/account", LoggedIn),
    ("POST", "/account/password", LoggedIn),
    ("POST", "/account/tokens", LoggedIn),
    ("POST", "/account/tokens/{id}/revoke", LoggedIn),
    // Last: it ends the callers' sessions. Anyone may log out (it clears the browser).
    ("POST", "/logout", Public),
];

/// Routes that do not exist on PostgreSQL for anyone: the download of the SQLite file
/// (a PostgreSQL database is backed up on its server; docs/commands.md, "Backup and restore").
const SQLITE_ONLY: &[(&str, &str)] = &[("POST", "/admin/backup")];

/// Who asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Caller {
    Anonymous,
    /// A token of the league's supervisor, revoked.
    RevokedToken,
    /// A supervisor of another league, by API token (on a page: a bearer token, no session).
    OtherToken,
    /// The same supervisor, by browser session (with its CSRF token).
    OtherCookie,
    /// The league's supervisor: a token for the API, the session for pages.
    LeagueSupervisor,
    /// The coordinator: a token for the API, the session for pages.
    Coordinator,
}

const CALLERS: [Caller; 6] = [
    Caller::Anonymous,
    Caller::RevokedToken,
    Caller::OtherToken,
    Caller::OtherCookie,
    Caller::LeagueSupervisor,
    Caller::Coordinator,
];

/// The answer a caller must get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Want {
    /// Through to the body or the state (see the module's doc).
    Allowed,
    /// Refused with this status.
    Refused(u16),
    /// A page sends an anonymous browser to the login form (303).
    ToLogin,
    /// A captain's page sends anyone else to `/captain` (303).
    ToCaptain,
}

/// What `caller` must get from a route of `access` (docs/api.md §2.1–§2.4, §3.2).
fn want(api: bool, access: Access, caller: Caller) -> Want {
    use Caller::*;
    use Want::*;
    match (api, access, caller) {
        (_, CampusOnly | TokenOnly, _) => Refused(404),
        (_, CaptainLink, _) => Refused(400),
        (true, Captain, _) => Refused(401),
        (false, Captain, _) => ToCaptain,
        (_, _, Coordinator) => Allowed,
        // The API: an Authorization header must be a valid token, on every route.
        (true, _, RevokedToken) => Refused(401),
        (true, Public, _) => Allowed,
        (true, _, Anonymous) => Refused(401),
        // Pages read no Authorization header: a token is nobody there, a public page is
        // anyone's, and a page that needs a login refuses a token with 401.
        (false, Public, _) => Allowed,
        (false, _, Anonymous) => ToLogin,
        (false, _, RevokedToken | OtherToken) => Refused(401),
        // Logged in: a supervisor of another league does not see the league's matches (404),
        // a supervisor may not do the coordinator's work (403).
        (_, LoggedIn, _) => Allowed,
        (_, League, LeagueSupervisor) => Allowed,
        (_, League, OtherToken | OtherCookie) => Refused(404),
        (_, Admin, _) => Refused(403),
    }
}

/// The credentials of every caller.
struct Callers {
    revoked: String,
    other_token: String,
    other: Browser,
    sue_token: String,
    sue: Browser,
    coord_token: String,
    coord: Browser,
}

/// The real ids a path is filled with.
struct Ids {
    team: i64,
    /// A player of `team`.
    player: i64,
    /// A started match with one hand.
    m: i64,
    /// A supervisor of the league whom the coordinator may take off it.
    spare_user: i64,
    /// A token of each logged-in caller's own, for its revoke button.
    tokens: [(Caller, i64); 3],
}

/// `path` with its parameters filled for `caller`.
fn fill(path: &str, caller: Caller, ids: &Ids) -> String {
    let token = ids
        .tokens
        .iter()
        .find(|(c, _)| *c == caller)
        .map_or(ids.tokens[0].1, |(_, id)| *id);
    let id = if path.starts_with("/account/tokens/") {
        token
    } else if path.contains("/teams/{id}") {
        ids.team
    } else if path.starts_with("/api/v1/players/") {
        ids.player
    } else {
        ids.m
    };
    path.replace("{slug}", "fall")
        .replace("{id}", &id.to_string())
        .replace("{team_id}", &ids.team.to_string())
        .replace("{player_id}", &ids.player.to_string())
        .replace("{number}", "1")
        .replace("{user_id}", &ids.spare_user.to_string())
        .replace("{username}", "spare")
        .replace("{preset}", "classic")
        .replace("{name}", "style.css")
        .replace("{folder}", "console")
        .replace("{module}", "preview.js")
        .replace("{token}", "0123456789abcdef0123456789abcdef")
}

/// Sends `method path` as `caller`, with an empty body.
async fn ask(
    app: &TestApp,
    callers: &Callers,
    ids: &Ids,
    method: &str,
    path: &str,
    caller: Caller,
) -> reqwest::Response {
    let api = path.starts_with("/api/");
    let method = Method::from_bytes(method.as_bytes()).unwrap();
    let url = app.url(&fill(path, caller, ids));
    let (browser, token) = match (api, caller) {
        (_, Caller::Anonymous) => (None, None),
        (_, Caller::RevokedToken) => (None, Some(&callers.revoked)),
        (_, Caller::OtherToken) => (None, Some(&callers.other_token)),
        (_, Caller::OtherCookie) => (Some(&callers.other), None),
        (true, Caller::LeagueSupervisor) => (None, Some(&callers.sue_token)),
        (true, Caller::Coordinator) => (None, Some(&callers.coord_token)),
        (false, Caller::LeagueSupervisor) => (Some(&callers.sue), None),
        (false, Caller::Coordinator) => (Some(&callers.coord), None),
    };
    // A login answers with a new session cookie: sent from a browser's cookie store, it
    // would make every later request of that caller the user who logged in.
    let logs_in = path == "/login" && method == Method::POST;
    let client = match browser {
        Some(b) if !logs_in => &b.client,
        _ => &app.client,
    };
    let csrf = browser.map_or("", |b| b.csrf.as_str());
    let mut request = client.request(method.clone(), url);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if method != Method::GET {
        request = if api {
            request.header("X-CSRF-Token", csrf).json(&json!({}))
        } else if path == "/login" {
            request.form(&[("username", "walker"), ("password", PASSWORD)])
        } else {
            request.form(&[("csrf", csrf)])
        };
    }
    request.send().await.expect("request")
}

/// Whether an answer is the refusal or the pass `want` says.
fn judged(want: Want, method: &str, status: u16, location: &str) -> bool {
    let to_login = status == 303 && location.starts_with("/login");
    match want {
        Want::Refused(expected) => status == expected,
        Want::ToLogin => to_login,
        Want::ToCaptain => status == 303 && location == "/captain",
        Want::Allowed => {
            let refused = matches!(status, 401 | 403 | 404) || to_login || status >= 500;
            // Refusals of the body, once the caller's rights passed (a roster that is not
            // CSV is a 415).
            let merits = method != "GET" && matches!(status, 400 | 409 | 415 | 422);
            !refused && (status < 400 || merits)
        }
    }
}

/// Every route declared in the code: `#[get("…")]`, `#[post("…")]`… under `src/web`.
fn routes_in_code() -> BTreeSet<(String, String)> {
    fn walk(dir: &Path, out: &mut BTreeSet<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for line in text.lines() {
                    for method in ["get", "post", "put", "patch", "delete"] {
                        let open = format!("#[{method}(\"");
                        if let Some(rest) = line.trim().strip_prefix(open.as_str()) {
                            let route = rest.split('"').next().unwrap();
                            out.insert((method.to_uppercase(), route.to_string()));
                        }
                    }
                }
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src/web"),
        &mut out,
    );
    out
}

/// Every operation of the OpenAPI document.
async fn routes_in_openapi(app: &TestApp) -> BTreeSet<(String, String)> {
    let doc = json_with_status(app.get("/api/v1/openapi.json").await, 200, "openapi").await;
    let mut out = BTreeSet::new();
    for (path, operations) in doc["paths"].as_object().unwrap() {
        for method in operations.as_object().unwrap().keys() {
            if ["get", "post", "put", "patch", "delete"].contains(&method.as_str()) {
                out.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    out
}

/// The id of user `name` (through a token of theirs).
async fn user_id(app: &TestApp, name: &str) -> i64 {
    let token = app.token(name).await;
    let user = accounts::token_holder(&app.db, &token)
        .await
        .unwrap()
        .map(|h| h.user)
        .unwrap();
    user.id.0
}

/// The id of the newest token of `name`'s that is not revoked.
async fn own_token(app: &TestApp, name: &str) -> i64 {
    let token = app.token(name).await;
    let user = accounts::token_holder(&app.db, &token)
        .await
        .unwrap()
        .map(|h| h.user)
        .unwrap();
    let tokens = accounts::tokens(&app.db, &user).await.unwrap();
    tokens.iter().find(|t| !t.revoked).unwrap().id.0
}

/// League `fall` (4 teams, a round robin, a bracket, supervisors `sue` and `spare`), league
/// `other` (supervisor `olga`), the coordinator `coord`, and a started match with one hand.
async fn seeded() -> (TestApp, Callers, Ids) {
    let app = spawn_app().await;
    let coord_api = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&coord_api, "fall", json!("classic"), 4).await;
    app.league(&coord_api, "other", json!("classic"), 2).await;
    for (name, league) in [("sue", "fall"), ("spare", "fall"), ("olga", "other")] {
        app.user(name, Role::Supervisor).await;
        let r = coord_api
            .post(
                &format!("/api/v1/leagues/{league}/supervisors"),
                &json!({ "username": name }),
            )
            .await;
        assert_eq!(r.status(), 204, "assign {name}");
    }
    app.user("walker", Role::Supervisor).await;
    let r = coord_api
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin"}),
        )
        .await;
    let schedule = json_with_status(r, 201, "schedule").await;
    let m = schedule["matches"][0]["id"].as_i64().unwrap();
    let r = coord_api
        .post(
            "/api/v1/leagues/fall/playoffs",
            &json!({"format": "single_elimination", "force": true}),
        )
        .await;
    json_with_status(r, 201, "playoffs").await;
    coord_api
        .play_hands(m, &[hand_of([3, 3], [3, 3], [3, 4], [3, 4])])
        .await;
    let r = coord_api
        .get(&format!("/api/v1/teams/{}/roster", teams[0]))
        .await;
    let roster = json_with_status(r, 200, "roster").await;
    let ids = Ids {
        team: teams[0],
        player: roster["players"][0]["id"].as_i64().unwrap(),
        m,
        spare_user: user_id(&app, "spare").await,
        tokens: [
            (Caller::OtherCookie, own_token(&app, "olga").await),
            (Caller::LeagueSupervisor, own_token(&app, "sue").await),
            (Caller::Coordinator, own_token(&app, "coord").await),
        ],
    };
    let callers = Callers {
        revoked: app.revoked_token("sue").await,
        other_token: app.token("olga").await,
        other: app.browser("olga").await,
        sue_token: app.token("sue").await,
        sue: app.browser("sue").await,
        coord_token: coord_api.token.clone(),
        coord: app.browser("coord").await,
    };
    (app, callers, ids)
}

/// Every route × every caller: the answer §2 promises, and every refusal writes nothing.
#[actix_web::test]
async fn every_route_answers_each_caller_as_documented() {
    let (app, callers, ids) = seeded().await;

    // The table is the code's routes, no more, no less; the API's are its OpenAPI document's.
    let listed: BTreeSet<(String, String)> = ROUTES
        .iter()
        .map(|(m, p, _)| (m.to_string(), p.to_string()))
        .collect();
    assert_eq!(listed.len(), ROUTES.len(), "a route listed twice");
    let in_code = routes_in_code();
    let unjudged: Vec<_> = in_code.difference(&listed).collect();
    let gone: Vec<_> = listed.difference(&in_code).collect();
    assert!(
        unjudged.is_empty() && gone.is_empty(),
        "routes in the code but not in ROUTES: {unjudged:?}; in ROUTES but not in the code: {gone:?}"
    );
    let api_in_code: BTreeSet<_> = in_code
        .iter()
        .filter(|(_, p)| p.starts_with("/api/"))
        .cloned()
        .collect();
    let documented = routes_in_openapi(&app).await;
    assert_eq!(
        api_in_code, documented,
        "the API's routes and its OpenAPI document differ"
    );

    let mut wrong = Vec::new();
    let mut refusals = 0;
    for &(method, path, access) in ROUTES {
        let api = path.starts_with("/api/");
        for caller in CALLERS {
            let mut want = want(api, access, caller);
            if want == Want::Allowed && on_postgres() && SQLITE_ONLY.contains(&(method, path)) {
                want = Want::Refused(404);
            }
            let before = match want {
                Want::Allowed => None,
                _ => Some(app.tables().await),
            };
            let r = ask(&app, &callers, &ids, method, path, caller).await;
            let status = r.status().as_u16();
            let location = r
                .headers()
                .get("location")
                .map(|v| v.to_str().unwrap().to_string())
                .unwrap_or_default();
            let body = r.text().await.unwrap_or_default();
            if !judged(want, method, status, &location) {
                let snippet: String = body.chars().take(200).collect();
                wrong.push(format!(
                    "{method} {path} as {caller:?}: want {want:?}, got {status} {location} {snippet:?}"
                ));
            }
            if let Some(before) = before {
                refusals += 1;
                before.assert_same(
                    &app.tables().await,
                    format!("{method} {path} as {caller:?}"),
                );
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} answers not as documented:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(refusals > 200, "only {refusals} refusals tried");
}

/// A supervisor taken off a league loses its writes at once, through the session cookie (the
/// console, and the API with the session's CSRF token) and through a token alike: nothing
/// remembers the supervisor's leagues between requests. Each refused write writes nothing.
#[actix_web::test]
async fn access_removed_mid_session_is_refused_at_once() {
    let app = spawn_app().await;
    let coord_api = app.api_user("coord", Role::Admin).await;
    app.league(&coord_api, "fall", json!("classic"), 4).await;
    app.user("sue", Role::Supervisor).await;
    let r = coord_api
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "sue"}),
        )
        .await;
    assert_eq!(r.status(), 204);
    let r = coord_api
        .post(
            "/api/v1/leagues/fall/schedule",
            &json!({"format": "round_robin"}),
        )
        .await;
    let schedule = json_with_status(r, 201, "schedule").await;
    let ids: Vec<i64> = schedule["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    let (playing, waiting) = (ids[0], ids[1]);
    coord_api.start_match(playing).await;
    let sue_api = app.api(&app.token("sue").await);
    let sue = app.browser("sue").await;
    let coord = app.browser("coord").await;
    let hand = hand_of([3, 3], [3, 3], [3, 4], [3, 4]);
    let hand_form = |version: &str, key: &str| -> Vec<(String, String)> {
        let mut fields = vec![
            ("expected_version".to_string(), version.to_string()),
            ("idempotency_key".to_string(), key.to_string()),
        ];
        for (name, value) in [
            ("a_bid0", "3"),
            ("a_tricks0", "3"),
            ("b_bid0", "3"),
            ("b_tricks0", "3"),
            ("a_bid1", "3"),
            ("a_tricks1", "3"),
            ("b_bid1", "4"),
            ("b_tricks1", "4"),
        ] {
            fields.push((name.to_string(), value.to_string()));
        }
        fields
    };
    let version = |app: &TestApp| {
        let url = app.url(&format!("/api/v1/matches/{playing}"));
        let client = app.client.clone();
        async move {
            let m: Value = client.get(url).send().await.unwrap().json().await.unwrap();
            m["version"].as_i64().unwrap()
        }
    };
    let post_form = |browser: &Browser, path: String, fields: Vec<(String, String)>| {
        let mut all = fields;
        all.push(("csrf".to_string(), browser.csrf.clone()));
        browser.client.post(app.url(&path)).form(&all).send()
    };

    // Sue writes through all three ways.
    let v = version(&app).await;
    let r = sue_api
        .post(
            &format!("/api/v1/matches/{playing}/hands"),
            &json!({"hand": hand, "expected_version": v}),
        )
        .await;
    json_with_status(r, 201, "a hand by token").await;
    let v = version(&app).await;
    let r = post_form(
        &sue,
        format!("/supervise/matches/{playing}/hands"),
        hand_form(&v.to_string(), "console-1"),
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 303, "a hand on the console");
    let v = version(&app).await;
    let r = sue
        .client
        .post(app.url(&format!("/api/v1/matches/{playing}/hands")))
        .header("X-CSRF-Token", &sue.csrf)
        .json(&json!({"hand": hand, "expected_version": v}))
        .send()
        .await
        .unwrap();
    json_with_status(r, 201, "a hand by the session's script").await;

    // The coordinator takes her off the league.
    let sue_id = user_id(&app, "sue").await;
    let r = coord
        .post_form(
            &format!("/admin/leagues/fall/supervisors/{sue_id}/remove"),
            &[],
        )
        .await;
    assert_eq!(r.status(), 303, "unassign");

    // The very next write, each way, with a valid body: 404, nothing written.
    let before = app.tables().await;
    let v = version(&app).await;
    let r = sue_api
        .post(
            &format!("/api/v1/matches/{playing}/hands"),
            &json!({"hand": hand, "expected_version": v}),
        )
        .await;
    json_with_status(r, 404, "a hand by token").await;
    let r = post_form(
        &sue,
        format!("/supervise/matches/{playing}/hands"),
        hand_form(&v.to_string(), "console-2"),
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 404, "a hand on the console");
    let r = sue
        .client
        .post(app.url(&format!("/api/v1/matches/{playing}/hands")))
        .header("X-CSRF-Token", &sue.csrf)
        .json(&json!({"hand": hand, "expected_version": v}))
        .send()
        .await
        .unwrap();
    json_with_status(r, 404, "a hand by the session's script").await;
    let r = sue_api
        .post(&format!("/api/v1/matches/{waiting}/start"), &json!({}))
        .await;
    json_with_status(r, 404, "a start by token").await;
    // Her rights come before what she sends: a correction without a reason, a forfeit of no
    // team are 404 too, not the 422 they would be for her league.
    let r = sue_api
        .put(
            &format!("/api/v1/matches/{playing}/hands/1"),
            &json!({"hand": hand, "reason": "", "expected_version": v}),
        )
        .await;
    json_with_status(r, 404, "a correction without a reason").await;
    let r = sue_api
        .post(
            &format!("/api/v1/matches/{waiting}/forfeit"),
            &json!({"team": "c"}),
        )
        .await;
    json_with_status(r, 404, "a forfeit of no team").await;
    let r = post_form(
        &sue,
        format!("/supervise/matches/{waiting}/check-in"),
        vec![("team".to_string(), "a".to_string())],
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 404, "a check-in on the console");
    let r = post_form(
        &sue,
        format!("/supervise/matches/{waiting}/lineup"),
        vec![("team".to_string(), "z".to_string())],
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 404, "a lineup of no team on the console");
    assert_eq!(
        sue.get(&format!("/supervise/matches/{playing}"))
            .await
            .status(),
        404,
        "the console"
    );
    app.assert_nothing_written(
        &before,
        "writes after the supervisor was taken off the league",
    )
    .await;
}
