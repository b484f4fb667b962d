//! Every page route against hostile query strings and wrong methods. The routes are the list
//! of `spades_im::web::page_routes::ROUTES` (a unit test keeps it equal to the handlers'
//! `#[get]`/`#[post]` attributes), each made concrete on a seeded league (the demo season,
//! and a league with a bracket); the parameter names are every field of every struct a page
//! reads its query into (found in `src/web/` by [`query_params`]).
//!
//! Each GET route is asked, over a raw TCP connection (the query sent exactly as written, no
//! URL parser on the way), with each hostile value for each parameter: dates at and past
//! the ends of what chrono holds, years 0 and 9999, numbers past 64 bits, invalid UTF-8 and
//! invalid percent-escapes, a NUL, an 8,000-character value, every key repeated; then with
//! random combinations from a seeded generator (`PAGE_FUZZ_SEED` to replay one, printed on a
//! failure). Every answer must come (no dropped connection), no answer is a 5xx, and each
//! has the route's own content type or `text/html` / `application/json` (a redirect: a
//! `Location`). A query that does not read is an HTML 400 page, never actix's `text/plain`.
//!
//! Every route path asked with a method it does not answer, and with `OPTIONS`, is an HTML
//! 405 with `Allow` listing the methods that answer it.
//! (Before: `?week=-262143-01-01` panicked and dropped the connection; a wrong method or
//! `OPTIONS` on a page was an HTML 404; `?week=a&week=b` was a `text/plain` 400.)

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use spades_im::service::Role;
use spades_im::web::page_routes::ROUTES;

use crate::helpers::{Api, PASSWORD, TestApp, json_with_status, spawn_app};

/// Values sent for every parameter, as they appear in the query (percent-escapes as written).
const HOSTILE: &[&str] = &[
    // Dates: chrono's first and last days and past them, years 0 and 9999, just out of the
    // days a user may name, no such day, a date and time, the words the pages know.
    "-262143-01-01",
    "-262144-01-01",
    "%2B262142-12-31",
    "%2B262143-12-31",
    "0000-01-01",
    "9999-12-31",
    "1999-12-31",
    "2101-01-01",
    "2026-02-30",
    "2026-11-24",
    "9999-12-31T23:59",
    "all",
    "unscheduled",
    // Numbers.
    "-1",
    "0",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "1e400",
    "NaN",
    // Text.
    "",
    "%00",
    "%FF%FE",
    "%C0%80",
    "%ED%A0%80",
    "%E2%80%AE",
    "%",
    "%zz",
    "%3Cscript%3E",
    "%2F%2Fevil.example",
    "a+b%20c",
    "both-a",
];

/// A long value (not so long that the request line passes actix's limit on the head).
fn long_value() -> String {
    "2026-11-24".repeat(800)
}

/// `(name, type)` of every field of every struct that a handler in `src/web/` reads its query
/// string into (`web::Query<T>`).
fn query_params() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
                continue;
            }
            let file = std::fs::read_to_string(&path).unwrap();
            for used in file.split("web::Query<").skip(1) {
                let name = used.split('>').next().unwrap().trim();
                // A struct of another module (`use super::account::NextQuery`) is there.
                let source = match file.contains(&format!("struct {name} {{")) {
                    true => file.clone(),
                    false => defined_in(name, &path),
                };
                let start = source
                    .find(&format!("struct {name} {{"))
                    .unwrap_or_else(|| panic!("struct {name} not in {}", path.display()));
                let body = source[start..].split_once('{').unwrap().1;
                let body = body.split_once("\n}").unwrap().0;
                for line in body.lines().map(str::trim) {
                    if line.starts_with("//") || line.starts_with("#[") || line.is_empty() {
                        continue;
                    }
                    let line = line
                        .trim_start_matches("pub(super) ")
                        .trim_start_matches("pub ");
                    let (field, ty) = line.split_once(':').unwrap();
                    out.push((field.trim().into(), ty.trim().trim_end_matches(',').into()));
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src/web"),
        &mut out,
    );
    out.sort();
    out.dedup();
    out
}

