//! What a roster file would do to a league, decided before anything is written: each row
//! checked (with the file's own line numbers), its team new or one the league has, its
//! players added or matched (by student id, then by name) and changed, its division one
//! the league has or one to make. The report says all of it; the import writes it only
//! when no row has an error.

use serde::Serialize;

use crate::db::divisions::DivisionRow;
use crate::db::leagues::TeamRow;
use crate::db::players::{PlayerFields, PlayerRow};
use crate::domain::{DivisionId, StudentId, TeamId, TeamName};
use crate::service::ServiceError;
use crate::service::people::players::{
    PLAYERS_MAX, PLAYERS_MIN, check_email, check_name, check_student_id, fields_of,
};
use crate::service::term::divisions;
use crate::service::term::leagues::name_rule;
use crate::service::term::teams::duplicate_message;
use crate::service::text::NameKey;

use super::reading::{ReadPlayer, ReadRow, RowRead};

/// Whether a row can be imported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RowStatus {
    Ok,
    Error,
}

/// One row of the file as checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ReportRow {
    /// The file's own line number (the header row is line 1).
    pub line: usize,
    /// The team the row names, as it is stored ("" when it names none or does not read).
    pub team: String,
    /// The players the row gives, by name.
    pub players: Vec<String>,
    /// The division the row names, if it names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub division: Option<String>,
    pub status: RowStatus,
    /// What is wrong with the row (status `error`), or what it does (`ok`: "new team",
    /// "new player", "player updated", "no change").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// How many of a kind the import makes and changes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Tally {
    pub new: usize,
    pub updated: usize,
}

/// How many divisions the import makes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct DivisionTally {
    pub new: usize,
}

/// What a roster file does to a league (`POST /api/v1/leagues/{slug}/roster`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct RosterReport {
    /// Every row of the file but the header, in the file's order.
    pub rows: Vec<ReportRow>,
    pub teams: Tally,
    pub players: Tally,
    pub divisions: DivisionTally,
    /// Whether the import was written: never on a dry run or with a row in error.
    pub written: bool,
}

impl RosterReport {
    /// How many rows have an error.
    pub fn errors(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.status == RowStatus::Error)
            .count()
    }
}

/// The league as the import finds it.
pub struct LeagueRoster {
    pub teams: Vec<TeamRow>,
    pub players: Vec<PlayerRow>,
    pub divisions: Vec<DivisionRow>,
    /// The teams that have played a match: their division no longer changes.
    pub played: Vec<TeamId>,
}

/// A division a team goes to: one the league has, or the file's new one (its index in
/// [`Plan::new_divisions`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DivisionPick {
    Has(DivisionId),
    New(usize),
}

pub struct NewTeam {
    pub name: TeamName,
    pub division: Option<DivisionPick>,
    pub players: Vec<PlayerFields>,
}

/// A checked new team, its division not yet numbered.
struct CheckedNew {
    name: TeamName,
    division: Named,
    players: Vec<PlayerFields>,
}

/// A checked update, its division not yet numbered.
struct CheckedUpdate {
    team: TeamRow,
    division: Named,
    changed: Vec<(PlayerRow, PlayerFields)>,
    added: Vec<PlayerFields>,
}

pub struct TeamUpdate {
    pub team: TeamRow,
    /// The division it moves to, when it moves.
    pub division: Option<DivisionPick>,
    /// Players the team has, with their new fields (changed ones only).
    pub changed: Vec<(PlayerRow, PlayerFields)>,
    pub added: Vec<PlayerFields>,
}

/// Everything a roster file writes, with its report.
#[derive(Default)]
pub struct Plan {
    pub report: RosterReport,
    pub new_divisions: Vec<String>,
    pub new_teams: Vec<NewTeam>,
    pub updates: Vec<TeamUpdate>,
}

/// The rows of one team in the file (gathered by the team's name).
struct Group {
    name: String,
    rows: Vec<(usize, RowRead)>,
}

