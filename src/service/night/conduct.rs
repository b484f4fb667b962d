//! Conduct at the table (docs/api.md §6.9): teams check in before the start, the console
//! offers a forfeit against a team still absent once the league's grace period has passed (a
//! person decides; nothing forfeits by itself), and after the match the supervisor rates both
//! teams' sportsmanship on the league's scale. A forfeiting team gets the league's forfeit
//! rating in the forfeit's own transaction (`matches::forfeit`).
//!
//! A rating may carry a note for the coordinator. Notes are their author's: each rater has
//! their own on a match (`rating_notes`), seen by its author (on the console) and the admins
//! (on the league's admin page), and rating again replaces only the rater's own note. The
//! ratings themselves are the match's: the last rating counts.

use crate::db::Conn;
use serde::{Deserialize, Serialize};

use crate::db::Db;
use crate::db::matches::{self as db_matches, MatchRow};
use crate::domain::ErrorCode;
use crate::domain::FieldError;
use crate::domain::{IdempotencyKey, LocalTime, MatchId, MatchStatus};
use crate::league::settings::Settings;
use crate::rules::{Team, TeamWords};
use crate::service::audit;
use crate::service::night::access::{league_of, side, writable};
use crate::service::night::action_keys::{self, Acted, ActionKey};
use crate::service::night::match_view::{MatchView, reload};
use crate::service::term::leagues::League;
use crate::service::text::{Lines, REASON_MAX, TextRule};
use crate::service::{ServiceError, User};

/// A check-in (or, with `present: false`, taking one back after a wrong tap).
#[derive(Debug, Clone, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckInInput {
    /// `a` or `b`.
    #[schema(value_type = crate::rules::Team)]
    pub team: String,
    /// Default (or `null`) true; `false` takes the check-in back.
    #[serde(default)]
    pub present: Option<bool>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub idempotency_key: Option<IdempotencyKey>,
}

/// Checks a team in (keeping the first time if it already is) or takes its check-in back;
/// only before the start of a scheduled match. A repeated `idempotency_key` answers the
/// first answer again and changes nothing.
#[tracing::instrument(skip_all, fields(user_id = %user.id, match_id = %id))]
pub async fn check_in(
    db: &Db,
    user: &User,
    id: MatchId,
    input: &CheckInInput,
) -> Result<Acted, ServiceError> {
    let team = side(&input.team, "team")?;
    let key = ActionKey::of(input.idempotency_key.as_ref(), "check_in", input)?;
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let m = writable(&mut tx, user, id).await?;
    if let Some(first) = action_keys::first_answer(&mut tx, id, key.as_ref()).await? {
        return Ok(Acted::Again(first));
    }
    if m.status != MatchStatus::Scheduled {
        return Err(ServiceError::conflict(
            ErrorCode::NotScheduled,
            format!(
                "teams check in before the start of a scheduled match; this one is {}",
                m.status.words()
            ),
        ));
    }
    let league = league_of(&mut tx, &m).await?;
    let current = match team {
        Team::A => m.checked_in_a,
        Team::B => m.checked_in_b,
    };
    let wanted = if input.present.unwrap_or(true) {
        Some(current.unwrap_or(now))
    } else {
        None
    };
    if wanted != current {
        db_matches::set_check_in(&mut tx, id, team, wanted).await?;
        let action = if input.present.unwrap_or(true) {
            "check_in"
        } else {
            "undo_check_in"
        };
        audit::record(
            &mut tx,
            user,
            now,
            audit::Change::new(action, audit::Subject::Match(id)).after(team.as_str()),
        )
        .await?;
    }
    let view = reload(&mut tx, id, &league).await?;
    action_keys::keep(&mut tx, id, key.as_ref(), &view, now).await?;
    tx.commit().await?;
    Ok(Acted::Done(Box::new(view)))
}

/// When the grace period of a match ends: its time plus the league's `grace_minutes`.
pub fn grace_ends(view: &MatchView, settings: &Settings) -> Option<LocalTime> {
    let grace = settings.forfeit.grace_minutes?;
    view.scheduled_at?.checked_plus_minutes(i64::from(grace))
}

/// The teams the console offers to forfeit for absence at local time `now`: the match has not
/// started, its grace period has ended, and they have not checked in.
pub fn absent_after_grace(view: &MatchView, settings: &Settings, now: LocalTime) -> Vec<Team> {
    match grace_ends(view, settings) {
        Some(ends) if view.status == MatchStatus::Scheduled && now.0 >= ends.0 => {
            [(Team::A, view.checked_in.a), (Team::B, view.checked_in.b)]
                .into_iter()
                .filter(|(_, at)| at.is_none())
                .map(|(team, _)| team)
                .collect()
        }
        _ => Vec::new(),
    }
}

/// Both teams' sportsmanship ratings after a match.
#[derive(Debug, Clone, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RatingInput {
    /// Team a's rating, on the league's scale.
    pub a: i64,
    /// Team b's rating, on the league's scale.
    pub b: i64,
    /// What happened, for the coordinator: at most 500 characters, line breaks allowed,
    /// stored text (docs/api.md §1.1); shown to admins only. Empty or `null`: no note.
    #[serde(default)]
    #[schema(max_length = 500)]
    pub note: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub idempotency_key: Option<IdempotencyKey>,
}

