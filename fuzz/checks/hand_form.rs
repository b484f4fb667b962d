//! Fuzzes the hand form parser (`spades_im::rules::form`): a form body read the way
//! the calculator page (`POST /calculator`) and the console's hand form read it, turned into
//! the API's `HandInput` and scored by the engine.
//!
//! Every input is first taken as it is, as a form body (arbitrary bytes). It is then decoded
//! with `arbitrary` into a structured form (realistic field names, values mostly well typed,
//! with spaces, signs, leading zeros, huge numbers, other scripts' digits, control characters
//! now and then), encoded and checked the same way.
//!
//! Each body is read with `serde_urlencoded` into name/value pairs (what actix-web's
//! `web::Form<Vec<(String, String)>>` does) and goes through both pages' paths:
//!
//! - the calculator: `CalcForm::from_pairs` → `to_request` (`TypedHand::to_input` per row)
//!   → `score_request`, then the scoresheet the page shows;
//! - the console: `HandForm::from_pairs` (the console's own reading of its form) →
//!   `HandForm::to_input` → scored under rules with every option.
//!
//! The invariants are in `check_*`; a panic (arithmetic overflow included) is a crash.

use std::collections::BTreeMap;

use arbitrary::{Arbitrary, Unstructured};
use serde_json::{Value, json};
use spades_im::domain::FieldError;
use spades_im::rules::calculator::parse_request;
use spades_im::rules::form::TypedHand;
use spades_im::rules::hand::{BidInput, HandInput, RevokesInput, TeamHandInput};
use spades_im::rules::params::RulesSpec;
use spades_im::rules::{ScoreRequest, ScoreResponse, Stage, Team, score_json, score_request};
use spades_im::web::pages::calculator::CalcForm;
use spades_im::web::pages::console::form::HandForm;
use spades_im::web::view::scoresheet::{Scoresheet, TEAMS, game_words};

/// One input: (a) the bytes as a form body, (b) the structured form they decode to. Panics
/// where an answer breaks an invariant.
pub fn check_input(data: &[u8]) {
    // (a) The bytes as they come, as a form body.
    check_body(data);
    // (b) A structured form.
    if let Ok(pairs) = form(&mut Unstructured::new(data)) {
        let body = serde_urlencoded::to_string(&pairs).expect("pairs of strings encode");
        check_body(body.as_bytes());
    }
}

/// `FUZZ_SHOW_FORM=1` prints each body (structured or not) and how the calculator and the
/// console took it (to see what a crash posts, or what the corpus exercises).
fn show_forms() -> bool {
    static SHOW: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SHOW.get_or_init(|| std::env::var_os("FUZZ_SHOW_FORM").is_some())
}

fn check_body(body: &[u8]) {
    // A body that does not read is a 400 before any page code runs (it cannot happen for
    // pairs of strings: invalid UTF-8 is replaced, not refused).
    let Ok(pairs) = serde_urlencoded::from_bytes::<Vec<(String, String)>>(body) else {
        return;
    };
    for (name, value) in &pairs {
        let taken = TypedHand::default().set(name, value);
        assert_eq!(
            taken,
            cell(name).is_some(),
            "set({name:?}) says {taken}, but that is{} a hand field",
            if taken { " not" } else { "" }
        );
    }
    if show_forms() {
        eprintln!("{}", String::from_utf8_lossy(body));
    }
    let calculator = check_calculator(&pairs);
    let console = check_console(&pairs);
    if show_forms() {
        eprintln!("=> calculator: {calculator}; console: {console}");
    }
}

// ---------------------------------------------------------------------------------------------
// What the fields mean, by the names the templates write.

/// A hand field of a form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cell {
    Bid(usize, usize),
    Tricks(usize, usize),
    Revokes(usize),
    Blind(usize),
    Misdeal,
    Time,
}

const KEYS: [&str; 2] = ["a", "b"];
/// Seats of `[team][player]`: team a is seats 1 and 3, team b seats 2 and 4.
const SEATS: [[u8; 2]; 2] = [[1, 3], [2, 4]];

/// The hand fields, as the templates name them (without the calculator's `h{i}_`).
const CELLS: [(&str, Cell); 14] = [
    ("a_bid0", Cell::Bid(0, 0)),
    ("a_bid1", Cell::Bid(0, 1)),
    ("b_bid0", Cell::Bid(1, 0)),
    ("b_bid1", Cell::Bid(1, 1)),
    ("a_tricks0", Cell::Tricks(0, 0)),
    ("a_tricks1", Cell::Tricks(0, 1)),
    ("b_tricks0", Cell::Tricks(1, 0)),
    ("b_tricks1", Cell::Tricks(1, 1)),
    ("a_revokes", Cell::Revokes(0)),
    ("b_revokes", Cell::Revokes(1)),
    ("a_blind", Cell::Blind(0)),
    ("b_blind", Cell::Blind(1)),
    ("misdeal", Cell::Misdeal),
    ("time", Cell::Time),
];

/// The hand field `name` is, if any.
fn cell(name: &str) -> Option<Cell> {
    CELLS.iter().find(|(n, _)| *n == name).map(|(_, c)| *c)
}

