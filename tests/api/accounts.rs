//! Accounts the coordinator manages (docs/api.md §13): `GET/POST /api/v1/users`,
//! `PATCH /api/v1/users/{username}`, `POST /api/v1/users/{username}/reset-password`.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{TestApp, json_with_status, spawn_app};

/// Logs in as `name` with `password` through the login form; the client keeps the session
/// cookie. `None` when the login is refused.
async fn log_in(app: &TestApp, name: &str, password: &str) -> Option<reqwest::Client> {
    let client = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let response = client
        .post(app.url("/login"))
        .form(&[("username", name), ("password", password)])
        .send()
        .await
        .expect("login");
    (response.status() == 303).then_some(client)
}

/// The status of `GET /account` with the client's session (200 logged in, 303 to the login
/// form otherwise).
async fn account_page(app: &TestApp, client: &reqwest::Client) -> u16 {
    client
        .get(app.url("/account"))
        .send()
        .await
        .expect("account page")
        .status()
        .as_u16()
}

/// The audit rows of `action`: (before, after), empty for none.
async fn audit_rows(app: &TestApp, action: &str) -> Vec<(String, String)> {
    let mut conn = app.db.read().await.expect("reader");
    spades_im::on_store!(conn, |c| sqlx::query_as::<_, (String, String)>(
        "SELECT coalesce(before, ''), coalesce(after, '') FROM audit_log
         WHERE action = $1 ORDER BY id",
    )
    .bind(action)
    .fetch_all(c)
    .await)
    .expect("audit")
}

#[actix_web::test]
async fn an_admin_adds_lists_changes_and_resets_accounts() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;

    let made = json_with_status(
        admin
            .post(
                "/api/v1/users",
                &json!({"username": "sam", "role": "supervisor", "email": "Sam@Example.edu"}),
            )
            .await,
        201,
        "add sam",
    )
    .await;
    assert_eq!(
        made["user"],
        json!({"username": "sam", "role": "supervisor", "active": true,
               "must_change_password": true, "leagues": [], "last_login_at": null,
               "email": "Sam@Example.edu"})
    );
    let password = made["password"].as_str().expect("a one-time password");
    assert!(password.len() >= 16, "{password}");
    assert!(
        log_in(&app, "sam", password).await.is_some(),
        "the one-time password logs in"
    );

    let listed = json_with_status(admin.get("/api/v1/users").await, 200, "list").await;
    let names: Vec<&str> = listed["users"]
        .as_array()
        .expect("users")
        .iter()
        .map(|u| u["username"].as_str().expect("username"))
        .collect();
    assert_eq!(names, ["coord", "sam"]);
    let sam = &listed["users"][1];
    assert!(
        sam["last_login_at"].is_string(),
        "the log-in is recorded: {sam}"
    );

    let changed = json_with_status(
        admin
            .patch(
                "/api/v1/users/SAM",
                &json!({"role": "admin", "email": "sam@b.edu"}),
            )
            .await,
        200,
        "make sam an admin",
    )
    .await;
    assert_eq!(changed["role"], "admin");
    assert_eq!(changed["email"], "sam@b.edu");
    let cleared = json_with_status(
        admin
            .patch("/api/v1/users/sam", &json!({"email": ""}))
            .await,
        200,
        "remove the email",
    )
    .await;
    assert_eq!(cleared["email"], Value::Null);

    let reset = json_with_status(
        admin
            .post("/api/v1/users/sam/reset-password", &json!({}))
            .await,
        200,
        "reset",
    )
    .await;
    let new_password = reset["password"].as_str().expect("a one-time password");
    assert_ne!(new_password, password);
    assert!(
        log_in(&app, "sam", password).await.is_none(),
        "the old password is gone"
    );
    assert!(log_in(&app, "sam", new_password).await.is_some());

    // Every change is audited, with no password and no email in it.
    assert_eq!(
        audit_rows(&app, "set_role").await,
        [("supervisor".into(), "admin".into())]
    );
    assert_eq!(
        audit_rows(&app, "set_email").await,
        [
            ("an email".into(), "an email".into()),
            ("an email".into(), "no email".into())
        ]
    );
    assert_eq!(
        audit_rows(&app, "reset_password").await,
        [(String::new(), String::new())]
    );
    let mut conn = app.db.read().await.expect("reader");
    let texts: Vec<String> = spades_im::on_store!(conn, |c| {
        sqlx::query_scalar(
        "SELECT coalesce(before, '') || ' ' || coalesce(after, '') || ' ' || coalesce(reason, '')
         FROM audit_log"
    )
    .fetch_all(c)
    .await
    })
    .expect("audit");
    for text in texts {
        for secret in [password, new_password, "example.edu", "b.edu"] {
            assert!(
                !text.to_lowercase().contains(&secret.to_lowercase()),
                "{text}"
            );
        }
    }
}

