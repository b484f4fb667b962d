//! The error vocabulary of the whole service: every `code` an error can carry
//! ([`ErrorCode`]), the path of the field at fault ([`Field`]) and the error of one input,
//! named down to the field ([`FieldError`]), and the words of a message about one team
//! ([`TeamWords`]):
//! what every form shows next to the field and the API answers as its error body
//! (docs/api.md §3).
//!
//! It lives in `rules` because it is the lowest layer that makes errors: the scoring engine
//! answers `invalid_hand`, `game_over`, `invalid_rules`... and may import nothing above
//! itself, while `domain`, `service` and `web` all build on `rules` (`domain` re-exports
//! these types, so the layers above name them `domain::FieldError`).
//!
//! ## Adding a code
//!
//! Add one line to the [`error_codes!`] list below (the variant and its snake_case text,
//! which is what the API answers) and one row to the table of docs/api.md §3.3. The test
//! `the_doc_table_lists_every_code_and_no_other` below fails until both agree.

use std::borrow::Cow;

use serde::Serialize;

use super::team::Team;

/// Declares [`ErrorCode`] with the text of each code, once.
macro_rules! error_codes {
    ($($(#[$doc:meta])* $variant:ident => $text:literal,)*) => {
        /// What kind of error, as the API's `error.code` says it (docs/api.md §3.3): the same
        /// snake_case text, compared as a type everywhere.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $($(#[$doc])* $variant,)*
        }

        impl ErrorCode {
            /// Every code, in the order of docs/api.md §3.3.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The code as the API answers it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $text,)*
                }
            }
        }
    };
}

