//! The bracket drawing: a [`BracketView`] turned into what `templates/partials/bracket_drawing.html`
//! draws (docs/scoring.md §9.3–§9.5; docs/api.md §8.2): sections (Winners, Losers, Final, Third
//! place) of round columns of match boxes.
//!
//! Any template whose context has a field `drawing: BracketDrawing` can draw it with
//! `{% include "partials/bracket_drawing.html" %}`, provided the page links
//! `/static/bracket.css`: the public bracket page and its printed report, and the admin's
//! preview before creating the playoffs. [`BracketDrawing::new`]`(&view, links)`: pass
//! `links: false` for a bracket that does not exist yet or is printed (no box then links to
//! a match page).
//!
//! The drawing needs no script: each round is a flex column whose slots share its height,
//! so a later round's box sits halfway between its two feeders; the connector lines are
//! CSS pseudo-elements (see `static/bracket.css`).

use std::collections::{BTreeMap, HashMap};

use crate::domain::{BracketMatchStatus, MatchStatus};
use crate::league::bracket::{Format, Section};
use crate::rules::Team;
use crate::service::playoffs::{BracketMatchView, BracketView};

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
    /// How many sections stand one under the other when printed (1, or 2 with a losers'
    /// bracket): the print layout shares the sheet's height among them.
    pub stacked: usize,
    /// A printed column's width in em, wide enough for the longest name on one line (the
    /// class `column-{n}` of `bracket.css`, which sets its print layout's `--column`; the
    /// page's Content-Security-Policy allows no inline style).
    pub column_em: u32,
    /// Some match is being played (the page refreshes itself).
    pub live: bool,
}

/// Winners, Losers, Final or Third place.
#[derive(Debug, Clone)]
pub struct DrawnSection {
    pub section: Section,
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
    pub status: &'static str,
    /// The status in words.
    pub state: &'static str,
    pub sides: [Side; 2],
    /// The match in a sentence, for the list view: "M5 · Semi-final: Nil Rebels 318 – Winner of
    /// match 2, not yet played".
    pub sentence: String,
}

/// One slot of a match box.
#[derive(Debug, Clone)]
pub struct Side {
    /// The seed, or empty.
    pub seed: String,
    /// The team's name, or what is known of it: "Winner of M3", "Loser of M5", "Bye".
    pub name: String,
    /// The same in words for the list view: "Winner of match 3".
    pub spoken: String,
    /// Whether `name` is a real team (otherwise it is shown in italics).
    pub known: bool,
    /// Empty until the match has started.
    pub score: String,
    pub winner: bool,
}

fn state_words(status: BracketMatchStatus) -> &'static str {
    match status {
        BracketMatchStatus::Match(MatchStatus::Scheduled) => "Scheduled",
        BracketMatchStatus::Match(MatchStatus::Postponed) => "Postponed",
        BracketMatchStatus::Match(MatchStatus::InProgress) => "In progress",
        // Not "Final": a finished quarter-final is no final (the round names say which is).
        BracketMatchStatus::Match(MatchStatus::Complete) => "Played",
        BracketMatchStatus::Match(MatchStatus::Forfeit) => "Forfeit",
        BracketMatchStatus::Match(MatchStatus::Cancelled) => "Cancelled",
        BracketMatchStatus::Bye => "Bye",
        BracketMatchStatus::NotNeeded => "Not needed",
        BracketMatchStatus::Waiting => "Waiting",
    }
}

/// A section's heading.
fn section_title(section: Section, single: bool) -> &'static str {
    match section {
        Section::Winners if single => "Bracket",
        Section::Winners => "Winners bracket",
        Section::Losers => "Losers bracket",
        Section::Final => "Final",
        Section::ThirdPlace => "Third place",
    }
}

/// A round's heading. `last` is the section's last round number; `single` is whether the
/// bracket is single elimination (whose final closes the winners' columns).
fn round_title(section: Section, round: i64, last: i64, single: bool) -> String {
    let from_end = last - round;
    match section {
        Section::Winners if single => match from_end {
            // `last` counts the final here (see `BracketDrawing::new`).
            0 => "Final".into(),
            1 => "Semi-finals".into(),
            2 => "Quarter-finals".into(),
            _ => format!("Round {round}"),
        },
        Section::Winners => match from_end {
            0 => "Winners final".into(),
            1 => "Winners semi-finals".into(),
            2 => "Winners quarter-finals".into(),
            _ => format!("Round {round}"),
        },
        Section::Losers if from_end == 0 => "Losers final".into(),
        Section::Losers => format!("Losers round {round}"),
        Section::Final if round == 1 && single => "Final".into(),
        Section::Final if round == 1 => "Grand final".into(),
        Section::Final => "Grand final reset".into(),
        Section::ThirdPlace => "Third place".into(),
    }
}

