//! A whole league exported as one document and imported as a new league (docs/api.md §18.4).
//!
//! The heart: a season played through the API (round robin, hands, a correction with its
//! reason, a forfeit, a time call, check-ins, a lineup, sportsmanship ratings, an eligibility
//! override, a bracket played to a champion) is exported, imported into a second service
//! under a new slug, and every read of the copy — the API, each match, the pages, the CSVs,
//! the calendar — answers byte for byte as the original's did, the slug aside. The second
//! service already holds another league, so every id of the copy is a new one: a reference
//! left unmapped would point at that league's rows and show. Then export → import → export
//! gives the same document.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, TestApp, expect_error, json_with_status, spawn_app};
use crate::playoffs::{a_hand, b_big_hand, play_a_wins};

const RULES: &str = r#"{"regular": {"preset": "unc-im-300", "target": 100, "time_limit_minutes": 60},
    "playoff": {"preset": "unc-im-300", "target": 100},
    "final": {"preset": "unc-im-300", "target": 100}}"#;

/// A league `slug` played through a season by `admin` (with supervisor `sam`).
pub(crate) async fn play_season(admin: &Api, sup: &Api, slug: &str) {
    let rules: Value = serde_json::from_str(RULES).unwrap();
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Fall Spades", "slug": slug, "rules": rules,
                    "settings": {"sportsmanship": {"min": 1, "max": 5, "forfeit_rating": 1}}}),
        )
        .await;
    json_with_status(r, 201, "league").await;
    let r = admin
        .post(
            &format!("/api/v1/leagues/{slug}/supervisors"),
            &json!({"username": "sam"}),
        )
        .await;
    assert_eq!(r.status(), 204);
    let mut divisions = Vec::new();
    for name in ["East", "West"] {
        let r = admin
            .post(
                &format!("/api/v1/leagues/{slug}/divisions"),
                &json!({"name": name}),
            )
            .await;
        divisions.push(json_with_status(r, 201, "division").await["id"].clone());
    }
    let mut teams = Vec::new();
    for i in 1..=4 {
        let r = admin
            .post(
                &format!("/api/v1/leagues/{slug}/teams"),
                &json!({"name": format!("Team {i}"), "players": [format!("P{i}a"), format!("P{i}b")],
                        "division": divisions[(i - 1) / 2]}),
            )
            .await;
        teams.push(
            json_with_status(r, 201, "team").await["id"]
                .as_i64()
                .unwrap(),
        );
    }
    let r = admin
        .post(
            &format!("/api/v1/teams/{}/players", teams[0]),
            &json!({"name": "Cy Sub", "student_id": "s1234", "email": "cy@example.edu"}),
        )
        .await;
    let sub = json_with_status(r, 201, "player").await["id"]
        .as_i64()
        .unwrap();
    let r = admin
        .post(
            &format!("/api/v1/leagues/{slug}/schedule"),
            &json!({"format": "round_robin", "within": "league"}),
        )
        .await;
    let schedule = json_with_status(r, 201, "schedule").await;
    let ids: Vec<i64> = schedule["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids.len(), 6);

    // A match added by mistake and deleted: its audit entries name a match the league no
    // longer has (one added after it and cancelled keeps SQLite from reusing its id).
    let mistake = admin.add_match(slug, teams[0], teams[1], "T7").await["id"].clone();
    let cancelled = admin.add_match(slug, teams[2], teams[3], "T8").await["id"].clone();
    let r = admin.delete(&format!("/api/v1/matches/{mistake}")).await;
    assert_eq!(r.status(), 204);
    let r = admin
        .post(
            &format!("/api/v1/matches/{cancelled}/cancel"),
            &json!({"reason": "the gym closed for a storm"}),
        )
        .await;
    json_with_status(r, 200, "cancel").await;

    // A match with check-ins and a lineup, decided, then corrected with a reason, and rated.
    let first = ids[0];
    let m: Value = admin
        .get(&format!("/api/v1/matches/{first}"))
        .await
        .json()
        .await
        .unwrap();
    let side_a = if m["team_a"]["id"] == teams[0] {
        "a"
    } else {
        "b"
    };
    for team in ["a", "b"] {
        let r = sup
            .post(
                &format!("/api/v1/matches/{first}/check-in"),
                &json!({"team": team}),
            )
            .await;
        json_with_status(r, 200, "check in").await;
    }
    let roster = json_with_status(
        admin
            .get(&format!("/api/v1/teams/{}/roster", teams[0]))
            .await,
        200,
        "roster",
    )
    .await;
    let starter = roster["players"][0]["id"].as_i64().unwrap();
    let r = sup
        .post(
            &format!("/api/v1/matches/{first}/lineup"),
            &json!({"team": side_a, "players": [sub, starter]}),
        )
        .await;
    json_with_status(r, 200, "lineup").await;
    let m = sup.play_hands(first, &[a_hand(), b_big_hand()]).await;
    assert_eq!(m["status"], "complete");
    let r = sup
        .correct_hand(&m, 2, &a_hand(), "tricks were swapped on the sheet", false)
        .await;
    let m = json_with_status(r, 200, "correction").await;
    assert_eq!(m["winner"], "a");
    let r = sup
        .post(
            &format!("/api/v1/matches/{first}/sportsmanship"),
            &json!({"a": 4, "b": 2, "note": "argued every call"}),
        )
        .await;
    json_with_status(r, 200, "rating").await;

    // A forfeit, a time call, and the rest played.
    let r = admin
        .post(
            &format!("/api/v1/matches/{}/forfeit", ids[1]),
            &json!({"team": "b"}),
        )
        .await;
    json_with_status(r, 200, "forfeit").await;
    let m = sup.play_hands(ids[2], &[a_hand()]).await;
    let r = sup
        .post(
            &format!("/api/v1/matches/{}/time", ids[2]),
            &json!({"expected_version": m["version"]}),
        )
        .await;
    // The hand under way when time was called decides it.
    let m = json_with_status(r, 200, "time call").await;
    let m = sup.enter_hand(&m, &a_hand()).await;
    assert_eq!(m["status"], "complete", "{m}");
    for id in &ids[3..] {
        play_a_wins(sup, *id).await;
    }
    let r = admin
        .post(
            &format!("/api/v1/leagues/{slug}/eligibility/{}", teams[3]),
            &json!({"eligible": true, "reason": "appeal won"}),
        )
        .await;
    json_with_status(r, 200, "eligibility override").await;

    // The playoffs, to a champion.
    let r = admin
        .post(
            &format!("/api/v1/leagues/{slug}/playoffs"),
            &json!({"format": "single_elimination", "teams": 4, "third_place": true, "force": true}),
        )
        .await;
    json_with_status(r, 201, "playoffs").await;
    for _ in 0..4 {
        let bracket = json_with_status(
            admin.get(&format!("/api/v1/leagues/{slug}/bracket")).await,
            200,
            "bracket",
        )
        .await;
        for m in crate::playoffs::scheduled(&bracket) {
            play_a_wins(sup, m["match_id"].as_i64().unwrap()).await;
        }
    }
    let bracket = json_with_status(
        admin.get(&format!("/api/v1/leagues/{slug}/bracket")).await,
        200,
        "bracket",
    )
    .await;
    assert!(
        crate::playoffs::scheduled(&bracket).is_empty(),
        "the bracket is played out: {bracket}"
    );
    // A past season: the document says so, and the copy is archived too.
    let r = admin
        .post(&format!("/api/v1/leagues/{slug}/archive"), &json!({}))
        .await;
    json_with_status(r, 200, "archive").await;
}

