//! The coordinator's pages for conduct (issue 14) over real HTTP: the season settings on the
//! league form (saved through the service, previewed in words, bad values back at their
//! field with nothing written), the eligibility table and per-team decisions on the playoffs
//! page, the dashboard's "rating missing" list, and the ratings and dropped teams on the
//! league page.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{
    Api, Browser, TestApp, html_cells, html_element, html_text, json_with_status, spawn_app,
    unescape,
};

/// The text of the element with `id` (up to its first closing tag), unescaped.
fn text_of(html: &str, id: &str) -> Option<String> {
    let marker = format!("id=\"{id}\"");
    let at = html.find(&marker)?;
    let start = at + html[at..].find('>')? + 1;
    let end = start + html[start..].find("</")?;
    Some(unescape(&html[start..end]))
}

/// The opening tag of the element with `id`.
fn tag_of<'a>(html: &'a str, id: &str) -> &'a str {
    let at = html
        .find(&format!(" id=\"{id}\""))
        .unwrap_or_else(|| panic!("no element #{id}"));
    let start = html[..at].rfind('<').unwrap();
    let end = at + html[at..].find('>').unwrap() + 1;
    &html[start..end]
}

/// The `name`/`value` pairs of a page's hidden inputs (the preview's re-post).
fn hidden_fields(html: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find("<input type=\"hidden\" name=\"") {
        rest = &rest[at + "<input type=\"hidden\" name=\"".len()..];
        let name_end = rest.find('"').unwrap();
        let name = rest[..name_end].to_string();
        let value_at = rest.find("value=\"").unwrap() + "value=\"".len();
        let value_end = value_at + rest[value_at..].find('"').unwrap();
        if !out.iter().any(|(n, _)| *n == name) {
            out.push((name, unescape(&rest[value_at..value_end])));
        }
        rest = &rest[value_end..];
    }
    out
}

fn pairs(fields: &[(String, String)]) -> Vec<(&str, &str)> {
    fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

/// `base` with `changes` applied (a change replaces the field of the same name).
fn fields<'a>(
    base: &[(&'a str, &'a str)],
    changes: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    let mut out: Vec<(&str, &str)> = base
        .iter()
        .filter(|(k, _)| !changes.iter().any(|(c, _)| c == k))
        .copied()
        .collect();
    out.extend_from_slice(changes);
    out
}

/// Form fields: name and value.
type Fields<'a> = &'a [(&'a str, &'a str)];

/// A new league with every season setting given (the require-all-played box unticked).
const LEAGUE: Fields = &[
    ("name", "Fall 2026"),
    ("slug", "fall-2026"),
    ("regular_preset", "unc-im-300"),
    ("playoff_preset", ""),
    ("final_preset", ""),
    ("tiebreak1", "head_to_head"),
    ("tiebreak2", "differential"),
    ("tiebreak3", "points_for"),
    ("settings_form", "1"),
    ("grace_minutes", "10"),
    ("drop_after", "2"),
    ("default_notice_hours", "24"),
    ("dispute_hours", "24"),
    ("rate_sportsmanship", "1"),
    ("rating_min", "1"),
    ("rating_max", "5"),
    ("forfeit_rating", "1"),
    ("rating_required", "1"),
    ("min_sportsmanship", "3"),
    ("max_forfeits", "1"),
    ("min_win_pct", "50%"),
];

async fn setup() -> (TestApp, Api, Browser) {
    let app = spawn_app().await;
    let api = app.api_user("boss", Role::Admin).await;
    let browser = app.browser("boss").await;
    (app, api, browser)
}

async fn patch_settings(app: &TestApp, api: &Api, slug: &str, settings: Value) {
    let r = api
        .client
        .patch(app.url(&format!("/api/v1/leagues/{slug}")))
        .bearer_auth(&api.token)
        .json(&json!({ "settings": settings }))
        .send()
        .await
        .unwrap();
    json_with_status(r, 200, "settings").await;
}