#[actix_web::test]
async fn refusals_answer_their_error_and_write_nothing() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let supervisor = app.api_user("sup", Role::Supervisor).await;
    json_with_status(
        admin
            .post(
                "/api/v1/users",
                &json!({"username": "kim", "role": "supervisor", "email": "kim@x.edu"}),
            )
            .await,
        201,
        "add kim",
    )
    .await;
    let before = app.tables().await;

    // Who may.
    let anonymous = app.api("");
    for (who, status, code) in [
        (&anonymous, 401, "unauthorized"),
        (&supervisor, 403, "forbidden"),
    ] {
        let calls = [
            who.get("/api/v1/users").await,
            who.post("/api/v1/users", &json!({"username": "x1", "role": "admin"}))
                .await,
            who.patch("/api/v1/users/kim", &json!({"active": false}))
                .await,
            who.post("/api/v1/users/kim/reset-password", &json!({}))
                .await,
        ];
        for response in calls {
            let body = json_with_status(response, status, code).await;
            assert_eq!(body["error"]["code"], code);
        }
    }

    // Bad bodies: 422 naming the field.
    let bad = [
        (
            json!({"username": "a b", "role": "admin"}),
            "username",
            "invalid_user",
        ),
        (
            json!({"username": "KIM", "role": "admin"}),
            "username",
            "username_taken",
        ),
        (
            json!({"username": "lee", "role": "king"}),
            "role",
            "invalid_request",
        ),
        (
            json!({"username": "lee", "role": "admin", "email": "no-at"}),
            "email",
            "invalid_email",
        ),
        (
            json!({"username": "lee", "role": "admin", "email": "a b@x.edu"}),
            "email",
            "invalid_email",
        ),
        (
            json!({"username": "lee", "role": "admin", "email": "KIM@X.EDU"}),
            "email",
            "email_taken",
        ),
        (
            json!({"username": "lee", "role": "admin", "password": "x"}),
            "password",
            "invalid_request",
        ),
    ];
    for (body, field, code) in bad {
        let answer =
            json_with_status(admin.post("/api/v1/users", &body).await, 422, "bad add").await;
        assert_eq!(answer["error"]["code"], code, "{body}");
        assert_eq!(answer["error"]["field"], field, "{body}");
        let text = answer.to_string().to_lowercase();
        assert!(
            !text.contains("kim@x.edu"),
            "an email is never in an error: {text}"
        );
    }
    let long = format!("{}@x.edu", "a".repeat(250));
    let answer = json_with_status(
        admin
            .patch("/api/v1/users/kim", &json!({"email": long}))
            .await,
        422,
        "a long email",
    )
    .await;
    assert_eq!(answer["error"]["field"], "email");
    let answer = json_with_status(
        admin
            .patch("/api/v1/users/kim", &json!({"active": "no"}))
            .await,
        422,
        "active not a boolean",
    )
    .await;
    assert_eq!(answer["error"]["field"], "active");
    let answer = json_with_status(
        admin
            .post(
                "/api/v1/users/kim/reset-password",
                &json!({"password": "mine"}),
            )
            .await,
        422,
        "a chosen password",
    )
    .await;
    assert_eq!(answer["error"]["field"], "password");
    for response in [
        admin
            .patch("/api/v1/users/nobody", &json!({"active": false}))
            .await,
        admin
            .post("/api/v1/users/nobody/reset-password", &json!({}))
            .await,
    ] {
        json_with_status(response, 404, "no such user").await;
    }
    app.assert_nothing_written(&before, "refused account changes")
        .await;
}

