//! The JSON API (`/api/v1`): docs/api.md.

use actix_web::{HttpResponse, get, post, web};
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::domain::TextEnum;
use crate::league::bracket;
use crate::league::standings::Tiebreak;
use crate::rules::calculator::{ScoreRequest, ScoreResponse, ScoredHandOut, StartInput};
use crate::rules::hand::{BidInput, HandInput, RevokesInput, TeamHandInput};
use crate::rules::params::{self, Rules, RulesSpec};
use crate::rules::{TeamResult, TeamTotal, score_json};
use crate::service::TeamRef;
use crate::service::night::match_view::{HandView, MatchView};
use crate::service::night::matches::ForfeitInput;
use crate::service::term::leagues::{LeagueView, NewLeagueInput, RulesByStage, StageRules};
use crate::service::term::schedule::ScheduleFormat;
use crate::service::term::schedule::{NewMatchInput, ScheduleInput};
use crate::service::term::teams::{NewTeamInput, TeamView};
use crate::service::text::{self as service_text, Lines};
use crate::service::views::summaries::{Board, BoardMatch};
use crate::web::api::leagues::{LeagueList, SupervisorInput};
use crate::web::api::matches::{
    CorrectionRequest, HandRequest, MatchList, MatchListPage, VersionRequest,
};
use crate::web::api::responses::{BadReadCredentials, BodyRefused};
use crate::web::api::standings::{StandingOut, StandingsOut};
use crate::web::api::teams::TeamList;
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::ApiJson;

/// The calculator, the presets and this document (not cached: they change only with a
/// release).
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(score)
        .service(list_presets)
        .service(openapi_json);
}

/// Scores a game from its hands, statelessly.
#[utoipa::path(
    post,
    path = "/api/v1/score",
    request_body = ScoreRequest,
    responses(
        (status = 200, description = "every hand's breakdown and the game's state", body = ScoreResponse),
        (status = 401, description = "an `Authorization: Bearer` header that is malformed, or a token unknown or revoked (`unauthorized`); the calculator needs none", body = ErrorBody),
        (status = 403, description = "a cross-site request", body = ErrorBody),
        (status = 422, description = "invalid rules, start or hand; or a hand after the game is decided (`game_over`)", body = ErrorBody),
        BodyRefused,
    )
)]
#[post("/api/v1/score")]
async fn score(body: ApiJson<serde_json::Value>) -> Result<web::Json<ScoreResponse>, AppError> {
    let value = body.into_inner()?;
    Ok(web::Json(score_json(value)?))
}

/// A preset with every field resolved.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PresetOut {
    pub name: &'static str,
    pub title: &'static str,
    /// The number of the rule document it encodes (000–004; docs/scoring.md §1.3).
    pub source: &'static str,
    pub rules: Rules,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PresetList {
    pub presets: Vec<PresetOut>,
}

