//! `/leagues/{slug}/schedule`: a week of a league's matches with their results, night by
//! night (the regular season's, then the playoffs'), then under "Not yet scheduled" the
//! matches without a time, by round. This week by default (or the next week with matches),
//! `?week=DATE` the week of that date, `?week=all` the whole season; links to every week.

use crate::domain::Slug;
use actix_web::{HttpResponse, get, web};
use askama::Template;
use chrono::NaiveDate;

use super::{MatchLine, capitalized, line, page};
use crate::domain::TextEnum;
use crate::rules::Stage;
use crate::rules::Team;
use crate::service::views::public_views::{self, Night, RoundOf, Span};
use crate::service::views::summaries::MatchSummary;
use crate::web::AppState;
use crate::web::error::{AppError, PageError};
use crate::web::extract::Viewer;
use crate::web::respond::Csv;
use crate::web::view::nav::Nav;

/// A part of the schedule: the regular season, the playoffs, the matches not yet scheduled.
pub struct Part {
    pub id: &'static str,
    /// Its own heading (`h2`, its groups' then `h3`), or none (its groups' are `h2`).
    pub title: Option<&'static str>,
    pub groups: Vec<Group>,
}

/// The matches under one heading: a night, or a round of the matches without a time.
pub struct Group {
    pub id: String,
    /// Empty for no heading of its own.
    pub title: String,
    pub matches: Vec<MatchLine>,
}

#[derive(Template)]
#[template(path = "public/schedule.html")]
struct SchedulePage {
    nav: Nav,
    slug: String,
    name: String,
    /// What is shown, in words: "Week of Tuesday 24 November 2026" (its first league night), "The whole season".
    shown: String,
    /// Links to weeks with matches, then to the whole season; none when no match has a time.
    weeks: Vec<WeekLink>,
    /// No match of the part shown has a time (those without a time may follow).
    nothing_dated: bool,
    parts: Vec<Part>,
}

/// A link to a part of the season (the pager of the schedule and of a team's page,
/// `partials/macros.html` `week_nav`); with no `query`, weeks left out ("…").
pub struct WeekLink {
    /// The query string after the page's path: `?week=2026-11-23`, `?week=all`, or empty
    /// (a team's recent and upcoming matches).
    pub query: Option<String>,
    /// "23 Nov 2026", "Whole season".
    pub label: String,
    /// A week's link ("Week of" for a screen reader).
    pub week: bool,
    /// The part shown now.
    pub current: bool,
}

/// `?week=DATE` (that date's week), `?week=all` (the whole season), or none.
#[derive(Debug, serde::Deserialize)]
pub(super) struct WeekQuery {
    week: Option<String>,
}

impl WeekQuery {
    /// The part of the season asked for, if any; a week that is not a date (nor `all`) is
    /// no page.
    pub(super) fn span(&self) -> Result<Option<Span>, AppError> {
        match self.week.as_deref() {
            None => Ok(None),
            Some(w) => Span::parse(w).map(Some).ok_or(AppError::NotFound),
        }
    }
}

/// The pager's links: with `around` a first link to the recent and upcoming matches (a
/// team's page), then the `weeks`, then the whole season; none when no match has a time.
pub(super) fn week_links(
    weeks: &[public_views::WeekLink],
    span: Span,
    around: bool,
) -> Vec<WeekLink> {
    if weeks.is_empty() {
        return Vec::new();
    }
    let mut links = Vec::with_capacity(weeks.len() + 2);
    if around {
        links.push(WeekLink {
            query: Some(String::new()),
            label: "Recent and upcoming".into(),
            week: false,
            current: matches!(span, Span::Around(_)),
        });
    }
    links.extend(weeks.iter().map(|w| match w {
        // Labelled by its first league night (a Tuesday league's week reads "Tue 5 Jan").
        public_views::WeekLink::Week { monday, night } => WeekLink {
            query: Some(format!("?week={monday}")),
            label: night.unwrap_or(*monday).format("%a %-d %b %Y").to_string(),
            week: true,
            current: span == Span::Week(*monday),
        },
        public_views::WeekLink::Gap => WeekLink {
            query: None,
            label: "…".into(),
            week: false,
            current: false,
        },
    }));
    links.push(WeekLink {
        query: Some("?week=all".into()),
        label: "Whole season".into(),
        week: false,
        current: span == Span::Season,
    });
    links
}

/// What is shown, in words: a week by its first league night in `weeks` (its Monday when
/// it has none).
pub(super) fn shown_words(span: Span, weeks: &[public_views::WeekLink]) -> String {
    match span {
        Span::Week(monday) => {
            let night = weeks.iter().find_map(|w| match w {
                public_views::WeekLink::Week { monday: m, night } if *m == monday => *night,
                _ => None,
            });
            format!("Week of {}", night_words(night.unwrap_or(monday)))
        }
        Span::Season => "The whole season".into(),
        Span::Around(_) => "Recent and upcoming matches".into(),
    }
}

/// A night in words: "Tuesday 24 November 2026".
fn night_words(date: NaiveDate) -> String {
    date.format("%A %-d %B %Y").to_string()
}

/// The stage and round in words: "Round 2", "Playoffs, round 1", "Final".
fn round_words(stage: Stage, round: Option<i64>) -> Option<String> {
    match (stage, round) {
        (Stage::Regular, Some(r)) => Some(format!("Round {r}")),
        (Stage::Regular, None) => None,
        (s, Some(r)) => Some(format!("{}, round {r}", capitalized(s.words()))),
        (s, None) => Some(capitalized(s.words())),
    }
}

