//! Conduct on the public pages over real HTTP: the standings' "Sportsmanship" column (page,
//! league home, CSV) when the league rates and not otherwise, a dropped team marked in the
//! standings, the rules page's "Season rules" in words, the team page's "What does my team
//! need?" (at risk after one forfeit, out after two, nothing at risk, an admin's decision,
//! dropped), and the demo season's ratings and its team at risk. Data goes in through the
//! JSON API; pages are read anonymously (through the page cache, which must not serve a copy
//! older than the change).

use serde_json::{Value, json};
use spades_im::domain::TeamId;
use spades_im::service::Role;
use spades_im::service::views::public_views;

use crate::helpers::{
    Api, TestApp, anonymous_get, csv_rows, hand_of, html_element, html_standings, html_text,
    json_with_status, spawn_app,
};

/// Ratings 1 to 5 (a forfeiting team gets 1); the playoffs need an average of 3.0 and at
/// most 1 forfeit; a team is dropped at its 3rd forfeit.
const SETTINGS: &str = r#"{"forfeit": {"grace_minutes": 10, "drop_after": 3},
    "sportsmanship": {"min": 1, "max": 5, "forfeit_rating": 1, "required": true},
    "eligibility": {"min_sportsmanship": 3.0, "max_forfeits": 1}}"#;

/// An admin, a supervisor of league `fall` (4 teams, games to 100, [`SETTINGS`]) and its
/// team ids; and league `plain` (4 teams, no settings), whose ids follow.
async fn season(app: &TestApp) -> (Api, Api, Vec<i64>, Vec<i64>) {
    let admin = app.api_user("coord", Role::Admin).await;
    let sup = app.api_user("sup", Role::Supervisor).await;
    let rules = json!({"preset": "unc-im-300", "target": 100});
    let fall = app.league(&admin, "fall", rules.clone(), 4).await;
    let plain = app.league(&admin, "plain", rules, 4).await;
    let settings: Value = serde_json::from_str(SETTINGS).unwrap();
    patch_settings(app, &admin, "fall", settings).await;
    let r = admin
        .post(
            "/api/v1/leagues/fall/supervisors",
            &json!({"username": "sup"}),
        )
        .await;
    assert!(r.status().is_success(), "supervisor: {}", r.status());
    (admin, sup, fall, plain)
}

async fn patch_settings(app: &TestApp, admin: &Api, slug: &str, settings: Value) {
    let r = admin
        .client
        .patch(app.url(&format!("/api/v1/leagues/{slug}")))
        .bearer_auth(&admin.token)
        .json(&json!({ "settings": settings }))
        .send()
        .await
        .unwrap();
    json_with_status(r, 200, "settings").await;
}

/// Two hands: team a reaches 100 and wins.
fn winning_hands() -> Vec<Value> {
    vec![
        hand_of([4, 3], [4, 4], [3, 3], [2, 3]),
        hand_of([4, 3], [4, 4], [3, 3], [2, 3]),
    ]
}

/// A match of `slug` between `a` and `b` played to the end (a wins); its id.
async fn played(admin: &Api, slug: &str, a: i64, b: i64) -> i64 {
    let m = admin.add_match(slug, a, b, "T1").await;
    let id = m["id"].as_i64().unwrap();
    let done = admin.play_hands(id, &winning_hands()).await;
    assert_eq!(done["status"], "complete", "{done}");
    id
}

async fn rate(sup: &Api, id: i64, a: i64, b: i64) {
    let r = sup
        .post(
            &format!("/api/v1/matches/{id}/sportsmanship"),
            &json!({"a": a, "b": b}),
        )
        .await;
    json_with_status(r, 200, "rate").await;
}

/// A match of `slug` between `a` and `b` forfeited by team a; its id.
async fn forfeited(admin: &Api, slug: &str, a: i64, b: i64) -> i64 {
    let m = admin.add_match(slug, a, b, "T2").await;
    let id = m["id"].as_i64().unwrap();
    let r = admin
        .post(
            &format!("/api/v1/matches/{id}/forfeit"),
            &json!({"team": "a"}),
        )
        .await;
    let done = json_with_status(r, 200, "forfeit").await;
    assert_eq!(done["sportsmanship"]["a"], 1, "the forfeit rating");
    id
}

