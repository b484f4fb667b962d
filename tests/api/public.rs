//! The public pages over real HTTP: leagues, league home, standings (and CSV), schedule,
//! teams, rules, the match page (scoresheet, clock, SVG chart, CSV) and the scoreboard.
//! All data goes in through the JSON API; the pages must show the API's numbers.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{
    Api, TestApp, csv_rows, hand_of, manual_clock, spawn_app, spawn_app_with_clock,
};

// ---------------------------------------------------------------------------------------
// Helpers

async fn ok_json(response: reqwest::Response, what: &str) -> Value {
    let status = response.status();
    let body = response.text().await.expect("body");
    assert!(status.is_success(), "{what}: {status} {body}");
    serde_json::from_str(&body).expect("json")
}

async fn page(app: &TestApp, path: &str) -> String {
    let response = app.get(path).await;
    assert_eq!(response.status(), 200, "GET {path}");
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        content_type.starts_with("text/html"),
        "{path}: {content_type}"
    );
    let html = response.text().await.unwrap();
    // Strict CSP: no inline script or style anywhere.
    assert!(!html.contains("<script>"), "{path} has an inline script");
    assert!(!html.contains("<style"), "{path} has a style element");
    assert!(!html.contains(" style="), "{path} has a style attribute");
    assert!(!html.contains(" onclick="), "{path} has an inline handler");
    html
}

async fn start(admin: &Api, id: i64) -> Value {
    ok_json(
        admin
            .post(&format!("/api/v1/matches/{id}/start"), &json!({}))
            .await,
        "start",
    )
    .await
}

async fn hand(admin: &Api, m: &Value, hand: Value) -> Value {
    let id = m["id"].as_i64().unwrap();
    ok_json(
        admin
            .post(
                &format!("/api/v1/matches/{id}/hands"),
                &json!({"hand": hand, "expected_version": m["version"]}),
            )
            .await,
        "hand",
    )
    .await
}

fn played(a_bids: Value, a_tricks: [i64; 2], b_bids: Value, b_tricks: [i64; 2]) -> Value {
    json!({"a": {"bids": a_bids, "tricks": a_tricks}, "b": {"bids": b_bids, "tricks": b_tricks}})
}

/// The section of `html` from the element with `id` to the end of its row or item.
fn element<'a>(html: &'a str, id: &str, end: &str) -> &'a str {
    let at = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no element #{id}"));
    let len = html[at..].find(end).expect("element end");
    &html[at..at + len]
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

async fn csv(app: &TestApp, path: &str, filename: &str) -> (String, Vec<Vec<String>>) {
    let response = app.get(path).await;
    assert_eq!(response.status(), 200, "GET {path}");
    assert_eq!(
        response.headers()["content-type"],
        "text/csv; charset=utf-8",
        "{path}"
    );
    assert_eq!(
        response.headers()["content-disposition"],
        format!("attachment; filename=\"{filename}\"").as_str(),
        "{path}"
    );
    let text = response.text().await.unwrap();
    assert!(text.ends_with("\r\n"), "{path}: rows end with CRLF");
    let rows = csv_rows(&text);
    (text, rows)
}

/// A league "fall" (unc-im-300, 4 teams, round robin from today): round 1's first match
/// played to the end with a misdeal, a nil, a set, a revoke and a corrected hand; round 1's
/// second match in play after two hands; round 2's first match forfeited by team a.
struct Season {
    admin: Api,
    teams: Vec<i64>,
    done: Value,
    live: Value,
    forfeited: Value,
    later: Vec<i64>,
}

