//! Reading a roster CSV: its records (quoted cells, the file's line numbers), a header row
//! naming its columns in any order, and what each row says (its team, division and
//! players), or why it does not read. Nothing is checked against a league here (`import`
//! does that).

use crate::domain::ErrorCode;

use crate::service::ServiceError;
use crate::service::people::players::PLAYERS_MAX;

/// The records of a CSV text, each with the line it starts on and its cells (trimmed).
/// Quoted cells may hold commas, `""` and line breaks; blank lines are skipped.
pub(super) fn records(csv: &str) -> Result<Vec<(usize, Vec<String>)>, ServiceError> {
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
                match e.position() {
                    Some(at) => format!(
                        "the CSV could not be read past line {}: check its quotes",
                        at.line()
                    ),
                    None => "the CSV could not be read: check its quotes".to_string(),
                },
            )
        })?;
        let cells: Vec<String> = record.iter().map(unguarded).collect();
        // A line of spaces only.
        if cells.len() == 1 && cells[0].is_empty() {
            continue;
        }
        let line = record.position().map_or(0, |p| line_at(&text, p.byte()));
        out.push((line, cells));
    }
    Ok(out)
}

/// The file's own line of a record the reader says starts at byte `start`: the reader's
/// position (and its own line count) is where it began reading, before the blank lines it
/// skipped, so those are counted here.
fn line_at(text: &str, start: u64) -> usize {
    let bytes = text.as_bytes();
    let start = usize::try_from(start)
        .unwrap_or(usize::MAX)
        .min(bytes.len());
    let before = bytes[..start].iter().filter(|b| **b == b'\n').count();
    let blank = bytes[start..].iter().take_while(|b| **b == b'\n').count();
    1 + before + blank
}

/// A cell as typed: without the `'` a CSV export puts before a cell a spreadsheet would run
/// as a formula (`'=x` is read `=x`), so an exported roster reads back as it was.
fn unguarded(cell: &str) -> String {
    match cell.strip_prefix('\'') {
        Some(rest) if rest.starts_with(['=', '+', '-', '@', '\t', '\r']) => rest.to_string(),
        _ => cell.to_string(),
    }
}

/// A column a header row names (docs/api.md §14, the roster import).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Team,
    Player,
    StudentId,
    Email,
    Captain,
    Active,
    /// The team's division, by name (made when the league lacks it).
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

/// A yes or no in a captain cell (empty: not said).
fn captain_cell(cell: &str) -> Result<Option<bool>, String> {
    match cell.trim().to_ascii_lowercase().as_str() {
        "" => Ok(None),
        "y" | "yes" | "x" | "1" | "true" | "captain" => Ok(Some(true)),
        "n" | "no" | "0" | "false" => Ok(Some(false)),
        _ => Err("the captain column says yes or no (empty: not the captain)".to_string()),
    }
}

/// Whether an active cell says the player is active (empty: not said), or why it does not
/// read.
fn active_cell(cell: &str) -> Result<Option<bool>, String> {
    match cell.trim().to_ascii_lowercase().as_str() {
        "" => Ok(None),
        "y" | "yes" | "x" | "1" | "true" | "active" => Ok(Some(true)),
        "n" | "no" | "0" | "false" | "inactive" | "deactivated" => Ok(Some(false)),
        _ => Err("the active column says yes or no (empty: yes)".to_string()),
    }
}

/// A player as a row gives them. What a cell leaves empty, or a column the file lacks, is
/// not said: a new player takes the default (no student id or email, not the captain,
/// active), a player the team has keeps what is stored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct ReadPlayer {
    /// The file's line the player is on.
    pub line: usize,
    pub name: String,
    pub student_id: Option<String>,
    pub email: Option<String>,
    pub captain: Option<bool>,
    pub active: Option<bool>,
}

/// What one row of the file says: its team, the team's division and the row's players.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RowRead {
    pub team: String,
    /// The division cell; `None` when the file has no division column or the cell is empty.
    pub division: Option<String>,
    pub players: Vec<ReadPlayer>,
}

/// A record of the file: its line, and what it says or why it does not read.
#[derive(Debug, Clone)]
pub(super) struct ReadRow {
    pub line: usize,
    pub read: Result<RowRead, String>,
}

/// One row of the file read through its columns.
fn row_input(columns: &[Option<Column>], line: usize, cells: &[String]) -> Result<RowRead, String> {
    let cell = |wanted: Column| {
        columns
            .iter()
            .position(|c| *c == Some(wanted))
            .and_then(|i| cells.get(i))
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let names = columns
        .iter()
        .zip(cells)
        .filter(|(c, _)| **c == Some(Column::Player))
        .map(|(_, v)| v.clone());
    let captain = captain_cell(&cell(Column::Captain).unwrap_or_default())?;
    let active = active_cell(&cell(Column::Active).unwrap_or_default())?;
    let players = names
        .map(|name| ReadPlayer {
            line,
            name,
            student_id: cell(Column::StudentId),
            email: cell(Column::Email),
            captain,
            active,
        })
        .collect();
    Ok(RowRead {
        team: cell(Column::Team).unwrap_or_default(),
        division: cell(Column::Division),
        players,
    })
}

/// The rows of a roster file. With a header row, its columns say what each cell is (in any
/// order): one player column lists one player a row, several list a team a row. Without
/// one, each row is a team: its name, then 2 to 8 players. The rows of a team are gathered
/// by the import, by the team's name.
pub(super) fn read_rows(records: Vec<(usize, Vec<String>)>) -> Result<Vec<ReadRow>, ServiceError> {
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
    Ok(records
        .into_iter()
        .skip(1)
        .map(|(line, cells)| {
            let read = if cells.len() == columns.len() {
                row_input(&columns, line, &cells)
            } else {
                Err(format!(
                    "expected {} columns, as in the header row, found {}",
                    columns.len(),
                    cells.len()
                ))
            };
            ReadRow { line, read }
        })
        .collect())
}

/// A row of a file without a header: the team, then 2 to 8 players.
fn team_a_row((line, cells): (usize, Vec<String>)) -> ReadRow {
    let read = if (3..=PLAYERS_MAX + 1).contains(&cells.len()) {
        Ok(RowRead {
            team: cells[0].clone(),
            division: None,
            players: cells[1..]
                .iter()
                .map(|name| ReadPlayer {
                    line,
                    name: name.clone(),
                    ..ReadPlayer::default()
                })
                .collect(),
        })
    } else {
        Err(format!(
            "expected 3 to {} columns (the team, then 2 to {PLAYERS_MAX} players), found {}",
            PLAYERS_MAX + 1,
            cells.len()
        ))
    };
    ReadRow { line, read }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_guarded_against_spreadsheets_reads_as_it_was() {
        assert_eq!(unguarded("'=SUM(A1)"), "=SUM(A1)");
        assert_eq!(unguarded("'-Dash"), "-Dash");
        assert_eq!(unguarded("'Twas"), "'Twas");
    }
}
