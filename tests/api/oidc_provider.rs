//! A real OpenID provider for the campus sign-in tests (tests/oidc/provider.mjs: panva's
//! oidc-provider under node, installed by `npm ci`, which `test_tools` runs when needed) and
//! a driver that signs in through its login and consent pages over HTTP, as a browser would.
//!
//! The app runs with `public_url = http://spades.test`: the provider sends the browser back to
//! `http://spades.test/auth/oidc/callback?...`, and the driver calls that on the app's real
//! address instead, so no port needs knowing before the app starts.

use std::io::BufRead;
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

/// The address the app believes it is reached at (its `public_url`).
pub const PUBLIC_URL: &str = "http://spades.test";
/// The client the app is registered as, and its secret.
pub const CLIENT_ID: &str = "spades-im";
pub const CLIENT_SECRET: &str = "provider-shared-secret-9f3k";

/// The provider's process, stopped on drop.
pub struct Provider {
    /// `http://127.0.0.1:PORT` (or another name of 127.0.0.1), exactly as the discovery
    /// document's `issuer`.
    pub issuer: String,
    child: Child,
    log: tempfile::NamedTempFile,
}

impl Provider {
    /// Starts the provider with the app's client, `accounts` (login -> claims: `email`,
    /// optional `email_verified`, `name`) and a `tamper` setting (see provider.mjs) or none.
    pub fn start(accounts: Value, tamper: Option<&str>) -> Provider {
        Provider::start_for(
            PUBLIC_URL,
            json!({"accounts": accounts, "tamper": tamper, "issuer_host": "127.0.0.1"}),
        )
    }

    /// As [`start`](Self::start), for an app reached at `public_url`, with `options` of
    /// provider.mjs's configuration: `accounts`, `tamper`, `issuer_host` (the provider names
    /// itself `http://{issuer_host}:PORT`; it listens on 127.0.0.1 whatever the name) and
    /// `email_in_id_token`.
    pub fn start_for(public_url: &str, options: Value) -> Provider {
        let issuer_host = options["issuer_host"]
            .as_str()
            .unwrap_or("127.0.0.1")
            .to_string();
        let root = env!("CARGO_MANIFEST_DIR");
        let script = format!("{root}/tests/oidc/provider.mjs");
        // `npm ci` on the first run when node_modules/ lacks it (see `test_tools`).
        crate::test_tools::node_modules().unwrap_or_else(|line| panic!("{line}"));
        let mut config = json!({
            "clients": [{
                "client_id": CLIENT_ID,
                "client_secret": CLIENT_SECRET,
                "redirect_uris": [format!("{public_url}/auth/oidc/callback")],
            }],
        });
        if let (Some(config), Some(options)) = (config.as_object_mut(), options.as_object()) {
            config.extend(options.clone());
        }
        // The provider's warnings and errors go to a file, shown when it fails to start.
        let log = tempfile::NamedTempFile::new().expect("a file for the provider's log");
        let mut child = Command::new("node")
            .arg(&script)
            .current_dir(root)
            .env("OIDC_TEST_CONFIG", config.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log.reopen().expect("the provider's log"))
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot run `node {script}` ({e}): the campus sign-in tests need Node.js \
                     (20 or later) on the PATH"
                )
            });
        let mut issuer = String::new();
        let stdout = child.stdout.take().expect("the provider's stdout");
        // Blocks until the provider listens (it prints nothing else).
        let read = std::io::BufReader::new(stdout).read_line(&mut issuer);
        let issuer = issuer.trim().to_string();
        if read.is_err() || !issuer.starts_with(&format!("http://{issuer_host}:")) {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "the OpenID provider did not start (first line {issuer:?}): {}",
                std::fs::read_to_string(log.path()).unwrap_or_default()
            );
        }
        Provider { issuer, child, log }
    }

    /// Requests the provider answered so far: `{"jwks": n, "discovery": n, "token": n}`.
    pub async fn stats(&self) -> Value {
        reqwest::get(format!("{}/_test/stats", self.issuer))
            .await
            .expect("provider stats")
            .json()
            .await
            .expect("provider stats JSON")
    }

    /// How many times the JWKS was fetched.
    pub async fn jwks_fetches(&self) -> i64 {
        self.stats().await["jwks"].as_i64().expect("jwks count")
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // A failed test shows what the provider said (its errors, its warnings).
        if std::thread::panicking() {
            eprintln!(
                "the OpenID provider's log:\n{}",
                std::fs::read_to_string(self.log.path()).unwrap_or_default()
            );
        }
    }
}

/// The app's settings for this provider (`only`: `--oidc-only`).
pub fn settings(provider: &Provider, only: bool) -> spades_im::service::people::oidc::OidcSettings {
    spades_im::service::people::oidc::OidcSettings {
        issuer: provider.issuer.clone(),
        client_id: CLIENT_ID.into(),
        client_secret: spades_im::service::people::oidc::ClientSecret::new(CLIENT_SECRET),
        only,
    }
}

