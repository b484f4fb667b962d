//! A league's roster: its teams imported from a CSV (`team,player1,player2`, checked row by
//! row before anything is written), exported as one (one player a row, with the personal
//! data: admins only, audited; the import reads it back), and a team's edit or withdrawal
//! by the coordinator.

use crate::db::Conn;
use crate::domain::ErrorCode;
use crate::domain::Slug;

use crate::db::Db;
use crate::db::leagues::{self as db_leagues, TeamRow};
use crate::db::matches as db_matches;
use crate::db::players::{self as db_players, PlayerFields};
use crate::domain::Timestamp;
use crate::domain::{PersonName, StudentId, TeamId, TeamName};
use crate::service::audit;
use crate::service::notices;
use crate::service::people::players::{self, NewPlayerInput, PLAYERS_MAX, PlayerInput};
use crate::service::term::leagues::{league_row, name_rule};
use crate::service::term::teams::{
    CheckedTeam, NewTeamInput, TeamView, check_team, duplicate_message, insert_team, name_taken,
};
use crate::service::text::NameKey;
use crate::service::{ServiceError, User, require_admin};

/// The most rows a roster import takes at once.
pub const ROSTER_MAX_ROWS: usize = 500;

/// One row of a roster CSV (`team,player1,player2`) as checked for import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RosterRow {
    /// 1-based line number in the text where the row starts.
    pub line: usize,
    pub cells: Vec<String>,
    /// The team to add when the row is valid.
    pub team: Option<CheckedTeam>,
    pub error: Option<String>,
    /// The line of the row whose team this row's player was gathered into (one player a
    /// row), when it is not this one.
    pub gathered_into: Option<usize>,
}

/// A roster CSV checked against a league as it is now.
#[derive(Debug, Clone)]
pub struct RosterPreview {
    pub slug: String,
    pub name: String,
    pub rows: Vec<RosterRow>,
    /// How many rows would be imported.
    pub valid: usize,
}

/// The records of a CSV text, each with the line it starts on and its cells (trimmed).
/// Quoted cells may hold commas, `""` and line breaks; blank lines are skipped.
fn records(csv: &str) -> Result<Vec<(usize, Vec<String>)>, ServiceError> {
    // Browsers send a textarea's line breaks as CRLF: one line break each (also inside a
    // quoted cell), counted once.
    let text = csv
        .strip_prefix('\u{feff}')
        .unwrap_or(csv)
        .replace("\r\n", "\n");
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut out = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| {
            ServiceError::invalid(
                ErrorCode::InvalidRoster,
                "csv",
                format!("the CSV could not be read: {e}"),
            )
        })?;
        let cells: Vec<String> = record.iter().map(unguarded).collect();
        // A line of spaces only.
        if cells.len() == 1 && cells[0].is_empty() {
            continue;
        }
        let line = record.position().map_or(0, |p| p.line() as usize);
        out.push((line, cells));
    }
    Ok(out)
}

/// A cell as typed: without the `'` a CSV export puts before a cell a spreadsheet would run
/// as a formula (`'=x` is read `=x`), so an exported roster reads back as it was.
fn unguarded(cell: &str) -> String {
    match cell.strip_prefix('\'') {
        Some(rest) if rest.starts_with(['=', '+', '-', '@', '\t', '\r']) => rest.to_string(),
        _ => cell.to_string(),
    }
}

/// A column a header row names (docs: README, "Roster import").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Team,
    Player,
    StudentId,
    Email,
    Captain,
    Active,
    /// Read and left: the roster export writes it, a team's division is set on its page.
    Division,
}

/// The column a header cell names, if it names one: letters and digits compared without
/// case ("Team Name", "Player 1", "Student ID", "E-mail").
fn column_named(cell: &str) -> Option<Column> {
    let key: String = cell
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase();
    let player_n = key.strip_prefix("player").is_some_and(|n| {
        n.parse::<usize>()
            .is_ok_and(|n| (1..=PLAYERS_MAX).contains(&n))
    });
    match key.as_str() {
        "team" | "teamname" => Some(Column::Team),
        "player" | "name" | "playername" => Some(Column::Player),
        _ if player_n => Some(Column::Player),
        "studentid" | "studentnumber" | "sid" => Some(Column::StudentId),
        "email" | "emailaddress" => Some(Column::Email),
        "captain" => Some(Column::Captain),
        "active" => Some(Column::Active),
        "division" => Some(Column::Division),
        _ => None,
    }
}

