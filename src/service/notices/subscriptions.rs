//! The unsubscribe link of every notice: one address's notices of one league, named by a
//! token (the address is never shown), stopped or started again without a login.

use crate::db::Db;
use crate::db::leagues as db_leagues;
use crate::db::notices as db_notices;
use crate::service::ServiceError;

/// A subscription as its page shows it.
pub struct Subscription {
    pub league_name: String,
    /// The address stopped the league's notices.
    pub stopped: bool,
}

/// The subscription of `token`; `NotFound` for a token no notice gave.
pub async fn by_token(db: &Db, token: &str) -> Result<Subscription, ServiceError> {
    let mut conn = db.read().await?;
    let (league, stopped) = db_notices::subscription_by_token(&mut conn, token)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let league_name = db_leagues::by_id(&mut conn, league)
        .await?
        .map_or_else(|| "this league".into(), |l| l.name.to_string());
    Ok(Subscription {
        league_name,
        stopped,
    })
}

/// Stops (`stop`) or starts again the notices of subscription `token`; `NotFound` for a
/// token no notice gave.
pub async fn set(db: &Db, token: &str, stop: bool) -> Result<(), ServiceError> {
    let now = db.clock().now();
    let mut tx = db.write().await?;
    db_notices::set_unsubscribed(&mut tx, token, stop.then_some(now))
        .await?
        .ok_or(ServiceError::NotFound)?;
    tx.commit().await?;
    Ok(())
}