async fn forfeit(api: &Api, id: i64, team: &str) {
    let r = api
        .post(
            &format!("/api/v1/matches/{id}/forfeit"),
            &json!({ "team": team }),
        )
        .await;
    json_with_status(r, 200, "forfeit").await;
}

/// The audit rows of `action` on an `entity` ("league", "team"): entity, entity id, before,
/// after, reason, who.
async fn audit(
    app: &TestApp,
    action: &str,
    entity: &str,
) -> Vec<(String, i64, String, String, String, i64)> {
    let mut conn = app.db.read().await.unwrap();
    spades_im::on_store!(conn, |c| sqlx::query_as(
        "SELECT entity, entity_id, coalesce(before, ''), coalesce(after, ''),
                coalesce(reason, ''), coalesce(user_id, 0)
         FROM audit_log WHERE action = $1 AND entity = $2 ORDER BY id",
    )
    .bind(action)
    .bind(entity)
    .fetch_all(c)
    .await)
    .unwrap()
}

async fn league_json(api: &Api, slug: &str) -> Value {
    json_with_status(
        api.get(&format!("/api/v1/leagues/{slug}")).await,
        200,
        "league",
    )
    .await
}

#[actix_web::test]
async fn the_league_form_sets_the_season_settings_with_a_preview_in_words() {
    let (app, api, browser) = setup().await;
    // The new form: every settings input with its label, the defaults ticked as the API's.
    let html = browser
        .get("/admin/leagues/new")
        .await
        .text()
        .await
        .unwrap();
    for name in [
        "grace_minutes",
        "drop_after",
        "rating_min",
        "rating_max",
        "forfeit_rating",
        "min_sportsmanship",
        "max_forfeits",
        "min_win_pct",
    ] {
        assert!(
            html.contains(&format!("<label for=\"{name}\">")),
            "a label for {name}"
        );
        assert!(tag_of(&html, name).contains("value=\"\""), "{name} empty");
    }
    assert!(tag_of(&html, "require_all_played").contains(" checked"));
    assert!(!tag_of(&html, "rate_sportsmanship").contains(" checked"));

    // The preview says the settings in words; nothing is written yet.
    let before = app.tables().await;
    let r = browser.post_form("/admin/leagues/new", LEAGUE).await;
    assert_eq!(r.status(), 200);
    let html = r.text().await.unwrap();
    let words = html_text(html_element(&html, "settings-words", "</ul>").unwrap());
    for line in [
        "A team not at the table 10 minutes after the match time may be forfeited.",
        "A team is dropped from the league at its 2nd forfeit",
        "The supervisor rates each team's sportsmanship after every match, from 1 to 5. A team that forfeits is rated 1. Every match must be rated.",
        "To enter the playoffs a team needs a sportsmanship average of at least 3.0, no more than 1 forfeit and a win percentage of at least 0.500.",
        "The playoffs may start before every regular-season match is played.",
    ] {
        assert!(words.contains(line), "{line:?} in {words:?}");
    }
    app.assert_nothing_written(&before, "the preview").await;

    // "Change" goes back to the form with every value as typed.
    let mut back = hidden_fields(&html);
    back.push(("back".into(), "1".into()));
    let html = browser
        .post_form("/admin/leagues/new", &pairs(&back))
        .await
        .text()
        .await
        .unwrap();
    assert!(tag_of(&html, "grace_minutes").contains("value=\"10\""));
    assert!(tag_of(&html, "default_notice_hours").contains("value=\"24\""));
    assert!(tag_of(&html, "dispute_hours").contains("value=\"24\""));
    assert!(tag_of(&html, "min_win_pct").contains("value=\"50%\""));
    assert!(tag_of(&html, "rate_sportsmanship").contains(" checked"));
    assert!(tag_of(&html, "rating_required").contains(" checked"));
    assert!(!tag_of(&html, "require_all_played").contains(" checked"));

    // Save: through the service, read back from the API.
    let preview = browser
        .post_form("/admin/leagues/new", LEAGUE)
        .await
        .text()
        .await
        .unwrap();
    let mut save = hidden_fields(&preview);
    save.push(("confirm".into(), "1".into()));
    let r = browser.post_form("/admin/leagues/new", &pairs(&save)).await;
    assert_eq!(r.status(), 303);
    assert_eq!(
        r.headers()["location"],
        "/admin/leagues/fall-2026?done=saved"
    );
    let league = league_json(&api, "fall-2026").await;
    assert_eq!(
        league["settings"],
        json!({
            "forfeit": {"grace_minutes": 10, "drop_after": 2},
            "sportsmanship": {"min": 1, "max": 5, "forfeit_rating": 1, "required": true},
            "eligibility": {"min_sportsmanship": 3.0, "max_forfeits": 1, "min_win_pct": 0.5, "min_matches_played": null, "require_all_played": false},
            "lineups": {"required": false}
        })
    );
    assert_eq!(audit(&app, "create", "league").await.len(), 1);
    // The league page says them in words.
    let html = browser
        .get("/admin/leagues/fall-2026")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        html_text(html_element(&html, "settings-words", "</ul>").unwrap())
            .contains("A team is dropped from the league at its 2nd forfeit")
    );

    // Edit: the form shows them as saved; a change of the settings alone goes through the
    // API's settings change (audited as such); emptied fields are no value.
    let html = browser
        .get("/admin/leagues/fall-2026/edit")
        .await
        .text()
        .await
        .unwrap();
    assert!(tag_of(&html, "grace_minutes").contains("value=\"10\""));
    assert!(tag_of(&html, "min_win_pct").contains("value=\"0.5\""));
    assert!(tag_of(&html, "min_sportsmanship").contains("value=\"3\""));
    assert!(tag_of(&html, "rate_sportsmanship").contains(" checked"));
    assert!(!tag_of(&html, "require_all_played").contains(" checked"));
    let edit = fields(
        LEAGUE,
        &[
            ("grace_minutes", "15"),
            ("drop_after", ""),
            ("default_notice_hours", ""),
            ("dispute_hours", "12"),
            ("min_win_pct", ""),
            ("require_all_played", "1"),
            ("confirm", "1"),
        ],
    );
    let r = browser
        .post_form("/admin/leagues/fall-2026/edit", &edit)
        .await;
    assert_eq!(r.status(), 303);
    let league = league_json(&api, "fall-2026").await;
    assert_eq!(league["settings"]["forfeit"]["grace_minutes"], 15);
    assert_eq!(league["settings"]["forfeit"]["drop_after"], Value::Null);
    // Emptied, the notice of a default is "no defaults"; the dispute window is 12 hours.
    assert_eq!(
        league["settings"]["forfeit"]["default_notice_hours"],
        Value::Null
    );
    assert_eq!(league["settings"]["disputes"]["hours"], 12);
    assert_eq!(
        league["settings"]["eligibility"]["min_win_pct"],
        Value::Null
    );
    assert_eq!(
        league["settings"]["eligibility"]["require_all_played"],
        true
    );
    assert_eq!(league["settings"]["sportsmanship"]["max"], 5, "kept");
    assert_eq!(league["name"], "Fall 2026");
    let changes = audit(&app, "change_settings", "league").await;
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert!(changes[0].2.contains("\"grace_minutes\":10"), "{changes:?}");
    assert!(changes[0].3.contains("\"grace_minutes\":15"), "{changes:?}");
    assert!(
        audit(&app, "update", "league").await.is_empty(),
        "nothing else changed"
    );

    // The scale turned off with the name changed: one update with both.
    let edit = fields(
        LEAGUE,
        &[
            ("name", "Fall 2026 Spades"),
            ("rate_sportsmanship", ""),
            ("min_sportsmanship", ""),
            ("confirm", "1"),
        ],
    );
    let r = browser
        .post_form("/admin/leagues/fall-2026/edit", &edit)
        .await;
    assert_eq!(r.status(), 303);
    let league = league_json(&api, "fall-2026").await;
    assert_eq!(league["name"], "Fall 2026 Spades");
    assert_eq!(league["settings"]["sportsmanship"], Value::Null);
    assert_eq!(league["settings"]["forfeit"]["grace_minutes"], 10);
    assert_eq!(audit(&app, "update", "league").await.len(), 1);

    // A post without the settings fieldset (an older page) leaves them as they are.
    let old: Vec<(&str, &str)> = LEAGUE
        .iter()
        .take_while(|(k, _)| *k != "settings_form")
        .copied()
        .chain([("confirm", "1")])
        .collect();
    let r = browser
        .post_form("/admin/leagues/fall-2026/edit", &old)
        .await;
    assert_eq!(r.status(), 303);
    let after = league_json(&api, "fall-2026").await;
    assert_eq!(after["name"], "Fall 2026");
    assert_eq!(after["settings"], league["settings"], "unchanged");
}

