//! The public bracket page (`GET /leagues/{slug}/bracket`) and its printable one-page report
//! (`GET /leagues/{slug}/bracket/print`), drawn in HTML and CSS from
//! [`playoffs::bracket_of`] (DESIGN §3 "Playoffs" and "Reports").
//!
//! # Reusing the drawing
//!
//! [`BracketDrawing::new`]`(&view, links)` turns a [`BracketView`] into what the partial
//! `templates/partials/bracket_drawing.html` draws: sections (Winners, Losers, Final, Third
//! place) of round columns of match boxes. Any template whose context has a field
//! `drawing: BracketDrawing` can draw it with
//! `{% include "partials/bracket_drawing.html" %}`, provided the page links
//! `/static/bracket.css`. Pass `links: false` for a bracket that does not exist yet (the
//! admin's preview before creating the playoffs): no box then links to a match page.
//!
//! The drawing needs no script: each round is a flex column whose slots share its height,
//! so a later round's box sits halfway between its two feeders; the connector lines are
//! CSS pseudo-elements (see `static/bracket.css`).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, web};
use askama::Template;

use crate::service::ServiceError;
use crate::service::leagues;
use crate::service::playoffs::{self, BracketMatchView, BracketView};
use crate::web::AppState;
use crate::web::error::{AppError, PageError};
use crate::web::extract::Viewer;
use crate::web::respond::html;
use crate::web::respond::no_store;
use crate::web::view::nav::Nav;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(bracket_page).service(bracket_print);
}

// ---------------------------------------------------------------------------------------
// The drawing

/// A whole bracket, ready for `partials/bracket_drawing.html`.
#[derive(Debug, Clone)]
pub struct BracketDrawing {
    pub sections: Vec<DrawnSection>,
    /// The champion's name, once decided.
    pub champion: Option<String>,
    /// `size-16`, `size-32`, `size-64` or `size-256`: smaller boxes for bigger fields.
    pub size_class: &'static str,
    /// The font size (in tenths of a point) at which the printed report fits one landscape
    /// page: the class `fit-{n}` of `bracket.css`.
    pub fit: u32,
    /// Some match is being played (the page refreshes itself).
    pub live: bool,
}

/// Winners, Losers, Final or Third place.
#[derive(Debug, Clone)]
pub struct DrawnSection {
    /// `winners`, `losers`, `final` or `third_place` (the section's id and class).
    pub key: &'static str,
    pub title: &'static str,
    pub rounds: Vec<DrawnRound>,
}

/// One column of a section.
#[derive(Debug, Clone)]
pub struct DrawnRound {
    /// 1-based within its section (the single-elimination final counts as the last
    /// winners' round).
    pub round: i64,
    pub title: String,
    /// `pairs` when each two boxes feed one box of the next column, `straight` when each box
    /// feeds the box beside it, empty for the last column (the connector lines to draw).
    pub feeds: &'static str,
    /// Fed by the column before it (draws the incoming line).
    pub fed: bool,
    pub boxes: Vec<MatchBox>,
}

/// One match of the bracket.
#[derive(Debug, Clone)]
pub struct MatchBox {
    /// `M1`, `M2`...: the bracket match's `id` + 1, as "Winner of M3" refers to it.
    pub number: String,
    /// The real match's page, when there is one and links are wanted.
    pub href: Option<String>,
    /// The status as stored (`scheduled`, `in_progress`, `complete`, `forfeit`, `bye`,
    /// `waiting`, `not_needed`), for the box's class.
    pub status: String,
    /// The status in words.
    pub state: &'static str,
    pub sides: [Side; 2],
}

/// One slot of a match box.
#[derive(Debug, Clone)]
pub struct Side {
    /// The seed, or empty.
    pub seed: String,
    /// The team's name, or what is known of it: "Winner of M3", "Loser of M5", "Bye".
    pub name: String,
    /// Whether `name` is a real team (otherwise it is shown in italics).
    pub known: bool,
    /// Empty until the match has started.
    pub score: String,
    pub winner: bool,
}

fn state_words(status: &str) -> &'static str {
    match status {
        "scheduled" => "Scheduled",
        "in_progress" => "In progress",
        "complete" => "Final",
        "forfeit" => "Forfeit",
        "cancelled" => "Cancelled",
        "bye" => "Bye",
        "not_needed" => "Not needed",
        _ => "Waiting",
    }
}

