//! A real server on a free port with a fresh SQLite file per test.

use spades_im::app::{Application, Settings};

pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    // Keeps the database directory alive for the test's duration.
    _dir: tempfile::TempDir,
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    pub async fn post_json(&self, path: &str, body: &serde_json::Value) -> reqwest::Response {
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
}

/// Starts the application on 127.0.0.1 with a random port and a temporary database.
pub async fn spawn_app() -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let settings = Settings {
        bind: "127.0.0.1:0".into(),
        db: dir.path().join("test.sqlite3"),
        secure_cookies: false,
    };
    let app = Application::build(&settings).await.expect("app builds");
    let address = format!("http://127.0.0.1:{}", app.port());
    actix_web::rt::spawn(app.run_until_stopped());
    TestApp {
        address,
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client"),
        _dir: dir,
    }
}