/// Lists every preset with its resolved fields.
#[utoipa::path(
    get,
    path = "/api/v1/presets",
    responses(
        (status = 200, body = PresetList),
        BadReadCredentials,
    )
)]
#[get("/api/v1/presets")]
async fn list_presets() -> web::Json<PresetList> {
    web::Json(PresetList {
        presets: params::presets()
            .into_iter()
            .map(|p| PresetOut {
                name: p.name,
                title: p.title,
                source: p.source,
                rules: p.rules,
            })
            .collect(),
    })
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "spades-im",
        version = "1",
        description = "Scoring, standings and playoffs for intramural Spades leagues."
    ),
    paths(
        score,
        list_presets,
        openapi_json,
        crate::web::api::leagues::create_league,
        crate::web::api::leagues::list_leagues,
        crate::web::api::leagues::show_league,
        crate::web::api::leagues::change_league,
        crate::web::api::leagues::add_supervisor,
        crate::web::api::leagues::archive_league,
        crate::web::api::leagues::unarchive_league,
        crate::web::api::leagues::clone_league,
        crate::web::api::leagues::delete_match,
        crate::web::api::league_doc::export_league,
        crate::web::api::league_doc::import_league,
        crate::web::api::teams::add_team,
        crate::web::api::teams::list_teams,
        crate::web::api::teams::change_team,
        crate::web::api::divisions::add_division,
        crate::web::api::divisions::list_divisions,
        crate::web::api::matches::schedule,
        crate::web::api::matches::create_match,
        crate::web::api::matches::list_matches,
        crate::web::api::matches::show_match,
        crate::web::api::matches::start_match,
        crate::web::api::matches::record_hand,
        crate::web::api::matches::correct_hand,
        crate::web::api::matches::call_time,
        crate::web::api::matches::forfeit,
        crate::web::api::reschedule::change_match,
        crate::web::api::reschedule::postpone,
        crate::web::api::reschedule::cancel,
        crate::web::api::reschedule::move_night,
        crate::web::api::reschedule::schedule_round,
        crate::web::api::standings::standings,
        crate::web::api::standings::eligibility,
        crate::web::api::conduct::check_in,
        crate::web::api::conduct::rate,
        crate::web::api::conduct::override_eligibility,
        crate::web::api::lineups::set_lineup,
        crate::web::api::playoffs::create_playoffs,
        crate::web::api::playoffs::show_bracket,
        crate::web::api::scoreboard::scoreboard_json,
        crate::web::api::users::list_users,
        crate::web::api::users::add_user,
        crate::web::api::users::change_user,
        crate::web::api::users::reset_password,
        crate::web::api::audit::audit_log,
        crate::web::api::notices::notices,
        crate::web::api::players::roster,
        crate::web::api::players::add_player,
        crate::web::api::players::change_player,
        crate::web::api::players::erase_player,
        crate::web::api::players::export_person,
        crate::web::api::player_stats::override_player_eligibility,
        crate::web::api::player_stats::team_stats,
    ),
    components(schemas(
        ScoreRequest,
        ScoreResponse,
        ScoredHandOut,
        StartInput,
        HandInput,
        TeamHandInput,
        RevokesInput,
        BidInput,
        RulesSpec,
        Rules,
        TeamResult,
        TeamTotal,
        ErrorBody,
        PresetOut,
        PresetList,
        StageRules,
        NewLeagueInput,
        RulesByStage,
        LeagueView,
        LeagueList,
        crate::web::api::leagues::LeagueChange,
        crate::web::api::leagues::EmptyBody,
        crate::service::term::seasons::CloneInput,
        crate::service::league_doc::ImportInput,
        crate::service::league_doc::Imported,
        crate::league::settings::Settings,
        crate::league::settings::ForfeitPolicy,
        crate::league::settings::Sportsmanship,
        crate::league::settings::Eligibility,
        NewTeamInput,
        TeamView,
        TeamList,
        crate::service::term::roster::edits::TeamChange,
        crate::service::term::divisions::NewDivisionInput,
        crate::service::term::divisions::DivisionView,
        crate::web::api::divisions::DivisionList,
        SupervisorInput,
        ScheduleInput,
        NewMatchInput,
        TeamRef,
        HandView,
        MatchView,
        crate::service::night::matches::HandAnswer,
        crate::service::night::matches::HandTotals,
        crate::service::night::matches::SideTotals,
        crate::service::term::admin_schedule::MatchSaved,
        crate::service::term::admin_schedule::ScheduleWarning,
        MatchList,
        MatchListPage,
        HandRequest,
        CorrectionRequest,
        VersionRequest,
        ForfeitInput,
        crate::service::term::reschedule::MatchChange,
        crate::service::term::reschedule::CallOff,
        crate::service::term::reschedule::NightMove,
        crate::service::term::reschedule::NightMoved,
        crate::service::term::reschedule::RoundItem,
        crate::service::term::reschedule::RoundSchedule,
        crate::web::api::reschedule::RoundScheduled,
        StandingOut,
        StandingsOut,
        crate::service::playoffs::eligibility::EligibilityRow,
        crate::service::playoffs::eligibility::EligibilityTable,
        crate::service::playoffs::eligibility::Override,
        crate::service::playoffs::eligibility::OverrideInput,
        crate::service::night::conduct::CheckInInput,
        crate::service::night::conduct::RatingInput,
        crate::service::night::lineups::LineupInput,
        crate::service::night::match_view::Lineup,
        crate::service::night::match_view::Seat,
        crate::league::settings::LineupPolicy,
        crate::service::night::match_view::CheckedIn,
        crate::service::night::match_view::Ratings,
        BoardMatch,
        Board,
        crate::service::playoffs::PlayoffsInput,
        crate::service::playoffs::BracketView,
        crate::service::playoffs::BracketMatchView,
        crate::service::people::users::Account,
        crate::service::people::users::NewAccount,
        crate::service::people::users::AccountChange,
        crate::web::api::users::UserList,
        crate::web::api::users::NewUserOut,
        crate::web::api::users::PasswordOut,
        crate::web::api::users::ResetRequest,
        crate::service::audit::Entry,
        crate::service::audit::Page,
        crate::service::notices::listing::NoticeList,
        crate::service::notices::listing::NoticeEntry,
        crate::service::notices::listing::NoticeStatus,
        crate::service::people::players::PlayerInput,
        crate::service::people::players::NewPlayerInput,
        crate::service::people::players::PlayerChange,
        crate::service::people::players::Player,
        crate::service::people::players::EraseInput,
        crate::service::people::players::ExportInput,
        crate::service::people::players::PersonRecord,
        crate::service::people::players::PersonExport,
        crate::service::people::players::LineupSat,
        crate::service::playoffs::player_eligibility::PlayerEligibility,
        crate::service::playoffs::player_eligibility::PlayerOverride,
        crate::service::playoffs::player_eligibility::PlayerOverrideInput,
        crate::service::views::player_stats::PlayerStats,
        crate::service::views::player_stats::TeamStats,
        crate::web::api::players::Roster
    )),
    modifiers(&BearerAuth),
    tags(
        (name = "leagues", description = "Leagues, teams, supervisors, schedules and standings."),
        (name = "matches", description = "League night: start a match, record and correct hands, call time, forfeits."),
        (name = "scoreboard", description = "Every match in play."),
        (name = "playoffs", description = "Playoff brackets seeded from the standings."),
        (name = "schedule", description = "Changing the schedule: a match's time, table or teams, postponing, cancelling, moving a league night."),
        (name = "accounts", description = "The accounts of admins and supervisors (admins only)."),
        (name = "players", description = "A team's players, their student ids and emails (admins only).")
    )
)]
pub struct ApiDoc;

