//! Campus sign-in (OpenID Connect) against a real provider (oidc_provider.rs): every sign-in
//! goes through the provider's login and consent pages over HTTP. A known, active account
//! with the identity's email gets a session; anything else (an unknown or unverified email, a
//! deactivated account, a state or cookie that does not match, a replayed code, an ID token
//! another key signed, for another client, expired, with another nonce or issuer) gets no
//! session and creates nothing.

use serde_json::{Value, json};
use spades_im::service::{Role, people::users};

use crate::concurrency::BIN;
use crate::helpers::{PASSWORD, TestApp, html_cells, html_element, spawn_app, spawn_app_with_oidc};
use crate::oidc_provider::{
    CLIENT_ID, CLIENT_SECRET, PUBLIC_URL, Provider, begin, location, set_cookies, settings,
    sign_in, through_provider,
};

/// The provider's accounts: login -> claims.
fn accounts() -> Value {
    json!({
        "ana": {"email": "ana@campus.test", "email_verified": true, "name": "Ana Supervisor"},
        "boss": {"email": "Boss@Campus.TEST", "name": "The Coordinator"},
        "cy": {"email": "cy@campus.test", "name": "Cy New"},
        "stranger": {"email": "stranger@campus.test", "email_verified": true, "name": "Nobody Here"},
        "unverified": {"email": "ana@campus.test", "email_verified": false, "name": "Ana?"},
    })
}

/// The provider (with `tamper`) and the app using it: supervisor "ana" (ana@campus.test),
/// admin "boss" (boss@campus.test), both with [`PASSWORD`].
async fn setup(tamper: Option<&str>, only: bool) -> (Provider, TestApp) {
    let provider = Provider::start(accounts(), tamper);
    let app = app_of(&provider, only).await;
    (provider, app)
}

/// The app using `provider`, with "ana" and "boss" as [`setup`] says.
async fn app_of(provider: &Provider, only: bool) -> TestApp {
    let app = spawn_app_with_oidc(
        Some(PUBLIC_URL.parse().expect("public url")),
        Some(settings(provider, only)),
    )
    .await;
    app.user("ana", Role::Supervisor).await;
    set_email(&app, "ana", "ana@campus.test").await;
    app.user("boss", Role::Admin).await;
    set_email(&app, "boss", "boss@campus.test").await;
    app
}

async fn set_email(app: &TestApp, name: &str, email: &str) {
    let change = users::AccountChange {
        email: Some(email.into()),
        ..Default::default()
    };
    users::change(&app.db, None, name, &change)
        .await
        .expect("set the email");
}

async fn account(app: &TestApp, name: &str) -> users::Account {
    users::all(&app.db)
        .await
        .expect("accounts")
        .into_iter()
        .find(|a| a.username == name)
        .expect("the account")
}

/// Whether an answer sets a session cookie.
fn sets_session(r: &reqwest::Response) -> bool {
    set_cookies(r)
        .iter()
        .any(|c| c.starts_with("spades_session=") || c.starts_with("__Host-spades_session="))
}

/// `r` opened no session: no session cookie set, and `browser` is still sent to /login.
async fn assert_no_session(
    app: &TestApp,
    r: &reqwest::Response,
    browser: &reqwest::Client,
    what: &str,
) {
    assert!(
        !sets_session(r),
        "{what}: a session cookie was set: {:?}",
        set_cookies(r)
    );
    let page = browser
        .get(app.url("/supervise"))
        .send()
        .await
        .expect("/supervise");
    assert_eq!(page.status(), 303, "{what}: /supervise without a session");
    assert!(
        location(&page).starts_with("/login"),
        "{what}: {}",
        location(&page)
    );
}

/// A campus sign-in as `login` is refused with `status` and opens no session.
async fn refused(
    app: &TestApp,
    provider: &Provider,
    login: &str,
    status: u16,
    what: &str,
) -> String {
    let (r, browser) = sign_in(&app.address, provider, login, None).await;
    assert_eq!(r.status(), status, "{what}");
    assert_no_session(app, &r, &browser, what).await;
    r.text().await.expect("body")
}