fn section_order(key: &str) -> usize {
    match key {
        "winners" => 0,
        "losers" => 1,
        "final" => 2,
        _ => 3,
    }
}

/// A round's heading. `last` is the section's last round number; `single` is whether the
/// bracket is single elimination (whose final closes the winners' columns).
fn round_title(section: &str, round: i64, last: i64, single: bool) -> String {
    let from_end = last - round;
    match section {
        "winners" if single => match from_end {
            // `last` counts the final here (see `BracketDrawing::new`).
            0 => "Final".into(),
            1 => "Semi-finals".into(),
            2 => "Quarter-finals".into(),
            _ => format!("Round {round}"),
        },
        "winners" => match from_end {
            0 => "Winners final".into(),
            1 => "Winners semi-finals".into(),
            2 => "Winners quarter-finals".into(),
            _ => format!("Round {round}"),
        },
        "losers" if from_end == 0 => "Losers final".into(),
        "losers" => format!("Losers round {round}"),
        "final" if round == 1 && single => "Final".into(),
        "final" if round == 1 => "Grand final".into(),
        "final" => "Grand final reset".into(),
        _ => "Third place".into(),
    }
}

/// The font size, in tenths of a point, at which a drawing of `columns` columns and `rows`
/// box rows (stacked sections added up) fits a landscape page. The page is taken as the
/// smaller of A4 and Letter less 10 mm margins and the report's header: 250 × 160 mm. In
/// `bracket.css`'s print sizes a box row takes 3 em and a column 13 em, plus 3 em of
/// headings per section.
fn fit_tenths(columns: usize, rows: usize, sections: usize) -> u32 {
    const MM_PER_PT: f64 = 0.3528;
    let height_em = rows as f64 * 3.0 + sections as f64 * 3.0;
    let width_em = columns.max(1) as f64 * 13.0;
    let mm_per_em = (160.0 / height_em).min(250.0 / width_em);
    let tenths = (mm_per_em / MM_PER_PT * 10.0).floor() as u32;
    // Steps of half a point, from 3 to 12 points (the classes that exist).
    (tenths / 5 * 5).clamp(30, 120)
}

