//! The import's gate (docs/api.md §18.4): a league document passes the checks the API
//! applies to the same data. Each bad document below is one the old import took with a 201
//! and that then broke pages; each is refused now with a 422 whose `field` is a JSON pointer
//! into the document, and nothing of it is written. A good document still comes in, and its
//! audit entries come in as imported history, never as acts of an account here.

use serde_json::{Value, json};

use crate::helpers::{Api, TestApp, expect_error, json_with_status, spawn_app};
use crate::league_doc::{admin_and_sam, export, play_season};
use crate::playoffs::a_hand;

/// A small league played a little: two teams, one finished match of two hands, one match
/// in progress after one hand, a player with a student id and an email.
async fn small_league(app: &TestApp, admin: &Api) -> Value {
    let teams = app
        .league(
            admin,
            "src",
            json!({"preset": "unc-im-300", "target": 100}),
            3,
        )
        .await;
    let r = admin
        .post(
            &format!("/api/v1/teams/{}/players", teams[0]),
            &json!({"name": "Dana Lee", "student_id": "S-1001", "email": "dana@example.edu"}),
        )
        .await;
    json_with_status(r, 201, "player").await;
    let done = admin.add_match("src", teams[0], teams[1], "T1").await;
    crate::playoffs::play_a_wins(admin, done["id"].as_i64().unwrap()).await;
    let live = admin.add_match("src", teams[1], teams[2], "T2").await;
    admin
        .play_hands(live["id"].as_i64().unwrap(), &[a_hand()])
        .await;
    export(admin, "src").await
}

/// The index of the row of `table` whose `column` is `value`.
fn row_where(doc: &Value, table: &str, column: &str, value: &Value) -> usize {
    doc[table]
        .as_array()
        .unwrap()
        .iter()
        .position(|r| &r[column] == value)
        .unwrap_or_else(|| panic!("no {table} row with {column} = {value}"))
}

/// `doc` changed by `change`, imported as `slug`: the error's field and message, after
/// checking that it is a 422 `invalid_document`.
async fn refused(admin: &Api, doc: &Value, change: impl FnOnce(&mut Value)) -> (String, String) {
    let mut bad = doc.clone();
    change(&mut bad);
    let r = admin
        .post(
            "/api/v1/leagues/import",
            &json!({"slug": "copy", "document": bad}),
        )
        .await;
    let e = expect_error(r, 422, "invalid_document").await;
    let message = e["message"].as_str().unwrap().to_string();
    // No parser's words reach the coordinator.
    for words in [
        "invalid type",
        "expected",
        "at line",
        "serde",
        "sqlx",
        "constraint",
    ] {
        assert!(!message.contains(words), "{message}");
    }
    (e["field"].as_str().unwrap().to_string(), message)
}

#[actix_web::test]
async fn text_ids_emails_and_names_pass_the_apis_own_checks() {
    let app = spawn_app().await;
    let (admin, _) = admin_and_sam(&app).await;
    let doc = small_league(&app, &admin).await;
    let before = app.tables().await;
    let player = row_where(&doc, "players", "name", &json!("Dana Lee"));

    for (name, bad) in [
        ("a line break", "Aces\r\nInjected"),
        ("NUL", "Aces\u{0}"),
        ("bell", "Aces\u{7}"),
        ("a right-to-left override", "Aces\u{202E}ffo"),
    ] {
        let (field, message) = refused(&admin, &doc, |d| d["teams"][0]["name"] = json!(bad)).await;
        assert_eq!(field, "/teams/0/name", "{name}");
        assert!(message.contains("U+"), "{name}: {message}");
    }
    let (field, message) = refused(&admin, &doc, |d| {
        d["league"]["name"] = json!("x".repeat(5 << 20));
    })
    .await;
    assert_eq!(field, "/league/name");
    assert!(message.contains("1 to 80 characters"), "{message}");
    // A Cyrillic "а" makes a name that reads as another team's.
    let (field, message) = refused(&admin, &doc, |d| {
        d["teams"][1]["name"] = json!("Teаm 1");
    })
    .await;
    assert_eq!(field, "/teams/1/name");
    assert!(message.contains("/teams/0"), "{message}");

    let at = format!("/players/{player}/email");
    let (field, _) = refused(&admin, &doc, |d| {
        d["players"][player]["email"] = json!("no-at")
    })
    .await;
    assert_eq!(field, at);
    let at = format!("/players/{player}/student_id");
    let (field, message) = refused(&admin, &doc, |d| {
        d["players"][player]["student_id"] = json!("S 1001; DROP");
    })
    .await;
    assert_eq!(field, at);
    assert!(
        !message.contains("DROP"),
        "the id is never repeated: {message}"
    );

    app.assert_nothing_written(&before, "refused imports").await;

    // A lower-case student id comes in as the API stores it, so the person export finds it.
    let mut good = doc.clone();
    good["players"][player]["student_id"] = json!("s-1001");
    good["teams"][0]["name"] = json!("  Ａｃｅｓ  ");
    let r = admin
        .post(
            "/api/v1/leagues/import",
            &json!({"slug": "copy", "document": good}),
        )
        .await;
    json_with_status(r, 201, "import").await;
    let copy = export(&admin, "copy").await;
    assert_eq!(copy["players"][player]["student_id"], "S-1001");
    assert_eq!(copy["teams"][0]["name"], "Aces");
}