async fn season(app: &TestApp) -> Season {
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "fall", json!("unc-im-300"), 4).await;
    let today = chrono::Local::now()
        .date_naive()
        .format("%Y-%m-%d")
        .to_string();
    let schedule = ok_json(
        admin
            .post(
                "/api/v1/leagues/fall/schedule",
                &json!({"format": "round_robin", "start_date": today, "time": "19:00"}),
            )
            .await,
        "schedule",
    )
    .await;
    let all = schedule["matches"].as_array().unwrap().clone();
    assert_eq!(all.len(), 6);
    let round = |r: i64| -> Vec<Value> {
        all.iter()
            .filter(|m| m["round"].as_i64() == Some(r))
            .cloned()
            .collect()
    };
    let (r1, r2) = (round(1), round(2));
    assert_eq!((r1.len(), r2.len()), (2, 2));

    // Round 1, first match: to the end.
    let id = r1[0]["id"].as_i64().unwrap();
    let mut m = start(&admin, id).await;
    m = hand(&admin, &m, json!({"misdeal": true})).await;
    m = hand(
        &admin,
        &m,
        played(json!([4, 5]), [5, 4], json!([3, 3]), [2, 2]),
    )
    .await;
    m = hand(
        &admin,
        &m,
        played(json!([4, "nil"]), [5, 0], json!([4, 4]), [4, 4]),
    )
    .await;
    let mut revoke = played(json!([4, 4]), [4, 4], json!([2, 3]), [2, 3]);
    revoke["revokes"] = json!({"a": 0, "b": 1});
    m = hand(&admin, &m, revoke).await;
    // Hand 2 was entered wrong: team b took 3 + 1, not 2 + 2 (still set).
    let corrected = admin
        .put(
            &format!("/api/v1/matches/{id}/hands/2"),
            &json!({"hand": played(json!([4, 5]), [5, 4], json!([3, 3]), [3, 1]),
                    "reason": "seat 2 took 3, seat 4 took 1", "expected_version": m["version"]}),
        )
        .await;
    m = ok_json(corrected, "correct").await;
    for _ in 0..20 {
        if m["status"] != "in_progress" {
            break;
        }
        m = hand(
            &admin,
            &m,
            played(json!([5, 4]), [5, 4], json!([2, 2]), [2, 2]),
        )
        .await;
    }
    assert_eq!(m["status"], "complete", "{m}");

    // Round 1, second match: two hands in.
    let mut live = start(&admin, r1[1]["id"].as_i64().unwrap()).await;
    live = hand(
        &admin,
        &live,
        played(json!([4, 4]), [4, 5], json!([2, 2]), [2, 2]),
    )
    .await;
    live = hand(
        &admin,
        &live,
        played(json!([3, 3]), [3, 3], json!([4, 3]), [4, 3]),
    )
    .await;

    // Round 2, first match: team a forfeits.
    let forfeited = ok_json(
        admin
            .post(
                &format!("/api/v1/matches/{}/forfeit", r2[0]["id"]),
                &json!({"team": "a"}),
            )
            .await,
        "forfeit",
    )
    .await;
    let later = all
        .iter()
        .filter(|m| m["round"].as_i64() != Some(1) && m["id"] != forfeited["id"])
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    Season {
        admin,
        teams,
        done: m,
        live,
        forfeited,
        later,
    }
}

fn id(m: &Value) -> i64 {
    m["id"].as_i64().unwrap()
}

// ---------------------------------------------------------------------------------------
// Tests