/// An anonymous page that must answer 200.
async fn page(app: &TestApp, path: &str) -> String {
    let (status, _, body) = anonymous_get(app, path).await;
    assert_eq!(status, 200, "GET {path}");
    assert!(!body.contains(" style="), "{path} has a style attribute");
    body
}

/// The standings table's header cells, as text.
fn header(html: &str) -> Vec<String> {
    let table = html_element(html, "standings", "</table>").expect("a standings table");
    let start = table.find("<thead>").unwrap() + "<thead>".len();
    let head = &table[start..table.find("</thead>").unwrap()];
    head.split("<th")
        .skip(1)
        .map(|cell| html_text(&format!("<th{}", &cell[..cell.find("</th>").unwrap()])))
        .collect()
}

/// The standings rows of a page by team name (the team cell's first two words: "Team 1"),
/// each with its cells.
fn rows_by_team(html: &str) -> Vec<(String, Vec<String>)> {
    html_standings(html)
        .into_iter()
        .map(|cells| {
            let team = cells[1].split(' ').take(2).collect::<Vec<_>>().join(" ");
            (team, cells)
        })
        .collect()
}

/// The "Sportsmanship" cell of each team, by the header's position.
fn sportsmanship_cells(html: &str) -> Vec<(String, String)> {
    let head = header(html);
    let at = head
        .iter()
        .position(|h| h == "Sportsmanship")
        .unwrap_or_else(|| panic!("no Sportsmanship column: {head:?}"));
    rows_by_team(html)
        .into_iter()
        .map(|(team, cells)| {
            assert_eq!(cells.len(), head.len(), "{team}: a cell per column");
            (team, cells[at].clone())
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = list
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    v.sort();
    v
}

fn sorted(mut v: Vec<(String, String)>) -> Vec<(String, String)> {
    v.sort();
    v
}

/// The text of the element `id` of `html` (to its first `close`).
fn text_of(html: &str, id: &str, close: &str) -> String {
    html_text(html_element(html, id, close).unwrap_or_else(|| panic!("no #{id} in the page")))
}

#[actix_web::test]
async fn the_standings_show_each_teams_sportsmanship_average_when_the_league_rates() {
    let app = spawn_app().await;
    let (admin, sup, t, plain) = season(&app).await;
    // Team 1 rated 5 then 4 (4.5), team 2 rated 4, team 3 rated 2, team 4 not yet.
    let first = played(&admin, "fall", t[0], t[1]).await;
    rate(&sup, first, 5, 4).await;
    let second = played(&admin, "fall", t[0], t[2]).await;
    rate(&sup, second, 4, 2).await;
    // The league without ratings plays a match too.
    played(&admin, "plain", plain[0], plain[1]).await;

    let expected = pairs(&[
        ("Team 1", "4.5"),
        ("Team 2", "4.0"),
        ("Team 3", "2.0"),
        ("Team 4", "–"),
    ]);
    let standings = page(&app, "/leagues/fall/standings").await;
    assert!(
        standings.contains(r#"<th scope="col" class="c-sportsmanship">Sports<wbr>manship</th>"#),
        "the column's header"
    );
    assert_eq!(sorted(sportsmanship_cells(&standings)), expected, "page");
    assert!(
        html_text(&standings).contains("– not rated yet"),
        "the legend explains the dash"
    );
    let home = page(&app, "/leagues/fall").await;
    assert_eq!(sorted(sportsmanship_cells(&home)), expected, "league home");

    // The page agrees with the API (to one decimal).
    let api: Value = app
        .get("/api/v1/leagues/fall/standings")
        .await
        .json()
        .await
        .unwrap();
    for row in api["rows"].as_array().unwrap() {
        let team = row["team"].as_str().unwrap();
        let shown = &expected.iter().find(|(t, _)| t == team).unwrap().1;
        match row["sportsmanship"].as_f64() {
            Some(avg) => assert_eq!(&format!("{avg:.1}"), shown, "{team}"),
            None => assert_eq!(shown, "–", "{team}"),
        }
    }

    // The CSV: a column after the differential (then the divisions'), two places, empty
    // before the first rating.
    let (status, _, text) = anonymous_get(&app, "/leagues/fall/standings.csv").await;
    assert_eq!(status, 200);
    let csv = csv_rows(&text);
    assert_eq!(
        csv[0][10..],
        ["differential", "sportsmanship", "division", "division_rank"],
        "{:?}",
        csv[0]
    );
    let by_team: Vec<(String, String)> = csv[1..]
        .iter()
        .map(|r| (r[1].clone(), r[11].clone()))
        .collect();
    assert_eq!(
        sorted(by_team),
        pairs(&[
            ("Team 1", "4.50"),
            ("Team 2", "4.00"),
            ("Team 3", "2.00"),
            ("Team 4", ""),
        ])
    );

    // A league that does not rate has no such column anywhere.
    let standings = page(&app, "/leagues/plain/standings").await;
    assert!(!standings.contains("Sportsmanship"), "plain standings");
    assert!(!header(&standings).is_empty());
    assert!(!page(&app, "/leagues/plain").await.contains("Sportsmanship"));
    let (_, _, text) = anonymous_get(&app, "/leagues/plain/standings.csv").await;
    let csv = csv_rows(&text);
    assert_eq!(csv[0].len(), 13, "{:?}", csv[0]);
    assert!(!csv[0].iter().any(|h| h == "sportsmanship"));

    // A new rating shows at once (the cached copy is not served after the change).
    rate(&sup, first, 1, 4).await;
    let standings = page(&app, "/leagues/fall/standings").await;
    let team1 = sportsmanship_cells(&standings)
        .into_iter()
        .find(|(t, _)| t == "Team 1")
        .unwrap();
    assert_eq!(team1.1, "2.5", "(1 + 4) / 2");
}

#[actix_web::test]
async fn the_rules_page_gives_the_season_rules_in_words() {
    let app = spawn_app().await;
    let (_admin, _sup, _t, _plain) = season(&app).await;
    let html = page(&app, "/leagues/fall/rules").await;
    let section = text_of(&html, "season-rules", "</section>");
    assert!(section.starts_with("Season rules"), "{section}");
    for line in [
        "A team not at the table 10 minutes after the match time may be forfeited.",
        "A team that cannot play tells the office at least 24 hours before the match (a default): it loses the match, but it is not a forfeit.",
        "A captain may dispute a recorded result within 24 hours of the match's end.",
        "A team is dropped from the league at its 3rd forfeit: its remaining matches are cancelled, its results stay.",
        "The supervisor rates each team's sportsmanship after every match, from 1 to 5. A team that forfeits is rated 1. Every match must be rated.",
        "To enter the playoffs a team needs a sportsmanship average of at least 3.0 and no more than 1 forfeit.",
        "The playoffs start once every regular-season match is played.",
    ] {
        assert!(section.contains(line), "{line:?} in {section}");
    }
    assert_eq!(
        html_element(&html, "season-rules", "</section>")
            .unwrap()
            .matches("<li>")
            .count(),
        7,
        "a line each"
    );

    let plain = page(&app, "/leagues/plain/rules").await;
    let section = text_of(&plain, "season-rules", "</section>");
    assert!(
        section.contains("Every team that has not withdrawn may enter the playoffs."),
        "{section}"
    );
    assert!(
        section.contains("there is no set grace period"),
        "{section}"
    );
    assert!(
        !section.contains("rates each team's sportsmanship"),
        "{section}"
    );
    assert!(!section.contains("a sportsmanship average"), "{section}");
    assert!(!section.contains("dropped"), "{section}");
}

#[actix_web::test]
async fn the_team_page_says_what_the_team_needs() {
    let app = spawn_app().await;
    let (admin, sup, t, plain) = season(&app).await;
    let team = |i: usize| format!("/leagues/fall/teams/{}", t[i]);

    // Nothing played: every team eligible, nothing at risk, not rated yet.
    let html = page(&app, &team(0)).await;
    let needs = text_of(&html, "team-needs", "</section>");
    assert!(needs.starts_with("What does my team need?"), "{needs}");
    assert_eq!(
        text_of(&html, "team-eligibility", "</p>"),
        "As things stand, Team 1 is eligible for the playoffs."
    );
    assert!(
        html_element(&html, "team-nothing-at-risk", "</p>").is_none(),
        "{needs}"
    );
    assert!(
        text_of(&html, "team-at-risk", "</ul>").contains(
            "the team has no sportsmanship rating yet: a first rating of 2 or lower would put it below 3.0"
        ),
        "{needs}"
    );
    assert!(html_element(&html, "team-reasons", "</ul>").is_none());
    assert_eq!(
        text_of(&html, "team-forfeits", "</dd>"),
        "0 (a playoff team may have at most 1; the 3rd drops a team from the league)"
    );
    assert!(
        text_of(&html, "team-sportsmanship", "</dd>").starts_with("not rated yet"),
        "{needs}"
    );

    // One forfeit (team 1 against team 2): team 1 gets the forfeit rating, 1, team 2 a 5;
    // then team 1 is rated 5 twice (team 3 and team 4 a 4 each).
    let first = forfeited(&admin, "fall", t[0], t[1]).await;
    rate(&sup, first, 1, 5).await;
    for other in [t[2], t[3]] {
        let id = played(&admin, "fall", t[0], other).await;
        rate(&sup, id, 5, 4).await;
    }
    let html = page(&app, &team(0)).await;
    let needs = text_of(&html, "team-needs", "</section>");
    assert_eq!(
        text_of(&html, "team-eligibility", "</p>"),
        "As things stand, Team 1 is eligible for the playoffs.",
        "{needs}"
    );
    let risk = text_of(&html, "team-at-risk", "</ul>");
    assert!(
        risk.contains("one more forfeit and you are out of the playoffs"),
        "{risk}"
    );
    // 1, 5, 5: 11 / 3 = 3.7; a 1 next game makes 12 / 4 = 3.0 (still in): no rating line.
    assert!(!risk.contains("sportsmanship"), "{risk}");
    assert!(html_element(&html, "team-nothing-at-risk", "</p>").is_none());
    assert!(html_element(&html, "team-reasons", "</ul>").is_none());
    assert_eq!(
        text_of(&html, "team-sportsmanship", "</dd>"),
        "3.7 from 3 ratings, on a scale of 1 to 5; the playoffs need at least 3.0"
    );
    assert!(
        text_of(&html, "team-forfeits", "</dd>").starts_with("1 ("),
        "{needs}"
    );
    // The page says what the league's eligibility API says, through the service.
    let today = chrono::NaiveDate::from_ymd_opt(2026, 9, 1).unwrap();
    let row = public_views::team(&app.db, &"fall".parse().unwrap(), TeamId(t[0]), None, today)
        .await
        .unwrap()
        .eligibility
        .unwrap();
    let api: Value = app
        .get("/api/v1/leagues/fall/eligibility")
        .await
        .json()
        .await
        .unwrap();
    let api_row = api["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["team_id"] == t[0])
        .unwrap()
        .clone();
    assert_eq!(
        row.at_risk,
        vec!["one more forfeit and you are out of the playoffs"]
    );
    assert_eq!(json!(row.at_risk), api_row["at_risk"]);
    assert_eq!(json!(row.reasons), api_row["reasons"]);
    assert_eq!(row.eligible, api_row["eligible"]);
    // Another league's team is not found.
    assert!(
        public_views::team(
            &app.db,
            &"fall".parse().unwrap(),
            TeamId(plain[0]),
            None,
            today
        )
        .await
        .is_err()
    );

    // A second forfeit: out of the playoffs, with every failing reason, and one more
    // drops the team from the league.
    forfeited(&admin, "fall", t[0], t[2]).await;
    let html = page(&app, &team(0)).await;
    let needs = text_of(&html, "team-needs", "</section>");
    assert_eq!(
        text_of(&html, "team-eligibility", "</p>"),
        "As things stand, Team 1 is not eligible for the playoffs.",
        "{needs}"
    );
    let reasons = text_of(&html, "team-reasons", "</ul>");
    assert!(
        reasons.contains("2 forfeits, more than the 1 allowed"),
        "{reasons}"
    );
    assert!(
        !reasons.contains("sportsmanship"),
        "1, 5, 5, 1: 3.0 {reasons}"
    );
    let risk = text_of(&html, "team-at-risk", "</ul>");
    assert!(
        risk.contains("one more forfeit and the team is dropped from the league"),
        "{risk}"
    );
    assert!(html_element(&html, "team-nothing-at-risk", "</p>").is_none());

    // Team 2 (rated 5 once, no forfeit): nothing at risk, said so (a 1 next game makes 3.0).
    let html = page(&app, &team(1)).await;
    assert_eq!(
        text_of(&html, "team-nothing-at-risk", "</p>"),
        "Nothing at risk: one more forfeit or even the lowest sportsmanship rating next game would not put the team out of the playoffs."
    );
    assert!(html_element(&html, "team-at-risk", "</ul>").is_none());
    // Team 4, rated 4 once: a 1 would make 2.5, a 2 makes 3.0: "a rating of 1 …".
    let html = page(&app, &team(3)).await;
    assert!(
        text_of(&html, "team-at-risk", "</ul>").contains(
            "your sportsmanship average is 4.0: a rating of 1 next game would drop it below 3.0"
        ),
        "{}",
        text_of(&html, "team-needs", "</section>")
    );

    // An admin's decision over the rules, with its reason.
    let r = admin
        .post(
            &format!("/api/v1/leagues/fall/eligibility/{}", t[2]),
            &json!({"eligible": false, "reason": "left the table mid-game"}),
        )
        .await;
    json_with_status(r, 200, "override").await;
    let html = page(&app, &team(2)).await;
    assert_eq!(
        text_of(&html, "team-eligibility", "</p>"),
        "The league coordinator has decided that Team 3 may not enter the playoffs, whatever the rules say."
    );
    assert_eq!(
        text_of(&html, "team-decision", "</p>"),
        "The coordinator's reason: left the table mid-game"
    );
    assert!(html_element(&html, "team-nothing-at-risk", "</p>").is_none());

    // The third forfeit drops team 1: its page says why, the standings mark it.
    forfeited(&admin, "fall", t[0], t[3]).await;
    let html = page(&app, &team(0)).await;
    assert!(html_element(&html, "team-eligibility", "</p>").is_none());
    assert!(
        text_of(&html, "team-out", "</p>").starts_with(
            "Team 1 was dropped after 3 forfeits: it is out of the league and cannot enter the playoffs."
        ),
        "{}",
        text_of(&html, "team-needs", "</section>")
    );
    assert!(text_of(&html, "players", "</p>").contains("dropped after 3 forfeits"));
    for path in ["/leagues/fall/standings", "/leagues/fall"] {
        let html = page(&app, path).await;
        let rows = rows_by_team(&html);
        let (_, cells) = rows.iter().find(|(t, _)| t == "Team 1").unwrap();
        assert_eq!(cells[1], "Team 1 (dropped after 3 forfeits)", "{path}");
        for (team, cells) in rows.iter().filter(|(t, _)| t != "Team 1") {
            assert_eq!(&cells[1], team, "{path}: only the dropped team is marked");
        }
    }

    // A league without eligibility rules says so, and has no ratings to show.
    let html = page(&app, &format!("/leagues/plain/teams/{}", plain[0])).await;
    assert_eq!(
        text_of(&html, "team-nothing-at-risk", "</p>"),
        "This league has no playoff rules on forfeits, sportsmanship or win percentage: every team still in the league may enter."
    );
    assert!(html_element(&html, "team-sportsmanship", "</dd>").is_none());
    assert_eq!(text_of(&html, "team-forfeits", "</dd>"), "0");
}

#[actix_web::test]
async fn the_demo_season_is_rated_and_has_a_team_at_risk() {
    let app = spawn_app().await;
    let summary = spades_im::demo::load(&app.db).await.expect("demo loads");
    assert!(summary.contains(spades_im::demo::AT_RISK), "{summary}");
    let league: Value = app
        .get("/api/v1/leagues/demo-fall")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(league["settings"]["forfeit"]["grace_minutes"], 10);
    assert_eq!(league["settings"]["forfeit"]["drop_after"], 3);
    assert_eq!(league["settings"]["sportsmanship"]["forfeit_rating"], 1);
    assert_eq!(league["settings"]["sportsmanship"]["required"], true);
    assert_eq!(league["settings"]["eligibility"]["max_forfeits"], 1);
    assert_eq!(league["settings"]["eligibility"]["min_sportsmanship"], 3.0);

    // Every match played is rated; none is missing a rating.
    let matches: Value = app
        .get("/api/v1/leagues/demo-fall/matches")
        .await
        .json()
        .await
        .unwrap();
    let complete: Vec<&Value> = matches["matches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["status"] == "complete")
        .collect();
    assert!(complete.len() >= 12);
    for m in &complete {
        let id = m["id"].as_i64().unwrap();
        let one: Value = app
            .get(&format!("/api/v1/matches/{id}"))
            .await
            .json()
            .await
            .unwrap();
        let s = &one["sportsmanship"];
        assert_eq!(s["missing"], false, "match {id}: {s}");
        assert!(s["a"].is_i64() && s["b"].is_i64(), "match {id}: {s}");
    }

    // The standings: every team has an average; the team at risk has 3.0, the others 4 or
    // more.
    let html = page(&app, "/leagues/demo-fall/standings").await;
    let head = header(&html);
    let at = head.iter().position(|h| h == "Sportsmanship").unwrap();
    let rows = html_standings(&html);
    assert_eq!(rows.len(), 8);
    for cells in &rows {
        let avg: f64 = cells[at]
            .parse()
            .unwrap_or_else(|_| panic!("{cells:?}: an average"));
        if cells[1] == spades_im::demo::AT_RISK {
            assert_eq!(cells[at], "3.0", "{cells:?}");
        } else {
            assert!(avg >= 4.0, "{cells:?}");
        }
    }

    // Its eligibility: the team at risk is told so, the others have nothing at risk.
    let eligibility: Value = app
        .get("/api/v1/leagues/demo-fall/eligibility")
        .await
        .json()
        .await
        .unwrap();
    let rows = eligibility["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    for row in rows {
        assert_eq!(row["eligible"], true, "{row}");
        let id = row["team_id"].as_i64().unwrap();
        let html = page(&app, &format!("/leagues/demo-fall/teams/{id}")).await;
        if row["team"] == spades_im::demo::AT_RISK {
            assert_eq!(
                row["at_risk"],
                json!([
                    "your sportsmanship average is 3.0: a rating of 2 or lower next game would drop it below 3.0"
                ])
            );
            assert!(
                text_of(&html, "team-at-risk", "</ul>")
                    .contains("a rating of 2 or lower next game would drop it below 3.0")
            );
        } else {
            assert_eq!(row["at_risk"], json!([]), "{row}");
            assert!(text_of(&html, "team-nothing-at-risk", "</p>").starts_with("Nothing at risk:"));
        }
    }
    let rules = page(&app, "/leagues/demo-fall/rules").await;
    assert!(
        text_of(&rules, "season-rules", "</section>")
            .contains("To enter the playoffs a team needs a sportsmanship average of at least 3.0 and no more than 1 forfeit.")
    );
}
