//! The served OpenAPI document as outside tools read it (docs/api.md §11): valid OpenAPI 3.1
//! by openapi-spec-validator (PyPI), and good enough that a client generated from it by
//! openapi-typescript, with openapi-fetch as its transport (npm), type-checks with tsc and
//! runs a league night against the server with no edit (`tests/client/league_night.ts`).

use std::path::Path;
use std::process::{Command, Output, Stdio};

use spades_im::service::Role;

use crate::helpers::{TestApp, spawn_app};
use crate::test_tools::{node_modules, python_with};

/// The document the server serves, written to `dir/openapi.json`.
async fn served_document(app: &TestApp, dir: &Path) -> std::path::PathBuf {
    let response = app.get("/api/v1/openapi.json").await;
    assert_eq!(response.status(), 200, "the document is served");
    let path = dir.join("openapi.json");
    std::fs::write(&path, response.bytes().await.expect("the document")).expect("written");
    path
}

/// Runs `command`, failing the test with what it wrote when it does not succeed.
fn succeeds(command: &mut Command, what: &str) -> Output {
    let output = command
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {:?}: {e}", command.get_program()));
    assert!(
        output.status.success(),
        "{what}: {}\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// A folder under `target/tmp` (so that node finds the clone's `node_modules` above it).
fn work_dir(prefix: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("a folder in target/tmp")
}

#[actix_web::test]
async fn the_document_is_valid_openapi_by_openapi_spec_validator() {
    let python = python_with("openapi_spec_validator").unwrap_or_else(|line| panic!("{line}"));
    let app = spawn_app().await;
    let dir = work_dir("openapi-valid");
    let document = served_document(&app, dir.path()).await;
    let said = succeeds(
        Command::new(python)
            .args(["-m", "openapi_spec_validator"])
            .arg(&document),
        "openapi-spec-validator",
    );
    let said = String::from_utf8_lossy(&said.stdout);
    assert!(
        said.contains("OK"),
        "the validator says it is valid: {said}"
    );
}

#[actix_web::test]
async fn a_client_generated_from_the_document_runs_a_league_night() {
    let modules = node_modules().unwrap_or_else(|line| panic!("{line}"));
    let app = spawn_app().await;
    app.user("it-office", Role::Admin).await;
    let token = app.token("it-office").await;
    let dir = work_dir("generated-client");
    let document = served_document(&app, dir.path()).await;

    let bin = modules.join(".bin");
    succeeds(
        Command::new(bin.join("openapi-typescript"))
            .arg(&document)
            .arg("--output")
            .arg(dir.path().join("schema.d.ts")),
        "openapi-typescript",
    );
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/client");
    for file in ["league_night.ts", "tsconfig.json"] {
        std::fs::copy(client.join(file), dir.path().join(file)).expect("the client's files");
    }
    std::fs::write(dir.path().join("package.json"), r#"{"type": "module"}"#).expect("written");
    succeeds(
        Command::new(bin.join("tsc"))
            .arg("--project")
            .arg(dir.path()),
        "tsc: the generated client and the script type-check",
    );
    // On a thread of its own: the server's tasks share this test's runtime, and a command
    // waited for here would hold them while the script waits on the server.
    let (script, address) = (dir.path().join("out/league_night.js"), app.address.clone());
    let ran = actix_web::rt::task::spawn_blocking(move || {
        succeeds(
            Command::new("node")
                .arg(script)
                .env("SPADES_URL", address)
                .env("SPADES_TOKEN", token),
            "the league night through the generated client",
        )
    })
    .await
    .expect("the script's thread");
    let said = String::from_utf8_lossy(&ran.stdout);
    assert!(said.contains("71-41"), "the script's last line: {said}");
}