impl Group {
    fn first_line(&self) -> usize {
        self.rows[0].0
    }
}

/// A row's error: its line and the words.
type LineError = (usize, String);

/// What a good row does, in words ("new team"), by its line.
type Note = (usize, &'static str);

/// A team's outcome and its rows' notes, or every error of its rows.
type Checked = Result<(Outcome, Vec<Note>), Vec<LineError>>;

/// What one team of the file does, checked.
enum Outcome {
    New(CheckedNew),
    Update(CheckedUpdate),
}

/// A division a row names: one the league has, or a new one to make.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Division {
    Has(DivisionId),
    Make(String),
}

/// A team's division in the outcome, before new divisions are numbered: it is made on
/// [`Plan::add`].
type Named = Option<Division>;

/// The plan of a roster file's rows against the league as it is.
pub(super) fn plan(rows: Vec<ReadRow>, league: &LeagueRoster) -> Plan {
    let mut plan = Plan::default();
    let mut errors: Vec<LineError> = Vec::new();
    let mut groups: Vec<Group> = Vec::new();
    for row in &rows {
        match &row.read {
            Ok(read) => gather(&mut groups, &mut errors, row.line, read.clone()),
            Err(message) => errors.push((row.line, message.clone())),
        }
    }
    let mut notes: Vec<Note> = Vec::new();
    let mut ids_in_file: Vec<(StudentId, usize)> = Vec::new();
    for group in &groups {
        let checked = TeamCheck {
            league,
            group,
            ids_in_file: &ids_in_file,
        }
        .outcome();
        match checked {
            Ok((outcome, row_notes)) => {
                for p in group.rows.iter().flat_map(|(_, r)| &r.players) {
                    if let Ok(Some(id)) = check_student_id(p.student_id.as_deref(), "student_id") {
                        ids_in_file.push((id, p.line));
                    }
                }
                notes.extend(row_notes);
                plan.add(outcome);
            }
            Err(mut team_errors) => {
                let first = group.first_line();
                for (line, _) in &group.rows {
                    if !team_errors.iter().any(|(l, _)| l == line) {
                        let message = format!("the team on line {first} is not imported");
                        team_errors.push((*line, message));
                    }
                }
                errors.extend(team_errors);
            }
        }
    }
    plan.report.rows = report_rows(&rows, &errors, &notes);
    plan.report.divisions.new = plan.new_divisions.len();
    plan
}

/// Adds a row to its team's group, or refuses it when its team's name reads the same as an
/// earlier, differently written one.
fn gather(groups: &mut Vec<Group>, errors: &mut Vec<LineError>, line: usize, read: RowRead) {
    let name = read.team.trim().to_string();
    if name.is_empty() {
        errors.push((line, "the row names no team".to_string()));
        return;
    }
    let key = NameKey::of(&name);
    match groups.iter_mut().find(|g| NameKey::of(&g.name) == key) {
        Some(group) if same_name(&group.name, &name) => group.rows.push((line, read)),
        Some(group) => errors.push((
            line,
            format!(
                "\"{name}\" reads the same as \"{}\" on line {} of the file",
                group.name,
                group.first_line()
            ),
        )),
        None => groups.push(Group {
            name,
            rows: vec![(line, read)],
        }),
    }
}

/// Two spellings of one team's name: the same once stored, ignoring case.
fn same_name(a: &str, b: &str) -> bool {
    let stored = |s: &str| TeamName::new(s).map_or_else(|_| s.to_string(), |n| n.to_string());
    stored(a).to_lowercase() == stored(b).to_lowercase()
}

/// The message of a refused check.
fn words(e: ServiceError) -> String {
    match e {
        ServiceError::Invalid(e) | ServiceError::ConflictOn(e) => e.message,
        e => e.to_string(),
    }
}

