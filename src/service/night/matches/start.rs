//! Starting a match: its rules are frozen from the league's and its clock runs.

use crate::db::matches as db_matches;
use crate::db::{Conn, Db};
use crate::domain::ErrorCode;
use crate::domain::{IdempotencyKey, MatchId, MatchStatus};
use crate::service::audit;
use crate::service::night::access::{for_write, league_of};
use crate::service::night::action_keys::{self, Acted, ActionKey};
use crate::service::night::match_view::{Replayed, view_of};
use crate::service::{ServiceError, User, to_json};

/// Starts a match: its rules are frozen and its clock runs. Written in the next group
/// commit with the other writes of league night. A repeated `idempotency_key` answers the
/// first answer again and starts nothing.
#[tracing::instrument(skip_all, fields(user_id = %user.id, match_id = %id))]
pub async fn start(
    db: &Db,
    user: &User,
    id: MatchId,
    idempotency_key: Option<&IdempotencyKey>,
) -> Result<Acted, ServiceError> {
    let key = ActionKey::of(idempotency_key, "start", &())?;
    let now = crate::service::night::calls::Now::of(db);
    let user = user.clone();
    db.batched(move |conn| {
        Box::pin(async move { start_in(conn, &user, id, key.as_ref(), now).await })
    })
    .await
}

async fn start_in(
    conn: &mut Conn,
    user: &User,
    id: MatchId,
    key: Option<&ActionKey>,
    now: crate::service::night::calls::Now,
) -> Result<Acted, ServiceError> {
    let (now, today) = (now.at, now.today);
    let opened = for_write(conn, user, id).await?;
    let names = opened.names();
    let m = opened.row;
    if let Some(first) = action_keys::first_answer(conn, id, key).await? {
        return Ok(Acted::Again(first));
    }
    if m.status != MatchStatus::Scheduled {
        return Err(ServiceError::conflict(
            ErrorCode::NotScheduled,
            format!(
                "the match is {}, it can only be started once",
                m.status.words()
            ),
        ));
    }
    let league = league_of(conn, &m).await?;
    crate::service::night::calls::check_start(conn, &league.settings, &m, today).await?;
    let rules = league.rules_for(m.stage);
    let frozen = to_json("frozen rules", rules)?;
    let started = db_matches::start(conn, id, now, &frozen).await?;
    audit::record(
        conn,
        user,
        now,
        audit::Change::new("start", audit::Subject::Match(id)).after(&frozen),
    )
    .await?;
    // No hand yet: the answer needs no read of the hands (lineups may be set already).
    let played = Replayed {
        rules: rules.clone(),
        rows: Vec::new(),
        inputs: Vec::new(),
        scored: Vec::new(),
        lineups: crate::db::lineups::of_match(conn, id).await?,
        label: crate::service::playoffs::label_of(conn, id, started.stage).await?,
    };
    let view = view_of(&started, names, &league, played);
    action_keys::keep(conn, id, key, &view, now).await?;
    Ok(Acted::Done(Box::new(view)))
}
