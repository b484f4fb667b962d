//! A correction of a finished regular-season match while the caches are warm (the teams'
//! standings records, kept by triggers, and the page cache of anonymous reads, keyed by
//! `data_version`): every page, CSV and API read that shows the
//! match or the standings shows the corrected state at once, to anonymous visitors (through
//! the page cache) and to logged-in users alike. First a correction that flips the winner,
//! then one that un-finishes the match (its last hand no longer reaches the target).

use serde_json::{Value, json};
use spades_im::service::Role;

use crate::helpers::{
    Api, Browser, TestApp, anonymous_get, csv_rows, hand_of, html_cells, html_element,
    html_standings, html_text, json_with_status, spawn_app,
};

const SLUG: &str = "night";

/// Team a 71 (7 bid, 8 taken), team b 41 (4 bid, 5 taken).
fn a_hand() -> Value {
    hand_of([4, 3], [5, 3], [2, 2], [3, 2])
}

/// Team a 83 (8 bid, 11 taken), team b 20 (2 bid, 2 taken).
fn a_big() -> Value {
    hand_of([4, 4], [6, 5], [1, 1], [1, 1])
}

/// After an `a_hand`: team a set (6 bid, 2 taken: 71 − 60 = 11), team b 41 + 74 = 115.
fn b_big() -> Value {
    hand_of([3, 3], [1, 1], [4, 3], [6, 5])
}

/// After an `a_hand`: team a set (4 bid, 2 taken: 71 − 40 = 31), team b 41 + 47 = 88;
/// nobody has reached 100.
fn undecided() -> Value {
    hand_of([2, 2], [1, 1], [2, 2], [6, 5])
}

/// A match as the lists show it.
#[derive(Clone)]
struct Line {
    id: i64,
    table: &'static str,
    a: usize,
    b: usize,
    score: (i64, i64),
    /// 'a', 'b', or '-' while in play.
    winner: char,
    hands: i64,
}

impl Line {
    fn live(&self) -> bool {
        self.winner == '-'
    }

    fn state(&self) -> String {
        match self.winner {
            'a' => format!("{} won (reached the target)", name(self.a)),
            'b' => format!("{} won (reached the target)", name(self.b)),
            _ => "In progress".to_string(),
        }
    }

    /// The item of a match list (league home): both sides, the state, the table.
    fn item(&self) -> String {
        format!(
            "{}: {} {} {} {} {} · {} [winner {}]",
            self.id,
            name(self.a),
            self.score.0,
            name(self.b),
            self.score.1,
            self.state(),
            self.table,
            self.winner
        )
    }

    /// The row of team `team`'s page: table, opponent, result, own–theirs, state.
    fn team_row(&self, team: usize) -> String {
        let (opponent, own, theirs, side) = if self.a == team {
            (self.b, self.score.0, self.score.1, 'a')
        } else {
            (self.a, self.score.1, self.score.0, 'b')
        };
        let result = match self.winner {
            '-' => String::new(),
            w if w == side => " W".into(),
            _ => " L".into(),
        };
        format!(
            "{}: {} {}{} {} – {} {}",
            self.id,
            self.table,
            name(opponent),
            result,
            crate::helpers::shown(own),
            crate::helpers::shown(theirs),
            self.state()
        )
    }
}

fn name(team: usize) -> String {
    format!("Team {}", team + 1)
}

/// A standings row as expected: team, won, lost, points for and against, win % as shown.
#[derive(Clone, Copy)]
struct Row {
    team: usize,
    won: i64,
    lost: i64,
    pf: i64,
    pa: i64,
    pct: &'static str,
}

/// A row: team, won, lost, points for, points against, win % as shown.
fn row(team: usize, won: i64, lost: i64, pf: i64, pa: i64, pct: &'static str) -> Row {
    Row {
        team,
        won,
        lost,
        pf,
        pa,
        pct,
    }
}

impl Row {
    fn played(&self) -> i64 {
        self.won + self.lost
    }

    fn diff(&self) -> i64 {
        self.pf - self.pa
    }

    /// As pages show it: "+38", "0", "−104".
    fn signed_diff(&self) -> String {
        if self.diff() > 0 {
            format!("+{}", self.diff())
        } else {
            crate::helpers::shown(self.diff())
        }
    }
}