#[actix_web::test]
async fn a_bad_setting_comes_back_at_its_field_with_every_value_and_nothing_written() {
    let (app, api, browser) = setup().await;
    app.league(&api, "spring", json!("classic"), 2).await;
    let cases: &[(Fields, &str, &str)] = &[
        (
            &[("rating_max", "11")],
            "rating_max-error",
            "the rating scale runs from min to a larger max, at most 10",
        ),
        (
            &[("rating_min", "5")],
            "rating_max-error",
            "the rating scale runs from min to a larger max",
        ),
        (
            &[("grace_minutes", "121")],
            "grace_minutes-error",
            "the grace period is 0 to 120 minutes",
        ),
        (
            &[("grace_minutes", "ten")],
            "grace_minutes-error",
            "is a whole number (or empty), not \"ten\"",
        ),
        (
            &[("drop_after", "0")],
            "drop_after-error",
            "a team is dropped after 1 to 20 forfeits",
        ),
        (
            &[("default_notice_hours", "169")],
            "default_notice_hours-error",
            "a default is announced 0 to 168 hours",
        ),
        (
            &[("dispute_hours", "200")],
            "dispute_hours-error",
            "a dispute is filed 0 to 168 hours",
        ),
        (
            &[("forfeit_rating", "7")],
            "forfeit_rating-error",
            "the forfeit rating is on the scale, 1 to 5",
        ),
        (
            &[("min_sportsmanship", "6")],
            "min_sportsmanship-error",
            "the minimum average is on the scale, 1 to 5",
        ),
        (
            &[("rate_sportsmanship", ""), ("min_sportsmanship", "3")],
            "min_sportsmanship-error",
            "a sportsmanship minimum needs the rating scale",
        ),
        (
            &[("max_forfeits", "51")],
            "max_forfeits-error",
            "the forfeit limit is 0 to 50",
        ),
        (
            &[("min_win_pct", "1.5")],
            "min_win_pct-error",
            "the minimum win percentage is 0 to 1",
        ),
        (
            &[("min_win_pct", "NaN")],
            "min_win_pct-error",
            "is a number (or empty), not \"NaN\"",
        ),
    ];
    let before = app.tables().await;
    for (changes, id, message) in cases {
        for (path, confirm) in [
            ("/admin/leagues/new", ""),
            ("/admin/leagues/new", "1"),
            ("/admin/leagues/spring/edit", "1"),
        ] {
            let mut changes = changes.to_vec();
            changes.push(("confirm", confirm));
            let form = fields(LEAGUE, &changes);
            let r = browser.post_form(path, &form).await;
            assert_eq!(r.status(), 422, "{path} {changes:?}");
            let html = r.text().await.unwrap();
            let shown = text_of(&html, id).unwrap_or_default();
            assert!(shown.contains(message), "{changes:?}: at {id}: {shown:?}");
            // The summary at the top, focused, says it too.
            let summary = tag_of(&html, "form-error");
            assert!(summary.contains("role=\"alert\"") && summary.contains("autofocus"));
            assert!(text_of(&html, "form-error").unwrap().contains(message));
            let input = id.trim_end_matches("-error");
            let tag = tag_of(&html, input);
            assert!(tag.contains("aria-invalid=\"true\""), "{tag}");
            assert!(tag.contains(id), "described by its message: {tag}");
            // Every value as typed.
            for (name, value) in &form {
                if ["grace_minutes", "rating_max", "min_win_pct", "max_forfeits"].contains(name) {
                    assert!(
                        tag_of(&html, name).contains(&format!("value=\"{value}\"")),
                        "{name} kept as {value:?}"
                    );
                }
            }
            assert!(tag_of(&html, "rating_required").contains(" checked"));
        }
    }
    app.assert_nothing_written(&before, "bad settings").await;
    assert_eq!(
        league_json(&api, "spring").await["settings"]["sportsmanship"],
        Value::Null
    );
}