#[actix_web::test]
async fn a_known_supervisor_signs_in_to_tonights_matches() {
    let (provider, app) = setup(None, false).await;
    assert!(account(&app, "ana").await.last_login_at.is_none());
    let (r, browser) = sign_in(&app.address, &provider, "ana", None).await;
    assert_eq!(r.status(), 303);
    assert_eq!(location(&r), "/supervise");
    let cookies = set_cookies(&r);
    let session = cookies
        .iter()
        .find(|c| c.starts_with("spades_session="))
        .unwrap_or_else(|| panic!("a session cookie: {cookies:?}"));
    // The browser comes from the provider's site: a Strict cookie would not be sent.
    assert!(session.contains("SameSite=Lax"), "{session}");
    // The flow's cookie is cleared.
    assert!(
        cookies
            .iter()
            .any(|c| c.starts_with("spades_oidc=") && c.contains("Max-Age=0")),
        "{cookies:?}"
    );
    let page = browser
        .get(app.url("/supervise"))
        .send()
        .await
        .expect("/supervise");
    assert_eq!(page.status(), 200, "the session opens /supervise");
    assert!(
        account(&app, "ana").await.last_login_at.is_some(),
        "last login set"
    );

    // The users page: ana signed in on campus, boss never did.
    let admin = app.browser("boss").await;
    let html = admin
        .get("/admin/users")
        .await
        .text()
        .await
        .expect("users page");
    let table = html_element(&html, "users", "</table>").expect("the users table");
    let head = html_cells(&table[..table.find("</thead>").expect("thead")]);
    let column = head
        .iter()
        .position(|h| h.eq_ignore_ascii_case("Campus sign-in"))
        .unwrap_or_else(|| panic!("a Campus sign-in column: {head:?}"));
    let cell = |name: &str| {
        let row = html_element(&html, &format!("row-{name}"), "</tr>").expect("the user's row");
        html_cells(row)[column].clone()
    };
    assert_eq!(cell("boss"), "never");
    let ana = cell("ana");
    assert!(
        ana != "never" && ana.chars().any(|c| c.is_ascii_digit()),
        "a time: {ana:?}"
    );
}

#[actix_web::test]
async fn an_admin_signs_in_to_the_dashboard_or_to_next() {
    let (provider, app) = setup(None, false).await;
    // The provider says Boss@Campus.TEST, the account has boss@campus.test.
    let (r, browser) = sign_in(&app.address, &provider, "boss", None).await;
    assert_eq!(r.status(), 303);
    assert_eq!(location(&r), "/admin");
    let page = browser
        .get(app.url("/admin/users"))
        .send()
        .await
        .expect("/admin/users");
    assert_eq!(page.status(), 200, "the admin's session");

    let (r, _) = sign_in(&app.address, &provider, "boss", Some("/admin/users")).await;
    assert_eq!(r.status(), 303);
    assert_eq!(location(&r), "/admin/users", "next kept");
}

#[actix_web::test]
async fn an_unknown_identity_is_refused_and_nothing_is_created() {
    let (provider, app) = setup(None, false).await;
    let before = users::all(&app.db).await.expect("accounts").len();
    let body = refused(&app, &provider, "stranger", 403, "unknown email").await;
    assert!(
        body.contains("coordinator"),
        "tells to ask the coordinator: {body}"
    );
    assert!(!body.contains("stranger@campus.test"), "{body}");
    assert_eq!(users::all(&app.db).await.expect("accounts").len(), before);
}

#[actix_web::test]
async fn an_unverified_email_is_refused() {
    let (provider, app) = setup(None, false).await;
    // Same email as ana's account, but the provider says it is not verified.
    refused(&app, &provider, "unverified", 403, "email_verified false").await;
}

#[actix_web::test]
async fn a_deactivated_user_is_refused() {
    let (provider, app) = setup(None, false).await;
    let change = users::AccountChange {
        active: Some(false),
        ..Default::default()
    };
    users::change(&app.db, None, "ana", &change)
        .await
        .expect("deactivate");
    refused(&app, &provider, "ana", 403, "deactivated").await;
}