/// A printed column's width in em for names of up to `longest` characters: the box's number,
/// seed, score and connector take 7.5 em, a character at most 0.6 em; 13 to 30 em (the
/// `column-{n}` classes of `bracket.css`; a longer name wraps).
fn column_em(longest: usize) -> u32 {
    (7.5 + 0.6 * longest as f64).ceil().clamp(13.0, 30.0) as u32
}

/// The font size, in tenths of a point, at which a drawing of `columns` columns of
/// `column_em` em and `rows` box rows (stacked sections added up) fits a landscape page. The
/// page is taken as the smaller of A4 and Letter less 10 mm margins and the report's header:
/// 250 × 160 mm. In `bracket.css`'s print sizes a box row takes 3 em, plus 3 em of headings
/// per section. The printed columns then grow to fill the sheet's width.
fn fit_tenths(columns: usize, column_em: u32, rows: usize, sections: usize) -> u32 {
    const MM_PER_PT: f64 = 0.3528;
    let height_em = rows as f64 * 3.0 + sections as f64 * 3.0;
    let width_em = columns.max(1) as f64 * f64::from(column_em);
    let mm_per_em = (160.0 / height_em).min(250.0 / width_em);
    let tenths = (mm_per_em / MM_PER_PT * 10.0).floor() as u32;
    // Steps of half a point, from 3 to 12 points (the classes that exist).
    (tenths / 5 * 5).clamp(30, 120)
}

/// A match of the bracket in one sentence, for the list view.
fn sentence(m: &BracketMatchView, sides: &[Side; 2]) -> String {
    let label = &m.label;
    let who = |t: &Side| {
        let mut words = t.spoken.clone();
        if !t.seed.is_empty() {
            words += &format!(" (seed {})", t.seed);
        }
        if !t.score.is_empty() {
            words += &format!(" {}", t.score);
        }
        words
    };
    let winner = sides.iter().find(|t| t.winner).map(|t| t.spoken.as_str());
    match m.status {
        BracketMatchStatus::Bye => match sides.iter().find(|t| t.known) {
            Some(team) => format!("{label}: {} has a bye into the next round.", who(team)),
            None => format!("{label}: not played (both places are byes)."),
        },
        BracketMatchStatus::NotNeeded => format!("{label}: not needed."),
        status => {
            let state = match (status, winner) {
                (BracketMatchStatus::Match(MatchStatus::Complete), Some(w)) => format!("{w} won"),
                (BracketMatchStatus::Match(MatchStatus::Forfeit), Some(w)) => {
                    format!("{w} won by forfeit")
                }
                (BracketMatchStatus::Match(MatchStatus::InProgress), _) => "being played".into(),
                (BracketMatchStatus::Match(MatchStatus::Postponed), _) => "postponed".into(),
                (BracketMatchStatus::Match(MatchStatus::Cancelled), _) => "cancelled".into(),
                (BracketMatchStatus::Match(MatchStatus::Forfeit), None) => {
                    "both teams forfeited".into()
                }
                _ => "not yet played".into(),
            };
            format!("{label}: {} – {}, {state}.", who(&sides[0]), who(&sides[1]))
        }
    }
}

/// Where each slot's team comes from, for a slot not known yet: (bracket match id, slot) →
/// (drawn, spoken).
type Feeders = HashMap<(i64, i64), (String, String)>;

/// The feeders of every slot that a winner or a loser of another match fills. A bye has no
/// loser: the slot its loser would fill is a bye too.
fn feeders(view: &BracketView) -> Feeders {
    let mut feeders = HashMap::new();
    for m in &view.matches {
        let n = m.id + 1;
        if let (Some(t), Some(s)) = (m.next_match, m.next_slot) {
            feeders.insert(
                (t, s),
                (format!("Winner of M{n}"), format!("Winner of match {n}")),
            );
        }
        if let (Some(t), Some(s)) = (m.loser_next_match, m.loser_next_slot) {
            let feeder = if m.status == BracketMatchStatus::Bye {
                ("Bye".to_string(), format!("a bye (match {n} had no loser)"))
            } else {
                (format!("Loser of M{n}"), format!("Loser of match {n}"))
            };
            feeders.insert((t, s), feeder);
        }
    }
    feeders
}

