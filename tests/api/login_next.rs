//! Where a login sends the browser: only to a path of this site. A `next` a browser could
//! read as another host (`/\t/evil.example` is `//evil.example` to it), a header-breaking
//! newline, or an encoded slash falls back to the user's start page (tonight's matches for a
//! supervisor, the dashboard for an admin), with a 303 and never a
//! 5xx, and the login makes exactly one session.
//! (Before: the tab answered `Location: /\t/evil.example`; the newline a 500 that left an
//! orphan session row.)

use spades_im::service::Role;

use crate::helpers::{PASSWORD, spawn_app};

#[actix_web::test]
async fn login_sends_the_browser_only_to_a_path_of_this_site() {
    let app = spawn_app().await;
    app.user("sup", Role::Supervisor).await;
    let cases = [
        ("/account", "/account"),
        ("/supervise/matches/3", "/supervise/matches/3"),
        ("/leagues/fall?tab=1", "/leagues/fall?tab=1"),
        ("/\t/evil.example", "/supervise"),
        ("//evil.example", "/supervise"),
        ("/\\evil.example", "/supervise"),
        ("/%2F/evil.example", "/supervise"),
        ("/%5cevil.example", "/supervise"),
        ("/x\nSet-Cookie: a=b", "/supervise"),
        ("/x\r\nLocation: //evil.example", "/supervise"),
        ("https://evil.example/", "/supervise"),
        ("/ /evil.example", "/supervise"),
        ("", "/supervise"),
    ];
    for (i, (next, expected)) in cases.iter().enumerate() {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let r = client
            .post(app.url("/login"))
            .form(&[("username", "sup"), ("password", PASSWORD), ("next", next)])
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 303, "next {next:?}");
        assert_eq!(r.headers()["location"], *expected, "next {next:?}");
        let mut conn = app.db.read().await.unwrap();
        let sessions: i64 = spades_im::on_store!(conn, |c| sqlx::query_scalar(
            "SELECT count(*) FROM sessions"
        )
        .fetch_one(c)
        .await)
        .unwrap();
        assert_eq!(
            sessions,
            i as i64 + 1,
            "one session per login (next {next:?})"
        );
        // The login form carries only a safe `next` too.
        let form = client
            .get(app.url(&format!("/login?next={}", urlencode(next))))
            .send()
            .await
            .unwrap();
        assert_eq!(form.status(), 200, "login form with next {next:?}");
        let page = form.text().await.unwrap();
        // An unsafe `next` is dropped: the form carries none, the login picks the landing.
        let carried = if *expected == "/supervise" {
            ""
        } else {
            expected
        };
        assert!(
            page.contains(&format!(
                "name=\"next\" value=\"{}\"",
                carried.replace('&', "&#38;")
            )),
            "login form with next {next:?}"
        );
    }
}

/// Without a (safe) `next`, an admin lands on the admin dashboard and a supervisor on
/// tonight's matches.
#[actix_web::test]
async fn each_role_lands_on_its_own_start_page() {
    let app = spawn_app().await;
    app.user("coord", Role::Admin).await;
    app.user("sup", Role::Supervisor).await;
    for (user, next, expected) in [
        ("coord", "", "/admin"),
        ("coord", "//evil.example", "/admin"),
        ("coord", "/supervise/matches/3", "/supervise/matches/3"),
        ("sup", "", "/supervise"),
    ] {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let r = client
            .post(app.url("/login"))
            .form(&[("username", user), ("password", PASSWORD), ("next", next)])
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 303, "{user} next {next:?}");
        assert_eq!(r.headers()["location"], expected, "{user} next {next:?}");
    }
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~/".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}
