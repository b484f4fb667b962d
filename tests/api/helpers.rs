//! A real server on a free port with a fresh SQLite file per test, and fixtures: users,
//! tokens, logged-in browsers (cookie clients), leagues with teams.

use serde_json::{Value, json};
use spades_im::app::{Application, Settings};
use spades_im::db::Db;
use spades_im::service::{Role, accounts};

pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    pub db: Db,
    // Keeps the database directory alive for the test's duration.
    _dir: tempfile::TempDir,
}

/// A password every fixture user gets.
pub const PASSWORD: &str = "correct horse battery";

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    pub async fn post_json(&self, path: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(self.url(path))
            .json(body)
            .send()
            .await
            .expect("request failed")
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .send()
            .await
            .expect("request failed")
    }

    /// Creates a user with [`PASSWORD`].
    pub async fn user(&self, name: &str, role: Role) {
        accounts::create_user(&self.db, None, name, role, PASSWORD)
            .await
            .expect("create user");
    }

    /// An API token acting as `name` (who must exist).
    pub async fn token(&self, name: &str) -> String {
        accounts::create_token(&self.db, name, "test")
            .await
            .expect("create token")
    }

    /// A client that sends `token` as a bearer token.
    pub fn api(&self, token: &str) -> Api {
        Api {
            base: self.address.clone(),
            token: token.to_string(),
            client: reqwest::Client::new(),
        }
    }

    /// Creates `name` as `role` and returns an API client acting as them.
    pub async fn api_user(&self, name: &str, role: Role) -> Api {
        self.user(name, role).await;
        let token = self.token(name).await;
        self.api(&token)
    }

    /// A browser-like client (cookie store, no redirects followed) logged in as `name`.
    pub async fn browser(&self, name: &str) -> Browser {
        let client = reqwest::Client::builder()
            .cookie_store(true)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        let response = client
            .post(self.url("/login"))
            .form(&[("username", name), ("password", PASSWORD)])
            .send()
            .await
            .expect("login");
        assert_eq!(response.status(), 303, "login as {name}");
        let mut browser = Browser {
            base: self.address.clone(),
            client,
            csrf: String::new(),
        };
        let account = browser
            .get("/account")
            .await
            .text()
            .await
            .expect("account page");
        browser.csrf = csrf_in(&account).expect("the account page has a CSRF token");
        browser
    }

    /// A league with `teams` teams ("Team 1", ...) under `rules`, created by `admin`.
    pub async fn league(&self, admin: &Api, slug: &str, rules: Value, teams: usize) -> Vec<i64> {
        let response = admin
            .post(
                "/api/v1/leagues",
                &json!({"name": slug, "slug": slug, "rules": {"regular": rules}}),
            )
            .await;
        assert_eq!(response.status(), 201, "create league {slug}");
        let mut ids = Vec::new();
        for i in 1..=teams {
            let body: Value = admin
                .post(
                    &format!("/api/v1/leagues/{slug}/teams"),
                    &json!({"name": format!("Team {i}"), "players": [format!("P{i}a"), format!("P{i}b")]}),
                )
                .await
                .json()
                .await
                .expect("team json");
            ids.push(body["id"].as_i64().expect("team id"));
        }
        ids
    }
}

/// The value of the first `name="csrf"` field of a page.
pub fn csrf_in(html: &str) -> Option<String> {
    let at = html.find("name=\"csrf\" value=\"")? + "name=\"csrf\" value=\"".len();
    let end = html[at..].find('"')?;
    Some(html[at..at + end].to_string())
}

/// JSON API calls with a bearer token.
pub struct Api {
    pub base: String,
    pub token: String,
    pub client: reqwest::Client,
}

impl Api {
    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{}", self.base, path))
            .bearer_auth(&self.token)
            .send()
            .await
            .expect("request failed")
    }

    pub async fn post(&self, path: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(format!("{}{}", self.base, path))
            .bearer_auth(&self.token)
            .json(body)
            .send()
            .await
            .expect("request failed")
    }

    pub async fn put(&self, path: &str, body: &Value) -> reqwest::Response {
        self.client
            .put(format!("{}{}", self.base, path))
            .bearer_auth(&self.token)
            .json(body)
            .send()
            .await
            .expect("request failed")
    }
}

/// A logged-in browser session: cookies kept, redirects not followed, the CSRF token known.
pub struct Browser {
    pub base: String,
    pub client: reqwest::Client,
    pub csrf: String,
}

impl Browser {
    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{}", self.base, path))
            .send()
            .await
            .expect("request failed")
    }

    /// Posts a form; adds the session's CSRF token unless the fields have one.
    pub async fn post_form(&self, path: &str, fields: &[(&str, &str)]) -> reqwest::Response {
        let mut all: Vec<(&str, &str)> = fields.to_vec();
        if !fields.iter().any(|(k, _)| *k == "csrf") {
            all.push(("csrf", &self.csrf));
        }
        self.client
            .post(format!("{}{}", self.base, path))
            .form(&all)
            .send()
            .await
            .expect("request failed")
    }
}

/// Starts the application on 127.0.0.1 with a random port and a temporary database.
pub async fn spawn_app() -> TestApp {
    spawn_app_in(tempfile::tempdir().expect("temp dir")).await
}

/// Starts the application on a copy of the database file `db` (e.g. a fixture written by an
/// earlier release), made in a temporary directory: the migrations run on the copy, and the
/// original is never opened.
pub async fn spawn_app_on_copy(db: &std::path::Path) -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::copy(db, dir.path().join("test.sqlite3"))
        .unwrap_or_else(|e| panic!("copy {}: {e}", db.display()));
    spawn_app_in(dir).await
}

/// Starts the application on `dir/test.sqlite3` (created if missing).
async fn spawn_app_in(dir: tempfile::TempDir) -> TestApp {
    let settings = Settings {
        bind: "127.0.0.1:0".into(),
        db: dir.path().join("test.sqlite3"),
        secure_cookies: false,
        page_cache: true,
    };
    let app = Application::build(&settings).await.expect("app builds");
    let address = format!("http://127.0.0.1:{}", app.port());
    let db = app.db().clone();
    actix_web::rt::spawn(app.run_until_stopped());
    TestApp {
        address,
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client"),
        db,
        _dir: dir,
    }
}
