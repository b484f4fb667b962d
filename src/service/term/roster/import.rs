//! Importing a roster CSV (`team,player1,player2`, or columns a header names): every row
//! checked against the league before anything is written, previewed, then the valid rows
//! added as teams with their players, each audited.

use crate::db::Conn;
use crate::domain::ErrorCode;
use crate::domain::Slug;

use crate::db::Db;
use crate::db::leagues::{self as db_leagues, TeamRow};
use crate::db::players::{self as db_players, PlayerFields};
use crate::domain::{StudentId, TeamName};
use crate::service::people::players::{self};
use crate::service::term::leagues::league_row;
use crate::service::term::teams::{
    CheckedTeam, NewTeamInput, TeamView, check_team, duplicate_message, insert_team,
};
use crate::service::text::NameKey;
use crate::service::{ServiceError, User, require_admin};

use super::reading::{ReadPlayer, Unread, read_rows, records};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::LeagueId;
    use crate::domain::{PersonName, TeamId, TeamName};

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