pub(crate) async fn admin_and_sam(app: &TestApp) -> (Api, Api) {
    (
        app.api_user("coord", Role::Admin).await,
        app.api_user("sam", Role::Supervisor).await,
    )
}

pub(crate) async fn export(admin: &Api, slug: &str) -> Value {
    let r = admin.get(&format!("/api/v1/leagues/{slug}/export")).await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()["content-disposition"],
        format!("attachment; filename=\"{slug}-league.json\"").as_str()
    );
    assert_eq!(r.headers()["cache-control"], "no-store");
    r.json().await.unwrap()
}

/// Every read of league `slug`: (path, status, body), the slug written `{slug}`.
async fn reads(admin: &Api, slug: &str) -> Vec<(String, u16, String)> {
    let mut paths: Vec<String> = [
        "/api/v1/leagues/{slug}",
        "/api/v1/leagues/{slug}/teams",
        "/api/v1/leagues/{slug}/matches",
        "/api/v1/leagues/{slug}/standings",
        "/api/v1/leagues/{slug}/bracket",
        "/api/v1/leagues/{slug}/eligibility",
        "/api/v1/leagues/{slug}/divisions",
        "/leagues/{slug}/schedule.csv",
        "/leagues/{slug}",
        "/leagues/{slug}/standings",
        "/leagues/{slug}/standings.csv",
        "/leagues/{slug}/teams",
        "/leagues/{slug}/schedule",
        "/leagues/{slug}/bracket",
        "/leagues/{slug}/bracket.csv",
        "/leagues/{slug}/rules",
        "/leagues/{slug}/calendar.ics",
    ]
    .iter()
    .map(|p| p.replace("{slug}", slug))
    .collect();
    let matches = json_with_status(
        admin.get(&format!("/api/v1/leagues/{slug}/matches")).await,
        200,
        "matches",
    )
    .await;
    for m in matches["matches"].as_array().unwrap() {
        let id = &m["id"];
        paths.push(format!("/api/v1/matches/{id}"));
        paths.push(format!("/matches/{id}"));
        paths.push(format!("/matches/{id}/scoresheet.csv"));
    }
    let teams = json_with_status(
        admin.get(&format!("/api/v1/leagues/{slug}/teams")).await,
        200,
        "teams",
    )
    .await;
    for t in teams["teams"].as_array().unwrap() {
        let id = &t["id"];
        paths.push(format!("/api/v1/teams/{id}/stats"));
        paths.push(format!("/api/v1/teams/{id}/roster"));
        paths.push(format!("/leagues/{slug}/teams/{id}"));
        paths.push(format!("/teams/{id}/calendar.ics"));
    }
    let mut out = Vec::new();
    for path in paths {
        // The admin's token: the roster and eligibility are not public.
        let r = admin.get(&path).await;
        let status = r.status().as_u16();
        let body = r.text().await.unwrap().replace(slug, "{slug}");
        out.push((path.replace(slug, "{slug}"), status, body));
    }
    out
}