/// The columns of a header row: a team column, one or more player columns and every other
/// cell a known column (or empty); `None` when the row is not a header.
fn header(cells: &[String]) -> Option<Vec<Option<Column>>> {
    let columns: Vec<Option<Column>> = cells.iter().map(|c| column_named(c)).collect();
    let known = cells
        .iter()
        .zip(&columns)
        .all(|(cell, column)| column.is_some() || cell.is_empty());
    let has = |wanted: Column| columns.iter().filter(|c| **c == Some(wanted)).count();
    (known && has(Column::Team) == 1 && has(Column::Player) >= 1).then_some(columns)
}

/// A yes in a captain cell.
fn is_yes(cell: &str) -> bool {
    matches!(
        cell.trim().to_ascii_lowercase().as_str(),
        "y" | "yes" | "x" | "1" | "true" | "captain"
    )
}

/// Whether an active cell says the player is active (empty: yes), or why it does not read.
fn is_active(cell: &str) -> Result<bool, String> {
    match cell.trim().to_ascii_lowercase().as_str() {
        "" | "y" | "yes" | "x" | "1" | "true" | "active" => Ok(true),
        "n" | "no" | "0" | "false" | "inactive" | "deactivated" => Ok(false),
        _ => Err("the active column says yes or no (empty: yes)".to_string()),
    }
}

/// A player as read from a row, and whether they are active (a deactivated player is
/// imported deactivated, and counts in none of a team's limits).
type ReadPlayer = (PlayerInput, bool);

/// One row of the file read through its columns: the team's name and the row's players, or
/// why not.
fn row_input(
    columns: &[Option<Column>],
    cells: &[String],
) -> Result<(String, Vec<ReadPlayer>), String> {
    let cell = |wanted: Column| {
        columns
            .iter()
            .position(|c| *c == Some(wanted))
            .and_then(|i| cells.get(i))
            .cloned()
    };
    let team = cell(Column::Team).unwrap_or_default();
    let names: Vec<String> = columns
        .iter()
        .zip(cells)
        .filter(|(c, _)| **c == Some(Column::Player))
        .map(|(_, v)| v.clone())
        .collect();
    let one_a_row = columns
        .iter()
        .filter(|c| **c == Some(Column::Player))
        .count()
        == 1;
    let players = if one_a_row {
        let student_id = cell(Column::StudentId).filter(|v| !v.is_empty());
        let email = cell(Column::Email).filter(|v| !v.is_empty());
        let captain = cell(Column::Captain).is_some_and(|v| is_yes(&v));
        let active = is_active(&cell(Column::Active).unwrap_or_default())?;
        names
            .into_iter()
            .map(|name| {
                let player = PlayerInput::Player(NewPlayerInput {
                    name,
                    student_id: student_id.clone(),
                    email: email.clone(),
                    captain: Some(captain),
                });
                (player, active)
            })
            .collect()
    } else {
        names.iter().map(|n| (PlayerInput::name(n), true)).collect()
    };
    Ok((team, players))
}

/// A record of the file (its line and cells) as read: a team's name and players, or why not.
type ReadRow = (
    usize,
    Vec<String>,
    Result<(String, Vec<ReadPlayer>), Unread>,
);

/// Why a row of a roster file gives no team of its own.
enum Unread {
    /// Its player joins the team of the row on this line.
    Gathered(usize),
    /// It does not read: why.
    Bad(String),
}

/// The rows of a roster file, each with its team's name and players. With a header row, its
/// columns say what each cell is (in any order); a header with one player column lists one
/// player a row, and the rows of a team (by name) are gathered into one team. Without one,
/// each row is a team: its name, then 2 to 8 players.
fn read_rows(records: Vec<(usize, Vec<String>)>) -> Result<Vec<ReadRow>, ServiceError> {
    let columns = records.first().and_then(|(_, cells)| header(cells));
    let Some(columns) = columns else {
        return Ok(records.into_iter().map(team_a_row).collect());
    };
    let players_columns = columns
        .iter()
        .filter(|c| **c == Some(Column::Player))
        .count();
    let personal = columns.iter().any(|c| {
        matches!(
            c,
            Some(Column::StudentId | Column::Email | Column::Captain | Column::Active)
        )
    });
    if players_columns > 1 && personal {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidRoster,
            "csv",
            "with student id, email, captain or active columns, the header has one player column: one player a row",
        ));
    }
    let rows: Vec<ReadRow> = records
        .into_iter()
        .skip(1)
        .map(|(line, cells)| {
            let read = if cells.len() == columns.len() {
                row_input(&columns, &cells).map_err(Unread::Bad)
            } else {
                Err(Unread::Bad(format!(
                    "expected {} columns, as in the header row, found {}",
                    columns.len(),
                    cells.len()
                )))
            };
            (line, cells, read)
        })
        .collect();
    Ok(if players_columns > 1 {
        rows
    } else {
        gather_by_team(rows)
    })
}

