//! The vocabulary every layer shares: typed ids, the states a match and a bracket go
//! through, roles, times as they are stored, and names (of teams and players) as checked.
//!
//! Each state is stored in the database and sent in JSON as the same snake_case text (`TextEnum`),
//! parsed once at the edge (a row, a form, a request) and compared as a type everywhere else.
//! The engine's own enums (`rules::Stage`, `rules::Team`, `rules::WinReason`,
//! `league::bracket::{Format, GrandFinal, Section}`) get their SQL mapping here, so `rules`
//! and `league` stay free of SQL.

mod clock;
mod idempotency_key;
mod ids;
pub mod name;
mod slug;
mod states;
mod student;
pub mod table_name;
pub(crate) mod text;
mod time;
pub mod words;

pub use crate::rules::{ErrorCode, Field, FieldError};
pub use clock::{Clock, ManualTime, SystemTime, TimeSource, machine_zone};
pub use idempotency_key::{BadIdempotencyKey, IdempotencyKey};
pub use ids::{BracketId, DivisionId, LeagueId, MatchId, PlayerId, TeamId, TokenId, UserId};
pub use name::{BadText, PersonName, TeamName};
pub use slug::{BadSlug, Slug, slugify};
pub use states::{BracketMatchStatus, ForfeitSide, GameStatus, MatchStatus, Role};
pub use student::{BadStudentId, StudentId};
pub(crate) use text::text_enum;
pub use text::{TextEnum, UnknownValue};
pub use time::{BadDate, FIRST_DAY, LAST_DAY, LocalTime, Timestamp, check_day, parse_day};