/// A field posted into what was typed: text as sent (the last one wins), a checkbox ticked by
/// being sent at all, whatever its value.
fn put(typed: &mut TypedHand, cell: Cell, value: &str) {
    match cell {
        Cell::Bid(t, p) => typed.bids[t][p] = value.to_string(),
        Cell::Tricks(t, p) => typed.tricks[t][p] = value.to_string(),
        Cell::Revokes(t) => typed.revokes[t] = value.to_string(),
        Cell::Blind(t) => typed.blind[t] = true,
        Cell::Misdeal => typed.misdeal = true,
        Cell::Time => typed.time_called = true,
    }
}

/// Nothing typed: no box ticked, every text blank.
fn blank(typed: &TypedHand) -> bool {
    let texts = typed.bids.iter().chain(&typed.tricks).flatten();
    !typed.misdeal
        && !typed.time_called
        && typed.blind == [false; 2]
        && texts.chain(&typed.revokes).all(|s| s.trim().is_empty())
}

/// What is wrong with a typed hand, by the form's rules: the first cell, in reading order
/// (team a's seat 1 bid, its tricks, seat 3 bid, tricks, a's revokes, then team b), that is
/// blank where something is needed or not a whole number where one is.
#[derive(Debug)]
struct Blame {
    team: usize,
    player: Option<usize>,
    field: &'static str,
    /// The text as typed, trimmed (quoted in the message unless empty).
    text: String,
}

/// The hand a typed form stands for (the API's shape), or the cell to blame.
fn expected(typed: &TypedHand) -> Result<HandInput, Blame> {
    if typed.misdeal {
        // A misdeal carries nothing else, whatever else was typed.
        return Ok(HandInput {
            misdeal: true,
            ..HandInput::default()
        });
    }
    let number = |text: &str| text.parse::<i64>().ok();
    let mut teams = Vec::new();
    let mut revokes = [0i64; 2];
    for (t, count) in revokes.iter_mut().enumerate() {
        let mut team = TeamHandInput {
            bids: Vec::new(),
            tricks: Vec::new(),
            blind: typed.blind[t],
        };
        for p in 0..2 {
            let bid = typed.bids[t][p].trim();
            if bid.is_empty() {
                let text = String::new();
                let (team, player, field) = (t, Some(p), "bids");
                return Err(Blame {
                    team,
                    player,
                    field,
                    text,
                });
            }
            team.bids.push(match number(bid) {
                Some(n) => BidInput::Number(n),
                None => BidInput::Word(bid.to_string()),
            });
            let took = typed.tricks[t][p].trim();
            let Some(took_n) = number(took) else {
                let text = took.to_string();
                let (team, player, field) = (t, Some(p), "tricks");
                return Err(Blame {
                    team,
                    player,
                    field,
                    text,
                });
            };
            team.tricks.push(took_n);
        }
        let text = typed.revokes[t].trim();
        *count = if text.is_empty() {
            0
        } else {
            number(text).ok_or_else(|| Blame {
                team: t,
                player: None,
                field: "revokes",
                text: text.to_string(),
            })?
        };
        teams.push(team);
    }
    let b = teams.pop();
    let a = teams.pop();
    Ok(HandInput {
        misdeal: false,
        a,
        b,
        revokes: (revokes != [0, 0]).then_some(RevokesInput {
            a: revokes[0],
            b: revokes[1],
        }),
        time_called: typed.time_called,
    })
}

// ---------------------------------------------------------------------------------------------
// The calculator page.

/// The calculator's rows as posted: `h{i}_{field}` (`i` below 200) into row `i`, the rows up
/// to the last one named, trailing blank rows dropped.
fn posted_rows(pairs: &[(String, String)]) -> Vec<TypedHand> {
    let mut rows: BTreeMap<usize, TypedHand> = BTreeMap::new();
    for (name, value) in pairs {
        let Some((index, field)) = name.strip_prefix('h').and_then(|r| r.split_once('_')) else {
            continue;
        };
        let Ok(index) = index.parse::<usize>() else {
            continue;
        };
        if index >= 200 {
            continue;
        }
        let row = rows.entry(index).or_default();
        if let Some(cell) = cell(field) {
            put(row, cell, value);
        }
    }
    let count = rows.keys().next_back().map_or(0, |last| last + 1);
    let mut rows: Vec<TypedHand> = (0..count)
        .map(|i| rows.remove(&i).unwrap_or_default())
        .collect();
    while rows.last().is_some_and(blank) {
        rows.pop();
    }
    rows
}

/// The last value sent for `name`, or `default`.
fn last<'a>(pairs: &'a [(String, String)], name: &str, default: &'a str) -> &'a str {
    pairs
        .iter()
        .rev()
        .find(|(n, _)| n == name)
        .map_or(default, |(_, v)| v.as_str())
}

