//! Players' statistics (docs/api.md §15): `GET /api/v1/teams/{id}/stats`, the public team
//! page's players table and the public player page, computed from the lineups and the
//! current revision of each hand. The expected figures below are added up by hand from the
//! hands this test enters, seat by seat.

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{Api, TestApp, anonymous_get, hand_of, json_with_status, spawn_app};

/// A league `fall` (partnership rules: nil and blind nil always allowed) with "Aces" (Ann,
/// Al, Ada — Ann with a student id and email) and "Kings" (Kim, Ken).
async fn league(app: &TestApp) -> (Api, i64, i64) {
    let admin = app.api_user("coord", Role::Admin).await;
    let r = admin
        .post(
            "/api/v1/leagues",
            &json!({"name": "Fall", "slug": "fall", "rules": {"regular": "partnership"}}),
        )
        .await;
    json_with_status(r, 201, "league").await;
    let mut ids = Vec::new();
    for body in [
        json!({"name": "Aces", "players": [
            {"name": "Ann", "student_id": "qx7001", "email": "ann.qx@example.edu"}, "Al", "Ada"]}),
        json!({"name": "Kings", "players": ["Kim", "Ken"]}),
    ] {
        let r = admin.post("/api/v1/leagues/fall/teams", &body).await;
        ids.push(
            json_with_status(r, 201, "team").await["id"]
                .as_i64()
                .unwrap(),
        );
    }
    (admin, ids[0], ids[1])
}

/// The ids of team `team`'s players by name.
async fn player_ids(admin: &Api, team: i64) -> Vec<(String, i64)> {
    let r = admin.get(&format!("/api/v1/teams/{team}/roster")).await;
    json_with_status(r, 200, "roster").await["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["id"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn id_of(players: &[(String, i64)], name: &str) -> i64 {
    players.iter().find(|(n, _)| n == name).unwrap().1
}

async fn set_lineup(admin: &Api, m: i64, team: &str, players: [i64; 2]) -> Value {
    let r = admin
        .post(
            &format!("/api/v1/matches/{m}/lineup"),
            &json!({"team": team, "players": players}),
        )
        .await;
    json_with_status(r, 200, "lineup").await
}

/// One player's line: matches, hands, bid, took, nil_bids, nils_made.
fn line(stats: &Value, name: &str) -> [i64; 6] {
    let p = stats["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {stats}"));
    ["matches", "hands", "bid", "took", "nil_bids", "nils_made"].map(|k| p[k].as_i64().unwrap())
}