error_codes! {
    /// The body or the query string does not read (400).
    Malformed => "malformed",
    InvalidRequest => "invalid_request",
    InvalidRules => "invalid_rules",
    InvalidStart => "invalid_start",
    InvalidHand => "invalid_hand",
    GameOver => "game_over",
    InvalidInput => "invalid_input",
    InvalidLeague => "invalid_league",
    InvalidTeam => "invalid_team",
    InvalidUser => "invalid_user",
    InvalidSchedule => "invalid_schedule",
    InvalidMatch => "invalid_match",
    /// A match given a supervisor who does not supervise its league (or no such account).
    InvalidSupervisor => "invalid_supervisor",
    /// A one-time password to email on a server with no mail relay configured.
    MailNotConfigured => "mail_not_configured",
    InvalidCorrection => "invalid_correction",
    IdempotencyKeyReused => "idempotency_key_reused",
    InvalidForfeit => "invalid_forfeit",
    InvalidSettings => "invalid_settings",
    InvalidRating => "invalid_rating",
    InvalidPlayoffs => "invalid_playoffs",
    /// A league document to import that is not one, or does not hold together; the field
    /// is the path within the request (`document.hands[3].match_id`).
    InvalidDocument => "invalid_document",
    /// A division name that is empty or too long, a division of another league, a round
    /// robin within divisions with a team in none, or a playoff seeding that is not known.
    InvalidDivision => "invalid_division",
    /// A typing mistake in a page's hand form (a bid that is not a number); pages only.
    InvalidForm => "invalid_form",
    /// A roster CSV that does not read; pages only.
    InvalidRoster => "invalid_roster",
    /// A wrong current password or a new one too short; pages only.
    InvalidPassword => "invalid_password",
    /// An email that does not read as one (one `@`, no spaces, at most 254 characters).
    InvalidEmail => "invalid_email",
    /// A student id that is not 1 to 40 letters, digits and dashes.
    InvalidStudentId => "invalid_student_id",
    /// A username another account has (whatever the case).
    UsernameTaken => "username_taken",
    /// An email another account has (whatever the case).
    EmailTaken => "email_taken",
    Unauthorized => "unauthorized",
    Forbidden => "forbidden",
    /// Logged in with a one-time password: change it first (`/account/password`).
    PasswordChangeRequired => "password_change_required",
    NotFound => "not_found",
    MethodNotAllowed => "method_not_allowed",
    SlugTaken => "slug_taken",
    /// A league name another current (not archived) league has, ignoring case and look-alikes.
    LeagueNameTaken => "league_name_taken",
    /// Deleting a league in which something was played (a match started, a bracket made).
    LeagueHasResults => "league_has_results",
    /// Closing a season whose matches are still to play, without saying what becomes of them.
    UnplayedMatches => "unplayed_matches",
    /// Any write to an archived league (a past season), its teams, players or matches.
    LeagueArchived => "league_archived",
    /// The league already has a division by that name (ignoring case).
    DivisionTaken => "division_taken",
    /// Moving a team that has played to another division.
    TeamHasPlayed => "team_has_played",
    /// Deactivating the last active admin, or making it a supervisor.
    LastAdmin => "last_admin",
    /// A student id held by a player of another team of the league.
    PlayerOnAnotherTeam => "player_on_another_team",
    /// A student id held by another player of the same team.
    StudentIdTaken => "student_id_taken",
    /// A ninth active player, or fewer than two.
    PlayerLimit => "player_limit",
    /// A lineup's player (by id or student id) who is not an active player of that team.
    NotOnRoster => "not_on_roster",
    /// A playoff lineup's player who sat in fewer regular-season matches than the league asks
    /// (`settings.eligibility.min_matches_played`), without a coordinator's decision.
    PlayerIneligible => "player_ineligible",
    /// The first hand of a league that requires lineups, before both teams have one.
    LineupMissing => "lineup_missing",
    ScheduleExists => "schedule_exists",
    BracketExists => "bracket_exists",
    /// Playoffs while regular-season matches remain, under `require_all_played`.
    SeasonUnfinished => "season_unfinished",
    NotScheduled => "not_scheduled",
    /// Postponing, cancelling, moving or re-teaming a match that has started.
    MatchStarted => "match_started",
    NotStarted => "not_started",
    /// The match changed since the client loaded it (`expected_version` is stale).
    VersionConflict => "version_conflict",
    MatchClosed => "match_closed",
    NotInProgress => "not_in_progress",
    TimeAlreadyCalled => "time_already_called",
    NoTimeLimit => "no_time_limit",
    DoubleForfeitPlayoff => "double_forfeit_playoff",
    BracketResetNeeded => "bracket_reset_needed",
    /// Rating a match that is not complete or forfeited.
    MatchNotOver => "match_not_over",
    /// Rating sportsmanship in a league that has no scale.
    NoSportsmanship => "no_sportsmanship",
    /// A default sent later than the league's notice before the match.
    TooLateToDefault => "too_late_to_default",
    /// A default in a league that takes none (`settings.forfeit.default_notice_hours` null).
    DefaultsOff => "defaults_off",
    /// A dispute filed after the league's window since the match's end.
    TooLateToDispute => "too_late_to_dispute",
    /// Deciding a reschedule request or a dispute already decided.
    AlreadyDecided => "already_decided",
    /// Pairing the next Swiss round while a match of the last one is not over.
    RoundUnfinished => "round_unfinished",
    /// No next Swiss round: every pairing repeats a match, or the odd field has no bye left.
    SwissExhausted => "swiss_exhausted",
    /// Calling a match to a table another match is called to or played at.
    TableBusy => "table_busy",
    /// Calling a match one of whose teams is called to or playing at another table.
    TeamBusy => "team_busy",
    TooLarge => "too_large",
    UnsupportedMediaType => "unsupported_media_type",
    Busy => "busy",
    Internal => "internal",
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The field at fault, as the path docs/api.md §3.1 writes it: `bids`, `name`,
/// `rules.bags.limit`, `hands[2].a.bids[0]`. Code that looks at a field compares it with
/// the constants below or asks [`Field::is_under`] / [`Field::team`], never with text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Field(Cow<'static, str>);

impl Field {
    // A hand's fields (docs/scoring.md §2.4–§2.6).
    pub const BIDS: Field = Field::new("bids");
    pub const TRICKS: Field = Field::new("tricks");
    pub const REVOKES: Field = Field::new("revokes");
    pub const BLIND: Field = Field::new("blind");
    pub const TIME_CALLED: Field = Field::new("time_called");
    pub const MISDEAL: Field = Field::new("misdeal");
    /// The calculator's starting score.
    pub const START: Field = Field::new("start");
    /// A correction's, a postponement's or an override's reason.
    pub const REASON: Field = Field::new("reason");
    /// A sportsmanship rating's note.
    pub const NOTE: Field = Field::new("note");
    /// The current password, on the account page.
    pub const CURRENT: Field = Field::new("current");
    /// A league's rules, under which each stage's (`rules.regular.nil`).
    pub const RULES: Field = Field::new("rules");
    /// A league's season settings (`settings.…`).
    pub const SETTINGS: Field = Field::new("settings");

    /// The field of this name or path.
    pub const fn new(path: &'static str) -> Field {
        Field(Cow::Borrowed(path))
    }

    /// A path made at run time (a request reader's, a nested rule's).
    pub fn path(path: String) -> Field {
        Field(Cow::Owned(path))
    }

    /// `name` inside this field: `rules` and `regular.nil` make `rules.regular.nil`.
    pub fn child(&self, name: &str) -> Field {
        Field::path(format!("{}.{name}", self.0))
    }

    /// The path as the API answers it (and as pages use it in element ids).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// This field is `parent` or lies inside it (`rules.regular.nil` is under `rules`).
    pub fn is_under(&self, parent: &Field) -> bool {
        match self.0.strip_prefix(parent.as_str()) {
            Some(rest) => rest.is_empty() || rest.starts_with('.') || rest.starts_with('['),
            None => false,
        }
    }

    /// The team this field is, where it names one (`a`, `b`: a rating of that team).
    pub fn team(&self) -> Option<Team> {
        Team::BOTH.into_iter().find(|t| t.as_str() == self.as_str())
    }
}

/// A field named where the error is made: `FieldError::at(code, "name", ...)`.
impl From<&'static str> for Field {
    fn from(path: &'static str) -> Self {
        Field::new(path)
    }
}

