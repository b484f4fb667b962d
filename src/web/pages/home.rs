//! Public HTML pages: home and the rules pages.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, web};
use askama::Template;

use crate::rules::describe::{RuleLine, describe, readings};
use crate::rules::params::{self, BagOverflow, BlindWhen, Rules};
use crate::service::views::league_home::{self, LeagueCard};
use crate::web::AppState;
use crate::web::error::{AppError, PageError};
use crate::web::extract::Viewer;
use crate::web::respond::html;
use crate::web::view::nav::Nav;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(home)
        .service(find_team)
        .service(rules_index)
        .service(rules_show);
}

#[derive(Template)]
#[template(path = "public/home.html")]
struct HomePage {
    nav: Nav,
    presets: Vec<(&'static str, &'static str)>,
    /// The current leagues and the past seasons (with their champions).
    leagues: Vec<LeagueCard>,
    past: Vec<LeagueCard>,
    /// The find form starts empty.
    typed: String,
}

#[get("/")]
async fn home(state: web::Data<AppState>, who: Viewer) -> Result<HttpResponse, PageError> {
    let (leagues, past) = LeagueCard::split_past(league_home::league_cards(&state.db).await?);
    let page = HomePage {
        nav: who.nav(),
        leagues,
        past,
        typed: String::new(),
        presets: params::presets()
            .iter()
            .map(|p| (p.name, p.title))
            .collect(),
    };
    Ok(html(StatusCode::OK, page.render()?))
}

/// `?team=`: the words typed to find a team.
#[derive(serde::Deserialize)]
struct FindQuery {
    #[serde(default)]
    team: String,
}

/// "Find my team": the teams of the current leagues whose name holds the words typed.
#[derive(Template)]
#[template(path = "public/find.html")]
struct FindPage {
    nav: Nav,
    typed: String,
    found: Vec<league_home::FoundTeam>,
    /// At most this many are listed.
    most: usize,
}

/// Not cached: the words typed are the visitor's own, and the answer is small.
#[get("/find")]
async fn find_team(
    state: web::Data<AppState>,
    who: Viewer,
    query: web::Query<FindQuery>,
) -> Result<HttpResponse, PageError> {
    let typed: String = query.team.trim().chars().take(80).collect();
    let found = league_home::find_teams(&state.db, &typed).await?;
    let page = FindPage {
        nav: who.nav(),
        typed,
        found,
        most: league_home::FOUND_MOST,
    };
    Ok(html(StatusCode::OK, page.render()?))
}

/// One row of the presets table: a field and its value under each preset.
struct FieldRow {
    label: &'static str,
    values: Vec<String>,
}

fn or_none<T>(value: Option<T>, show: impl Fn(T) -> String) -> String {
    value.map_or_else(|| "none".to_string(), show)
}

fn when_words(when: BlindWhen, deficit: i32) -> String {
    match when {
        BlindWhen::Never => "never".into(),
        BlindWhen::Always => "always".into(),
        BlindWhen::BehindAtLeast => format!("behind ≥ {deficit}"),
        BlindWhen::BehindMoreThan => format!("behind > {deficit}"),
    }
}

fn snake(value: &impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn field_rows(all: &[Rules]) -> Vec<FieldRow> {
    let row = |label, show: &dyn Fn(&Rules) -> String| FieldRow {
        label,
        values: all.iter().map(show).collect(),
    };
    vec![
        row("target", &|r| r.target.to_string()),
        row("time_limit_minutes", &|r| {
            or_none(r.time_limit_minutes, |m| m.to_string())
        }),
        row("nil", &|r| or_none(r.nil, |v| format!("±{v}"))),
        row("zero_bid_is_nil", &|r| r.zero_bid_is_nil.to_string()),
        row("blind_nil.value", &|r| format!("±{}", r.blind_nil.value)),
        row("blind_nil.when", &|r| {
            when_words(r.blind_nil.when, r.blind_nil.deficit)
        }),
        row("failed_nil_tricks", &|r| snake(&r.failed_nil_tricks)),
        row("min_team_bid", &|r| r.min_team_bid.to_string()),
        row("set_penalty", &|r| snake(&r.set_penalty)),
        row("bags (limit / penalty / overflow / value)", &|r| {
            format!(
                "{} / {} / {} / {}",
                or_none(r.bags.limit, |l| l.to_string()),
                r.bags.penalty,
                match r.bags.overflow {
                    BagOverflow::Carry => "carry",
                    BagOverflow::Discard => "discard",
                },
                r.bags.value
            )
        }),
        row("ten_for_200 (min_bid / value / set)", &|r| {
            or_none(r.ten_for_200.as_ref(), |t| {
                format!("{} / {} / {}", t.min_bid, t.value, snake(&t.set))
            })
        }),
        row("revoke (tricks / award)", &|r| {
            or_none(r.revoke.as_ref(), |v| format!("{} / {}", v.tricks, v.award))
        }),
        row("regular_season_ties", &|r| snake(&r.regular_season_ties)),
        row("loss_floor", &|r| or_none(r.loss_floor, |f| f.to_string())),
        row("moon", &|r| {
            or_none(r.moon.as_ref(), |m| {
                format!("±{}{}", m.value, if m.wins_game { ", wins" } else { "" })
            })
        }),
        row("blind_bids", &|r| {
            or_none(r.blind_bids.as_ref(), |b| {
                format!("≥ {} ×{}", b.min_bid, b.multiplier)
            })
        }),
    ]
}

#[derive(Template)]
#[template(path = "public/rules_index.html")]
struct RulesIndexPage {
    nav: Nav,
    presets: Vec<params::Preset>,
    rows: Vec<FieldRow>,
}

#[get("/rules")]
async fn rules_index(who: Viewer) -> Result<HttpResponse, PageError> {
    let presets = params::presets();
    let all: Vec<Rules> = presets.iter().map(|p| p.rules.clone()).collect();
    let page = RulesIndexPage {
        nav: who.nav(),
        rows: field_rows(&all),
        presets,
    };
    Ok(html(StatusCode::OK, page.render()?))
}

#[derive(Template)]
#[template(path = "public/rules_show.html")]
struct RulesPage {
    nav: Nav,
    preset: params::Preset,
    lines: Vec<RuleLine>,
    readings: Vec<&'static str>,
    json: String,
}

#[get("/rules/{preset}")]
async fn rules_show(who: Viewer, path: web::Path<String>) -> Result<HttpResponse, PageError> {
    let preset = params::preset(&path).ok_or(AppError::NotFound)?;
    let page = RulesPage {
        nav: who.nav(),
        lines: describe(&preset.rules),
        readings: readings(&preset.rules, preset.source),
        json: serde_json::to_string_pretty(&preset.rules).unwrap_or_default(),
        preset,
    };
    Ok(html(StatusCode::OK, page.render()?))
}
