//! Upgrades: a database written by an earlier release still reads the same.
//!
//! `tests/fixtures/v0.1.sqlite3` was written by release v0.1 (commit f573fdf, with
//! `tests/fixtures/make_v0_1.sh`): three leagues with hands, corrections, forfeits, a time
//! call, matches in progress, a single- and a double-elimination bracket with a reset. The
//! test starts the current code on a copy of it (the migrations run on the copy), asks every
//! public read of the JSON API and every CSV export — the URLs are found through the API
//! itself: the leagues, then each league's matches — and compares each answer (status, content
//! type, body) with the snapshot that v0.1 gave, in `tests/fixtures/v0.1/` (`index.tsv` lists
//! every URL with its status and file). The first difference is printed as a diff.
//!
//! `SPADES_UPDATE_SNAPSHOTS=1 cargo test --test api upgrade` rewrites the snapshots from the
//! code under test instead; that is how they were made, from v0.1 itself. Without it, any
//! difference fails, and so does a snapshot file missing or a snapshot whose URL is no longer
//! asked (a league, a match or a route that disappeared).
//!
//! Stored JSON keeps loading: every match is opened through `GET /api/v1/matches/{id}`, which
//! deserialises its frozen rules (`matches.rules`) and every stored hand (`hands.hand`) and
//! replays them through the engine; a match whose stored JSON no longer parses answers 500
//! instead of its snapshot, so the snapshot comparison checks that too (and the update mode
//! refuses to record anything but the expected statuses).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::helpers::{TestApp, manual_clock, spawn_app_on_copy, spawn_app_on_copy_with_clock};

/// The database written by v0.1.
pub(crate) const FIXTURE: &str = "tests/fixtures/v0.1.sqlite3";
/// v0.1's answers on it.
const SNAPSHOTS: &str = "tests/fixtures/v0.1";
/// The list of URLs, with status, content type and snapshot file, inside [`SNAPSHOTS`].
const INDEX: &str = "index.tsv";
/// Set to `1` to rewrite the snapshots instead of comparing.
const UPDATE: &str = "SPADES_UPDATE_SNAPSHOTS";

/// Fields whose value depends on the wall clock *at read time*, replaced by [`CLOCK`] before
/// comparing and writing. There are none in v0.1's API answers, and the list is empty on
/// purpose: every time the API shows is a stored one, frozen in the fixture —
/// `started_at`, `time_called_at`, `recorded_at`, `scheduled_at` are stored strings, and
/// `ends_at` is computed from the stored `started_at` plus the frozen rules' time limit, not
/// from "now"; nothing answers a remaining time (the console page computes one, but it is an
/// HTML page for a logged-in supervisor, not read here); the scoreboard lists the matches by
/// their stored status, not by their clock; the CSVs hold no times. Answers do not depend on
/// the time zone either (the dates the demo put in were computed when the fixture was made).
/// The test was run repeatedly, at different times and under another `TZ`, with identical
/// answers. If a later release adds such a field (say a `remaining_seconds`), name it here.
const READ_CLOCK_FIELDS: &[&str] = &[];
const CLOCK: &str = "<normalised: depends on the clock at read time>";

/// Fields a later release added to the league objects (those with a `slug`), left out before
/// comparing since v0.1 could not answer them. Each is checked on its own below: a league
/// from v0.1 gets its default value.
/// - `settings` (migration 0008, season settings): every default.
/// - `archived` (migration 0024, past seasons): false, a v0.1 league is current.
/// - `champion`: the champion its bracket names, `null` without a bracket or before its final.
const ADDED_LEAGUE_FIELDS: &[&str] = &["settings", "archived", "champion"];

/// Fields a later release added to the match objects (those with a `game_status`), left out
/// before comparing, and checked on their own below:
/// - `checked_in` (migration 0010, check-in at the table): `{"a": null, "b": null}`.
/// - `lineup` (migration 0020, lineups at the table): `{"a": null, "b": null}`.
/// - `label` (bracket labels): "M5 · Winners semi-final" for a bracket match, `null` for a
///   regular-season one (checked below).
/// - `supervisor` (migration 0031, a match given to a supervisor): `null`.
const ADDED_MATCH_FIELDS: &[&str] = &["checked_in", "lineup", "label", "supervisor"];