#[actix_web::test]
async fn a_callback_without_its_state_or_cookie_is_400() {
    let (provider, app) = setup(None, false).await;
    let flow = through_provider(&app.address, &provider, "ana", None).await;
    let url = url::Url::parse(&flow.callback).expect("callback URL");
    let query: Vec<(String, String)> = url.query_pairs().into_owned().collect();
    let with = |replace: Option<&str>| {
        let mut u = url.clone();
        u.set_query(None);
        for (k, v) in &query {
            match (k.as_str(), replace) {
                ("state", None) => {}
                ("state", Some(other)) => {
                    u.query_pairs_mut().append_pair(k, other);
                }
                _ => {
                    u.query_pairs_mut().append_pair(k, v);
                }
            }
        }
        u.to_string()
    };
    let forged = with(Some("forged-state"));
    let missing = with(None);
    for (what, target) in [("forged state", &forged), ("missing state", &missing)] {
        let r = flow.browser.get(target).send().await.expect("callback");
        assert_eq!(r.status(), 400, "{what}");
        assert_no_session(&app, &r, &flow.browser, what).await;
    }
    // The right state, but a browser without the flow's cookie.
    let stranger = crate::oidc_provider::browser();
    let r = stranger.get(&flow.callback).send().await.expect("callback");
    assert_eq!(r.status(), 400, "missing cookie");
    assert_no_session(&app, &r, &stranger, "missing cookie").await;
}

#[actix_web::test]
async fn a_replayed_code_is_refused() {
    let (provider, app) = setup(None, false).await;
    let flow = through_provider(&app.address, &provider, "ana", None).await;
    let first = flow.finish().await;
    assert_eq!(first.status(), 303, "the first use of the code");
    // Someone replays the same callback with the same flow cookie: state and cookie match,
    // the provider refuses the code.
    let (r, replay) = flow.replay().await;
    assert_eq!(r.status(), 403, "replayed code");
    assert_no_session(&app, &r, &replay, "replayed code").await;
}

#[actix_web::test]
async fn the_providers_own_error_is_403() {
    let (provider, app) = setup(None, false).await;
    let (browser, _, authorize) = begin(&app.address, &provider, None).await;
    let state = url::Url::parse(&authorize)
        .expect("authorize URL")
        .query_pairs()
        .find(|(k, _)| k == "state")
        .map(|(_, v)| v.into_owned())
        .expect("a state");
    let r = browser
        .get(app.url(&format!(
            "/auth/oidc/callback?error=access_denied&state={state}"
        )))
        .send()
        .await
        .expect("callback");
    assert_eq!(r.status(), 403);
    assert_no_session(&app, &r, &browser, "access_denied").await;
}

/// An ID token the provider's answer carries `tamper`ed is refused (403, no session).
async fn tampered_token_is_refused(tamper: &str) -> Provider {
    let (provider, app) = setup(Some(tamper), false).await;
    refused(&app, &provider, "ana", 403, tamper).await;
    provider
}

#[actix_web::test]
async fn a_token_signed_by_another_key_with_the_same_kid_is_refused() {
    tampered_token_is_refused("same_kid").await;
}

/// A kid not in the kept key set makes one fetch of the key set again, even a second after
/// discovery fetched it; still unknown, it is refused.
#[actix_web::test]
async fn a_token_signed_by_an_unknown_key_is_refused_after_one_jwks_refetch() {
    let provider = tampered_token_is_refused("unknown_kid").await;
    assert_eq!(
        provider.jwks_fetches().await,
        2,
        "one fetch, one re-fetch for the new kid"
    );
}

#[actix_web::test]
async fn a_token_for_another_client_is_refused() {
    tampered_token_is_refused("aud").await;
}

#[actix_web::test]
async fn an_expired_token_is_refused() {
    tampered_token_is_refused("exp").await;
}

#[actix_web::test]
async fn a_token_with_another_nonce_is_refused() {
    tampered_token_is_refused("nonce").await;
}

#[actix_web::test]
async fn a_token_from_another_issuer_is_refused() {
    tampered_token_is_refused("iss").await;
}

