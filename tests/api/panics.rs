//! A panic while answering, should one ever happen, is one 500 in the shape of the path (the
//! JSON error body under `/api/`, the HTML error page elsewhere, with the security headers)
//! and one short log line naming the request, without a backtrace even with
//! `RUST_BACKTRACE=1`; the server goes on answering, on the same connection too.
//! (Before: a panicking handler dropped the connection without an answer, and each panic
//! logged several lines, or a whole backtrace with `RUST_BACKTRACE=1`: 4,980 panics in 15 s
//! made 1.16 GB of log.)
//!
//! The server is the real binary, started with `SPADES_PANIC_PROBE=1`: in a debug build (the
//! tests'), `GET /__panic` and `GET /api/v1/__panic` then panic; a release build has no such
//! route.

use std::fs::File;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use spades_im::service::Role;

use crate::concurrency::BIN;
use crate::helpers::{json_with_status, spawn_app};

/// The server process, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `spades-im serve` with the panic probe, logging to `log`, answering at the address
/// returned.
async fn serve_with_probe(dir: &std::path::Path, log: &std::path::Path) -> (Server, String) {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let child = Command::new(BIN)
        .args(["serve", "--bind", &format!("127.0.0.1:{port}"), "--db"])
        .arg(dir.join("db.sqlite3"))
        .env("SPADES_PANIC_PROBE", "1")
        .env("RUST_BACKTRACE", "1")
        .env("SPADES_LOG", "info")
        .env("SPADES_INSECURE_COOKIES", "true")
        .stdout(Stdio::null())
        .stderr(File::create(log).unwrap())
        .spawn()
        .unwrap();
    let mut server = Server(child);
    let base = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(r) = reqwest::get(format!("{base}/healthz")).await
            && r.status() == 200
        {
            return (server, base);
        }
        if let Some(status) = server.0.try_wait().unwrap() {
            panic!(
                "the server exited ({status}): {}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        assert!(Instant::now() < deadline, "the server did not come up");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

#[actix_web::test]
async fn a_panic_is_one_500_and_one_log_line_and_the_next_request_is_answered() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    let (server, base) = serve_with_probe(dir.path(), &log).await;
    // One client: its connection is kept alive across the panics.
    let client = reqwest::Client::new();
    let mut panics = 0;
    for _ in 0..3 {
        let r = client.get(format!("{base}/__panic")).send().await.unwrap();
        panics += 1;
        assert_eq!(r.status(), 500);
        assert_eq!(r.headers()["content-type"], "text/html; charset=utf-8");
        assert_eq!(r.headers()["x-frame-options"], "DENY");
        assert!(r.headers().contains_key("content-security-policy"));
        let html = r.text().await.unwrap();
        assert!(
            html.contains("<h1>500 · Internal Server Error</h1>"),
            "{html}"
        );
        assert!(!html.contains("probe"), "the panic's message is not shown");

        let r = client
            .get(format!("{base}/api/v1/__panic"))
            .send()
            .await
            .unwrap();
        panics += 1;
        assert_eq!(r.status(), 500);
        assert_eq!(r.headers()["content-type"], "application/json");
        assert_eq!(
            r.json::<serde_json::Value>().await.unwrap(),
            json!({"error": {"code": "internal", "message": "internal error"}})
        );

        // The next request is answered.
        let r = client.get(format!("{base}/")).send().await.unwrap();
        assert_eq!(r.status(), 200);
        let r = client
            .get(format!("{base}/api/v1/presets"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    }
    // Eight clients panicking at once, as many times each: every one gets its 500.
    let rounds = 25;
    let clients: Vec<_> = (0..8)
        .map(|_| {
            let base = base.clone();
            actix_web::rt::spawn(async move {
                let client = reqwest::Client::new();
                for _ in 0..rounds {
                    let r = client.get(format!("{base}/__panic")).send().await.unwrap();
                    assert_eq!(r.status(), 500);
                }
            })
        })
        .collect();
    for c in clients {
        c.await.unwrap();
    }
    panics += 8 * rounds;
    let r = client.get(format!("{base}/healthz")).send().await.unwrap();
    assert_eq!(r.status(), 200, "still serving");
    drop(server);

    let log = std::fs::read_to_string(&log).unwrap();
    // One error line per panic (besides its access line, at info, whose route names the
    // probe too).
    let panic_lines: Vec<&str> = log.lines().filter(|l| l.contains("ERROR")).collect();
    assert_eq!(panic_lines.len(), panics, "one line per panic:\n{log}");
    for line in &panic_lines {
        assert!(
            line.contains("panic answering GET /__panic: the panic probe was asked to panic")
                || line.contains(
                    "panic answering GET /api/v1/__panic: the panic probe was asked to panic"
                ),
            "{line}"
        );
        assert!(line.contains("src/web/mod.rs:"), "where: {line}");
        assert!(line.len() < 300, "a short line: {line}");
    }
    for noise in ["stack backtrace", "panicked at", "RUST_BACKTRACE", "note:"] {
        assert!(!log.contains(noise), "{noise:?} in the log:\n{log}");
    }
}

#[actix_web::test]
async fn a_table_number_at_the_end_of_its_range_is_kept_for_the_next_match() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "fall", json!("classic"), 2).await;
    let browser = app.browser("coord").await;
    // The next match of a night is offered at the next table: there is none after this one.
    let (a, b) = (teams[0].to_string(), teams[1].to_string());
    for (typed, offered) in [
        ("Table 4294967295", "Table+4294967295"),
        ("Table 4294967294", "Table+4294967295"),
    ] {
        let r = browser
            .post_form(
                "/admin/leagues/fall/matches",
                &[
                    ("team_a", &a),
                    ("team_b", &b),
                    ("table", typed),
                    ("scheduled_at", "2026-11-24T19:00"),
                    ("from", "schedule"),
                ],
            )
            .await;
        assert_eq!(r.status(), 303, "{typed}");
        let to = r.headers()["location"].to_str().unwrap().to_string();
        assert!(to.contains(&format!("&table={offered}&")), "{to}");
    }
    let body = json_with_status(
        admin.get("/api/v1/leagues/fall/matches").await,
        200,
        "matches",
    )
    .await;
    assert_eq!(body["matches"].as_array().unwrap().len(), 2);
}
