//! The gate a league document passes before any row of it is written, and that `check`
//! passes every stored league through again: the same typed checks the API applies to the
//! same data, so that a league that comes in by a file is one the API could have made.
//!
//! First every column is read by its [`columns::rule`] (and its text normalized in place, as
//! the API stores it); then what the rows must say together: the league's rules and settings
//! read, team names that do not read the same, a player's student id on one team, each match's
//! hands scored again by the engine under its rules with its cached totals and state equal to
//! what they give, an archived league with no match in play, and a bracket whose rows are its
//! format's for its team count and seeds. Each fault names a JSON pointer into the document
//! (`/hands/7/hand`), the row's id and what is wrong; nothing here reads or writes a store,
//! so it runs before the write lock.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value};

use super::columns;
use crate::db::league_doc::{TABLES, audit_subject_table};
use crate::db::matches::MatchRow;
use crate::domain::{
    FieldError, LeagueId, LocalTime, MatchId, MatchStatus, TeamId, TextEnum, Timestamp,
};
use crate::league::bracket::{self, Bracket, Format, GrandFinal};
use crate::league::settings::Settings;
use crate::league::standings::Tiebreak;
use crate::rules::{Game, HandInput, Rules, RulesSpec, Stage};
use crate::service::text::NameKey;

/// One thing wrong in a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// Where, as a JSON pointer into the document (`/matches/3/status`).
    pub pointer: String,
    /// The store's table (`leagues` for the document's `league`).
    pub table: &'static str,
    /// The row's `id` as the document gives it, where it has one.
    pub id: Option<i64>,
    pub message: String,
    /// A value a match caches that differs from what its hands give (`check` compares
    /// those itself, and `check --rebuild` can put some right); every other fault is a row
    /// that does not read or does not hold together.
    pub cached: bool,
}

/// Every fault of `doc` (none: it may be imported), its text normalized in place.
pub fn check(doc: &mut Map<String, Value>, now: Timestamp) -> Vec<Fault> {
    let mut gate = Gate::default();
    gate.columns(doc);
    let doc = &*doc;
    let league = gate.league(doc);
    gate.names(doc);
    gate.swiss_rounds(doc);
    if let Some(league) = &league {
        gate.matches(doc, league);
    }
    gate.brackets(doc);
    gate.audit(doc, now);
    gate.faults
}

#[derive(Default)]
struct Gate {
    faults: Vec<Fault>,
}

/// What the league's row says that its matches need.
struct LeagueFacts {
    rules: [Rules; 3],
    archived: bool,
}

impl LeagueFacts {
    fn rules_for(&self, stage: Stage) -> &Rules {
        let [regular, playoff, last] = &self.rules;
        match stage {
            Stage::Regular => regular,
            Stage::Playoff => playoff,
            Stage::Final => last,
        }
    }
}

/// The rows of `table` in `doc` with their index (none where it is not a list).
fn rows<'a>(
    doc: &'a Map<String, Value>,
    table: &str,
) -> impl Iterator<Item = (usize, &'a Map<String, Value>)> {
    doc.get(table)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, row)| Some((i, row.as_object()?)))
}

fn text<'a>(row: &'a Map<String, Value>, column: &str) -> Option<&'a str> {
    row.get(column)?.as_str()
}

fn int(row: &Map<String, Value>, column: &str) -> Option<i64> {
    row.get(column)?.as_i64()
}

fn word<T: TextEnum>(row: &Map<String, Value>, column: &str) -> Option<T> {
    T::parse(text(row, column)?).ok()
}

/// A column that may be null: `Some(None)` for null, `None` when it does not read.
fn maybe<T>(
    row: &Map<String, Value>,
    column: &str,
    read: impl Fn(&str) -> Option<T>,
) -> Option<Option<T>> {
    match row.get(column) {
        None | Some(Value::Null) => Some(None),
        Some(value) => read(value.as_str()?).map(Some),
    }
}

