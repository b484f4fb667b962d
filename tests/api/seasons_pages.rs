//! Past seasons on the coordinator's pages (docs/api.md §18.2, §18.4), over real HTTP:
//! closing and reopening a season through a confirmation page, the archived banner and the
//! refusals of the admin forms in words, "Past season" on the public page, the clone form,
//! the whole-league download and the import page, and deleting a match that never began from
//! the schedule page. Each refusal keeps what was typed and writes nothing.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, Browser, TestApp, html_element, html_text, spawn_app};

/// A league "fall" of four teams, the coordinator's API client and logged-in browser.
async fn setup() -> (TestApp, Api, Browser, Vec<i64>) {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let ids = app.league(&admin, "fall", json!("unc-im-300"), 4).await;
    let browser = app.browser("coord").await;
    (app, admin, browser, ids)
}

async fn html_of(browser: &Browser, path: &str) -> String {
    let r = browser.get(path).await;
    assert_eq!(r.status(), 200, "GET {path}");
    r.text().await.expect("page")
}

/// The text of the element with id `id` (up to the first `close` after it).
fn text(html: &str, id: &str, close: &str) -> String {
    html_text(html_element(html, id, close).unwrap_or_else(|| panic!("no #{id} in {html}")))
}

/// The `value` attribute of the element with id `id`.
fn value(html: &str, id: &str) -> String {
    let tag = html_element(html, id, ">").unwrap_or_else(|| panic!("no #{id} in the page"));
    tag.split(" value=\"")
        .nth(1)
        .and_then(|v| v.split('"').next())
        .unwrap_or_default()
        .to_string()
}

/// The error summary of a refused form: focused, an alert, in words.
fn summary(html: &str) -> String {
    let el = html_element(html, "form-error", "</p>").unwrap_or_else(|| panic!("{html}"));
    assert!(el.contains("class=\"error-summary\""), "{el}");
    assert!(el.contains("role=\"alert\""), "{el}");
    assert!(el.contains("autofocus"), "{el}");
    html_text(el)
}

fn location(r: &reqwest::Response) -> String {
    assert_eq!(r.status(), 303, "a redirect");
    r.headers()["location"]
        .to_str()
        .expect("location")
        .to_string()
}

async fn archived(admin: &Api, slug: &str) -> bool {
    let league: Value = admin
        .get(&format!("/api/v1/leagues/{slug}"))
        .await
        .json()
        .await
        .expect("league");
    league["archived"].as_bool().expect("archived")
}

#[actix_web::test]
async fn a_season_is_closed_and_reopened_through_a_confirmation() {
    let (app, admin, browser, _) = setup().await;
    let league_page = html_of(&browser, "/admin/leagues/fall").await;
    assert!(league_page.contains("href=\"/admin/leagues/fall/archive\""));
    assert!(html_element(&league_page, "archived-banner", "</div>").is_none());

    // The confirmation says what archiving means; asking again without it writes nothing.
    let asked = html_of(&browser, "/admin/leagues/fall/archive").await;
    let effect = text(&asked, "archive-effect", "</ul>");
    for words in ["Read-only", "Still public", "champion", "reopened"] {
        assert!(effect.contains(words), "{words}: {effect}");
    }
    let before = app.tables().await;
    let r = browser.post_form("/admin/leagues/fall/archive", &[]).await;
    assert_eq!(r.status(), 200, "no confirmation: asked again");
    app.assert_nothing_written(&before, "an archive not confirmed")
        .await;

    let r = browser
        .post_form("/admin/leagues/fall/archive", &[("confirm", "1")])
        .await;
    let to = location(&r);
    assert_eq!(to, "/admin/leagues/fall?done=archived");
    assert!(archived(&admin, "fall").await);
    let page = html_of(&browser, &to).await;
    assert!(text(&page, "notice", "</p>").starts_with("Season closed"));
    assert!(
        text(&page, "archived-banner", "</div>")
            .contains("This season is archived: read-only. Reopen it to make changes.")
    );
    assert!(page.contains("id=\"unarchive-link\""));
    for path in [
        "/admin/leagues/fall/schedule",
        "/admin/leagues/fall/playoffs",
    ] {
        let other = html_of(&browser, path).await;
        assert!(
            html_element(&other, "archived-banner", "</div>").is_some(),
            "the banner on {path}"
        );
    }
    let (_, public) = {
        let r = app.get("/leagues/fall").await;
        (r.status(), r.text().await.unwrap())
    };
    assert!(text(&public, "past-season", "</p>").starts_with("Past season"));

    // Reopening asks too, then makes the league writable again.
    let asked = html_of(&browser, "/admin/leagues/fall/unarchive").await;
    assert!(text(&asked, "unarchive-effect", "</p>").contains("writable again"));
    let r = browser
        .post_form("/admin/leagues/fall/unarchive", &[("confirm", "1")])
        .await;
    assert_eq!(location(&r), "/admin/leagues/fall?done=unarchived");
    assert!(!archived(&admin, "fall").await);
    let page = html_of(&browser, "/admin/leagues/fall").await;
    assert!(html_element(&page, "archived-banner", "</div>").is_none());
}