#[actix_web::test]
async fn league_pages_show_the_apis_numbers() {
    let app = spawn_app().await;
    let s = season(&app).await;

    let html = page(&app, "/leagues").await;
    assert!(html.contains("href=\"/leagues/fall\""));
    let fall = element(&html, "league-fall", "</li>");
    assert!(
        fall.contains(
            "<p>4 teams · 2 of 6 matches played · <strong class=\"live\">1 in play</strong></p>"
        ),
        "{fall}"
    );

    // League home: standings first, this week's matches (round 1), latest results.
    let html = page(&app, "/leagues/fall").await;
    let standings_at = html.find("id=\"standings\"").unwrap();
    let week_at = html.find("id=\"week\"").unwrap();
    let results_at = html.find("id=\"result\"").unwrap();
    assert!(standings_at < week_at && week_at < results_at);
    for m in [&s.done, &s.live] {
        assert!(html.contains(&format!("id=\"week-{}\"", id(m))), "week {m}");
    }
    assert!(!html.contains(&format!("id=\"week-{}\"", id(&s.forfeited))));
    for later in &s.later {
        assert!(!html.contains(&format!("id=\"week-{later}\"")));
    }
    for m in [&s.done, &s.forfeited] {
        assert!(html.contains(&format!("id=\"result-{}\"", id(m))), "result");
    }
    assert!(!html.contains(&format!("id=\"result-{}\"", id(&s.live))));
    let done = element(&html, &format!("result-{}", id(&s.done)), "</li>");
    for side in ["a", "b"] {
        let score = crate::helpers::shown(s.done[side]["score"].as_i64().unwrap());
        assert!(
            done.contains(&format!("<span class=\"score\">{score}</span>")),
            "{done}"
        );
    }
    for link in ["standings", "schedule", "teams", "rules"] {
        assert!(
            html.contains(&format!("href=\"/leagues/fall/{link}\"")),
            "{link}"
        );
    }

    // Standings: the API's order and every number, and the tiebreak order in words.
    let api = ok_json(app.get("/api/v1/leagues/fall/standings").await, "standings").await;
    let rows = api["rows"].as_array().unwrap();
    let html = page(&app, "/leagues/fall/standings").await;
    let order: Vec<i64> = html
        .match_indices("<tr id=\"standing-")
        .map(|(at, _)| {
            let rest = &html[at + "<tr id=\"standing-".len()..];
            rest[..rest.find('"').unwrap()].parse().unwrap()
        })
        .collect();
    let api_order: Vec<i64> = rows
        .iter()
        .map(|r| r["team_id"].as_i64().unwrap())
        .collect();
    assert_eq!(order, api_order);
    for r in rows {
        let row = element(&html, &format!("standing-{}", r["team_id"]), "</tr>");
        assert!(row.contains(&format!("data-rank=\"{}\"", r["rank"])));
        for (class, field) in [
            ("c-played", "played"),
            ("c-won", "won"),
            ("c-lost", "lost"),
            ("c-tied", "tied"),
            ("c-forfeits", "forfeits"),
            ("c-pf", "points_for"),
            ("c-pa", "points_against"),
        ] {
            assert!(
                row.contains(&format!("class=\"{class}\">{}<", r[field])),
                "{class} of {r} in {row}"
            );
        }
        let pct = format!("{:.3}", r["win_pct"].as_f64().unwrap());
        assert!(row.contains(&format!("class=\"c-pct\">{pct}<")), "{row}");
        let diff = r["differential"].as_i64().unwrap();
        let diff = if diff > 0 {
            format!("+{diff}")
        } else {
            crate::helpers::shown(diff)
        };
        assert!(row.contains(&format!("class=\"c-diff\">{diff}<")), "{row}");
    }
    // The forfeit counts as a loss for the team that forfeited.
    let forfeiter = s.forfeited["team_a"]["id"].as_i64().unwrap();
    let row = rows.iter().find(|r| r["team_id"] == forfeiter).unwrap();
    assert_eq!(row["forfeits"], 1);
    let explained = element(&html, "tiebreak", "</ol>");
    let words = [
        "record in the games between the tied teams",
        "point differential",
        "points scored",
        "name",
    ];
    let at: Vec<usize> = words
        .iter()
        .map(|w| explained.find(w).unwrap_or_else(|| panic!("{w}")))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{explained}");
    assert!(html.contains("ranked by win %"));

    // Schedule, the whole season: every match, by round, with results.
    let html = page(&app, "/leagues/fall/schedule?week=all").await;
    for round in 1..=3 {
        assert!(
            html.contains(&format!("<h2>Round {round} · ")),
            "round {round}"
        );
    }
    let matches = ok_json(app.get("/api/v1/leagues/fall/matches").await, "matches").await;
    for m in matches["matches"].as_array().unwrap() {
        assert!(html.contains(&format!("href=\"/matches/{}\"", m["id"])));
    }
    let done = element(&html, &format!("match-{}", id(&s.done)), "</li>");
    assert!(done.contains(&s.done["a"]["score"].to_string()));
    assert!(done.contains("won"), "{done}");
    let forfeit = element(&html, &format!("match-{}", id(&s.forfeited)), "</li>");
    assert!(forfeit.contains(&format!(
        "{} forfeited",
        s.forfeited["team_a"]["name"].as_str().unwrap()
    )));

    // Teams and a team page: players and its results.
    let html = page(&app, "/leagues/fall/teams").await;
    for t in &s.teams {
        assert!(html.contains(&format!("href=\"/leagues/fall/teams/{t}\"")));
    }
    let team = s.done["team_a"]["id"].as_i64().unwrap();
    let i = s.teams.iter().position(|t| *t == team).unwrap() + 1;
    let html = page(&app, &format!("/leagues/fall/teams/{team}")).await;
    assert!(html.contains(&format!("<h1 id=\"team-name\">Team {i}</h1>")));
    assert!(html.contains(&format!("P{i}a")) && html.contains(&format!("P{i}b")));
    assert_eq!(
        count(&html, "<tr id=\"team-match-"),
        3,
        "a round robin of 4"
    );
    let row = element(&html, &format!("team-match-{}", id(&s.done)), "</tr>");
    let [own, theirs] =
        ["a", "b"].map(|t| crate::helpers::shown(s.done[t]["score"].as_i64().unwrap()));
    assert!(row.contains(&format!("{own} – {theirs}")), "{row}");
    let expected = if s.done["winner"] == "a" { "W" } else { "L" };
    assert!(
        row.contains(&format!("result-{expected}\">{expected}<")),
        "{row}"
    );
    let standing = rows.iter().find(|r| r["team_id"] == team).unwrap();
    assert!(html.contains(&format!("Rank <strong>{}</strong>", standing["rank"])));

    // Rules in words, per stage.
    let html = page(&app, "/leagues/fall/rules").await;
    assert!(html.contains("The first team to reach 300 points wins."));
    assert!(html.contains("The same rules as the regular season."));
    assert!(html.contains("point differential"));
}

#[actix_web::test]
async fn standings_csv_equals_the_api_and_defuses_formulas() {
    let app = spawn_app().await;
    let s = season(&app).await;
    // A name a spreadsheet would run as a formula, with a quote and a comma in it.
    let nasty = "=HYPERLINK(\"http://x\",\"y\"), ok";
    let response = s
        .admin
        .post(
            "/api/v1/leagues/fall/teams",
            &json!({"name": nasty, "players": ["-Dash", "@At"]}),
        )
        .await;
    assert_eq!(response.status(), 201);

    let (text, rows) = csv(&app, "/leagues/fall/standings.csv", "fall-standings.csv").await;
    assert_eq!(
        rows[0],
        [
            "rank",
            "team",
            "played",
            "won",
            "lost",
            "tied",
            "forfeits",
            "win_pct",
            "points_for",
            "points_against",
            "differential",
            "division",
            "division_rank"
        ]
    );
    let api = ok_json(app.get("/api/v1/leagues/fall/standings").await, "standings").await;
    let api = api["rows"].as_array().unwrap();
    assert_eq!(rows.len(), api.len() + 1);
    assert_eq!(api.len(), 5);
    let mut negative = false;
    for (row, r) in rows[1..].iter().zip(api) {
        assert_eq!(row.len(), 13);
        assert_eq!(row[11..], ["", ""], "no division in this league");
        let team = r["team"].as_str().unwrap();
        if team == nasty {
            assert_eq!(row[1], format!("'{nasty}"), "a formula gets a leading '");
        } else {
            assert_eq!(row[1], team);
        }
        for (i, field) in [
            (0, "rank"),
            (2, "played"),
            (3, "won"),
            (4, "lost"),
            (5, "tied"),
            (6, "forfeits"),
            (8, "points_for"),
            (9, "points_against"),
            (10, "differential"),
        ] {
            assert_eq!(
                row[i].parse::<i64>().unwrap(),
                r[field].as_i64().unwrap(),
                "{field}"
            );
        }
        let pct: f64 = row[7].parse().unwrap();
        assert!((pct - r["win_pct"].as_f64().unwrap()).abs() < 0.0006);
        negative |= row[10].starts_with('-');
    }
    assert!(negative, "someone lost on points: {text}");
    // Negative numbers stay numbers; the quote and comma are escaped in the raw text.
    assert!(!text.contains(",'-"), "{text}");
    assert!(text.contains("\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\"), ok\""));
}

