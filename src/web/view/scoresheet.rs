//! The scoresheet: one row per hand with both teams' bids and tricks, the breakdown of the
//! points, the running score (bags) and the game's state after it. One view for the match
//! page, the supervisor console and the calculator, shown by
//! `templates/partials/scoresheet.html`; on the console and the match page also as one card
//! per hand for a phone ([`Scoresheet::cards`]), each team's points in words
//! ([`Scoresheet::with_breakdown`]).

use crate::domain::MatchId;
use crate::rules::calculator::{ScoreRequest, ScoreResponse, ScoredHandOut};
use crate::rules::hand::{BidInput, HandInput, TeamHandInput};
use crate::rules::{Phase, Rules, Team, TeamResult, WinReason};
use crate::service::night::lineups::LineupRow;
use crate::service::night::match_view::MatchView;
use crate::service::night::match_view::{Lineup, Seat};

pub struct Scoresheet {
    /// The table's `id`: `sheet` (the console, the calculator), `scoresheet` on the match
    /// page.
    pub id: &'static str,
    /// The teams as the header and the game column name them.
    pub names: [String; 2],
    pub rows: Vec<SheetRow>,
    /// Each cell carries its column's class (`nil`, `contract`, ...). The console's cells
    /// are bare (its tests read `<td>60</td>`).
    pub classes: bool,
    /// On the console: each hand links to its correction form.
    pub correct: Option<MatchId>,
    /// On the console and the match page: the hands also as cards (hand number, bids, tricks, points, the
    /// running score of both teams, a correction marked, its "Correct" button), shown instead
    /// of the table on a narrow screen.
    pub cards: bool,
}

/// A hand of the sheet.
pub struct SheetRow {
    pub number: usize,
    /// "misdeal", "tie-break hand", "time called".
    pub note: String,
    /// Revokes by team ("a:1 b:2"), empty without.
    pub revokes: String,
    /// The same by the teams' names ("Hall 5 1, The Aces 2"), as the console shows them.
    pub revokes_named: String,
    pub revision: i64,
    /// Why it was corrected (revisions after the first).
    pub reason: String,
    pub teams: [SheetTeam; 2],
    /// The game after this hand: "Team A wins (time called)", "In progress"...
    pub status: String,
}

/// A team's cells of a hand.
pub struct SheetTeam {
    pub bids: String,
    pub tricks: String,
    /// Tricks counted toward the contract where they differ from the tricks taken (a
    /// failed nil, a revoke).
    pub counted: Option<u8>,
    pub r: TeamResult,
    /// "made", "set" or empty (no contract).
    pub made: &'static str,
    /// The hand's points in words, on the console's cards ([`Scoresheet::with_breakdown`]):
    /// "−17: made 4 +40, 3 bags +3, bag penalty −60"; empty elsewhere.
    pub breakdown: String,
}

impl Scoresheet {
    /// The hands of a recorded match.
    pub fn of_match(m: &MatchView) -> Scoresheet {
        let names = [m.team_a.name.clone(), m.team_b.name.clone()];
        let rows = m
            .hands
            .iter()
            .map(|h| row(&h.scored, &h.hand, h.revision, h.reason.as_deref(), &names))
            .collect();
        Scoresheet::new(names, rows)
    }

    /// The sheet with who sat where: each hand played under a lineup (`lineups`, the rows of
    /// match `m`) names its players in the bids and tricks ("Kim 4 + Lee nil"), so it says
    /// who bid what; the hands before any lineup keep the bare numbers.
    pub fn with_lineups(mut self, m: &MatchView, lineups: &[LineupRow]) -> Scoresheet {
        if lineups.is_empty() {
            return self;
        }
        for (row, h) in self.rows.iter_mut().zip(&m.hands) {
            let number = i64::try_from(row.number).unwrap_or(i64::MAX);
            let seated = Lineup::at_hand(lineups, number);
            for (team, (cells, input)) in Team::BOTH.into_iter().zip(
                row.teams
                    .iter_mut()
                    .zip([h.hand.a.as_ref(), h.hand.b.as_ref()]),
            ) {
                if let (Some(seats), Some(input)) = (seated.of(team), input) {
                    cells.bids = named_bids(seats, input);
                    cells.tricks = named_tricks(seats, input);
                }
            }
        }
        self
    }