/// The source of the module that `file` imports the struct `name` from (`use
/// super::MODULE::…` a sibling file, `use crate::A::B::…` src/A/B.rs), or an empty text.
fn defined_in(name: &str, file: &Path) -> String {
    let source = std::fs::read_to_string(file).unwrap();
    let Some(import) = source
        .lines()
        .find(|l| l.starts_with("use ") && l.contains(name))
    else {
        return String::new();
    };
    // `use crate::service::people::oidc::{Callback, …};` -> ["crate", "service", "oidc"]
    let path: Vec<&str> = import
        .trim_start_matches("use ")
        .split("::")
        .take_while(|part| !part.starts_with('{') && !part.contains(name))
        .collect();
    let module = match path.as_slice() {
        ["super", rest @ ..] => file.with_file_name(format!("{}.rs", rest.join("/"))),
        ["crate", rest @ ..] => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src")
            .join(format!("{}.rs", rest.join("/"))),
        _ => return String::new(),
    };
    std::fs::read_to_string(module).unwrap_or_default()
}

/// A parameter a value of any text reads into.
fn takes_any_text(ty: &str) -> bool {
    ty == "String" || ty == "Option<String>"
}

/// The leagues the routes are made concrete on, and who asks.
struct Seeded {
    app: TestApp,
    /// `Cookie` header values: the coordinator's and a supervisor's sessions.
    admin: String,
    supervisor: String,
    /// The demo league's slug, a team of it and one of its players, its match in progress, a
    /// match not started.
    slug: String,
    team: i64,
    player: i64,
    live_match: i64,
    scheduled_match: i64,
}

async fn session_cookie(app: &TestApp, name: &str) -> String {
    let r = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .post(app.url("/login"))
        .form(&[("username", name), ("password", PASSWORD)])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303, "login as {name}");
    r.headers()
        .get_all("set-cookie")
        .iter()
        .map(|c| c.to_str().unwrap().split(';').next().unwrap().to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

async fn seeded() -> Seeded {
    let app = spawn_app().await;
    let admin: Api = app.api_user("coord", Role::Admin).await;
    spades_im::demo::load(&app.db).await.unwrap();
    let slug = spades_im::demo::SLUG.to_string();
    // A league with a bracket, for the bracket's pages.
    app.league(&admin, "cup", json!("classic"), 4).await;
    let r = admin
        .post(
            "/api/v1/leagues/cup/playoffs",
            &json!({"format": "single_elimination", "third_place": true, "force": true}),
        )
        .await;
    json_with_status(r, 201, "a bracket").await;
    app.user("sue", Role::Supervisor).await;
    let r = admin
        .post(
            &format!("/api/v1/leagues/{slug}/supervisors"),
            &json!({"username": "sue"}),
        )
        .await;
    assert_eq!(r.status(), 204);
    let teams = json_with_status(
        admin.get(&format!("/api/v1/leagues/{slug}/teams")).await,
        200,
        "teams",
    )
    .await;
    let team = teams["teams"][0]["id"].as_i64().unwrap();
    let roster = admin.get(&format!("/api/v1/teams/{team}/roster")).await;
    let player = json_with_status(roster, 200, "roster").await["players"][0]["id"]
        .as_i64()
        .unwrap();
    let matches = json_with_status(
        admin.get(&format!("/api/v1/leagues/{slug}/matches")).await,
        200,
        "matches",
    )
    .await;
    let with_status = |status: &str| {
        matches["matches"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["status"] == status)
            .unwrap_or_else(|| panic!("the demo has a match {status}"))["id"]
            .as_i64()
            .unwrap()
    };
    let (live_match, scheduled_match) = (with_status("in_progress"), with_status("scheduled"));
    Seeded {
        admin: session_cookie(&app, "coord").await,
        supervisor: session_cookie(&app, "sue").await,
        app,
        slug,
        team,
        player,
        live_match,
        scheduled_match,
    }
}

impl Seeded {
    /// `template` with every `{name}` filled in from the seeded leagues.
    /// (An `{id}` is named by the segment before it: `teams/{id}`, `matches/{id}`.)
    fn concrete(&self, template: &str) -> String {
        let segments: Vec<&str> = template.split('/').collect();
        segments
            .iter()
            .enumerate()
            .map(|(i, segment)| {
                let before = i.checked_sub(1).map_or("", |b| segments[b]);
                match (before, *segment) {
                    (_, "{slug}") if template.contains("bracket") => "cup".to_string(),
                    (_, "{slug}") => self.slug.clone(),
                    ("teams", "{id}") | (_, "{team_id}") => self.team.to_string(),
                    (_, "{player_id}") => self.player.to_string(),
                    // The forfeit's confirmation is for a match not yet started.
                    ("matches", "{id}") if template.ends_with("/forfeit") => {
                        self.scheduled_match.to_string()
                    }
                    ("matches", "{id}") => self.live_match.to_string(),
                    ("tokens", "{id}") | ("notices", "{id}") | (_, "{user_id}") => "1".into(),
                    // No request or dispute: the forms answer 404 or their own 422.
                    ("requests", "{id}") | ("disputes", "{id}") => "1".into(),
                    (_, "{number}") => "1".into(),
                    (_, "{username}") => "sue".into(),
                    (_, "{preset}") => "classic".into(),
                    (_, "{name}") => "style.css".into(),
                    (_, "{module}") => "preview.js".into(),
                    (_, "{folder}") => "console".into(),
                    (_, "{token}") => "0123456789abcdef0123456789abcdef".into(),
                    (_, s) if s.starts_with('{') => {
                        panic!("no value for {s} in {template}: add one to Seeded::concrete")
                    }
                    (_, s) => s.to_string(),
                }
            })
            .collect::<Vec<_>>()
            .join("/")
    }
}

/// An answer read off the wire.
#[derive(Debug)]
struct Answer {
    status: u16,
    content_type: String,
    allow: String,
    location: bool,
    body: String,
}

/// Sends `{method} {target}` (exactly as written) with `cookie` over a new TCP connection.
/// `None` when the connection closed without a whole answer.
async fn send(app: &TestApp, method: &str, target: &str, cookie: Option<&str>) -> Option<Answer> {
    use std::io::{Read, Write};
    let host = app.address.trim_start_matches("http://").to_string();
    let cookie = cookie.map_or(String::new(), |c| format!("Cookie: {c}\r\n"));
    let request = format!(
        "{method} {target} HTTP/1.1\r\nHost: {host}\r\n{cookie}Content-Length: 0\r\nConnection: close\r\n\r\n"
    );
    let raw = actix_web::rt::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(&host).unwrap();
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(60)))
            .unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).ok()?;
        Some(String::from_utf8_lossy(&answer).into_owned())
    })
    .await
    .unwrap()?;
    let (head, body) = raw.split_once("\r\n\r\n")?;
    let mut lines = head.lines();
    let status = lines
        .next()?
        .strip_prefix("HTTP/1.1 ")?
        .get(..3)?
        .parse()
        .ok()?;
    let mut answer = Answer {
        status,
        content_type: String::new(),
        allow: String::new(),
        location: false,
        body: body.to_string(),
    };
    for line in lines {
        let (name, value) = line.split_once(':')?;
        match name.to_ascii_lowercase().as_str() {
            "content-type" => answer.content_type = value.trim().to_string(),
            "allow" => answer.allow = value.trim().to_string(),
            "location" => answer.location = true,
            _ => {}
        }
    }
    Some(answer)
}

