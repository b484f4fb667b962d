//! The JSON API (`/api/v1`): docs/api.md.

use actix_web::{HttpResponse, get, post, web};
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::rules::calculator::{ScoreRequest, ScoreResponse, ScoredHandOut, StartInput};
use crate::rules::hand::{BidInput, HandInput, RevokesInput, TeamHandInput};
use crate::rules::params::{self, Rules, RulesSpec};
use crate::rules::{TeamResult, TeamTotal, score_json};
use crate::service::TeamRef;
use crate::service::night::match_view::{HandView, MatchView};
use crate::service::night::matches::ForfeitInput;
use crate::service::term::leagues::{LeagueView, NewLeagueInput, RulesByStage, StageRules};
use crate::service::term::schedule::{NewMatchInput, ScheduleInput};
use crate::service::term::teams::{NewTeamInput, TeamView};
use crate::service::views::summaries::{Board, BoardMatch};
use crate::web::api::leagues::{LeagueList, SupervisorInput};
use crate::web::api::matches::{
    CorrectionRequest, HandRequest, MatchListPage, ScheduleAnswer, VersionRequest,
};
use crate::web::api::responses::{BadReadCredentials, BodyRefused};
use crate::web::api::standings::{StandingOut, StandingsOut};
use crate::web::api::teams::TeamList;
use crate::web::error::{AppError, ErrorBody};
use crate::web::extract::ApiJson;