/// What every read must show at one point of the story.
struct Expected {
    /// In rank order.
    standings: Vec<Row>,
    /// Every match (the first is the one corrected).
    lines: Vec<Line>,
    /// The corrected match's hand 2: revision and correction reason.
    revision: i64,
    reason: Value,
}

impl Expected {
    fn m1(&self) -> &Line {
        &self.lines[0]
    }
}

struct World {
    app: TestApp,
    admin: Api,
    browser: Browser,
    teams: Vec<i64>,
}

/// The reads checked, each with the path it reads and what it shows, normalised.
#[derive(Clone, Copy, Debug)]
enum Read {
    StandingsPage,
    StandingsApi,
    StandingsCsv,
    LeagueHome,
    TeamPage(usize),
    ScoreboardPage,
    ScoreboardApi,
    MatchPage,
    MatchApi,
}

const READS: [Read; 10] = [
    Read::StandingsPage,
    Read::StandingsApi,
    Read::StandingsCsv,
    Read::LeagueHome,
    Read::TeamPage(0),
    Read::TeamPage(1),
    Read::ScoreboardPage,
    Read::ScoreboardApi,
    Read::MatchPage,
    Read::MatchApi,
];

impl Read {
    fn path(self, w: &World, e: &Expected) -> String {
        match self {
            Read::StandingsPage => format!("/leagues/{SLUG}/standings"),
            Read::StandingsApi => format!("/api/v1/leagues/{SLUG}/standings"),
            Read::StandingsCsv => format!("/leagues/{SLUG}/standings.csv"),
            Read::LeagueHome => format!("/leagues/{SLUG}"),
            Read::TeamPage(t) => format!("/leagues/{SLUG}/teams/{}", w.teams[t]),
            Read::ScoreboardPage => "/scoreboard".into(),
            Read::ScoreboardApi => "/api/v1/scoreboard".into(),
            Read::MatchPage => format!("/matches/{}", e.m1().id),
            Read::MatchApi => format!("/api/v1/matches/{}", e.m1().id),
        }
    }

    fn is_api(self) -> bool {
        matches!(
            self,
            Read::StandingsApi | Read::ScoreboardApi | Read::MatchApi
        )
    }

    /// What the answer shows (body as read).
    fn observe(self, body: &str) -> Value {
        match self {
            Read::StandingsPage => json!(html_standings(body)),
            Read::StandingsApi => {
                let v: Value = serde_json::from_str(body).expect("json");
                v["rows"].clone()
            }
            Read::StandingsCsv => json!(csv_rows(body)),
            Read::LeagueHome => json!({
                "standings": html_standings(body),
                "results": list_items(body, "result"),
                "week": list_items(body, "week"),
            }),
            Read::TeamPage(_) => {
                let record = html_element(body, "team-record", "</p>").map(html_text);
                let table = html_element(body, "team-matches", "</table>").unwrap_or("");
                let rows: Vec<String> = table
                    .split("<tr id=\"team-match-")
                    .skip(1)
                    .map(|r| {
                        let id = &r[..r.find('"').expect("id end")];
                        let cells: Vec<String> = html_cells(&r[..r.find("</tr>").expect("tr")])
                            .into_iter()
                            .filter(|c| !c.is_empty())
                            .collect();
                        format!("{id}: {}", cells.join(" "))
                    })
                    .collect();
                json!({"record": record, "matches": rows})
            }
            Read::ScoreboardPage => {
                let board = html_element(body, "scoreboard", "</section>").expect("board");
                // The matches in play (a game that just ended stays a minute, marked).
                let items: Vec<String> = board
                    .split("<li class=\"board-match")
                    .skip(1)
                    .filter(|item| !item.starts_with(" finished"))
                    .map(|item| {
                        let item = &item[item.find("id=\"board-").expect("id") + 10..];
                        let id = &item[..item.find('"').expect("id end")];
                        let score = |side: &str| {
                            html_element(item, &format!("board-{id}-score-{side}"), "</strong>")
                                .map(html_text)
                                .unwrap_or_default()
                        };
                        let words = item
                            .find("<span class=\"words\">")
                            .map(|at| {
                                html_text(&item[at..at + item[at..].find("</span>").unwrap()])
                            })
                            .unwrap_or_default();
                        format!("{id}: {}-{} {words}", score("a"), score("b"))
                    })
                    .collect();
                json!(items)
            }
            Read::ScoreboardApi => {
                let v: Value = serde_json::from_str(body).expect("json");
                let items: Vec<Value> = v["matches"]
                    .as_array()
                    .expect("matches")
                    .iter()
                    .filter(|m| m["league"] == SLUG && m["status"] == "in_progress")
                    .map(|m| {
                        json!([
                            m["id"],
                            m["team_a"]["id"],
                            m["team_b"]["id"],
                            m["a"]["score"],
                            m["b"]["score"],
                            m["hands"],
                            m["state"]
                        ])
                    })
                    .collect();
                json!(items)
            }
            Read::MatchPage => {
                let article = html_element(body, "match", ">").expect("the match article");
                let status = article
                    .split("data-status=\"")
                    .nth(1)
                    .map(|s| s[..s.find('"').unwrap()].to_string());
                let text = |id: &str, close: &str| html_element(body, id, close).map(html_text);
                json!({
                    "status": status,
                    "a": text("score-a", "</strong>"),
                    "b": text("score-b", "</strong>"),
                    "state": text("match-status", "</p>"),
                    "a_won": body.contains("<div class=\"total a winner\">"),
                    "b_won": body.contains("<div class=\"total b winner\">"),
                })
            }
            Read::MatchApi => {
                let m: Value = serde_json::from_str(body).expect("json");
                let hands = m["hands"].as_array().expect("hands");
                json!({
                    "status": m["status"], "game_status": m["game_status"],
                    "winner": m["winner"], "reason": m["reason"],
                    "a": m["a"]["score"], "b": m["b"]["score"],
                    "hands": hands.len(),
                    "revision": hands[1]["revision"], "correction": hands[1]["reason"],
                    "team_a": m["team_a"]["id"], "team_b": m["team_b"]["id"],
                })
            }
        }
    }