    /// Each team's points of each hand in words ([`SheetTeam::breakdown`]), under the
    /// rules of match `m`, whose sheet this is.
    pub fn with_breakdown(mut self, m: &MatchView) -> Scoresheet {
        for (row, h) in self.rows.iter_mut().zip(&m.hands) {
            let inputs = [h.hand.a.as_ref(), h.hand.b.as_ref()];
            for (cells, input) in row.teams.iter_mut().zip(inputs) {
                cells.breakdown = breakdown(&cells.r, input, &m.rules);
            }
        }
        self
    }

    /// The hands of a calculator request, as scored.
    pub fn of_calculation(request: &ScoreRequest, answer: &ScoreResponse) -> Scoresheet {
        let names = TEAMS.map(String::from);
        let rows = answer
            .hands
            .iter()
            .zip(&request.hands)
            .map(|(out, hand)| row(out, hand, 1, None, &names))
            .collect();
        Scoresheet::new(names, rows)
    }

    /// The sheet as the console and the calculator show it: cells with their classes, no
    /// correction links.
    fn new(names: [String; 2], rows: Vec<SheetRow>) -> Scoresheet {
        Scoresheet {
            id: "sheet",
            names,
            rows,
            classes: true,
            correct: None,
            cards: false,
        }
    }

    /// How many hands were corrected after entry.
    pub fn corrected(&self) -> usize {
        self.rows.iter().filter(|r| r.revision > 1).count()
    }
}

/// The teams' names where they have none (the calculator).
pub const TEAMS: [&str; 2] = ["Team A", "Team B"];

fn row(
    out: &ScoredHandOut,
    hand: &HandInput,
    revision: i64,
    reason: Option<&str>,
    names: &[String; 2],
) -> SheetRow {
    let team = |r: &TeamResult, cells: Option<&TeamHandInput>| SheetTeam {
        bids: cells.map(bids_text).unwrap_or_default(),
        tricks: cells.map(tricks_text).unwrap_or_default(),
        counted: cells
            .map(|c| c.tricks.iter().sum::<i64>())
            .filter(|taken| *taken != i64::from(r.tricks_counted))
            .map(|_| r.tricks_counted),
        r: *r,
        made: match r.made {
            Some(true) => "made",
            Some(false) => "set",
            None => "",
        },
        breakdown: String::new(),
    };
    let notes = [
        (out.misdeal, "misdeal"),
        (out.tiebreak, "tie-break hand"),
        (out.time_called, "time called"),
    ];
    SheetRow {
        number: out.number,
        note: notes
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, note)| *note)
            .collect::<Vec<_>>()
            .join(", "),
        revokes: revokes_text(hand),
        revokes_named: revokes_named(hand, names),
        revision,
        reason: reason.unwrap_or_default().to_string(),
        teams: [team(&out.a, hand.a.as_ref()), team(&out.b, hand.b.as_ref())],
        status: hand_words(out, names),
    }
}

