//! The login throttle slows guessing without a lockout switch. A browser that has logged in
//! as a user holds a device cookie (`spades_device`) and is a trusted device for that user:
//! its failures count against its own budget only, and nobody else's failures hold it back.
//! Every other client is untrusted: its failures count per username (shared by all untrusted
//! clients, so guessing from many addresses is capped) and per address. The clock stands
//! still unless a test moves it, so "the next try" is never late by accident.
//! (Before: 150 addresses each got a free guess, twenty failures from a shared address held
//! back everyone behind it, and `X-Forwarded-For` entries with a port fell back to the
//! proxy's address.)

use std::net::IpAddr;

use spades_im::service::Role;
use spades_im::service::people::throttle::{CLIENT_BUDGET, DEVICE_BUDGET, MAX_WAIT, USER_BUDGET};

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

/// As [`client_from`], keeping its cookies: a phone, which keeps a device cookie.
fn phone_from(local: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .cookie_store(true)
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

async fn status(
    app: &TestApp,
    client: &reqwest::Client,
    forwarded_for: Option<&str>,
    username: &str,
    password: &str,
) -> u16 {
    login(app, client, forwarded_for, username, password)
        .await
        .status()
        .as_u16()
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

/// A 429 whose `Retry-After` is no longer than the longest wait.
fn assert_slowed(r: &reqwest::Response, what: &str) {
    assert_eq!(r.status(), 429, "{what}");
    let wait = retry_after(r);
    assert!(
        (1..=MAX_WAIT.num_seconds()).contains(&wait),
        "{what}: waits {wait} s"
    );
}

fn set_cookie(r: &reqwest::Response, name: &str) -> Option<String> {
    r.headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .find(|v| v.starts_with(&format!("{name}=")))
}

/// The attack of the release: 150 addresses (behind the trusted proxy) each try one wrong
/// password for the supervisor; then the supervisor mistypes once on their own phone and
/// logs in.
#[actix_web::test]
async fn guessing_from_150_addresses_does_not_hold_back_the_supervisors_phone() {
    let (clock, _time) = manual_clock("2026-11-24T19:00:00Z", chrono_tz::America::New_York);
    let app = spawn_app_behind(&["127.0.0.1/32"], clock).await;
    app.user("sup", Role::Supervisor).await;
    let proxy = client_from("127.0.0.1");
    // Last week's login on the phone left a device cookie there.
    let phone = phone_from("127.0.0.1");
    let phone_address = Some("198.51.100.7");
    let r = login(&app, &phone, phone_address, "sup", PASSWORD).await;
    assert_eq!(r.status(), 303);
    let device = set_cookie(&r, "spades_device").expect("a device cookie");
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=31536000"] {
        assert!(device.contains(attribute), "{device}");
    }

    let (mut checked, mut held) = (0, 0);
    for i in 0..150 {
        let address = format!("203.0.{}.{}", 113 + i / 100, 1 + i % 100);
        match status(&app, &proxy, Some(&address), "sup", "a wrong guess").await {
            401 => checked += 1,
            429 => held += 1,
            other => panic!("address {address}: {other}"),
        }
    }
    assert_eq!(
        (checked, held),
        (USER_BUDGET, 150 - USER_BUDGET),
        "one budget for the username, however many addresses"
    );

    // The supervisor mistypes once on the phone, then types it right.
    assert_eq!(
        status(&app, &phone, phone_address, "sup", "a typo").await,
        401,
        "a typo on the phone is just a typo"
    );
    let r = login(&app, &phone, phone_address, "sup", PASSWORD).await;
    assert_eq!(r.status(), 303, "the supervisor logs in on their phone");
    assert!(set_cookie(&r, "spades_session").is_some());
    // A browser that never logged in as sup waits, even at the phone's address.
    let r = login(
        &app,
        &client_from("127.0.0.1"),
        phone_address,
        "sup",
        PASSWORD,
    )
    .await;
    assert_slowed(&r, "a browser without a device cookie");
}

#[actix_web::test]
async fn without_a_device_cookie_every_client_waits_once_the_usernames_budget_is_spent() {
    let (clock, time) = manual_clock("2026-11-24T19:00:00Z", chrono_tz::America::New_York);
    let app = spawn_app_with_clock(clock).await;
    app.user("sup", Role::Supervisor).await;
    app.user("other", Role::Supervisor).await;
    let phone = phone_from("127.0.0.5");
    assert_eq!(status(&app, &phone, None, "sup", PASSWORD).await, 303);
    // A browser holding a device cookie for another user.
    let laptop = phone_from("127.0.0.6");
    assert_eq!(status(&app, &laptop, None, "other", PASSWORD).await, 303);

    // A rival guesses 50 times, waiting out every delay it is given.
    let rival = client_from("127.0.0.1");
    let (mut checked, mut waits) = (0, vec![]);
    while checked < 50 {
        let r = login(&app, &rival, None, "sup", "wrong password!").await;
        match r.status().as_u16() {
            401 => checked += 1,
            429 => {
                let wait = retry_after(&r);
                waits.push(wait);
                time.advance(chrono::Duration::seconds(wait));
            }
            other => panic!("wrong password {checked}: {other}"),
        }
    }
    // The username's free failures, then every wait doubles up to a cap of 15 minutes (and
    // failures older than an hour stop counting).
    assert_eq!(
        &waits[..11],
        &[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900],
        "waits {waits:?}"
    );
    assert_eq!(waits.iter().max(), Some(&900), "waits {waits:?}");

    // The rival, right password or not, must wait now (decided before any hashing)…
    let before = app.tables().await;
    let r = login(&app, &rival, None, "SUP", PASSWORD).await;
    assert_slowed(&r, "the rival");
    assert!(r.headers().get("set-cookie").is_none(), "no session");
    app.assert_nothing_written(&before, "no session opened")
        .await;
    // …and so does every client without a device cookie for sup.
    let r = login(&app, &client_from("127.0.0.2"), None, "sup", PASSWORD).await;
    assert_slowed(&r, "a new address");
    let r = login(&app, &laptop, None, "sup", PASSWORD).await;
    assert_slowed(&r, "a device cookie for another user");
    let r = login(&app, &rival, None, "sup", PASSWORD).await;
    let page = r.text().await.unwrap();
    assert!(page.contains("Too many failed logins"), "{page}");
    // The phone logs in at once, and a wrong password there is just a wrong password.
    assert_eq!(status(&app, &phone, None, "sup", "typo").await, 401);
    assert_eq!(status(&app, &phone, None, "sup", PASSWORD).await, 303);
}

#[actix_web::test]
async fn a_phone_that_keeps_failing_is_slowed_on_its_own() {
    let (clock, time) = manual_clock("2026-11-24T19:00:00Z", chrono_tz::America::New_York);
    let app = spawn_app_with_clock(clock).await;
    app.user("sup", Role::Supervisor).await;
    let phone = phone_from("127.0.0.5");
    assert_eq!(status(&app, &phone, None, "sup", PASSWORD).await, 303);
    for i in 0..DEVICE_BUDGET {
        assert_eq!(status(&app, &phone, None, "sup", "wrong").await, 401, "{i}");
    }
    let r = login(&app, &phone, None, "sup", PASSWORD).await;
    assert_eq!(retry_after(&r), 1);
    let page = r.text().await.unwrap();
    assert!(
        page.contains("Too many wrong passwords on this device"),
        "{page}"
    );
    // Another browser is not held back by the phone's failures.
    assert_eq!(
        status(&app, &client_from("127.0.0.5"), None, "sup", PASSWORD).await,
        303
    );
    time.advance(chrono::Duration::seconds(1));
    assert_eq!(status(&app, &phone, None, "sup", PASSWORD).await, 303);
}

/// The rec center's Wi-Fi, one address for the whole room.
#[actix_web::test]
async fn a_shared_address_slows_untrusted_clients_there_but_never_a_trusted_device() {
    let (clock, _time) = manual_clock("2026-11-24T19:00:00Z", chrono_tz::America::New_York);
    let app = spawn_app_with_clock(clock).await;
    app.user("sup", Role::Supervisor).await;
    app.user("sup2", Role::Supervisor).await;
    let wifi = "127.0.0.3";
    let phone = phone_from(wifi);
    assert_eq!(status(&app, &phone, None, "sup", PASSWORD).await, 303);
    // Someone in the room tries 25 random usernames.
    let sprayer = client_from(wifi);
    let mut statuses = vec![];
    for i in 0..25 {
        statuses.push(status(&app, &sprayer, None, &format!("guess{i}"), "password1").await);
    }
    let checked = statuses.iter().filter(|s| **s == 401).count() as i64;
    assert_eq!(checked, CLIENT_BUDGET, "{statuses:?}");
    assert!(statuses[CLIENT_BUDGET as usize..].iter().all(|s| *s == 429));
    // The supervisor's phone, on the same Wi-Fi, logs in.
    assert_eq!(status(&app, &phone, None, "sup", PASSWORD).await, 303);
    // A browser there that has never logged in is slowed, whoever it logs in as…
    let r = login(&app, &client_from(wifi), None, "sup2", PASSWORD).await;
    assert_slowed(&r, "an untrusted browser on the shared address");
    // …but not at another address.
    assert_eq!(
        status(&app, &client_from("127.0.0.4"), None, "sup2", PASSWORD).await,
        303
    );
}

#[actix_web::test]
async fn behind_a_trusted_proxy_each_forwarded_address_counts_on_its_own() {
    let (clock, _time) = manual_clock("2026-11-24T19:00:00Z", chrono_tz::America::New_York);
    // The proxy is 127.0.0.1; 127.0.0.9 is a peer that is not a trusted proxy.
    let app = spawn_app_behind(&["127.0.0.1/32"], clock).await;
    app.user("sup", Role::Supervisor).await;
    let proxy = client_from("127.0.0.1");
    // Entries with a port, as some proxies write them.
    for i in 0..CLIENT_BUDGET {
        let forwarded = Some("203.0.113.5:5555");
        let s = status(&app, &proxy, forwarded, &format!("guess{i}"), "wrong").await;
        assert_eq!(s, 401, "try {i}");
    }
    let r = login(&app, &proxy, Some("203.0.113.5:6000"), "sup", PASSWORD).await;
    assert_slowed(&r, "the guessing address, whatever its port");
    // A client added on the left by the guesser is not believed: still the same address.
    let r = login(
        &app,
        &proxy,
        Some("198.51.100.1, 203.0.113.5:7000"),
        "sup",
        PASSWORD,
    )
    .await;
    assert_slowed(&r, "a forged address left of the proxy's is ignored");
    // Another address behind the same proxy logs in: the port did not make every client
    // the proxy.
    assert_eq!(
        status(&app, &proxy, Some("203.0.113.6:5555"), "sup", PASSWORD).await,
        303
    );
    assert_eq!(
        status(&app, &proxy, Some("[2001:db8::6]:443"), "sup", PASSWORD).await,
        303
    );

    // An untrusted peer's X-Forwarded-For is ignored: changing it does not make a new client.
    let direct = client_from("127.0.0.9");
    for i in 0..CLIENT_BUDGET {
        let forged = format!("192.0.2.{i}");
        let s = status(&app, &direct, Some(&forged), &format!("other{i}"), "wrong").await;
        assert_eq!(s, 401, "try {i}");
    }
    let r = login(&app, &direct, Some("192.0.2.200"), "sup", PASSWORD).await;
    assert_slowed(&r, "the peer is the client");
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
    // Others guessing the username do not hold back the logged-in browser (a trusted device).
    let rival = client_from("127.0.0.7");
    for _ in 0..USER_BUDGET + 1 {
        login(&app, &rival, None, "sup", "wrong").await;
    }
    for i in 0..DEVICE_BUDGET {
        let r = change("not my password").await;
        assert_eq!(r.status(), 422, "wrong current password {i}");
    }
    let before = app.tables().await;
    let r = change(PASSWORD).await;
    assert_eq!(r.status(), 429, "the next check waits, right or not");
    let page = r.text().await.unwrap();
    assert!(page.contains("Too many wrong passwords"), "{page}");
    app.assert_nothing_written(&before, "the password is unchanged")
        .await;
    // After the wait, the right current password changes it.
    time.advance(chrono::Duration::seconds(1));
    let r = change(PASSWORD).await;
    assert_eq!(r.status(), 303);
}

/// Usernames compare by ASCII case only, in the lookup and in the throttle's keys alike,
/// whatever the database's locale: `ADMİN` (a dotted capital I) is not `admin`, and the
/// Kelvin sign `K` is not `k`.
#[actix_web::test]
async fn usernames_fold_ascii_case_only_in_the_lookup_and_the_throttle() {
    let (clock, _time) = manual_clock("2026-11-24T19:00:00Z", chrono_tz::America::New_York);
    let app = spawn_app_with_clock(clock).await;
    app.user("admin", Role::Admin).await;
    app.user("kate", Role::Supervisor).await;
    let fresh = |n: u8| client_from(&format!("127.0.1.{n}"));
    assert_eq!(status(&app, &fresh(1), None, "ADMIN", PASSWORD).await, 303);
    assert_eq!(
        status(&app, &fresh(2), None, "ADM\u{130}N", PASSWORD).await,
        401,
        "a dotted capital I is not an i"
    );
    assert_eq!(
        status(&app, &fresh(3), None, "\u{212A}ATE", PASSWORD).await,
        401,
        "a Kelvin sign is not a k"
    );
    // Failures for spellings the lookup does not take for kate or admin (a budget's worth
    // with the one above) are not theirs…
    for i in 1..USER_BUDGET {
        assert_eq!(
            status(&app, &fresh(4), None, "\u{212A}ATE", "wrong").await,
            401
        );
        assert_eq!(
            status(&app, &fresh(5), None, "ADM\u{130}N", "wrong").await,
            401,
            "{i}"
        );
    }
    assert_eq!(status(&app, &fresh(6), None, "kate", PASSWORD).await, 303);
    assert_eq!(status(&app, &fresh(6), None, "admin", PASSWORD).await, 303);
    // …while spellings it does take count for the user.
    for i in 0..USER_BUDGET {
        let spelling = if i % 2 == 0 { "KATE" } else { "KaTe" };
        assert_eq!(status(&app, &fresh(7), None, spelling, "wrong").await, 401);
    }
    let r = login(&app, &fresh(8), None, "kate", PASSWORD).await;
    assert_slowed(&r, "KATE's failures are kate's");
}

/// The login's lookup of a username is answered from the username index: SQLite's `NOCASE`
/// unique index, PostgreSQL's on `lower(username)` (which it could use even with sequential
/// scans switched off).
#[actix_web::test]
async fn the_login_lookup_uses_the_username_index() {
    use spades_im::db::Raw;
    use spades_im::db::users::{BY_NAME_POSTGRES, BY_NAME_SQLITE};
    let app = crate::helpers::spawn_app().await;
    app.user("admin", Role::Admin).await;
    let mut tx = app.db.snapshot().await.unwrap();
    let plan: Vec<String> = match tx.raw() {
        Raw::Sqlite(c) => {
            let rows: Vec<(i64, i64, i64, String)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "EXPLAIN QUERY PLAN {BY_NAME_SQLITE}"
            )))
            .bind("ADMIN")
            .fetch_all(c)
            .await
            .unwrap();
            rows.into_iter().map(|(_, _, _, detail)| detail).collect()
        }
        Raw::Postgres(c) => {
            sqlx::query("SET LOCAL enable_seqscan = off")
                .execute(&mut *c)
                .await
                .unwrap();
            sqlx::query_scalar(sqlx::AssertSqlSafe(format!("EXPLAIN {BY_NAME_POSTGRES}")))
                .bind("ADMIN")
                .fetch_all(c)
                .await
                .unwrap()
        }
    };
    let plan = plan.join("\n");
    println!("{plan}");
    let index = if app.db.kind() == spades_im::db::StoreKind::Postgres {
        "Index Scan using users_username"
    } else {
        "SEARCH users USING INDEX sqlite_autoindex_users_1 (username=?)"
    };
    assert!(plan.contains(index), "{plan}");
}