#[actix_web::test]
async fn the_jwks_is_cached_and_refetched_for_a_new_key() {
    let (provider, app) = setup(None, false).await;
    for i in 0..2 {
        let (r, _) = sign_in(&app.address, &provider, "ana", None).await;
        assert_eq!(r.status(), 303, "sign-in {i}");
    }
    assert_eq!(
        provider.jwks_fetches().await,
        1,
        "two sign-ins, one JWKS fetch"
    );

    // The provider rotates its key at the second token it issues (and publishes the new one).
    let (provider, app) = setup(Some("rotate"), false).await;
    let (r, _) = sign_in(&app.address, &provider, "ana", None).await;
    assert_eq!(r.status(), 303, "before the rotation");
    assert_eq!(provider.jwks_fetches().await, 1);
    let (r, _) = sign_in(&app.address, &provider, "ana", None).await;
    assert_eq!(r.status(), 303, "a token signed by the new, published key");
    assert_eq!(
        provider.jwks_fetches().await,
        2,
        "one more JWKS fetch for the new kid"
    );
}

#[actix_web::test]
async fn oidc_only_refuses_a_supervisors_password_but_not_an_admins() {
    let (provider, app) = setup(None, true).await;
    let client = crate::oidc_provider::browser();
    let r = client
        .post(app.url("/login"))
        .form(&[("username", "ana"), ("password", PASSWORD)])
        .send()
        .await
        .expect("login");
    assert_eq!(r.status(), 403, "a supervisor's right password");
    let session = sets_session(&r);
    let body = r.text().await.expect("body");
    assert!(!session, "no session");
    assert!(body.contains("Log in with your campus account"), "{body}");
    assert!(
        app.log_in("boss", PASSWORD).await.is_some(),
        "an admin's password still logs in"
    );

    let login = reqwest::get(app.url("/login"))
        .await
        .expect("/login")
        .text()
        .await
        .expect("page");
    let link = login
        .find("href=\"/auth/oidc/login")
        .expect("the campus link");
    let password_form = login.find("name=\"username\"").expect("the password form");
    assert!(link < password_form, "the campus link comes first");
    // The supervisor still signs in on campus.
    let (r, _) = sign_in(&app.address, &provider, "ana", None).await;
    assert_eq!(r.status(), 303);
}

#[actix_web::test]
async fn the_login_page_shows_the_campus_link_only_when_configured() {
    let (_provider, app) = setup(None, false).await;
    let plain = spawn_app().await;
    let page = plain.get("/login").await.text().await.expect("page");
    assert!(!page.contains("/auth/oidc/login"), "no campus link");
    assert!(!page.contains("campus account"), "no campus link");
    assert_eq!(plain.get("/auth/oidc/login").await.status(), 404);

    let page = app.get("/login").await.text().await.expect("page");
    let link = html_element_from(&page, "href=\"/auth/oidc/login", "</a>").expect("the link");
    assert!(link.contains("Log in with your campus account"), "{link}");
    assert!(
        page.find("href=\"/auth/oidc/login") < page.find("name=\"username\""),
        "the link comes before the password form"
    );
    let page = app
        .get("/login?next=/admin/users")
        .await
        .text()
        .await
        .expect("page");
    let link = html_element_from(&page, "href=\"/auth/oidc/login", "</a>").expect("the link");
    assert!(
        link.contains("?next=") && link.contains("admin"),
        "next carried: {link}"
    );
}

/// From the tag holding `needle` to the first `close` after it.
fn html_element_from<'a>(html: &'a str, needle: &str, close: &str) -> Option<&'a str> {
    let at = html.find(needle)?;
    let start = html[..at].rfind('<')?;
    let len = html[start..].find(close)? + close.len();
    Some(&html[start..start + len])
}

#[actix_web::test]
async fn oidc_needs_a_public_url() {
    let provider = Provider::start(accounts(), None);
    let dir = tempfile::tempdir().expect("dir");
    let settings = spades_im::app::Settings {
        bind: "127.0.0.1:0".into(),
        db: spades_im::db::Location::File(dir.path().join("x.sqlite3")),
        secure_cookies: false,
        page_cache_bytes: spades_im::web::middleware::page_cache::DEFAULT_BYTES,
        clock: spades_im::domain::Clock::system(spades_im::domain::machine_zone()),
        trusted_proxies: vec![],
        workers: None,
        public_url: None,
        oidc: Some(settings(&provider, false)),
        mail: None,
    };
    assert!(spades_im::app::Application::build(&settings).await.is_err());
}