    /// What it must show.
    fn expect(self, w: &World, e: &Expected) -> Value {
        let rows = &e.standings;
        match self {
            Read::StandingsPage => json!(
                rows.iter()
                    .enumerate()
                    .map(|(i, r)| vec![
                        (i + 1).to_string(),
                        name(r.team),
                        r.played().to_string(),
                        r.won.to_string(),
                        r.lost.to_string(),
                        "0".into(),
                        "0".into(),
                        r.pct.to_string(),
                        r.pf.to_string(),
                        r.pa.to_string(),
                        r.signed_diff(),
                    ])
                    .collect::<Vec<_>>()
            ),
            Read::StandingsApi => json!(
                rows.iter()
                    .enumerate()
                    .map(|(i, r)| json!({
                        "rank": i + 1, "team_id": w.teams[r.team], "team": name(r.team),
                        "played": r.played(), "won": r.won, "lost": r.lost, "tied": 0,
                        "forfeits": 0, "win_pct": r.pct.parse::<f64>().unwrap(),
                        "points_for": r.pf, "points_against": r.pa,
                        "differential": r.diff(), "division": null, "division_rank": null,
                    }))
                    .collect::<Vec<_>>()
            ),
            Read::StandingsCsv => {
                let mut all = vec![
                    "rank,team,played,won,lost,tied,forfeits,win_pct,points_for,points_against,differential,division,division_rank"
                        .split(',')
                        .map(str::to_string)
                        .collect::<Vec<_>>(),
                ];
                for (i, r) in rows.iter().enumerate() {
                    all.push(vec![
                        (i + 1).to_string(),
                        name(r.team),
                        r.played().to_string(),
                        r.won.to_string(),
                        r.lost.to_string(),
                        "0".into(),
                        "0".into(),
                        r.pct.to_string(),
                        r.pf.to_string(),
                        r.pa.to_string(),
                        r.diff().to_string(),
                        String::new(),
                        String::new(),
                    ]);
                }
                json!(all)
            }
            Read::LeagueHome => {
                let standings: Vec<Vec<String>> = rows
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        vec![
                            (i + 1).to_string(),
                            name(r.team),
                            r.won.to_string(),
                            r.lost.to_string(),
                            r.pct.to_string(),
                            r.signed_diff(),
                        ]
                    })
                    .collect();
                // Results: newest first (no scheduled times: by id, descending); this week:
                // the matches in play (no scheduled times: by id).
                let mut results: Vec<&Line> = e.lines.iter().filter(|l| !l.live()).collect();
                results.sort_by_key(|l| -l.id);
                let mut week: Vec<&Line> = e.lines.iter().filter(|l| l.live()).collect();
                week.sort_by_key(|l| l.id);
                json!({
                    "standings": standings,
                    "results": results.iter().map(|l| l.item()).collect::<Vec<_>>(),
                    "week": week.iter().map(|l| l.item()).collect::<Vec<_>>(),
                })
            }
            Read::TeamPage(t) => {
                let r = rows
                    .iter()
                    .enumerate()
                    .find(|(_, r)| r.team == t)
                    .expect("a ranked team");
                let (rank, r) = (r.0 + 1, r.1);
                let record = format!(
                    "Rank {rank} · {} won, {} lost, 0 tied · win % {} · points {} for, {} against ({})",
                    r.won,
                    r.lost,
                    r.pct,
                    r.pf,
                    r.pa,
                    r.signed_diff()
                );
                // The team's matches in schedule order (no times: by id).
                let mut mine: Vec<&Line> =
                    e.lines.iter().filter(|l| l.a == t || l.b == t).collect();
                mine.sort_by_key(|l| l.id);
                json!({
                    "record": record,
                    "matches": mine.iter().map(|l| l.team_row(t)).collect::<Vec<_>>(),
                })
            }
            Read::ScoreboardPage => {
                let mut live: Vec<&Line> = e.lines.iter().filter(|l| l.live()).collect();
                live.sort_by_key(|l| (l.table, l.id));
                json!(
                    live.iter()
                        .map(|l| format!("{}: {}-{} {}", l.id, l.score.0, l.score.1, l.state()))
                        .collect::<Vec<_>>()
                )
            }
            Read::ScoreboardApi => {
                let mut live: Vec<&Line> = e.lines.iter().filter(|l| l.live()).collect();
                live.sort_by_key(|l| (l.table, l.id));
                json!(
                    live.iter()
                        .map(|l| json!([
                            l.id,
                            w.teams[l.a],
                            w.teams[l.b],
                            l.score.0,
                            l.score.1,
                            l.hands,
                            l.state()
                        ]))
                        .collect::<Vec<_>>()
                )
            }
            Read::MatchPage => {
                let m = e.m1();
                json!({
                    "status": if m.live() { "in_progress" } else { "complete" },
                    "a": m.score.0.to_string(),
                    "b": m.score.1.to_string(),
                    "state": m.state(),
                    "a_won": m.winner == 'a',
                    "b_won": m.winner == 'b',
                })
            }
            Read::MatchApi => {
                let m = e.m1();
                let winner = match m.winner {
                    'a' => json!("a"),
                    'b' => json!("b"),
                    _ => Value::Null,
                };
                json!({
                    "status": if m.live() { "in_progress" } else { "complete" },
                    "game_status": if m.live() { "in_progress" } else { "won" },
                    "winner": winner,
                    "reason": if m.live() { Value::Null } else { json!("target") },
                    "a": m.score.0, "b": m.score.1,
                    "hands": m.hands,
                    "revision": e.revision, "correction": e.reason,
                    "team_a": w.teams[m.a], "team_b": w.teams[m.b],
                })
            }
        }
    }
}