/// A tiny xorshift for the random part (seed printed on a failure).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn seed() -> u64 {
    match std::env::var("PAGE_FUZZ_SEED") {
        Ok(s) => s.parse().expect("PAGE_FUZZ_SEED is a number"),
        Err(_) => {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        }
    }
}

/// A random query: a few parameters (names the pages read, and others), values hostile or
/// random bytes percent-encoded, keys now and then repeated.
fn random_query(rng: &mut Rng, names: &[String]) -> String {
    let mut pairs = Vec::new();
    for _ in 0..1 + rng.below(5) {
        let name = match rng.below(8) {
            0 => ["", "x", "week[]", "%FF", "a%00b"][rng.below(5)].to_string(),
            _ => names[rng.below(names.len())].clone(),
        };
        let value = if rng.below(3) == 0 {
            (0..rng.below(40))
                .map(|_| format!("%{:02X}", rng.below(256)))
                .collect()
        } else {
            HOSTILE[rng.below(HOSTILE.len())].to_string()
        };
        if rng.below(4) == 0 {
            pairs.push(format!("{name}={value}"));
        }
        pairs.push(format!("{name}={value}"));
    }
    pairs.join("&")
}

#[actix_web::test]
async fn no_query_string_breaks_a_page() {
    let s = seeded().await;
    let params = query_params();
    let names: Vec<String> = params.iter().map(|(n, _)| n.clone()).collect();
    // The parameters the pages read today, so that a new one is seen here.
    for known in [
        "week", "done", "id", "n", "from", "to", "add", "show", "next", "preset", "tv",
    ] {
        assert!(names.contains(&known.to_string()), "{known} in {params:?}");
    }
    let text_names: Vec<&str> = params
        .iter()
        .filter(|(_, ty)| takes_any_text(ty))
        .map(|(n, _)| n.as_str())
        .collect();
    let seed = seed();
    let mut rng = Rng(seed);
    let long = long_value();

    // Campus sign-in's two ends are a 404 on a server without it, as this one is:
    // tests/api/oidc.rs sends them hostile queries on a server with a provider. The
    // unsubscribe page is a 404 but for a token a notice gave (none here), and a captain's
    // sign-in link a 400 but for a token a link gave (tests/api/captains.rs): neither reads
    // a query.
    let gets: Vec<&str> = ROUTES
        .iter()
        .filter(|(m, p)| {
            *m == "GET"
                && !p.starts_with("/auth/oidc/")
                && !p.starts_with("/unsubscribe/")
                && !p.starts_with("/captain/auth/")
        })
        .map(|(_, p)| *p)
        .collect();
    let mut asked = 0;
    for template in gets {
        let path = s.concrete(template);
        // The route's own content type, as the coordinator sees it (the forfeit's
        // confirmation without a team goes back to the console).
        let plain = send(&s.app, "GET", &path, Some(&s.admin))
            .await
            .unwrap_or_else(|| panic!("GET {path}: no answer"));
        assert!(
            plain.status == 200 || plain.status == 303,
            "GET {path}: {} {}",
            plain.status,
            plain.body
        );
        let own = plain.content_type.clone();

        let mut queries: Vec<String> = Vec::new();
        for value in HOSTILE {
            // Every parameter that takes text at once, then each of the others alone.
            queries.push(
                text_names
                    .iter()
                    .map(|n| format!("{n}={value}"))
                    .collect::<Vec<_>>()
                    .join("&"),
            );
            queries.extend(
                names
                    .iter()
                    .filter(|n| !text_names.contains(&n.as_str()))
                    .map(|n| format!("{n}={value}")),
            );
        }
        queries.extend(names.iter().map(|n| format!("{n}={long}")));
        queries.extend(names.iter().map(|n| format!("{n}=2026-11-24&{n}=all")));
        queries.extend(["", "&&&", "=", "week", "%FF=%FF"].map(String::from));
        let fixed = queries.len();
        queries.extend((0..20).map(|_| random_query(&mut rng, &names)));

        // The coordinator reaches every page's handler; anonymous visitors the public pages
        // (through the page cache), a supervisor some random queries.
        let login_only = ["/admin", "/supervise", "/account"]
            .iter()
            .any(|p| template.starts_with(p));
        let asks: Vec<(String, &str, Option<&str>)> = queries
            .iter()
            .enumerate()
            .map(|(i, query)| {
                let who = if i >= fixed {
                    i % 3
                } else if login_only {
                    1
                } else {
                    i % 2
                };
                let (name, cookie) = match who {
                    0 => ("anonymous", None),
                    1 => ("coordinator", Some(s.admin.as_str())),
                    _ => ("supervisor", Some(s.supervisor.as_str())),
                };
                (format!("{path}?{query}"), name, cookie)
            })
            .collect();
        for batch in asks.chunks(8) {
            let answers = futures_util::future::join_all(
                batch
                    .iter()
                    .map(|(target, _, cookie)| send(&s.app, "GET", target, *cookie)),
            )
            .await;
            for ((target, who, _), answer) in batch.iter().zip(answers) {
                let what = format!("GET {target:.300} as {who} (PAGE_FUZZ_SEED={seed})");
                let answer = answer
                    .unwrap_or_else(|| panic!("{what}: the connection closed without an answer"));
                asked += 1;
                assert!(
                    answer.status < 500,
                    "{what}: {} {:.500}",
                    answer.status,
                    answer.body
                );
                if (300..400).contains(&answer.status) {
                    assert!(answer.location, "{what}: a redirect without Location");
                    continue;
                }
                assert!(
                    answer.content_type == own
                        || answer.content_type == "text/html; charset=utf-8"
                        || answer.content_type == "application/json",
                    "{what}: {} {:?} {:.300}",
                    answer.status,
                    answer.content_type,
                    answer.body
                );
            }
        }
    }
    println!("{asked} queries (PAGE_FUZZ_SEED={seed})");
}

