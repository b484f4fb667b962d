//! A team's players (docs/api.md, "Players"): 2 to 8 active a team, each with a name (the
//! same checks as a team's name), an optional student id and email, and whether they are the
//! captain. A player who leaves is deactivated, never deleted: a lineup points at the
//! player's id for good.
//!
//! Student ids and emails are personal data (education records): only admins see them
//! (this module refuses everyone else), and no message, audit row or log line holds one.

use serde::{Deserialize, Serialize};

use crate::db::leagues::{self as db_leagues, TeamRow};
use crate::db::lineups as db_lineups;
use crate::db::players::{self as db_players, PlayerFields, PlayerRow};
use crate::db::{Conn, Db};
use crate::domain::{
    ErrorCode, LeagueId, MatchId, PersonName, PlayerId, StudentId, TeamId, Timestamp,
};
use crate::service::audit;
use crate::service::people::accounts::{email_schema, validate_email};
use crate::service::term::leagues::name_rule;
use crate::service::{ServiceError, User, require_admin};

/// The fewest active players a team keeps.
pub const PLAYERS_MIN: usize = 2;
/// The most active players a team has (two at the table, the rest substitutes).
pub const PLAYERS_MAX: usize = 8;

/// The name the erasure gives a player when no other is asked for.
pub const FORMER_PLAYER: &str = "Former player";

/// A player as sent to create one: a name, or an object with the name and the rest.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum PlayerInput {
    Name(String),
    Player(NewPlayerInput),
}

impl PlayerInput {
    pub fn name(name: &str) -> PlayerInput {
        PlayerInput::Name(name.to_string())
    }
}

/// A student id as sent: text, or a number (many are all digits). Any other JSON is refused
/// without repeating it, as serde's own message would: it may be the student's id.
fn student_id_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    match serde_json::Value::deserialize(d)? {
        serde_json::Value::Null => Ok(None),
        serde_json::Value::String(text) => Ok(Some(text)),
        serde_json::Value::Number(n) if n.is_u64() => Ok(Some(n.to_string())),
        _ => Err(serde::de::Error::custom(
            "a student id is text or a whole number",
        )),
    }
}

/// The OpenAPI schema of a student id as sent: letters, digits and dashes (an empty text
/// removes it), or a whole number; `null` too where `nullable`.
fn student_id_schema(nullable: bool) -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
    let text = ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(if nullable {
            "^[A-Za-z0-9-]{0,40}$"
        } else {
            "^[A-Za-z0-9-]{1,40}$"
        }));
    let number = ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(0))
        .maximum(Some(u64::MAX));
    let one_of = OneOfBuilder::new().item(text).item(number);
    if nullable {
        one_of
            .item(ObjectBuilder::new().schema_type(Type::Null))
            .build()
            .into()
    } else {
        one_of.build().into()
    }
}

fn optional_student_id_schema() -> utoipa::openapi::schema::Schema {
    student_id_schema(true)
}

fn required_student_id_schema() -> utoipa::openapi::schema::Schema {
    student_id_schema(false)
}

fn player_email_schema() -> utoipa::openapi::schema::Schema {
    email_schema(
        "At most 254 characters: one '@' between a name and a domain, no spaces (an empty text\nmeans none).",
    )
}

/// A new player: `POST /api/v1/teams/{id}/players`, or an entry of a new team's `players`.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPlayerInput {
    pub name: String,
    #[serde(default, deserialize_with = "student_id_text")]
    #[schema(schema_with = optional_student_id_schema)]
    pub student_id: Option<String>,
    /// The player's email, an empty text for none (`player_email_schema`).
    #[schema(schema_with = player_email_schema)]
    pub email: Option<String>,
    pub captain: Option<bool>,
}

/// A change to a player: the fields sent change, the others stay. An empty `student_id` or
/// `email` removes it.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayerChange {
    pub name: Option<String>,
    #[serde(default, deserialize_with = "student_id_text")]
    #[schema(schema_with = optional_student_id_schema)]
    pub student_id: Option<String>,
    /// The player's email, an empty text for none (`player_email_schema`).
    #[schema(schema_with = player_email_schema)]
    pub email: Option<String>,
    pub captain: Option<bool>,
    pub active: Option<bool>,
}

