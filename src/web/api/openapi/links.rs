//! OpenAPI links: which field of an answer fills which parameter of the next operations (a
//! created league's slug, a team's, a player's or a match's id), so a generated client, and
//! schemathesis's stateful phase, can follow a league night from one answer to the next as
//! the console does: create a league, add its teams, schedule a match, start it, record hands.

use serde_json::{Map, Value, json};

/// An answer whose field fills a parameter of other operations.
struct Link {
    /// The operation (its path and method) and the status of the answer.
    path: &'static str,
    method: &'static str,
    status: &'static str,
    /// The answer's field, as a JSON pointer into its body, and the parameter it fills.
    field: &'static str,
    parameter: &'static str,
    /// The operations it leads to, by `operationId`.
    to: &'static [&'static str],
}

/// What a league's slug leads to (not its archiving: an archived league refuses the rest).
const LEAGUE_OPERATIONS: &[&str] = &[
    "show_league",
    "change_league",
    "add_team",
    "list_teams",
    "add_division",
    "list_divisions",
    "add_supervisor",
    "create_match",
    "list_matches",
    "schedule",
    "standings",
    "eligibility",
    "create_playoffs",
    "export_league",
];

/// What a match's id leads to, before it starts and during it.
const MATCH_OPERATIONS: &[&str] = &[
    "show_match",
    "change_match",
    "check_in",
    "set_lineup",
    "start_match",
    "record_hand",
    "call_time",
    "forfeit",
    "rate",
    "postpone",
];

const LINKS: &[Link] = &[
    league("/api/v1/leagues"),
    league("/api/v1/leagues/{slug}/clone"),
    league("/api/v1/leagues/import"),
    Link {
        path: "/api/v1/leagues/{slug}/teams",
        method: "post",
        status: "201",
        field: "/id",
        parameter: "id",
        to: &["change_team", "add_player", "roster", "team_stats"],
    },
    Link {
        path: "/api/v1/teams/{id}/players",
        method: "post",
        status: "201",
        field: "/id",
        parameter: "id",
        to: &["change_player", "override_player_eligibility"],
    },
    Link {
        path: "/api/v1/leagues/{slug}/matches",
        method: "post",
        status: "201",
        field: "/id",
        parameter: "id",
        to: MATCH_OPERATIONS,
    },
    Link {
        path: "/api/v1/matches/{id}/start",
        method: "post",
        status: "200",
        field: "/id",
        parameter: "id",
        to: &[
            "record_hand",
            "call_time",
            "forfeit",
            "set_lineup",
            "show_match",
        ],
    },
];

/// A new league's answer: its slug leads to the league's operations.
const fn league(path: &'static str) -> Link {
    Link {
        path,
        method: "post",
        status: "201",
        field: "/slug",
        parameter: "slug",
        to: LEAGUE_OPERATIONS,
    }
}

/// Writes [`LINKS`] into the answers of `paths`. Returns what could not be written (an
/// answer or an operation not in the document): nothing, as a test holds.
pub(super) fn apply(paths: &mut Value) -> Vec<String> {
    let operations = operation_ids(paths);
    let mut missing = Vec::new();
    for link in LINKS {
        let answer = &mut paths[link.path][link.method]["responses"][link.status];
        let Some(answer) = answer.as_object_mut() else {
            missing.push(format!("{} {} {}", link.method, link.path, link.status));
            continue;
        };
        let links = answer.entry("links").or_insert_with(|| json!({}));
        for &to in link.to {
            if !operations.iter().any(|id| id == to) {
                missing.push(format!("operation {to}"));
                continue;
            }
            let parameters = json!({ link.parameter: format!("$response.body#{}", link.field) });
            links[to] = json!({"operationId": to, "parameters": parameters});
        }
    }
    missing
}

/// Every `operationId` of `paths`.
fn operation_ids(paths: &Value) -> Vec<String> {
    let empty = Map::new();
    let paths = paths.as_object().unwrap_or(&empty);
    paths
        .values()
        .filter_map(Value::as_object)
        .flat_map(|methods| methods.values())
        .filter_map(|op| op["operationId"].as_str().map(str::to_string))
        .collect()
}