/// One team of the file checked against the league and the file's earlier teams.
struct TeamCheck<'a> {
    league: &'a LeagueRoster,
    group: &'a Group,
    /// The student ids of the file's earlier teams, with their lines.
    ids_in_file: &'a [(StudentId, usize)],
}

impl TeamCheck<'_> {
    /// The team's outcome and each row's note, or every error of its rows.
    fn outcome(&self) -> Checked {
        let first = self.group.first_line();
        let name = TeamName::new(&self.group.name).map_err(|bad| {
            vec![(
                first,
                words(name_rule("name", "the team's name").refused(bad)),
            )]
        })?;
        let division = self.division().map_err(|e| vec![e])?;
        let players = self.players()?;
        let key = NameKey::of(name.as_str());
        match self
            .league
            .teams
            .iter()
            .find(|t| NameKey::of(t.name.as_str()) == key)
        {
            Some(team) if !same_name(team.name.as_str(), name.as_str()) => Err(vec![(
                first,
                duplicate_message(name.as_str(), team.name.as_str()),
            )]),
            Some(team) => self.update(team, division, players),
            None => self.new_team(name, division, players),
        }
    }

    /// The division the team's rows name (all the same, ignoring case), checked.
    fn division(&self) -> Result<Named, LineError> {
        let mut named: Option<(String, usize)> = None;
        for (line, read) in &self.group.rows {
            let Some(cell) = &read.division else { continue };
            let checked = divisions::check_name(cell).map_err(|e| (*line, words(e)))?;
            match &named {
                Some((first, at)) if NameKey::of(first) != NameKey::of(&checked) => {
                    return Err((
                        *line,
                        format!(
                            "the team's division is \"{first}\" on line {at}: one division a team"
                        ),
                    ));
                }
                Some(_) => {}
                None => named = Some((checked, *line)),
            }
        }
        Ok(named.map(|(name, _)| {
            let key = NameKey::of(&name);
            match self
                .league
                .divisions
                .iter()
                .find(|d| NameKey::of(&d.name) == key)
            {
                Some(d) => Division::Has(d.id),
                None => Division::Make(name),
            }
        }))
    }

    /// Each player of the team's rows, checked on its own line (the student ids also
    /// against the file's earlier rows and the league's other teams).
    fn players(&self) -> Result<Vec<(&ReadPlayer, PlayerFields)>, Vec<LineError>> {
        let mut out: Vec<(&ReadPlayer, PlayerFields)> = Vec::new();
        let mut errors = Vec::new();
        for p in self.group.rows.iter().flat_map(|(_, r)| &r.players) {
            match self.player(p, &out) {
                Ok(fields) => out.push((p, fields)),
                Err(message) => errors.push((p.line, message)),
            }
        }
        if errors.is_empty() {
            Ok(out)
        } else {
            Err(errors)
        }
    }

    /// A player's fields as a new player would have them, checked.
    fn player(
        &self,
        p: &ReadPlayer,
        earlier: &[(&ReadPlayer, PlayerFields)],
    ) -> Result<PlayerFields, String> {
        let fields = PlayerFields {
            name: check_name(&p.name, "name").map_err(words)?,
            student_id: check_student_id(p.student_id.as_deref(), "student_id").map_err(words)?,
            email: check_email(p.email.as_deref(), "email").map_err(words)?,
            captain: p.captain.unwrap_or(false),
            active: p.active.unwrap_or(true),
        };
        if let Some(id) = &fields.student_id {
            let same = |(other, line): &(&StudentId, usize)| (*other == id).then_some(*line);
            let in_file = self
                .ids_in_file
                .iter()
                .map(|(i, l)| (i, *l))
                .chain(
                    earlier
                        .iter()
                        .filter_map(|(r, f)| Some((f.student_id.as_ref()?, r.line))),
                )
                .find_map(|pair| same(&pair));
            if let Some(line) = in_file {
                return Err(format!(
                    "this student id is also on line {line} of the file"
                ));
            }
            if let Some(team) = self.holder_elsewhere(id) {
                return Err(format!(
                    "a player with this student id is on \"{}\" in this league: a player plays for one team a league",
                    team.name
                ));
            }
        }
        Ok(fields)
    }

    /// The league's team other than this one whose player holds student id `id`.
    fn holder_elsewhere(&self, id: &StudentId) -> Option<&TeamRow> {
        let key = NameKey::of(&self.group.name);
        let holder = self
            .league
            .players
            .iter()
            .find(|p| p.student_id.as_ref() == Some(id))?;
        self.league
            .teams
            .iter()
            .find(|t| t.id == holder.team_id && NameKey::of(t.name.as_str()) != key)
    }

    fn active_count_refused(&self, count: usize) -> Option<LineError> {
        (!(PLAYERS_MIN..=PLAYERS_MAX).contains(&count)).then(|| {
            (
                self.group.first_line(),
                format!("a team has {PLAYERS_MIN} to {PLAYERS_MAX} active players, not {count}"),
            )
        })
    }

    fn new_team(
        &self,
        name: TeamName,
        division: Named,
        players: Vec<(&ReadPlayer, PlayerFields)>,
    ) -> Checked {
        let active = players.iter().filter(|(_, f)| f.active).count();
        if let Some(e) = self.active_count_refused(active) {
            return Err(vec![e]);
        }
        let notes = self
            .group
            .rows
            .iter()
            .map(|(line, _)| {
                (
                    *line,
                    if *line == self.group.first_line() {
                        "new team"
                    } else {
                        "new player"
                    },
                )
            })
            .collect();
        Ok((
            Outcome::New(CheckedNew {
                name,
                division,
                players: players.into_iter().map(|(_, f)| f).collect(),
            }),
            notes,
        ))
    }

    fn update(
        &self,
        team: &TeamRow,
        division: Named,
        players: Vec<(&ReadPlayer, PlayerFields)>,
    ) -> Checked {
        let first = self.group.first_line();
        let has: Vec<&PlayerRow> = self
            .league
            .players
            .iter()
            .filter(|p| p.team_id == team.id)
            .collect();
        let mut matched: Vec<(&PlayerRow, usize)> = Vec::new();
        let mut update = CheckedUpdate {
            team: team.clone(),
            division: None,
            changed: Vec::new(),
            added: Vec::new(),
        };
        let mut notes = Vec::new();
        let mut errors = Vec::new();
        for (read, fields) in players {
            match match_player(&has, read, &fields) {
                Err(message) => errors.push((read.line, message)),
                Ok(Some(row)) => {
                    if let Some((_, line)) = matched.iter().find(|(m, _)| m.id == row.id) {
                        errors.push((read.line, format!("the same player as on line {line}")));
                        continue;
                    }
                    matched.push((row, read.line));
                    let new = merged(row, read, fields);
                    if new == fields_of(row) {
                        notes.push((read.line, "no change"));
                    } else {
                        notes.push((read.line, "player updated"));
                        update.changed.push((row.clone(), new));
                    }
                }
                Ok(None) => {
                    notes.push((read.line, "new player"));
                    update.added.push(fields);
                }
            }
        }
        let moves = match (&division, team.division_id) {
            (Some(Division::Has(to)), Some(now)) => *to != now,
            (Some(_), _) => true,
            (None, _) => false,
        };
        if moves {
            if self.league.played.contains(&team.id) {
                errors.push((
                    first,
                    format!(
                        "{} has already played a match: its division can no longer change this season",
                        team.name
                    ),
                ));
            }
            update.division = division;
        }
        let kept = has
            .iter()
            .filter(|p| p.active && !matched.iter().any(|(m, _)| m.id == p.id))
            .count();
        let changed = update.changed.iter().map(|(_, f)| f);
        let unchanged = matched
            .iter()
            .filter(|(m, _)| m.active && !update.changed.iter().any(|(c, _)| c.id == m.id))
            .count();
        let active = kept + unchanged + changed.chain(&update.added).filter(|f| f.active).count();
        errors.extend(self.active_count_refused(active));
        if !errors.is_empty() {
            return Err(errors);
        }
        if update.division.is_some() {
            // The team's own row says what moves it.
            if let Some(n) = notes.iter_mut().find(|(l, _)| *l == first)
                && n.1 == "no change"
            {
                n.1 = "team updated";
            }
        }
        Ok((Outcome::Update(update), notes))
    }
}