/// A player as admins see it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Player {
    pub id: PlayerId,
    #[schema(value_type = String)]
    pub name: PersonName,
    #[schema(value_type = Option<String>)]
    pub student_id: Option<StudentId>,
    pub email: Option<String>,
    pub captain: bool,
    pub active: bool,
    /// The finished matches (complete or forfeit) the player sat in, once the player's league
    /// has any lineup; in a league without lineups, the matches the player's team finished
    /// since the player was added.
    pub matches: i64,
}

/// A player's name checked as a team's name is (field `field`).
pub fn check_name(text: &str, field: &str) -> Result<PersonName, ServiceError> {
    PersonName::new(text).map_err(|bad| name_rule(field, "the player's name").refused(bad))
}

/// A student id as stored: `None` for none (an empty text removes it), else checked. The
/// message never repeats it.
pub fn check_student_id(
    text: Option<&str>,
    field: &str,
) -> Result<Option<StudentId>, ServiceError> {
    match text.map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) => StudentId::new(text).map(Some).map_err(|bad| {
            ServiceError::invalid(ErrorCode::InvalidStudentId, field, bad.to_string())
        }),
    }
}

/// An email as stored: `None` for none (an empty text removes it), else checked.
pub fn check_email(text: Option<&str>, field: &str) -> Result<Option<String>, ServiceError> {
    match text.map(str::trim) {
        None | Some("") => Ok(None),
        Some(email) => match validate_email(email) {
            Ok(()) => Ok(Some(email.to_string())),
            Err(ServiceError::Invalid(e)) => Err(ServiceError::invalid(
                ErrorCode::InvalidEmail,
                field,
                e.message,
            )),
            Err(e) => Err(e),
        },
    }
}

/// A new player's fields, checked; `at` is the field path of the entry (`players[2]`, or
/// empty for a body of its own).
pub fn check_new(input: &PlayerInput, at: &str) -> Result<PlayerFields, ServiceError> {
    let field = |name: &str| {
        if at.is_empty() {
            name.to_string()
        } else {
            format!("{at}.{name}")
        }
    };
    let new = match input {
        PlayerInput::Name(name) => {
            // A name alone in a team's list: its error is on `players` (as before a player
            // could be more than a name).
            let name = if at.is_empty() {
                check_name(name, "name")?
            } else {
                PersonName::new(name)
                    .map_err(|bad| name_rule("players", "each player's name").refused(bad))?
            };
            return Ok(PlayerFields {
                name,
                student_id: None,
                email: None,
                captain: false,
                active: true,
            });
        }
        PlayerInput::Player(new) => new,
    };
    Ok(PlayerFields {
        name: check_name(&new.name, &field("name"))?,
        student_id: check_student_id(new.student_id.as_deref(), &field("student_id"))?,
        email: check_email(new.email.as_deref(), &field("email"))?,
        captain: new.captain.unwrap_or(false),
        active: true,
    })
}