/// Whether a match shows its scores: once play started; a forfeit before any point shows
/// none.
fn started(m: &BracketMatchView) -> bool {
    match m.status {
        BracketMatchStatus::Match(MatchStatus::InProgress | MatchStatus::Complete) => true,
        BracketMatchStatus::Match(MatchStatus::Forfeit) => {
            m.score_a.unwrap_or(0) != 0 || m.score_b.unwrap_or(0) != 0
        }
        _ => false,
    }
}

/// Slot `slot` (0 = team A, 1 = team B) of match `m`.
fn side(m: &BracketMatchView, slot: i64, feeders: &Feeders) -> Side {
    let (team, seed, score) = if slot == 0 {
        (&m.team_a, m.seed_a, m.score_a)
    } else {
        (&m.team_b, m.seed_b, m.score_b)
    };
    let (name, spoken) = match team {
        Some(t) => (t.name.clone(), t.name.clone()),
        None if m.status == BracketMatchStatus::Bye => ("Bye".into(), "a bye".into()),
        None => feeders
            .get(&(m.id, slot))
            .cloned()
            .unwrap_or_else(|| ("To be decided".into(), "to be decided".into())),
    };
    Side {
        seed: seed.map(|s| s.to_string()).unwrap_or_default(),
        known: team.is_some(),
        name,
        spoken,
        score: if started(m) {
            score.map(crate::domain::words::points).unwrap_or_default()
        } else {
            String::new()
        },
        winner: m.winner == Some(if slot == 0 { Team::A } else { Team::B }) && team.is_some(),
    }
}

/// The box of match `m`; `links` makes it link to the real match's page.
fn match_box(m: &BracketMatchView, feeders: &Feeders, links: bool) -> MatchBox {
    let sides = [side(m, 0, feeders), side(m, 1, feeders)];
    MatchBox {
        number: format!("M{}", m.id + 1),
        href: m
            .match_id
            .filter(|_| links)
            .map(|id| format!("/matches/{id}")),
        status: m.status.as_str(),
        state: state_words(m.status),
        sentence: sentence(m, &sides),
        sides,
    }
}

/// The matches grouped by column: (section, round) → the column's matches by position.
/// Single elimination: the final closes the winners' columns, so it lines up with the
/// semi-finals that feed it.
fn columns(view: &BracketView, single: bool) -> BTreeMap<(Section, i64), Vec<&BracketMatchView>> {
    let winners_rounds = view
        .matches
        .iter()
        .filter(|m| m.bracket == Section::Winners)
        .map(|m| m.round)
        .max()
        .unwrap_or(0);
    let mut grouped: BTreeMap<(Section, i64), Vec<&BracketMatchView>> = BTreeMap::new();
    for m in &view.matches {
        let column = if single && m.bracket == Section::Final {
            (Section::Winners, winners_rounds + 1)
        } else {
            (m.bracket, m.round)
        };
        grouped.entry(column).or_default().push(m);
    }
    for list in grouped.values_mut() {
        list.sort_by_key(|m| m.position);
    }
    grouped
}

/// The sections, rounds in order, each round's boxes by position (rounds not yet named).
fn drawn_sections(view: &BracketView, single: bool, links: bool) -> Vec<DrawnSection> {
    let feeders = feeders(view);
    let mut sections: Vec<DrawnSection> = Vec::new();
    for ((section, round), list) in columns(view, single) {
        if sections.last().is_none_or(|s| s.section != section) {
            sections.push(DrawnSection {
                section,
                key: section.as_str(),
                title: section_title(section, single),
                rounds: Vec::new(),
            });
        }
        if let Some(drawn) = sections.last_mut() {
            drawn.rounds.push(DrawnRound {
                round,
                title: String::new(), // named by `name_rounds`, once the last round is known
                feeds: "",
                fed: false,
                boxes: list
                    .into_iter()
                    .map(|m| match_box(m, &feeders, links))
                    .collect(),
            });
        }
    }
    sections
}

/// Names each round of `section` and says which connector lines it draws.
fn name_rounds(section: &mut DrawnSection, single: bool) {
    let last = section.rounds.iter().map(|r| r.round).max().unwrap_or(1);
    let count: Vec<usize> = section.rounds.iter().map(|r| r.boxes.len()).collect();
    for (i, r) in section.rounds.iter_mut().enumerate() {
        r.title = round_title(section.section, r.round, last, single);
        // Connectors only inside a section, where the next column is fed by this one.
        r.feeds = match count.get(i + 1) {
            Some(&n) if n * 2 == count[i] => "pairs",
            Some(&n) if n == count[i] => "straight",
            _ => "",
        };
        r.fed = i > 0;
    }
}