/// The heading of a night: its date, after the round when every match of it is of one
/// ("Round 2 · Tuesday 24 November 2026", "Playoffs, round 1 · Tuesday 8 December 2026";
/// "Playoffs · ..." for a night of several playoff rounds).
fn night_title(n: &Night) -> String {
    let date = night_words(n.date);
    let first = n.matches.first().map(|m| (m.stage, m.round));
    let all = |pick: &dyn Fn(Stage) -> bool| n.matches.iter().all(|m| pick(m.stage));
    let round = match first {
        Some((stage, round))
            if n.matches
                .iter()
                .all(|m| (m.stage, m.round) == (stage, round)) =>
        {
            round_words(stage, round)
        }
        _ if all(&|s| s == Stage::Regular) => None,
        _ if all(&|s| s == Stage::Final) => Some(capitalized(Stage::Final.words())),
        _ => Some(capitalized(Stage::Playoff.words())),
    };
    match round {
        Some(r) => format!("{r} · {date}"),
        None => date,
    }
}

fn night_groups(prefix: &str, nights: &[Night]) -> Vec<Group> {
    nights
        .iter()
        .map(|n| Group {
            id: format!("{prefix}-{}", n.date),
            title: night_title(n),
            matches: n.matches.iter().map(line).collect(),
        })
        .collect()
}

/// The undated matches by round; a lone group of regular matches of no round needs no
/// heading of its own, among others it is "Other matches".
fn round_groups(rounds: &[RoundOf]) -> Vec<Group> {
    rounds
        .iter()
        .enumerate()
        .map(|(i, r)| Group {
            id: format!("undated-{}", i + 1),
            title: round_words(r.stage, r.round).unwrap_or_else(|| {
                if rounds.len() > 1 {
                    "Other matches".into()
                } else {
                    String::new()
                }
            }),
            matches: r.matches.iter().map(line).collect(),
        })
        .collect()
}

#[get("/leagues/{slug}/schedule")]
pub(super) async fn schedule_page(
    state: web::Data<AppState>,
    who: Viewer,
    slug: web::Path<Slug>,
    query: web::Query<WeekQuery>,
) -> Result<HttpResponse, PageError> {
    let asked = query.span()?;
    let today = state.db.clock().local_now().0.date();
    let view = public_views::schedule(&state.db, &slug, asked, today).await?;
    let parts: Vec<Part> = [
        Part {
            id: "regular-season",
            title: None,
            groups: night_groups("night", &view.regular),
        },
        Part {
            id: "playoffs",
            title: None,
            groups: night_groups("playoff-night", &view.playoffs),
        },
        Part {
            id: "not-yet-scheduled",
            title: Some("Not yet scheduled"),
            groups: round_groups(&view.undated),
        },
    ]
    .into_iter()
    .filter(|p| !p.groups.is_empty())
    .collect();
    let body = SchedulePage {
        nav: who.nav(),
        slug: view.league.row.slug.to_string(),
        name: view.league.row.name,
        shown: shown_words(view.span, &view.weeks),
        weeks: week_links(&view.weeks, view.span, false),
        nothing_dated: view.regular.is_empty() && view.playoffs.is_empty(),
        parts,
    }
    .render()?;
    Ok(page(&who, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_in_words() {
        let d = NaiveDate::from_ymd_opt(2026, 11, 24).unwrap();
        assert_eq!(night_words(d), "Tuesday 24 November 2026");
        assert_eq!(round_words(Stage::Regular, Some(2)).unwrap(), "Round 2");
        assert_eq!(round_words(Stage::Regular, None), None);
        assert_eq!(
            round_words(Stage::Playoff, Some(1)).unwrap(),
            "Playoffs, round 1"
        );
        assert_eq!(round_words(Stage::Final, None).unwrap(), "Final");
    }
}

/// The whole season's schedule as CSV (docs/api.md §10.6): every match the page lists, in
/// its order (the regular season by night, the playoffs by night, then the matches without
/// a time), its time in the league's wall-clock time as the page shows it.
#[get("/leagues/{slug}/schedule.csv")]
pub(super) async fn schedule_csv(
    state: web::Data<AppState>,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, PageError> {
    let today = state.db.clock().local_now().0.date();
    let view = public_views::schedule(&state.db, &slug, Some(Span::Season), today).await?;
    let mut csv = Csv::with_header(&[
        "match_id", "stage", "round", "time", "table", "team_a", "team_b", "status", "score_a",
        "score_b", "winner",
    ])?;
    let nights = view.regular.iter().chain(&view.playoffs);
    let matches = nights
        .flat_map(|n| &n.matches)
        .chain(view.undated.iter().flat_map(|r| &r.matches));
    for m in matches {
        csv.row(&schedule_row(m))?;
    }
    csv.download(&format!("{}-schedule.csv", view.league.row.slug))
        .map_err(PageError::from)
}

/// One match's cells; the scores are empty until a hand is recorded.
fn schedule_row(m: &MatchSummary) -> Vec<String> {
    let played = m.hands > 0;
    let score = |s: i32| if played { s.to_string() } else { String::new() };
    let winner = m.winner.map(|w| match w {
        Team::A => m.team_a.name.clone(),
        Team::B => m.team_b.name.clone(),
    });
    vec![
        m.id.to_string(),
        m.stage.as_str().to_string(),
        m.round.map(|r| r.to_string()).unwrap_or_default(),
        m.scheduled_at
            .map(|t| t.0.format("%Y-%m-%d %H:%M").to_string())
            .unwrap_or_default(),
        m.table.clone().unwrap_or_default(),
        m.team_a.name.clone(),
        m.team_b.name.clone(),
        m.status.as_str().to_string(),
        score(m.a.score),
        score(m.b.score),
        winner.unwrap_or_default(),
    ]
}