/// The bracket labels, added to the bracket's matches (those with `next_slot`) and to the
/// scoreboard's (those with `league_name`): checked below.
const ADDED_LABEL_FIELDS: &[&str] = &["label"];

/// CSV columns added since v0.1 (at the end of a row), left out of the comparison: the
/// bracket CSV's `match` (M1, M2 … as printed); the scoresheet CSV's `a_player1` …
/// `b_player2` (lineups, migration 0020: who sat at each seat, empty for a v0.1 match, checked
/// below).
/// The standings CSV's `division` and `division_rank` (migration 0023, divisions): empty for
/// a v0.1 league, which has none.
const ADDED_CSV_COLUMNS: &[&str] = &[
    "match",
    "a_player1",
    "a_player2",
    "b_player1",
    "b_player2",
    "division",
    "division_rank",
    "label",
];
/// Fields added to the team objects (those with `players` and `withdrawn`) and to the
/// standings rows (those with `win_pct`) by migration 0023 (divisions): `null` for a v0.1
/// league, checked below.
const ADDED_TEAM_FIELDS: &[&str] = &["division"];
const ADDED_STANDING_FIELDS: &[&str] = &["division", "division_rank"];
/// Fields a paged list gained since v0.1 (`GET /api/v1/leagues/{slug}/matches`: `next`, the
/// `after` of its next page; every v0.1 league fits one page).
const ADDED_PAGE_FIELDS: &[&str] = &["next"];

/// A v0.1 match had no lineups: the scoresheet CSV's seat columns are empty on every row.
fn assert_no_lineup_names(text: &str, path: &str) {
    let rows = crate::helpers::csv_rows(text);
    let Some(header) = rows.first() else {
        return;
    };
    for (i, column) in header.iter().enumerate() {
        if column.ends_with("_player1") || column.ends_with("_player2") {
            for row in &rows[1..] {
                assert_eq!(row.get(i).map(String::as_str), Some(""), "{path}: {column}");
            }
        }
    }
}

/// `text` without the [`ADDED_CSV_COLUMNS`], written as the service writes CSV (CRLF).
fn without_added_columns(text: &str) -> String {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes());
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("CSV")).collect();
    let Some(header) = rows.first() else {
        return text.to_string();
    };
    let keep: Vec<usize> = (0..header.len())
        .filter(|&i| !ADDED_CSV_COLUMNS.contains(&&header[i]))
        .collect();
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    for row in &rows {
        writer
            .write_record(keep.iter().map(|&i| &row[i]))
            .expect("CSV");
    }
    String::from_utf8(writer.into_inner().expect("CSV")).expect("UTF-8")
}

pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A URL to ask and what answers are acceptable when recording it.
struct Probe {
    path: String,
    /// Whether a 404 is the expected answer (a bracket of a league without one, a missing
    /// league or match on purpose); otherwise only a 200 is recorded.
    may_be_missing: bool,
}

fn probe(path: impl Into<String>) -> Probe {
    Probe {
        path: path.into(),
        may_be_missing: false,
    }
}

fn probe_404(path: impl Into<String>) -> Probe {
    Probe {
        path: path.into(),
        may_be_missing: true,
    }
}

/// One answer, as compared.
struct Answer {
    path: String,
    status: u16,
    content_type: String,
    disposition: String,
    body: Body,
}

enum Body {
    Json(Value),
    Csv(String),
    /// An HTML error page (e.g. the bracket CSV of a league without a bracket): only its
    /// status and type are compared.
    Other,
}

impl Answer {
    /// The snapshot file, relative to [`SNAPSHOTS`]: the URL's path, `.json` added for JSON.
    fn file(&self) -> Option<String> {
        let path = self.path.trim_start_matches('/');
        match self.body {
            Body::Json(_) if path.ends_with(".json") => Some(path.to_string()),
            Body::Json(_) => Some(format!("{path}.json")),
            Body::Csv(_) => Some(path.to_string()),
            Body::Other => None,
        }
    }