/// The secret is never printed: not by `--help` with the secret in the environment.
#[test]
fn help_does_not_print_the_client_secret() {
    let out = std::process::Command::new(BIN)
        .arg("--help")
        .env("SPADES_OIDC_CLIENT_SECRET", CLIENT_SECRET)
        .output()
        .expect("spades-im --help");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("--oidc-client-secret"),
        "the flag is documented: {text}"
    );
    assert!(!text.contains(CLIENT_SECRET), "{text}");
}

/// The binary serving with the flags: its start-up line names issuer, client and redirect
/// URI but not the secret; a refused sign-in's warn line holds the reason only (no code,
/// token, email or secret).
#[actix_web::test]
async fn refusals_are_logged_without_code_token_email_or_secret() {
    use std::io::{BufRead, Read};
    let provider = Provider::start(accounts(), None);
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("spades.sqlite3");
    {
        // ana (ana@campus.test), so that a replay goes as far as the token endpoint.
        let location = spades_im::db::Location::File(db.clone());
        let store = spades_im::db::Db::open(
            &location,
            spades_im::domain::Clock::system(spades_im::domain::machine_zone()),
        )
        .await
        .expect("db");
        spades_im::service::people::accounts::create_user(
            &store,
            None,
            "ana",
            Role::Supervisor,
            PASSWORD,
        )
        .await
        .expect("user");
        let change = users::AccountChange {
            email: Some("ana@campus.test".into()),
            ..Default::default()
        };
        users::change(&store, None, "ana", &change)
            .await
            .expect("email");
    }
    let log = tempfile::NamedTempFile::new().expect("log file");
    let mut child = std::process::Command::new(BIN)
        .args([
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--insecure-cookies",
            "--public-url",
            PUBLIC_URL,
        ])
        .args([
            "--oidc-issuer",
            &provider.issuer,
            "--oidc-client-id",
            CLIENT_ID,
        ])
        .arg("--db")
        .arg(&db)
        .env("SPADES_OIDC_CLIENT_SECRET", CLIENT_SECRET)
        .env("SPADES_LOG", "info")
        .env_remove("SPADES_TEST_DB")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(log.reopen().expect("log"))
        .spawn()
        .expect("start the server");
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    stdout
        .read_line(&mut first)
        .expect("the server's first line");
    let address = first
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .map(|a| a.trim_end_matches('/').to_string())
        .unwrap_or_else(|| {
            panic!(
                "no address in {first:?}: {}",
                std::fs::read_to_string(log.path()).unwrap_or_default()
            )
        });

    // Refused: an unknown email; a replayed code.
    let (r, _) = sign_in(&address, &provider, "stranger", None).await;
    assert_eq!(r.status(), 403);
    let flow = through_provider(&address, &provider, "ana", None).await;
    let code = url::Url::parse(&flow.callback)
        .expect("callback")
        .query_pairs()
        .find(|(k, _)| k == "code")
        .map(|(_, v)| v.into_owned())
        .expect("a code");
    assert_eq!(flow.finish().await.status(), 303);
    let (r, _) = flow.replay().await;
    assert_eq!(r.status(), 403);

    child.kill().expect("stop the server");
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).expect("stdout");
    child.wait().expect("the server's end");
    let output = format!(
        "{first}{rest}{}",
        std::fs::read_to_string(log.path()).expect("log")
    );

    let refusals: Vec<&str> = output
        .lines()
        .filter(|l| l.contains("campus sign-in refused"))
        .collect();
    assert_eq!(refusals.len(), 2, "one warn line per refusal: {output}");
    // docs/api.md, "What is logged": warn, from the pages of campus sign-in.
    for line in &refusals {
        assert!(
            line.contains("WARN") && line.contains("spades_im::web::pages::campus"),
            "{line}"
        );
    }
    assert!(
        output.contains(&format!(
            "campus sign-in: issuer {}, client {CLIENT_ID}, redirect URI {PUBLIC_URL}/auth/oidc/callback",
            provider.issuer
        )),
        "the start-up line: {output}"
    );
    for secret in [
        CLIENT_SECRET,
        &code,
        "stranger@campus.test",
        "ana@campus.test",
        "eyJ",
    ] {
        assert!(!output.contains(secret), "{secret:?} in the log: {output}");
    }
}