/// A league "fall" of four teams that allows no forfeit in the playoffs; team 1 forfeits its
/// match against team 2.
async fn forfeited_league(app: &TestApp, api: &Api) -> Vec<i64> {
    let t = app.league(api, "fall", json!("classic"), 4).await;
    patch_settings(
        app,
        api,
        "fall",
        json!({"eligibility": {"max_forfeits": 0}}),
    )
    .await;
    let m = api.add_match("fall", t[0], t[1], "T1").await;
    forfeit(api, m["id"].as_i64().unwrap(), "a").await;
    t
}

/// The eligibility row of `team` from the API.
async fn eligibility_of(app: &TestApp, team: i64) -> Value {
    let table = json_with_status(
        app.get("/api/v1/leagues/fall/eligibility").await,
        200,
        "eligibility",
    )
    .await;
    table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["team_id"] == team)
        .unwrap()
        .clone()
}

#[actix_web::test]
async fn the_playoffs_page_shows_who_may_enter_and_takes_the_coordinators_decision() {
    let (app, api, browser) = setup().await;
    let t = forfeited_league(&app, &api).await;
    app.user("sam", Role::Supervisor).await;
    let sam = app.browser("sam").await;
    let r = browser.get("/admin/leagues/fall/playoffs").await;
    assert_eq!(r.status(), 200);
    let html = r.text().await.unwrap();
    assert!(
        html_text(html_element(&html, "eligibility-rules", "</ul>").unwrap())
            .contains("To enter the playoffs a team needs no forfeits.")
    );
    let row = |html: &str, team: i64| {
        html_cells(html_element(html, &format!("elig-{team}"), "</tr>").unwrap())
    };
    let one = row(&html, t[0]);
    assert_eq!(one[0], "Team 1");
    assert_eq!(one[1], "no");
    assert_eq!(one[2], "1 forfeit, more than the 0 allowed");
    assert!(one[4].starts_with("As the rules say."), "{one:?}");
    let two = row(&html, t[1]);
    assert_eq!(two[1], "yes");
    assert_eq!(two[2], "—");
    assert_eq!(two[3], "one more forfeit and you are out of the playoffs");
    // The bracket's team count defaults to the eligible teams.
    assert!(tag_of(&html, "teams").contains("value=\"3\""));

    // A decision without a reason: refused at the field, with what was chosen; nothing
    // written.
    let path = format!("/admin/leagues/fall/eligibility/{}", t[0]);
    let before = app.tables().await;
    let r = browser
        .post_form(&path, &[("decision", "eligible"), ("reason", "  ")])
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    let message = text_of(&html, &format!("o{}-reason-error", t[0])).unwrap();
    assert!(message.contains("a decision needs a reason"), "{message}");
    assert!(text_of(&html, "form-error").unwrap().contains("Team 1"));
    let form = html_element(&html, &format!("elig-{}", t[0]), "</tr>").unwrap();
    assert!(form.contains("<details open>"), "the form is open");
    assert!(form.contains("value=\"eligible\" checked"));
    assert!(tag_of(&html, &format!("o{}-reason", t[0])).contains("aria-invalid=\"true\""));
    // No choice at all: the message at the choice, the reason kept.
    let r = browser
        .post_form(&path, &[("reason", "the snow day <forfeit>")])
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    assert!(
        text_of(&html, &format!("o{}-eligible-error", t[0]))
            .unwrap()
            .contains("choose eligible, not eligible, or back to the rules")
    );
    let reason = text_of(&html, &format!("o{}-reason", t[0])).unwrap();
    assert_eq!(reason, "the snow day <forfeit>", "the reason kept, escaped");
    app.assert_nothing_written(&before, "refused decisions")
        .await;

    // A supervisor may not decide (nor see the page).
    let r = sam
        .post_form(&path, &[("decision", "eligible"), ("reason", "please")])
        .await;
    assert_eq!(r.status(), 403);
    assert_eq!(sam.get("/admin/leagues/fall/playoffs").await.status(), 403);
    // A team of another league (or none) is not found.
    let r = browser
        .post_form(
            "/admin/leagues/fall/eligibility/9999",
            &[("decision", "eligible"), ("reason", "x")],
        )
        .await;
    assert_eq!(r.status(), 404);
    app.assert_nothing_written(&before, "refused decisions")
        .await;

    // The decision: saved, back to the page (POST/redirect/GET), in the API and the audit
    // log.
    let r = browser
        .post_form(
            &path,
            &[
                ("decision", "eligible"),
                ("reason", "forfeit was a snow day"),
            ],
        )
        .await;
    assert_eq!(r.status(), 303);
    let to = r.headers()["location"].to_str().unwrap().to_string();
    assert_eq!(
        to,
        format!("/admin/leagues/fall/playoffs?saved={0}#elig-{0}", t[0])
    );
    let row_api = eligibility_of(&app, t[0]).await;
    assert_eq!(row_api["eligible"], true);
    assert_eq!(row_api["override"]["eligible"], true);
    assert_eq!(row_api["override"]["reason"], "forfeit was a snow day");
    assert_eq!(row_api["override"]["by"], "boss");
    assert_eq!(
        row_api["reasons"],
        json!(["1 forfeit, more than the 0 allowed"])
    );
    let rows = audit(&app, "override_eligibility", "team").await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].0, "team");
    assert_eq!(rows[0].1, t[0]);
    assert_eq!(rows[0].3, "eligible (admin's decision)");
    assert_eq!(rows[0].4, "forfeit was a snow day");
    let html = browser.get(&to).await.text().await.unwrap();
    assert!(
        text_of(&html, "notice")
            .unwrap()
            .contains("Eligibility of Team 1 saved")
    );
    let one = row(&html, t[0]);
    assert_eq!(one[1], "yes (decision)");
    assert!(
        one[4].starts_with("Eligible over the rules, by boss, ")
            && one[4].contains("\u{201c}forfeit was a snow day\u{201d}"),
        "{one:?}"
    );
    assert!(tag_of(&html, "teams").contains("value=\"4\""));

    // Back to the rules: the decision is removed (audited), the rules judge again.
    let r = browser
        .post_form(&path, &[("decision", "rules"), ("reason", "")])
        .await;
    assert_eq!(r.status(), 303);
    let row_api = eligibility_of(&app, t[0]).await;
    assert_eq!(row_api["override"], Value::Null);
    assert_eq!(row_api["eligible"], false);
    let rows = audit(&app, "override_eligibility", "team").await;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1].2, "eligible (admin's decision)");
    assert_eq!(rows[1].3, "as the rules say");

    // A withdrawn team cannot be made eligible: the service's message at the choice.
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/teams/{}/withdraw", t[3]),
            &[("withdrawn", "1")],
        )
        .await;
    assert_eq!(r.status(), 303);
    let before = app.tables().await;
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/eligibility/{}", t[3]),
            &[("decision", "eligible"), ("reason", "they came back")],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    assert!(
        text_of(&html, &format!("o{}-eligible-error", t[3]))
            .unwrap()
            .contains("Team 4 has withdrawn")
    );
    assert!(html.contains("they came back</textarea>"));
    app.assert_nothing_written(&before, "a withdrawn team made eligible")
        .await;
}