    fn index_line(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}\t{}",
            self.path,
            self.status,
            self.content_type,
            self.disposition,
            self.file().unwrap_or_else(|| "-".into())
        )
    }

    /// The snapshot's text: JSON pretty-printed with sorted keys, CSV as answered.
    fn text(&self) -> Option<String> {
        match &self.body {
            Body::Json(v) => Some(pretty(v)),
            Body::Csv(t) => Some(t.clone()),
            Body::Other => None,
        }
    }
}

fn header(response: &reqwest::Response, name: &str) -> String {
    response
        .headers()
        .get(name)
        .map(|v| v.to_str().expect("a header in ASCII").to_string())
        .unwrap_or_else(|| "-".into())
}

async fn ask(app: &TestApp, path: &str) -> Answer {
    let response = app.get(path).await;
    let status = response.status().as_u16();
    let content_type = header(&response, "content-type");
    let disposition = header(&response, "content-disposition");
    let bytes = response.bytes().await.expect("a body");
    let body = if content_type.starts_with("application/json") {
        let mut v: Value =
            serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("GET {path}: not JSON ({e})"));
        normalise(&mut v);
        Body::Json(v)
    } else if content_type.starts_with("text/csv") {
        // Every CSV opens with a byte order mark (docs/api.md §10.1), which the v0.1 files,
        // recorded before it, do not have: checked here, then the rest compared.
        let text = String::from_utf8(bytes.to_vec()).expect("CSV in UTF-8");
        let rest = text
            .strip_prefix('\u{feff}')
            .unwrap_or_else(|| panic!("GET {path}: the CSV opens with no byte order mark"));
        Body::Csv(rest.to_string())
    } else {
        Body::Other
    };
    Answer {
        path: path.to_string(),
        status,
        content_type,
        disposition,
        body,
    }
}

async fn json(app: &TestApp, path: &str) -> Value {
    let response = app.get(path).await;
    assert_eq!(response.status(), 200, "GET {path}");
    response.json().await.expect("JSON")
}