#[actix_web::test]
async fn match_page_has_the_scoresheet_clock_and_chart() {
    let app = spawn_app().await;
    let s = season(&app).await;
    let m = ok_json(
        app.get(&format!("/api/v1/matches/{}", id(&s.done))).await,
        "match",
    )
    .await;
    let hands = m["hands"].as_array().unwrap();
    assert!(hands.len() >= 4);
    let html = page(&app, &format!("/matches/{}", id(&m))).await;

    // Teams, score, bags, state, clock.
    assert!(html.contains(&format!("data-version=\"{}\"", m["version"])));
    for team in ["a", "b"] {
        let name = m[format!("team_{team}")]["name"].as_str().unwrap();
        assert!(html.contains(&format!("<span id=\"team-{team}-name\">{name}</span>")));
        assert!(html.contains(&format!(
            "<strong id=\"score-{team}\">{}</strong>",
            spades_im::domain::words::points(m[team]["score"].as_i64().unwrap())
        )));
        assert!(html.contains(&format!(
            "<span id=\"bags-{team}\">{}</span>",
            m[team]["bags"]
        )));
    }
    let winner = m[format!("team_{}", m["winner"].as_str().unwrap())]["name"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(html.contains(&format!(
        "<p id=\"match-status\" class=\"state\">{winner} won (reached the target)</p>"
    )));
    assert!(html.contains(&format!(
        "id=\"started-at\" datetime=\"{}\"",
        m["started_at"].as_str().unwrap()
    )));
    assert!(html.contains(&format!(
        "id=\"ends-at\" datetime=\"{}\"",
        m["ends_at"].as_str().unwrap()
    )));
    assert!(html.contains("Time limit: 30 minutes"));
    // Finished: no polling, no countdown, no refresh.
    assert!(!html.contains("data-poll"));
    assert!(!html.contains("http-equiv=\"refresh\""));
    assert!(!html.contains("id=\"countdown\""));

    // The scoresheet: one row per hand with its breakdown and running score (bags).
    assert_eq!(count(&html, "<tr id=\"hand-"), hands.len());
    for h in hands {
        let row = element(&html, &format!("hand-{}", h["number"]), "</tr>");
        for team in ["a", "b"] {
            let t = &h[team];
            assert!(
                row.contains(&format!(
                    "<td class=\"running\"><strong>{}</strong> ({})</td>",
                    t["score"], t["bags"]
                )),
                "hand {} {team}: {row}",
                h["number"]
            );
            assert!(row.contains(&format!("<td class=\"points\">{}</td>", t["points"])));
            assert!(row.contains(&format!("<td class=\"nil\">{}</td>", t["nil_points"])));
            assert!(row.contains(&format!(
                "<td class=\"bag-penalty\">{}</td>",
                t["bag_penalty"]
            )));
            assert!(row.contains(&format!("<td class=\"revoke\">{}</td>", t["revoke_award"])));
        }
    }
    assert!(element(&html, "hand-1", "</tr>").contains("misdeal"));
    let nil = element(&html, "hand-3", "</tr>");
    assert!(nil.contains("4 + nil") && nil.contains("<td class=\"nil\">60</td>"));
    let set = element(&html, "hand-2", "</tr>");
    assert!(set.contains("<small>set</small>") && set.contains("<td class=\"contract\">-60"));
    assert!(element(&html, "hand-4", "</tr>").contains("revoke b:1"));
    // The corrected hand is marked with its revision and reason; the others are not.
    assert_eq!(hands[1]["revision"], 2);
    assert!(set.contains("class=\"corrected\""));
    assert!(set.contains("corrected (revision 2): seat 2 took 3, seat 4 took 1"));
    assert_eq!(count(&html, "class=\"corrected\""), 1);
    assert!(element(&html, "hand-2", "</tr>").contains("3 + 1"));

    // The chart: inline SVG, one point per hand per team, the target line.
    let svg_at = html.find("<svg id=\"chart\"").expect("chart");
    let svg = &html[svg_at..svg_at + html[svg_at..].find("</svg>").unwrap()];
    assert_eq!(count(svg, "class=\"pt-a\""), hands.len());
    assert_eq!(count(svg, "class=\"pt-b\""), hands.len());
    assert!(svg.contains("id=\"chart-target\""));
    assert!(svg.contains("target 300"));
    let last = hands.last().unwrap();
    assert!(svg.contains(&format!(
        "Hand {}: {} {}",
        last["number"],
        m["team_a"]["name"].as_str().unwrap(),
        last["a"]["score"]
    )));
    // Higher scores are drawn higher (smaller y).
    let y_of = |class: &str, hand: usize| -> f64 {
        let key = format!("class=\"{class}\" data-hand=\"{hand}\"");
        let at = svg.find(&key).unwrap();
        let rest = &svg[at..];
        let attr = if class == "pt-a" { "cy=\"" } else { "y=\"" };
        let v = &rest[rest.find(attr).unwrap() + attr.len()..];
        v[..v.find('"').unwrap()].parse().unwrap()
    };
    let n = hands.len();
    let (sa, sb) = (
        last["a"]["score"].as_i64().unwrap(),
        last["b"]["score"].as_i64().unwrap(),
    );
    assert_eq!(sa > sb, y_of("pt-a", n) < y_of("pt-b", n));

    // A match in play polls and has a fallback refresh and a countdown.
    let html = page(&app, &format!("/matches/{}", id(&s.live))).await;
    assert!(html.contains(&format!(
        "data-poll=\"/api/v1/matches/{}\" data-key=\"{}\"",
        id(&s.live),
        s.live["version"]
    )));
    assert!(html.contains("<noscript><meta http-equiv=\"refresh\" content=\"15\"></noscript>"));
    assert!(html.contains("id=\"countdown\""));
    assert!(html.contains("<script type=\"module\" src=\"/static/public.js\"></script>"));
    assert_eq!(count(&html, "class=\"pt-a\""), 2);
    assert!(html.contains("<p id=\"match-status\" class=\"state\">In progress</p>"));

    // A match not started: no chart, no hands.
    let html = page(&app, &format!("/matches/{}", s.later[0])).await;
    assert!(html.contains("id=\"not-started\"") && html.contains("id=\"no-hands\""));
    assert!(!html.contains("<svg id=\"chart\""));
}

#[actix_web::test]
async fn scoresheet_csv_equals_the_api() {
    let app = spawn_app().await;
    let s = season(&app).await;
    let m = ok_json(
        app.get(&format!("/api/v1/matches/{}", id(&s.done))).await,
        "match",
    )
    .await;
    let (text, rows) = csv(
        &app,
        &format!("/matches/{}/scoresheet.csv", id(&m)),
        &format!("fall-match-{}-scoresheet.csv", id(&m)),
    )
    .await;
    let fields = [
        "nil_points",
        "contract",
        "tricks_counted",
        "made",
        "contract_points",
        "bag_points",
        "bag_penalty",
        "revoke_award",
        "points",
        "bags",
        "score",
    ];
    let mut header: Vec<String> = [
        "number",
        "a_bids",
        "a_tricks",
        "b_bids",
        "b_tricks",
        "revokes",
        "time_called",
        "misdeal",
    ]
    .map(String::from)
    .to_vec();
    for t in ["a", "b"] {
        header.extend(fields.iter().map(|f| format!("{t}_{f}")));
    }
    header.extend(["status", "revision", "correction_reason"].map(String::from));
    // Who sat at each seat (lineups), at the end of the row: empty without a lineup.
    header.extend(["a_player1", "a_player2", "b_player1", "b_player2"].map(String::from));
    assert_eq!(rows[0], header);
    let hands = m["hands"].as_array().unwrap();
    assert_eq!(rows.len(), hands.len() + 1);
    for (row, h) in rows[1..].iter().zip(hands) {
        let cell = |name: &str| -> &str {
            let i = header.iter().position(|c| c == name).unwrap();
            &row[i]
        };
        assert_eq!(cell("number"), h["number"].to_string());
        assert_eq!(cell("misdeal"), h["misdeal"].to_string());
        assert_eq!(cell("time_called"), h["time_called"].to_string());
        assert_eq!(cell("status"), h["status"].as_str().unwrap());
        assert_eq!(cell("revision"), h["revision"].to_string());
        for t in ["a", "b"] {
            for f in fields {
                let api = &h[t][f];
                let expected = if api.is_null() {
                    String::new()
                } else {
                    api.to_string()
                };
                assert_eq!(
                    cell(&format!("{t}_{f}")),
                    expected,
                    "hand {} {t}_{f}",
                    h["number"]
                );
            }
        }
    }
    // Bids and tricks as entered, the revoke, the correction.
    assert_eq!(rows[1][7], "true", "hand 1 is the misdeal");
    assert_eq!((rows[3][1].as_str(), rows[3][2].as_str()), ("4 nil", "5 0"));
    assert_eq!(rows[4][5], "b:1");
    assert_eq!(rows[2][4], "3 1");
    let reason = rows[0]
        .iter()
        .position(|c| c == "correction_reason")
        .unwrap();
    assert_eq!(
        rows[2][reason], "seat 2 took 3, seat 4 took 1",
        "the reason (with its comma) survives"
    );
    // A set is a plain negative number, not a defused formula: in hand 2 (corrected) B bid
    // 3 + 3 and took 3 + 1.
    let column = |name: &str| rows[0].iter().position(|c| c == name).unwrap();
    assert_eq!(rows[2][column("b_contract_points")], "-60", "{text}");
    assert_eq!(rows[2][column("b_made")], "false", "{text}");
    assert!(!text.contains("'-"));

    // 404s for the exports.
    assert_eq!(
        app.get("/matches/999999/scoresheet.csv").await.status(),
        404
    );
    assert_eq!(app.get("/leagues/nope/standings.csv").await.status(), 404);
}

#[actix_web::test]
async fn scoreboard_lists_exactly_the_matches_in_play() {
    let app = spawn_app().await;

    // Nothing in play.
    let board = ok_json(app.get("/api/v1/scoreboard").await, "board").await;
    assert_eq!(board["matches"], json!([]));
    assert_eq!(board["version"], 0);
    let html = page(&app, "/scoreboard").await;
    assert!(html.contains("id=\"no-live\""));
    assert!(html.contains("<noscript><meta http-equiv=\"refresh\" content=\"20\"></noscript>"));
    assert!(html.contains("data-poll=\"/api/v1/scoreboard\" data-key=\"\" data-field=\"key\""));

    let s = season(&app).await;
    // A second league with a match in play (and one only scheduled).
    let response = s
        .admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Spring", "slug": "spring", "rules": {"regular": "classic"}}),
        )
        .await;
    assert_eq!(response.status(), 201);
    let mut spring = Vec::new();
    for name in ["Aces", "Kings", "Queens", "Jacks"] {
        let t = ok_json(
            s.admin
                .post(
                    "/api/v1/leagues/spring/teams",
                    &json!({"name": name, "players": ["X", "Y"]}),
                )
                .await,
            "team",
        )
        .await;
        spring.push(id(&t));
    }
    let mut other = Vec::new();
    for (a, b, table) in [(0, 1, "Court 7"), (2, 3, "Court 8")] {
        other.push(
            ok_json(
                s.admin
                    .post(
                        "/api/v1/leagues/spring/matches",
                        &json!({"team_a": spring[a], "team_b": spring[b], "table": table}),
                    )
                    .await,
                "match",
            )
            .await,
        );
    }
    let mut kings = start(&s.admin, id(&other[0])).await;
    kings = hand(
        &s.admin,
        &kings,
        played(json!([4, 3]), [4, 4], json!([2, 2]), [3, 2]),
    )
    .await;

    let board = ok_json(app.get("/api/v1/scoreboard").await, "board").await;
    let listed: Vec<i64> = board["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(id)
        .collect();
    // The match `season` just played out may still be there as final (for its minute:
    // `a_finished_game_stays_a_minute_as_final`); nothing else that is not in play.
    let in_play: Vec<i64> = board["matches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["status"] == "in_progress")
        .map(id)
        .collect();
    let mut expected = vec![id(&s.live), id(&kings)];
    expected.sort();
    let mut sorted = in_play.clone();
    sorted.sort();
    assert_eq!(sorted, expected, "exactly the matches in play");
    for m in board["matches"].as_array().unwrap() {
        if m["status"] != "in_progress" {
            assert_eq!(id(m), id(&s.done), "{m}");
            assert_eq!(m["status"], "complete");
            assert!(m["finished_at"].is_string(), "{m}");
        }
    }
    let versions: i64 = board["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["version"].as_i64().unwrap())
        .sum();
    assert_eq!(board["version"].as_i64().unwrap(), versions);
    let entry = board["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == kings["id"])
        .unwrap();
    assert_eq!(entry["a"], kings["a"]);
    assert_eq!(entry["b"], kings["b"]);
    assert_eq!(entry["league"], "spring");
    assert_eq!(entry["league_name"], "Spring");
    assert_eq!(entry["table"], "Court 7");
    assert_eq!(entry["hands"], 1);

    let html = page(&app, "/scoreboard").await;
    assert_eq!(count(&html, "<li class=\"board-match"), listed.len());
    assert_eq!(
        count(&html, "<li class=\"board-match finished\""),
        listed.len() - 2,
        "a game that just ended is marked"
    );
    for m in [&s.live, &kings] {
        let item = element(&html, &format!("board-{}", id(m)), "</li>");
        for team in ["a", "b"] {
            assert!(item.contains(&format!(
                "id=\"board-{}-score-{team}\">{}</strong>",
                id(m),
                m[team]["score"]
            )));
            assert!(item.contains(&format!(
                "id=\"board-{}-bags-{team}\">{}</span>",
                id(m),
                m[team]["bags"]
            )));
        }
        assert!(item.contains(m["team_a"]["name"].as_str().unwrap()));
        assert!(item.contains(m["team_b"]["name"].as_str().unwrap()));
    }
    assert!(element(&html, &format!("board-{}", id(&s.live)), "</li>").contains("countdown"));
    assert!(element(&html, &format!("board-{}", id(&kings)), "</li>").contains("Court 7"));
    assert!(html.contains(&format!("data-key=\"{}\"", board["key"].as_str().unwrap())));
    for gone in [&s.forfeited, &other[1]] {
        assert!(!html.contains(&format!("id=\"board-{}\"", id(gone))));
    }

    // A hand changes the version and the key; a finished match leaves the board.
    hand(
        &s.admin,
        &kings,
        played(json!([4, 3]), [4, 4], json!([2, 2]), [3, 2]),
    )
    .await;
    let after = ok_json(app.get("/api/v1/scoreboard").await, "board").await;
    assert_eq!(
        after["version"].as_i64(),
        board["version"].as_i64().map(|v| v + 1)
    );
    assert_ne!(after["key"], board["key"]);
    ok_json(
        s.admin
            .post(
                &format!("/api/v1/matches/{}/forfeit", id(&kings)),
                &json!({"team": "both"}),
            )
            .await,
        "forfeit",
    )
    .await;
    let after = ok_json(app.get("/api/v1/scoreboard").await, "board").await;
    let listed: Vec<i64> = after["matches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["status"] == "in_progress")
        .map(id)
        .collect();
    assert_eq!(listed, vec![id(&s.live)]);
    assert!(
        !after["matches"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["id"] == kings["id"]),
        "a forfeit leaves the board at once: {after}"
    );
}

/// A game that ends stays on the board, as final and in its place, for a minute; then it
/// leaves, though nothing was written since (the page cache's copy must not keep it), and a
/// correction later does not bring it back.
#[actix_web::test]
async fn a_finished_game_stays_a_minute_as_final() {
    let (clock, time) = manual_clock("2026-11-27T01:00:00Z", chrono_tz::America::Chicago);
    let app = spawn_app_with_clock(clock).await;
    let admin = app.api_user("coord", Role::Admin).await;
    let rules = json!({"preset": "unc-im-300", "target": 100});
    let teams = app.league(&admin, "fall", rules, 4).await;
    let first = admin.add_match("fall", teams[0], teams[1], "Table 2").await;
    let other = admin
        .add_match("fall", teams[2], teams[3], "Table 10")
        .await;
    let other = admin.start_match(id(&other)).await;
    let winning = vec![hand_of([4, 3], [4, 4], [3, 3], [2, 3]); 2];
    time.advance(chrono::Duration::minutes(20));
    let done = admin.play_hands(id(&first), &winning).await;
    assert_eq!(done["status"], "complete", "{done}");
    let ids = |board: &Value| -> Vec<i64> {
        board["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(id)
            .collect()
    };

    let board = ok_json(app.get("/api/v1/scoreboard").await, "board").await;
    assert_eq!(
        ids(&board),
        [id(&done), id(&other)],
        "in its place: {board}"
    );
    let entry = &board["matches"][0];
    assert_eq!(entry["status"], "complete");
    assert_eq!(entry["finished_at"], "2026-11-27T01:20:00Z");
    assert_eq!(entry["state"], "Team 1 won (reached the target)", "{entry}");
    assert_eq!(board["matches"][1]["finished_at"], Value::Null);
    let tv = page(&app, "/scoreboard?tv=1").await;
    let cell = element(&tv, &format!("board-{}", id(&done)), "</li>");
    assert!(cell.contains(">Final</strong>"), "{cell}");
    assert!(tv.contains(&format!(
        "class=\"tv-table finished\" id=\"board-{}\"",
        id(&done)
    )));
    let cell = element(&tv, &format!("board-{}", id(&other)), "</li>");
    assert!(!cell.contains("Final") && cell.contains("Hand 1"), "{cell}");

    time.advance(chrono::Duration::seconds(59));
    let still = ok_json(app.get("/api/v1/scoreboard").await, "board").await;
    assert_eq!(still["key"], board["key"], "59 s after: {still}");

    // A minute, and the page cache's copy of the 59th second aged out (at most 5 s).
    time.advance(chrono::Duration::seconds(7));
    let after = ok_json(app.get("/api/v1/scoreboard").await, "board").await;
    assert_eq!(ids(&after), [id(&other)], "66 s after: {after}");
    assert_ne!(after["key"], board["key"]);
    let tv = page(&app, "/scoreboard?tv=1").await;
    assert!(!tv.contains(&format!("id=\"board-{}\"", id(&done))));
    assert!(element(&tv, "latest", "</section>").contains(&format!("id=\"latest-{}\"", id(&done))));

    let corrected = admin
        .correct_hand(
            &done,
            2,
            &hand_of([4, 3], [5, 3], [3, 3], [2, 3]),
            "a bag",
            false,
        )
        .await;
    ok_json(corrected, "correct").await;
    let board = ok_json(app.get("/api/v1/scoreboard").await, "board").await;
    assert_eq!(ids(&board), [id(&other)], "after a correction: {board}");
}

#[actix_web::test]
async fn tiebreak_order_is_the_leagues_and_unknowns_are_404() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let response = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Winter", "slug": "winter", "rules": {"regular": "unc-im-300"},
                    "tiebreak_order": ["points_for", "head_to_head"]}),
        )
        .await;
    assert_eq!(response.status(), 201);
    let fall = app.league(&admin, "fall", json!("unc-im-300"), 2).await;

    let html = page(&app, "/leagues/winter/standings").await;
    assert!(html.contains("No teams yet."));
    let explained = element(&html, "tiebreak", "</ol>");
    let items: Vec<&str> = explained
        .split("<li>")
        .skip(1)
        .map(|i| &i[..i.find("</li>").unwrap()])
        .collect();
    assert_eq!(
        items,
        [
            "points scored",
            "record in the games between the tied teams",
            "name, alphabetically"
        ]
    );
    let (_, rows) = csv(
        &app,
        "/leagues/winter/standings.csv",
        "winter-standings.csv",
    )
    .await;
    assert_eq!(rows.len(), 1, "only the header");

    // Empty pages still answer.
    for path in [
        "/leagues/winter",
        "/leagues/winter/schedule",
        "/leagues/winter/teams",
        "/leagues/winter/rules",
        "/scoreboard",
    ] {
        page(&app, path).await;
    }

    for path in [
        "/leagues/nope".to_string(),
        "/leagues/nope/standings".into(),
        "/leagues/nope/standings.csv".into(),
        "/leagues/nope/schedule".into(),
        "/leagues/nope/rules".into(),
        "/leagues/nope/teams".into(),
        "/leagues/fall/teams/999999".into(),
        format!("/leagues/winter/teams/{}", fall[0]),
        "/leagues/fall/teams/abc".into(),
        "/matches/999999".into(),
        "/matches/999999/scoresheet.csv".into(),
        "/matches/abc".into(),
    ] {
        let response = app.get(&path).await;
        assert_eq!(response.status(), 404, "{path}");
    }
    let response = app.get("/matches/999999").await;
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let response = app.get("/api/v1/scoreboard").await;
    assert_eq!(response.status(), 200);

    // The page assets are served (the pages link them).
    for (path, kind) in [
        ("/static/public.js", "text/javascript"),
        ("/static/public.css", "text/css"),
    ] {
        let response = app.get(path).await;
        assert_eq!(response.status(), 200, "{path}");
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with(kind)
        );
    }

    // Anyone may read; a logged-in reader's copy (it carries their CSRF token) is not stored.
    let response = app.get("/leagues/winter/standings").await;
    assert!(response.headers().get("cache-control").is_none());
    app.user("sup", Role::Supervisor).await;
    let browser = app.browser("sup").await;
    let response = browser.get("/leagues/winter/standings").await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["cache-control"], "no-store");
    assert!(response.text().await.unwrap().contains(">sup</a>"));
}