/// A supervisor added with a one-time password who signs in on campus goes to tonight's
/// matches, not to the password change, and the one-time password no longer logs in.
#[actix_web::test]
async fn a_campus_sign_in_voids_a_one_time_password() {
    let (provider, app) = setup(None, false).await;
    let cy = users::NewAccount {
        username: "cy".into(),
        role: Role::Supervisor,
        email: Some("cy@campus.test".into()),
        deliver: None,
    };
    let (_, handed) = users::add(&app.db, None, &cy, &[], users::Delivery::Shown)
        .await
        .expect("cy with a one-time password");
    let password = handed.shown().expect("shown").to_string();
    // Someone else who heard the one-time password logs in with it: held to the password
    // change.
    let other = app
        .log_in("cy", &password)
        .await
        .expect("the one-time password works before");
    let held = other
        .get(app.url("/supervise"))
        .send()
        .await
        .expect("/supervise");
    assert_eq!(location(&held), "/account", "held to the password change");
    let (r, _) = sign_in(&app.address, &provider, "cy", None).await;
    assert_eq!(r.status(), 303);
    assert_eq!(location(&r), "/supervise", "not sent to choose a password");
    assert!(!account(&app, "cy").await.must_change_password);
    assert!(
        app.log_in("cy", &password).await.is_none(),
        "the one-time password is void"
    );
    // The session it opened ended with it (not freed of the hold).
    let after = other
        .get(app.url("/supervise"))
        .send()
        .await
        .expect("/supervise");
    assert!(
        location(&after).starts_with("/login"),
        "the one-time password's session: {} {}",
        after.status(),
        location(&after)
    );
    let voided = app.audit_rows("void_one_time_password", &["action"]).await;
    assert_eq!(voided.len(), 1, "{voided:?}");
}

/// A provider that tells the email only at its userinfo endpoint (not in the ID token): the
/// email is asked there, with the access token, and the sign-in works.
#[actix_web::test]
async fn the_email_is_asked_at_the_userinfo_endpoint_when_the_id_token_has_none() {
    let provider = Provider::start_for(
        PUBLIC_URL,
        json!({"accounts": accounts(), "email_in_id_token": false}),
    );
    let app = app_of(&provider, false).await;
    let (r, _) = sign_in(&app.address, &provider, "ana", None).await;
    assert_eq!(r.status(), 303);
    assert_eq!(location(&r), "/supervise");
    // The unverified identity is refused by what userinfo says, too.
    let (r, browser) = sign_in(&app.address, &provider, "unverified", None).await;
    assert_no_session(&app, &r, &browser, "unverified at userinfo").await;
    assert_eq!(r.status(), 403);
}

/// A provider that cannot be reached: the campus link answers 503 with a page that says so,
/// and an admin still logs in with a password.
#[actix_web::test]
async fn a_provider_that_cannot_be_reached_is_a_503_and_passwords_still_work() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let oidc = spades_im::service::people::oidc::OidcSettings {
        issuer: format!("http://{closed}"),
        client_id: CLIENT_ID.into(),
        client_secret: spades_im::service::people::oidc::ClientSecret::new(CLIENT_SECRET),
        only: true,
    };
    let app = spawn_app_with_oidc(Some(PUBLIC_URL.parse().expect("public url")), Some(oidc)).await;
    app.user("boss", Role::Admin).await;
    let r = app.get("/auth/oidc/login").await;
    assert_eq!(r.status(), 503);
    let body = r.text().await.expect("body");
    assert!(body.contains("Campus sign-in is unavailable"), "{body}");
    assert!(
        app.log_in("boss", PASSWORD).await.is_some(),
        "the admin's password still logs in"
    );
}