#[actix_web::test]
async fn deactivating_or_resetting_stops_sessions_and_tokens_at_once() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    for name in ["ann", "bob"] {
        app.user(name, Role::Supervisor).await;
    }
    let ann_token = app.token("ann").await;
    let bob_token = app.token("bob").await;
    let ann_session = app.browser("ann").await;
    let bob_session = app.browser("bob").await;
    for token in [&ann_token, &bob_token] {
        json_with_status(
            app.api(token).get("/api/v1/leagues").await,
            200,
            "token works",
        )
        .await;
    }

    json_with_status(
        admin
            .patch("/api/v1/users/ann", &json!({"active": false}))
            .await,
        200,
        "deactivate ann",
    )
    .await;
    json_with_status(
        app.api(&ann_token).get("/api/v1/leagues").await,
        401,
        "ann's token",
    )
    .await;
    assert_eq!(
        account_page(&app, &ann_session.client).await,
        303,
        "ann's session ended"
    );
    assert!(
        log_in(&app, "ann", crate::helpers::PASSWORD)
            .await
            .is_none(),
        "ann cannot log in"
    );

    json_with_status(
        admin
            .post("/api/v1/users/bob/reset-password", &json!({}))
            .await,
        200,
        "reset bob",
    )
    .await;
    json_with_status(
        app.api(&bob_token).get("/api/v1/leagues").await,
        401,
        "bob's token",
    )
    .await;
    assert_eq!(
        account_page(&app, &bob_session.client).await,
        303,
        "bob's session ended"
    );

    // Reactivated, ann logs in again, and her old token stays revoked.
    let back = json_with_status(
        admin
            .patch("/api/v1/users/ann", &json!({"active": true}))
            .await,
        200,
        "reactivate ann",
    )
    .await;
    assert_eq!(back["active"], true);
    assert!(
        log_in(&app, "ann", crate::helpers::PASSWORD)
            .await
            .is_some()
    );
    json_with_status(
        app.api(&ann_token).get("/api/v1/leagues").await,
        401,
        "still revoked",
    )
    .await;
}

#[actix_web::test]
async fn the_last_active_admin_stays_an_active_admin() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    app.user("other", Role::Admin).await;
    json_with_status(
        admin
            .patch("/api/v1/users/other", &json!({"active": false}))
            .await,
        200,
        "deactivate the other admin",
    )
    .await;
    let before = app.tables().await;
    for change in [json!({"active": false}), json!({"role": "supervisor"})] {
        let answer = json_with_status(
            admin.patch("/api/v1/users/coord", &change).await,
            409,
            "the last admin",
        )
        .await;
        assert_eq!(answer["error"]["code"], "last_admin", "{change}");
    }
    app.assert_nothing_written(&before, "last_admin refusals")
        .await;

    // With another active admin, either change is fine.
    json_with_status(
        admin
            .patch("/api/v1/users/other", &json!({"active": true}))
            .await,
        200,
        "reactivate",
    )
    .await;
    let demoted = json_with_status(
        admin
            .patch("/api/v1/users/coord", &json!({"role": "supervisor"}))
            .await,
        200,
        "coord becomes a supervisor",
    )
    .await;
    assert_eq!(demoted["role"], "supervisor");
}