/// The team's player a row's player is: the one with its student id, else the one with its
/// name; `None` for a new player. A name matched to a player with another student id is
/// refused (a student id changes on the team's page, not by an import).
fn match_player<'a>(
    has: &[&'a PlayerRow],
    read: &ReadPlayer,
    fields: &PlayerFields,
) -> Result<Option<&'a PlayerRow>, String> {
    if let Some(id) = &fields.student_id
        && let Some(row) = has.iter().find(|p| p.student_id.as_ref() == Some(id))
    {
        return Ok(Some(row));
    }
    let key = NameKey::of(fields.name.as_str());
    let Some(row) = has.iter().find(|p| NameKey::of(p.name.as_str()) == key) else {
        return Ok(None);
    };
    match (&row.student_id, &fields.student_id) {
        (Some(_), Some(_)) => Err(format!(
            "{} on this team has another student id: change it on the team's page",
            read.name.trim()
        )),
        _ => Ok(Some(row)),
    }
}

/// A player's fields once a row changes them: what the row says, and what is stored where
/// it says nothing.
fn merged(row: &PlayerRow, read: &ReadPlayer, fields: PlayerFields) -> PlayerFields {
    let stored = fields_of(row);
    PlayerFields {
        name: fields.name,
        student_id: fields.student_id.or(stored.student_id),
        email: fields.email.or(stored.email),
        captain: read.captain.unwrap_or(stored.captain),
        active: read.active.unwrap_or(stored.active),
    }
}