#[actix_web::test]
async fn the_dashboard_lists_matches_with_a_rating_missing_until_they_are_rated() {
    let (app, api, browser) = setup().await;
    // "rated" requires ratings and drops a team at its 2nd forfeit; "loose" rates without
    // requiring it.
    let t = app.league(&api, "rated", json!("classic"), 3).await;
    patch_settings(
        &app,
        &api,
        "rated",
        json!({"sportsmanship": {"min": 1, "max": 5, "required": true}, "forfeit": {"drop_after": 2}}),
    )
    .await;
    let u = app.league(&api, "loose", json!("classic"), 2).await;
    patch_settings(
        &app,
        &api,
        "loose",
        json!({"sportsmanship": {"min": 1, "max": 5}}),
    )
    .await;
    let html = browser.get("/admin").await.text().await.unwrap();
    assert!(html.contains("id=\"all-rated\""), "nothing finished yet");

    let first = api.add_match("rated", t[0], t[1], "T1").await["id"]
        .as_i64()
        .unwrap();
    let second = api.add_match("rated", t[0], t[2], "T2").await["id"]
        .as_i64()
        .unwrap();
    let elsewhere = api.add_match("loose", u[0], u[1], "T1").await["id"]
        .as_i64()
        .unwrap();
    let unplayed = api.add_match("rated", t[1], t[2], "T3").await["id"]
        .as_i64()
        .unwrap();
    forfeit(&api, first, "a").await;
    forfeit(&api, elsewhere, "a").await;

    let html = browser.get("/admin").await.text().await.unwrap();
    let list = html_element(&html, "rating-missing", "</ul>").expect("the list");
    assert!(list.contains(&format!("id=\"unrated-{first}\"")));
    assert!(list.contains(&format!("href=\"/supervise/matches/{first}\"")));
    let item = html_text(html_element(&html, &format!("unrated-{first}"), "</li>").unwrap());
    assert!(item.contains("Team 1 v Team 2"), "{item}");
    assert!(item.contains("rating missing: both teams"), "{item}");
    assert!(
        !list.contains(&format!("unrated-{elsewhere}\"")),
        "not required there"
    );
    assert!(
        !list.contains(&format!("unrated-{unplayed}\"")),
        "not played"
    );

    // Rated: off the list.
    let r = api
        .post(
            &format!("/api/v1/matches/{first}/sportsmanship"),
            &json!({"a": 2, "b": 5, "note": "argued every call"}),
        )
        .await;
    json_with_status(r, 200, "rate").await;
    let html = browser.get("/admin").await.text().await.unwrap();
    assert!(!html.contains(&format!("id=\"unrated-{first}\"")), "rated");
    assert!(html.contains("id=\"all-rated\""));

    // The second forfeit drops team 1: a new match to rate, and the league page says why.
    forfeit(&api, second, "a").await;
    let html = browser.get("/admin").await.text().await.unwrap();
    assert!(html.contains(&format!("id=\"unrated-{second}\"")));
    let html = browser
        .get("/admin/leagues/rated")
        .await
        .text()
        .await
        .unwrap();
    let team = html_text(html_element(&html, &format!("team-{}", t[0]), "</strong>").unwrap());
    assert_eq!(team, "Team 1");
    let line = html_element(&html, &format!("team-{}", t[0]), "</em>").unwrap();
    assert!(
        html_text(line).ends_with("(dropped after 2 forfeits)"),
        "{line}"
    );
    // Every finished match's ratings and notes with their authors (for admins and the
    // author), a missing one said so.
    let ratings = html_element(&html, "ratings", "</table>").expect("the ratings");
    let cells = html_cells(html_element(ratings, &format!("rating-{first}"), "</tr>").unwrap());
    assert_eq!(
        cells,
        ["Team 1 v Team 2", "2", "5", "argued every call (boss)"]
    );
    let cells = html_cells(html_element(ratings, &format!("rating-{second}"), "</tr>").unwrap());
    assert_eq!(
        cells,
        ["Team 1 v Team 3", "rating missing", "rating missing", ""]
    );
    assert!(!ratings.contains(&format!("rating-{unplayed}\"")));

    // Rated: off the dashboard.
    let r = api
        .post(
            &format!("/api/v1/matches/{second}/sportsmanship"),
            &json!({"a": 4, "b": 5}),
        )
        .await;
    json_with_status(r, 200, "rate").await;
    let html = browser.get("/admin").await.text().await.unwrap();
    assert!(!html.contains(&format!("id=\"unrated-{second}\"")));
    assert!(html.contains("id=\"all-rated\""));
    // A league not rating sportsmanship says so on its page.
    let r = api
        .post(
            "/api/v1/leagues",
            &json!({"name": "plain", "slug": "plain", "rules": {"regular": "classic"}}),
        )
        .await;
    json_with_status(r, 201, "league").await;
    let html = browser
        .get("/admin/leagues/plain")
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("This league does not rate sportsmanship"));
    assert!(!html.contains("id=\"ratings\""));
}

