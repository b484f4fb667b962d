//! Exporting a roster as CSV: one player a row, with the personal data (admins only,
//! audited); the import reads it back.

use crate::domain::Slug;

use crate::db::Db;
use crate::db::leagues::{self as db_leagues};
use crate::db::players::{self as db_players};
use crate::domain::{PersonName, StudentId, TeamName};
use crate::service::audit;
use crate::service::term::leagues::league_row;
use crate::service::{ServiceError, User, require_admin};

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
