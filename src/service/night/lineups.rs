//! Lineups (docs/api.md, "Lineups"): who of a team's roster sits at the table, in seat order
//! (the first player is the first of the hand's `bids` and `tricks`). Set before the first
//! hand; a change after it is a substitution from the next hand on, so the hands already
//! played keep who played them. Both are audited.
//!
//! A player is picked by id or found by student id (typed, read by a card reader or scanned);
//! a student id is personal data, so no message or audit row repeats one.

use serde::{Deserialize, Serialize};

use crate::db::Db;
use crate::db::lineups as db_lineups;
/// A lineup as stored (a team's two players from a hand on), as the pages receive it.
pub use crate::db::lineups::LineupRow;
use crate::db::matches::{self as db_matches, MatchRow};
use crate::db::players::{self as db_players, PlayerRow};
use crate::domain::{ErrorCode, IdempotencyKey, MatchId, MatchStatus, PlayerId, TeamId};
use crate::rules::{Stage, Team};
use crate::service::night::access::{league_of, side, writable};
use crate::service::night::action_keys::{self, Acted, ActionKey};
use crate::service::night::match_view::{Lineup, Seat, reload};
use crate::service::people::captains::{self, Captain};
use crate::service::people::players::check_student_id;
use crate::service::playoffs::player_eligibility::check_playoff_lineup;
use crate::service::{ServiceError, User, audit};

/// `POST /api/v1/matches/{id}/lineup`: a team and its two players, by id or by student id.
#[derive(Debug, Clone, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LineupInput {
    /// `a` or `b`.
    #[schema(value_type = crate::rules::Team)]
    pub team: String,
    /// Two player ids of the team's roster, in seat order (give this or `student_ids`).
    #[schema(min_items = 2, max_items = 2)]
    pub players: Option<Vec<PlayerId>>,
    /// Or the two players' student ids, in seat order (text, or a whole number).
    #[schema(schema_with = student_ids_schema)]
    pub student_ids: Option<Vec<serde_json::Value>>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub idempotency_key: Option<IdempotencyKey>,
}

fn student_ids_schema() -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Type};
    let text = ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some("^[A-Za-z0-9-]{1,40}$"));
    let number = ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(0))
        .maximum(Some(u64::MAX));
    ArrayBuilder::new()
        .items(OneOfBuilder::new().item(text).item(number))
        .min_items(Some(2))
        .max_items(Some(2))
        .build()
        .into()
}

/// Every lineup of match `id`, for the pages that show who sat where per hand
/// ([`Lineup::at_hand`]); names only.
pub async fn of_match(db: &Db, id: MatchId) -> Result<Vec<LineupRow>, ServiceError> {
    let mut conn = db.read().await?;
    Ok(db_lineups::of_match(&mut conn, id).await?)
}

/// The active players of team `team` a lineup is picked from, in roster order: ids and
/// names only (the console never shows a student id or an email).
pub async fn roster(db: &Db, team: TeamId) -> Result<Vec<Seat>, ServiceError> {
    let mut conn = db.read().await?;
    Ok(db_players::of_team(&mut conn, team)
        .await?
        .into_iter()
        .filter(|p| p.active)
        .map(|p| Seat {
            id: p.id,
            name: p.name.to_string(),
        })
        .collect())
}

/// Sets a team's lineup (admin, or a supervisor of the match's league) until the match is
/// over: from the first hand before it is played, else from the next hand (a substitution).
/// Where the league requires lineups, setting one checks the team in. A repeated
/// `idempotency_key` answers the first answer again and changes nothing.
#[tracing::instrument(skip_all, fields(user_id = %user.id, match_id = %id))]
pub async fn set_lineup(
    db: &Db,
    user: &User,
    id: MatchId,
    input: &LineupInput,
) -> Result<Acted, ServiceError> {
    let asked = Asked::of(input)?;
    let mut tx = db.write().await?;
    let m = writable(&mut tx, user, id).await?;
    apply(tx, m, asked, By::User(user), db.clock().now()).await
}