/// "Lineups required before the first hand" on the league form is
/// `settings.lineups.required`: saved when ticked, shown as saved, cleared when not.
#[actix_web::test]
async fn the_league_form_requires_lineups_when_ticked() {
    let (_app, api, browser) = setup().await;
    let html = browser
        .get("/admin/leagues/new")
        .await
        .text()
        .await
        .unwrap();
    assert!(!tag_of(&html, "lineups_required").contains(" checked"));
    let new = fields(LEAGUE, &[("lineups_required", "1"), ("confirm", "1")]);
    let r = browser.post_form("/admin/leagues/new", &new).await;
    assert_eq!(r.status(), 303);
    let league = league_json(&api, "fall-2026").await;
    assert_eq!(league["settings"]["lineups"]["required"], true);
    let html = browser
        .get("/admin/leagues/fall-2026/edit")
        .await
        .text()
        .await
        .unwrap();
    assert!(tag_of(&html, "lineups_required").contains(" checked"));
    let r = browser
        .post_form(
            "/admin/leagues/fall-2026/edit",
            &fields(LEAGUE, &[("confirm", "1")]),
        )
        .await;
    assert_eq!(r.status(), 303);
    let league = league_json(&api, "fall-2026").await;
    assert_ne!(league["settings"]["lineups"]["required"], true);
}