/// A browser: keeps cookies (the app's and the provider's), follows no redirect.
pub fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

/// A sign-in under way: the browser, the app's `spades_oidc` cookie as the browser sends it
/// (`spades_oidc=...`), and the callback URL the provider sent the browser to, already
/// pointed at the app's real address.
pub struct Flow {
    pub browser: reqwest::Client,
    pub flow_cookie: String,
    pub callback: String,
}

impl Flow {
    /// The browser follows the provider's redirect to the app's callback.
    pub async fn finish(&self) -> reqwest::Response {
        self.browser
            .get(&self.callback)
            .send()
            .await
            .expect("callback")
    }

    /// Another browser sends the same callback with this flow's cookie (a replay).
    pub async fn replay(&self) -> (reqwest::Response, reqwest::Client) {
        let other = browser();
        let r = other
            .get(&self.callback)
            .header("cookie", &self.flow_cookie)
            .send()
            .await
            .expect("replayed callback");
        (r, other)
    }
}

/// `GET /auth/oidc/login[?next=...]` on the app at `app` (`http://127.0.0.1:PORT`): the
/// browser, its `spades_oidc` cookie, and the provider's authorization URL it was sent to.
pub async fn begin(
    app: &str,
    provider: &Provider,
    next: Option<&str>,
) -> (reqwest::Client, String, String) {
    let browser = browser();
    let start = match next {
        Some(next) => format!("{app}/auth/oidc/login?next={}", encode(next)),
        None => format!("{app}/auth/oidc/login"),
    };
    let r = browser.get(&start).send().await.expect("/auth/oidc/login");
    let status = r.status();
    let authorize = r
        .headers()
        .get("location")
        .map(|l| l.to_str().expect("Location").to_string());
    let flow_cookie = set_cookies(&r)
        .into_iter()
        .find(|c| c.starts_with("spades_oidc="))
        .map(|c| c.split(';').next().unwrap_or_default().to_string());
    let body = r.text().await.unwrap_or_default();
    assert_eq!(status, 303, "GET /auth/oidc/login: {body}");
    let authorize = authorize.expect("/auth/oidc/login answers a Location");
    assert!(
        authorize.starts_with(&format!("{}/auth?", provider.issuer)),
        "/auth/oidc/login sends the browser to the provider's authorization endpoint: {authorize}"
    );
    let flow_cookie = flow_cookie.expect("/auth/oidc/login sets the spades_oidc cookie");
    (browser, flow_cookie, authorize)
}

/// [`begin`], then through the provider's login page (as `login`) and consent page, up to the
/// provider's redirect back to the app. Panics when a step is not what a working provider and
/// app answer.
pub async fn through_provider(
    app: &str,
    provider: &Provider,
    login: &str,
    next: Option<&str>,
) -> Flow {
    let (browser, flow_cookie, authorize) = begin(app, provider, next).await;
    let back = provider_pages(&browser, provider, &authorize, login).await;
    let rest = back
        .strip_prefix(PUBLIC_URL)
        .expect("back at the public URL");
    Flow {
        browser,
        flow_cookie,
        callback: format!("{app}{rest}"),
    }
}

/// From the provider's `authorize` URL through its login page (as `login`, any password) and
/// consent page: the URL under [`PUBLIC_URL`] the provider sends the browser back to.
pub async fn provider_pages(
    browser: &reqwest::Client,
    provider: &Provider,
    authorize: &str,
    login: &str,
) -> String {
    let mut location = authorize.to_string();
    let mut pages = Vec::new();
    for _ in 0..12 {
        if location.starts_with(PUBLIC_URL) {
            assert_eq!(
                pages,
                ["login", "consent"],
                "the provider's pages on the way"
            );
            return location;
        }
        let r = browser
            .get(&location)
            .send()
            .await
            .expect("a provider page");
        if r.status().is_redirection() {
            location = location_at(&r, &provider.issuer);
            continue;
        }
        let status = r.status();
        let page = r.text().await.expect("a provider page");
        assert_eq!(status, 200, "GET {location}: {page}");
        let action = form_action(&page).unwrap_or_else(|| panic!("no form on {location}: {page}"));
        let action = if action.starts_with('/') {
            format!("{}{action}", provider.issuer)
        } else {
            action
        };
        let fields: Vec<(&str, &str)> = if page.contains("name=\"prompt\" value=\"login\"") {
            pages.push("login");
            vec![("prompt", "login"), ("login", login), ("password", "any")]
        } else if page.contains("name=\"prompt\" value=\"consent\"") {
            pages.push("consent");
            vec![("prompt", "consent")]
        } else {
            panic!("neither the login nor the consent page at {location}: {page}")
        };
        let r = browser
            .post(&action)
            .form(&fields)
            .send()
            .await
            .expect("submit");
        assert!(r.status().is_redirection(), "POST {action}: {}", r.status());
        location = location_at(&r, &provider.issuer);
    }
    panic!("the provider never sent the browser back to {PUBLIC_URL}: last at {location}")
}