/// Replaces the [`READ_CLOCK_FIELDS`] anywhere in `v` by [`CLOCK`].
fn normalise(v: &mut Value) {
    match v {
        Value::Object(map) => {
            if map.contains_key("slug") {
                map.retain(|key, _| !ADDED_LEAGUE_FIELDS.contains(&key.as_str()));
            }
            if map.contains_key("game_status") {
                map.retain(|key, _| !ADDED_MATCH_FIELDS.contains(&key.as_str()));
            }
            if map.contains_key("players") && map.contains_key("withdrawn") {
                map.retain(|key, _| !ADDED_TEAM_FIELDS.contains(&key.as_str()));
            }
            if map.contains_key("next_slot") || map.contains_key("league_name") {
                map.retain(|key, _| !ADDED_LABEL_FIELDS.contains(&key.as_str()));
            }
            if map.contains_key("win_pct") {
                map.retain(|key, _| !ADDED_STANDING_FIELDS.contains(&key.as_str()));
            }
            if map.contains_key("matches") && map.get("next").is_some_and(Value::is_null) {
                map.retain(|key, _| !ADDED_PAGE_FIELDS.contains(&key.as_str()));
            }
            for (key, value) in map.iter_mut() {
                if READ_CLOCK_FIELDS.contains(&key.as_str()) && !value.is_null() {
                    *value = Value::String(CLOCK.into());
                } else {
                    normalise(value);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalise),
        _ => {}
    }
}

/// Pretty JSON with the keys of every object sorted, and a final newline: stable whatever the
/// order the fields are serialised in (that order is not part of the API).
fn pretty(v: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                let mut out = Map::new();
                for k in keys {
                    out.insert(k.clone(), sorted(&map[k]));
                }
                Value::Object(out)
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    let mut text = serde_json::to_string_pretty(&sorted(v)).expect("JSON");
    text.push('\n');
    text
}

/// Every URL to ask: the fixed reads, then per league (from `GET /api/v1/leagues`) its reads
/// and exports, then per match (from each league's `GET …/matches`) the match and its
/// scoresheet. Also asserts what the fixture is known to hold, so that a broken listing fails
/// with a plain message rather than only with missing snapshots.
async fn probes(app: &TestApp) -> Vec<Probe> {
    let mut out = vec![
        probe("/api/v1/leagues"),
        probe("/api/v1/presets"),
        probe("/api/v1/openapi.json"),
        probe("/api/v1/scoreboard"),
        // The error shape of the reads.
        probe_404("/api/v1/leagues/no-such-league"),
        probe_404("/api/v1/matches/999999"),
    ];
    let leagues = json(app, "/api/v1/leagues").await;
    let slugs: Vec<String> = leagues["leagues"]
        .as_array()
        .expect("leagues")
        .iter()
        .map(|l| l["slug"].as_str().expect("slug").to_string())
        .collect();
    assert_eq!(
        slugs.iter().cloned().collect::<BTreeSet<_>>(),
        BTreeSet::from(["demo-fall".into(), "gen".into(), "spring".into()]),
        "the fixture's leagues"
    );
    let mut counts = Vec::new();
    let (mut hands, mut corrected) = (0, 0);
    let mut statuses = std::collections::BTreeMap::<String, usize>::new();
    for slug in &slugs {
        for tail in ["", "/teams", "/matches", "/standings"] {
            out.push(probe(format!("/api/v1/leagues/{slug}{tail}")));
        }
        out.push(probe_404(format!("/api/v1/leagues/{slug}/bracket")));
        out.push(probe(format!("/leagues/{slug}/standings.csv")));
        out.push(probe(format!("/leagues/{slug}/schedule.csv")));
        out.push(probe_404(format!("/leagues/{slug}/bracket.csv")));
        let matches = json(app, &format!("/api/v1/leagues/{slug}/matches")).await;
        let matches = matches["matches"].as_array().expect("matches");
        counts.push((slug.clone(), matches.len()));
        for m in matches {
            let id = m["id"].as_i64().expect("match id");
            out.push(probe(format!("/api/v1/matches/{id}")));
            out.push(probe(format!("/matches/{id}/scoresheet.csv")));
            let list = m["hands"].as_array().expect("hands");
            hands += list.len();
            corrected += list.iter().filter(|h| h["revision"] != 1).count();
            *statuses
                .entry(m["status"].as_str().expect("status").into())
                .or_default() += 1;
        }
    }
    counts.sort();
    assert_eq!(
        counts,
        [
            ("demo-fall".to_string(), 32),
            ("gen".to_string(), 45),
            ("spring".to_string(), 7)
        ],
        "matches per league (regular season and playoffs)"
    );
    assert_eq!(hands, 595, "hands in the fixture (current revisions)");
    assert_eq!(corrected, 3, "corrected hands");
    assert_eq!(
        statuses,
        [
            ("cancelled", 1),
            ("complete", 43),
            ("forfeit", 7),
            ("in_progress", 4),
            ("scheduled", 29)
        ]
        .into_iter()
        .map(|(s, n)| (s.to_string(), n))
        .collect(),
        "matches by status"
    );
    out
}

/// What is wrong with one answer, and a readable diff of it.
struct Mismatch {
    what: String,
    diff: String,
}

/// The first place `actual` differs from `expected`, as a JSON path and both values.
fn first_json_difference(expected: &Value, actual: &Value, at: &str) -> Option<String> {
    let short = |v: &Value| {
        let s = v.to_string();
        if s.chars().count() > 200 {
            format!("{}…", s.chars().take(200).collect::<String>())
        } else {
            s
        }
    };
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                match a.get(k) {
                    None => return Some(format!("{at}.{k}: missing (was {})", short(ev))),
                    Some(av) => {
                        if let Some(d) = first_json_difference(ev, av, &format!("{at}.{k}")) {
                            return Some(d);
                        }
                    }
                }
            }
            a.iter()
                .find(|(k, _)| !e.contains_key(*k))
                .map(|(k, v)| format!("{at}.{k}: new field, {}", short(v)))
        }
        (Value::Array(e), Value::Array(a)) => {
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                if let Some(d) = first_json_difference(ev, av, &format!("{at}[{i}]")) {
                    return Some(d);
                }
            }
            (e.len() != a.len()).then(|| format!("{at}: {} items, was {}", a.len(), e.len()))
        }
        (e, a) if e != a => Some(format!("{at}: {} (was {})", short(a), short(e))),
        _ => None,
    }
}