/// "Empty: 5", as the hint says: an empty optional setting is its default, on the new form's
/// preview and once saved, and no answer shows a parser's words.
#[actix_web::test]
async fn an_empty_optional_setting_is_its_default_never_a_parser_message() {
    let (_app, api, browser) = setup().await;
    let emptied: Vec<(&str, &str)> = LEAGUE
        .iter()
        .map(|(k, v)| match *k {
            "rating_min" | "rating_max" | "forfeit_rating" | "grace_minutes" => (*k, ""),
            _ => (*k, *v),
        })
        .collect();
    let r = browser.post_form("/admin/leagues/new", &emptied).await;
    let status = r.status();
    let html = r.text().await.unwrap();
    assert_eq!(status, 200, "{}", html_text(&html));
    for words in ["invalid type", "expected u32", "null"] {
        assert!(!html.contains(words), "{words}");
    }
    let words = html_text(html_element(&html, "settings-words", "</ul>").unwrap());
    assert!(words.contains("from 1 to 5"), "{words}");
    let mut save = hidden_fields(&html);
    save.push(("confirm".into(), "1".into()));
    let r = browser.post_form("/admin/leagues/new", &pairs(&save)).await;
    assert_eq!(r.status(), 303);
    let league = league_json(&api, "fall-2026").await;
    assert_eq!(league["settings"]["sportsmanship"]["max"], 5);
    // The API: `null` in a change is the default too.
    let r = api
        .patch(
            "/api/v1/leagues/fall-2026",
            &json!({"settings": {"sportsmanship": {"min": null, "max": null}}}),
        )
        .await;
    let body = r.text().await.unwrap();
    assert!(!body.contains("invalid type"), "{body}");
}