fn check_calculator(pairs: &[(String, String)]) -> String {
    let form = CalcForm::from_pairs(pairs);
    // What is shown back (after an error too) is what was typed.
    assert_eq!(form.preset, last(pairs, "preset", "unc-im-300"));
    assert_eq!(form.overrides, last(pairs, "overrides", ""));
    assert_eq!(form.stage, last(pairs, "stage", "regular"));
    let starts = [
        "start_a_score",
        "start_a_bags",
        "start_b_score",
        "start_b_bags",
    ];
    for (i, name) in starts.iter().enumerate() {
        assert_eq!(form.start[i], last(pairs, name, ""), "{name}");
    }
    assert_eq!(
        form.rows,
        posted_rows(pairs),
        "the rows are not what was typed"
    );
    assert_eq!(
        CalcForm::from_pairs(pairs).rows,
        form.rows,
        "reading a form is not deterministic"
    );

    let outcome = form.to_request();
    assert_eq!(
        form.to_request(),
        outcome,
        "to_request is not deterministic"
    );
    let parsed: Vec<Result<HandInput, FieldError>> = form
        .rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let result = row.to_input(i + 1);
            check_typed(row, i + 1, &result);
            result
        })
        .collect();

    let request = match outcome {
        Err(e) => {
            if let Some(n) = e.hand {
                // The first row that does not parse, and its own error.
                let first_bad = parsed.iter().position(Result::is_err);
                assert_eq!(first_bad, Some(n - 1), "{e:?} is not the first bad row");
                assert_eq!(parsed[n - 1].as_ref().err(), Some(&e));
            } else {
                assert_eq!(e.code.as_str(), "invalid_form", "{e:?}");
                let field = e.field.as_ref().map(|f| f.as_str()).unwrap_or("");
                assert!(
                    ["overrides", "stage", "start"].contains(&field),
                    "a form error names {field:?}: {e:?}"
                );
            }
            check_repost(&form, pairs, &Err(e.clone()));
            return format!("form error {:?} {:?}", e.hand, e.field);
        }
        Ok(request) => request,
    };
    let hands: Vec<HandInput> = parsed.into_iter().map(|h| h.expect("rows parse")).collect();
    assert_eq!(
        request.hands, hands,
        "the request's hands are not the rows'"
    );
    let answer = score_request(&request);
    check_json(&request, &answer);
    check_answer(&form.rows, &request, &answer);
    check_repost(&form, pairs, &Ok(request));
    match &answer {
        Ok(a) => format!("ok {} hands, {}", a.hands.len(), a.status.as_str()),
        Err(e) => format!("error {} {:?} {:?}", e.code, e.hand, e.field),
    }
}

/// One typed hand against what the form means: the same hand, or an error that names the
/// first bad cell (its hand, seat, field) and quotes what was typed; a recorded hand shown
/// back in a correction form reads back as itself.
fn check_typed(typed: &TypedHand, number: usize, result: &Result<HandInput, FieldError>) {
    assert_eq!(
        &typed.to_input(number),
        result,
        "to_input is not deterministic"
    );
    match (result, expected(typed)) {
        (Ok(hand), Ok(want)) => {
            assert_eq!(hand, &want, "the hand is not what was typed: {typed:?}");
            let shown = TypedHand::of_hand(hand);
            assert_eq!(
                shown.to_input(number).as_ref(),
                Ok(hand),
                "the correction form of {hand:?} ({shown:?}) reads back differently"
            );
            check_shown(typed, &shown, hand);
        }
        (Err(e), Err(blame)) => {
            let t = blame.team;
            assert_eq!(e.code.as_str(), "invalid_hand");
            assert_eq!(e.hand, Some(number), "{e:?}");
            assert_eq!(
                (e.team, e.player, e.field.as_ref().map(|f| f.as_str())),
                (Some(Team::BOTH[t]), blame.player, Some(blame.field)),
                "{e:?} blames the wrong cell ({blame:?}) of {typed:?}"
            );
            let prefix = format!("hand {number}: ");
            assert!(e.message.starts_with(&prefix), "{e:?}");
            if let Some(p) = blame.player {
                let seat = format!("seat {} ", SEATS[t][p]);
                assert!(e.message.contains(&seat), "{e:?} does not name {seat}");
            }
            if !blame.text.is_empty() {
                let quoted = format!("\"{}\"", blame.text);
                assert!(e.message.contains(&quoted), "{e:?} does not quote {quoted}");
            }
        }
        (result, want) => panic!("{typed:?} gives {result:?}, but the form means {want:?}"),
    }
}

/// The correction form of a hand (`of_hand`) shows each cell as typed wherever the typing was
/// already plain (a bid or count as its number, a word as itself, no revokes as blank).
fn check_shown(typed: &TypedHand, shown: &TypedHand, hand: &HandInput) {
    assert_eq!(shown.misdeal, hand.misdeal);
    assert_eq!(shown.time_called, hand.time_called);
    if hand.misdeal {
        assert!(blank(&TypedHand {
            misdeal: false,
            ..shown.clone()
        }));
        return;
    }
    let plain = |text: &str| match text.parse::<i64>() {
        Ok(n) => n.to_string() == text,
        Err(_) => text.trim() == text,
    };
    for t in 0..2 {
        for p in 0..2 {
            for (typed, shown) in [
                (&typed.bids[t][p], &shown.bids[t][p]),
                (&typed.tricks[t][p], &shown.tricks[t][p]),
            ] {
                if plain(typed) {
                    assert_eq!(typed, shown, "typed {typed:?}, shown back {shown:?}");
                }
            }
        }
        assert_eq!(shown.blind[t], typed.blind[t]);
        let revokes = &typed.revokes[t];
        if plain(revokes) && revokes != "0" {
            assert_eq!(revokes, &shown.revokes[t], "revokes");
        }
    }
}