#[actix_web::test]
async fn closing_a_season_with_a_match_in_progress_is_refused_in_words() {
    let (app, admin, browser, teams) = setup().await;
    let m = admin.add_match("fall", teams[0], teams[1], "T1").await;
    admin.start_match(m["id"].as_i64().unwrap()).await;
    let before = app.tables().await;
    let r = browser
        .post_form("/admin/leagues/fall/archive", &[("confirm", "1")])
        .await;
    assert_eq!(r.status(), 409);
    let html = r.text().await.unwrap();
    let said = summary(&html);
    assert!(said.starts_with("Not closed:"), "{said}");
    assert!(said.contains("in progress"), "{said}");
    app.assert_nothing_written(&before, "a refused archive")
        .await;
    assert!(!archived(&admin, "fall").await);
}

#[actix_web::test]
async fn the_forms_of_an_archived_league_refuse_in_words_and_keep_what_was_typed() {
    let (app, admin, browser, teams) = setup().await;
    let r = admin.post("/api/v1/leagues/fall/archive", &json!({})).await;
    assert_eq!(r.status(), 200);
    let before = app.tables().await;
    let r = browser
        .post_form(
            "/admin/leagues/fall/teams",
            &[
                ("name", "Latecomers"),
                ("player1", "Ann"),
                ("player2", "Bo"),
            ],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    assert!(summary(&html).contains("archived"), "{html}");
    assert_eq!(value(&html, "team-name"), "Latecomers");
    let (a, b) = (teams[0].to_string(), teams[1].to_string());
    let r = browser
        .post_form(
            "/admin/leagues/fall/matches",
            &[
                ("team_a", &a),
                ("team_b", &b),
                ("stage", "regular"),
                ("table", "T9"),
            ],
        )
        .await;
    assert_eq!(r.status(), 422);
    let html = r.text().await.unwrap();
    assert!(summary(&html).contains("archived"), "{html}");
    assert_eq!(value(&html, "match-table"), "T9");
    app.assert_nothing_written(&before, "forms of an archived league")
        .await;
}

#[actix_web::test]
async fn the_clone_form_keeps_what_was_typed_and_starts_the_next_term() {
    let (app, admin, browser, _) = setup().await;
    let html = html_of(&browser, "/admin/leagues/fall/clone").await;
    assert!(
        html_element(&html, "clone-teams", ">")
            .unwrap()
            .contains(" checked"),
        "teams copied by default"
    );
    let before = app.tables().await;
    for (name, slug, teams, field, status) in [
        ("Spring 2027", "Not A Slug", Some("1"), "clone-slug", 422),
        // A slug taken is a conflict, as in the API.
        ("Spring 2027", "fall", None, "clone-slug", 409),
        ("", "spring", Some("1"), "clone-name", 422),
    ] {
        let mut fields = vec![("name", name), ("slug", slug)];
        if let Some(t) = teams {
            fields.push(("teams", t));
        }
        let r = browser
            .post_form("/admin/leagues/fall/clone", &fields)
            .await;
        assert_eq!(r.status(), status, "{name} / {slug}");
        let html = r.text().await.unwrap();
        assert!(summary(&html).starts_with("Not created:"), "{html}");
        assert_eq!(value(&html, "clone-name"), name);
        assert_eq!(value(&html, "clone-slug"), slug);
        assert_eq!(
            html_element(&html, "clone-teams", ">")
                .unwrap()
                .contains(" checked"),
            teams.is_some(),
            "the checkbox as it was"
        );
        let input = html_element(&html, field, ">").unwrap();
        assert!(input.contains("aria-invalid=\"true\""), "{field}: {input}");
        assert!(html_element(&html, &format!("{field}-error"), "</p>").is_some());
    }
    app.assert_nothing_written(&before, "refused clones").await;

    let r = browser
        .post_form(
            "/admin/leagues/fall/clone",
            &[("name", "Spring 2027"), ("slug", "spring"), ("teams", "1")],
        )
        .await;
    let to = location(&r);
    assert_eq!(to, "/admin/leagues/spring?done=cloned");
    let page = html_of(&browser, &to).await;
    assert!(text(&page, "notice", "</p>").starts_with("New league created"));
    let teams: Value = admin
        .get("/api/v1/leagues/spring/teams")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(teams["teams"].as_array().map(Vec::len), Some(4), "{teams}");
}

#[actix_web::test]
async fn a_league_is_downloaded_and_imported_from_the_admin_pages() {
    let (app, _admin, browser, _) = setup().await;
    let page = html_of(&browser, "/admin/leagues/fall").await;
    assert!(
        html_element(&page, "export-link", ">")
            .unwrap()
            .contains("href=\"/api/v1/leagues/fall/export\"")
    );
    // The admin's session cookie is enough for the download.
    let r = browser.get("/api/v1/leagues/fall/export").await;
    assert_eq!(r.status(), 200);
    assert!(
        r.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .starts_with("attachment")
    );
    let document = r.text().await.unwrap();
    let dashboard = html_of(&browser, "/admin").await;
    assert!(dashboard.contains("href=\"/admin/leagues/import\""));
    let form = html_of(&browser, "/admin/leagues/import").await;
    assert!(form.contains("src=\"/static/file_box.js\""));

    let before = app.tables().await;
    for (slug, doc, status, field) in [
        ("fall", document.as_str(), 409, None),
        (
            "copy",
            "{\"format\": \"spades-im league\"",
            422,
            Some("import-document"),
        ),
        ("copy", "", 422, Some("import-document")),
        ("Not A Slug", document.as_str(), 422, Some("import-slug")),
    ] {
        let r = browser
            .post_form(
                "/admin/leagues/import",
                &[("slug", slug), ("name", "Fall again"), ("document", doc)],
            )
            .await;
        assert_eq!(r.status(), status, "{slug}");
        let html = r.text().await.unwrap();
        assert!(summary(&html).starts_with("Not imported:"), "{html}");
        assert_eq!(value(&html, "import-slug"), slug);
        assert_eq!(value(&html, "import-name"), "Fall again");
        if let Some(field) = field {
            let input = html_element(&html, field, ">").unwrap();
            assert!(input.contains("aria-invalid=\"true\""), "{field}: {input}");
        }
    }
    app.assert_nothing_written(&before, "refused imports").await;

    // More than the 256 KiB of other forms: the document padded with JSON whitespace.
    let padded = format!("{document}{}", " ".repeat(600 * 1024));
    let r = browser
        .post_form(
            "/admin/leagues/import",
            &[("slug", "copy"), ("name", ""), ("document", &padded)],
        )
        .await;
    let to = location(&r);
    assert_eq!(to, "/admin/leagues/copy?done=imported");
    let page = html_of(&browser, &to).await;
    assert!(text(&page, "notice", "</p>").starts_with("League imported"));
    assert!(page.contains("<h1>fall</h1>"), "the document's name");
}

#[actix_web::test]
async fn a_match_never_begun_is_deleted_from_the_schedule_after_a_confirmation() {
    let (app, admin, browser, teams) = setup().await;
    let gone = admin.add_match("fall", teams[0], teams[1], "T1").await["id"]
        .as_i64()
        .unwrap();
    let started = admin.add_match("fall", teams[2], teams[3], "T2").await["id"]
        .as_i64()
        .unwrap();
    admin.start_match(started).await;
    let schedule = html_of(&browser, "/admin/leagues/fall/schedule").await;
    assert!(schedule.contains(&format!("id=\"m{gone}-delete\"")));
    assert!(
        !schedule.contains(&format!("id=\"m{started}-delete\"")),
        "a started match offers no delete"
    );

    let before = app.tables().await;
    let path = format!("/admin/leagues/fall/matches/{gone}/delete");
    let r = browser.post_form(&path, &[]).await;
    assert_eq!(r.status(), 200, "asked first");
    let asked = r.text().await.unwrap();
    assert!(asked.contains(&format!("<h1>Delete M{gone} (Team 1 v Team 2)?</h1>")));
    app.assert_nothing_written(&before, "a delete not confirmed")
        .await;

    let r = browser.post_form(&path, &[("confirm", "1")]).await;
    let to = location(&r);
    assert_eq!(
        to,
        format!("/admin/leagues/fall/schedule?done=deleted&id={gone}")
    );
    let page = html_of(&browser, &to).await;
    assert!(text(&page, "notice", "</p>").contains(&format!("Deleted M{gone}")));
    assert!(
        html_element(&page, "notice-audit", "</a>")
            .unwrap()
            .contains("href=\"/admin/audit?league=fall\"")
    );
    assert_eq!(
        admin.get(&format!("/api/v1/matches/{gone}")).await.status(),
        404
    );

    // A started match is refused in words, and stays.
    let before = app.tables().await;
    let r = browser
        .post_form(
            &format!("/admin/leagues/fall/matches/{started}/delete"),
            &[("confirm", "1")],
        )
        .await;
    assert_eq!(r.status(), 409);
    let html = r.text().await.unwrap();
    let said = summary(&html);
    assert!(
        said.starts_with("Not deleted:") && said.contains("cancel it instead"),
        "{said}"
    );
    app.assert_nothing_written(&before, "a refused delete")
        .await;
}