/// `name` as one step of a JSON pointer (RFC 6901: `~` and `/` escaped).
fn step(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

impl Gate {
    fn fault(&mut self, pointer: String, table: &'static str, id: Option<i64>, message: String) {
        self.faults.push(Fault {
            pointer,
            table,
            id,
            message,
            cached: false,
        });
    }

    /// Whether a fault was found at or under `pointer` already.
    fn faulted(&self, pointer: &str) -> bool {
        let under = format!("{pointer}/");
        self.faults
            .iter()
            .any(|f| f.pointer == pointer || f.pointer.starts_with(&under))
    }

    fn columns(&mut self, doc: &mut Map<String, Value>) {
        match doc.get_mut("league") {
            Some(Value::Object(row)) => self.row_columns("leagues", "/league", row),
            _ => self.fault(
                "/league".into(),
                "leagues",
                None,
                "the document holds no league".into(),
            ),
        }
        for table in TABLES {
            match doc.get_mut(table.name) {
                None => {}
                Some(Value::Array(rows)) => {
                    for (i, row) in rows.iter_mut().enumerate() {
                        let at = format!("/{}/{i}", table.name);
                        match row {
                            Value::Object(row) => self.row_columns(table.name, &at, row),
                            _ => self.fault(at, table.name, None, "must be a JSON object".into()),
                        }
                    }
                }
                Some(_) => self.fault(
                    format!("/{}", table.name),
                    table.name,
                    None,
                    "must be a list of rows".into(),
                ),
            }
        }
    }

    fn row_columns(&mut self, table: &'static str, at: &str, row: &mut Map<String, Value>) {
        let id = int(row, "id");
        for (column, value) in row.iter_mut() {
            let here = format!("{at}/{}", step(column));
            let Some(rule) = columns::rule(table, column) else {
                self.fault(here, table, id, format!("{table} has no such column"));
                continue;
            };
            match columns::read_value(rule, value) {
                Ok(Some(stored)) => *value = Value::String(stored),
                Ok(None) => {}
                Err(message) => self.fault(here, table, id, message),
            }
        }
    }

    fn league(&mut self, doc: &Map<String, Value>) -> Option<LeagueFacts> {
        let row = doc.get("league")?.as_object()?;
        let id = int(row, "id");
        let mut fault = |column: &str, message: String| {
            self.fault(format!("/league/{column}"), "leagues", id, message);
        };
        let mut rules = Vec::with_capacity(3);
        for column in ["rules_regular", "rules_playoff", "rules_final"] {
            match text(row, column).map(read_rules) {
                Some(Ok(read)) => rules.push(read),
                Some(Err(message)) => fault(column, message),
                None => fault(column, "the league's rules are missing".into()),
            }
        }
        if let Some(settings) = text(row, "settings")
            && let Err(message) = read_settings(settings)
        {
            fault("settings", message);
        }
        for name in text(row, "tiebreak_order").unwrap_or_default().split(',') {
            if Tiebreak::parse(name).is_none() {
                fault("tiebreak_order", format!("\"{name}\" is no tiebreaker"));
            }
        }
        let rules: [Rules; 3] = rules.try_into().ok()?;
        Some(LeagueFacts {
            rules,
            archived: int(row, "archived") == Some(1),
        })
    }

    /// Team names that read the same, and a student on two players of the league.
    fn names(&mut self, doc: &Map<String, Value>) {
        for table in ["divisions", "teams"] {
            let mut seen: HashMap<NameKey, usize> = HashMap::new();
            for (i, row) in rows(doc, table) {
                let Some(name) = text(row, "name") else {
                    continue;
                };
                if let Some(first) = seen.insert(NameKey::of(name), i) {
                    self.fault(
                        format!("/{table}/{i}/name"),
                        table,
                        int(row, "id"),
                        format!("reads the same as the name of /{table}/{first}"),
                    );
                }
            }
        }
        let mut students: HashMap<&str, usize> = HashMap::new();
        for (i, row) in rows(doc, "players") {
            let Some(id) = text(row, "student_id") else {
                continue;
            };
            if let Some(first) = students.insert(id, i) {
                self.fault(
                    format!("/players/{i}/student_id"),
                    "players",
                    int(row, "id"),
                    format!("/players/{first} has the same student id: a student plays for one team a league"),
                );
            }
        }
    }
}

impl Gate {
    /// A Swiss round once, and a team's bye once (the store's keys would refuse either).
    fn swiss_rounds(&mut self, doc: &Map<String, Value>) {
        let mut rounds: HashMap<i64, usize> = HashMap::new();
        let mut byes: HashMap<i64, usize> = HashMap::new();
        for (i, row) in rows(doc, "swiss_rounds") {
            if let Some(round) = int(row, "round")
                && let Some(first) = rounds.insert(round, i)
            {
                let message = format!("/swiss_rounds/{first} is the same round");
                self.fault(
                    format!("/swiss_rounds/{i}/round"),
                    "swiss_rounds",
                    None,
                    message,
                );
            }
            if let Some(team) = int(row, "bye_team_id")
                && let Some(first) = byes.insert(team, i)
            {
                let message =
                    format!("/swiss_rounds/{first} gives the same team a bye: a team has one");
                self.fault(
                    format!("/swiss_rounds/{i}/bye_team_id"),
                    "swiss_rounds",
                    None,
                    message,
                );
            }
        }
    }
}

fn read_rules(text: &str) -> Result<Rules, String> {
    let spec: RulesSpec = serde_json::from_str(text)
        .map_err(|_| "does not read as rules (a preset's name and its changes)".to_string())?;
    spec.resolve().map_err(|e| e.message)
}

fn read_settings(text: &str) -> Result<(), String> {
    let settings: Settings = serde_json::from_str(text)
        .map_err(|_| "does not read as the league's settings".to_string())?;
    settings
        .check()
        .map_err(|e| format!("{}: {}", e.field, e.message))
}

/// A hand row of the document: where it is and what it says.
struct HandRow<'a> {
    index: usize,
    id: Option<i64>,
    number: i64,
    revision: i64,
    hand: &'a str,
}

