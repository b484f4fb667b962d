//! A league's season settings (docs/api.md §6.9): set at creation, changed with
//! `PATCH /api/v1/leagues/{slug}` field by field, every default when not given, each refusal
//! (unknown field, value out of range, wrong role) naming the field and writing nothing.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, json_with_status, spawn_app};

async fn patch(api: &Api, slug: &str, body: &Value) -> reqwest::Response {
    api.client
        .patch(format!("{}/api/v1/leagues/{slug}", api.base))
        .bearer_auth(&api.token)
        .json(body)
        .send()
        .await
        .unwrap()
}

#[actix_web::test]
async fn settings_are_set_at_creation_and_merged_field_by_field() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    // No settings: every default.
    app.league(&admin, "plain", json!("classic"), 2).await;
    let plain = json_with_status(admin.get("/api/v1/leagues/plain").await, 200, "league").await;
    assert_eq!(
        plain["settings"],
        json!({
            "forfeit": {"grace_minutes": null, "drop_after": null},
            "sportsmanship": null,
            "eligibility": {"min_sportsmanship": null, "max_forfeits": null, "min_win_pct": null, "min_matches_played": null, "require_all_played": true},
            "lineups": {"required": false}
        })
    );
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Fall", "slug": "fall", "rules": {"regular": "classic"},
                    "settings": {"forfeit": {"grace_minutes": 10},
                                 "sportsmanship": {"min": 1, "max": 5, "forfeit_rating": 1, "required": true}}}),
        )
        .await;
    let fall = json_with_status(r, 201, "create with settings").await;
    assert_eq!(fall["settings"]["forfeit"]["grace_minutes"], 10);
    assert_eq!(fall["settings"]["sportsmanship"]["max"], 5);

    let r = patch(
        &admin,
        "fall",
        &json!({"settings": {"forfeit": {"drop_after": 2}, "eligibility": {"min_sportsmanship": 3.0, "max_forfeits": 1}}}),
    )
    .await;
    let changed = json_with_status(r, 200, "patch").await;
    assert_eq!(changed["settings"]["forfeit"]["grace_minutes"], 10, "kept");
    assert_eq!(changed["settings"]["forfeit"]["drop_after"], 2);
    assert_eq!(changed["settings"]["eligibility"]["min_sportsmanship"], 3.0);
    assert_eq!(
        changed["settings"]["eligibility"]["require_all_played"],
        true
    );
    // `null` puts a field back to its default.
    let r = patch(
        &admin,
        "fall",
        &json!({"settings": {"forfeit": {"grace_minutes": null}}}),
    )
    .await;
    let reset = json_with_status(r, 200, "reset").await;
    assert_eq!(reset["settings"]["forfeit"]["grace_minutes"], Value::Null);
    assert_eq!(reset["settings"]["forfeit"]["drop_after"], 2);
    // Each change is audited with the settings before and after.
    let mut conn = app.db.read().await.unwrap();
    let audited: Vec<(String, String)> = spades_im::on_store!(conn, |c| sqlx::query_as(
        "SELECT before, after FROM audit_log WHERE action = 'change_settings' ORDER BY id",
    )
    .fetch_all(c)
    .await)
    .unwrap();
    assert_eq!(audited.len(), 2);
    assert!(audited[1].0.contains("\"grace_minutes\":10"), "{audited:?}");
    assert!(
        audited[1].1.contains("\"grace_minutes\":null"),
        "{audited:?}"
    );
}

#[actix_web::test]
async fn refused_settings_name_the_field_and_write_nothing() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let supervisor = app.api_user("sup", Role::Supervisor).await;
    app.league(&admin, "fall", json!("classic"), 2).await;
    let before = app.tables().await;
    let cases = [
        (
            json!({"settings": {"forfeit": {"grace": 5}}}),
            "settings.forfeit",
        ),
        (json!({"settings": {"colour": "red"}}), "settings"),
        (
            json!({"settings": {"forfeit": {"grace_minutes": 500}}}),
            "settings.forfeit.grace_minutes",
        ),
        (
            json!({"settings": {"forfeit": {"drop_after": 0}}}),
            "settings.forfeit.drop_after",
        ),
        (
            json!({"settings": {"sportsmanship": {"min": 4, "max": 2}}}),
            "settings.sportsmanship",
        ),
        (
            json!({"settings": {"sportsmanship": {"min": 1, "max": 5, "forfeit_rating": 9}}}),
            "settings.sportsmanship.forfeit_rating",
        ),
        (
            json!({"settings": {"eligibility": {"min_sportsmanship": 3.0}}}),
            "settings.eligibility.min_sportsmanship",
        ),
        (
            json!({"settings": {"eligibility": {"min_win_pct": 2}}}),
            "settings.eligibility.min_win_pct",
        ),
        (
            json!({"settings": {"lineups": {"required": "yes"}}}),
            "settings.lineups.required",
        ),
        (
            json!({"settings": {"lineups": {"optional": true}}}),
            "settings.lineups",
        ),
    ];
    for (body, field) in &cases {
        let answer =
            json_with_status(patch(&admin, "fall", body).await, 422, &body.to_string()).await;
        assert_eq!(answer["error"]["code"], "invalid_settings", "{body}");
        assert!(
            answer["error"]["field"]
                .as_str()
                .unwrap()
                .starts_with(field),
            "{body}: {answer}"
        );
    }
    let ok = json!({"settings": {"forfeit": {"drop_after": 2}}});
    let r = patch(&supervisor, "fall", &ok).await;
    assert_eq!(r.status(), 403);
    let r = app
        .client
        .patch(app.url("/api/v1/leagues/fall"))
        .json(&ok)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let r = patch(&admin, "nope", &ok).await;
    assert_eq!(r.status(), 404);
    let r = patch(&admin, "fall", &json!({"name": "Other"})).await;
    assert_eq!(r.status(), 422, "only settings change this way");
    // A league created with bad settings is not created.
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Spring", "slug": "spring", "rules": {"regular": "classic"},
                    "settings": {"forfeit": {"drop_after": 99}}}),
        )
        .await;
    assert_eq!(r.status(), 422);
    app.assert_nothing_written(&before, "refused settings")
        .await;
}