/// Hostile callback queries (no sign-in begun, or one begun and a state that is not its
/// own) are each a 400 page, never a 5xx, and open no session.
#[actix_web::test]
async fn hostile_callback_queries_are_400_and_open_nothing() {
    let (_provider, app) = setup(None, false).await;
    let long = "x".repeat(6000);
    let values = [
        "",
        "%00",
        "%FF%FE",
        "%E2%80%AE",
        "%",
        "%zz",
        "%3Cscript%3E",
        "a+b%20c",
        &long,
    ];
    let fresh = crate::oidc_provider::browser();
    let begun = crate::oidc_provider::browser();
    let r = begun
        .get(app.url("/auth/oidc/login"))
        .send()
        .await
        .expect("begin");
    assert_eq!(r.status(), 303);
    for value in values {
        for query in [
            format!("code={value}&state={value}"),
            format!("state={value}"),
            format!("error={value}&state={value}"),
            format!("code={value}&code={value}"),
        ] {
            // Each callback ends its sign-in (its cookie is cleared): begin one again.
            let r = begun
                .get(app.url("/auth/oidc/login"))
                .send()
                .await
                .expect("begin");
            assert_eq!(r.status(), 303);
            for browser in [&fresh, &begun] {
                let r = browser
                    .get(app.url(&format!("/auth/oidc/callback?{query}")))
                    .send()
                    .await
                    .expect("callback");
                assert_eq!(r.status(), 400, "{query}");
                assert!(!sets_session(&r), "{query}");
            }
        }
    }
}

/// A provider that answers discovery with an error is asked once: the sign-ins of the next
/// half-minute are told at once (503) instead of each asking it again and waiting.
#[actix_web::test]
async fn a_failed_discovery_is_remembered_for_a_while() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let issuer = format!("http://{}", listener.local_addr().expect("address"));
    let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = asked.clone();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut head = [0u8; 4096];
            let _ = stream.read(&mut head);
            let _ = stream.write_all(
                b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            );
        }
    });
    let oidc = spades_im::service::people::oidc::OidcSettings {
        issuer,
        client_id: CLIENT_ID.into(),
        client_secret: spades_im::service::people::oidc::ClientSecret::new(CLIENT_SECRET),
        only: false,
    };
    let app = spawn_app_with_oidc(Some(PUBLIC_URL.parse().expect("public url")), Some(oidc)).await;
    for _ in 0..3 {
        assert_eq!(app.get("/auth/oidc/login").await.status(), 503);
    }
    assert_eq!(
        asked.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "the provider asked once for three sign-ins"
    );
}

/// With Secure cookies the flow cookie is `__Host-spades_oidc` (Secure, Path=/): no other
/// site of the domain can plant one. A callback that is not the browser's own (any site can
/// send one) is refused and leaves the sign-in under way: it still finishes.
#[actix_web::test]
async fn the_flow_cookie_is_a_host_cookie_and_a_foreign_callback_leaves_it() {
    let provider = Provider::start(accounts(), None);
    let secure = crate::helpers::spawn_secure_app_with_oidc(
        Some(PUBLIC_URL.parse().expect("public url")),
        Some(settings(&provider, false)),
    )
    .await;
    let r = secure.get("/auth/oidc/login").await;
    assert_eq!(r.status(), 303);
    let flow = set_cookies(&r)
        .into_iter()
        .find(|c| c.starts_with("__Host-spades_oidc="))
        .unwrap_or_else(|| panic!("a __Host- flow cookie: {:?}", set_cookies(&r)));
    assert!(
        flow.contains("Secure") && flow.contains("Path=/;"),
        "{flow}"
    );

    let (_provider, app) = setup(None, false).await;
    let flow = through_provider(&app.address, &_provider, "ana", None).await;
    let foreign = flow
        .browser
        .get(app.url("/auth/oidc/callback?code=x&state=not-yours"))
        .send()
        .await
        .expect("a foreign callback");
    assert_eq!(foreign.status(), 400);
    assert!(
        set_cookies(&foreign).is_empty(),
        "{:?}",
        set_cookies(&foreign)
    );
    let r = flow.finish().await;
    assert_eq!(r.status(), 303, "the sign-in under way still finishes");
}