impl BracketDrawing {
    /// The drawing of `view`; `links` makes every box with a real match link to its page.
    pub fn new(view: &BracketView, links: bool) -> BracketDrawing {
        let single = view.format != "double_elimination";
        // Where each slot's team comes from, for a slot not known yet.
        let mut feeders = std::collections::HashMap::new();
        for m in &view.matches {
            if let (Some(t), Some(s)) = (m.next_match, m.next_slot) {
                feeders.insert((t, s), format!("Winner of M{}", m.id + 1));
            }
            if let (Some(t), Some(s)) = (m.loser_next_match, m.loser_next_slot) {
                feeders.insert((t, s), format!("Loser of M{}", m.id + 1));
            }
        }
        let draw_box = |m: &BracketMatchView| -> MatchBox {
            // Scores once play started; a forfeit before any point shows none.
            let started = match m.status.as_str() {
                "in_progress" | "complete" => true,
                "forfeit" => m.score_a.unwrap_or(0) != 0 || m.score_b.unwrap_or(0) != 0,
                _ => false,
            };
            let side = |slot: i64| -> Side {
                let (team, seed, score) = if slot == 0 {
                    (&m.team_a, m.seed_a, m.score_a)
                } else {
                    (&m.team_b, m.seed_b, m.score_b)
                };
                let name = match team {
                    Some(t) => t.name.clone(),
                    None if m.status == "bye" => "Bye".into(),
                    None => feeders
                        .get(&(m.id, slot))
                        .cloned()
                        .unwrap_or_else(|| "To be decided".into()),
                };
                Side {
                    seed: seed.map(|s| s.to_string()).unwrap_or_default(),
                    known: team.is_some(),
                    name,
                    score: if started {
                        score.map(|s| s.to_string()).unwrap_or_default()
                    } else {
                        String::new()
                    },
                    winner: m.winner.as_deref() == Some(if slot == 0 { "a" } else { "b" })
                        && team.is_some(),
                }
            };
            MatchBox {
                number: format!("M{}", m.id + 1),
                href: m
                    .match_id
                    .filter(|_| links)
                    .map(|id| format!("/matches/{id}")),
                status: m.status.clone(),
                state: state_words(&m.status),
                sides: [side(0), side(1)],
            }
        };

        // Single elimination: the final closes the winners' columns, so it lines up with
        // the semi-finals that feed it.
        let section_of = |m: &BracketMatchView| -> &'static str {
            match m.bracket.as_str() {
                "final" if single => "winners",
                "winners" => "winners",
                "losers" => "losers",
                "final" => "final",
                _ => "third_place",
            }
        };
        let winners_rounds = view
            .matches
            .iter()
            .filter(|m| m.bracket == "winners")
            .map(|m| m.round)
            .max()
            .unwrap_or(0);
        // (section, round) → the section's matches, rounds in order, boxes by position.
        let mut grouped: std::collections::BTreeMap<(usize, i64), Vec<&BracketMatchView>> =
            Default::default();
        for m in &view.matches {
            let key = section_of(m);
            let round = if single && m.bracket == "final" {
                winners_rounds + 1
            } else {
                m.round
            };
            grouped
                .entry((section_order(key), round))
                .or_default()
                .push(m);
        }
        let mut sections: Vec<DrawnSection> = Vec::new();
        for ((order, round), mut list) in grouped {
            list.sort_by_key(|m| m.position);
            let key = ["winners", "losers", "final", "third_place"][order.min(3)];
            let title = match key {
                "winners" if single => "Bracket",
                "winners" => "Winners bracket",
                "losers" => "Losers bracket",
                "final" => "Final",
                _ => "Third place",
            };
            if sections.last().is_none_or(|s| s.key != key) {
                sections.push(DrawnSection {
                    key,
                    title,
                    rounds: Vec::new(),
                });
            }
            if let Some(section) = sections.last_mut() {
                section.rounds.push(DrawnRound {
                    round,
                    title: String::new(), // named below, once the last round is known
                    feeds: "",
                    fed: false,
                    boxes: list.into_iter().map(&draw_box).collect(),
                });
            }
        }
        for section in &mut sections {
            let last = section.rounds.iter().map(|r| r.round).max().unwrap_or(1);
            let count: Vec<usize> = section.rounds.iter().map(|r| r.boxes.len()).collect();
            for (i, r) in section.rounds.iter_mut().enumerate() {
                r.title = round_title(section.key, r.round, last, single);
                // Connectors only inside a section, where the next column is fed by this one.
                r.feeds = match count.get(i + 1) {
                    Some(&n) if n * 2 == count[i] => "pairs",
                    Some(&n) if n == count[i] => "straight",
                    _ => "",
                };
                r.fed = i > 0;
            }
        }

        let teams = view.teams.max(0) as usize;
        let size_class = match teams {
            0..=16 => "size-16",
            17..=32 => "size-32",
            33..=64 => "size-64",
            _ => "size-256",
        };
        // Printed, the sections stand one under the other, except the small ones (final,
        // third place) which sit beside the winners' columns.
        let tall = |s: &DrawnSection| s.rounds.iter().map(|r| r.boxes.len()).max().unwrap_or(0);
        let (mut columns, mut rows, mut stacked) = (0, 0, 0);
        let mut beside = 0;
        for s in &sections {
            if matches!(s.key, "final" | "third_place") {
                beside += s.rounds.len();
                rows = rows.max(tall(s));
            } else {
                columns = columns.max(s.rounds.len());
                rows += tall(s);
                stacked += 1;
            }
        }
        let columns = columns.max(sections.first().map_or(0, |s| s.rounds.len()) + beside);
        BracketDrawing {
            champion: view.champion.as_ref().map(|t| t.name.clone()),
            live: view.matches.iter().any(|m| m.status == "in_progress"),
            fit: fit_tenths(columns, rows, stacked.max(1)),
            size_class,
            sections,
        }
    }
}

