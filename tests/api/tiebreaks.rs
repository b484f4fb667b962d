//! The tiebreak order on real rows (docs/scoring.md §7.3): one season played in three
//! leagues that differ only in their order, with a group of five teams level on win % in
//! which not every pair has met. Head-to-head is the record in the finished games between
//! the teams of the whole tied group (a team that met none of them has 0, like a team that
//! lost them all), computed once and not again for the teams it leaves level; then the next
//! criterion; the name last. The API, the page and the CSV must all show exactly that, and a
//! change of the order shows at once, over the warm standings and page caches.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{
    Api, TestApp, anonymous_get, csv_rows, hand_of, html_element, html_standings, html_text,
    json_with_status, spawn_app,
};

/// The teams, by letter: names in the reverse alphabetical order of the default ranking, so
/// that the last resort (the name) never agrees with a tiebreak by chance.
const TEAMS: [(char, &str); 7] = [
    ('A', "Foxes"),
    ('B', "Eagles"),
    ('C', "Dolphins"),
    ('D', "Badgers"),
    ('E', "Gophers"),
    ('F', "Aardvarks"),
    ('H', "Cardinals"),
];

/// The season: each match one hand to 100 (winner as team a, loser as team b), and the
/// scores it gives.
///
/// Records: E 2–0; A, B, C, D, H 1–1 (the tied group); F 0–2. Between the group's teams: A
/// beat C, C beat B, B beat D; H met none of them (its games are against E and F).
/// Head-to-head in the group: A 1.000, B and C 0.500, D 0.000 (0–1), H 0.000 (no game).
///
/// | team | PF | PA | diff |
/// |---|---|---|---|
/// | A | 20 | 50 | −30 |
/// | B | 51 | 52 | −1 |
/// | C | 52 | 60 | −8 |
/// | D | 80 | 81 | −1 |
/// | H | 22 | −18 | +40 |
/// | E | 212 | −200 | +412 |
/// | F | −170 | 242 | −412 |
fn season() -> Vec<(char, char, Value, (i64, i64))> {
    vec![
        // A 130 (13 bid, 13 taken), C −50 (5 bid, none taken).
        (
            'A',
            'C',
            hand_of([7, 6], [7, 6], [3, 2], [0, 0]),
            (130, -50),
        ),
        // C 102 (10 bid, 12 taken), B −70 (7 bid, 1 taken).
        (
            'C',
            'B',
            hand_of([5, 5], [6, 6], [4, 3], [1, 0]),
            (102, -70),
        ),
        // B 121 (12 bid, 13 taken), D −50.
        (
            'B',
            'D',
            hand_of([6, 6], [7, 6], [3, 2], [0, 0]),
            (121, -50),
        ),
        // E 100 (10 bid, 10 taken), A −110 (11 bid, 3 taken).
        (
            'E',
            'A',
            hand_of([5, 5], [5, 5], [6, 5], [2, 1]),
            (100, -110),
        ),
        // D 130, F −40.
        (
            'D',
            'F',
            hand_of([7, 6], [7, 6], [2, 2], [0, 0]),
            (130, -40),
        ),
        // H 112 (11 bid, 13 taken), F −130.
        (
            'H',
            'F',
            hand_of([6, 5], [7, 6], [7, 6], [0, 0]),
            (112, -130),
        ),
        // E 112, H −90.
        (
            'E',
            'H',
            hand_of([6, 5], [7, 6], [5, 4], [0, 0]),
            (112, -90),
        ),
    ]
}

/// Won, lost, win % (as shown), points for, points against.
type Record = (i64, i64, &'static str, i64, i64);

/// The record of every team.
fn record(team: char) -> Record {
    match team {
        'A' => (1, 1, "0.500", 20, 50),
        'B' => (1, 1, "0.500", 51, 52),
        'C' => (1, 1, "0.500", 52, 60),
        'D' => (1, 1, "0.500", 80, 81),
        'H' => (1, 1, "0.500", 22, -18),
        'E' => (2, 0, "1.000", 212, -200),
        'F' => (0, 2, "0.000", -170, 242),
        _ => unreachable!(),
    }
}

fn name(team: char) -> &'static str {
    TEAMS.iter().find(|(t, _)| *t == team).unwrap().1
}