/// The `bearer` scheme of the writes: an API token from the account page.
struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        openapi
            .components
            .get_or_insert_with(utoipa::openapi::Components::new)
            .add_security_scheme(
                "bearer",
                SecurityScheme::Http(
                    HttpBuilder::new()
                        .scheme(HttpAuthScheme::Bearer)
                        .description(Some(
                            "An API token (account page): `Authorization: Bearer <token>`",
                        ))
                        .build(),
                ),
            );
    }
}

/// The OpenAPI 3 document of this API, generated from the handlers and types.
#[utoipa::path(
    get,
    path = "/api/v1/openapi.json",
    responses(
        (status = 200, description = "this document (OpenAPI 3)"),
        BadReadCredentials,
    )
)]
#[get("/api/v1/openapi.json")]
async fn openapi_json() -> Result<HttpResponse, AppError> {
    Ok(HttpResponse::Ok().json(document()?))
}

/// The document as served: [`ApiDoc`], with the checks of the service's input types
/// (`src/service`) written into their schemas ([`service_constraints`]) and the hands of a
/// match shown as the JSON reads ([`flatten_hand_view`]).
pub fn document() -> Result<Value, AppError> {
    let mut doc = serde_json::to_value(ApiDoc::openapi())
        .map_err(|e| AppError::Internal(format!("the OpenAPI document: {e}")))?;
    let schemas = &mut doc["components"]["schemas"];
    for (schema, property, constraint) in service_constraints() {
        let slot = &mut schemas[schema]["properties"][property];
        match constraint {
            Constraint::Add(keywords) => {
                if let (Some(slot), Value::Object(keywords)) = (slot.as_object_mut(), keywords) {
                    slot.extend(keywords);
                }
            }
            Constraint::Replace(mut with) => {
                if let (Some(description), Some(with)) =
                    (slot.get("description").cloned(), with.as_object_mut())
                {
                    with.insert("description".into(), description);
                }
                *slot = with;
            }
        }
    }
    flatten_hand_view(schemas);
    document_archived_conflicts(&mut doc["paths"]);
    Ok(doc)
}

