//! The login throttle slows guessing without a lockout switch: failures count per (username,
//! client), per client and per username, with doubling waits, and a client that has not been
//! failing always gets its password checked. The clock stands still unless a test moves it, so
//! "the next try" is never late by accident.
//! (Before: 5 wrong passwords from anywhere made the right one a 429 for 15 minutes from every
//! address, and behind a proxy every client shared the proxy's address.)

use std::net::IpAddr;

use spades_im::service::Role;

use crate::helpers::{PASSWORD, TestApp, manual_clock, spawn_app_behind, spawn_app_with_clock};

/// A client without cookies that does not follow redirects, from `local` (any 127.x address
/// is this machine, so each is a different client to the server).
fn client_from(local: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .local_address(local.parse::<IpAddr>().unwrap())
        .build()
        .unwrap()
}

async fn login(
    app: &TestApp,
    client: &reqwest::Client,
    forwarded_for: Option<&str>,
    username: &str,
    password: &str,
) -> reqwest::Response {
    let mut request = client
        .post(app.url("/login"))
        .form(&[("username", username), ("password", password)]);
    if let Some(address) = forwarded_for {
        request = request.header("X-Forwarded-For", address);
    }
    request.send().await.unwrap()
}

fn retry_after(r: &reqwest::Response) -> i64 {
    r.headers()
        .get("retry-after")
        .expect("a 429 says how long to wait")
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

#[actix_web::test]
async fn fifty_wrong_passwords_from_one_client_do_not_lock_the_supervisor_out() {
    let (clock, time) = manual_clock("2026-11-24T19:00:00Z", chrono_tz::America::New_York);
    let app = spawn_app_with_clock(clock).await;
    app.user("sup", Role::Supervisor).await;
    let rival = client_from("127.0.0.1");
    // 50 wrong passwords, each one checked: the rival waits out every delay it is given.
    let mut checked = 0;
    let mut refused = 0;
    let mut waits = vec![];
    while checked < 50 {
        let r = login(&app, &rival, None, "sup", "wrong password!").await;
        match r.status().as_u16() {
            401 => checked += 1,
            429 => {
                refused += 1;
                let wait = retry_after(&r);
                waits.push(wait);
                time.advance(chrono::Duration::seconds(wait));
            }
            other => panic!("wrong password {checked}: {other}"),
        }
    }
    // Five free tries, then every wait doubles (1 s, 2 s, 4 s …) up to a cap of 15 minutes.
    assert_eq!(&waits[..5], &[1, 2, 4, 8, 16], "waits {waits:?}");
    assert_eq!(waits.iter().max(), Some(&900), "waits {waits:?}");
    assert_eq!(refused, 45, "one refusal before each try after the fifth");
    // The rival, right password or not, must wait now (decided before any hashing)…
    let before = app.tables().await;
    let r = login(&app, &rival, None, "sup", PASSWORD).await;
    assert_eq!(r.status(), 429);
    assert!(r.headers().get("set-cookie").is_none(), "no session");
    assert_eq!(
        login(&app, &rival, None, "SUP", PASSWORD).await.status(),
        429
    );
    app.assert_nothing_written(&before, "no session opened")
        .await;
    // …while the supervisor's own phone logs in at once.
    let phone = client_from("127.0.0.2");
    let r = login(&app, &phone, None, "sup", PASSWORD).await;
    assert_eq!(r.status(), 303, "the real supervisor logs in");
    assert!(r.headers().get("set-cookie").is_some());
    // And a wrong password from the phone is just a wrong password, not a wait.
    assert_eq!(login(&app, &phone, None, "sup", "typo").await.status(), 401);
}

#[actix_web::test]
async fn one_client_trying_many_usernames_is_slowed_across_them() {
    let (clock, _time) = manual_clock("2026-11-24T19:00:00Z", chrono_tz::America::New_York);
    let app = spawn_app_with_clock(clock).await;
    app.user("sup", Role::Supervisor).await;
    let sprayer = client_from("127.0.0.3");
    for i in 0..20 {
        let r = login(&app, &sprayer, None, &format!("guess{i}"), "password1").await;
        assert_eq!(r.status(), 401, "guess {i}");
    }
    // The 21st username from that client waits, even with a right password…
    assert_eq!(
        login(&app, &sprayer, None, "sup", PASSWORD).await.status(),
        429
    );
    // …another client does not.
    let other = client_from("127.0.0.4");
    assert_eq!(
        login(&app, &other, None, "sup", PASSWORD).await.status(),
        303
    );
}

#[actix_web::test]
async fn behind_a_trusted_proxy_each_forwarded_client_is_throttled_on_its_own() {
    let (clock, _time) = manual_clock("2026-11-24T19:00:00Z", chrono_tz::America::New_York);
    // The proxy is 127.0.0.1; 127.0.0.9 is a peer that is not a trusted proxy.
    let app = spawn_app_behind(&["127.0.0.1/32"], clock).await;
    app.user("sup", Role::Supervisor).await;
    let proxy = client_from("127.0.0.1");
    for i in 0..5 {
        let r = login(&app, &proxy, Some("203.0.113.5"), "sup", "wrong").await;
        assert_eq!(r.status(), 401, "try {i}");
    }
    assert_eq!(
        login(&app, &proxy, Some("203.0.113.5"), "sup", PASSWORD)
            .await
            .status(),
        429,
        "the guessing client waits"
    );
    // A client added on the left by the guesser is not believed: still the same client.
    assert_eq!(
        login(
            &app,
            &proxy,
            Some("198.51.100.1, 203.0.113.5"),
            "sup",
            PASSWORD
        )
        .await
        .status(),
        429,
        "a forged address left of the proxy's is ignored"
    );
    // Another client behind the same proxy logs in.
    assert_eq!(
        login(&app, &proxy, Some("203.0.113.6"), "sup", PASSWORD)
            .await
            .status(),
        303
    );

    // An untrusted peer's X-Forwarded-For is ignored: changing it does not make a new client.
    let direct = client_from("127.0.0.9");
    for i in 0..5 {
        let forged = format!("192.0.2.{i}");
        let r = login(&app, &direct, Some(&forged), "sup", "wrong").await;
        assert_eq!(r.status(), 401, "try {i}");
    }
    assert_eq!(
        login(&app, &direct, Some("192.0.2.200"), "sup", PASSWORD)
            .await
            .status(),
        429,
        "the peer is the client"
    );
}

#[actix_web::test]
async fn the_current_password_check_is_throttled_too() {
    let (clock, time) = manual_clock("2026-11-24T19:00:00Z", chrono_tz::America::New_York);
    let app = spawn_app_with_clock(clock).await;
    app.user("sup", Role::Supervisor).await;
    let browser = app.browser("sup").await;
    let change = async |current: &'static str| {
        browser
            .post_form(
                "/account/password",
                &[
                    ("current", current),
                    ("new", "a brand new password"),
                    ("repeat", "a brand new password"),
                ],
            )
            .await
    };
    for i in 0..5 {
        let r = change("not my password").await;
        assert_eq!(r.status(), 422, "wrong current password {i}");
    }
    let before = app.tables().await;
    let r = change(PASSWORD).await;
    assert_eq!(r.status(), 429, "the sixth check waits, right or not");
    let page = r.text().await.unwrap();
    assert!(page.contains("Too many wrong passwords"), "{page}");
    app.assert_nothing_written(&before, "the password is unchanged")
        .await;
    // After the wait, the right current password changes it.
    time.advance(chrono::Duration::seconds(1));
    let r = change(PASSWORD).await;
    assert_eq!(r.status(), 303);
}