/// A row of a file without a header: the team, then 2 to 8 players.
fn team_a_row((line, cells): (usize, Vec<String>)) -> ReadRow {
    let read = if (3..=PLAYERS_MAX + 1).contains(&cells.len()) {
        Ok((
            cells[0].clone(),
            cells[1..]
                .iter()
                .map(|c| (PlayerInput::name(c), true))
                .collect(),
        ))
    } else {
        Err(Unread::Bad(format!(
            "expected 3 to {} columns (the team, then 2 to {PLAYERS_MAX} players), found {}",
            PLAYERS_MAX + 1,
            cells.len()
        )))
    };
    (line, cells, read)
}

/// One player a row: each team's rows gathered on its first row (the others point at it).
fn gather_by_team(rows: Vec<ReadRow>) -> Vec<ReadRow> {
    let mut gathered: Vec<ReadRow> = Vec::new();
    let mut first_of: Vec<(NameKey, usize, usize)> = Vec::new();
    for (line, cells, read) in rows {
        let Ok((team, players)) = read else {
            gathered.push((line, cells, read));
            continue;
        };
        let key = NameKey::of(team.trim());
        match first_of
            .iter()
            .find(|(k, _, _)| *k == key && !team.trim().is_empty())
        {
            Some((_, at, first_line)) => {
                if let Ok((_, team_players)) = &mut gathered[*at].2 {
                    team_players.extend(players);
                }
                gathered.push((line, cells, Err(Unread::Gathered(*first_line))));
            }
            None => {
                first_of.push((key, gathered.len(), line));
                gathered.push((line, cells, Ok((team, players))));
            }
        }
    }
    gathered
}

/// What the rows checked so far hold, and what the league holds already.
struct RosterCheck<'a> {
    /// The league's teams (by the key their names read as) and names.
    existing: Vec<(NameKey, &'a str)>,
    /// Each student id of the league with its team's name.
    taken: &'a [(StudentId, String)],
    /// The names of the valid rows so far, with their lines.
    seen: Vec<(NameKey, TeamName, usize)>,
    /// The student ids of the valid rows so far.
    ids: Vec<StudentId>,
}

impl RosterCheck<'_> {
    /// Checks a team read from line `line`: its team (and notes its name and ids), or why not.
    /// Its active players make the team as a new team's are checked; its deactivated ones
    /// are checked one by one. The players keep the file's order.
    fn team(
        &mut self,
        line: usize,
        name: String,
        read: &[ReadPlayer],
    ) -> Result<CheckedTeam, String> {
        let message = |e: ServiceError| match e {
            ServiceError::Invalid(e) => e.message,
            e => e.to_string(),
        };
        let input = NewTeamInput {
            name,
            players: read
                .iter()
                .filter(|(_, active)| *active)
                .map(|(p, _)| p.clone())
                .collect(),
            division: None,
        };
        let (name, active) = check_team(&input).map_err(message)?;
        let mut active = active.into_iter();
        let mut players = Vec::with_capacity(read.len());
        for (i, (player, is_active)) in read.iter().enumerate() {
            let fields = if *is_active {
                active.next()
            } else {
                let fields = players::check_new(player, &format!("players[{i}]"));
                Some(PlayerFields {
                    active: false,
                    ..fields.map_err(message)?
                })
            };
            players.extend(fields);
        }
        players::check_distinct_ids(&players).map_err(message)?;
        let key = NameKey::of(name.as_str());
        if let Some((_, earlier_name, earlier)) = self.seen.iter().find(|(k, _, _)| *k == key) {
            return Err(
                if earlier_name.as_str().to_lowercase() == name.as_str().to_lowercase() {
                    format!("\"{name}\" is already on line {earlier} of the file")
                } else {
                    format!(
                        "\"{name}\" reads the same as \"{earlier_name}\" on line {earlier} of the file"
                    )
                },
            );
        }
        if let Some((_, other)) = self.existing.iter().find(|(k, _)| *k == key) {
            return Err(duplicate_message(name.as_str(), other));
        }
        if let Some(message) = self.id_taken(&players) {
            return Err(message);
        }
        self.seen.push((key, name.clone(), line));
        self.ids
            .extend(players.iter().filter_map(|p| p.student_id.clone()));
        Ok((name, players))
    }

    /// Why a student id of `players` cannot join the league, if one cannot.
    fn id_taken(&self, players: &[PlayerFields]) -> Option<String> {
        players
            .iter()
            .filter_map(|p| p.student_id.as_ref())
            .find_map(|id| {
                if self.ids.contains(id) {
                    Some("a student id of this team is on an earlier team of the file".to_string())
                } else {
                    self.taken.iter().find(|(t, _)| t == id).map(|(_, team)| {
                        format!("a student id of this team is on \"{team}\" in this league")
                    })
                }
            })
    }
}

