//! The calculator page: a form of hands in, a scoresheet out. It builds the same
//! [`ScoreRequest`] as the JSON API and scores it with the same function.

use std::collections::BTreeMap;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde_json::{Map, Value};

use crate::domain::{Field, FieldError, TextEnum};
use crate::rules::calculator::{ScoreRequest, ScoreResponse, StartInput, score_request};
use crate::rules::form::TypedHand;
use crate::rules::hand::seat;
use crate::rules::params::{self, RulesSpec};
use crate::rules::{Stage, Team, TeamTotal};
use crate::web::error::PageError;
use crate::web::extract::Viewer;
use crate::web::pages::hand_form::form_error;
use crate::web::respond::html;
use crate::web::view::nav::Nav;
use crate::web::view::scoresheet::{self, Scoresheet, TEAMS};

/// The calculator form's own field for the rules' overrides (JSON).
const OVERRIDES: Field = Field::new("overrides");

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(show).service(submit);
}

/// Rows shown on a fresh page.
const BLANK_ROWS: usize = 3;
/// Rows accepted from one form (a long game is ~30 hands).
const MAX_ROWS: usize = 200;

#[derive(Debug, Clone)]
pub struct CalcForm {
    pub preset: String,
    pub overrides: String,
    pub stage: String,
    /// Score and bags of a and b before the first hand.
    pub start: [String; 4],
    pub rows: Vec<TypedHand>,
}

impl Default for CalcForm {
    fn default() -> Self {
        CalcForm {
            preset: "unc-im-300".into(),
            overrides: String::new(),
            stage: "regular".into(),
            start: Default::default(),
            rows: (0..BLANK_ROWS).map(|_| TypedHand::default()).collect(),
        }
    }
}

impl CalcForm {
    /// Reads the posted fields: `preset`, `overrides`, `stage`, `start_a_score`, ... and per
    /// hand `h{i}_a_bid0`, `h{i}_a_tricks0`, `h{i}_a_blind`, `h{i}_a_revokes`, `h{i}_time`,
    /// `h{i}_misdeal`.
    pub fn from_pairs(pairs: &[(String, String)]) -> CalcForm {
        let mut form = CalcForm {
            rows: Vec::new(),
            ..CalcForm::default()
        };
        let mut rows: BTreeMap<usize, TypedHand> = BTreeMap::new();
        for (name, value) in pairs {
            match name.as_str() {
                "preset" => form.preset = value.clone(),
                "overrides" => form.overrides = value.clone(),
                "stage" => form.stage = value.clone(),
                "start_a_score" => form.start[0] = value.clone(),
                "start_a_bags" => form.start[1] = value.clone(),
                "start_b_score" => form.start[2] = value.clone(),
                "start_b_bags" => form.start[3] = value.clone(),
                other => {
                    let Some((index, field)) = other
                        .strip_prefix('h')
                        .and_then(|rest| rest.split_once('_'))
                    else {
                        continue;
                    };
                    let Ok(index) = index.parse::<usize>() else {
                        continue;
                    };
                    if index >= MAX_ROWS {
                        continue;
                    }
                    let row = rows.entry(index).or_default();
                    row.set(field, value);
                }
            }
        }
        let count = rows.keys().next_back().map_or(0, |last| last + 1);
        form.rows = (0..count)
            .map(|i| rows.remove(&i).unwrap_or_default())
            .collect();
        // Trailing blank rows are room to type, not hands.
        while form.rows.last().is_some_and(TypedHand::is_blank) {
            form.rows.pop();
        }
        form
    }

    /// The stage chosen (the regular season if none).
    fn stage(&self) -> Result<Stage, FieldError> {
        if self.stage.is_empty() {
            return Ok(Stage::Regular);
        }
        Stage::parse(&self.stage).map_err(|_| {
            form_error(
                Field::new("stage"),
                format!("unknown stage \"{}\"", self.stage),
            )
        })
    }