/// The paths whose writes change one league's season: an archived league refuses them all
/// with 409 `league_archived` (the database's triggers do, docs/api.md §18.2), so each says
/// so here rather than in every handler's annotation.
const LEAGUE_OWNED: [&str; 4] = [
    "/api/v1/leagues/{slug}",
    "/api/v1/matches/",
    "/api/v1/teams/",
    "/api/v1/players/",
];

/// The writes an archived league still takes: reopening it, and starting the next term
/// from it.
const ARCHIVED_LEAGUE_WRITES: [&str; 2] = [
    "/api/v1/leagues/{slug}/unarchive",
    "/api/v1/leagues/{slug}/clone",
];

/// Adds the 409 of an archived league to every write of [`LEAGUE_OWNED`] paths, or names it
/// in the 409 an operation documents already.
fn document_archived_conflicts(paths: &mut Value) {
    const ARCHIVED: &str = "the league is archived, a past season (`league_archived`)";
    let Some(paths) = paths.as_object_mut() else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        if !LEAGUE_OWNED.iter().any(|p| path.starts_with(p))
            || ARCHIVED_LEAGUE_WRITES.contains(&path.as_str())
        {
            continue;
        }
        for method in ["post", "put", "patch", "delete"] {
            let operation = item.get_mut(method).and_then(|op| op.get_mut("responses"));
            let Some(responses) = operation.and_then(Value::as_object_mut) else {
                continue;
            };
            let error_body = responses.get("404").and_then(|r| r.get("content")).cloned();
            match responses.get_mut("409") {
                Some(conflict) => {
                    let said = conflict["description"].as_str().unwrap_or_default();
                    if !said.contains("league_archived") {
                        conflict["description"] = json!(format!("{said}; or {ARCHIVED}"));
                    }
                }
                None => {
                    let mut conflict = json!({"description": ARCHIVED});
                    if let Some(content) = error_body {
                        conflict["content"] = content;
                    }
                    responses.insert("409".into(), conflict);
                }
            }
        }
    }
}

/// How a property of a service type's schema changes.
enum Constraint {
    /// These keywords are added (`maxLength`, `pattern`, `enum`...).
    Add(Value),
    /// The property's schema is this one (its description kept).
    Replace(Value),
}