/// A team's points of a hand in words, each part with its points: "−17: made 4 +40, 3 bags
/// +3, bag penalty −60", "−110: nil failed −100, set 1 −10", "+200: made 10 (10-for-200)
/// +200". A misdeal (no cells) is its points alone.
fn breakdown(r: &TeamResult, cells: Option<&TeamHandInput>, rules: &Rules) -> String {
    let mut parts = Vec::new();
    if let Some(cells) = cells {
        let nils: Vec<String> = cells
            .bids
            .iter()
            .zip(&cells.tricks)
            .filter(|(bid, _)| is_nil(bid, rules))
            .map(|(bid, tricks)| {
                let outcome = if *tricks == 0 { "made" } else { "failed" };
                format!("{} {outcome}", bid_text(bid))
            })
            .collect();
        if !nils.is_empty() {
            parts.push(format!("{} {}", nils.join(", "), signed(r.nil_points)));
        }
    }
    if let Some(made) = r.made {
        let word = if made { "made" } else { "set" };
        let blind = if r.blind { " blind" } else { "" };
        parts.push(format!(
            "{word} {}{blind}{} {}",
            r.contract,
            bonus_name(r.contract, rules),
            signed(r.contract_points)
        ));
    }
    if r.bags_taken > 0 {
        let bags = match r.bags_taken {
            1 => "1 bag".to_string(),
            n => format!("{n} bags"),
        };
        parts.push(match r.bag_points {
            0 => bags,
            p => format!("{bags} {}", signed(p)),
        });
    }
    if r.bag_penalty != 0 {
        parts.push(format!("bag penalty {}", signed(r.bag_penalty)));
    }
    if r.revoke_award != 0 {
        parts.push(format!("revokes {}", signed(r.revoke_award)));
    }
    match parts.is_empty() {
        true => signed(r.points),
        false => format!("{}: {}", signed(r.points), parts.join(", ")),
    }
}

/// Whether `bid` is a nil under `rules` (a 0 is one where the rules say so).
fn is_nil(bid: &BidInput, rules: &Rules) -> bool {
    match bid {
        BidInput::Word(_) => true,
        BidInput::Number(n) => *n == 0 && rules.zero_bid_is_nil,
    }
}

/// The name of the bonus a contract of `contract` plays for, with a space before it:
/// " (moon)", " (10-for-200)", or empty.
fn bonus_name(contract: u8, rules: &Rules) -> String {
    if contract == 13 && rules.moon.is_some() {
        return " (moon)".to_string();
    }
    match &rules.ten_for_200 {
        Some(t) if contract >= t.min_bid => format!(" ({}-for-{})", t.min_bid, t.value),
        _ => String::new(),
    }
}

/// Points with their sign, a true minus (read "minus" aloud): "+40", "−60", "0".
fn signed(points: i32) -> String {
    match points {
        0 => "0".to_string(),
        p if p > 0 => format!("+{p}"),
        p => format!("\u{2212}{}", p.unsigned_abs()),
    }
}

/// A bid in words: "4", "nil", "blind nil".
pub fn bid_text(bid: &BidInput) -> String {
    match bid {
        BidInput::Number(n) => n.to_string(),
        BidInput::Word(w) => w.replace('_', " "),
    }
}

/// A team's bids in words: "4 + nil", "3 + 4 (blind)".
pub fn bids_text(team: &TeamHandInput) -> String {
    let bids: Vec<String> = team.bids.iter().map(bid_text).collect();
    format!(
        "{}{}",
        bids.join(" + "),
        if team.blind { " (blind)" } else { "" }
    )
}

/// A team's bids by its players: "Kim 4 + Lee nil (blind)".
fn named_bids(seats: &[Seat; 2], team: &TeamHandInput) -> String {
    let bids: Vec<String> = seats
        .iter()
        .zip(&team.bids)
        .map(|(seat, bid)| format!("{} {}", seat.name, bid_text(bid)))
        .collect();
    format!(
        "{}{}",
        bids.join(" + "),
        if team.blind { " (blind)" } else { "" }
    )
}

/// A team's tricks by its players: "Kim 5 + Lee 0".
fn named_tricks(seats: &[Seat; 2], team: &TeamHandInput) -> String {
    seats
        .iter()
        .zip(&team.tricks)
        .map(|(seat, tricks)| format!("{} {tricks}", seat.name))
        .collect::<Vec<_>>()
        .join(" + ")
}

/// A team's tricks: "5 + 0".
pub fn tricks_text(team: &TeamHandInput) -> String {
    team.tricks
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(" + ")
}