impl Gate {
    fn matches(&mut self, doc: &Map<String, Value>, league: &LeagueFacts) {
        let mut hands: HashMap<i64, Vec<HandRow>> = HashMap::new();
        for (index, row) in rows(doc, "hands") {
            let (Some(match_id), Some(number), Some(revision), Some(hand)) = (
                int(row, "match_id"),
                int(row, "number"),
                int(row, "revision"),
                text(row, "hand"),
            ) else {
                continue;
            };
            hands.entry(match_id).or_default().push(HandRow {
                index,
                id: int(row, "id"),
                number,
                revision,
                hand,
            });
        }
        let held: HashSet<i64> = rows(doc, "matches")
            .filter_map(|(_, m)| int(m, "id"))
            .collect();
        for (match_id, orphans) in &hands {
            if !held.contains(match_id) {
                for hand in orphans {
                    let message =
                        format!("refers to match {match_id}, which the document does not hold");
                    self.fault(
                        format!("/hands/{}/match_id", hand.index),
                        "hands",
                        hand.id,
                        message,
                    );
                }
            }
        }
        for (i, row) in rows(doc, "matches") {
            let at = format!("/matches/{i}");
            let Some(m) = match_row(row) else {
                if !self.faulted(&at) {
                    self.fault(
                        at,
                        "matches",
                        int(row, "id"),
                        "a column it needs is missing".into(),
                    );
                }
                continue;
            };
            let mine = hands.remove(&m.id.0).unwrap_or_default();
            self.match_state(&at, &m, league, mine.len());
            let rules = match m.rules.as_deref().map(serde_json::from_str::<Rules>) {
                None => league.rules_for(m.stage).clone(),
                Some(Ok(frozen)) => frozen,
                Some(Err(_)) => {
                    let message = "does not read as the rules the match was started under";
                    self.fault(
                        format!("{at}/rules"),
                        "matches",
                        Some(m.id.0),
                        message.into(),
                    );
                    continue;
                }
            };
            if let Some(game) = self.replay(&m, rules, mine) {
                let mut differences = Vec::new();
                crate::service::check::compare(&m, &game, &mut differences);
                for d in differences {
                    self.faults.push(Fault {
                        pointer: format!("{at}/{}", d.field),
                        table: "matches",
                        id: Some(m.id.0),
                        message: format!("is {}, its hands give {}", d.cached, d.computed),
                        cached: true,
                    });
                }
            }
        }
    }

    /// What a match's status asks of the rest of its row.
    fn match_state(&mut self, at: &str, m: &MatchRow, league: &LeagueFacts, hands: usize) {
        let id = Some(m.id.0);
        let fault = |column: &str, message: &str| (format!("{at}/{column}"), message.to_string());
        let found = match m.status {
            _ if m.team_a == m.team_b => Some(fault("team_b", "a match's two teams must differ")),
            s if s.is_unstarted() && hands > 0 => {
                Some(fault("status", "a match that has not started has no hands"))
            }
            MatchStatus::InProgress if league.archived => Some(fault(
                "status",
                "an archived league has no match in play: finish or cancel it first",
            )),
            MatchStatus::InProgress if m.started_at.is_none() => Some(fault(
                "started_at",
                "a match in progress has the time it started",
            )),
            MatchStatus::Forfeit if m.forfeit.is_none() => Some(fault(
                "forfeit",
                "a forfeited match names who forfeited (a, b or both)",
            )),
            _ => None,
        };
        if let Some((pointer, message)) = found {
            self.fault(pointer, "matches", id, message);
        }
    }