mod constraints;
mod links;

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
        (status = 200, description = "every preset", body = PresetList),
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
        crate::web::api::leagues::delete_league,
        crate::web::api::leagues::delete_match,
        crate::web::api::league_doc::export_league,
        crate::web::api::league_doc::import_league,
        crate::web::api::teams::add_team,
        crate::web::api::teams::list_teams,
        crate::web::api::teams::change_team,
        crate::web::api::divisions::add_division,
        crate::web::api::divisions::list_divisions,
        crate::web::api::roster::post_roster,
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
        crate::web::api::reschedule::schedule_warnings_of,
        crate::web::api::standings::standings,
        crate::web::api::standings::eligibility,
        crate::web::api::conduct::check_in,
        crate::web::api::conduct::rate,
        crate::web::api::conduct::override_eligibility,
        crate::web::api::lineups::set_lineup,
        crate::web::api::captain::own_teams,
        crate::web::api::captain::default_match,
        crate::web::api::captain::ask_to_move,
        crate::web::api::captain::reschedule_queue,
        crate::web::api::captain::approve_request,
        crate::web::api::captain::decline_request,
        crate::web::api::captain::file_dispute,
        crate::web::api::captain::dispute_queue,
        crate::web::api::captain::resolve_dispute,
        crate::web::api::playoffs::create_playoffs,
        crate::web::api::playoffs::show_bracket,
        crate::web::api::scoreboard::scoreboard_json,
        crate::web::api::queue::set_tables,
        crate::web::api::queue::show_queue,
        crate::web::api::queue::fill_tables,
        crate::web::api::queue::call_match,
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
        crate::service::term::seasons::ArchiveInput,
        crate::service::term::seasons::Unplayed,
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
        crate::service::term::roster::plan::RosterReport,
        crate::service::term::roster::plan::ReportRow,
        crate::service::term::roster::plan::RowStatus,
        crate::service::term::roster::plan::Tally,
        crate::service::term::roster::plan::DivisionTally,
        crate::web::api::roster::RosterRefused,
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
        ScheduleAnswer,
        MatchListPage,
        HandRequest,
        CorrectionRequest,
        VersionRequest,
        ForfeitInput,
        crate::service::term::reschedule::MatchChange,
        crate::service::term::reschedule::CallOff,
        crate::service::term::reschedule::NightMove,
        crate::service::term::reschedule::NightMoved,
        crate::web::api::reschedule::NightMovedAnswer,
        crate::service::term::reschedule::RoundItem,
        crate::service::term::reschedule::RoundSchedule,
        crate::web::api::reschedule::RoundScheduled,
        crate::web::api::reschedule::StandingWarnings,
        crate::service::term::schedule_warnings::StandingWarning,
        StandingOut,
        StandingsOut,
        crate::service::playoffs::eligibility::EligibilityRow,
        crate::service::playoffs::eligibility::EligibilityTable,
        crate::service::playoffs::eligibility::Override,
        crate::service::playoffs::eligibility::OverrideInput,
        crate::service::night::conduct::CheckInInput,
        crate::service::night::conduct::RatingInput,
        crate::service::night::lineups::LineupInput,
        crate::web::api::captain::CaptainTeams,
        crate::service::night::matches::DefaultInput,
        crate::service::term::requests::NewRequest,
        crate::service::term::requests::RescheduleRequest,
        crate::service::term::requests::Approval,
        crate::service::term::requests::Decline,
        crate::web::api::captain::RescheduleQueue,
        crate::web::api::captain::RequestStatus,
        crate::web::api::captain::DisputeStatus,
        crate::web::api::captain::Approved,
        crate::service::night::disputes::NewDisputeInput,
        crate::service::night::disputes::Dispute,
        crate::service::night::disputes::Resolution,
        crate::web::api::captain::DisputeQueue,
        crate::service::night::match_view::MatchResult,
        crate::league::settings::Disputes,
        crate::service::people::captains::CaptainTeam,
        crate::service::people::captains::TeamMate,
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
        (name = "queue", description = "A tournament night's tables and the queue that calls matches to them."),
        (name = "playoffs", description = "Playoff brackets seeded from the standings."),
        (name = "schedule", description = "Changing the schedule: a match's time, table or teams, postponing, cancelling, moving a league night."),
        (name = "accounts", description = "The accounts of admins and supervisors (admins only)."),
        (name = "players", description = "A team's players, their student ids and emails (admins only)."),
        (name = "captains", description = "A team's captain, signed in by an emailed link: their teams, lineups, defaults, reschedule requests and disputes.")
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
/// (`src/service`) written into their schemas ([`constraints`]), the hands of a match
/// shown as the JSON reads ([`flatten_hand_view`]) and the links from one answer to the
/// next operations ([`links`]).
pub fn document() -> Result<Value, AppError> {
    let mut doc = serde_json::to_value(ApiDoc::openapi())
        .map_err(|e| AppError::Internal(format!("the OpenAPI document: {e}")))?;
    let schemas = &mut doc["components"]["schemas"];
    constraints::apply(schemas);
    flatten_hand_view(schemas);
    document_archived_conflicts(&mut doc["paths"]);
    let unlinked = links::apply(&mut doc["paths"]);
    if !unlinked.is_empty() {
        tracing::error!(?unlinked, "OpenAPI links to what the document lacks");
    }
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
        for (schema, property, _) in constraints::service_constraints() {
            assert!(
                generated["components"]["schemas"][schema]["properties"][property].is_object(),
                "{schema}.{property} is not in the document"
            );
        }
    }

    /// Every body shape is about a schema of the document.
    #[test]
    fn every_body_shape_names_a_schema() {
        let generated = serde_json::to_value(ApiDoc::openapi()).unwrap();
        for (schema, _) in constraints::body_shapes() {
            assert!(
                generated["components"]["schemas"][schema].is_object(),
                "{schema} is not in the document"
            );
        }
    }

    /// Every link is written: its answer and the operations it leads to are in the document,
    /// and a created match's link leads to recording a hand.
    #[test]
    fn every_link_leads_from_an_answer_to_operations_of_the_document() {
        let mut doc = serde_json::to_value(ApiDoc::openapi()).unwrap();
        assert_eq!(links::apply(&mut doc["paths"]), Vec::<String>::new());
        let created = &doc["paths"]["/api/v1/leagues/{slug}/matches"]["post"]["responses"]["201"];
        assert_eq!(
            created["links"]["record_hand"],
            json!({"operationId": "record_hand", "parameters": {"id": "$response.body#/id"}})
        );
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
