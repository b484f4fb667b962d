//! `/leagues` (every league with its counts), `/leagues/{slug}` (a league's home: standings,
//! this week's matches, the latest results) and `/leagues/{slug}/rules` (its rules in words:
//! the scoring of each stage, the season's forfeit, sportsmanship and playoff rules, how
//! ties are broken).

use crate::domain::Slug;
use actix_web::{HttpResponse, get, web};
use askama::Template;

use super::{
    MatchLine, StandingRow, capitalized, line, page, rates, standing_rows, tiebreak_words,
};
use crate::rules::Stage;
use crate::rules::describe::{RuleLine, describe};
use crate::service::term::leagues;
use crate::service::views::league_home::{self as home, LeagueCard};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::Viewer;
use crate::web::view::nav::Nav;

#[derive(Template)]
#[template(path = "public/leagues.html")]
struct LeaguesPage {
    nav: Nav,
    leagues: Vec<LeagueCard>,
    past: Vec<LeagueCard>,
}

#[get("/leagues")]
pub(super) async fn league_index(
    state: web::Data<AppState>,
    who: Viewer,
) -> Result<HttpResponse, PageError> {
    let (leagues, past) = LeagueCard::split_past(home::league_cards(&state.db).await?);
    let body = LeaguesPage {
        nav: who.nav(),
        leagues,
        past,
    }
    .render()?;
    Ok(page(&who, body))
}

#[derive(Template)]
#[template(path = "public/league.html")]
struct LeagueHomePage {
    nav: Nav,
    slug: String,
    name: String,
    standings: Vec<StandingRow>,
    /// The league rates sportsmanship: the standings have the column.
    rated: bool,
    this_week: Vec<MatchLine>,
    results: Vec<MatchLine>,
    upcoming: usize,
    /// A past season (archived): said at the top, with its champion.
    past: bool,
    champion: Option<String>,
}

#[get("/leagues/{slug}")]
pub(super) async fn league_home(
    state: web::Data<AppState>,
    who: Viewer,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, PageError> {
    let view = home::league_home(&state.db, &slug, state.db.clock().local_now()).await?;
    let body = LeagueHomePage {
        nav: who.nav(),
        standings: standing_rows(&view.standings, &view.out),
        rated: rates(&view.league),
        this_week: view.this_week.iter().map(line).collect(),
        results: view.results.iter().map(line).collect(),
        upcoming: view.upcoming,
        past: view.league.row.archived,
        champion: view.champion,
        slug: view.league.row.slug.to_string(),
        name: view.league.row.name,
    }
    .render()?;
    Ok(page(&who, body))
}

/// The rules of one stage in words.
pub struct StageRulesWords {
    pub stage: String,
    pub lines: Vec<RuleLine>,
    /// The same rules as the stage before ("Playoff rules: as the regular season").
    pub same_as: Option<String>,
}

#[derive(Template)]
#[template(path = "public/rules.html")]
struct LeagueRulesPage {
    nav: Nav,
    slug: String,
    name: String,
    stages: Vec<StageRulesWords>,
    tiebreak: Vec<&'static str>,
    /// The season settings in words: check-in and forfeits, sportsmanship, who may enter
    /// the playoffs.
    season: Vec<String>,
}

#[get("/leagues/{slug}/rules")]
pub(super) async fn league_rules(
    state: web::Data<AppState>,
    who: Viewer,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, PageError> {
    let league = leagues::league(&state.db, &slug).await?;
    let all = [Stage::Regular, Stage::Playoff, Stage::Final];
    let stages = all
        .iter()
        .enumerate()
        .map(|(i, &stage)| {
            let rules = league.rules_for(stage);
            let same_as = all[..i]
                .iter()
                .find(|&&before| league.rules_for(before) == rules)
                .map(|before| capitalized(before.words()));
            StageRulesWords {
                stage: capitalized(stage.words()),
                lines: if same_as.is_some() {
                    Vec::new()
                } else {
                    describe(rules)
                },
                same_as,
            }
        })
        .collect();
    let body = LeagueRulesPage {
        nav: who.nav(),
        tiebreak: tiebreak_words(&league),
        season: league.settings.describe(),
        slug: league.row.slug.to_string(),
        name: league.row.name,
        stages,
    }
    .render()?;
    Ok(page(&who, body))
}