/// Checks every row of a roster CSV against the league's `existing` teams and the student
/// ids its players hold (`taken`: each id with its team's name). Blank lines and a header
/// row are skipped; each other row is valid or has its error.
pub fn check_roster(
    csv: &str,
    existing: &[TeamRow],
    taken: &[(StudentId, String)],
) -> Result<Vec<RosterRow>, ServiceError> {
    let mut check = RosterCheck {
        existing: existing
            .iter()
            .map(|t| (NameKey::of(t.name.as_str()), t.name.as_str()))
            .collect(),
        taken,
        seen: Vec::new(),
        ids: Vec::new(),
    };
    let mut rows: Vec<RosterRow> = Vec::new();
    for (line, cells, read) in read_rows(records(csv)?)? {
        let mut row = RosterRow {
            line,
            cells,
            team: None,
            error: None,
            gathered_into: None,
        };
        match read {
            Ok((name, players)) => match check.team(line, name, &players) {
                Ok(team) => row.team = Some(team),
                Err(message) => row.error = Some(message),
            },
            Err(Unread::Gathered(first)) => row.gathered_into = Some(first),
            Err(Unread::Bad(message)) => row.error = Some(message),
        }
        rows.push(row);
    }
    refuse_players_of_refused_teams(&mut rows);
    Ok(rows)
}

/// A player gathered into a team that is not imported is not imported either.
fn refuse_players_of_refused_teams(rows: &mut [RosterRow]) {
    let refused: Vec<usize> = rows
        .iter()
        .filter(|r| r.team.is_none() && r.gathered_into.is_none())
        .map(|r| r.line)
        .collect();
    for row in rows {
        if let Some(first) = row.gathered_into
            && refused.contains(&first)
        {
            row.error = Some(format!("the team on line {first} is not imported"));
        }
    }
}

/// The student ids of the league's players, each with its team's name.
async fn taken_ids(
    conn: &mut Conn,
    league: crate::domain::LeagueId,
    teams: &[TeamRow],
) -> Result<Vec<(StudentId, String)>, ServiceError> {
    Ok(db_players::of_league(conn, league)
        .await?
        .into_iter()
        .filter_map(|p| {
            let team = teams.iter().find(|t| t.id == p.team_id)?;
            Some((p.student_id?, team.name.to_string()))
        })
        .collect())
}

/// A roster has 1 to [`ROSTER_MAX_ROWS`] rows.
fn roster_size(rows: &[RosterRow]) -> Result<(), ServiceError> {
    if rows.is_empty() {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidRoster,
            "csv",
            "paste the roster: one team a line (team,player1,player2...), or a header row and one player a line",
        ));
    }
    if rows.len() > ROSTER_MAX_ROWS {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidRoster,
            "csv",
            format!("at most {ROSTER_MAX_ROWS} rows at once, not {}", rows.len()),
        ));
    }
    Ok(())
}

/// The rows of a roster CSV checked against the league as it is now (nothing written).
pub async fn preview_roster(
    db: &Db,
    user: &User,
    slug: &Slug,
    csv: &str,
) -> Result<RosterPreview, ServiceError> {
    require_admin(user)?;
    let mut conn = db.read().await?;
    let league = league_row(&mut conn, slug).await?;
    let existing = db_leagues::teams(&mut conn, league.id).await?;
    let taken = taken_ids(&mut conn, league.id, &existing).await?;
    let rows = check_roster(csv, &existing, &taken)?;
    roster_size(&rows)?;
    Ok(RosterPreview {
        slug: league.slug.to_string(),
        name: league.name,
        valid: rows.iter().filter(|r| r.team.is_some()).count(),
        rows,
    })
}