/// Smaller boxes for bigger fields.
fn size_class(teams: usize) -> &'static str {
    match teams {
        0..=16 => "size-16",
        17..=32 => "size-32",
        33..=64 => "size-64",
        _ => "size-256",
    }
}

/// The printed sheet's grid: how many columns wide and box rows tall, and how many sections
/// stand one under the other (at least 1).
struct PrintGrid {
    columns: usize,
    rows: usize,
    stacked: usize,
}

/// Printed, the sections stand one under the other, except the small ones (final, third
/// place) which sit beside the winners' columns.
fn print_grid(sections: &[DrawnSection]) -> PrintGrid {
    let tall = |s: &DrawnSection| s.rounds.iter().map(|r| r.boxes.len()).max().unwrap_or(0);
    let (mut columns, mut rows, mut stacked) = (0, 0, 0);
    let mut beside = 0;
    for s in sections {
        if matches!(s.section, Section::Final | Section::ThirdPlace) {
            beside += s.rounds.len();
            rows = rows.max(tall(s));
        } else {
            columns = columns.max(s.rounds.len());
            rows += tall(s);
            stacked += 1;
        }
    }
    PrintGrid {
        columns: columns.max(sections.first().map_or(0, |s| s.rounds.len()) + beside),
        rows,
        stacked: stacked.max(1),
    }
}

/// The length in characters of the longest name drawn in a box.
fn longest_name(sections: &[DrawnSection]) -> usize {
    sections
        .iter()
        .flat_map(|s| &s.rounds)
        .flat_map(|r| &r.boxes)
        .flat_map(|b| &b.sides)
        .map(|t| t.name.chars().count())
        .max()
        .unwrap_or(0)
}

impl BracketDrawing {
    /// The drawing of `view`; `links` makes every box with a real match link to its page.
    pub fn new(view: &BracketView, links: bool) -> BracketDrawing {
        let single = view.format == Format::SingleElimination;
        let mut sections = drawn_sections(view, single, links);
        for section in &mut sections {
            name_rounds(section, single);
        }
        let grid = print_grid(&sections);
        let column_em = column_em(longest_name(&sections));
        BracketDrawing {
            champion: view.champion.as_ref().map(|t| t.name.clone()),
            live: view.matches.iter().any(|m| m.status.is_live()),
            fit: fit_tenths(grid.columns, column_em, grid.rows, grid.stacked),
            stacked: grid.stacked,
            column_em,
            size_class: size_class(view.teams.max(0) as usize),
            sections,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_titles() {
        use Section::{Final, Losers, ThirdPlace, Winners};
        assert_eq!(round_title(Winners, 1, 3, true), "Quarter-finals");
        assert_eq!(round_title(Winners, 2, 3, true), "Semi-finals");
        assert_eq!(round_title(Winners, 3, 3, true), "Final");
        assert_eq!(round_title(Winners, 1, 5, true), "Round 1");
        assert_eq!(round_title(Winners, 3, 5, true), "Quarter-finals");
        assert_eq!(round_title(Losers, 2, 4, false), "Losers round 2");
        assert_eq!(round_title(Losers, 4, 4, false), "Losers final");
        assert_eq!(round_title(Final, 1, 2, false), "Grand final");
        assert_eq!(round_title(Final, 2, 2, false), "Grand final reset");
        assert_eq!(round_title(ThirdPlace, 1, 1, true), "Third place");
    }

    #[test]
    fn the_print_size_shrinks_with_the_field() {
        // 16 teams single elimination: 4 columns + third place, 8 rows: at least 10 pt.
        assert!(fit_tenths(5, 13, 8, 1) >= 100);
        assert!(
            fit_tenths(1, 13, 1, 1) <= 120,
            "no bigger than the biggest class"
        );
        // 64 teams: 6 columns + third place, 32 rows.
        let big = fit_tenths(7, 13, 32, 1);
        assert!((40..120).contains(&big), "{big}");
        assert!(fit_tenths(7, 13, 16, 1) > big);
        // Long names make wider columns: a smaller font, never a cut name.
        assert!(fit_tenths(6, column_em(24), 16, 1) < fit_tenths(6, column_em(8), 16, 1));
    }

    #[test]
    fn a_column_fits_the_longest_name() {
        assert_eq!(column_em(0), 13);
        assert_eq!(column_em(9), 13);
        assert_eq!(column_em(24), 22);
        assert_eq!(column_em(80), 30);
    }
}