/// The items of a match list of the league home (`<ul id="{list}">`, items `{list}-{id}`),
/// each as [`Line::item`] shows it; none when the list is not there.
fn list_items(html: &str, list: &str) -> Vec<String> {
    let Some(ul) = html_element(html, list, "</ul>") else {
        return Vec::new();
    };
    ul.split("<li class=\"match ")
        .skip(1)
        .map(|li| {
            let li = &li[..li.find("</li>").expect("item end")];
            let marker = format!("id=\"{list}-");
            let at = li.find(&marker).expect("item id") + marker.len();
            let id = &li[at..at + li[at..].find('"').expect("id end")];
            let winner = if li.contains("class=\"side a winner\"") {
                'a'
            } else if li.contains("class=\"side b winner\"") {
                'b'
            } else {
                '-'
            };
            let content = &li[li.find('>').expect("tag end") + 1..];
            format!("{id}: {} [winner {winner}]", html_text(content))
        })
        .collect()
}

/// Whether the anonymous reads are warmed (read twice: the second must be the cached copy)
/// or checked right after a change (the first read must be a fresh render).
#[derive(Clone, Copy, PartialEq)]
enum Phase {
    Warm,
    AfterChange,
}

/// Every read, anonymous (through the page cache) then logged in, shows `e`.
async fn check_all(w: &World, e: &Expected, phase: Phase, when: &str) {
    // The anonymous reads first and back to back: a copy lives 5 s at most, and the point is
    // that the copies made before the change are there to be (wrongly) served.
    for read in READS {
        let path = read.path(w, e);
        let (status, cache, body) = anonymous_get(&w.app, &path).await;
        assert_eq!(status, 200, "{when}: GET {path}");
        assert_eq!(
            read.observe(&body),
            read.expect(w, e),
            "{when}: anonymous GET {path} (X-Page-Cache: {cache})"
        );
        if phase == Phase::AfterChange {
            assert_eq!(
                cache, "miss",
                "{when}: GET {path} must not be the copy from before"
            );
        }
        let (status, cache, again) = anonymous_get(&w.app, &path).await;
        assert_eq!(status, 200);
        assert_eq!(
            cache, "hit",
            "{when}: the second anonymous GET {path} is the copy"
        );
        assert_eq!(
            read.observe(&again),
            read.expect(w, e),
            "{when}: the copy of {path}"
        );
    }
    for read in READS {
        let path = read.path(w, e);
        let r = if read.is_api() {
            w.admin.get(&path).await
        } else {
            w.browser.get(&path).await
        };
        assert_eq!(r.status(), 200, "{when}: logged-in GET {path}");
        assert!(
            r.headers().get("x-page-cache").is_none(),
            "{when}: {path}: a logged-in user never gets the copy"
        );
        let body = r.text().await.unwrap();
        assert_eq!(
            read.observe(&body),
            read.expect(w, e),
            "{when}: logged-in GET {path}"
        );
    }
}