    /// The request the JSON API would get for this form, or the first thing wrong with it.
    pub fn to_request(&self) -> Result<ScoreRequest, FieldError> {
        let rules = if self.overrides.trim().is_empty() {
            RulesSpec::Preset(self.preset.clone())
        } else {
            let mut map: Map<String, Value> = match serde_json::from_str(&self.overrides) {
                Ok(Value::Object(map)) => map,
                Ok(_) => {
                    return Err(form_error(
                        OVERRIDES,
                        "overrides must be a JSON object, e.g. {\"target\": 300}".into(),
                    ));
                }
                Err(e) => {
                    return Err(form_error(
                        OVERRIDES,
                        format!("overrides are not valid JSON: {e}"),
                    ));
                }
            };
            map.insert("preset".into(), Value::String(self.preset.clone()));
            RulesSpec::Custom(map)
        };
        let stage = self.stage()?;
        let start = if self.start.iter().all(|s| s.trim().is_empty()) {
            None
        } else {
            let number = |i: usize, what: &str| -> Result<i64, FieldError> {
                let text = self.start[i].trim();
                if text.is_empty() {
                    return Ok(0);
                }
                text.parse::<i64>().map_err(|_| {
                    form_error(
                        Field::START,
                        format!("start: {what} must be a whole number, not \"{text}\""),
                    )
                })
            };
            let bags = |i: usize, what: &str| -> Result<u32, FieldError> {
                u32::try_from(number(i, what)?).map_err(|_| {
                    form_error(Field::START, format!("start: {what} cannot be negative"))
                })
            };
            let score = |i: usize, what: &str| -> Result<i32, FieldError> {
                i32::try_from(number(i, what)?)
                    .map_err(|_| form_error(Field::START, format!("start: {what} is out of range")))
            };
            Some(StartInput {
                a: TeamTotal {
                    score: score(0, "team A's score")?,
                    bags: bags(1, "team A's bags")?,
                },
                b: TeamTotal {
                    score: score(2, "team B's score")?,
                    bags: bags(3, "team B's bags")?,
                },
            })
        };
        let hands = self
            .rows
            .iter()
            .enumerate()
            .map(|(i, row)| row.to_input(i + 1))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ScoreRequest {
            rules,
            stage,
            start,
            hands,
        })
    }
}

/// One team's cells as the template shows them, with what is wrong marked.
pub struct TeamCellsView<'a> {
    /// `a` or `b`, for field names.
    pub key: &'static str,
    pub bids: &'a [String; 2],
    pub tricks: &'a [String; 2],
    pub blind: bool,
    pub revokes: &'a str,
    pub seats: [u8; 2],
    pub bad_bid: [bool; 2],
    pub bad_tricks: [bool; 2],
    pub bad_blind: bool,
    pub bad_revokes: bool,
}

impl TeamCellsView<'_> {
    /// Whether `value` is the bid typed for player `p`: the same text, or the same number
    /// written otherwise (` 4`, `04`, `+4` score as 4, so they show as 4 when the page comes
    /// back, and post again as 4; found by the `hand_form` fuzz target).
    pub fn bid_is(&self, p: &usize, value: &str) -> bool {
        let typed = self.bids[*p].trim();
        typed == value
            || typed
                .parse::<i64>()
                .is_ok_and(|n| value.parse::<i64>() == Ok(n))
    }
}

pub struct RowView<'a> {
    /// 0-based, for field names.
    pub index: usize,
    pub number: usize,
    pub row: &'a TypedHand,
    pub teams: [TeamCellsView<'a>; 2],
    pub bad_row: bool,
    pub bad_time: bool,
    pub bad_misdeal: bool,
    pub error: Option<&'a str>,
}

fn row_views<'a>(rows: &'a [TypedHand], error: Option<&'a FieldError>) -> Vec<RowView<'a>> {
    rows.iter()
        .enumerate()
        .map(|(index, row)| {
            let number = index + 1;
            let here = error.filter(|e| e.hand == Some(number));
            let field = here.and_then(|e| e.field.as_ref());
            let team_view = |t: usize| {
                let team = Team::BOTH[t];
                let mine = here.is_some_and(|e| e.team.is_none() || e.team == Some(team));
                let player_bad = |p: usize, f: Field| {
                    mine && field == Some(&f)
                        && here.is_some_and(|e| e.player.is_none() || e.player == Some(p))
                };
                TeamCellsView {
                    key: team.as_str(),
                    bids: &row.bids[t],
                    tricks: &row.tricks[t],
                    blind: row.blind[t],
                    revokes: &row.revokes[t],
                    seats: [seat(team, 0), seat(team, 1)],
                    bad_bid: [player_bad(0, Field::BIDS), player_bad(1, Field::BIDS)],
                    bad_tricks: [player_bad(0, Field::TRICKS), player_bad(1, Field::TRICKS)],
                    bad_blind: mine && field == Some(&Field::BLIND),
                    bad_revokes: mine && field == Some(&Field::REVOKES),
                }
            };
            RowView {
                index,
                number,
                row,
                teams: [team_view(0), team_view(1)],
                bad_row: here.is_some(),
                bad_time: field == Some(&Field::TIME_CALLED),
                bad_misdeal: field == Some(&Field::MISDEAL),
                error: here.map(|e| e.message.as_str()),
            }
        })
        .collect()
}