impl Plan {
    /// A division as the plan writes it: a new one numbered among the file's new divisions
    /// (each made once).
    fn number(&mut self, division: Division) -> DivisionPick {
        match division {
            Division::Has(id) => DivisionPick::Has(id),
            Division::Make(name) => {
                let key = NameKey::of(&name);
                let at = self
                    .new_divisions
                    .iter()
                    .position(|d| NameKey::of(d) == key);
                DivisionPick::New(at.unwrap_or_else(|| {
                    self.new_divisions.push(name);
                    self.new_divisions.len() - 1
                }))
            }
        }
    }

    /// Adds a checked team (an update that changes nothing adds nothing).
    fn add(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::New(team) => {
                let division = team.division.map(|d| self.number(d));
                self.report.teams.new += 1;
                self.report.players.new += team.players.len();
                self.new_teams.push(NewTeam {
                    name: team.name,
                    division,
                    players: team.players,
                });
            }
            Outcome::Update(update) => {
                let changes = update.division.is_some()
                    || !update.changed.is_empty()
                    || !update.added.is_empty();
                if !changes {
                    return;
                }
                let division = update.division.map(|d| self.number(d));
                self.report.teams.updated += 1;
                self.report.players.new += update.added.len();
                self.report.players.updated += update.changed.len();
                self.updates.push(TeamUpdate {
                    team: update.team,
                    division,
                    changed: update.changed,
                    added: update.added,
                });
            }
        }
    }
}