/// The format in words: "Single elimination, 6 teams, with a third-place match".
fn format_words(view: &BracketView) -> String {
    if view.format == "double_elimination" {
        let grand_final = match view.grand_final.as_str() {
            "double" => "a grand final with a reset if the losers' side wins",
            "simple" => "a single grand final",
            _ => "no grand final",
        };
        format!("Double elimination, {} teams, {grand_final}", view.teams)
    } else {
        format!(
            "Single elimination, {} teams{}",
            view.teams,
            if view.third_place {
                ", with a third-place match"
            } else {
                ""
            }
        )
    }
}

// ---------------------------------------------------------------------------------------
// The pages

/// The league's bracket, or `None` when its playoffs are not drawn yet (404: no league).
async fn league_and_bracket(
    state: &AppState,
    slug: &str,
) -> Result<(leagues::League, Option<BracketView>), PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let league = leagues::league_by_slug(&mut conn, slug).await?;
    let view = match playoffs::bracket_of(&mut conn, &league.row.slug).await {
        Ok(view) => Some(view),
        Err(ServiceError::NotFound) => None,
        Err(e) => return Err(e.into()),
    };
    Ok((league, view))
}

#[derive(Template)]
#[template(path = "public/bracket.html")]
struct BracketPage {
    nav: Nav,
    slug: String,
    name: String,
    format: String,
    drawing: Option<BracketDrawing>,
}

#[get("/leagues/{slug}/bracket")]
async fn bracket_page(
    state: web::Data<AppState>,
    who: Viewer,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let (league, view) = league_and_bracket(&state, &slug).await?;
    let body = BracketPage {
        nav: who.nav(),
        slug: league.row.slug.clone(),
        name: league.row.name.clone(),
        format: view.as_ref().map(format_words).unwrap_or_default(),
        drawing: view.as_ref().map(|v| BracketDrawing::new(v, true)),
    }
    .render()?;
    let response = html(StatusCode::OK, body);
    // The header carries a logged-in user's CSRF token: not for shared caches.
    Ok(if who.0.is_some() {
        no_store(response)
    } else {
        response
    })
}

#[derive(Template)]
#[template(path = "public/bracket_print.html")]
struct BracketPrintPage {
    slug: String,
    name: String,
    format: String,
    printed: String,
    drawing: Option<BracketDrawing>,
}

#[get("/leagues/{slug}/bracket/print")]
async fn bracket_print(
    state: web::Data<AppState>,
    slug: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let (league, view) = league_and_bracket(&state, &slug).await?;
    let body = BracketPrintPage {
        slug: league.row.slug.clone(),
        name: league.row.name.clone(),
        format: view.as_ref().map(format_words).unwrap_or_default(),
        printed: chrono::Local::now().format("%-d %B %Y, %H:%M").to_string(),
        // On paper nothing is clicked: no links.
        drawing: view.as_ref().map(|v| BracketDrawing::new(v, false)),
    }
    .render()?;
    Ok(html(StatusCode::OK, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_titles() {
        assert_eq!(round_title("winners", 1, 3, true), "Quarter-finals");
        assert_eq!(round_title("winners", 2, 3, true), "Semi-finals");
        assert_eq!(round_title("winners", 3, 3, true), "Final");
        assert_eq!(round_title("winners", 1, 5, true), "Round 1");
        assert_eq!(round_title("winners", 3, 5, true), "Quarter-finals");
        assert_eq!(round_title("losers", 2, 4, false), "Losers round 2");
        assert_eq!(round_title("losers", 4, 4, false), "Losers final");
        assert_eq!(round_title("final", 1, 2, false), "Grand final");
        assert_eq!(round_title("final", 2, 2, false), "Grand final reset");
        assert_eq!(round_title("third_place", 1, 1, true), "Third place");
    }

    #[test]
    fn the_print_size_shrinks_with_the_field() {
        // 16 teams single elimination: 4 columns + third place, 8 rows: at least 10 pt.
        assert!(fit_tenths(5, 8, 1) >= 100);
        assert!(
            fit_tenths(1, 1, 1) <= 120,
            "no bigger than the biggest class"
        );
        // 64 teams: 6 columns + third place, 32 rows.
        let big = fit_tenths(7, 32, 1);
        assert!((40..120).contains(&big), "{big}");
        assert!(fit_tenths(7, 16, 1) > big);
    }
}