/// Revokes by team: "a:1 b:2" (empty without).
pub fn revokes_text(hand: &HandInput) -> String {
    let Some(r) = &hand.revokes else {
        return String::new();
    };
    let mut parts = Vec::new();
    if r.a != 0 {
        parts.push(format!("a:{}", r.a));
    }
    if r.b != 0 {
        parts.push(format!("b:{}", r.b));
    }
    parts.join(" ")
}

/// Revokes by team, by the teams' names: "Hall 5 1, The Aces 2" (empty without).
pub fn revokes_named(hand: &HandInput, names: &[String; 2]) -> String {
    let Some(r) = &hand.revokes else {
        return String::new();
    };
    [(r.a, &names[0]), (r.b, &names[1])]
        .into_iter()
        .filter(|(n, _)| *n != 0)
        .map(|(n, name)| format!("{name} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The game after a scored hand, in words.
fn hand_words(out: &ScoredHandOut, names: &[String; 2]) -> String {
    game_words(out.status, out.winner, out.reason, names)
}

/// A game's state in words, with the teams' names: "Team A wins (time called)", "Draw",
/// "Tied: the next hand breaks the tie", "In progress". `status` and `reason` as the
/// engine's answer names them (`won`, `time`).
pub fn game_words(
    status: Phase,
    winner: Option<Team>,
    reason: Option<WinReason>,
    names: &[String; 2],
) -> String {
    match (status, winner) {
        (Phase::Won, Some(team)) => format!(
            "{} wins ({})",
            names[team.index()],
            reason.map_or("", WinReason::words)
        ),
        (Phase::Tied, _) => "Draw".into(),
        (Phase::Tiebreak, _) => "Tied: the next hand breaks the tie".into(),
        _ => "In progress".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::calculator::score_request;
    use crate::rules::params::RulesSpec;

    fn team(bids: &[BidInput], tricks: &[i64], blind: bool) -> TeamHandInput {
        TeamHandInput {
            bids: bids.to_vec(),
            tricks: tricks.to_vec(),
            blind,
        }
    }

    #[test]
    fn bids_and_tricks_in_words() {
        let a = team(
            &[BidInput::Number(4), BidInput::Word("blind_nil".into())],
            &[5, 0],
            false,
        );
        assert_eq!(bids_text(&a), "4 + blind nil");
        assert_eq!(tricks_text(&a), "5 + 0");
        let b = team(&[BidInput::Number(3), BidInput::Number(4)], &[4, 4], true);
        assert_eq!(bids_text(&b), "3 + 4 (blind)");
    }

    #[test]
    fn a_calculation_reads_as_the_sheet() {
        let hand = |a: TeamHandInput, b: TeamHandInput, time_called: bool| HandInput {
            a: Some(a),
            b: Some(b),
            time_called,
            ..HandInput::default()
        };
        let request = ScoreRequest {
            rules: RulesSpec::Preset("unc-im-300".into()),
            stage: crate::rules::Stage::Regular,
            start: None,
            hands: vec![
                hand(
                    team(
                        &[BidInput::Number(4), BidInput::Word("nil".into())],
                        &[5, 0],
                        false,
                    ),
                    team(&[BidInput::Number(3), BidInput::Number(4)], &[4, 4], false),
                    false,
                ),
                hand(
                    team(&[BidInput::Number(4), BidInput::Number(3)], &[4, 3], false),
                    team(&[BidInput::Number(2), BidInput::Number(2)], &[2, 4], false),
                    true,
                ),
            ],
        };
        let answer = match score_request(&request) {
            Ok(answer) => answer,
            Err(e) => panic!("scored: {}", e.message),
        };
        let sheet = Scoresheet::of_calculation(&request, &answer);
        assert_eq!(sheet.rows.len(), 2);
        let first = &sheet.rows[0];
        assert_eq!(first.teams[0].bids, "4 + nil");
        assert_eq!(first.teams[0].r.nil_points, 60);
        assert_eq!(first.status, "In progress");
        let last = &sheet.rows[1];
        assert_eq!(last.note, "time called");
        assert_eq!(last.status, "Team A wins (time called)");
        assert_eq!(sheet.corrected(), 0);
    }
}