/// A league `slug` (partnership to 100, `order` as its tiebreak order unless `None`) with
/// the season played; the team ids by letter.
async fn league(admin: &Api, slug: &str, order: Option<Value>) -> Vec<(char, i64)> {
    let mut body = json!({"name": slug, "slug": slug,
                          "rules": {"regular": {"preset": "partnership", "target": 100}}});
    if let Some(order) = order {
        body["tiebreak_order"] = order;
    }
    json_with_status(admin.post("/api/v1/leagues", &body).await, 201, "league").await;
    let mut ids = Vec::new();
    for (letter, team) in TEAMS {
        let t = json_with_status(
            admin
                .post(
                    &format!("/api/v1/leagues/{slug}/teams"),
                    &json!({"name": team, "players": [format!("{team} 1"), format!("{team} 2")]}),
                )
                .await,
            201,
            "team",
        )
        .await;
        ids.push((letter, t["id"].as_i64().unwrap()));
    }
    let id = |t: char| ids.iter().find(|(l, _)| *l == t).unwrap().1;
    for (i, (winner, loser, hand, score)) in season().into_iter().enumerate() {
        let m = admin
            .add_match(slug, id(winner), id(loser), &format!("Table {}", i + 1))
            .await;
        let m = admin.play_hands(m["id"].as_i64().unwrap(), &[hand]).await;
        assert_eq!(m["status"], "complete", "{winner} v {loser}");
        assert_eq!(m["winner"], "a", "{winner} v {loser}");
        assert_eq!(
            (
                m["a"]["score"].as_i64().unwrap(),
                m["b"]["score"].as_i64().unwrap()
            ),
            score
        );
    }
    ids
}

/// What the API, the page and the CSV of a league's standings must be for `order` (team
/// letters, first to last).
async fn assert_standings(
    app: &TestApp,
    slug: &str,
    ids: &[(char, i64)],
    order: &[char],
    when: &str,
) {
    let id = |t: char| ids.iter().find(|(l, _)| *l == t).unwrap().1;
    let rows: Vec<(usize, char, Record)> = order
        .iter()
        .enumerate()
        .map(|(i, t)| (i + 1, *t, record(*t)))
        .collect();

    let api = json_with_status(
        app.get(&format!("/api/v1/leagues/{slug}/standings")).await,
        200,
        "standings",
    )
    .await;
    // The order first, in names (a readable failure), then every field.
    let names: Vec<&str> = api["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["team"].as_str().unwrap())
        .collect();
    let expected: Vec<&str> = order.iter().map(|t| name(*t)).collect();
    assert_eq!(names, expected, "{when}: {slug}: the API's order");
    let expected: Vec<Value> = rows
        .iter()
        .map(|(rank, t, (won, lost, pct, pf, pa))| {
            json!({"rank": rank, "team_id": id(*t), "team": name(*t), "played": won + lost,
                   "won": won, "lost": lost, "tied": 0, "forfeits": 0,
                   "win_pct": pct.parse::<f64>().unwrap(), "points_for": pf,
                   "points_against": pa, "differential": pf - pa,
                   "division": null, "division_rank": null})
        })
        .collect();
    assert_eq!(
        api["rows"],
        json!(expected),
        "{when}: {slug}: API standings"
    );

    let (status, _, html) = anonymous_get(app, &format!("/leagues/{slug}/standings")).await;
    assert_eq!(status, 200);
    let expected: Vec<Vec<String>> = rows
        .iter()
        .map(|(rank, t, (won, lost, pct, pf, pa))| {
            let diff = pf - pa;
            vec![
                rank.to_string(),
                name(*t).to_string(),
                (won + lost).to_string(),
                won.to_string(),
                lost.to_string(),
                "0".into(),
                "0".into(),
                pct.to_string(),
                pf.to_string(),
                pa.to_string(),
                if diff > 0 {
                    format!("+{diff}")
                } else {
                    crate::helpers::shown(diff)
                },
            ]
        })
        .collect();
    assert_eq!(
        html_standings(&html),
        expected,
        "{when}: {slug}: standings page"
    );

    let (status, _, csv) = anonymous_get(app, &format!("/leagues/{slug}/standings.csv")).await;
    assert_eq!(status, 200);
    let teams: Vec<String> = csv_rows(&csv)
        .iter()
        .skip(1)
        .map(|r| r[1].clone())
        .collect();
    let expected: Vec<String> = order.iter().map(|t| name(*t).to_string()).collect();
    assert_eq!(teams, expected, "{when}: {slug}: standings CSV");
}

/// The tiebreak order as the standings page words it.
async fn words_on_page(app: &TestApp, slug: &str) -> Vec<String> {
    let (_, _, html) = anonymous_get(app, &format!("/leagues/{slug}/standings")).await;
    let list = html_element(&html, "tiebreak", "</ol>").expect("the tiebreak list");
    list.split("<li>")
        .skip(1)
        .map(|i| html_text(&i[..i.find("</li>").unwrap()]))
        .collect()
}

const H2H: &str = "record in the games between the tied teams";
const DIFF: &str = "point differential";
const PF: &str = "points scored";
const NAME: &str = "name, alphabetically";

#[actix_web::test]
async fn the_leagues_order_ranks_a_tied_group_where_not_every_pair_has_met() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;

    // The default order: head-to-head, differential, points for.
    let ids = league(&admin, "default", None).await;
    // E; then the group: A (head-to-head 1.000); B before C (both 0.500: B's differential,
    // −1 against −8, decides, although C beat B: head-to-head is not computed again for the
    // two of them); H before D (both 0.000, H with no game against the group: H's
    // differential, +40 against −1); then F.
    assert_standings(
        &app,
        "default",
        &ids,
        &['E', 'A', 'B', 'C', 'H', 'D', 'F'],
        "default",
    )
    .await;
    assert_eq!(words_on_page(&app, "default").await, [H2H, DIFF, PF, NAME]);

    // Differential first: H +40, then B and D level at −1 (head-to-head: B 0.500, D 0.000;
    // points for and the name would both put D first), C −8, A −30.
    let ids = league(
        &admin,
        "diff-first",
        Some(json!(["differential", "head_to_head", "points_for"])),
    )
    .await;
    assert_standings(
        &app,
        "diff-first",
        &ids,
        &['E', 'H', 'B', 'D', 'C', 'A', 'F'],
        "diff first",
    )
    .await;
    assert_eq!(
        words_on_page(&app, "diff-first").await,
        [DIFF, H2H, PF, NAME]
    );
    let shown: Value = app
        .get("/api/v1/leagues/diff-first")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        shown["tiebreak_order"],
        json!(["differential", "head_to_head", "points_for"])
    );

    // Head-to-head then points for: C (52) before B (51), D (80) before H (22).
    let ids = league(
        &admin,
        "h2h-points",
        Some(json!(["head_to_head", "points_for"])),
    )
    .await;
    assert_standings(
        &app,
        "h2h-points",
        &ids,
        &['E', 'A', 'C', 'B', 'D', 'H', 'F'],
        "h2h, points",
    )
    .await;
    assert_eq!(words_on_page(&app, "h2h-points").await, [H2H, PF, NAME]);
}