#[actix_web::test]
async fn stats_add_up_each_seat_of_each_hand_from_the_lineups() {
    let app = spawn_app().await;
    let (admin, aces, kings) = league(&app).await;
    let a = player_ids(&admin, aces).await;
    let k = player_ids(&admin, kings).await;
    let (ann, al, ada) = (id_of(&a, "Ann"), id_of(&a, "Al"), id_of(&a, "Ada"));
    let (kim, ken) = (id_of(&k, "Kim"), id_of(&k, "Ken"));
    let r = admin
        .post(
            "/api/v1/leagues/fall/matches",
            &json!({"team_a": aces, "team_b": kings}),
        )
        .await;
    let m = json_with_status(r, 201, "match").await["id"]
        .as_i64()
        .unwrap();
    set_lineup(&admin, m, "a", [ann, al]).await;
    set_lineup(&admin, m, "b", [kim, ken]).await;
    // Hand 1: Ann bids 4 and takes 5, Al bids nil and takes none (made).
    // Hand 2: a misdeal (no hand for anyone).
    let hand1 = json!({"a": {"bids": [4, "nil"], "tricks": [5, 0]},
                       "b": {"bids": [3, 3], "tricks": [4, 4]}});
    admin
        .play_hands(m, &[hand1, json!({"misdeal": true})])
        .await;
    // Ada comes in for Ann from hand 3 (Ada in the first seat, Al stays).
    let mut game = set_lineup(&admin, m, "a", [ada, al]).await;
    // Hand 3: Ada bids blind nil and takes none (made); Al bids 5, takes 6.
    let hand3 = json!({"a": {"bids": ["blind_nil", 5], "tricks": [0, 6]},
                       "b": {"bids": [2, 3], "tricks": [3, 4]}});
    game = admin.enter_hand(&game, &hand3).await;
    // Hand 4 as first entered (Kings' tricks swapped), then corrected: only the correction
    // counts. Ada bids nil and takes one (set); Al bids 4, takes 4.
    game = admin
        .enter_hand(&game, &hand_of([0, 4], [1, 4], [4, 2], [3, 5]))
        .await;
    let hand4 = json!({"a": {"bids": ["nil", 4], "tricks": [1, 4]},
                       "b": {"bids": [4, 2], "tricks": [5, 3]}});
    let r = admin
        .correct_hand(&game, 4, &hand4, "Kings' tricks were swapped", false)
        .await;
    json_with_status(r, 200, "correction").await;

    let stats = json_with_status(
        app.get(&format!("/api/v1/teams/{aces}/stats")).await,
        200,
        "stats",
    )
    .await;
    let names: Vec<&str> = stats["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Ann", "Al", "Ada"], "in the order they were added");
    // Ann: hand 1 only: bid 4, took 5.
    assert_eq!(line(&stats, "Ann"), [1, 1, 4, 5, 0, 0]);
    // Al: hands 1, 3, 4: bid 0 + 5 + 4 = 9, took 0 + 6 + 4 = 10, one nil (made).
    assert_eq!(line(&stats, "Al"), [1, 3, 9, 10, 1, 1]);
    // Ada: hands 3, 4: bid 0 + 0, took 0 + 1, a blind nil made and a nil set.
    assert_eq!(line(&stats, "Ada"), [1, 2, 0, 1, 2, 1]);
    let kings_stats = json_with_status(
        app.get(&format!("/api/v1/teams/{kings}/stats")).await,
        200,
        "kings",
    )
    .await;
    // Kim: hands 1, 3, 4 (corrected): bid 3 + 2 + 4 = 9, took 4 + 3 + 5 = 12.
    assert_eq!(line(&kings_stats, "Kim"), [1, 3, 9, 12, 0, 0]);
    // Ken: bid 3 + 3 + 2 = 8, took 4 + 4 + 3 = 11.
    assert_eq!(line(&kings_stats, "Ken"), [1, 3, 8, 11, 0, 0]);
    let text = stats.to_string();
    assert!(
        !text.contains("QX7001") && !text.contains("ann.qx"),
        "names only: {text}"
    );
    assert_eq!(
        app.get("/api/v1/teams/999999/stats").await.status(),
        404,
        "no such team"
    );

    // The team page's table, linked to each player's page.
    let (status, _, html) = anonymous_get(&app, &format!("/leagues/fall/teams/{aces}")).await;
    assert_eq!(status, 200);
    let row = crate::helpers::html_element(&html, &format!("team-stats-{ada}"), "</tr>")
        .expect("Ada's row");
    assert_eq!(
        crate::helpers::html_cells(row),
        ["Ada", "1", "2", "0 / 1", "1 of 2"]
    );
    let link = format!("/leagues/fall/teams/{aces}/players/{ada}");
    assert!(html.contains(&format!("href=\"{link}\"")), "{html}");
    let (status, _, page) = anonymous_get(&app, &link).await;
    assert_eq!(status, 200);
    for (id, want) in [
        ("player-name", "Ada"),
        ("player-hands", "2"),
        ("player-took", "1"),
        ("player-nil-bids", "2"),
        ("player-nils-made", "1"),
    ] {
        let shown = crate::helpers::html_element(&page, id, "</").expect(id);
        assert!(
            crate::helpers::html_text(shown).ends_with(want),
            "{id}: {shown}"
        );
    }
    assert!(
        page.contains(&format!("/leagues/fall/teams/{aces}\"")),
        "team link"
    );
    // A player of another team, or of no team: 404.
    for path in [
        format!("/leagues/fall/teams/{aces}/players/{kim}"),
        format!("/leagues/fall/teams/{aces}/players/999999"),
        format!("/leagues/nope/teams/{aces}/players/{ada}"),
    ] {
        assert_eq!(anonymous_get(&app, &path).await.0, 404, "{path}");
    }

    // The admin's Player.matches counts the matches sat in once the league has lineups
    // (the match is not finished: none yet), and the export lists Ann's lineup.
    let r = admin
        .post("/api/v1/people/export", &json!({"student_id": "QX7001"}))
        .await;
    let export = json_with_status(r, 200, "export").await;
    assert_eq!(
        export["lineups"],
        json!([{"match_id": m, "team": "a", "from_hand": 1, "seat": 1}])
    );
}

/// The team page says what it knows: before any lineup it says so (not a table of zeros
/// beside a record), a team of three names all three (here and on the teams page), and a
/// playoff match with no date yet is named by its label.
#[actix_web::test]
async fn the_team_page_says_what_it_knows() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app.league(&admin, "cup", json!("classic"), 4).await;
    let r = admin
        .post(
            &format!("/api/v1/teams/{}/players", teams[0]),
            &json!({"name": "Cy Third"}),
        )
        .await;
    json_with_status(r, 201, "a third player").await;
    let r = admin
        .post(
            "/api/v1/leagues/cup/playoffs",
            &json!({"format": "single_elimination"}),
        )
        .await;
    let bracket = json_with_status(r, 201, "the playoffs").await;

    let (status, _, html) = anonymous_get(&app, &format!("/leagues/cup/teams/{}", teams[0])).await;
    assert_eq!(status, 200);
    let players = crate::helpers::html_element(&html, "players", "</p>").expect("the players line");
    let players = crate::helpers::html_text(players);
    assert!(
        players.contains(", ") && players.contains(" and Cy Third"),
        "all three players: {players}"
    );
    assert!(html.contains("id=\"no-lineups\""), "no lineups yet, said");
    assert!(!html.contains("id=\"team-stats\""), "no table of zeros");
    let semi = bracket["matches"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|m| m["team_a"]["id"] == teams[0] || m["team_b"]["id"] == teams[0])
        .and_then(|m| m["label"].as_str())
        .expect("the team's playoff match has a label")
        .to_string();
    assert!(
        html.contains(&format!("{semi}, no date set")),
        "the playoff match by its label ({semi}): {html}"
    );
    // Once the bracket exists: its seed and its next match, by label and opponent.
    let seed_line = crate::helpers::html_element(&html, "team-bracket", "</p>")
        .map(crate::helpers::html_text)
        .expect("the bracket line");
    assert!(
        seed_line.starts_with("Seed ") && seed_line.contains(&format!("Next: {semi} v Team ")),
        "{seed_line}"
    );
    let (_, _, list) = anonymous_get(&app, "/leagues/cup/teams").await;
    assert!(
        list.contains("Cy Third"),
        "the teams page names the third player"
    );
}