/// A captain sets their own team's lineup for a match not yet started (docs/api.md §20):
/// the supervisor still checks ids at the table. Another team's side, or a match of no team
/// of theirs, does not exist for them (404); a match under way or over is 409
/// `match_started`.
#[tracing::instrument(skip_all, fields(match_id = %id))]
pub async fn captain_sets_lineup(
    db: &Db,
    captain: &Captain,
    id: MatchId,
    input: &LineupInput,
) -> Result<Acted, ServiceError> {
    let asked = Asked::of(input)?;
    let mut tx = db.write().await?;
    let m = db_matches::by_id(&mut tx, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let Some((_, team)) = captains::side_of(&mut tx, captain, &m, Some(asked.team)).await? else {
        return Err(ServiceError::NotFound);
    };
    if !matches!(m.status, MatchStatus::Scheduled | MatchStatus::Postponed) || m.hands_played > 0 {
        return Err(ServiceError::conflict(
            ErrorCode::MatchStarted,
            format!(
                "the match is {}: the supervisor sets lineups at the table now",
                m.status.words()
            ),
        ));
    }
    apply(
        tx,
        m,
        asked,
        By::Captain(captains::in_audit(&team)),
        db.clock().now(),
    )
    .await
}

/// A lineup request read before any database read.
struct Asked {
    team: Team,
    wanted: Wanted,
    key: Option<ActionKey>,
}

impl Asked {
    fn of(input: &LineupInput) -> Result<Asked, ServiceError> {
        Ok(Asked {
            team: side(&input.team, "team")?,
            wanted: Wanted::of(input)?,
            key: ActionKey::of(input.idempotency_key.as_ref(), "set_lineup", input)?,
        })
    }
}

/// Who sets a lineup: an account, or a captain as the audit names them.
enum By<'a> {
    User(&'a User),
    Captain(String),
}

/// Sets the lineup asked for on match `m` in `tx` (its writer's right checked) and commits.
async fn apply(
    mut tx: crate::db::Tx,
    m: MatchRow,
    asked: Asked,
    by: By<'_>,
    now: crate::domain::Timestamp,
) -> Result<Acted, ServiceError> {
    let (id, team, key) = (m.id, asked.team, asked.key);
    if let Some(first) = action_keys::first_answer(&mut tx, id, key.as_ref()).await? {
        return Ok(Acted::Again(first));
    }
    check_open(&m)?;
    let league = league_of(&mut tx, &m).await?;
    let team_id = match team {
        Team::A => m.team_a,
        Team::B => m.team_b,
    };
    let roster = db_players::of_team(&mut tx, team_id).await?;
    let seats = asked.wanted.find(&roster)?;
    if m.stage != Stage::Regular {
        check_playoff_lineup(&mut tx, &league, &seats).await?;
    }
    let from_hand = m.hands_played + 1;
    let rows = db_lineups::of_match(&mut tx, id).await?;
    let before = Lineup::at_hand(&rows, from_hand);
    let before = before.of(team);
    if before.map(|s| [s[0].id, s[1].id]) != Some([seats[0].id, seats[1].id]) {
        let ids = [seats[0].id, seats[1].id];
        let user_id = match &by {
            By::User(user) => Some(user.id),
            By::Captain(_) => None,
        };
        db_lineups::set(&mut tx, id, team, from_hand, ids, user_id, now).await?;
        db_matches::bump_version(&mut tx, id).await?;
        let action = if m.hands_played > 0 {
            "substitution"
        } else {
            "lineup"
        };
        let after = seat_words(
            team,
            from_hand,
            [seats[0].name.as_str(), seats[1].name.as_str()],
        );
        let earlier = before.map(|s| seat_words(team, from_hand, [&s[0].name, &s[1].name]));
        let mut change = audit::Change::new(action, audit::Subject::Match(id)).after(&after);
        if let Some(earlier) = &earlier {
            change = change.before(earlier);
        }
        match &by {
            By::User(user) => audit::record(&mut tx, user, now, change).await?,
            By::Captain(words) => audit::record_captain(&mut tx, words, now, change).await?,
        }
    }
    // A lineup set at the table checks the team in; a captain's, set ahead, does not.
    let at_table = matches!(by, By::User(_));
    if at_table && league.settings.lineups.required && m.status == MatchStatus::Scheduled {
        let checked_in = match team {
            Team::A => m.checked_in_a,
            Team::B => m.checked_in_b,
        };
        if checked_in.is_none() {
            db_matches::set_check_in(&mut tx, id, team, Some(now)).await?;
        }
    }
    let view = reload(&mut tx, id, &league).await?;
    action_keys::keep(&mut tx, id, key.as_ref(), &view, now).await?;
    tx.commit().await?;
    Ok(Acted::Done(Box::new(view)))
}

/// A lineup changes until the match is over (or called off).
fn check_open(m: &MatchRow) -> Result<(), ServiceError> {
    if m.status.is_over() || m.status == MatchStatus::Cancelled {
        return Err(ServiceError::conflict(
            ErrorCode::MatchClosed,
            format!(
                "the match is {}: its lineups can no longer change",
                m.status.words()
            ),
        ));
    }
    Ok(())
}

/// The audit's words for a lineup: names only, never a student id.
fn seat_words(team: Team, from_hand: i64, names: [&str; 2]) -> String {
    format!(
        "team {} from hand {from_hand}: {}, {}",
        team.as_str(),
        names[0],
        names[1]
    )
}

/// The two players asked for, by id or by student id, checked before any read.
enum Wanted {
    Ids([PlayerId; 2]),
    StudentIds([crate::domain::StudentId; 2]),
}

impl Wanted {
    fn of(input: &LineupInput) -> Result<Wanted, ServiceError> {
        match (&input.players, &input.student_ids) {
            (Some(ids), None) => {
                let ids = two(ids, "players")?;
                Ok(Wanted::Ids(ids))
            }
            (None, Some(sent)) => {
                let [first, second] = two(sent, "student_ids")?;
                Ok(Wanted::StudentIds([
                    student_id(&first, "student_ids[0]")?,
                    student_id(&second, "student_ids[1]")?,
                ]))
            }
            _ => Err(ServiceError::invalid(
                ErrorCode::InvalidInput,
                "players",
                "give the two players either as \"players\" (their ids) or as \"student_ids\", not both",
            )),
        }
    }

    /// The two players of `roster` asked for, each active on it (`not_on_roster` otherwise).
    fn find(&self, roster: &[PlayerRow]) -> Result<[PlayerRow; 2], ServiceError> {
        let pick = |i: usize, field: &str, hit: &dyn Fn(&PlayerRow) -> bool| {
            roster
                .iter()
                .find(|p| p.active && hit(p))
                .cloned()
                .ok_or_else(|| not_on_roster(i, field))
        };
        let seats = match self {
            Wanted::Ids(ids) => [
                pick(0, "players[0]", &|p| p.id == ids[0])?,
                pick(1, "players[1]", &|p| p.id == ids[1])?,
            ],
            Wanted::StudentIds(sids) => [
                pick(0, "student_ids[0]", &|p| {
                    p.student_id.as_ref() == Some(&sids[0])
                })?,
                pick(1, "student_ids[1]", &|p| {
                    p.student_id.as_ref() == Some(&sids[1])
                })?,
            ],
        };
        if seats[0].id == seats[1].id {
            return Err(ServiceError::invalid(
                ErrorCode::InvalidInput,
                "players",
                "the two seats need two different players",
            ));
        }
        Ok(seats)
    }
}

fn not_on_roster(seat: usize, field: &str) -> ServiceError {
    let which = if seat == 0 { "first" } else { "second" };
    ServiceError::invalid(
        ErrorCode::NotOnRoster,
        field,
        format!("the {which} player is not an active player on this team's roster"),
    )
}

/// Exactly two entries.
fn two<T: Clone>(list: &[T], field: &str) -> Result<[T; 2], ServiceError> {
    match list {
        [first, second] => Ok([first.clone(), second.clone()]),
        _ => Err(ServiceError::invalid(
            ErrorCode::InvalidInput,
            field,
            format!(
                "a lineup is two players, in seat order; {} were given",
                list.len()
            ),
        )),
    }
}

/// A student id as sent: text or a whole number; never repeated in the message.
fn student_id(
    sent: &serde_json::Value,
    field: &str,
) -> Result<crate::domain::StudentId, ServiceError> {
    let text = match sent {
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Number(n) if n.is_u64() => n.to_string(),
        _ => {
            return Err(ServiceError::invalid(
                ErrorCode::InvalidStudentId,
                field,
                "a student id is text or a whole number",
            ));
        }
    };
    check_student_id(Some(&text), field)?.ok_or_else(|| {
        ServiceError::invalid(
            ErrorCode::InvalidStudentId,
            field,
            "the student id is empty",
        )
    })
}