/// `user add`, `user list`, `user reset`, `user disable`, `user enable` on the service's
/// database, and what each does to log-ins.
#[actix_web::test]
async fn the_user_commands_add_list_reset_disable_and_enable() {
    use crate::concurrency::{cli_async, db_path, stderr, stdout};
    let app = spawn_app().await;
    app.user("coord", Role::Admin).await;
    let db = db_path(&app).await;

    let added = cli_async(&db, &["user", "add", "pat", "--role", "supervisor"]).await;
    assert!(added.status.success(), "{}", stderr(&added));
    let first = stdout(&added);
    let password = first
        .trim()
        .rsplit(' ')
        .next()
        .expect("the password")
        .to_string();
    assert!(
        first.starts_with("user pat (supervisor) added; one-time password"),
        "{first}"
    );
    assert!(log_in(&app, "pat", &password).await.is_some(), "{first}");

    let again = cli_async(&db, &["user", "add", "PAT", "--role", "admin"]).await;
    assert_eq!(again.status.code(), Some(1));
    let said = stderr(&again);
    assert!(
        said.contains("is taken") && said.contains("user reset PAT"),
        "{said}"
    );

    let listed = stdout(&cli_async(&db, &["user", "list"]).await);
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 2, "{listed}");
    assert!(
        lines[0].starts_with("coord\tadmin\tactive\tno leagues\tnever logged in"),
        "{listed}"
    );
    assert!(
        lines[1].starts_with("pat\tsupervisor\tmust change password\tno leagues\tlast log-in "),
        "{listed}"
    );

    let reset = cli_async(&db, &["user", "reset", "pat"]).await;
    assert!(reset.status.success(), "{}", stderr(&reset));
    let new_password = stdout(&reset)
        .trim()
        .rsplit(' ')
        .next()
        .expect("password")
        .to_string();
    assert!(
        log_in(&app, "pat", &password).await.is_none(),
        "the old password is gone"
    );
    assert!(log_in(&app, "pat", &new_password).await.is_some());

    let disabled = cli_async(&db, &["user", "disable", "pat"]).await;
    assert!(disabled.status.success(), "{}", stderr(&disabled));
    assert!(
        log_in(&app, "pat", &new_password).await.is_none(),
        "disabled"
    );
    assert!(
        stdout(&cli_async(&db, &["user", "list"]).await).contains("pat\tsupervisor\tdeactivated")
    );
    let enabled = cli_async(&db, &["user", "enable", "pat"]).await;
    assert!(enabled.status.success(), "{}", stderr(&enabled));
    assert!(
        log_in(&app, "pat", &new_password).await.is_some(),
        "enabled"
    );

    // The last admin stays; an unknown name is said so.
    let last = cli_async(&db, &["user", "disable", "coord"]).await;
    assert_eq!(last.status.code(), Some(1));
    assert!(
        stderr(&last).contains("last active admin"),
        "{}",
        stderr(&last)
    );
    let nobody = cli_async(&db, &["user", "reset", "nobody"]).await;
    assert_eq!(nobody.status.code(), Some(1));
    assert!(
        stderr(&nobody).contains("no user named nobody"),
        "{}",
        stderr(&nobody)
    );
}

/// A one-time password logs in, but the API refuses that session (403
/// `password_change_required`) until the user has chosen their own password.
#[actix_web::test]
async fn a_one_time_password_must_be_changed_before_the_api_answers() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let made = json_with_status(
        admin
            .post(
                "/api/v1/users",
                &json!({"username": "ada", "role": "admin"}),
            )
            .await,
        201,
        "add ada",
    )
    .await;
    let once = made["password"].as_str().expect("password").to_string();
    let ada = log_in(&app, "ada", &once)
        .await
        .expect("the one-time password logs in");
    let refused = ada
        .get(app.url("/api/v1/users"))
        .send()
        .await
        .expect("users");
    let body = json_with_status(refused, 403, "a one-time password's session").await;
    assert_eq!(body["error"]["code"], "password_change_required");

    let page = ada.get(app.url("/account")).send().await.expect("account");
    let csrf = crate::helpers::csrf_in(&page.text().await.expect("page")).expect("csrf");
    let mine = "my own long password";
    let changed = ada
        .post(app.url("/account/password"))
        .form(&[
            ("csrf", csrf.as_str()),
            ("current", &once),
            ("new", mine),
            ("repeat", mine),
        ])
        .send()
        .await
        .expect("change");
    assert!(changed.status().is_redirection() || changed.status().is_success());
    let ada = log_in(&app, "ada", mine)
        .await
        .expect("the new password logs in");
    let listed = ada
        .get(app.url("/api/v1/users"))
        .send()
        .await
        .expect("users");
    let body = json_with_status(listed, 200, "after the change").await;
    assert_eq!(body["users"][0]["must_change_password"], false, "{body}");
}