/// Refuses a new team's players that hold one student id twice.
pub fn check_distinct_ids(players: &[PlayerFields]) -> Result<(), ServiceError> {
    for (i, p) in players.iter().enumerate() {
        if let Some(id) = &p.student_id
            && players[..i]
                .iter()
                .any(|q| q.student_id.as_ref() == Some(id))
        {
            return Err(ServiceError::invalid(
                ErrorCode::InvalidTeam,
                &format!("players[{i}].student_id"),
                format!(
                    "players {} and an earlier one have the same student id",
                    i + 1
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses a student id that another player of the league has: another team's (one team per
/// player per league, naming that team) or another of this team's. `except` is the player
/// being changed.
pub async fn check_student_id_free(
    conn: &mut Conn,
    league: LeagueId,
    team: Option<TeamId>,
    student_id: &StudentId,
    except: Option<PlayerId>,
) -> Result<(), ServiceError> {
    let Some(holder) = db_players::by_student_id(conn, league, student_id).await? else {
        return Ok(());
    };
    if Some(holder.id) == except {
        return Ok(());
    }
    if Some(holder.team_id) == team {
        return Err(ServiceError::conflict(
            ErrorCode::StudentIdTaken,
            format!("{} on this team already has that student id", holder.name),
        ));
    }
    let other = db_leagues::team(conn, holder.team_id).await?;
    let other = other.map_or_else(|| "another team".to_string(), |t| format!("\"{}\"", t.name));
    Err(ServiceError::conflict(
        ErrorCode::PlayerOnAnotherTeam,
        format!(
            "a player with that student id is on {other} in this league: a player plays for one team a league"
        ),
    ))
}

/// Makes `captain` the team's only captain.
async fn one_captain(conn: &mut Conn, team: TeamId, captain: PlayerId) -> Result<(), ServiceError> {
    for other in db_players::of_team(conn, team).await? {
        if other.id != captain && other.captain {
            let fields = PlayerFields {
                captain: false,
                ..fields_of(&other)
            };
            db_players::update(conn, other.id, &fields).await?;
        }
    }
    Ok(())
}

pub(crate) fn fields_of(row: &PlayerRow) -> PlayerFields {
    PlayerFields {
        name: row.name.clone(),
        student_id: row.student_id.clone(),
        email: row.email.clone(),
        captain: row.captain,
        active: row.active,
    }
}

/// What the audit log keeps of a player: never the student id or email, only whether
/// there is one.
fn audited(p: &PlayerFields) -> String {
    serde_json::json!({
        "name": p.name,
        "student_id": p.student_id.is_some(),
        "email": p.email.is_some(),
        "captain": p.captain,
        "active": p.active,
    })
    .to_string()
}

async fn view(conn: &mut Conn, row: PlayerRow) -> Result<Player, ServiceError> {
    let matches = db_players::matches_played(conn, &row).await?;
    Ok(Player {
        id: row.id,
        name: row.name,
        student_id: row.student_id,
        email: row.email,
        captain: row.captain,
        active: row.active,
        matches,
    })
}

/// Writes the players of a new team `team` (already checked) with their audit rows.
pub async fn insert_all(
    conn: &mut Conn,
    user: &User,
    now: Timestamp,
    team: &TeamRow,
    players: &[PlayerFields],
) -> Result<(), ServiceError> {
    let mut captain = None;
    for p in players {
        let id = db_players::insert(conn, team.id, team.league_id, p, now).await?;
        let after = audited(p);
        let change = audit::Change::new("create", audit::Subject::Player(id)).after(&after);
        audit::record(conn, user, now, change).await?;
        if p.captain {
            captain = Some(id);
        }
    }
    if let Some(captain) = captain {
        one_captain(conn, team.id, captain).await?;
    }
    db_players::sync_seats(conn, team.id).await?;
    Ok(())
}

async fn team_row(conn: &mut Conn, team: TeamId) -> Result<TeamRow, ServiceError> {
    db_leagues::team(conn, team)
        .await?
        .ok_or(ServiceError::NotFound)
}

/// A team's players, active or not, in the order they were added (admin).
pub async fn roster(db: &Db, user: &User, team: TeamId) -> Result<Vec<Player>, ServiceError> {
    require_admin(user)?;
    let mut conn = db.read().await?;
    team_row(&mut conn, team).await?;
    let mut out = Vec::new();
    for row in db_players::of_team(&mut conn, team).await? {
        out.push(view(&mut conn, row).await?);
    }
    Ok(out)
}

fn active_count(players: &[PlayerRow]) -> usize {
    players.iter().filter(|p| p.active).count()
}

fn too_many() -> ServiceError {
    ServiceError::conflict(
        ErrorCode::PlayerLimit,
        format!("a team has at most {PLAYERS_MAX} active players: deactivate one first"),
    )
}

/// Adds a player to team `team` (admin).
#[tracing::instrument(skip_all, fields(user_id = %user.id, team_id = %team))]
pub async fn add(
    db: &Db,
    user: &User,
    team: TeamId,
    input: &NewPlayerInput,
) -> Result<Player, ServiceError> {
    require_admin(user)?;
    let now = db.clock().now();
    let fields = check_new(&PlayerInput::Player(input.clone()), "")?;
    let mut tx = db.write().await?;
    let team_row = team_row(&mut tx, team).await?;
    if active_count(&db_players::of_team(&mut tx, team).await?) >= PLAYERS_MAX {
        return Err(too_many());
    }
    if let Some(id) = &fields.student_id {
        check_student_id_free(&mut tx, team_row.league_id, Some(team), id, None).await?;
    }
    let id = db_players::insert(&mut tx, team, team_row.league_id, &fields, now).await?;
    let after = audited(&fields);
    let change = audit::Change::new("create", audit::Subject::Player(id)).after(&after);
    audit::record(&mut tx, user, now, change).await?;
    if fields.captain {
        one_captain(&mut tx, team, id).await?;
    }
    db_players::sync_seats(&mut tx, team).await?;
    let row = db_players::by_id(&mut tx, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let player = view(&mut tx, row).await?;
    tx.commit().await?;
    Ok(player)
}

/// Changes a player (admin): any of the name, student id, email, captain, active. A team
/// keeps 2 to 8 active players.
#[tracing::instrument(skip_all, fields(user_id = %user.id, player_id = %id))]
pub async fn change(
    db: &Db,
    user: &User,
    id: PlayerId,
    change: &PlayerChange,
) -> Result<Player, ServiceError> {
    require_admin(user)?;
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let before = db_players::by_id(&mut tx, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let old = fields_of(&before);
    let mut new = old.clone();
    if let Some(name) = &change.name {
        new.name = check_name(name, "name")?;
    }
    if let Some(student_id) = &change.student_id {
        new.student_id = check_student_id(Some(student_id), "student_id")?;
    }
    if let Some(email) = &change.email {
        new.email = check_email(Some(email), "email")?;
    }
    new.captain = change.captain.unwrap_or(old.captain);
    new.active = change.active.unwrap_or(old.active);
    let team = db_players::of_team(&mut tx, before.team_id).await?;
    let active = active_count(&team);
    if new.active && !old.active && active >= PLAYERS_MAX {
        return Err(too_many());
    }
    if !new.active && old.active && active <= PLAYERS_MIN {
        return Err(ServiceError::conflict(
            ErrorCode::PlayerLimit,
            format!("a team keeps at least {PLAYERS_MIN} active players: add one first"),
        ));
    }
    if let Some(student_id) = &new.student_id
        && new.student_id != old.student_id
    {
        check_student_id_free(
            &mut tx,
            before.league_id,
            Some(before.team_id),
            student_id,
            Some(id),
        )
        .await?;
    }
    save(&mut tx, user, now, &before, &new, "update", None).await?;
    let row = db_players::by_id(&mut tx, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let player = view(&mut tx, row).await?;
    tx.commit().await?;
    Ok(player)
}

/// Writes a player's fields as a roster import changes them (checked by the import), with
/// the audit row, the team's one captain and its seats.
pub(crate) async fn save_imported(
    tx: &mut Conn,
    user: &User,
    now: Timestamp,
    before: &PlayerRow,
    new: &PlayerFields,
) -> Result<(), ServiceError> {
    save(tx, user, now, before, new, "update", Some("roster import")).await
}

/// Writes a player's new fields with the audit row, and keeps the team's captain and seats.
async fn save(
    tx: &mut Conn,
    user: &User,
    now: Timestamp,
    before: &PlayerRow,
    new: &PlayerFields,
    action: &str,
    reason: Option<&str>,
) -> Result<(), ServiceError> {
    db_players::update(tx, before.id, new).await?;
    if new.captain && !before.captain {
        one_captain(tx, before.team_id, before.id).await?;
    }
    db_players::sync_seats(tx, before.team_id).await?;
    let (b, a) = (audited(&fields_of(before)), audited(new));
    let mut change = audit::Change::new(action, audit::Subject::Player(before.id))
        .before(&b)
        .after(&a);
    if let Some(reason) = reason {
        change = change.reason(reason);
    }
    audit::record(tx, user, now, change).await?;
    Ok(())
}

/// The body of an erasure: the name to show instead (else "Former player").
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EraseInput {
    pub name: Option<String>,
}

/// Erases a player's personal data (admin): the student id and email go, the name becomes
/// "Former player" or the one given. Scores, results and the player's place in the team's
/// history stay as they were.
#[tracing::instrument(skip_all, fields(user_id = %user.id, player_id = %id))]
pub async fn erase(
    db: &Db,
    user: &User,
    id: PlayerId,
    input: &EraseInput,
) -> Result<Player, ServiceError> {
    require_admin(user)?;
    let now = db.clock().now();
    // A name that shows nothing once normalized (spaces, format characters) is no name.
    let given = name_rule("name", "the player's name").check_optional(input.name.as_deref())?;
    let name = check_name(given.as_deref().unwrap_or(FORMER_PLAYER), "name")?;
    let mut tx = db.write().await?;
    let before = db_players::by_id(&mut tx, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let new = PlayerFields {
        name,
        student_id: None,
        email: None,
        ..fields_of(&before)
    };
    let reason = Some("personal data erased");
    save(&mut tx, user, now, &before, &new, "erase", reason).await?;
    let row = db_players::by_id(&mut tx, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let player = view(&mut tx, row).await?;
    tx.commit().await?;
    Ok(player)
}

/// The body of a person's export.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExportInput {
    #[serde(deserialize_with = "student_id_text")]
    #[schema(schema_with = required_student_id_schema, required = true)]
    pub student_id: Option<String>,
}

/// One player row of a person's export, with its league and team.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct PersonRecord {
    pub league: String,
    pub team_id: TeamId,
    pub team: String,
    #[schema(value_type = String)]
    pub created_at: Timestamp,
    pub player: Player,
}

/// Everything held about one person.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct PersonExport {
    #[schema(value_type = String)]
    pub student_id: StudentId,
    /// The person's player rows, in every league.
    pub players: Vec<PersonRecord>,
    /// The lineups the person sat in, by match then hand.
    pub lineups: Vec<LineupSat>,
}

/// A lineup a person sat in: the match, the team's side, the hand it held from, and the
/// person's seat (1 or 2, the order of the hand's `bids` and `tricks`).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct LineupSat {
    pub match_id: MatchId,
    /// `a` or `b`.
    pub team: String,
    pub from_hand: i64,
    #[schema(minimum = 1, maximum = 2)]
    pub seat: u8,
}

/// Everything held about the person with that student id (admin), audited (without the id).
#[tracing::instrument(skip_all, fields(user_id = %user.id))]
pub async fn export_person(
    db: &Db,
    user: &User,
    input: &ExportInput,
) -> Result<PersonExport, ServiceError> {
    require_admin(user)?;
    let now = db.clock().now();
    let student_id =
        check_student_id(input.student_id.as_deref(), "student_id")?.ok_or_else(|| {
            ServiceError::invalid(
                ErrorCode::InvalidStudentId,
                "student_id",
                "give the student id of the person",
            )
        })?;
    let mut tx = db.write().await?;
    let mut players = Vec::new();
    let mut lineups = Vec::new();
    for row in db_players::with_student_id(&mut tx, &student_id).await? {
        for l in db_lineups::of_player(&mut tx, row.id).await? {
            lineups.push(LineupSat {
                match_id: l.match_id,
                team: l.team.clone(),
                from_hand: l.from_hand,
                seat: if l.seat1 == row.id { 1 } else { 2 },
            });
        }
        let team = team_row(&mut tx, row.team_id).await?;
        let league = db_leagues::by_id(&mut tx, row.league_id)
            .await?
            .ok_or(ServiceError::NotFound)?;
        let audit_change = audit::Change::new("export", audit::Subject::Player(row.id));
        audit::record(&mut tx, user, now, audit_change).await?;
        players.push(PersonRecord {
            league: league.slug.to_string(),
            team_id: team.id,
            team: team.name.to_string(),
            created_at: row.created_at,
            player: view(&mut tx, row).await?,
        });
    }
    tx.commit().await?;
    Ok(PersonExport {
        student_id,
        players,
        lineups,
    })
}