impl From<String> for Field {
    fn from(path: String) -> Self {
        Field::path(path)
    }
}

impl Serialize for Field {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl std::fmt::Display for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct FieldError {
    /// What kind of error (`invalid_hand`, `invalid_team`, `not_found`, ...).
    #[schema(value_type = String)]
    pub code: ErrorCode,
    pub message: String,
    /// The hand at fault (1-based), for hands.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hand: Option<usize>,
    /// The field at fault (`name`, `hands[2].a.bids[0]`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub field: Option<Field>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<Team>,
    /// The player of `team` to blame (0 or 1, seat order), where one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player: Option<usize>,
    /// `message` in its parts, where it names a team: for pages that name the team by its
    /// name ([`FieldError::message_naming`]).
    #[serde(skip)]
    pub words: Option<Box<TeamWords>>,
}

impl FieldError {
    /// An error of the request as a whole, or not of the input at all (`not_found`, ...).
    pub fn new(code: ErrorCode, message: impl Into<String>) -> FieldError {
        FieldError {
            code,
            message: message.into(),
            hand: None,
            field: None,
            team: None,
            player: None,
            words: None,
        }
    }

    /// An error of one field whose message names a team: `words` says it. (`team` stays
    /// unset: the API answers it only for a hand's errors.)
    pub fn naming(code: ErrorCode, field: impl Into<Field>, words: TeamWords) -> FieldError {
        FieldError {
            words: Some(Box::new(words.clone())),
            ..FieldError::at(code, field, words.as_api_says())
        }
    }

    /// The message with each team called as `name` calls it (the console: by the team's
    /// name). The same as `message` for `name` = "team a" / "team b".
    pub fn message_naming<'a>(&self, name: impl Fn(Team) -> &'a str) -> String {
        match &self.words {
            Some(words) => words.naming(name(words.team)),
            None => self.message.clone(),
        }
    }