#[actix_web::test]
async fn every_hand_is_scored_again_and_each_match_agrees_with_its_hands() {
    let app = spawn_app().await;
    let (admin, _) = admin_and_sam(&app).await;
    let doc = small_league(&app, &admin).await;
    let before = app.tables().await;
    let done = row_where(&doc, "matches", "status", &json!("complete"));
    let live = row_where(&doc, "matches", "status", &json!("in_progress"));
    let done_id = doc["matches"][done]["id"].clone();
    let first_hand = row_where(&doc, "hands", "match_id", &done_id);

    // An illegal hand: 14 tricks taken between the two teams.
    let (field, message) = refused(&admin, &doc, |d| {
        d["hands"][first_hand]["hand"] = json!(
            r#"{"a": {"bids": [4, 3], "tricks": [6, 3]}, "b": {"bids": [2, 2], "tricks": [3, 2]}}"#
        );
    })
    .await;
    assert_eq!(field, format!("/hands/{first_hand}"));
    assert!(message.contains("not a legal hand"), "{message}");
    // A cached score that is not what the hands give.
    let (field, message) = refused(&admin, &doc, |d| {
        d["matches"][done]["score_a"] = json!(9_223_372_036_854_775_807_i64);
    })
    .await;
    assert_eq!(field, format!("/matches/{done}/score_a"));
    assert!(message.contains("from -1000000 to 1000000"), "{message}");
    let (field, message) = refused(&admin, &doc, |d| {
        d["matches"][done]["score_a"] = json!(999);
    })
    .await;
    assert_eq!(field, format!("/matches/{done}/score_a"));
    assert!(message.contains("its hands give"), "{message}");
    // A finished match with no hands.
    let (field, _) = refused(&admin, &doc, |d| {
        let hands = d["hands"].as_array_mut().unwrap();
        hands.retain(|h| h["match_id"] != done_id);
    })
    .await;
    assert!(field.starts_with(&format!("/matches/{done}/")), "{field}");
    // Times that do not read.
    let (field, _) = refused(&admin, &doc, |d| {
        d["matches"][live]["started_at"] = json!("yesterday evening");
    })
    .await;
    assert_eq!(field, format!("/matches/{live}/started_at"));
    let (field, _) = refused(&admin, &doc, |d| d["league"]["created_at"] = json!("soon")).await;
    assert_eq!(field, "/league/created_at");
    let (field, _) = refused(&admin, &doc, |d| {
        d["matches"][live]["game_status"] = json!("??")
    })
    .await;
    assert_eq!(field, format!("/matches/{live}/game_status"));
    // An archived league with a match in play.
    let (field, message) = refused(&admin, &doc, |d| d["league"]["archived"] = json!(1)).await;
    assert_eq!(field, format!("/matches/{live}/status"));
    assert!(message.contains("archived"), "{message}");

    app.assert_nothing_written(&before, "refused imports").await;
}