/// A reference to a component schema.
fn component(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// A reference to a component schema, or `null`.
fn component_or_null(name: &str) -> Value {
    json!({"oneOf": [component(name), {"type": "null"}]})
}

/// A league's slug, as its path segment and its answers carry it.
/// A student id as sent: letters, digits and dashes (spaces around are trimmed), or empty.
const STUDENT_ID_PATTERN: &str = "^ *[A-Za-z0-9-]* *$";

pub const SLUG_PATTERN: &str = "^[a-z0-9]+(-[a-z0-9]+)*$";

/// A name as `service::text` takes it: at most `max` characters, none it refuses, not
/// blank (it is trimmed, and what shows nothing is removed).
fn text(max: usize) -> Value {
    json!({
        "minLength": 1,
        "maxLength": max,
        "pattern": service_text::schema_pattern(Lines::One, false),
    })
}

/// A reason or a note as `service::text` takes it (`may_be_blank` where blank means none).
fn reason(lines: Lines, may_be_blank: bool) -> Value {
    json!({
        "maxLength": service_text::REASON_MAX,
        "pattern": service_text::schema_pattern(lines, may_be_blank),
    })
}

/// What the service checks of its input types (`src/service`), as JSON Schema: the types
/// live outside the web layer, so their schemas get these here rather than from
/// attributes. Text is trimmed and checked by `service::text`.
fn service_constraints() -> Vec<(&'static str, &'static str, Constraint)> {
    use Constraint::{Add, Replace};
    let name = || text(service_text::NAME_MAX);
    let mut player = name();
    player["type"] = json!("string");
    let tiebreaks: Vec<&str> = Tiebreak::DEFAULT_ORDER.iter().map(|t| t.as_str()).collect();
    let schedule_formats: Vec<&str> = ScheduleFormat::ALL.iter().map(|f| f.as_str()).collect();
    // A day of a month that has it (29 February left out), as `YYYY-MM-DD`.
    let date = r"[0-9]{4}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)";
    let hour_minute = "(?:[01][0-9]|2[0-3]):[0-5][0-9]";
    let seconds = ":[0-5][0-9]";
    let offset = "(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])";
    let scheduled_at = format!(
        "^(?:{date}(?:T{hour_minute}(?:{seconds})?| {hour_minute}|T{hour_minute}{seconds}(?:\\.[0-9]+)?{offset}))?$"
    );
    vec![
        ("NewLeagueInput", "name", Add(name())),
        (
            "NewLeagueInput",
            "slug",
            Add(json!({
                "pattern": "^(?:[a-z0-9]+(?:-[a-z0-9]+)*)?$",
                "description": "Lowercase letters, digits and single dashes; made from the name when missing or empty."
            })),
        ),
        (
            "NewLeagueInput",
            "tiebreak_order",
            Add(json!({"items": {"type": "string", "enum": tiebreaks}})),
        ),
        ("CloneInput", "name", Add(name())),
        (
            "CloneInput",
            "slug",
            Add(json!({
                "pattern": "^(?:[a-z0-9]+(?:-[a-z0-9]+)*)?$",
                "description": "Lowercase letters, digits and single dashes; made from the name when missing or empty."
            })),
        ),
        ("ImportInput", "slug", Add(json!({"pattern": SLUG_PATTERN}))),
        ("ImportInput", "name", Add(name())),
        ("LeagueView", "slug", Add(json!({"pattern": SLUG_PATTERN}))),
        (
            "LeagueView",
            "tiebreak_order",
            Add(json!({"items": {"type": "string", "enum": tiebreaks}})),
        ),
        ("NewTeamInput", "name", Add(name())),
        ("TeamChange", "name", Add(name())),
        (
            "NewDivisionInput",
            "name",
            Add(text(crate::service::term::divisions::DIVISION_NAME_MAX)),
        ),
        (
            "ScheduleInput",
            "within",
            Add(json!({"enum": ["league", "division", null]})),
        ),
        (
            "ScheduleInput",
            "blackouts",
            Add(json!({
                "items": {"type": "string", "pattern": format!("^{date}$")},
                "maxItems": crate::service::term::schedule::BLACKOUTS_MAX,
            })),
        ),
        (
            "PlayoffsInput",
            "seeding",
            Add(json!({"enum": ["overall", "division_winners_first", null]})),
        ),
        (
            "NewTeamInput",
            "players",
            Add(json!({
                "minItems": 2,
                "maxItems": 8,
                "items": {"oneOf": [player, component("NewPlayerInput")]}
            })),
        ),
        ("NewPlayerInput", "name", Add(name())),
        ("PlayerChange", "name", Add(name())),
        // The name an erased player keeps: blank (or missing) for "Former player".
        (
            "EraseInput",
            "name",
            Add(json!({
                "maxLength": service_text::NAME_MAX,
                "pattern": service_text::schema_pattern(Lines::One, true),
            })),
        ),
        (
            "NewPlayerInput",
            "student_id",
            Add(json!({"pattern": STUDENT_ID_PATTERN})),
        ),
        (
            "PlayerChange",
            "student_id",
            Add(json!({"pattern": STUDENT_ID_PATTERN})),
        ),
        (
            "ScheduleInput",
            "format",
            Add(json!({"enum": schedule_formats})),
        ),
        (
            "ScheduleInput",
            "start_date",
            Add(json!({
                "pattern": format!("^(?:{date})?$"),
                "description": "The first league night, `YYYY-MM-DD`; empty or `null` for matches without a date. Later rounds follow `days_between` days apart."
            })),
        ),
        (
            "ScheduleInput",
            "time",
            Add(json!({"pattern": format!("^(?:{hour_minute})?$")})),
        ),
        (
            "ScheduleInput",
            "days_between",
            Add(json!({"format": "int64", "maximum": u32::MAX})),
        ),
        (
            "NewMatchInput",
            "table",
            Add(json!({
                "maxLength": service_text::TABLE_MAX,
                "pattern": service_text::schema_pattern(Lines::One, true),
                "description": "Trimmed; empty or `null` for none."
            })),
        ),
        (
            "NewMatchInput",
            "scheduled_at",
            Add(json!({
                "pattern": scheduled_at,
                "description": "`YYYY-MM-DDTHH:MM` in the league's time zone; also with seconds, with a space for `T`, or RFC 3339 with an offset (its local time is kept)."
            })),
        ),
        (
            "MatchChange",
            "scheduled_at",
            Add(json!({
                "pattern": scheduled_at,
                "description": "The new time, `YYYY-MM-DDTHH:MM` in the league's time zone (as for a new match); `null` or empty for \"not yet scheduled\". A time given to a postponed match makes it scheduled again."
            })),
        ),
        (
            "MatchChange",
            "table",
            Add(json!({
                "maxLength": service_text::TABLE_MAX,
                "pattern": service_text::schema_pattern(Lines::One, true),
                "description": "The table; `null` or empty for none. The only change allowed once the match started."
            })),
        ),
        ("MatchChange", "team_a", Add(json!({"minimum": 1}))),
        ("RoundItem", "id", Add(json!({"minimum": 1}))),
        ("RoundSchedule", "matches", Add(json!({"minItems": 1}))),
        ("MatchChange", "team_b", Add(json!({"minimum": 1}))),
        (
            "MatchChange",
            "expected_version",
            Add(json!({"minimum": 1})),
        ),
        (
            "NightMove",
            "from",
            Add(json!({"pattern": format!("^{date}$")})),
        ),
        (
            "NightMove",
            "to",
            Add(json!({"pattern": format!("^{date}$")})),
        ),
        ("ForfeitInput", "team", Replace(component("ForfeitSide"))),
        (
            "ForfeitInput",
            "advance",
            Replace(component_or_null("Team")),
        ),
        (
            "ForfeitInput",
            "expected_version",
            Add(json!({"minimum": 1})),
        ),
        ("CallOff", "reason", Add(reason(Lines::One, false))),
        (
            "CorrectionRequest",
            "reason",
            Add(reason(Lines::Many, false)),
        ),
        ("OverrideInput", "reason", Add(reason(Lines::Many, true))),
        ("RatingInput", "note", Add(reason(Lines::Many, true))),
        ("PlayoffsInput", "format", Replace(component("Format"))),
        (
            "PlayoffsInput",
            "grand_final",
            Replace(component_or_null("GrandFinal")),
        ),
        (
            "PlayoffsInput",
            "teams",
            Add(json!({"minimum": bracket::MIN_TEAMS, "maximum": bracket::MAX_TEAMS})),
        ),
    ]
}

/// A hand of a match is written with the scored hand's fields and then the recorded ones,
/// so its JSON has `reason` twice (docs/api.md §4.5) and a reader keeps the second, the
/// correction's reason. Its schema says so: the scored hand's properties, then the
/// recorded ones over them, in one object (where `allOf` would ask `reason` to be both).
fn flatten_hand_view(schemas: &mut Value) {
    let scored = schemas["ScoredHandOut"].clone();
    let view = &mut schemas["HandView"];
    let Some(recorded) = view["allOf"].get(1).cloned() else {
        return;
    };
    let mut properties = scored["properties"].clone();
    if let (Some(properties), Some(own)) = (
        properties.as_object_mut(),
        recorded["properties"].as_object(),
    ) {
        properties.extend(own.clone());
    }
    let mut required: Vec<Value> = Vec::new();
    for name in [&scored["required"], &recorded["required"]]
        .into_iter()
        .filter_map(Value::as_array)
        .flatten()
    {
        if !required.contains(name) {
            required.push(name.clone());
        }
    }
    *view = json!({
        "type": "object",
        "description": format!(
            "{} Written as a scored hand (ScoredHandOut) followed by `hand`, `revision`, `recorded_at` and `reason`: `reason` appears twice, and a reader keeps the second, why the hand was corrected (`null` for a first entry).",
            view["description"].as_str().unwrap_or("A recorded hand.")
        ),
        "properties": properties,
        "required": required,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schemas() -> Value {
        document().unwrap()["components"]["schemas"].clone()
    }

    /// Every constraint lands on a property that the generated schema has: a field renamed
    /// or removed in `src/service` fails here instead of leaving a constraint on nothing.
    #[test]
    fn every_service_constraint_names_a_property() {
        let generated = serde_json::to_value(ApiDoc::openapi()).unwrap();
        for (schema, property, _) in service_constraints() {
            assert!(
                generated["components"]["schemas"][schema]["properties"][property].is_object(),
                "{schema}.{property} is not in the document"
            );
        }
    }

    /// The object form of the rules names the preset and every field of the rules, with
    /// the same constraints, none of them required but the preset.
    #[test]
    fn overrides_name_every_field_of_the_rules() {
        let schemas = schemas();
        let rules = schemas["Rules"]["properties"].as_object().unwrap();
        let overrides = schemas["RulesOverrides"]["properties"].as_object().unwrap();
        assert_eq!(
            overrides
                .keys()
                .filter(|k| *k != "preset")
                .collect::<Vec<_>>(),
            rules.keys().collect::<Vec<_>>()
        );
        for (name, schema) in rules {
            let mut expected = schema.clone();
            let mut got = overrides[name].clone();
            for s in [&mut expected, &mut got] {
                if let Some(o) = s.as_object_mut() {
                    o.remove("description");
                }
            }
            if got.get("$ref").is_some() || expected.get("$ref").is_some() {
                continue;
            }
            assert_eq!(got, expected, "rules field {name}");
        }
        assert_eq!(schemas["RulesOverrides"]["required"], json!(["preset"]));
        assert_eq!(schemas["PresetName"]["enum"], json!(params::preset_names()));
    }

    /// A hand of a match has one `reason`, the correction's (the JSON's second one).
    #[test]
    fn a_match_hand_is_one_object_whose_reason_is_the_correction() {
        let view = &schemas()["HandView"];
        assert!(view.get("allOf").is_none());
        assert_eq!(
            view["properties"]["reason"]["type"],
            json!(["string", "null"])
        );
        assert!(view["properties"]["tiebreak"].is_object());
        assert!(view["properties"]["revision"].is_object());
    }
}