/// Adds the valid rows of a roster CSV as teams in one transaction (rows with an error are
/// skipped), each with its audit row; returns the teams added. Nothing is written when no
/// row is valid.
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug))]
pub async fn import_roster(
    db: &Db,
    user: &User,
    slug: &Slug,
    csv: &str,
) -> Result<Vec<TeamView>, ServiceError> {
    let now = db.clock().now();
    require_admin(user)?;
    let mut tx = db.write().await?;
    let league = league_row(&mut tx, slug).await?;
    let existing = db_leagues::teams(&mut tx, league.id).await?;
    let taken = taken_ids(&mut tx, league.id, &existing).await?;
    let rows = check_roster(csv, &existing, &taken)?;
    roster_size(&rows)?;
    let mut added = Vec::new();
    for team in rows.into_iter().filter_map(|r| r.team) {
        let reason = Some("roster import");
        added.push(insert_team(&mut tx, user, now, league.id, team, reason).await?);
    }
    if added.is_empty() {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidRoster,
            "csv",
            "no valid rows to import: fix the rows marked with an error",
        ));
    }
    tx.commit().await?;
    Ok(added)
}

/// The columns of a roster export, in order: the import reads them back by these names.
pub const ROSTER_EXPORT_COLUMNS: [&str; 7] = [
    "team",
    "division",
    "player",
    "student_id",
    "email",
    "captain",
    "active",
];

/// One player of a roster export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RosterLine {
    pub team: TeamName,
    /// The team's division's name, if it has one.
    pub division: Option<String>,
    pub player: PersonName,
    pub student_id: Option<StudentId>,
    pub email: Option<String>,
    pub captain: bool,
    pub active: bool,
}

impl RosterLine {
    /// The line's cells, in the order of [`ROSTER_EXPORT_COLUMNS`].
    pub fn cells(&self) -> [String; 7] {
        let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
        [
            self.team.to_string(),
            self.division.clone().unwrap_or_default(),
            self.player.to_string(),
            self.student_id
                .as_ref()
                .map(|s| s.as_str().to_string())
                .unwrap_or_default(),
            self.email.clone().unwrap_or_default(),
            yes_no(self.captain),
            yes_no(self.active),
        ]
    }
}

/// Every player of the league `slug`, team by team (in the league's order) and in the order
/// they were added, with their student ids and emails (admin). An export of personal data:
/// it writes an audit row `export_roster` on the league saying how many players, never who.
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug))]
pub async fn export_roster(
    db: &Db,
    user: &User,
    slug: &Slug,
) -> Result<Vec<RosterLine>, ServiceError> {
    require_admin(user)?;
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let league = league_row(&mut tx, slug).await?;
    let teams = db_leagues::teams(&mut tx, league.id).await?;
    let players = db_players::of_league(&mut tx, league.id).await?;
    let divisions = crate::db::divisions::of_league(&mut tx, league.id).await?;
    let division_of = |team: &db_leagues::TeamRow| {
        let id = team.division_id?;
        divisions
            .iter()
            .find(|d| d.id == id)
            .map(|d| d.name.clone())
    };
    let lines: Vec<RosterLine> = teams
        .iter()
        .flat_map(|team| {
            players
                .iter()
                .filter(|p| p.team_id == team.id)
                .map(|p| RosterLine {
                    team: team.name.clone(),
                    division: division_of(team),
                    player: p.name.clone(),
                    student_id: p.student_id.clone(),
                    email: p.email.clone(),
                    captain: p.captain,
                    active: p.active,
                })
        })
        .collect();
    let after = format!("{} players", lines.len());
    let change = audit::Change::new("export_roster", audit::Subject::League(league.id))
        .after(&after)
        .reason("roster CSV downloaded");
    audit::record(&mut tx, user, now, change).await?;
    tx.commit().await?;
    Ok(lines)
}

/// Writes a team's new state in `tx` with its audit row (`after` holds its players as they
/// are now: their names are written by `players`).
async fn save_team(
    tx: &mut Conn,
    user: &User,
    now: Timestamp,
    before: (&TeamRow, &TeamView),
    after: TeamView,
) -> Result<TeamView, ServiceError> {
    let (before, before_view) = before;
    db_leagues::update_team(tx, before.id, &after.name, after.withdrawn).await?;
    let b = crate::service::to_json("team", before_view)?;
    let a = crate::service::to_json("team", &after)?;
    audit::record(
        tx,
        user,
        now,
        audit::Change::new("update", audit::Subject::Team(before.id))
            .before(&b)
            .after(&a),
    )
    .await?;
    Ok(after)
}

/// The team `team_id` of the league `slug` (not found in another league).
async fn team_of(conn: &mut Conn, slug: &Slug, team_id: TeamId) -> Result<TeamRow, ServiceError> {
    let league = league_row(conn, slug).await?;
    db_leagues::team(conn, team_id)
        .await?
        .filter(|t| t.league_id == league.id)
        .ok_or(ServiceError::NotFound)
}

