//! Reading a roster CSV: its records (quoted cells, line numbers), a header row naming its
//! columns in any order, and each row's team and players, or why not. Nothing is checked
//! against a league here (`import` does that).

use crate::domain::ErrorCode;

use crate::service::ServiceError;
use crate::service::people::players::{NewPlayerInput, PLAYERS_MAX, PlayerInput};
use crate::service::text::NameKey;

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

/// A column a header row names (docs/api.md §14, the roster import).
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
pub(super) type ReadPlayer = (PlayerInput, bool);

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
pub(super) enum Unread {
    /// Its player joins the team of the row on this line.
    Gathered(usize),
    /// It does not read: why.
    Bad(String),
}

/// The rows of a roster file, each with its team's name and players. With a header row, its
/// columns say what each cell is (in any order); a header with one player column lists one
/// player a row, and the rows of a team (by name) are gathered into one team. Without one,
/// each row is a team: its name, then 2 to 8 players.
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