/// The ratings of the forfeiting team(s) of `m`: the league's forfeit rating, when it has one.
fn forfeit_ratings(m: &MatchRow, league: &League) -> [Option<i64>; 2] {
    let rating = league
        .settings
        .sportsmanship
        .as_ref()
        .and_then(|s| s.forfeit_rating)
        .map(i64::from);
    let (a, b) = match m.forfeit.map(|f| f.team()) {
        Some(Some(Team::A)) => (true, false),
        Some(Some(Team::B)) => (false, true),
        Some(None) => (true, true),
        None => (false, false),
    };
    [rating.filter(|_| a), rating.filter(|_| b)]
}

/// Gives the forfeiting team(s) of a match just forfeited the league's forfeit rating, in
/// the forfeit's transaction.
pub(in crate::service) async fn rate_forfeit(
    conn: &mut Conn,
    id: MatchId,
    league: &League,
) -> Result<(), ServiceError> {
    let m = db_matches::by_id(conn, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let fixed = forfeit_ratings(&m, league);
    if fixed == [None, None] {
        return Ok(());
    }
    let ratings = [fixed[0].or(m.rating_a), fixed[1].or(m.rating_b)];
    db_matches::set_ratings(conn, id, ratings).await?;
    Ok(())
}

/// Rates both teams of a finished (complete or forfeited) match on the league's scale,
/// replacing earlier ratings and the rater's own note (no note: the rater's note is removed;
/// other raters' notes stay); a forfeiting team's rating is the league's forfeit rating. The
/// answer carries the rater's note. A repeated `idempotency_key` answers the first answer
/// again and changes nothing.
#[tracing::instrument(skip_all, fields(user_id = %user.id, match_id = %id))]
pub async fn rate(
    db: &Db,
    user: &User,
    id: MatchId,
    input: &RatingInput,
) -> Result<Acted, ServiceError> {
    let now = db.clock().now();
    let note = TextRule {
        code: ErrorCode::InvalidRating,
        field: "note",
        what: "the note",
        max: REASON_MAX,
        lines: Lines::Many,
    }
    .check_optional(input.note.as_deref())?;
    let key = ActionKey::of(input.idempotency_key.as_ref(), "rate_sportsmanship", input)?;
    let mut tx = db.write().await?;
    let m = writable(&mut tx, user, id).await?;
    if let Some(first) = action_keys::first_answer(&mut tx, id, key.as_ref()).await? {
        return Ok(Acted::Again(first));
    }
    let league = league_of(&mut tx, &m).await?;
    let Some(scale) = league.settings.sportsmanship.clone() else {
        return Err(ServiceError::conflict(
            ErrorCode::NoSportsmanship,
            "this league does not rate sportsmanship (its settings have no scale)",
        ));
    };
    if !m.status.is_result() {
        return Err(ServiceError::conflict(
            ErrorCode::MatchNotOver,
            format!(
                "sportsmanship is rated once the match is complete or forfeited; this one is {}",
                m.status.words()
            ),
        ));
    }
    let fixed = forfeit_ratings(&m, &league);
    let mut ratings = [None, None];
    for (i, (team, given)) in [(Team::A, input.a), (Team::B, input.b)]
        .into_iter()
        .enumerate()
    {
        let field = team.as_str();
        if let Some(rating) = fixed[i] {
            if given != rating {
                let words = TeamWords::starting(
                    team,
                    format!(" forfeited: its rating is the league's forfeit rating, {rating}"),
                );
                return Err(ServiceError::Invalid(FieldError::naming(
                    ErrorCode::InvalidRating,
                    field,
                    words,
                )));
            }
        } else if given < i64::from(scale.min) || given > i64::from(scale.max) {
            return Err(ServiceError::invalid(
                ErrorCode::InvalidRating,
                field,
                format!(
                    "a rating is {} to {} in this league, not {given}",
                    scale.min, scale.max
                ),
            ));
        }
        ratings[i] = Some(given);
    }
    let before = format!("a {}, b {}", words(m.rating_a), words(m.rating_b));
    db_matches::set_ratings(&mut tx, id, ratings).await?;
    crate::db::rating_notes::set_rating_note(&mut tx, id, user.id, note.as_deref()).await?;
    let after = format!("a {}, b {}", input.a, input.b);
    let mut change = audit::Change::new("rate_sportsmanship", audit::Subject::Match(id))
        .before(&before)
        .after(&after);
    if let Some(note) = &note {
        change = change.reason(note);
    }
    audit::record(&mut tx, user, now, change).await?;
    let mut view = reload(&mut tx, id, &league).await?;
    if let Some(ratings) = &mut view.sportsmanship {
        ratings.note = note;
    }
    action_keys::keep(&mut tx, id, key.as_ref(), &view, now).await?;
    tx.commit().await?;
    Ok(Acted::Done(Box::new(view)))
}

/// The note `user` wrote when rating match `id`, if any (for their console).
pub async fn own_note(db: &Db, user: &User, id: MatchId) -> Result<Option<String>, ServiceError> {
    let mut conn = db.read().await?;
    Ok(crate::db::rating_notes::rating_note(&mut conn, id, user.id).await?)
}

fn words(rating: Option<i64>) -> String {
    rating.map_or_else(|| "unrated".to_string(), |r| r.to_string())
}