/// Renames team `team_id` of the league `slug` and/or moves it to another division, as
/// [`patch_team`] does (the admin's league page; its players are changed on their own, by
/// `service::people::players`). A team of another league is not found.
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug, team_id = %team_id))]
pub async fn change_team(
    db: &Db,
    user: &User,
    slug: &Slug,
    team_id: TeamId,
    change: &TeamChange,
) -> Result<TeamView, ServiceError> {
    require_admin(user)?;
    let name = change.name.as_deref().map(check_team_name).transpose()?;
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let before = team_of(&mut tx, slug, team_id).await?;
    let view = apply_team_change(&mut tx, user, now, &before, name, change.division).await?;
    tx.commit().await?;
    Ok(view)
}

/// A team's new name, checked.
fn check_team_name(name: &str) -> Result<TeamName, ServiceError> {
    TeamName::new(name).map_err(|bad| name_rule("name", "the team's name").refused(bad))
}

/// Refuses renaming `team` to `name` when another team of its league reads the same.
async fn check_name_free(
    conn: &mut Conn,
    team: &TeamRow,
    name: &TeamName,
) -> Result<(), ServiceError> {
    let others = db_leagues::teams(conn, team.league_id).await?;
    let others = others.iter().filter(|t| t.id != team.id);
    match name_taken(name.as_str(), others.map(|t| t.name.as_str())) {
        Some(message) => Err(ServiceError::invalid(
            ErrorCode::InvalidTeam,
            "name",
            message,
        )),
        None => Ok(()),
    }
}

/// What changes in a team (`PATCH /api/v1/teams/{id}`): each field present is set, each
/// absent one kept.
#[derive(Debug, Clone, Default, serde::Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TeamChange {
    #[serde(default)]
    pub name: Option<String>,
    /// One of the league's divisions, or `null` for none; only before the team has played.
    #[serde(
        default,
        deserialize_with = "crate::service::term::reschedule::present"
    )]
    #[schema(value_type = Option<i64>)]
    pub division: Option<Option<crate::domain::DivisionId>>,
}