/// `doc` without what differs between two exports of the same season: when, the slug, the
/// audit entries' own ids, the import's own audit entry (the last, in a copy), and the
/// number of a deleted match in its entries (an import has no row to point them at: null).
fn comparable(mut doc: Value, imported: bool) -> Value {
    doc.as_object_mut().unwrap().remove("exported_at");
    doc["league"]["slug"] = json!("{slug}");
    let held: Vec<Value> = doc["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].clone())
        .collect();
    let audit = doc["audit_log"].as_array_mut().unwrap();
    if imported {
        let last = audit.pop().unwrap();
        assert_eq!(last["action"], "import", "{last}");
    }
    for entry in audit {
        let entry_map = entry.as_object_mut().unwrap();
        entry_map.remove("id");
        // An imported entry is history: the document's user is kept beside it, no account.
        if !entry_map["imported_at"].is_null() {
            assert!(entry_map["user_id"].is_null(), "{entry_map:?}");
            entry_map["user_id"] = entry_map["imported_user"].clone();
        }
        for column in ["imported_by", "imported_at", "imported_user"] {
            entry_map.remove(column);
        }
        if !entry["match_id"].is_null() && !held.contains(&entry["match_id"]) {
            entry["match_id"] = Value::Null;
            entry["entity_id"] = Value::Null;
        }
    }
    doc
}

#[actix_web::test]
async fn an_imported_league_reads_as_the_original() {
    let app = spawn_app().await;
    let (admin, sup) = admin_and_sam(&app).await;
    play_season(&admin, &sup, "fall-orig").await;
    let doc = export(&admin, "fall-orig").await;
    assert_eq!(doc["format"], "spades-im league");
    assert_eq!(doc["version"], 1);
    assert!(
        doc["hands"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["revision"] == 2 && h["reason"] == "tricks were swapped on the sheet"),
        "the correction travels with its reason"
    );

    // Another service, which holds another league already: every id of the copy is new.
    let other = spawn_app().await;
    let (other_admin, _) = admin_and_sam(&other).await;
    let teams = other
        .league(&other_admin, "decoy", json!("unc-im-300"), 3)
        .await;
    let m = other_admin
        .add_match("decoy", teams[0], teams[1], "T9")
        .await;
    other_admin
        .play_hands(m["id"].as_i64().unwrap(), &[a_hand()])
        .await;
    let r = other_admin
        .post(
            "/api/v1/leagues/import",
            &json!({"slug": "fall-copy", "document": doc}),
        )
        .await;
    let imported = json_with_status(r, 201, "import").await;
    assert_eq!(imported["slug"], "fall-copy");
    assert_eq!(imported["archived"], true, "a past season stays one");
    assert_eq!(imported["warnings"], json!([]));
    assert_ne!(imported["id"], json!(1), "a new id");

    // Every read, compared: the same except for ids (each written `#`). A reference left
    // unmapped would show another league's rows (a team's name, a match's hands).
    let original = reads(&admin, "fall-orig").await;
    let copy = reads(&other_admin, "fall-copy").await;
    assert_eq!(original.len(), copy.len());
    for ((path_a, status_a, body_a), (path_b, status_b, body_b)) in original.iter().zip(&copy) {
        assert_eq!(status_a, status_b, "{path_a} vs {path_b}");
        assert!(*status_a == 200, "{path_a}: {status_a}");
        let (a, b) = (without_ids(body_a), without_ids(body_b));
        let differs = a.lines().zip(b.lines()).find(|(x, y)| x != y);
        assert_eq!(a, b, "{path_a} vs {path_b}: first difference {differs:?}");
    }

    // Export → import → export: the same document.
    let again = export(&other_admin, "fall-copy").await;
    let (again, first) = (comparable(again, true), comparable(doc.clone(), false));
    assert_eq!(
        without_ids(&again.to_string()),
        without_ids(&first.to_string())
    );
}

/// `text` with every id written `#`: a JSON answer's `id` and `…_id` fields, and the
/// numbers in links (`/matches/12`, `/teams/3`…) and calendar entries.
fn without_ids(text: &str) -> String {
    if let Ok(mut value) = serde_json::from_str::<Value>(text) {
        fn walk(v: &mut Value, key: &str) {
            match v {
                Value::Object(fields) => fields.iter_mut().for_each(|(k, v)| walk(v, k)),
                Value::Array(items) => items.iter_mut().for_each(|v| walk(v, key)),
                Value::Number(_)
                    if key == "id"
                        || key.ends_with("_id")
                        || ["team_a", "team_b", "seat1", "seat2"].contains(&key) =>
                {
                    *v = json!("#")
                }
                _ => {}
            }
        }
        walk(&mut value, "");
        return value.to_string();
    }
    if !text.starts_with('<') && !text.starts_with("BEGIN:") {
        // A CSV file: its id columns.
        let rows = crate::helpers::csv_rows(text);
        let Some(header) = rows.first() else {
            return text.to_string();
        };
        let ids: Vec<bool> = header
            .iter()
            .map(|c| c == "id" || c.ends_with("_id"))
            .collect();
        return rows
            .iter()
            .map(|row| {
                let cells: Vec<&str> = row
                    .iter()
                    .zip(ids.iter().chain(std::iter::repeat(&false)))
                    .map(|(cell, id)| if *id { "#" } else { cell.as_str() })
                    .collect();
                cells.join(",")
            })
            .collect::<Vec<_>>()
            .join("\n");
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(|c: char| c.is_ascii_digit()) {
        let (before, from) = rest.split_at(at);
        let len = from
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(from.len());
        let (digits, after) = from.split_at(len);
        out.push_str(before);
        // An element id (`id="result-10"`, `data-match-id="10"`) or a link.
        let in_attribute = before.rsplit_once("id=\"").is_some_and(|(_, tail)| {
            tail.chars()
                .all(|c| c.is_ascii_lowercase() || c == '-' || c == '_')
        });
        let is_id = in_attribute
            || [
                "/matches/",
                "/teams/",
                "/players/",
                "match-",
                "team-",
                "league-",
            ]
            .iter()
            .any(|p| before.ends_with(p));
        out.push_str(if is_id { "#" } else { digits });
        rest = after;
    }
    out.push_str(rest);
    out
}

#[actix_web::test]
async fn an_import_refuses_a_document_that_does_not_hold_together() {
    let app = spawn_app().await;
    let (admin, _) = admin_and_sam(&app).await;
    let teams = app.league(&admin, "small", json!("unc-im-300"), 2).await;
    let m = admin.add_match("small", teams[0], teams[1], "T1").await;
    admin
        .play_hands(m["id"].as_i64().unwrap(), &[a_hand()])
        .await;
    let doc = export(&admin, "small").await;
    let before = app.tables().await;
    let import = |slug: &str, document: Value| {
        let admin = &admin;
        let body = json!({"slug": slug, "document": document});
        async move { admin.post("/api/v1/leagues/import", &body).await }
    };

    let e = expect_error(import("small", doc.clone()).await, 409, "slug_taken").await;
    assert!(e["message"].as_str().unwrap().contains("small"), "{e}");
    let e = expect_error(
        import("Not A Slug", doc.clone()).await,
        422,
        "invalid_league",
    )
    .await;
    assert_eq!(e["field"], "slug");

    let mut bad = doc.clone();
    bad["version"] = json!(2);
    let e = expect_error(import("c1", bad).await, 422, "invalid_document").await;
    assert_eq!(e["field"], "/version");
    let mut bad = doc.clone();
    bad["format"] = json!("something else");
    let e = expect_error(import("c1", bad).await, 422, "invalid_document").await;
    assert_eq!(e["field"], "/format");

    // A hand of a match the document does not hold.
    let mut bad = doc.clone();
    bad["hands"][0]["match_id"] = json!(999_999);
    let e = expect_error(import("c1", bad).await, 422, "invalid_document").await;
    assert_eq!(e["field"], "/hands/0/match_id", "{e}");
    // A team referenced but absent.
    let mut bad = doc.clone();
    bad["teams"].as_array_mut().unwrap().remove(1);
    bad["players"] = json!([]);
    let e = expect_error(import("c1", bad).await, 422, "invalid_document").await;
    assert_eq!(e["field"], "/matches/0/team_b", "{e}");
    // A stored hand that does not read.
    let mut bad = doc.clone();
    bad["hands"][0]["hand"] = json!("{\"a\": 1}");
    let e = expect_error(import("c1", bad).await, 422, "invalid_document").await;
    assert_eq!(e["field"], "/hands/0/hand", "{e}");
    // A column no table has.
    let mut bad = doc.clone();
    bad["matches"][0]["colour"] = json!("red");
    let e = expect_error(import("c1", bad).await, 422, "invalid_document").await;
    assert_eq!(e["field"], "/matches/0/colour", "{e}");
    // A match against itself.
    let mut bad = doc.clone();
    bad["matches"][0]["team_b"] = bad["matches"][0]["team_a"].clone();
    let e = expect_error(import("c1", bad).await, 422, "invalid_document").await;
    assert_eq!(e["field"], "/matches/0/team_b", "{e}");

    // Nothing of any refused import was written.
    app.assert_nothing_written(&before, "refused imports").await;
}

#[actix_web::test]
async fn a_supervisor_who_is_no_user_here_is_dropped_with_a_warning() {
    let app = spawn_app().await;
    let (admin, sup) = admin_and_sam(&app).await;
    let teams = app.league(&admin, "src", json!("unc-im-300"), 2).await;
    let r = admin
        .post(
            "/api/v1/leagues/src/supervisors",
            &json!({"username": "sam"}),
        )
        .await;
    assert_eq!(r.status(), 204);
    let m = admin.add_match("src", teams[0], teams[1], "T1").await;
    sup.play_hands(m["id"].as_i64().unwrap(), &[a_hand()]).await;
    let doc = export(&admin, "src").await;
    assert_eq!(doc["users"], json!(["coord", "sam"]));
    assert_eq!(doc["league_supervisors"][0]["user_id"], "sam");
    assert_eq!(doc["hands"][0]["recorded_by"], "sam");
    let text = doc.to_string();
    assert!(
        !text.contains("password") && !text.contains("token"),
        "{text}"
    );

    let other = spawn_app().await;
    let other_admin = other.api_user("coord", Role::Admin).await;
    let r = other_admin
        .post(
            "/api/v1/leagues/import",
            &json!({"slug": "dst", "name": "Imported", "document": doc}),
        )
        .await;
    let imported = json_with_status(r, 201, "import").await;
    assert_eq!(imported["name"], "Imported");
    let warnings = imported["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings
            .iter()
            .all(|w| w.as_str().unwrap().contains("\"sam\""))
    );
    let copy = export(&other_admin, "dst").await;
    assert_eq!(copy["league_supervisors"], json!([]));
    assert_eq!(copy["hands"][0]["recorded_by"], Value::Null);
}

#[actix_web::test]
async fn no_mangled_document_makes_the_import_fail_badly() {
    let app = spawn_app().await;
    let (admin, _) = admin_and_sam(&app).await;
    let teams = app.league(&admin, "fz", json!("unc-im-300"), 2).await;
    let m = admin.add_match("fz", teams[0], teams[1], "T1").await;
    admin
        .play_hands(m["id"].as_i64().unwrap(), &[a_hand()])
        .await;
    let doc = export(&admin, "fz").await.to_string();
    let mut seed = 7_u64;
    let mut next = || {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (seed >> 33) as usize
    };
    for i in 0..40 {
        // Truncated, or with one byte changed.
        let mut text = doc.clone().into_bytes();
        if i % 2 == 0 {
            text.truncate(next() % text.len());
        } else {
            let at = next() % text.len();
            text[at] = b"0123456789x\"{}[],:-"[next() % 19];
        }
        let body = format!(
            r#"{{"slug": "fz-{i}", "document": {}}}"#,
            String::from_utf8_lossy(&text)
        );
        let r = admin
            .client
            .post(app.url("/api/v1/leagues/import"))
            .bearer_auth(&admin.token)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        assert!(
            [201, 400, 409, 422].contains(&status),
            "mangled document {i}: {status} {}",
            r.text().await.unwrap()
        );
    }
}

#[actix_web::test]
async fn a_season_sized_document_fits_and_a_larger_one_is_413() {
    let app = spawn_app().await;
    let (admin, _) = admin_and_sam(&app).await;
    app.league(&admin, "big", json!("unc-im-300"), 2).await;
    let mut doc = export(&admin, "big").await;
    // 1 MiB over the 256 KiB of other bodies: a season's document is this large.
    doc["padding"] = json!("x".repeat(1 << 20));
    let r = admin
        .post(
            "/api/v1/leagues/import",
            &json!({"slug": "big-copy", "document": doc}),
        )
        .await;
    json_with_status(r, 201, "a 1 MiB document").await;
    doc["padding"] = json!("x".repeat(17 << 20));
    let r = admin
        .post(
            "/api/v1/leagues/import",
            &json!({"slug": "big-copy-2", "document": doc}),
        )
        .await;
    expect_error(r, 413, "too_large").await;
}