/// The report's rows: each row of the file with its error or its note.
fn report_rows(rows: &[ReadRow], errors: &[LineError], notes: &[(usize, &str)]) -> Vec<ReportRow> {
    rows.iter()
        .map(|row| {
            let error = errors
                .iter()
                .find(|(l, _)| *l == row.line)
                .map(|(_, m)| m.clone());
            let (team, players, division) = match &row.read {
                Ok(r) => (
                    TeamName::new(&r.team)
                        .map_or_else(|_| r.team.trim().to_string(), |n| n.to_string()),
                    r.players
                        .iter()
                        .map(|p| p.name.trim().to_string())
                        .collect(),
                    r.division.clone(),
                ),
                Err(_) => (String::new(), Vec::new(), None),
            };
            let mut said: Vec<&str> = Vec::new();
            for (_, note) in notes.iter().filter(|(l, _)| *l == row.line) {
                if !said.contains(note) {
                    said.push(note);
                }
            }
            let note = (!said.is_empty()).then(|| said.join(", "));
            ReportRow {
                line: row.line,
                team,
                players,
                division,
                status: if error.is_some() {
                    RowStatus::Error
                } else {
                    RowStatus::Ok
                },
                message: error.or(note),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::reading::{read_rows, records};
    use super::*;
    use crate::domain::{LeagueId, PersonName, PlayerId, Timestamp};

    fn team(id: i64, name: &str, division: Option<i64>) -> TeamRow {
        TeamRow {
            id: TeamId(id),
            league_id: LeagueId(1),
            name: TeamName::from_stored(name.into()),
            player1: PersonName::from_stored("p".into()),
            player2: PersonName::from_stored("q".into()),
            withdrawn: false,
            dropped_reason: None,
            division_id: division.map(DivisionId),
        }
    }

    fn player(id: i64, team: i64, name: &str, student_id: Option<&str>) -> PlayerRow {
        PlayerRow {
            id: PlayerId(id),
            team_id: TeamId(team),
            league_id: LeagueId(1),
            name: PersonName::from_stored(name.into()),
            student_id: student_id.map(|s| StudentId::new(s).unwrap()),
            email: None,
            captain: false,
            active: true,
            created_at: Timestamp::parse("2026-01-01T00:00:00Z").unwrap(),
        }
    }

    fn empty() -> LeagueRoster {
        LeagueRoster {
            teams: Vec::new(),
            players: Vec::new(),
            divisions: Vec::new(),
            played: Vec::new(),
        }
    }

    fn planned(csv: &str, league: &LeagueRoster) -> Plan {
        plan(read_rows(records(csv).unwrap()).unwrap(), league)
    }

    /// Each row's line, status and message.
    fn outcomes(plan: &Plan) -> Vec<(usize, RowStatus, String)> {
        plan.report
            .rows
            .iter()
            .map(|r| (r.line, r.status, r.message.clone().unwrap_or_default()))
            .collect()
    }

    fn errors(plan: &Plan) -> Vec<(usize, String)> {
        outcomes(plan)
            .into_iter()
            .filter(|(_, s, _)| *s == RowStatus::Error)
            .map(|(l, _, m)| (l, m))
            .collect()
    }

    #[test]
    fn divisions_are_read_and_made_once_each() {
        let csv = "team,division,player,student id,email,captain\n\
                   Aces,Competitive,Ann,s1,ann@x.edu,yes\n\
                   Aces,Competitive,Al,s2,,\n\
                   Kings,competitive,Kim,s3,,\n\
                   Kings,,Ken,,,\n\
                   Queens,Recreational,Quin,,,\n\
                   Queens,Recreational,Quo,,,\n\
                   Jacks,Open,Jo,,,\n\
                   Jacks,Open,Jay,,,\n";
        let league = LeagueRoster {
            divisions: vec![DivisionRow {
                id: DivisionId(7),
                league_id: LeagueId(1),
                name: "Open".into(),
            }],
            ..empty()
        };
        let plan = planned(csv, &league);
        assert_eq!(errors(&plan), []);
        assert_eq!(plan.new_divisions, ["Competitive", "Recreational"]);
        let divisions: Vec<_> = plan.new_teams.iter().map(|t| t.division).collect();
        assert_eq!(
            divisions,
            [
                Some(DivisionPick::New(0)),
                Some(DivisionPick::New(0)),
                Some(DivisionPick::New(1)),
                Some(DivisionPick::Has(DivisionId(7)))
            ]
        );
        assert_eq!(plan.report.teams, Tally { new: 4, updated: 0 });
        assert_eq!(plan.report.players, Tally { new: 8, updated: 0 });
        assert_eq!(plan.report.divisions.new, 2);
        let aces = &plan.new_teams[0].players;
        assert_eq!(aces[0].email.as_deref(), Some("ann@x.edu"));
        assert!(aces[0].captain && !aces[1].captain);
    }

    #[test]
    fn each_error_is_on_its_own_line_of_the_file() {
        let csv = "team,player,email\n\
                   Aces,Ann,\n\
                   \n\
                   Aces,Al,not-an-email\n\
                   Kings,Kim,\n\
                   Kings,Ken,,extra\n";
        let plan = planned(csv, &empty());
        let errors = errors(&plan);
        assert_eq!(errors[0].0, 2, "{errors:?}");
        assert_eq!(errors[0].1, "the team on line 2 is not imported");
        assert_eq!(
            errors[1].0, 4,
            "the bad email's own line, past a blank one: {errors:?}"
        );
        assert!(errors[1].1.contains("email"), "{}", errors[1].1);
        assert_eq!(
            errors[2..],
            [
                (5, "a team has 2 to 8 active players, not 1".to_string()),
                (
                    6,
                    "expected 3 columns, as in the header row, found 4".to_string()
                ),
            ]
        );
        assert_eq!(
            plan.report.rows.len(),
            4,
            "the header and the blank line are no rows"
        );
    }

    #[test]
    fn one_division_a_team() {
        let csv = "team,division,player\nAces,East,Ann\nAces,West,Al\n";
        let plan = planned(csv, &empty());
        assert_eq!(
            errors(&plan),
            [
                (2, "the team on line 2 is not imported".to_string()),
                (
                    3,
                    "the team's division is \"East\" on line 2: one division a team".to_string()
                )
            ]
        );
    }

    #[test]
    fn a_team_the_league_has_is_updated_by_student_id_then_by_name() {
        let league = LeagueRoster {
            teams: vec![team(1, "Aces", None), team(2, "Kings", None)],
            players: vec![
                player(10, 1, "Ann", Some("S1")),
                player(11, 1, "Al", None),
                player(20, 2, "Kim", Some("S3")),
                player(21, 2, "Ken", None),
            ],
            ..empty()
        };
        let csv = "team,player,student id,email\n\
                   aces,Ann B,s1,ann@x.edu\n\
                   Aces,Al,s2,\n\
                   Aces,Ava,,\n\
                   Kings,Kim,s3,\n";
        let plan = planned(csv, &league);
        assert_eq!(errors(&plan), []);
        let messages: Vec<_> = outcomes(&plan).into_iter().map(|(_, _, m)| m).collect();
        assert_eq!(
            messages,
            [
                "player updated",
                "player updated",
                "new player",
                "no change"
            ]
        );
        assert_eq!(plan.report.teams, Tally { new: 0, updated: 1 });
        assert_eq!(plan.report.players, Tally { new: 1, updated: 2 });
        let aces = &plan.updates[0];
        assert_eq!(aces.changed[0].0.id, PlayerId(10));
        assert_eq!(aces.changed[0].1.name.as_str(), "Ann B");
        assert_eq!(aces.changed[0].1.email.as_deref(), Some("ann@x.edu"));
        assert_eq!(aces.changed[1].0.id, PlayerId(11));
        assert_eq!(
            aces.changed[1].1.student_id.as_ref().map(StudentId::as_str),
            Some("S2")
        );
        assert_eq!(aces.added[0].name.as_str(), "Ava");
    }

    #[test]
    fn student_ids_stay_one_team_a_league() {
        let league = LeagueRoster {
            teams: vec![team(1, "Aces", None)],
            players: vec![player(10, 1, "Ann", Some("S1")), player(11, 1, "Al", None)],
            ..empty()
        };
        let csv = "team,player,student id\n\
                   Kings,Kim,s1\n\
                   Kings,Ken,s5\n\
                   Queens,Quin,s5\n\
                   Queens,Quo,\n\
                   Aces,Al,s9\n\
                   Aces,Al,s8\n";
        let plan = planned(csv, &league);
        let errors = errors(&plan);
        assert!(errors.contains(&(
            2,
            "a player with this student id is on \"Aces\" in this league: a player plays for one team a league".into()
        )));
        assert!(
            errors.contains(&(7, "the same player as on line 6".into())),
            "{errors:?}"
        );
        // Kings is refused, so its s5 is not taken by the file: Queens may have it.
        assert!(!errors.iter().any(|(l, _)| *l == 4), "{errors:?}");
    }

    #[test]
    fn a_name_on_another_id_or_a_look_alike_is_refused() {
        let league = LeagueRoster {
            teams: vec![team(1, "Cards", None)],
            players: vec![player(10, 1, "Ann", Some("S1")), player(11, 1, "Al", None)],
            ..empty()
        };
        let csv = "team,player,student id\n\
                   Cards,Ann,s2\n\
                   C\u{0430}rds,Bo,\n\
                   Cardsharks,a,\nCardsharks,b,\n\
                   C\u{0430}rdsharks,c,\n";
        let errors = errors(&planned(csv, &league));
        assert_eq!(
            errors,
            [
                (
                    2,
                    "Ann on this team has another student id: change it on the team's page".into()
                ),
                (
                    3,
                    "\"C\u{0430}rds\" reads the same as \"Cards\" on line 2 of the file".into()
                ),
                (
                    6,
                    "\"C\u{0430}rdsharks\" reads the same as \"Cardsharks\" on line 4 of the file"
                        .into()
                ),
            ]
        );
    }

    #[test]
    fn a_division_changes_only_before_the_team_has_played() {
        let league = LeagueRoster {
            teams: vec![team(1, "Aces", Some(7)), team(2, "Kings", None)],
            players: vec![
                player(10, 1, "Ann", None),
                player(11, 1, "Al", None),
                player(20, 2, "Kim", None),
                player(21, 2, "Ken", None),
            ],
            divisions: vec![DivisionRow {
                id: DivisionId(7),
                league_id: LeagueId(1),
                name: "East".into(),
            }],
            played: vec![TeamId(1), TeamId(2)],
        };
        let csv = "team,division,player\nAces,east,Ann\nKings,West,Kim\n";
        let plan = planned(csv, &league);
        assert_eq!(
            errors(&plan),
            [(
                3,
                "Kings has already played a match: its division can no longer change this season"
                    .into()
            )]
        );
        let unchanged = planned("team,division,player\nAces,East,Ann\n", &league);
        assert!(unchanged.updates.is_empty() && unchanged.report.teams.updated == 0);
    }

    #[test]
    fn headerless_rows_and_a_deactivated_player_outside_the_limits() {
        let csv = "\u{feff}\"Kings, The\", Kim ,Ken\r\nLast,La,Lu\r\nLonely,Lou\r\n";
        let plan = planned(csv, &empty());
        assert_eq!(
            plan.new_teams
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>(),
            ["Kings, The", "Last"]
        );
        assert_eq!(errors(&plan)[0].0, 3);
        let csv = "team,player,active\nSolo,Sam,yes\nSolo,Sid,no\nSolo,Sue,\nBad,Bo,maybe\n";
        let plan = planned(csv, &empty());
        let active: Vec<bool> = plan.new_teams[0].players.iter().map(|p| p.active).collect();
        assert_eq!(active, [true, false, true]);
        assert_eq!(
            errors(&plan),
            [(5, "the active column says yes or no (empty: yes)".into())]
        );
    }
}
