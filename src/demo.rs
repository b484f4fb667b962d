//! A sample season for a first look: `spades-im demo`. (Being built.)

use crate::db::Db;

/// Loads the sample season; returns a line saying what was loaded and how to look at it.
pub async fn load(_db: &Db) -> anyhow::Result<String> {
    anyhow::bail!("the demo season is not built yet")
}