    /// The game a match's hands give (the last revision of each), scored by the engine.
    fn replay(&mut self, m: &MatchRow, rules: Rules, hands: Vec<HandRow>) -> Option<Game> {
        let mut current: BTreeMap<i64, HandRow> = BTreeMap::new();
        let mut revisions = HashSet::new();
        let mut ok = true;
        for hand in hands {
            let at = format!("/hands/{}", hand.index);
            if !revisions.insert((hand.number, hand.revision)) {
                let message = format!(
                    "a second revision {} of hand {} of match {}",
                    hand.revision, hand.number, m.id
                );
                self.fault(at, "hands", hand.id, message);
                ok = false;
                continue;
            }
            if serde_json::from_str::<HandInput>(hand.hand).is_err() {
                let message = "does not read as a hand (bids, tricks and what else was entered)";
                self.fault(format!("{at}/hand"), "hands", hand.id, message.into());
                ok = false;
                continue;
            }
            match current.get(&hand.number) {
                Some(kept) if kept.revision > hand.revision => {}
                _ => {
                    current.insert(hand.number, hand);
                }
            }
        }
        let mut game = Game::new(rules, m.stage);
        for (expected, (number, hand)) in (1..).zip(&current) {
            let at = format!("/hands/{}", hand.index);
            if *number != expected {
                let message = format!("match {} has no hand {expected} before it", m.id);
                self.fault(format!("{at}/number"), "hands", hand.id, message);
                return None;
            }
            let input: HandInput = serde_json::from_str(hand.hand).ok()?;
            let played = input
                .parse(expected as usize)
                .and_then(|parsed| game.play(&parsed));
            if let Err(e) = played {
                let message = format!(
                    "hand {expected} of match {} is not a legal hand: {}",
                    m.id,
                    FieldError::from(e).message
                );
                self.fault(at, "hands", hand.id, message);
                return None;
            }
        }
        ok.then_some(game)
    }
}

/// A match row of the document as the store reads one, if every column reads.
fn match_row(row: &Map<String, Value>) -> Option<MatchRow> {
    let instant = |column| maybe(row, column, |s| Timestamp::parse(s).ok());
    Some(MatchRow {
        id: MatchId(int(row, "id")?),
        league_id: LeagueId(int(row, "league_id").unwrap_or_default()),
        stage: word(row, "stage")?,
        round: int(row, "round"),
        team_a: TeamId(int(row, "team_a")?),
        team_b: TeamId(int(row, "team_b")?),
        // Read as the username it is in the document; the gate does not need it.
        supervisor_id: None,
        table_name: text(row, "table_name").map(String::from),
        scheduled_at: maybe(row, "scheduled_at", |s| LocalTime::parse(s).ok())?,
        status: word(row, "status")?,
        started_at: instant("started_at")?,
        time_called_at: instant("time_called_at")?,
        rules: text(row, "rules").map(String::from),
        forfeit: maybe(row, "forfeit", |s| TextEnum::parse(s).ok())?,
        version: int(row, "version")?,
        score_a: int(row, "score_a")?,
        score_b: int(row, "score_b")?,
        bags_a: int(row, "bags_a")?,
        bags_b: int(row, "bags_b")?,
        game_status: word(row, "game_status")?,
        winner: maybe(row, "winner", |s| TextEnum::parse(s).ok())?,
        reason: maybe(row, "reason", |s| TextEnum::parse(s).ok())?,
        hands_played: int(row, "hands_played")?,
        sequence: int(row, "sequence").unwrap_or_default(),
        status_note: text(row, "status_note").map(String::from),
        checked_in_a: instant("checked_in_a")?,
        checked_in_b: instant("checked_in_b")?,
        rating_a: int(row, "rating_a"),
        rating_b: int(row, "rating_b"),
        defaulted: int(row, "defaulted") == Some(1),
        called_at: instant("called_at")?,
    })
}

impl Gate {
    /// Each bracket against its format: its seeds and its matches are the format's for its
    /// number of teams, each real match a playoff match of the document.
    fn brackets(&mut self, doc: &Map<String, Value>) {
        let playoff: HashSet<i64> = rows(doc, "matches")
            .filter(|(_, m)| word::<Stage>(m, "stage").is_some_and(|s| s != Stage::Regular))
            .filter_map(|(_, m)| int(m, "id"))
            .collect();
        for (i, row) in rows(doc, "brackets") {
            let at = format!("/brackets/{i}");
            let id = int(row, "id");
            if i > 0 {
                self.fault(at, "brackets", id, "a league has one bracket".into());
                continue;
            }
            match structure(row) {
                Ok(bracket) => {
                    self.seeds(doc, &at, id, &bracket);
                    self.bracket_matches(doc, id, &bracket, &playoff);
                    if let Some(results) = text(row, "results")
                        && (results.chars().count() != bracket.matches.len()
                            || results.chars().any(|c| !matches!(c, '0' | '1' | '-')))
                    {
                        let message = "must be one of 0, 1 or - for each of its matches";
                        self.fault(format!("{at}/results"), "brackets", id, message.into());
                    }
                }
                Err(message) => self.fault(at, "brackets", id, message),
            }
        }
    }