#[actix_web::test]
async fn a_bracket_must_be_its_formats_and_audit_entries_come_in_as_history() {
    let app = spawn_app().await;
    let (admin, sup) = admin_and_sam(&app).await;
    play_season(&admin, &sup, "past").await;
    let doc = export(&admin, "past").await;
    let before = app.tables().await;

    // The bracket's team count, format or seeds do not fit its rows.
    let (field, _) = refused(&admin, &doc, |d| d["brackets"][0]["teams"] = json!(3)).await;
    assert!(field.starts_with("/bracket"), "{field}");
    let (field, _) = refused(&admin, &doc, |d| {
        d["brackets"][0]["format"] = json!("double_elimination");
    })
    .await;
    assert!(field.starts_with("/bracket"), "{field}");
    let (field, _) = refused(&admin, &doc, |d| d["bracket_seeds"][1]["seed"] = json!(1)).await;
    assert_eq!(field, "/bracket_seeds/1");
    let (field, _) = refused(&admin, &doc, |d| {
        d["bracket_matches"].as_array_mut().unwrap().pop();
    })
    .await;
    assert_eq!(field, "/bracket_matches");
    // An audit entry in the future, or of an action that is no name.
    let (field, _) = refused(&admin, &doc, |d| {
        d["audit_log"][0]["at"] = json!("2999-01-01T00:00:00Z");
    })
    .await;
    assert_eq!(field, "/audit_log/0/at");
    let (field, _) = refused(&admin, &doc, |d| {
        d["audit_log"][0]["action"] = json!("<script>");
    })
    .await;
    assert_eq!(field, "/audit_log/0/action");
    app.assert_nothing_written(&before, "refused imports").await;

    // The document as exported comes in; its entries are history, none an act of "sam" here.
    let r = admin
        .post(
            "/api/v1/leagues/import",
            &json!({"slug": "copy", "document": doc}),
        )
        .await;
    json_with_status(r, 201, "import").await;
    let page = json_with_status(
        admin.get("/api/v1/audit?league=copy&limit=200").await,
        200,
        "audit",
    )
    .await;
    let entries = page["entries"].as_array().unwrap();
    let (own, history): (Vec<&Value>, Vec<&Value>) =
        entries.iter().partition(|e| e["action"] == "import");
    assert_eq!(own.len(), 1);
    assert_eq!(own[0]["user"], "coord");
    assert_eq!(own[0]["imported"], false);
    assert!(history.len() > 10, "{}", history.len());
    for e in &history {
        assert_eq!(e["imported"], true, "{e}");
        assert_eq!(e["user"], Value::Null, "{e}");
        assert_eq!(e["imported_by"], "coord", "{e}");
        assert!(e["imported_at"].is_string(), "{e}");
    }
    assert!(history.iter().any(|e| e["imported_user"] == "sam"));
    // Filtering by a user here finds none of the history.
    let sams = json_with_status(
        admin.get("/api/v1/audit?league=copy&user=sam").await,
        200,
        "sam's entries",
    )
    .await;
    assert_eq!(sams["entries"], json!([]));
    // The shared pages and the copy's own read as pages do.
    for path in [
        "/",
        "/leagues",
        "/api/v1/leagues?archived=true",
        "/leagues/copy/bracket",
    ] {
        assert_eq!(app.get(path).await.status(), 200, "{path}");
    }
}

