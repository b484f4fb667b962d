//! "Log in with your campus account" in a real browser (headless Chromium) against a real
//! provider on another site: the app on 127.0.0.1, the provider as `localhost`. The browser
//! comes back from the provider's site, so the session cookie a campus sign-in sets must be
//! one the browser sends on the redirect to the start page (SameSite=Lax; a Strict cookie is
//! not sent on a navigation that began on another site, and the start page would ask for a
//! login again).

use std::time::Duration;

use anyhow::{Context, ensure};
use serde_json::json;
use spades_im::service::{Role, people::users};

use crate::browser::evidence;
use crate::helpers::{PASSWORD, TestApp, spawn_app_with_oidc_on};
use crate::oidc_provider::{Provider, settings};
use crate::webdriver::{Browser, binaries_or_skip};

const WAIT: Duration = Duration::from_secs(30);
const WHOLE_TEST: Duration = Duration::from_secs(180);

/// A free port on 127.0.0.1: the app's address must be known before it starts, as it is
/// the redirect URI registered at the provider.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

#[actix_web::test]
async fn browser_a_supervisor_signs_in_at_the_campus_provider_and_lands_on_tonight() {
    let test =
        "browser_campus::browser_a_supervisor_signs_in_at_the_campus_provider_and_lands_on_tonight";
    let Some((driver, chrome)) = binaries_or_skip(test) else {
        return;
    };
    let port = free_port();
    let public_url = format!("http://127.0.0.1:{port}");
    let provider = Provider::start_for(
        &public_url,
        json!({
            "accounts": {"ana": {"email": "ana@campus.test", "email_verified": true}},
            "issuer_host": "localhost",
        }),
    );
    let app = spawn_app_with_oidc_on(
        &format!("127.0.0.1:{port}"),
        Some(public_url.parse().expect("public url")),
        Some(settings(&provider, true)),
    )
    .await;
    app.user("ana", Role::Supervisor).await;
    let change = users::AccountChange {
        email: Some("ana@campus.test".into()),
        ..Default::default()
    };
    users::change(&app.db, None, "ana", &change)
        .await
        .expect("ana's email");

    let browser = Browser::start(&driver, &chrome)
        .await
        .expect("chromium starts");
    let outcome = actix_web::rt::time::timeout(WHOLE_TEST, sign_in(&browser, &app)).await;
    let failure = match outcome {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(format!("{e:#}")),
        Err(_) => Some(format!("the browser test took over {WHOLE_TEST:?}")),
    };
    if let Some(failure) = failure {
        let saved = evidence(&browser, "campus-sign-in").await;
        let _ = browser.quit().await;
        panic!("{failure}\n{saved}");
    }
    browser.quit().await.expect("the browser quits");
}

/// From the login page's campus link, through the provider's login and consent pages, to
/// tonight's matches, logged in.
async fn sign_in(browser: &Browser, app: &TestApp) -> anyhow::Result<()> {
    // Without a sign-in begun, the callback's refusal page; then the login page with the
    // campus link, under --oidc-only: both pass axe-core.
    browser
        .goto(&app.url("/auth/oidc/callback?state=x"))
        .await?;
    accessible(browser, "the refused callback").await?;
    browser.goto(&app.url("/login")).await?;
    accessible(browser, "the login page with the campus link").await?;
    // Under --oidc-only, ana's right password is refused, and the message, which says to
    // use the campus account, takes the focus.
    let user = browser.find("#username").await?;
    browser.send_keys(&user, "ana").await?;
    let password = browser.find("#password").await?;
    browser.send_keys(&password, PASSWORD).await?;
    let button = browser.find("#login-button").await?;
    browser.click_and_wait_for_page(&button, WAIT).await?;
    let focused = browser.active_id().await?;
    ensure!(focused == "login-error", "focus on #{focused}");
    let message = browser.text_of("#login-error").await?;
    ensure!(message.contains("campus account"), "{message}");
    let campus = browser.wait_for("#campus-login", WAIT).await?;
    browser.click_and_wait_for_page(&campus, WAIT).await?;
    let at = browser.current_url().await?;
    ensure!(
        at.starts_with("http://localhost:"),
        "the provider's login page, at {at}"
    );
    let login = browser.wait_for("input[name=login]", WAIT).await?;
    browser.send_keys(&login, "ana").await?;
    let password = browser.find("input[name=password]").await?;
    browser.send_keys(&password, "anything").await?;
    let submit = browser.find("button[type=submit]").await?;
    browser.click_and_wait_for_page(&submit, WAIT).await?;
    let consent = browser
        .wait_for("button[type=submit]", WAIT)
        .await
        .context("the provider's consent page")?;
    browser.click_and_wait_for_page(&consent, WAIT).await?;
    let landed = browser.current_url().await?;
    ensure!(
        landed == app.url("/supervise"),
        "signed in, the browser should be on tonight's matches, not {landed}"
    );
    let source = browser.source().await?;
    ensure!(
        source.contains("Log out"),
        "tonight's matches, logged in: {source}"
    );
    Ok(())
}

/// The page passes axe-core's WCAG 2.2 AA rules and best practices.
async fn accessible(browser: &Browser, what: &str) -> anyhow::Result<()> {
    let violations = browser.axe_violations().await?;
    ensure!(violations.is_empty(), "{what}: {violations:#?}");
    Ok(())
}