/// "Find your team": the home page's form finds the teams of the current leagues by any part
/// of their name, ignoring case, each linked to its page with its league; a past season's
/// teams are not listed; blank or unknown words say so, and what was typed stays in the field.
#[actix_web::test]
async fn a_visitor_finds_their_team_by_part_of_its_name() {
    let app = crate::helpers::spawn_app().await;
    let admin = app.api_user("coord", spades_im::service::Role::Admin).await;
    let teams = app
        .league(&admin, "fall", serde_json::json!("classic"), 2)
        .await;
    let r = admin
        .patch(
            &format!("/api/v1/teams/{}", teams[0]),
            &serde_json::json!({"name": "Ace Of Spades"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    app.league(&admin, "old", serde_json::json!("classic"), 2)
        .await;
    let r = admin
        .post("/api/v1/leagues/old/archive", &serde_json::json!({}))
        .await;
    assert_eq!(r.status(), 200);

    let (status, _, home) = crate::helpers::anonymous_get(&app, "/").await;
    assert_eq!(status, 200);
    assert!(home.contains("action=\"/find\""), "{home}");
    assert!(
        home.find("id=\"find-team\"") < home.find("class=\"cards\""),
        "the search comes first"
    );

    let (status, _, page) = crate::helpers::anonymous_get(&app, "/find?team=+of%20ACE+").await;
    assert_eq!(status, 200);
    let page = crate::helpers::unescape(&page);
    assert!(
        page.contains(&format!(
            "href=\"/leagues/fall/teams/{}\">Ace Of Spades</a>",
            teams[0]
        )),
        "{page}"
    );
    assert!(page.contains("value=\"of ACE\""), "what was typed stays");

    let (_, _, page) = crate::helpers::anonymous_get(&app, "/find?team=Team").await;
    assert!(page.contains("/leagues/fall/teams/"), "{page}");
    assert!(!page.contains("/leagues/old/"), "no past season: {page}");

    let (_, _, page) = crate::helpers::anonymous_get(&app, "/find?team=zebra").await;
    assert!(page.contains("id=\"found-none\""), "{page}");
    let (status, _, page) = crate::helpers::anonymous_get(&app, "/find").await;
    assert_eq!(status, 200);
    assert!(!page.contains("id=\"found-heading\""), "{page}");
}
