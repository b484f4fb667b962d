//! Sportsmanship notes (`rating_notes`): one a match and author, written with the ratings
//! (the ratings themselves are columns of the match, in [`super::matches`]).

use super::{Conn, on_store};

use crate::domain::{LeagueId, MatchId, UserId};

/// Stores `author`'s sportsmanship note on match `id` (`None`: removes it). Nobody else's
/// note is touched.
pub async fn set_rating_note(
    conn: &mut Conn,
    id: MatchId,
    author: UserId,
    note: Option<&str>,
) -> sqlx::Result<()> {
    match note {
        Some(note) => on_store!(conn, execute sqlx::query(
            "INSERT INTO rating_notes (match_id, author_id, note) VALUES ($1, $2, $3)
             ON CONFLICT (match_id, author_id) DO UPDATE SET note = excluded.note"
        )
        .bind(id)
        .bind(author)
        .bind(note))?,
        None => on_store!(conn, execute sqlx::query(
            "DELETE FROM rating_notes WHERE match_id = $1 AND author_id = $2"
        )
        .bind(id)
        .bind(author))?,
    };
    Ok(())
}

/// `author`'s sportsmanship note on match `id`, if they wrote one.
pub async fn rating_note(
    conn: &mut Conn,
    id: MatchId,
    author: UserId,
) -> sqlx::Result<Option<String>> {
    on_store!(conn, |c| sqlx::query_scalar(
        "SELECT note FROM rating_notes WHERE match_id = $1 AND author_id = $2"
    )
    .bind(id)
    .bind(author)
    .fetch_optional(c)
    .await)
}

/// A sportsmanship note with its author's name (`None`: written before notes had authors).
#[derive(Debug, Clone, sqlx_macros::FromRow)]
pub struct RatingNoteRow {
    pub match_id: MatchId,
    pub author: Option<String>,
    pub note: String,
}

/// Every sportsmanship note on the matches of a league, by match then author.
pub async fn rating_notes_of_league(
    conn: &mut Conn,
    league_id: LeagueId,
) -> sqlx::Result<Vec<RatingNoteRow>> {
    on_store!(conn, |c| sqlx::query_as(
        "SELECT n.match_id, u.username AS author, n.note
         FROM rating_notes n
         JOIN matches m ON m.id = n.match_id
         LEFT JOIN users u ON u.id = n.author_id
         WHERE m.league_id = $1
         ORDER BY n.match_id, u.username IS NULL, u.username",
    )
    .bind(league_id)
    .fetch_all(c)
    .await)
}