#[actix_web::test]
async fn a_query_that_does_not_read_is_an_html_400() {
    let s = seeded().await;
    let slug = &s.slug;
    for (target, cookie) in [
        (
            format!("/leagues/{slug}/schedule?week=2026-11-24&week=all"),
            None,
        ),
        ("/login?next=/a&next=/b".to_string(), None),
        ("/scoreboard?tv=1&tv=1".to_string(), None),
        (
            format!("/admin/leagues/{slug}/schedule?done=changed&id=abc"),
            Some(s.admin.as_str()),
        ),
        (
            format!("/admin/leagues/{slug}/schedule?n=-1"),
            Some(s.admin.as_str()),
        ),
        (
            "/admin/leagues/cup/playoffs?saved=99999999999999999999".to_string(),
            Some(s.admin.as_str()),
        ),
    ] {
        let answer = send(&s.app, "GET", &target, cookie).await.unwrap();
        assert_eq!(answer.status, 400, "{target}: {}", answer.body);
        assert_eq!(answer.content_type, "text/html; charset=utf-8", "{target}");
        assert!(
            answer.body.contains("<h1>400 · Bad Request</h1>"),
            "{target}"
        );
        assert!(
            answer.body.contains("the query string does not read"),
            "{target}: {}",
            answer.body
        );
    }
}