/// The first differing stretch of lines, with three lines of context: `-` the snapshot,
/// `+` the answer now.
fn line_diff(expected: &str, actual: &str) -> String {
    let e: Vec<&str> = expected.lines().collect();
    let a: Vec<&str> = actual.lines().collect();
    let prefix = e.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let suffix = e[prefix..]
        .iter()
        .rev()
        .zip(a[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let mut out = format!("@@ line {} @@\n", prefix + 1);
    for line in &e[prefix.saturating_sub(3)..prefix] {
        out.push_str(&format!("  {line}\n"));
    }
    const MAX: usize = 30;
    let removed = &e[prefix..e.len() - suffix];
    let added = &a[prefix..a.len() - suffix];
    for line in removed.iter().take(MAX) {
        out.push_str(&format!("- {line}\n"));
    }
    if removed.len() > MAX {
        out.push_str(&format!("- … {} more lines\n", removed.len() - MAX));
    }
    for line in added.iter().take(MAX) {
        out.push_str(&format!("+ {line}\n"));
    }
    if added.len() > MAX {
        out.push_str(&format!("+ … {} more lines\n", added.len() - MAX));
    }
    for line in e[e.len() - suffix..].iter().take(3) {
        out.push_str(&format!("  {line}\n"));
    }
    if expected.ends_with("\r\n") != actual.ends_with("\r\n")
        || expected.contains('\r') != actual.contains('\r')
    {
        out.push_str("(line endings differ)\n");
    }
    out
}

fn compare(answer: &Answer, dir: &Path) -> Option<Mismatch> {
    let file = answer.file()?;
    let snapshot = dir.join(&file);
    let Ok(expected) = std::fs::read_to_string(&snapshot) else {
        return Some(Mismatch {
            what: format!(
                "GET {}: no snapshot {} (run with {UPDATE}=1 to record it)",
                answer.path,
                snapshot.display()
            ),
            diff: String::new(),
        });
    };
    let actual = answer.text()?;
    match &answer.body {
        Body::Json(now) => {
            let was: Value = serde_json::from_str(&expected)
                .unwrap_or_else(|e| panic!("{}: not JSON ({e})", snapshot.display()));
            let mut was = was;
            normalise(&mut was);
            (was != *now).then(|| Mismatch {
                what: format!(
                    "GET {} differs from {file}: at {}",
                    answer.path,
                    first_json_difference(&was, now, "$").unwrap_or_default()
                ),
                diff: line_diff(&pretty(&was), &actual),
            })
        }
        Body::Csv(_) => {
            assert_no_lineup_names(&actual, &answer.path);
            let actual = without_added_columns(&actual);
            (expected != actual).then(|| Mismatch {
                what: format!("GET {} differs from {file}", answer.path),
                diff: line_diff(&expected, &actual),
            })
        }
        _ => (expected != actual).then(|| Mismatch {
            what: format!("GET {} differs from {file}", answer.path),
            diff: line_diff(&expected, &actual),
        }),
    }
}

/// Every file under `dir`, relative to it, with `/` separators.
fn files_under(dir: &Path) -> BTreeSet<String> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeSet<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let rel = path.strip_prefix(base).expect("under the base");
                let parts: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.insert(parts.join("/"));
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(dir, dir, &mut out);
    out
}

fn write_snapshots(dir: &Path, answers: &[Answer]) {
    if dir.exists() {
        std::fs::remove_dir_all(dir).expect("remove the old snapshots");
    }
    let mut index = String::from("# path\tstatus\tcontent-type\tcontent-disposition\tsnapshot\n");
    for answer in answers {
        index.push_str(&answer.index_line());
        index.push('\n');
        if let (Some(file), Some(text)) = (answer.file(), answer.text()) {
            let path = dir.join(file);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(&path, text).expect("write a snapshot");
        }
    }
    std::fs::create_dir_all(dir).expect("mkdir");
    std::fs::write(dir.join(INDEX), index).expect("write the index");
}

#[actix_web::test]
async fn the_v0_1_database_reads_the_same() {
    let app = spawn_app_on_copy(&root().join(FIXTURE)).await;
    let probes = probes(&app).await;
    let mut answers = Vec::with_capacity(probes.len());
    for p in &probes {
        let answer = ask(&app, &p.path).await;
        let acceptable = answer.status == 200 || (p.may_be_missing && answer.status == 404);
        assert!(acceptable, "GET {} answered {}", p.path, answer.status);
        answers.push(answer);
    }
    // The two leagues with playoffs have their bracket, of the format they were made with.
    for (slug, format) in [
        ("demo-fall", "single_elimination"),
        ("gen", "double_elimination"),
    ] {
        let bracket = json(&app, &format!("/api/v1/leagues/{slug}/bracket")).await;
        assert_eq!(bracket["format"], format, "{slug}'s bracket");
    }
    let board = json(&app, "/api/v1/scoreboard").await;
    assert_eq!(
        board["matches"].as_array().map(Vec::len),
        Some(4),
        "matches in play on the scoreboard"
    );
    // The fields added since (ADDED_LEAGUE_FIELDS) have their defaults.
    let leagues = json(&app, "/api/v1/leagues").await;
    for league in leagues["leagues"].as_array().unwrap() {
        assert_eq!(
            league["settings"],
            serde_json::to_value(spades_im::league::settings::Settings::default()).unwrap(),
            "{}: default settings",
            league["slug"]
        );
        let slug = league["slug"].as_str().unwrap();
        assert_eq!(league["archived"], false, "{slug}: current");
        let teams = json(&app, &format!("/api/v1/leagues/{slug}/teams")).await;
        for team in teams["teams"].as_array().unwrap() {
            assert_eq!(
                team["division"],
                Value::Null,
                "{slug}: a team in no division"
            );
        }
        let bracket = app.get(&format!("/api/v1/leagues/{slug}/bracket")).await;
        let bracket = if bracket.status() == 200 {
            bracket.json::<Value>().await.unwrap()
        } else {
            Value::Null
        };
        let champion = bracket["champion"].clone();
        // ADDED_LABEL_FIELDS: each bracket match is labelled "M{n} · {round}", and its real
        // match carries the same label; a regular-season match none.
        let mut labels = std::collections::HashMap::new();
        for (n, bm) in bracket["matches"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let label = bm["label"].as_str().expect("a bracket match's label");
            assert!(
                label.starts_with(&format!("M{} · ", n + 1)),
                "{slug}: {label}"
            );
            if let Some(id) = bm["match_id"].as_i64() {
                labels.insert(id, label.to_string());
            }
        }
        assert_eq!(
            league["champion"], champion,
            "{slug}: the bracket's champion"
        );
        let standings = json(&app, &format!("/api/v1/leagues/{slug}/standings")).await;
        for row in standings["rows"].as_array().unwrap() {
            assert_eq!(row["division"], Value::Null, "{slug}: {row}");
            assert_eq!(row["division_rank"], Value::Null, "{slug}: {row}");
        }
        let matches = json(&app, &format!("/api/v1/leagues/{slug}/matches")).await;
        for m in matches["matches"].as_array().unwrap() {
            assert_eq!(
                m["checked_in"],
                serde_json::json!({"a": null, "b": null}),
                "match {}: nobody checked in",
                m["id"]
            );
            assert_eq!(
                m["lineup"],
                serde_json::json!({"a": null, "b": null}),
                "match {}: no lineup set",
                m["id"]
            );
            assert!(
                m.get("sportsmanship").is_none(),
                "match {}: not rated",
                m["id"]
            );
            assert_eq!(m["supervisor"], Value::Null, "match {}: nobody's", m["id"]);
            let id = m["id"].as_i64().unwrap();
            match labels.get(&id) {
                Some(label) => assert_eq!(m["label"], label.as_str(), "match {id}"),
                None if m["stage"] == "regular" => {
                    assert_eq!(m["label"], Value::Null, "match {id}")
                }
                // A cancelled match of a reset bracket path: replaced, no longer in it.
                None => {}
            }
        }
    }

    let dir = root().join(SNAPSHOTS);
    if std::env::var(UPDATE).is_ok_and(|v| v == "1") {
        write_snapshots(&dir, &answers);
        eprintln!(
            "{UPDATE}=1: wrote {} answers to {}",
            answers.len(),
            dir.display()
        );
        return;
    }

    let mut problems: Vec<Mismatch> = Vec::new();
    // The URL list (with statuses and types) against the recorded one: a URL that disappeared
    // or answers differently shows here first.
    let index = std::fs::read_to_string(dir.join(INDEX))
        .unwrap_or_else(|e| panic!("{}: {e} (run with {UPDATE}=1)", dir.join(INDEX).display()));
    let recorded: Vec<&str> = index.lines().filter(|l| !l.starts_with('#')).collect();
    let now: Vec<String> = answers.iter().map(Answer::index_line).collect();
    if recorded != now {
        problems.push(Mismatch {
            what: format!(
                "the URLs asked, their statuses or types differ from {SNAPSHOTS}/{INDEX}"
            ),
            diff: line_diff(&recorded.join("\n"), &now.join("\n")),
        });
    }
    // Every snapshot file is some URL's answer.
    let expected_files: BTreeSet<String> = answers.iter().filter_map(Answer::file).collect();
    for file in files_under(&dir) {
        if file != INDEX && !expected_files.contains(&file) {
            problems.push(Mismatch {
                what: format!("{SNAPSHOTS}/{file}: no URL asked answers it any more"),
                diff: String::new(),
            });
        }
    }
    problems.extend(answers.iter().filter_map(|a| compare(a, &dir)));

    if !problems.is_empty() {
        // Every problem in one line, then the diffs of the first few that have one.
        let mut message = format!(
            "{} differences from v0.1's answers ({} URLs asked):\n",
            problems.len(),
            answers.len()
        );
        for p in problems.iter().take(40) {
            message.push_str(&format!("  {}\n", p.what));
        }
        if problems.len() > 40 {
            message.push_str(&format!("  … and {} more\n", problems.len() - 40));
        }
        for p in problems.iter().filter(|p| !p.diff.is_empty()).take(3) {
            message.push_str(&format!("\n{}\n{}", p.what, p.diff));
        }
        panic!("{message}");
    }
}

/// v0.1 kept the whole answer with each idempotency key; migration 0016 keeps what rebuilding
/// it needs. The fixture's one key (a hand of match 80, sent without a copy of the hand, as
/// v0.1 did not keep one) still answers a resend with its first answer, rebuilt: the answer
/// v0.1 stored, plus what later releases added to every match. The clock stands an hour
/// after the key's first use, inside the week a key is kept.
#[actix_web::test]
async fn a_v0_1_idempotency_key_still_answers_its_first_answer() {
    use sqlx::ConnectOptions;
    let fixture = root().join(FIXTURE);
    let mut conn = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(&fixture)
        .read_only(true)
        .connect()
        .await
        .expect("open the fixture");
    let (id, key, created, stored): (i64, String, String, String) =
        sqlx::query_as("SELECT match_id, key, created_at, response FROM idempotency_keys")
            .fetch_one(&mut conn)
            .await
            .expect("the fixture's key");
    drop(conn);
    let created = chrono::DateTime::parse_from_rfc3339(&created).expect("created_at");
    let (clock, _) = manual_clock(
        &(created + chrono::Duration::hours(1)).to_rfc3339(),
        chrono_tz::Tz::UTC,
    );
    let app = spawn_app_on_copy_with_clock(&fixture, clock).await;
    let admin = app
        .api_user("upgrade-admin", spades_im::service::Role::Admin)
        .await;
    let before = app.tables().await;
    let r = admin
        .post(
            &format!("/api/v1/matches/{id}/hands"),
            &serde_json::json!({"hand": {"a": {"bids": [3, 3], "tricks": [3, 3]},
                                         "b": {"bids": [3, 4], "tricks": [3, 4]}},
                                "expected_version": 1, "idempotency_key": key}),
        )
        .await;
    assert_eq!(r.status(), 201, "a resend of the v0.1 key");
    assert!(r.headers().get("idempotent-replay").is_some());
    let mut again: Value = r.json().await.expect("JSON");
    app.assert_nothing_written(&before, "a resend of the v0.1 key")
        .await;
    let Value::Object(fields) = &mut again else {
        panic!("a match: {again}");
    };
    for added in ADDED_MATCH_FIELDS {
        assert!(fields.remove(*added).is_some(), "{added} in {again}");
    }
    let stored: Value = serde_json::from_str(&stored).expect("the stored answer");
    assert_eq!(
        again,
        stored,
        "at {}",
        first_json_difference(&stored, &again, "$").unwrap_or_default()
    );
}