/// The totals and the game's state after the last hand.
pub struct Summary {
    pub a: TeamTotal,
    pub b: TeamTotal,
    pub status: String,
    pub over: bool,
}

impl Summary {
    fn of(answer: &ScoreResponse) -> Summary {
        let names = TEAMS.map(String::from);
        Summary {
            a: answer.a,
            b: answer.b,
            status: scoresheet::game_words(answer.status, answer.winner, answer.reason, &names),
            over: answer.status.is_over(),
        }
    }
}

#[derive(Template)]
#[template(path = "public/calculator.html")]
struct CalculatorPage<'a> {
    nav: Nav,
    /// Name, title, selected.
    presets: Vec<(&'static str, &'static str, bool)>,
    /// Value, label, selected.
    stages: Vec<(&'static str, &'static str, bool)>,
    form: &'a CalcForm,
    rows: Vec<RowView<'a>>,
    bid_options: Vec<(String, String)>,
    error: Option<&'a FieldError>,
    /// A form-level error (rules, stage, start) shown above the hands.
    top_error: Option<&'a FieldError>,
    /// The error is about the rules: the overrides box is marked.
    bad_overrides: bool,
    sheet: Option<Scoresheet>,
    summary: Option<Summary>,
    row_count: usize,
}

fn bid_options() -> Vec<(String, String)> {
    let mut options = vec![(String::new(), "–".to_string())];
    options.extend((0..=13).map(|n| (n.to_string(), n.to_string())));
    options.push(("nil".into(), "Nil".into()));
    options.push(("blind_nil".into(), "Blind nil".into()));
    options
}

/// The stages to choose from, the form's selected (none for a stage that does not exist).
fn stage_options(form: &CalcForm) -> Vec<(&'static str, &'static str, bool)> {
    let chosen = form.stage().ok();
    [
        (Stage::Regular, "Regular season"),
        (Stage::Playoff, "Playoff"),
        (Stage::Final, "Final"),
    ]
    .into_iter()
    .map(|(stage, label)| (stage.as_str(), label, chosen == Some(stage)))
    .collect()
}

fn render(
    nav: Nav,
    form: &CalcForm,
    error: Option<&FieldError>,
    scored: Option<(&ScoreRequest, &ScoreResponse)>,
) -> Result<HttpResponse, PageError> {
    let top_error = error.filter(|e| e.hand.is_none());
    let page = CalculatorPage {
        nav,
        presets: params::presets()
            .iter()
            .map(|p| (p.name, p.title, p.name == form.preset))
            .collect(),
        stages: stage_options(form),
        form,
        rows: row_views(&form.rows, error),
        bid_options: bid_options(),
        error,
        top_error,
        bad_overrides: top_error
            .and_then(|e| e.field.as_ref())
            .is_some_and(|f| f.is_under(&Field::RULES) || *f == OVERRIDES),
        sheet: scored
            .map(|(req, ans)| Scoresheet::of_calculation(req, ans))
            .filter(|sheet| !sheet.rows.is_empty()),
        summary: scored.map(|(_, ans)| Summary::of(ans)),
        row_count: form.rows.len(),
    };
    let status = if error.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    Ok(html(status, page.render()?))
}

#[derive(serde::Deserialize)]
struct ShowQuery {
    preset: Option<String>,
}

#[get("/calculator")]
async fn show(who: Viewer, query: web::Query<ShowQuery>) -> Result<HttpResponse, PageError> {
    let mut form = CalcForm::default();
    if let Some(preset) = &query.preset
        && params::preset(preset).is_some()
    {
        form.preset = preset.clone();
    }
    render(who.nav(), &form, None, None)
}

/// The calculator is public and writes nothing: its form has no CSRF token.
#[post("/calculator")]
async fn submit(
    who: Viewer,
    fields: web::Form<Vec<(String, String)>>,
) -> Result<HttpResponse, PageError> {
    let nav = who.nav();
    let mut form = CalcForm::from_pairs(&fields);
    let adding = fields.iter().any(|(k, v)| k == "action" && v == "add");
    let outcome = form
        .to_request()
        .and_then(|req| score_request(&req).map(|ans| (req, ans)));
    match outcome {
        // "Add a hand" with nothing wrong yet only adds a row.
        Ok((request, answer)) => {
            if !answer.status.is_over() || adding {
                form.rows.push(TypedHand::default());
            }
            render(nav, &form, None, Some((&request, &answer)))
        }
        Err(error) => {
            if adding {
                form.rows.push(TypedHand::default());
            }
            if form.rows.is_empty() {
                form.rows.push(TypedHand::default());
            }
            render(nav, &form, Some(&error), None)
        }
    }
}