/// The largest document the import takes is checked before the write lock, and written in
/// a few statements: hands entered all through the import each wait a small part of it. (A
/// part, not a fixed time: on a loaded 2-core box everything is slower, the import too. With
/// the whole import under the lock, as before, a hand waited nearly all of it: 25.9 s.)
#[actix_web::test]
async fn hands_during_the_largest_import_wait_a_small_part_of_it() {
    // On SQLite in both passes (its one writer is what an import holds); PostgreSQL's
    // figure is not this test's (stop 51's note: it missed the second there).
    let app = crate::helpers::spawn_sqlite_app().await;
    let (admin, _) = admin_and_sam(&app).await;
    let doc = large_document(&admin).await;
    let size = doc.to_string().len();
    assert!((12 << 20..16 << 20).contains(&size), "{size} bytes");
    // Matches to enter hands in, a few hands each.
    let teams = app.league(&admin, "night", json!("unc-im-500"), 2).await;
    let mut live = Vec::new();
    for _ in 0..40 {
        let m = admin.add_match("night", teams[0], teams[1], "T1").await;
        let id = m["id"].as_i64().unwrap();
        let m = crate::playoffs::start(&admin, id).await;
        live.push((id, m["version"].as_i64().unwrap()));
    }
    let done = std::sync::atomic::AtomicBool::new(false);
    let import = async {
        let started = std::time::Instant::now();
        let r = admin
            .post(
                "/api/v1/leagues/import",
                &json!({"slug": "big", "document": doc}),
            )
            .await;
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        (r, started.elapsed())
    };
    let hands = async {
        let mut slowest = std::time::Duration::ZERO;
        let mut sent = 0;
        while !done.load(std::sync::atomic::Ordering::SeqCst) {
            let slot = sent % live.len();
            let (id, version) = live[slot];
            let started = std::time::Instant::now();
            let m = crate::playoffs::enter(&admin, id, &a_hand(), version).await;
            slowest = slowest.max(started.elapsed());
            live[slot].1 = m["version"].as_i64().unwrap();
            sent += 1;
            actix_web::rt::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        (slowest, sent)
    };
    let ((imported, took), (slowest, sent)) = tokio::join!(import, hands);
    json_with_status(imported, 201, "the large import").await;
    assert!(sent >= 3, "only {sent} hands were sent during the import");
    assert!(
        // Half, not a quarter: under CI's load on PostgreSQL a hand waited 0.30 of an import
        // once; the bug this guards against made one wait nearly all of it (25.9 of 26 s).
        slowest * 2 < took,
        "a hand waited {slowest:?} of the import's {took:?} ({sent} hands)"
    );
    eprintln!("the import took {took:?}; the slowest of {sent} hands {slowest:?}");
}

/// A league document of 12 to 16 MiB (the import takes 16 at most): one match played, and
/// thousands more cancelled after a hand, each a row the gate reads and the store takes.
async fn large_document(admin: &Api) -> Value {
    let bytes = 14 << 20;
    let mut doc = {
        let teams: Vec<Value> = (1..=2)
            .map(|i| json!({"name": format!("Big {i}"), "players": ["A", "B"]}))
            .collect();
        let r = admin
            .post(
                "/api/v1/leagues",
                &json!({"name": "Big", "slug": "big-src", "rules": {"regular": "unc-im-500"}}),
            )
            .await;
        json_with_status(r, 201, "league").await;
        let mut ids = Vec::new();
        for t in teams {
            let r = admin.post("/api/v1/leagues/big-src/teams", &t).await;
            ids.push(
                json_with_status(r, 201, "team").await["id"]
                    .as_i64()
                    .unwrap(),
            );
        }
        let m = admin.add_match("big-src", ids[0], ids[1], "T9").await;
        admin
            .play_hands(m["id"].as_i64().unwrap(), &[a_hand()])
            .await;
        export(admin, "big-src").await
    };
    // Many cancelled matches with one hand each: rows the store must take, each checked.
    let template_match = doc["matches"][0].clone();
    let template_hand = doc["hands"][0].clone();
    let mut matches = Vec::new();
    let mut hands = Vec::new();
    let mut id = 1_000;
    let row_size = template_match.to_string().len() + template_hand.to_string().len() + 40;
    while matches.len() * row_size < bytes {
        id += 1;
        let mut m = template_match.clone();
        m["id"] = json!(id);
        m["status"] = json!("cancelled");
        m["status_note"] = json!("rained out");
        matches.push(m);
        let mut h = template_hand.clone();
        h["id"] = json!(id);
        h["match_id"] = json!(id);
        hands.push(h);
    }
    doc["matches"] = Value::Array(matches);
    doc["hands"] = Value::Array(hands);
    doc["audit_log"] = json!([]);
    doc
}