/// A whole campus sign-in as `login`: the app's answer to the callback and the browser
/// (holding the session when the sign-in worked).
pub async fn sign_in(
    app: &str,
    provider: &Provider,
    login: &str,
    next: Option<&str>,
) -> (reqwest::Response, reqwest::Client) {
    let flow = through_provider(app, provider, login, next).await;
    let r = flow.finish().await;
    (r, flow.browser)
}

/// The `Location` header of a redirect.
pub fn location(r: &reqwest::Response) -> String {
    r.headers()
        .get("location")
        .unwrap_or_else(|| panic!("no Location on {} {}", r.status(), r.url()))
        .to_str()
        .expect("Location")
        .to_string()
}

/// The `Set-Cookie` headers of an answer.
pub fn set_cookies(r: &reqwest::Response) -> Vec<String> {
    r.headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().expect("Set-Cookie").to_string())
        .collect()
}

/// A redirect's target made absolute (the provider may answer a path).
fn location_at(r: &reqwest::Response, origin: &str) -> String {
    let target = location(r);
    if target.starts_with('/') {
        format!("{origin}{target}")
    } else {
        target
    }
}

/// The `action` of the first form of a page.
fn form_action(page: &str) -> Option<String> {
    let form = &page[page.find("<form")?..];
    let at = form.find("action=\"")? + "action=\"".len();
    let end = form[at..].find('"')?;
    Some(form[at..at + end].replace("&amp;", "&"))
}

/// Percent-encodes a query value.
pub fn encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// The provider itself, without the app: its pages give a code for the PKCE challenge, its
/// token endpoint (client_secret_basic) an ID token for it; a second use of the code is
/// refused. (So a campus sign-in test that fails is about the app, not the provider.)
#[actix_web::test]
async fn the_test_provider_gives_a_code_and_a_token() {
    // RFC 7636: the challenge is BASE64URL(SHA256(verifier)), computed once for this verifier.
    const VERIFIER: &str = "verifierverifierverifierverifierverifierverifier123";
    const CHALLENGE: &str = "gn7YgPbSt1AWgqGHiNRxDLBQ2G2gdrOM-2FzLOYc7rc";
    let provider = Provider::start(json!({"ana": {"email": "ana@campus.test"}}), None);
    let redirect = format!("{PUBLIC_URL}/auth/oidc/callback");
    let discovery: Value = reqwest::get(format!(
        "{}/.well-known/openid-configuration",
        provider.issuer
    ))
    .await
    .expect("discovery")
    .json()
    .await
    .expect("discovery JSON");
    assert_eq!(discovery["issuer"], provider.issuer.as_str());
    let mut authorize = url::Url::parse(
        discovery["authorization_endpoint"]
            .as_str()
            .expect("endpoint"),
    )
    .expect("authorization endpoint");
    authorize
        .query_pairs_mut()
        .append_pair("response_type", "code")
        .append_pair("client_id", CLIENT_ID)
        .append_pair("redirect_uri", &redirect)
        .append_pair("scope", "openid email profile")
        .append_pair("state", "s1")
        .append_pair("nonce", "n1")
        .append_pair("code_challenge", CHALLENGE)
        .append_pair("code_challenge_method", "S256");
    let back = provider_pages(&browser(), &provider, authorize.as_str(), "ana").await;
    let back = url::Url::parse(&back).expect("callback URL");
    let query: std::collections::HashMap<String, String> =
        back.query_pairs().into_owned().collect();
    assert_eq!(query["state"], "s1");
    let exchange = || {
        reqwest::Client::new()
            .post(
                discovery["token_endpoint"]
                    .as_str()
                    .expect("token endpoint"),
            )
            .basic_auth(CLIENT_ID, Some(CLIENT_SECRET))
            .form(&[
                ("grant_type", "authorization_code"),
                ("code", query["code"].as_str()),
                ("redirect_uri", redirect.as_str()),
                ("code_verifier", VERIFIER),
            ])
            .send()
    };
    let token: Value = exchange()
        .await
        .expect("token")
        .json()
        .await
        .expect("token JSON");
    assert!(
        token["id_token"]
            .as_str()
            .is_some_and(|t| t.split('.').count() == 3),
        "{token}"
    );
    assert_eq!(
        exchange().await.expect("replay").status(),
        400,
        "a code is used once"
    );
    let stats = provider.stats().await;
    assert_eq!(stats["token"], 2, "{stats}");
}