    /// An error of one field.
    pub fn at(code: ErrorCode, field: impl Into<Field>, message: impl Into<String>) -> FieldError {
        FieldError {
            field: Some(field.into()),
            ..FieldError::new(code, message)
        }
    }
}

/// The words of a message about one team, the team kept apart so that each reader names it
/// its own way: the API says "team a" (docs/api.md), the console the team's name. Every
/// message that names a team is made this way, so no reader rewrites a message's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamWords {
    pub team: Team,
    before: String,
    after: String,
}

impl TeamWords {
    /// `before`, the team, then `after`: ("", a, " bid 3") reads "team a bid 3".
    pub fn new(before: impl Into<String>, team: Team, after: impl Into<String>) -> TeamWords {
        TeamWords {
            team,
            before: before.into(),
            after: after.into(),
        }
    }

    /// The team first: "team a bid 3" is `TeamWords::starting(a, " bid 3")`.
    pub fn starting(team: Team, after: impl Into<String>) -> TeamWords {
        TeamWords::new("", team, after)
    }

    /// `prefix` put before the words ("hand 2: ").
    pub fn after_prefix(self, prefix: &str) -> TeamWords {
        TeamWords {
            before: format!("{prefix}{}", self.before),
            ..self
        }
    }

    /// The message with the team called `name`.
    pub fn naming(&self, name: &str) -> String {
        format!("{}{name}{}", self.before, self.after)
    }

    /// The message as the API says it: "team a", "team b".
    pub fn as_api_says(&self) -> String {
        self.naming(&format!("team {}", self.team.as_str()))
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The codes of the table of docs/api.md §3.3, in its order: the first cell of each row
    /// between the heading "### 3.3" and the next heading.
    fn documented_codes() -> Vec<String> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/api.md");
        let doc = std::fs::read_to_string(path).unwrap();
        let section = doc.split("\n### 3.3 ").nth(1).unwrap();
        let section = section.split("\n#").next().unwrap();
        section
            .lines()
            .filter_map(|line| line.strip_prefix("| `"))
            .filter_map(|row| row.split_once('`'))
            .map(|(code, _)| code.to_string())
            .collect()
    }

    #[test]
    fn the_doc_table_lists_every_code_and_no_other() {
        let documented = documented_codes();
        let ours: Vec<String> = ErrorCode::ALL
            .iter()
            .map(|c| c.as_str().to_string())
            .collect();
        let undocumented: Vec<&String> = ours.iter().filter(|c| !documented.contains(c)).collect();
        let unknown: Vec<&String> = documented.iter().filter(|c| !ours.contains(c)).collect();
        assert!(
            undocumented.is_empty() && unknown.is_empty(),
            "docs/api.md §3.3 lacks {undocumented:?} and lists codes that are no ErrorCode: {unknown:?}"
        );
        assert_eq!(documented.len(), ours.len(), "a code listed twice in §3.3");
    }

    #[test]
    fn team_words_name_the_team_as_each_reader_does() {
        let words = TeamWords::new("seat 1 bid blind nil, but ", Team::B, " is level")
            .after_prefix("hand 1: ");
        let e = FieldError::naming(ErrorCode::InvalidHand, Field::BIDS, words);
        assert_eq!(
            e.message,
            "hand 1: seat 1 bid blind nil, but team b is level"
        );
        let names = |t: Team| if t == Team::A { "Hall 5" } else { "The Aces" };
        assert_eq!(
            e.message_naming(names),
            "hand 1: seat 1 bid blind nil, but The Aces is level"
        );
        // A message that names no team reads the same everywhere.
        let plain = FieldError::at(ErrorCode::InvalidHand, Field::BIDS, "team b's words");
        assert_eq!(plain.message_naming(names), "team b's words");
    }

    #[test]
    fn a_code_serializes_as_its_text() {
        for code in ErrorCode::ALL {
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(json, serde_json::Value::from(code.as_str()));
        }
    }
}