#[actix_web::test]
async fn a_correction_that_flips_then_unfinishes_a_result_shows_everywhere_at_once() {
    let app = spawn_app().await;
    let admin = app.api_user("coord", Role::Admin).await;
    let teams = app
        .league(
            &admin,
            SLUG,
            json!({"preset": "partnership", "target": 100}),
            4,
        )
        .await;
    let browser = app.browser("coord").await;
    let (t1, t2, t3, t4) = (0, 1, 2, 3);
    // Six results and one match in play.
    let plan: [(usize, usize, &str, Vec<Value>); 7] = [
        (t1, t2, "Table 1", vec![a_hand(), a_hand()]),
        (t3, t1, "Table 2", vec![a_hand(), a_hand()]),
        (t1, t4, "Table 3", vec![a_hand(), a_hand()]),
        (t2, t3, "Table 4", vec![a_hand(), a_hand()]),
        (t4, t2, "Table 5", vec![a_big(), a_big()]),
        (t3, t4, "Table 6", vec![a_big(), a_big()]),
        (t1, t3, "Table 7", vec![a_hand()]),
    ];
    let mut lines = Vec::new();
    let mut m1 = Value::Null;
    for (a, b, table, hands) in plan {
        let m = admin.add_match(SLUG, teams[a], teams[b], table).await;
        let m = admin.play_hands(m["id"].as_i64().unwrap(), &hands).await;
        let winner = m["winner"]
            .as_str()
            .map_or('-', |w| w.chars().next().unwrap());
        lines.push(Line {
            id: m["id"].as_i64().unwrap(),
            table,
            a,
            b,
            score: (
                m["a"]["score"].as_i64().unwrap(),
                m["b"]["score"].as_i64().unwrap(),
            ),
            winner,
            hands: hands.len() as i64,
        });
        if m1.is_null() {
            m1 = m;
        }
    }
    // The hands scored as planned.
    let scores: Vec<((i64, i64), char)> = lines.iter().map(|l| (l.score, l.winner)).collect();
    assert_eq!(
        scores,
        [
            ((142, 82), 'a'),
            ((142, 82), 'a'),
            ((142, 82), 'a'),
            ((142, 82), 'a'),
            ((166, 40), 'a'),
            ((166, 40), 'a'),
            ((71, 41), '-'),
        ]
    );
    let w = World {
        app,
        admin,
        browser,
        teams,
    };

    // Team 1 and Team 3 are 2–1, Team 3 beat Team 1: Team 3 first. Team 4 and Team 2 are
    // 1–2, Team 4 beat Team 2: Team 4 third.
    let before = Expected {
        standings: vec![
            row(t3, 2, 1, 390, 264, "0.667"),
            row(t1, 2, 1, 366, 306, "0.667"),
            row(t4, 1, 2, 288, 348, "0.333"),
            row(t2, 1, 2, 264, 390, "0.333"),
        ],
        lines: lines.clone(),
        revision: 1,
        reason: Value::Null,
    };
    // Every read shows it; the anonymous ones are then warmed once more right before the
    // correction (a copy serves 5 s at most: they must be there to be wrongly served).
    check_all(&w, &before, Phase::Warm, "before any correction").await;
    for read in READS {
        let path = read.path(&w, &before);
        let (_, cache, _) = anonymous_get(&w.app, &path).await;
        assert_eq!(cache, "hit", "{path} is warm");
    }

    // (a) Hand 2 of Team 1 v Team 2 corrected: Team 2 wins 115–11.
    let r = w
        .admin
        .correct_hand(&m1, 2, &b_big(), "seat 1 took 1, not 5", false)
        .await;
    let flipped = json_with_status(r, 200, "the flipping correction").await;
    assert_eq!(
        (
            &flipped["status"],
            &flipped["winner"],
            &flipped["a"]["score"],
            &flipped["b"]["score"]
        ),
        (&json!("complete"), &json!("b"), &json!(11), &json!(115))
    );
    let mut lines_flipped = lines.clone();
    lines_flipped[0].score = (11, 115);
    lines_flipped[0].winner = 'b';
    // Team 2 and Team 3 are 2–1 (Team 2 beat Team 3, though Team 3's differential is
    // better); Team 1 and Team 4 are 1–2 (Team 1 beat Team 4, though Team 4's differential
    // is better): head-to-head decides both pairs.
    let after_flip = Expected {
        standings: vec![
            row(t2, 2, 1, 297, 259, "0.667"),
            row(t3, 2, 1, 390, 264, "0.667"),
            row(t1, 1, 2, 235, 339, "0.333"),
            row(t4, 1, 2, 288, 348, "0.333"),
        ],
        lines: lines_flipped,
        revision: 2,
        reason: json!("seat 1 took 1, not 5"),
    };
    check_all(
        &w,
        &after_flip,
        Phase::AfterChange,
        "after the flipping correction",
    )
    .await;

    // (b) Corrected again: nobody reaches 100 (31–88), the match is in play again.
    for read in READS {
        let path = read.path(&w, &after_flip);
        let (_, cache, _) = anonymous_get(&w.app, &path).await;
        assert_eq!(cache, "hit", "{path} is warm");
    }
    let r = w
        .admin
        .correct_hand(&flipped, 2, &undecided(), "bids were 2 and 2", false)
        .await;
    let undone = json_with_status(r, 200, "the un-finishing correction").await;
    assert_eq!(
        (
            &undone["status"],
            &undone["winner"],
            &undone["a"]["score"],
            &undone["b"]["score"]
        ),
        (&json!("in_progress"), &Value::Null, &json!(31), &json!(88))
    );
    let mut lines_undone = lines.clone();
    lines_undone[0].score = (31, 88);
    lines_undone[0].winner = '-';
    // The match no longer counts: Team 1 and Team 2 are 1–1 and have no finished game
    // between them, so head-to-head is level and the differential decides.
    let after_undo = Expected {
        standings: vec![
            row(t3, 2, 1, 390, 264, "0.667"),
            row(t1, 1, 1, 224, 224, "0.500"),
            row(t2, 1, 1, 182, 248, "0.500"),
            row(t4, 1, 2, 288, 348, "0.333"),
        ],
        lines: lines_undone,
        revision: 3,
        reason: json!("bids were 2 and 2"),
    };
    check_all(
        &w,
        &after_undo,
        Phase::AfterChange,
        "after the un-finishing correction",
    )
    .await;
}