/// Renames team `team_id` and/or moves it to another division (admin): 404 for no such
/// team, 422 `invalid_team` for a name taken, `invalid_division` for a division of another
/// league, 409 `team_has_played` for a new division once it has played.
#[tracing::instrument(skip_all, fields(user_id = %user.id, team_id = %team_id))]
pub async fn patch_team(
    db: &Db,
    user: &User,
    team_id: TeamId,
    change: &TeamChange,
) -> Result<TeamView, ServiceError> {
    require_admin(user)?;
    let name = change.name.as_deref().map(check_team_name).transpose()?;
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let before = db_leagues::team(&mut tx, team_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let view = apply_team_change(&mut tx, user, now, &before, name, change.division).await?;
    tx.commit().await?;
    Ok(view)
}

/// Gives team `before` its new name (checked) and division, each when given, and audits
/// the change.
async fn apply_team_change(
    tx: &mut Conn,
    user: &User,
    now: Timestamp,
    before: &TeamRow,
    name: Option<TeamName>,
    division: Option<Option<crate::domain::DivisionId>>,
) -> Result<TeamView, ServiceError> {
    let before_view = crate::service::term::teams::view(tx, before).await?;
    let mut after = before_view.clone();
    if let Some(name) = name {
        check_name_free(tx, before, &name).await?;
        after.name = name;
    }
    if let Some(division) = division {
        crate::service::term::divisions::move_team(tx, before, division).await?;
        after.division = division;
    }
    save_team(tx, user, now, (before, &before_view), after).await
}

/// Withdraws a team from the league (`true`) or reinstates it (`false`). A withdrawn team
/// plays no more: its regular-season matches not started are cancelled in the same
/// transaction, as when the forfeit policy drops a team; its results stay. Reinstating it
/// does not bring them back ("generate the rest" schedules its missing pairs again).
#[tracing::instrument(skip_all, fields(user_id = %user.id, slug = ?slug, team_id = %team_id, withdrawn))]
pub async fn set_withdrawn(
    db: &Db,
    user: &User,
    slug: &Slug,
    team_id: TeamId,
    withdrawn: bool,
) -> Result<TeamView, ServiceError> {
    require_admin(user)?;
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let before = team_of(&mut tx, slug, team_id).await?;
    let before_view = crate::service::term::teams::view(&mut tx, &before).await?;
    let after = TeamView {
        withdrawn,
        ..before_view.clone()
    };
    let view = save_team(&mut tx, user, now, (&before, &before_view), after).await?;
    if withdrawn && !before.withdrawn {
        let note = format!("{} withdrew from the league", before.name);
        let cancelled = db_matches::cancel_unstarted_of(&mut tx, team_id, &note).await?;
        let after = format!("{} matches cancelled", cancelled.len());
        audit::record(
            &mut tx,
            user,
            now,
            audit::Change::new("withdraw_team", audit::Subject::Team(team_id))
                .after(&after)
                .reason(&note),
        )
        .await?;
        if let Some(public_url) = db.notices() {
            let reason = "withdrawn by the coordinator";
            notices::events::tell_team_dropped(
                &mut tx, public_url, now, team_id, reason, &cancelled,
            )
            .await?;
        }
    }
    tx.commit().await?;
    Ok(view)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::LeagueId;

    fn team(name: &str) -> TeamRow {
        TeamRow {
            id: TeamId(1),
            league_id: LeagueId(1),
            name: TeamName::from_stored(name.into()),
            player1: PersonName::from_stored("p".into()),
            player2: PersonName::from_stored("q".into()),
            withdrawn: false,
            dropped_reason: None,
            division_id: None,
        }
    }

    fn teams(rows: &[RosterRow]) -> Vec<(usize, String, Vec<String>)> {
        rows.iter()
            .filter_map(|r| {
                r.team.clone().map(|(n, p)| {
                    let names = p.into_iter().map(|p| p.name.into()).collect();
                    (r.line, n.into(), names)
                })
            })
            .collect()
    }

    #[test]
    fn rows_are_checked_with_their_line_numbers() {
        let csv = "team,player1,player2\nAces,Ann,Al\n\n  \nLonely,Lou\naces,Ava,Abe\nOld,Oz,Ola\n";
        let rows = check_roster(csv, &[team("old")], &[]).unwrap();
        assert_eq!(rows.len(), 4, "header and blank lines skipped");
        assert_eq!(
            teams(&rows),
            vec![(2, "Aces".into(), vec!["Ann".into(), "Al".into()])]
        );
        assert_eq!(rows[1].line, 5);
        assert_eq!(
            rows[1].error.as_deref(),
            Some("expected 3 columns, as in the header row, found 2")
        );
        assert_eq!(
            rows[2].error.as_deref(),
            Some("\"aces\" is already on line 2 of the file")
        );
        assert_eq!(
            rows[3].error.as_deref(),
            Some("the league already has a team named \"Old\"")
        );
    }

    #[test]
    fn quoted_cells_keep_commas_and_quotes_and_a_name_on_two_lines_is_refused() {
        let csv = "\u{feff}\"Kings, The\", Kim ,Ken\r\n\"Two\nLines\",\"Li \"\"Lee\"\" Lu\",Lo\r\nLast,La,Lu";
        let rows = check_roster(csv, &[], &[]).unwrap();
        assert_eq!(
            teams(&rows),
            vec![
                (1, "Kings, The".into(), vec!["Kim".into(), "Ken".into()]),
                (4, "Last".into(), vec!["La".into(), "Lu".into()]),
            ]
        );
        // The quoted line break is read as part of the cell, then refused as a name.
        assert_eq!(rows[1].line, 2);
        assert_eq!(
            rows[1].error.as_deref(),
            Some("the team's name contains a control character (U+000A); type plain text")
        );
    }

    #[test]
    fn look_alike_names_are_the_same_team() {
        let csv = "Cardsharks,a,b\nC\u{0430}rdsharks,c,d\nAces\u{00A0}High,e,f\nOld\u{200B},g,h\nC\u{0430}rds,i,j\n";
        let rows =
            check_roster(csv, &[team("Aces High"), team("old"), team("Cards")], &[]).unwrap();
        assert_eq!(
            teams(&rows),
            vec![(1, "Cardsharks".into(), vec!["a".into(), "b".into()])]
        );
        let errors: Vec<_> = rows.iter().map(|r| r.error.as_deref()).collect();
        assert_eq!(
            errors[1..],
            [
                Some(
                    "\"C\u{0430}rdsharks\" reads the same as \"Cardsharks\" on line 1 of the file"
                ),
                Some("the league already has a team named \"Aces High\""),
                Some("the league already has a team named \"Old\""),
                Some(
                    "\"C\u{0430}rds\" reads the same as the league's team \"Cards\": choose a name that tells them apart"
                ),
            ]
        );
    }

    #[test]
    fn a_header_row_is_never_imported_as_a_team() {
        let rows = check_roster("Team Name,Player 1,Player 2\nAces,Ann,Al\n", &[], &[]).unwrap();
        assert_eq!(
            teams(&rows),
            vec![(2, "Aces".into(), vec!["Ann".into(), "Al".into()])]
        );
        assert_eq!(rows.len(), 1, "the header is no row");
    }

    #[test]
    fn a_header_names_its_columns_in_any_order_one_player_a_row() {
        let csv = "Email,Captain,Student ID,Name,Team\n\
                   ann@x.edu,yes,s1,Ann,Aces\n\
                   ,,s2,Al,Aces\n\
                   ,,,Kim,Kings\n\
                   ,,s9,Ken,Kings\n\
                   ,,,Lou,Lonely\n\
                   Short,row\n";
        let taken = [(StudentId::new("S9").unwrap(), "Queens".to_string())];
        let rows = check_roster(csv, &[], &taken).unwrap();
        assert_eq!(
            teams(&rows),
            vec![(2, "Aces".into(), vec!["Ann".into(), "Al".into()])]
        );
        let aces = &rows[0].team.as_ref().unwrap().1;
        assert_eq!(
            aces[0].student_id.as_ref().map(StudentId::as_str),
            Some("S1")
        );
        assert_eq!(aces[0].email.as_deref(), Some("ann@x.edu"));
        assert!(aces[0].captain && !aces[1].captain);
        assert_eq!(rows[1].gathered_into, Some(2));
        assert_eq!(rows[1].error, None);
        assert_eq!(
            rows[2].error.as_deref(),
            Some("a student id of this team is on \"Queens\" in this league")
        );
        assert_eq!(
            rows[3].error.as_deref(),
            Some("the team on line 4 is not imported")
        );
        assert_eq!(
            rows[4].error.as_deref(),
            Some("a team has 2 to 8 players, not 1")
        );
        assert_eq!(
            rows[5].error.as_deref(),
            Some("expected 5 columns, as in the header row, found 2")
        );
        // Up to 8 players a team; a ninth is refused.
        let nine: String = (1..=9).map(|i| format!("Big,P{i}\n")).collect();
        let rows = check_roster(&format!("team,player\n{nine}"), &[], &[]).unwrap();
        assert_eq!(
            rows[0].error.as_deref(),
            Some("a team has 2 to 8 players, not 9")
        );
        let eight: String = (1..=8).map(|i| format!("Big,P{i}\n")).collect();
        let rows = check_roster(&format!("team,player\n{eight}"), &[], &[]).unwrap();
        assert_eq!(teams(&rows)[0].2.len(), 8);
    }

    #[test]
    fn an_active_column_brings_deactivated_players_outside_the_limits() {
        let csv = "team,player,active\n\
                   Aces,Ann,yes\nAces,Al,\nAces,Old,no\n\
                   Kings,Kim,maybe\n\
                   Solo,Sam,yes\nSolo,Sid,no\n";
        let rows = check_roster(csv, &[], &[]).unwrap();
        let aces = &rows[0].team.as_ref().unwrap().1;
        let read: Vec<(&str, bool)> = aces.iter().map(|p| (p.name.as_str(), p.active)).collect();
        assert_eq!(read, [("Ann", true), ("Al", true), ("Old", false)]);
        assert_eq!(
            rows[3].error.as_deref(),
            Some("the active column says yes or no (empty: yes)")
        );
        assert_eq!(
            rows[4].error.as_deref(),
            Some("a team has 2 to 8 players, not 1"),
            "a deactivated player counts in no limit"
        );
    }

    #[test]
    fn a_cell_guarded_against_spreadsheets_reads_as_it_was() {
        assert_eq!(unguarded("'=SUM(A1)"), "=SUM(A1)");
        assert_eq!(unguarded("'-Dash"), "-Dash");
        assert_eq!(unguarded("'Twas"), "'Twas");
    }

    #[test]
    fn a_roster_has_one_to_the_most_rows() {
        let empty = check_roster("\n\n", &[], &[]).unwrap();
        assert!(roster_size(&empty).is_err());
        let many: String = (0..=ROSTER_MAX_ROWS)
            .map(|i| format!("T{i},a,b\n"))
            .collect();
        let rows = check_roster(&many, &[], &[]).unwrap();
        assert_eq!(rows.len(), ROSTER_MAX_ROWS + 1);
        assert!(roster_size(&rows).is_err());
        assert!(roster_size(&rows[..ROSTER_MAX_ROWS]).is_ok());
    }
}