/// The request of a form goes to the API as JSON: it reads back as itself and scores the same
/// as scoring it directly, every time.
fn check_json(request: &ScoreRequest, answer: &Result<ScoreResponse, FieldError>) {
    let value = serde_json::to_value(request).expect("a request serializes");
    assert_eq!(
        parse_request(value.clone()).as_ref(),
        Ok(request),
        "the form's request reads back from JSON as another: {value}"
    );
    assert_eq!(
        &score_json(value),
        answer,
        "the form's request scores differently through JSON"
    );
    assert_eq!(
        &score_request(request),
        answer,
        "scoring is not deterministic"
    );
}

/// The fields a page can mark on a hand row (`row_views`, `form_view`).
const HAND_FIELDS: [&str; 6] = [
    "bids",
    "tricks",
    "revokes",
    "blind",
    "time_called",
    "misdeal",
];

/// The engine's answer to a form: an error the page can show next to a real row and cell of
/// what was typed, or a scoresheet of the hands typed.
fn check_answer(
    rows: &[TypedHand],
    request: &ScoreRequest,
    answer: &Result<ScoreResponse, FieldError>,
) {
    let answer = match answer {
        Err(e) => return check_engine_error(rows.len(), request, e),
        Ok(answer) => answer,
    };
    assert_eq!(answer.hands.len(), rows.len());
    let sheet = Scoresheet::of_calculation(request, answer);
    assert_eq!(sheet.rows.len(), rows.len());
    for (row, hand) in sheet.rows.iter().zip(&request.hands) {
        for (t, team) in [&hand.a, &hand.b].into_iter().enumerate() {
            let tricks = team.as_ref().map_or(String::new(), |team| {
                format!("{} + {}", team.tricks[0], team.tricks[1])
            });
            assert_eq!(row.teams[t].tricks, tricks);
        }
    }
    let names = TEAMS.map(String::from);
    let words = game_words(answer.status, answer.winner, answer.reason, &names);
    assert!(!words.is_empty());
}

fn check_engine_error(rows: usize, request: &ScoreRequest, e: &FieldError) {
    assert!(!e.message.is_empty());
    assert!(
        e.player.is_none() || (e.team.is_some() && e.player < Some(2)),
        "{e:?}"
    );
    let field = e.field.as_ref().map(|f| f.as_str());
    match e.code.as_str() {
        "invalid_rules" => {
            assert_eq!(e.hand, None, "{e:?}");
            assert!(field.is_none_or(|f| f.starts_with("rules.")), "{e:?}");
        }
        "invalid_start" => assert_eq!((e.hand, field), (None, Some("start")), "{e:?}"),
        "game_over" => {
            // The hand after the one that decided the game (the first, if the start did).
            let n = e.hand.expect("game_over names the hand");
            assert!((1..=rows).contains(&n), "{e:?} of {rows} rows");
        }
        "invalid_hand" => {
            let n = e.hand.expect("an invalid hand is named");
            assert!(
                (1..=rows).contains(&n),
                "{e:?} names a row out of 1..={rows}"
            );
            assert!(e.message.starts_with(&format!("hand {n}: ")), "{e:?}");
            let hand = &request.hands[n - 1];
            if let (Some(team), Some(p)) = (e.team, e.player) {
                let seat = format!("seat {} ", SEATS[team.index()][p]);
                assert!(e.message.contains(&seat), "{e:?} does not name {seat}");
            }
            let Some(field) = field else {
                // Points out of range: a team, no cell.
                assert!(e.team.is_some(), "{e:?}");
                return;
            };
            assert!(
                HAND_FIELDS.contains(&field),
                "{e:?}: no such field on the page"
            );
            let team = e.team.map(|t| t.index());
            // The cell named was filled in.
            match (field, team) {
                ("misdeal", _) => panic!("a form's misdeal carries nothing else: {e:?}"),
                ("time_called", _) => assert!(hand.time_called, "{e:?}"),
                ("blind", Some(t)) => assert!(team_of(hand, t).is_some_and(|x| x.blind), "{e:?}"),
                ("revokes", Some(t)) => {
                    let r = hand.revokes.as_ref().map(|r| [r.a, r.b][t]);
                    assert!(r.is_some_and(|r| r != 0), "{e:?}");
                }
                ("tricks", None) => {
                    let sum: i64 = [&hand.a, &hand.b]
                        .into_iter()
                        .flatten()
                        .flat_map(|x| &x.tricks)
                        .sum();
                    assert_ne!(sum, 13, "{e:?}");
                }
                ("bids" | "tricks", Some(_)) => {}
                _ => panic!("{e:?} names no seat or team"),
            }
        }
        other => panic!("unknown code {other}: {e:?}"),
    }
}