/// Whether `path` is an instance of `template` (`{name}`: one non-empty segment).
fn instance_of(template: &str, path: &str) -> bool {
    let (t, p): (Vec<&str>, Vec<&str>) = (template.split('/').collect(), path.split('/').collect());
    t.len() == p.len()
        && t.iter().zip(&p).all(|(t, p)| {
            if t.starts_with('{') {
                !p.is_empty()
            } else {
                t == p
            }
        })
}

#[actix_web::test]
async fn a_wrong_method_on_a_page_is_an_html_405_with_allow() {
    let s = seeded().await;
    let paths: BTreeSet<String> = ROUTES.iter().map(|(_, t)| s.concrete(t)).collect();
    for path in &paths {
        let methods: BTreeSet<&str> = ROUTES
            .iter()
            .filter(|(_, t)| instance_of(t, path))
            .map(|(m, _)| *m)
            .collect();
        let mut allow = Vec::new();
        if methods.contains("GET") {
            allow.extend(["GET", "HEAD"]);
        }
        if methods.contains("POST") {
            allow.push("POST");
        }
        let allow = allow.join(", ");
        for method in ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] {
            if methods.contains(method) {
                continue;
            }
            for (who, cookie) in [("anonymous", None), ("coordinator", Some(s.admin.as_str()))] {
                let answer = send(&s.app, method, path, cookie)
                    .await
                    .unwrap_or_else(|| panic!("{method} {path}: no answer"));
                let what = format!("{method} {path} as {who}");
                assert_eq!(answer.status, 405, "{what}: {}", answer.body);
                assert_eq!(answer.allow, allow, "{what}");
                assert_eq!(answer.content_type, "text/html; charset=utf-8", "{what}");
                assert!(
                    answer.body.contains("<h1>405 · Method Not Allowed</h1>"),
                    "{what}"
                );
            }
        }
    }
    // A path no route has is still a 404, whatever the method.
    for method in ["GET", "POST", "OPTIONS", "DELETE"] {
        for path in [
            "/nothing",
            "/leagues/x/nothing",
            "/leagues/",
            "/admin/leagues/x/schedule/",
        ] {
            let answer = send(&s.app, method, path, None).await.unwrap();
            assert_eq!(answer.status, 404, "{method} {path}");
            assert_eq!(answer.content_type, "text/html; charset=utf-8");
        }
    }
    // The API keeps its JSON 405.
    let answer = send(&s.app, "DELETE", "/api/v1/leagues", None)
        .await
        .unwrap();
    assert_eq!(answer.status, 405);
    assert_eq!(answer.allow, "GET, HEAD, POST");
    assert_eq!(answer.content_type, "application/json");
    let body: Value = serde_json::from_str(&answer.body).unwrap();
    assert_eq!(body["error"]["code"], "method_not_allowed");
}