    fn seeds(&mut self, doc: &Map<String, Value>, at: &str, id: Option<i64>, b: &Bracket) {
        let mut seeds = HashSet::new();
        let mut teams = HashSet::new();
        for (i, row) in rows(doc, "bracket_seeds").filter(|(_, r)| int(r, "bracket_id") == id) {
            let seed = int(row, "seed").unwrap_or_default();
            let fresh = seeds.insert(seed) && teams.insert(int(row, "team_id"));
            if !fresh || !(1..=b.seeds as i64).contains(&seed) {
                let message = format!(
                    "seeds are 1 to {}, each once, each a team of its own",
                    b.seeds
                );
                self.fault(
                    format!("/bracket_seeds/{i}"),
                    "bracket_seeds",
                    None,
                    message,
                );
            }
        }
        if seeds.len() != b.seeds {
            let message = format!(
                "the bracket has {} teams but {} seeds",
                b.seeds,
                seeds.len()
            );
            self.fault(format!("{at}/teams"), "brackets", id, message);
        }
    }

    fn bracket_matches(
        &mut self,
        doc: &Map<String, Value>,
        id: Option<i64>,
        b: &Bracket,
        playoff: &HashSet<i64>,
    ) {
        let mut seen = HashSet::new();
        for (i, row) in rows(doc, "bracket_matches").filter(|(_, r)| int(r, "bracket_id") == id) {
            let at = format!("/bracket_matches/{i}");
            let index = int(row, "match_index").unwrap_or(-1);
            let Some(m) = usize::try_from(index).ok().and_then(|k| b.matches.get(k)) else {
                let message = format!("the bracket has matches 0 to {}", b.matches.len() - 1);
                self.fault(at, "bracket_matches", None, message);
                continue;
            };
            let fits = seen.insert(index)
                && word(row, "section") == Some(m.bracket)
                && int(row, "round") == Some(m.round as i64)
                && int(row, "position") == Some(m.position as i64)
                && ["seed_a", "seed_b"]
                    .iter()
                    .all(|c| int(row, c).is_none_or(|s| (1..=b.seeds as i64).contains(&s)));
            if !fits {
                let message = format!("is not match {index} of its bracket's format");
                self.fault(at.clone(), "bracket_matches", None, message);
            }
            if let Some(real) = int(row, "match_id")
                && !playoff.contains(&real)
            {
                let message = "must be a playoff match of the document";
                self.fault(
                    format!("{at}/match_id"),
                    "bracket_matches",
                    None,
                    message.into(),
                );
            }
        }
        if seen.len() != b.matches.len() {
            let message = format!(
                "the format has {} matches, the document {}",
                b.matches.len(),
                seen.len()
            );
            self.fault("/bracket_matches".into(), "bracket_matches", id, message);
        }
    }

    fn audit(&mut self, doc: &Map<String, Value>, now: Timestamp) {
        for (i, row) in rows(doc, "audit_log") {
            let at = format!("/audit_log/{i}");
            let id = int(row, "id");
            if let Some(entity) = text(row, "entity")
                && audit_subject_table(entity).is_none()
            {
                let message = format!("\"{entity}\" is nothing a league holds");
                self.fault(format!("{at}/entity"), "audit_log", id, message);
            }
            if text(row, "at")
                .and_then(|t| Timestamp::parse(t).ok())
                .is_some_and(|t| t > now)
            {
                let message = "is later than now: an entry records what happened";
                self.fault(format!("{at}/at"), "audit_log", id, message.into());
            }
        }
    }
}

/// The bracket a row's format, teams and options make.
fn structure(row: &Map<String, Value>) -> Result<Bracket, String> {
    let (Some(format), Some(teams)) = (word::<Format>(row, "format"), int(row, "teams")) else {
        return Err("the bracket's format or number of teams does not read".into());
    };
    let teams = usize::try_from(teams).map_err(|_| "a bracket has 2 or more teams".to_string())?;
    match format {
        Format::SingleElimination => {
            bracket::single_elimination(teams, int(row, "third_place") == Some(1))
        }
        Format::DoubleElimination => bracket::double_elimination(
            teams,
            word::<GrandFinal>(row, "grand_final").unwrap_or(GrandFinal::Simple),
        ),
    }
    .map_err(|e| e.to_string())
}