#[actix_web::test]
async fn a_new_tiebreak_order_shows_at_once_over_warm_caches() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let ids = league(&admin, "fall", None).await;
    let default = ['E', 'A', 'B', 'C', 'H', 'D', 'F'];
    assert_standings(&app, "fall", &ids, &default, "default order").await;
    // The page copies are warm.
    for path in [
        "/leagues/fall/standings",
        "/api/v1/leagues/fall/standings",
        "/leagues/fall/standings.csv",
    ] {
        let (_, cache, _) = anonymous_get(&app, path).await;
        assert_eq!(cache, "hit", "{path} is warm");
    }

    // The coordinator changes the order on the league's form (no result changes, so the
    // standings version does not move).
    app.user("chief", Role::Admin).await;
    let browser = app.browser("chief").await;
    let r = browser
        .post_form(
            "/admin/leagues/fall/edit",
            &[
                ("name", "fall"),
                ("regular_preset", "partnership"),
                ("regular_target", "100"),
                ("playoff_preset", ""),
                ("final_preset", ""),
                ("tiebreak1", "differential"),
                ("tiebreak2", "head_to_head"),
                ("tiebreak3", "points_for"),
                ("confirm", "1"),
            ],
        )
        .await;
    assert_eq!(r.status(), 303, "{}", r.text().await.unwrap());
    let shown: Value = app.get("/api/v1/leagues/fall").await.json().await.unwrap();
    assert_eq!(
        shown["tiebreak_order"],
        json!(["differential", "head_to_head", "points_for"])
    );
    for path in [
        "/leagues/fall/standings",
        "/api/v1/leagues/fall/standings",
        "/leagues/fall/standings.csv",
    ] {
        let (_, cache, _) = anonymous_get(&app, path).await;
        assert_eq!(
            cache, "miss",
            "{path}: the copy from before the change is not served"
        );
    }
    assert_standings(
        &app,
        "fall",
        &ids,
        &['E', 'H', 'B', 'D', 'C', 'A', 'F'],
        "new order",
    )
    .await;
    assert_eq!(words_on_page(&app, "fall").await, [DIFF, H2H, PF, NAME]);
    // Logged in (no page copy), the same.
    let html = browser
        .get("/leagues/fall/standings")
        .await
        .text()
        .await
        .unwrap();
    let teams: Vec<String> = html_standings(&html).iter().map(|r| r[1].clone()).collect();
    assert_eq!(
        teams,
        [
            "Gophers",
            "Cardinals",
            "Eagles",
            "Badgers",
            "Dolphins",
            "Foxes",
            "Aardvarks"
        ]
    );
}