/// Where a redirect goes (its `Location`), empty for none.
fn location(response: &reqwest::Response) -> String {
    response
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string()
}

/// A session opened with a one-time password (`user`'s, given by `POST /api/v1/users`, a
/// reset or the first start) leads every page to the account page and is refused by the
/// API, and so is a token of that user; the password changed, everything answers.
///
/// Planted bugs that fail it: pages let through (`check_password_changed` allowing every
/// page), the token's holder read as not having to change (`token_holder` answering
/// `must_change_password: false`), the first admin's password stored as chosen
/// (`ensure_admin` with `must_change_password: false`).
#[actix_web::test]
async fn a_one_time_password_leads_every_page_to_the_password_change() {
    let app = spawn_app().await;
    let (first, once) = spades_im::service::accounts::ensure_admin(&app.db)
        .await
        .expect("first admin")
        .expect("no admin yet");
    let coord = log_in(&app, &first, &once)
        .await
        .expect("the first admin's password logs in");
    let to_account = coord.get(app.url("/admin")).send().await.expect("admin");
    assert_eq!(to_account.status(), 303, "the first admin's dashboard");
    assert_eq!(location(&to_account), "/account");

    // Add sam through the API as another admin (the first one cannot yet).
    let admin = app.api_user("boss", Role::Admin).await;
    let made = json_with_status(
        admin
            .post(
                "/api/v1/users",
                &json!({"username": "sam", "role": "supervisor"}),
            )
            .await,
        201,
        "add sam",
    )
    .await;
    let once = made["password"].as_str().expect("password").to_string();
    let token = app.token("sam").await;
    let body = json_with_status(
        app.api(&token).get("/api/v1/leagues").await,
        403,
        "a one-time password's token, at a public read",
    )
    .await;
    assert_eq!(body["error"]["code"], "password_change_required");

    let sam = log_in(&app, "sam", &once).await.expect("logs in");
    for path in ["/", "/supervise", "/leagues", "/admin", "/calculator"] {
        let response = sam.get(app.url(path)).send().await.expect("page");
        assert_eq!(response.status(), 303, "GET {path}");
        assert_eq!(location(&response), "/account", "GET {path}");
    }
    let page = sam.get(app.url("/account")).send().await.expect("account");
    assert_eq!(page.status(), 200);
    let html = page.text().await.expect("page");
    assert!(html.contains("id=\"must-change\""), "the page says why");
    assert!(!html.contains("/account/tokens"), "no tokens to make yet");
    let csrf = crate::helpers::csrf_in(&html).expect("csrf");
    let minted = sam
        .post(app.url("/account/tokens"))
        .form(&[("csrf", csrf.as_str()), ("name", "script")])
        .send()
        .await
        .expect("token form");
    assert_eq!(
        minted.status(),
        303,
        "no token made with a one-time password"
    );
    assert_eq!(location(&minted), "/account");
    let read = sam
        .get(app.url("/api/v1/leagues"))
        .send()
        .await
        .expect("api");
    let body = json_with_status(read, 403, "the session at the API").await;
    assert_eq!(body["error"]["code"], "password_change_required");

    let mine = "my own long password";
    let changed = sam
        .post(app.url("/account/password"))
        .form(&[
            ("csrf", csrf.as_str()),
            ("current", &once),
            ("new", mine),
            ("repeat", mine),
        ])
        .send()
        .await
        .expect("change");
    assert_eq!(changed.status(), 303);
    assert_eq!(
        location(&changed),
        "/login",
        "log in again, to the start page"
    );
    let sam = log_in(&app, "sam", mine).await.expect("the new password");
    let console = sam
        .get(app.url("/supervise"))
        .send()
        .await
        .expect("console");
    assert_eq!(console.status(), 200, "the console answers");
    json_with_status(
        app.api(&token).get("/api/v1/leagues").await,
        200,
        "the token works now",
    )
    .await;
}
