//! What the service checks of its input types (`src/service`), written into their schemas
//! in the served document: the types live outside the web layer, so their schemas get these
//! here rather than from attributes.

use serde_json::{Value, json};

use crate::domain::{IdempotencyKey, Slug, TextEnum};
use crate::league::bracket;
use crate::league::standings::Tiebreak;
use crate::service::term::schedule::ScheduleFormat;
use crate::service::text::{self as service_text, Lines};

/// Writes [`service_constraints`] into the document's component `schemas`, and the one
/// schema of an idempotency key into every request that takes one.
pub(super) fn apply(schemas: &mut Value) {
    let keyed: Vec<String> = schemas.as_object().map_or_else(Vec::new, |all| {
        let takes_key = |s: &Value| s["properties"].get("idempotency_key").is_some();
        all.iter()
            .filter(|(_, s)| takes_key(s))
            .map(|(name, _)| name.clone())
            .collect()
    });
    let keys = keyed
        .iter()
        .map(|name| (name.as_str(), "idempotency_key", idempotency_key()));
    let service = service_constraints().into_iter();
    for (schema, keywords) in body_shapes() {
        if let (Some(slot), Value::Object(keywords)) = (schemas[schema].as_object_mut(), keywords) {
            slot.extend(keywords);
        }
    }
    for (schema, property, constraint) in keys.chain(service) {
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
}

/// How a property of a service type's schema changes.
pub(super) enum Constraint {
    /// These keywords are added (`maxLength`, `pattern`, `enum`...).
    Add(Value),
    /// The property's schema is this one (its description kept).
    Replace(Value),
}

/// A list of the room's tables: each a name of one line, not blank (no two alike ignoring
/// case is the service's to say).
fn table_list() -> Value {
    json!({
        "maxItems": crate::league::settings::TABLES_MAX,
        "uniqueItems": true,
        "items": {
            "type": "string",
            "maxLength": service_text::TABLE_MAX,
            "pattern": service_text::schema_pattern(Lines::One, false),
        }
    })
}

/// A reference to a component schema.
fn component(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// A reference to a component schema, or `null`.
fn component_or_null(name: &str) -> Value {
    json!({"oneOf": [component(name), {"type": "null"}]})
}

/// An [`IdempotencyKey`], or none; the field's own description, if it has one, stays.
fn idempotency_key() -> Constraint {
    Constraint::Replace(json!({
        "type": ["string", "null"],
        "minLength": 1,
        "maxLength": IdempotencyKey::MAX,
        "pattern": IdempotencyKey::PATTERN,
        "description": "Unique per attempt: sent again with the same request, the first answer comes back\nand nothing is done twice (docs/api.md §7.8). 1 to 200 characters, no control\ncharacters.",
    }))
}

/// A student id as sent: letters, digits and dashes (spaces around are trimmed), or empty.
const STUDENT_ID_PATTERN: &str = "^ *[A-Za-z0-9-]* *$";

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
pub(super) fn service_constraints() -> Vec<(&'static str, &'static str, Constraint)> {
    use Constraint::{Add, Replace};
    let name = || text(service_text::NAME_MAX);
    // A new league's slug: a slug, or nothing for the one made from the name.
    let new_slug = || {
        json!({
            "pattern": "^(?:[a-z0-9]+(?:-[a-z0-9]+)*)?$",
            "description": "Lowercase letters, digits and single dashes; made from the name when missing or empty."
        })
    };
    let mut player = name();
    player["type"] = json!("string");
    let tiebreaks: Vec<&str> = Tiebreak::DEFAULT_ORDER.iter().map(|t| t.as_str()).collect();
    let mut schedule_formats: Vec<Value> = ScheduleFormat::ALL
        .iter()
        .map(|f| json!(f.as_str()))
        .collect();
    schedule_formats.push(Value::Null);
    // A day of a month that has it (29 February left out), as `YYYY-MM-DD`.
    let date = r"[0-9]{4}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)";
    let hour_minute = "(?:[01][0-9]|2[0-3]):[0-5][0-9]";
    let seconds = ":[0-5][0-9]";
    let offset = "(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])";
    let scheduled_at = format!(
        "^(?:{date}(?:T{hour_minute}(?:{seconds})?| {hour_minute}|T{hour_minute}{seconds}(?:\\.[0-9]+)?{offset}))?$"
    );
    // A time that must be given (a reschedule's): the same, not empty.
    let time_required = format!(
        "^{date}(?:T{hour_minute}(?:{seconds})?| {hour_minute}|T{hour_minute}{seconds}(?:\\.[0-9]+)?{offset})$"
    );
    vec![
        ("NewLeagueInput", "name", Add(name())),
        ("NewLeagueInput", "slug", Add(new_slug())),
        (
            "NewLeagueInput",
            "tiebreak_order",
            Add(json!({"items": {"type": "string", "enum": tiebreaks}})),
        ),
        ("CloneInput", "name", Add(name())),
        ("CloneInput", "slug", Add(new_slug())),
        (
            "ImportInput",
            "slug",
            Add(json!({"pattern": Slug::PATTERN})),
        ),
        ("ImportInput", "name", Add(name())),
        ("LeagueView", "slug", Add(json!({"pattern": Slug::PATTERN}))),
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
                "maxItems": crate::league::settings::BLACKOUTS_MAX,
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
            "ScheduleInput",
            "scheduled_at",
            Add(json!({
                "pattern": scheduled_at,
                "description": "A Swiss round's (`mode: swiss_round`) matches' time, `YYYY-MM-DDTHH:MM` in the league's time zone; absent for none (played as the queue calls them). A round robin refuses it."
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
        ("TablesInput", "tables", Add(table_list())),
        ("Settings", "tables", Add(table_list())),
        (
            "CallInput",
            "table",
            Add(json!({
                "maxLength": service_text::TABLE_MAX,
                "pattern": service_text::schema_pattern(Lines::One, false),
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
        ("DefaultInput", "reason", Add(reason(Lines::Many, false))),
        ("NewRequest", "reason", Add(reason(Lines::Many, false))),
        (
            "NewRequest",
            "proposals",
            Add(json!({"items": {"type": "string", "pattern": time_required.clone()}})),
        ),
        (
            "Approval",
            "scheduled_at",
            Add(json!({"pattern": time_required.clone()})),
        ),
        (
            "Approval",
            "table",
            Add(json!({
                "maxLength": service_text::TABLE_MAX,
                "pattern": service_text::schema_pattern(Lines::One, true),
            })),
        ),
        ("Decline", "reason", Add(reason(Lines::Many, false))),
        ("NewDisputeInput", "reason", Add(reason(Lines::Many, false))),
        (
            "NewDisputeInput",
            "category",
            Add(json!({"enum": crate::service::night::disputes::CATEGORIES})),
        ),
        ("Resolution", "note", Add(reason(Lines::Many, false))),
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

/// What a body's fields say together, as JSON Schema at the body's level: the shapes a
/// request may take (`oneOf`), and a change that must change something.
pub(super) fn body_shapes() -> Vec<(&'static str, Value)> {
    let absent = || json!({"type": "null"});
    vec![
        // A decision lets a player in, with a reason that is not blank; `null` (or nothing)
        // removes it, a reason optional. A player is never kept out by hand: no `false`.
        (
            "PlayerOverrideInput",
            json!({"oneOf": [
                {
                    "required": ["eligible", "reason"],
                    "properties": {
                        "eligible": {"const": true},
                        "reason": {"type": "string", "pattern": service_text::schema_pattern(Lines::Many, false)},
                    },
                },
                {"properties": {"eligible": absent()}},
            ]}),
        ),
        // The two players from the roster, or their two student ids: one or the other.
        (
            "LineupInput",
            json!({"oneOf": [
                {"required": ["players"], "properties": {"players": {"type": "array"}, "student_ids": absent()}},
                {"required": ["student_ids"], "properties": {"student_ids": {"type": "array"}, "players": absent()}},
            ]}),
        ),
        // Something to change.
        ("MatchChange", json!({"minProperties": 1})),
    ]
}