fn team_of(hand: &HandInput, t: usize) -> Option<&TeamHandInput> {
    [&hand.a, &hand.b][t].as_ref()
}

/// The bids the calculator's `<select>`s offer.
fn bid_option(value: &str) -> bool {
    matches!(value, "" | "nil" | "blind_nil")
        || value
            .parse::<u8>()
            .is_ok_and(|n| n <= 13 && n.to_string() == value)
}

/// A value an `<input type="number">` keeps (an HTML "valid floating-point number"), or
/// empty: anything else a browser shows as empty.
fn number_input(value: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if value.is_empty() {
        return true;
    }
    let value = value.strip_prefix('-').unwrap_or(value);
    let (mantissa, exponent) = match value.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (value, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => (int.is_empty() || digits(int)) && digits(frac),
        None => digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)));
    mantissa_ok && exponent_ok
}

/// `FUZZ_STRICT_SHOWN=1`: `check_repost` also takes forms a browser could not have sent.
fn strict_shown() -> bool {
    static STRICT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *STRICT.get_or_init(|| std::env::var_os("FUZZ_STRICT_SHOWN").is_some())
}

/// The page shows the form back (after an error, or with the scoresheet) and the user posts
/// it again. Each value is shown as a browser shows it: a `<select>` whose typed value is not
/// among its options falls back to its first option, an `<input type="number">` drops a value
/// that is not a number.
///
/// For a form a browser could have sent (every value shown as typed): the same rows and the
/// same outcome. With `FUZZ_STRICT_SHOWN=1`, for any form that scored: posted again, it
/// scores the same (it fails on a bid typed ` 4` or `04`, shown back unselected: see the README).
fn check_repost(
    form: &CalcForm,
    pairs: &[(String, String)],
    outcome: &Result<ScoreRequest, FieldError>,
) {
    let mut kept = true;
    let mut show = |value: &str, ok: bool, fallback: &str| -> String {
        kept &= ok;
        if ok { value } else { fallback }.to_string()
    };
    let presets = spades_im::rules::presets();
    let preset_ok = presets.iter().any(|p| p.name == form.preset);
    let preset = show(&form.preset, preset_ok, presets[0].name);
    let stage = match form.stage.as_str() {
        // No stage is the regular season, shown selected.
        "" => "regular".to_string(),
        s => show(s, ["regular", "playoff", "final"].contains(&s), "regular"),
    };
    let mut shown: Vec<(String, String)> = vec![
        ("preset".into(), preset),
        ("stage".into(), stage),
        ("overrides".into(), form.overrides.clone()),
    ];
    let starts = [
        "start_a_score",
        "start_a_bags",
        "start_b_score",
        "start_b_bags",
    ];
    for (name, value) in starts.iter().zip(&form.start) {
        let value = show(value, number_input(value), "");
        shown.push((name.to_string(), value));
    }
    shown.push(("rows".into(), (form.rows.len() + 1).to_string()));
    // The rows, and the blank row the page adds for the next hand.
    let next = TypedHand::default();
    for (i, row) in form.rows.iter().chain([&next]).enumerate() {
        for (t, key) in KEYS.iter().enumerate() {
            for p in 0..2 {
                let bid = &row.bids[t][p];
                let tricks = &row.tricks[t][p];
                let bid = show(bid, bid_option(bid), "");
                let tricks = show(tricks, number_input(tricks), "");
                shown.push((format!("h{i}_{key}_bid{p}"), bid));
                shown.push((format!("h{i}_{key}_tricks{p}"), tricks));
            }
            if row.blind[t] {
                shown.push((format!("h{i}_{key}_blind"), "1".into()));
            }
            let revokes = &row.revokes[t];
            let revokes = show(revokes, number_input(revokes), "");
            shown.push((format!("h{i}_{key}_revokes"), revokes));
        }
        if row.time_called {
            shown.push((format!("h{i}_time"), "1".into()));
        }
        if row.misdeal {
            shown.push((format!("h{i}_misdeal"), "1".into()));
        }
    }
    shown.push(("action".into(), last(pairs, "action", "score").into()));
    let again = CalcForm::from_pairs(&shown);
    if kept {
        assert_eq!(
            again.rows, form.rows,
            "the form shown back reads differently"
        );
        assert_eq!(
            &again.to_request(),
            outcome,
            "the form shown back and posted again gives another answer"
        );
    } else if strict_shown()
        && let Ok(request) = outcome
        && let Ok(answer) = score_request(request)
    {
        assert_eq!(
            again.to_request().and_then(|r| score_request(&r)),
            Ok(answer),
            "a form that scored, shown back and posted again, scores differently: {shown:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The console's hand form.

/// The fields of the console's `HandForm::from_pairs` that are not the hand's (`time` is
/// called with its own button).
const CONSOLE_FIELDS: [&str; 8] = [
    "reason",
    "expected_version",
    "idempotency_key",
    "team",
    "confirm",
    "reset_bracket_path",
    "time",
    "csrf",
];

/// Rules where every hand field scores: a time limit, revokes and blind bids.
fn console_rules() -> RulesSpec {
    let Value::Object(map) = json!({
        "preset": "unc-im-300",
        "blind_bids": {"min_bid": 6, "multiplier": 2, "when": "always", "deficit": 0},
    }) else {
        unreachable!()
    };
    RulesSpec::Custom(map)
}

fn check_console(pairs: &[(String, String)]) -> String {
    // The console's own reading of the form.
    let form = HandForm::from_pairs(pairs);
    let mut want = TypedHand::default();
    for (name, value) in pairs {
        if !CONSOLE_FIELDS.contains(&name.as_str())
            && let Some(cell) = cell(name)
        {
            put(&mut want, cell, value);
        }
    }
    assert_eq!(form.hand, want, "the console's hand is not what was typed");
    // Its other fields: the last value posted, a box ticked by being sent at all.
    let sent = |name: &str| pairs.iter().any(|(n, _)| n == name);
    assert_eq!(form.reason, last(pairs, "reason", ""));
    assert_eq!(form.version, last(pairs, "expected_version", ""));
    assert_eq!(form.key, last(pairs, "idempotency_key", ""));
    assert_eq!(form.confirm, sent("confirm"));
    assert_eq!(form.reset_bracket_path, sent("reset_bracket_path"));
    assert_eq!(
        form.expected_version().ok(),
        form.version.trim().parse::<i64>().ok(),
        "the version is the number typed"
    );
    // The hand's number in the match (for messages).
    let number = 1 + pairs.len() % 40;
    let typed = form.hand.clone();
    let result = typed.to_input(number);
    check_typed(&typed, number, &result);
    assert_eq!(
        form.to_input(number),
        result.clone(),
        "the console's hand is not the typed hand's"
    );

    // Shown back after an error: each bid as the option of the trimmed value (the console
    // offers a value the rules do not), texts as typed, boxes ticked.
    let mut shown = vec![("csrf".to_string(), "token".to_string())];
    for (t, key) in KEYS.iter().enumerate() {
        for p in 0..2 {
            let bid = typed.bids[t][p].trim().to_string();
            shown.push((format!("{key}_bid{p}"), bid));
            shown.push((format!("{key}_tricks{p}"), typed.tricks[t][p].clone()));
        }
        shown.push((format!("{key}_revokes"), typed.revokes[t].clone()));
        if typed.blind[t] {
            shown.push((format!("{key}_blind"), "1".into()));
        }
    }
    if typed.misdeal {
        shown.push(("misdeal".into(), "1".into()));
    }
    assert_eq!(
        HandForm::from_pairs(&shown).to_input(number),
        result.clone(),
        "the console form shown back reads differently"
    );

    let hand = match result {
        Err(e) => return format!("form error {:?}", e.field),
        Ok(hand) => hand,
    };
    let request = ScoreRequest {
        rules: console_rules(),
        stage: Stage::Regular,
        start: None,
        hands: vec![hand],
    };
    let answer = score_request(&request);
    check_json(&request, &answer);
    check_answer(&[typed], &request, &answer);
    match &answer {
        Ok(a) => format!("ok {}", a.status.as_str()),
        Err(e) => format!("error {} {:?}", e.code, e.field),
    }
}

// ---------------------------------------------------------------------------------------------
// Structured forms.

const PRESETS: [&str; 5] = [
    "chicago-im",
    "unc-im-300",
    "unc-im-500",
    "classic",
    "partnership",
];

/// Overrides as typed into the calculator's textarea: mostly ones that let more hand fields
/// score (blind bids, a time limit, revokes), some that change the scoring, some invalid.
const OVERRIDES: [&str; 10] = [
    r#"{"blind_bids": {"min_bid": 6, "multiplier": 2, "when": "always", "deficit": 0}}"#,
    r#"{"time_limit_minutes": 30, "revoke": {"tricks": 3, "award": 0}}"#,
    r#"{"blind_nil": {"when": "always"}, "blind_bids": {"min_bid": 4, "multiplier": 2, "when": "always", "deficit": 0}}"#,
    r#"{"nil": null}"#,
    r#"{"target": 200, "bags": {"limit": 5}}"#,
    r#"{"moon": {"value": 500, "wins_game": true}, "min_team_bid": 0}"#,
    "[1, 2]",
    "{not json",
    "  ",
    r#"{"target": "high"}"#,
];

const STAGES: [&str; 6] = ["regular", "playoff", "final", "", "Final", "semi"];

/// Spaces as typed or pasted: ASCII, a tab, a newline, a no-break and an ideographic space.
const SPACES: [&str; 6] = [" ", "  ", "\t", "\n", "\u{a0}", "\u{3000}"];

/// Numbers past `i64` and `u32`.
const HUGE: [&str; 6] = [
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "99999999999999999999999",
    "4294967296",
];

/// Control and invisible characters (U+0085 is Unicode white space, the others are not).
const CONTROL: [&str; 8] = [
    "\u{0}", "\u{7}", "\r", "\u{1b}", "\u{7f}", "\u{200b}", "\u{feff}", "\u{85}",
];

/// Zero in other scripts: fullwidth, Arabic-Indic, Devanagari, mathematical bold.
const ZEROS: [u32; 4] = [0xff10, 0x0660, 0x0966, 0x1d7ce];

/// Words a bid might be typed as.
const BID_WORDS: [&str; 10] = [
    "blind nil",
    "Nil",
    "NIL",
    " nil ",
    "blind-nil",
    "blind_nil ",
    "nil\u{0}",
    "0",
    "",
    "\u{2013}",
];

/// How far a structured form strays from a clean one. About half the forms are clean (plain
/// values, no extras: most of them parse and score and their games run long); the others have
/// odd values, extras or both.
#[derive(Debug, Clone, Copy)]
struct Noise {
    /// Odd values, broken trick counts, odd row numbers.
    values: bool,
    /// Blind bids, time calls, revokes, stray, missing and repeated fields, another order.
    extras: bool,
}

/// A number as it might be typed: mostly plain, now and then (in a noisy form) with spaces, a
/// sign, leading zeros, in another script's digits, huge, with a control character, or not a
/// number.
fn number_text(u: &mut Unstructured, noise: Noise, n: i64) -> arbitrary::Result<String> {
    let sel = u8::arbitrary(u)?;
    let pick = |list: &[&str]| list[usize::from(sel) % list.len()].to_string();
    Ok(match sel {
        _ if !noise.values => n.to_string(),
        0..=199 => n.to_string(),
        200..=207 => match sel % 3 {
            0 => format!("{}{n}", pick(&SPACES)),
            1 => format!("{n}{}", pick(&SPACES)),
            _ => format!("{0}{n}{0}", pick(&SPACES)),
        },
        208..=211 => format!("+{n}"),
        212..=215 => format!("0{n}"),
        216..=219 => String::new(),
        220..=223 => {
            if sel % 2 == 0 {
                format!("-{n}")
            } else {
                "-0".into()
            }
        }
        224..=229 => pick(&HUGE),
        230..=235 => {
            let zero = ZEROS[usize::from(sel) % ZEROS.len()];
            n.to_string()
                .chars()
                .map(|c| match c.to_digit(10) {
                    Some(d) => char::from_u32(zero + d).unwrap_or(c),
                    None => c,
                })
                .collect()
        }
        236..=241 => {
            if sel % 2 == 0 {
                format!("{n}{}", pick(&CONTROL))
            } else {
                format!("{}{n}", pick(&CONTROL))
            }
        }
        242..=245 => match sel % 4 {
            0 => format!("{n}.0"),
            1 => format!("{n}e0"),
            2 => format!("{n}.5"),
            _ => format!("{n},0"),
        },
        246..=249 => pick(&["x", "\u{bd}", "1 3", "nil"]),
        _ => <&str>::arbitrary(u)?.chars().take(12).collect(),
    })
}

/// A bid, mostly near the tricks the seat took so many hands score.
fn bid_text(u: &mut Unstructured, noise: Noise, took: i64) -> arbitrary::Result<String> {
    let sel = u8::arbitrary(u)?;
    let near = (took + i64::from(sel % 5) - 2).clamp(0, 13);
    match sel {
        0..=24 => Ok("nil".into()),
        25..=27 => Ok("blind_nil".into()),
        _ if !noise.values => Ok(near.to_string()),
        28..=219 => number_text(u, noise, near),
        220..=229 => number_text(u, noise, i64::from(sel % 14)),
        230..=249 => Ok(BID_WORDS[usize::from(sel) % BID_WORDS.len()].into()),
        _ => {
            let n = i64::arbitrary(u)?;
            number_text(u, noise, n)
        }
    }
}

/// A ticked checkbox: sent with its value, or (by hand) with another or none.
fn checkbox(sel: u8) -> String {
    match sel % 8 {
        0 => String::new(),
        1 => "on".into(),
        2 => "0".into(),
        _ => "1".into(),
    }
}

/// Field names that are not a hand's (nearly).
const JUNK: [&str; 9] = [
    "a_bid2", "c_bid0", "a_tricks", "bid0", "a_blind_", "A_bid0", "a-bid0", "a_bid0 ", "_a_bid0",
];

/// One hand's fields (names without the calculator's `h{i}_`): a misdeal, or the four bids
/// and trick counts with the 13 tricks dealt out, then (with extras) now and then a blind bid,
/// a time call, revokes, a stray field, a field left out or sent twice, another order.
fn hand_fields(u: &mut Unstructured, noise: Noise) -> arbitrary::Result<Vec<(String, String)>> {
    let kind = u8::arbitrary(u)?;
    let mut fields: Vec<(String, String)> = Vec::new();
    if kind < 8 {
        fields.push(("misdeal".into(), checkbox(kind)));
        if kind < 5 {
            return Ok(fields);
        }
    }
    // The tricks of seats 1-4.
    let mut tricks = [0i64; 4];
    let mut left = 13i64;
    for slot in &mut tricks[..3] {
        *slot = i64::from(u8::arbitrary(u)?) % (left + 1);
        left -= *slot;
    }
    tricks[3] = left;
    tricks.rotate_left(usize::from(kind % 4));
    if kind >= 250 && noise.values {
        tricks[usize::from(kind % 4)] = i64::from(u8::arbitrary(u)? % 20);
    }
    for (s, took) in tricks.into_iter().enumerate() {
        let (key, p) = (KEYS[s % 2], s / 2);
        fields.push((format!("{key}_bid{p}"), bid_text(u, noise, took)?));
        fields.push((format!("{key}_tricks{p}"), number_text(u, noise, took)?));
    }
    if !noise.extras {
        return Ok(fields);
    }
    // Extras until a byte says stop.
    for _ in 0..6 {
        let extra = u8::arbitrary(u)?;
        let key = KEYS[usize::from(extra % 2)];
        match extra {
            0..=11 => fields.push((format!("{key}_blind"), checkbox(extra / 2))),
            12..=27 => fields.push(("time".into(), checkbox(extra))),
            28..=51 => {
                let n = match u8::arbitrary(u)? {
                    0..=199 => 1,
                    200..=229 => 0,
                    sel => i64::from(sel % 4),
                };
                fields.push((format!("{key}_revokes"), number_text(u, noise, n)?));
            }
            52..=59 => {
                let name = JUNK[usize::from(extra) % JUNK.len()];
                fields.push((name.into(), number_text(u, noise, 4)?));
            }
            60..=67 if !fields.is_empty() => {
                let i = usize::from(u8::arbitrary(u)?) % fields.len();
                fields.remove(i);
            }
            68..=79 if !fields.is_empty() => {
                // A field sent twice: a stray value before it, or a second value after.
                let i = usize::from(u8::arbitrary(u)?) % fields.len();
                let name = fields[i].0.clone();
                let value = number_text(u, noise, i64::from(extra % 14))?;
                if extra % 2 == 0 {
                    fields.insert(i, (name, value));
                } else {
                    fields.push((name, value));
                }
            }
            _ => break,
        }
    }
    if kind % 7 == 0 && !fields.is_empty() {
        let by = usize::from(kind) % fields.len();
        fields.rotate_left(by);
    }
    Ok(fields)
}

/// A structured form: now and then the console's hand form, mostly the calculator's (rules,
/// stage, maybe overrides and a start, then rows until the input runs out).
fn form(u: &mut Unstructured) -> arbitrary::Result<Vec<(String, String)>> {
    let mode = u8::arbitrary(u)?;
    let level = u8::arbitrary(u)?;
    let noise = Noise {
        values: level < 80,
        extras: level % 3 == 0,
    };
    let mut pairs: Vec<(String, String)> = Vec::new();
    if mode < 40 {
        pairs.push(("csrf".into(), "0123456789abcdef".into()));
        pairs.push(("expected_version".into(), "3".into()));
        pairs.push(("idempotency_key".into(), "k1".into()));
        if mode % 4 == 0 {
            pairs.push(("reason".into(), "recount".into()));
        }
        pairs.extend(hand_fields(u, noise)?);
        if mode % 5 == 0 {
            pairs.push(("time".into(), "1".into()));
        }
        return Ok(pairs);
    }
    match u8::arbitrary(u)? {
        250 => {}
        251 => pairs.push(("preset".into(), " classic".into())),
        252..=255 => pairs.push(("preset".into(), "no-such-preset".into())),
        p => pairs.push((
            "preset".into(),
            PRESETS[usize::from(p) % PRESETS.len()].into(),
        )),
    }
    let stage = u8::arbitrary(u)?;
    if stage >= 200 {
        pairs.push((
            "stage".into(),
            STAGES[usize::from(stage) % STAGES.len()].into(),
        ));
    }
    let overrides = u8::arbitrary(u)?;
    if overrides >= 160 {
        let text = OVERRIDES[usize::from(overrides) % OVERRIDES.len()];
        pairs.push(("overrides".into(), text.into()));
    }
    if u8::arbitrary(u)? >= 220 {
        for (name, lo, hi) in [
            ("start_a_score", -200, 400),
            ("start_a_bags", 0, 5),
            ("start_b_score", -200, 400),
            ("start_b_bags", 0, 5),
        ] {
            let n = lo + i64::from(u8::arbitrary(u)?) % (hi - lo + 1);
            pairs.push((name.into(), number_text(u, noise, n)?));
        }
    }
    let mut index = 0usize;
    while !u.is_empty() && index < 40 {
        let sel = u8::arbitrary(u)?;
        let name = match sel {
            _ if !noise.values => index.to_string(),
            0..=239 => index.to_string(),
            240..=243 => format!("0{index}"),
            244..=247 => {
                // A row skipped.
                index += 1;
                index.to_string()
            }
            248..=249 => format!("+{index}"),
            250..=251 => (200 + index).to_string(),
            252 => format!("{index} "),
            253 => "x".into(),
            _ => index.saturating_sub(1).to_string(),
        };
        for (field, value) in hand_fields(u, noise)? {
            pairs.push((format!("h{name}_{field}"), value));
        }
        index += 1;
    }
    match mode % 4 {
        0 => pairs.push(("action".into(), "add".into())),
        1 => pairs.push(("action".into(), "score".into())),
        _ => {}
    }
    Ok(pairs)
}
