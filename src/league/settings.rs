//! How a league runs its season besides the scoring rules (docs/api.md §6.9): the forfeit
//! policy, the sportsmanship scale, and who may enter the playoffs. Every field is optional
//! with a default that changes nothing (no grace clock, never dropped, no ratings, every team
//! eligible); a change is merged into the stored settings field by field, as rules are.

use std::collections::BTreeSet;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::name::{BadText, Lines, check_text};
use crate::domain::parse_day;
use crate::domain::table_name;
use crate::domain::words::{decimal, ordinal, plural};

/// A league's season settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// In a change, `null` puts the whole section back to its defaults.
    #[serde(default)]
    #[schema(value_type = Option<ForfeitPolicy>)]
    pub forfeit: ForfeitPolicy,
    /// The rating scale; `null`: the league does not rate sportsmanship.
    #[serde(default)]
    pub sportsmanship: Option<Sportsmanship>,
    /// In a change, `null` puts the whole section back to its defaults.
    #[serde(default)]
    #[schema(value_type = Option<Eligibility>)]
    pub eligibility: Eligibility,
    /// In a change, `null` puts the whole section back to its defaults.
    #[serde(default)]
    #[schema(value_type = Option<LineupPolicy>)]
    pub lineups: LineupPolicy,
    /// In a change, `null` puts the whole section back to its defaults. Absent while the
    /// number of places is not said.
    #[serde(default, skip_serializing_if = "PlayoffPlaces::is_unset")]
    #[schema(value_type = Option<PlayoffPlaces>)]
    pub playoffs: PlayoffPlaces,
    /// The window for a captain's dispute of a result. In a change, `null` puts it back to
    /// its default; absent while it is the default.
    #[serde(default, skip_serializing_if = "Disputes::is_default")]
    #[schema(value_type = Option<Disputes>)]
    pub disputes: Disputes,
    /// League nights on which nothing is played (`YYYY-MM-DD`, at most 366, kept in date
    /// order): a generated schedule skips them, and a match or night moved onto one is saved
    /// with the warning `blackout`. In a change the list replaces the one stored; `null`
    /// empties it. A schedule request's blackouts are added to it.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    #[schema(value_type = Option<Vec<String>>, max_items = 366)]
    pub blackouts: BTreeSet<NaiveDate>,
    /// Where the league plays ("Rec Center, Room 2"; one line, at most 120 characters): the
    /// place of every match's calendar event, after its table. `null`: none said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 120)]
    pub venue: Option<String>,
    /// The room's tables, in calling order (docs/api.md §21.1): each a name of one line, at
    /// most 40 characters, no two alike ignoring case; at most 100. Set by `PUT
    /// …/tables` (or here); `null` empties the list. Absent while there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schema(value_type = Option<Vec<String>>, max_items = 100)]
    pub tables: Vec<String>,
    /// How the queue calls matches to the tables. In a change, `null` puts it back to its
    /// defaults; absent while it is the default (matches called by hand only).
    #[serde(default, skip_serializing_if = "QueuePolicy::is_default")]
    #[schema(value_type = Option<QueuePolicy>)]
    pub queue: QueuePolicy,
}

/// The queue of a tournament night (docs/api.md §21.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct QueuePolicy {
    /// A ready match is called to a free table at once, and the next one whenever a match
    /// ends (default false: calls by hand only).
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub auto: bool,
    /// Minutes after its call a match not started is flagged "no show?", 1 to 60 (default
    /// 5; `null` in a change: the default). Nothing is forfeited automatically.
    #[serde(default = "default_call_minutes")]
    #[schema(value_type = Option<u32>, minimum = 1, maximum = 60)]
    pub call_minutes: u32,
}

fn default_call_minutes() -> u32 {
    5
}

impl Default for QueuePolicy {
    fn default() -> Self {
        QueuePolicy {
            auto: false,
            call_minutes: default_call_minutes(),
        }
    }
}

impl QueuePolicy {
    fn is_default(&self) -> bool {
        *self == QueuePolicy::default()
    }
}

/// Tables a league has at most.
pub const TABLES_MAX: usize = 100;

/// The tables of a change as merged (`tables`, taken out of `merged`): see [`check_tables`].
fn take_tables(merged: &mut Value) -> Result<Vec<String>, SettingError> {
    const FIELD: &str = "settings.tables";
    let items = match merged.as_object_mut().and_then(|m| m.remove("tables")) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(bad(FIELD, "the tables are a list of names")),
    };
    let names = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            item.as_str()
                .map(str::to_string)
                .ok_or_else(|| bad(&format!("{FIELD}[{i}]"), "a table's name is text"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    check_tables(&names, FIELD)
}

/// A list of tables as checked, each name trimmed: one line of at most
/// [`table_name::MAX`] characters, not blank, no two alike ignoring case, at most
/// [`TABLES_MAX`]; errors name `field` (and the name's index).
pub fn check_tables(names: &[String], field: &str) -> Result<Vec<String>, SettingError> {
    if names.len() > TABLES_MAX {
        return Err(bad(
            field,
            format!("at most {TABLES_MAX} tables, not {}", names.len()),
        ));
    }
    let mut kept: Vec<String> = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let at = format!("{field}[{i}]");
        let name = match check_text(name, table_name::MAX, Lines::One) {
            Ok(Some(name)) => name,
            Ok(None) => return Err(bad(&at, format!("table {} has no name", i + 1))),
            Err(BadText::Length { max, .. }) => {
                return Err(bad(
                    &at,
                    format!(
                        "the name of table {} in the list is longer than {max} characters",
                        i + 1
                    ),
                ));
            }
            Err(_) => {
                return Err(bad(
                    &at,
                    format!(
                        "the name of table {} in the list is not one line of plain text (a control or invisible direction character)",
                        i + 1
                    ),
                ));
            }
        };
        if kept.iter().any(|k| table_name::same(k, &name)) {
            return Err(bad(&at, format!("table {name} is in the list twice")));
        }
        kept.push(name);
    }
    Ok(kept)
}

/// The longest venue a league may give.
pub const VENUE_MAX: usize = 120;

/// The venue of a change as merged (`venue`, taken out of `merged`): one line of text, at
/// most [`VENUE_MAX`] characters; empty is none.
fn take_venue(merged: &mut Value) -> Result<Option<String>, SettingError> {
    const FIELD: &str = "settings.venue";
    let text = match merged.as_object_mut().and_then(|m| m.remove("venue")) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(text)) => text,
        Some(_) => return Err(bad(FIELD, "the venue is a line of text, or null for none")),
    };
    match check_text(&text, VENUE_MAX, Lines::One) {
        Ok(venue) => Ok(venue),
        Err(BadText::Length { max, .. }) => {
            Err(bad(FIELD, format!("the venue is at most {max} characters")))
        }
        Err(_) => Err(bad(
            FIELD,
            "the venue is one line, without control or invisible direction characters",
        )),
    }
}

/// Blackout nights a league keeps at most: a year of them.
pub const BLACKOUTS_MAX: usize = 366;

/// The blackout nights of a change as merged (`blackouts`, taken out of `merged`): each a
/// `YYYY-MM-DD` date, at most [`BLACKOUTS_MAX`].
fn take_blackouts(merged: &mut Value) -> Result<BTreeSet<NaiveDate>, SettingError> {
    const FIELD: &str = "settings.blackouts";
    let taken = merged.as_object_mut().and_then(|m| m.remove("blackouts"));
    let items = match taken {
        None | Some(Value::Null) => return Ok(BTreeSet::new()),
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(bad(
                FIELD,
                "the blackout nights are a list of dates, YYYY-MM-DD",
            ));
        }
    };
    if items.len() > BLACKOUTS_MAX {
        return Err(bad(
            FIELD,
            format!(
                "at most {BLACKOUTS_MAX} blackout nights (a year of them), not {}",
                items.len()
            ),
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let text = item.as_str().unwrap_or_default();
            parse_day(text).map_err(|e| {
                bad(
                    &format!("{FIELD}[{i}]"),
                    format!(
                        "blackout night {item}: {}",
                        e.message("a blackout night is a date, YYYY-MM-DD")
                    ),
                )
            })
        })
        .collect()
}

/// Who sits at the table: each team's two players, picked from its roster before the first
/// hand (docs/api.md, "Lineups").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LineupPolicy {
    /// The first hand waits for both teams' lineups, and setting a team's lineup checks it
    /// in. Default false (`null` in a change: the default).
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub required: bool,
}

/// How many teams the playoffs take: with it, each standings row says where the team is
/// in the race for a place (docs/api.md, "The playoff race").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayoffPlaces {
    /// Places in the playoffs, 2 to 64; `null`: not said (no race is shown).
    #[serde(default)]
    #[schema(minimum = 2, maximum = 64)]
    pub teams: Option<u32>,
    /// Each division's winner takes a place (and a top seed) before the rest: the race
    /// counts a division title as a place, and the bracket's seeding is
    /// `division_winners_first` unless its request says otherwise. Default false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[schema(value_type = Option<bool>)]
    pub division_winners_first: bool,
}

impl PlayoffPlaces {
    fn is_unset(&self) -> bool {
        self.teams.is_none() && !self.division_winners_first
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ForfeitPolicy {
    /// Minutes after a match's time when the console offers the forfeit against a team not
    /// checked in; `null`: no grace clock.
    #[serde(default)]
    #[schema(minimum = 0, maximum = 120)]
    pub grace_minutes: Option<u32>,
    /// A team's n-th forfeit withdraws it; `null`: never.
    #[serde(default)]
    #[schema(minimum = 1, maximum = 20)]
    pub drop_after: Option<u32>,
    /// How many hours before a match a captain may still default it ("we can't play": a
    /// loss, never a forfeit), 0 to 168; `null`: the league takes no defaults. Absent: 24.
    #[serde(default = "default_notice", skip_serializing_if = "is_default_notice")]
    #[schema(minimum = 0, maximum = 168)]
    pub default_notice_hours: Option<u32>,
}

/// The default notice unless a league says otherwise: a day.
pub const DEFAULT_NOTICE_HOURS: u32 = 24;

fn default_notice() -> Option<u32> {
    Some(DEFAULT_NOTICE_HOURS)
}

fn is_default_notice(hours: &Option<u32>) -> bool {
    *hours == default_notice()
}

impl Default for ForfeitPolicy {
    fn default() -> Self {
        ForfeitPolicy {
            grace_minutes: None,
            drop_after: None,
            default_notice_hours: default_notice(),
        }
    }
}

/// How long after a match's end a captain may dispute its result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Disputes {
    /// Hours after the match's end, 0 to 168 (default 24; `null` in a change: the default).
    #[serde(default = "default_dispute_hours")]
    #[schema(value_type = Option<u32>, minimum = 0, maximum = 168)]
    pub hours: u32,
}

fn default_dispute_hours() -> u32 {
    24
}

impl Default for Disputes {
    fn default() -> Self {
        Disputes {
            hours: default_dispute_hours(),
        }
    }
}

impl Disputes {
    fn is_default(&self) -> bool {
        *self == Disputes::default()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Sportsmanship {
    /// Default 1 (`null` in a change: the default).
    #[serde(default = "one")]
    #[schema(value_type = Option<u32>, minimum = 0, maximum = 10)]
    pub min: u32,
    /// Default 5 (`null` in a change: the default).
    #[serde(default = "five")]
    #[schema(value_type = Option<u32>, minimum = 1, maximum = 10)]
    pub max: u32,
    /// The rating a forfeiting team gets without asking; `null`: none.
    #[serde(default)]
    #[schema(minimum = 0, maximum = 10)]
    pub forfeit_rating: Option<u32>,
    /// Matches show "rating missing" until both teams are rated (default false; `null` in
    /// a change: the default).
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub required: bool,
}

fn one() -> u32 {
    1
}

fn five() -> u32 {
    5
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Eligibility {
    /// The lowest sportsmanship average that may enter the playoffs; `null`: no minimum.
    #[serde(default)]
    pub min_sportsmanship: Option<f64>,
    /// The most forfeits a playoff team may have; `null`: no limit.
    #[serde(default)]
    #[schema(minimum = 0, maximum = 50)]
    pub max_forfeits: Option<u32>,
    /// The lowest win percentage (0 to 1); `null`: no minimum.
    #[serde(default)]
    #[schema(minimum = 0, maximum = 1)]
    pub min_win_pct: Option<f64>,
    /// The fewest complete regular-season matches a player must have sat in (in a lineup) to
    /// be set in a playoff match's lineup, 1 to 50; `null`: no minimum.
    #[serde(default)]
    #[schema(minimum = 1, maximum = 50)]
    pub min_matches_played: Option<u32>,
    /// The playoffs wait until every regular-season match is played (or forced). Default
    /// true (`null` in a change: the default).
    #[serde(default = "yes")]
    #[schema(value_type = Option<bool>)]
    pub require_all_played: bool,
}

fn yes() -> bool {
    true
}

impl Default for Eligibility {
    fn default() -> Self {
        Eligibility {
            min_sportsmanship: None,
            max_forfeits: None,
            min_win_pct: None,
            min_matches_played: None,
            require_all_played: true,
        }
    }
}

/// A setting out of range: the field's path and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingError {
    pub field: String,
    pub message: String,
}

fn bad(field: &str, message: impl Into<String>) -> SettingError {
    SettingError {
        field: field.into(),
        message: message.into(),
    }
}

impl Settings {
    /// `patch` merged into `self` field by field (objects recursively; a `null` resets a
    /// field to its default), then read and checked: unknown fields and values out of range
    /// are errors naming the field.
    pub fn merged(&self, patch: &Value) -> Result<Settings, SettingError> {
        // serde would also read a struct from an array of its fields: only objects here.
        let Value::Object(sections) = patch else {
            return Err(bad("settings", "settings: expected an object"));
        };
        for (name, section) in sections {
            // Not sections: a list of dates, a line of text.
            if name == "blackouts" || name == "venue" || name == "tables" {
                continue;
            }
            if !(section.is_object() || section.is_null()) {
                let field = format!("settings.{name}");
                return Err(bad(&field, format!("{field}: expected an object or null")));
            }
        }
        unknown_field(sections)?;
        let mut base = serde_json::to_value(self).map_err(|e| bad("settings", e.to_string()))?;
        merge(&mut base, patch);
        let blackouts = take_blackouts(&mut base)?;
        let venue = take_venue(&mut base)?;
        let tables = take_tables(&mut base)?;
        let mut settings: Settings = crate::rules::strict::from_value(base).map_err(|e| {
            let path = e.path().to_string();
            let field = if path == "." {
                "settings".to_string()
            } else {
                format!("settings.{path}")
            };
            let words = crate::rules::strict::in_words(&e.inner().to_string());
            bad(&field, format!("{field}: {words}"))
        })?;
        settings.blackouts = blackouts;
        settings.venue = venue;
        settings.tables = tables;
        settings.check()?;
        Ok(settings)
    }

    /// Every value in its range.
    pub fn check(&self) -> Result<(), SettingError> {
        if self.blackouts.len() > BLACKOUTS_MAX {
            return Err(bad(
                "settings.blackouts",
                format!(
                    "at most {BLACKOUTS_MAX} blackout nights (a year of them), not {}",
                    self.blackouts.len()
                ),
            ));
        }
        if let Some(g) = self.forfeit.grace_minutes
            && g > 120
        {
            return Err(bad(
                "settings.forfeit.grace_minutes",
                "the grace period is 0 to 120 minutes",
            ));
        }
        if let Some(n) = self.forfeit.drop_after
            && !(1..=20).contains(&n)
        {
            return Err(bad(
                "settings.forfeit.drop_after",
                "a team is dropped after 1 to 20 forfeits",
            ));
        }
        if let Some(s) = &self.sportsmanship {
            if s.max > 10 || s.min >= s.max {
                return Err(bad(
                    "settings.sportsmanship",
                    "the rating scale runs from min to a larger max, at most 10",
                ));
            }
            if let Some(r) = s.forfeit_rating
                && !(s.min..=s.max).contains(&r)
            {
                return Err(bad(
                    "settings.sportsmanship.forfeit_rating",
                    format!("the forfeit rating is on the scale, {} to {}", s.min, s.max),
                ));
            }
        }
        let e = &self.eligibility;
        if let Some(m) = e.min_sportsmanship {
            let Some(s) = &self.sportsmanship else {
                return Err(bad(
                    "settings.eligibility.min_sportsmanship",
                    "a sportsmanship minimum needs a rating scale (settings.sportsmanship)",
                ));
            };
            if !m.is_finite() || m < f64::from(s.min) || m > f64::from(s.max) {
                return Err(bad(
                    "settings.eligibility.min_sportsmanship",
                    format!(
                        "the minimum average is on the scale, {} to {}",
                        s.min, s.max
                    ),
                ));
            }
        }
        if let Some(n) = e.max_forfeits
            && n > 50
        {
            return Err(bad(
                "settings.eligibility.max_forfeits",
                "the forfeit limit is 0 to 50",
            ));
        }
        if let Some(p) = e.min_win_pct
            && !(p.is_finite() && (0.0..=1.0).contains(&p))
        {
            return Err(bad(
                "settings.eligibility.min_win_pct",
                "the minimum win percentage is 0 to 1 (e.g. 0.5)",
            ));
        }
        if let Some(n) = e.min_matches_played
            && !(1..=50).contains(&n)
        {
            return Err(bad(
                "settings.eligibility.min_matches_played",
                "the fewest matches a player must have played is 1 to 50",
            ));
        }
        if let Some(h) = self.forfeit.default_notice_hours
            && h > 168
        {
            return Err(bad(
                "settings.forfeit.default_notice_hours",
                "a default is announced 0 to 168 hours (a week) before the match, or null for no defaults",
            ));
        }
        if !(1..=60).contains(&self.queue.call_minutes) {
            return Err(bad(
                "settings.queue.call_minutes",
                "a called match is flagged after 1 to 60 minutes",
            ));
        }
        check_tables(&self.tables, "settings.tables")?;
        if self.disputes.hours > 168 {
            return Err(bad(
                "settings.disputes.hours",
                "a dispute is filed 0 to 168 hours (a week) after the match",
            ));
        }
        if let Some(n) = self.playoffs.teams
            && !(2..=64).contains(&n)
        {
            return Err(bad(
                "settings.playoffs.teams",
                "the playoffs take 2 to 64 teams",
            ));
        }
        Ok(())
    }
}

impl Settings {
    /// The settings in words, a sentence per section, for the league's rules page and the
    /// admin form's preview: what a captain needs to know about forfeits, ratings and the
    /// playoffs.
    pub fn describe(&self) -> Vec<String> {
        let mut lines = Vec::new();
        lines.push(match self.forfeit.grace_minutes {
            Some(0) => "Teams check in with the supervisor before the match. A team not at the table at the match time may be forfeited.".to_string(),
            Some(g) => format!(
                "Teams check in with the supervisor before the match. A team not at the table {} after the match time may be forfeited.",
                plural(g, "minute", "minutes")
            ),
            None => "Teams check in with the supervisor before the match; there is no set grace period.".to_string(),
        });
        lines.push(match self.forfeit.default_notice_hours {
            Some(0) => "A team that cannot play tells the office before the match (a default): it loses the match, but it is not a forfeit.".to_string(),
            Some(h) => format!(
                "A team that cannot play tells the office at least {} before the match (a default): it loses the match, but it is not a forfeit.",
                plural(h, "hour", "hours")
            ),
            None => "A team that cannot play forfeits the match: the league takes no defaults.".to_string(),
        });
        lines.push(format!(
            "A captain may dispute a recorded result within {} of the match's end.",
            plural(self.disputes.hours, "hour", "hours")
        ));
        if let Some(n) = self.forfeit.drop_after {
            lines.push(format!(
                "A team is dropped from the league at its {} forfeit: its remaining matches are cancelled, its results stay.",
                ordinal(n)
            ));
        }
        if let Some(scale) = &self.sportsmanship {
            let mut line = format!(
                "The supervisor rates each team's sportsmanship after every match, from {} to {}.",
                scale.min, scale.max
            );
            if let Some(r) = scale.forfeit_rating {
                line.push_str(&format!(" A team that forfeits is rated {r}."));
            }
            if scale.required {
                line.push_str(" Every match must be rated.");
            }
            lines.push(line);
        }
        if let Some(venue) = &self.venue {
            lines.push(format!("Matches are played at {venue}."));
        }
        if !self.tables.is_empty() {
            let shown: Vec<String> = self.tables.iter().map(|t| table_name::shown(t)).collect();
            lines.push(format!("The tables: {}.", list(&shown)));
        }
        if self.queue.auto {
            lines.push(format!(
                "Matches are called to the tables as they free up; a team not at its table {} after the call may be forfeited by the supervisor.",
                plural(self.queue.call_minutes, "minute", "minutes")
            ));
        }
        if !self.blackouts.is_empty() {
            let nights: Vec<String> = self
                .blackouts
                .iter()
                .map(|d| d.format("%a %-d %b %Y").to_string())
                .collect();
            lines.push(format!("No league night on {}.", list(&nights)));
        }
        lines.extend(self.describe_eligibility());
        lines
    }

    /// Who may enter the playoffs and when they start, in words (the end of
    /// [`Settings::describe`]; the admin playoffs page shows these).
    pub fn describe_eligibility(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let e = &self.eligibility;
        let mut rules = Vec::new();
        if let Some(m) = e.min_sportsmanship {
            rules.push(format!(
                "a sportsmanship average of at least {}",
                decimal(m)
            ));
        }
        if let Some(n) = e.max_forfeits {
            rules.push(match n {
                0 => "no forfeits".to_string(),
                n => format!("no more than {}", plural(n, "forfeit", "forfeits")),
            });
        }
        if let Some(p) = e.min_win_pct {
            rules.push(format!("a win percentage of at least {p:.3}"));
        }
        lines.push(if rules.is_empty() {
            "Every team that has not withdrawn may enter the playoffs.".to_string()
        } else {
            format!("To enter the playoffs a team needs {}.", list(&rules))
        });
        if let Some(n) = self.playoffs.teams {
            lines.push(format!(
                "The playoffs take the top {n} teams of the standings."
            ));
        }
        if let Some(n) = e.min_matches_played {
            lines.push(format!(
                "A player plays in the playoffs after sitting in at least {} of the regular season.",
                plural(n, "complete match", "complete matches")
            ));
        }
        lines.push(if e.require_all_played {
            "The playoffs start once every regular-season match is played.".to_string()
        } else {
            "The playoffs may start before every regular-season match is played.".to_string()
        });
        lines
    }
}

/// "a", "a and b", "a, b and c".
fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// JSON merge: objects field by field, anything else replaced; `null` removes the field (so
/// it takes its default when read).
/// Every field a change may name, section by section (`blackouts` and `venue` are values,
/// not sections). A `null` is the default of a field the settings have; on any other name
/// it is refused like any unknown field (serde alone would never see it: the merge drops
/// nulls before reading).
const FIELDS: &[(&str, &[&str])] = &[
    (
        "forfeit",
        &["grace_minutes", "drop_after", "default_notice_hours"],
    ),
    (
        "sportsmanship",
        &["min", "max", "forfeit_rating", "required"],
    ),
    (
        "eligibility",
        &[
            "min_sportsmanship",
            "max_forfeits",
            "min_win_pct",
            "require_all_played",
            "min_matches_played",
        ],
    ),
    ("lineups", &["required"]),
    ("playoffs", &["teams", "division_winners_first"]),
    ("disputes", &["hours"]),
    ("blackouts", &[]),
    ("venue", &[]),
    ("tables", &[]),
    ("queue", &["auto", "call_minutes"]),
];

/// The first name of a change that is no field of the settings, as the error of an unknown
/// field.
fn unknown_field(sections: &serde_json::Map<String, Value>) -> Result<(), SettingError> {
    for (name, section) in sections {
        let Some((_, fields)) = FIELDS.iter().find(|(s, _)| s == name) else {
            let field = format!("settings.{name}");
            return Err(bad(&field, format!("{field}: unknown field")));
        };
        if let Value::Object(members) = section
            && let Some(key) = members.keys().find(|k| !fields.contains(&k.as_str()))
        {
            let field = format!("settings.{name}.{key}");
            return Err(bad(&field, format!("{field}: unknown field")));
        }
    }
    Ok(())
}

/// The one field whose `null` is a value, not its default: `forfeit.default_notice_hours`
/// (`null`: no defaults; absent: 24 hours).
const NULL_IS_A_VALUE: &str = "default_notice_hours";

fn merge(base: &mut Value, patch: &Value) {
    match (base, patch) {
        (Value::Object(base), Value::Object(patch)) => {
            for (key, value) in patch {
                if value.is_null() && key == NULL_IS_A_VALUE {
                    base.insert(key.clone(), Value::Null);
                } else if value.is_null() {
                    base.remove(key);
                } else if let Some(slot) = base.get_mut(key)
                    && slot.is_object()
                    && value.is_object()
                {
                    merge(slot, value);
                } else {
                    base.insert(key.clone(), without_nulls(value));
                }
            }
        }
        (base, patch) => *base = without_nulls(patch),
    }
}

/// A value of a change where a section is new: its `null` members are left out, so that
/// each takes its default as it would in a section already there.
fn without_nulls(value: &Value) -> Value {
    match value {
        Value::Object(members) => Value::Object(
            members
                .iter()
                .filter(|(k, v)| !v.is_null() || *k == NULL_IS_A_VALUE)
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A league that uses every setting.
    fn every_setting() -> Settings {
        Settings::default()
            .merged(&json!({
                "forfeit": {"grace_minutes": 10, "drop_after": 2},
                "sportsmanship": {"min": 1, "max": 5, "forfeit_rating": 1, "required": true},
                "eligibility": {"min_sportsmanship": 3.0, "max_forfeits": 1}
            }))
            .unwrap()
    }

    /// The names a change may give are the settings' own: every field of a league that sets
    /// everything is listed, and nothing else.
    #[test]
    fn the_field_list_is_the_settings_fields() {
        let full = Settings::default()
            .merged(&json!({
                "forfeit": {"grace_minutes": 10, "drop_after": 2, "default_notice_hours": 48},
                "disputes": {"hours": 12},
                "sportsmanship": {"forfeit_rating": 1},
                "eligibility": {"min_sportsmanship": 3.0, "max_forfeits": 1, "min_win_pct": 0.5,
                                "min_matches_played": 2},
                "playoffs": {"teams": 8, "division_winners_first": true},
                "blackouts": ["2027-01-01"],
                "venue": "Rec Center",
                "tables": ["1", "2"],
                "queue": {"auto": true, "call_minutes": 7}
            }))
            .unwrap();
        let Value::Object(sections) = serde_json::to_value(&full).unwrap() else {
            panic!("an object");
        };
        let listed: Vec<(String, Vec<String>)> = FIELDS
            .iter()
            .map(|(s, f)| (s.to_string(), f.iter().map(|f| f.to_string()).collect()))
            .collect();
        let mut stored: Vec<(String, Vec<String>)> = sections
            .iter()
            .map(|(s, v)| {
                let fields = v
                    .as_object()
                    .map(|m| m.keys().cloned().collect())
                    .unwrap_or_default();
                (s.clone(), fields)
            })
            .collect();
        let mut listed_sorted = listed.clone();
        for (_, f) in listed_sorted.iter_mut().chain(stored.iter_mut()) {
            f.sort();
        }
        listed_sorted.sort();
        stored.sort();
        assert_eq!(listed_sorted, stored);
    }

    #[test]
    fn tables_are_named_once_each() {
        let s = Settings::default()
            .merged(&json!({"tables": [" 1 ", "Lounge B"]}))
            .unwrap();
        assert_eq!(s.tables, vec!["1", "Lounge B"]);
        for (patch, field) in [
            (json!({"tables": ["1", "table 1"]}), "settings.tables[1]"),
            (json!({"tables": ["1", " "]}), "settings.tables[1]"),
            (json!({"tables": ["a\u{202e}b"]}), "settings.tables[0]"),
            (json!({"tables": [7]}), "settings.tables[0]"),
            (json!({"tables": "1, 2"}), "settings.tables"),
            (
                json!({"queue": {"call_minutes": 0}}),
                "settings.queue.call_minutes",
            ),
            (json!({"queue": {"every": 3}}), "settings.queue.every"),
        ] {
            let e = Settings::default().merged(&patch).unwrap_err();
            assert_eq!(e.field, field, "{patch}");
        }
        let many: Vec<String> = (0..=TABLES_MAX).map(|i| i.to_string()).collect();
        let e = Settings::default()
            .merged(&json!({ "tables": many }))
            .unwrap_err();
        assert_eq!(e.field, "settings.tables");
        // `null` empties the list; the queue's section back to its defaults.
        let s = s.merged(&json!({"tables": null, "queue": null})).unwrap();
        assert!(s.tables.is_empty() && s.queue == QueuePolicy::default());
    }

    #[test]
    fn a_null_on_an_unknown_field_is_refused() {
        for (patch, field) in [
            (
                json!({"lineups": {"v": null, "required": null}}),
                "settings.lineups.v",
            ),
            (json!({"nonsense": null}), "settings.nonsense"),
        ] {
            let e = Settings::default().merged(&patch).unwrap_err();
            assert_eq!(e.field, field, "{patch}");
        }
    }

    /// `default_notice_hours`: absent is 24 and stays out of the JSON, `null` is no
    /// defaults and is kept, a number is the number; out of range is refused.
    #[test]
    fn a_null_default_notice_means_no_defaults() {
        let base = Settings::default();
        assert_eq!(base.forfeit.default_notice_hours, Some(24));
        let json = serde_json::to_value(&base).unwrap();
        assert!(
            json["forfeit"].get("default_notice_hours").is_none(),
            "{json}"
        );
        let off = base
            .merged(&json!({"forfeit": {"default_notice_hours": null}}))
            .unwrap();
        assert_eq!(off.forfeit.default_notice_hours, None);
        // Kept through a later change of another field, and in the stored JSON.
        let later = off
            .merged(&json!({"forfeit": {"grace_minutes": 5}}))
            .unwrap();
        assert_eq!(later.forfeit.default_notice_hours, None);
        let stored: Settings =
            serde_json::from_value(serde_json::to_value(&later).unwrap()).unwrap();
        assert_eq!(stored.forfeit.default_notice_hours, None);
        let two_days = later
            .merged(&json!({"forfeit": {"default_notice_hours": 48}}))
            .unwrap();
        assert_eq!(two_days.forfeit.default_notice_hours, Some(48));
        // A whole section reset is the defaults: 24 again.
        let reset = two_days.merged(&json!({"forfeit": null})).unwrap();
        assert_eq!(reset.forfeit.default_notice_hours, Some(24));
        let e = base
            .merged(&json!({"forfeit": {"default_notice_hours": 169}}))
            .unwrap_err();
        assert_eq!(e.field, "settings.forfeit.default_notice_hours");
        let e = base
            .merged(&json!({"disputes": {"hours": 200}}))
            .unwrap_err();
        assert_eq!(e.field, "settings.disputes.hours");
    }

    #[test]
    fn a_null_in_a_new_section_is_its_default() {
        let made = Settings::default()
            .merged(&json!({"sportsmanship": {"min": null, "max": null, "required": null}}))
            .unwrap();
        let scale = made.sportsmanship.unwrap();
        assert_eq!((scale.min, scale.max, scale.required), (1, 5, false));
    }

    #[test]
    fn the_settings_read_in_words() {
        let s = every_setting();
        assert_eq!(
            s.describe(),
            [
                "Teams check in with the supervisor before the match. A team not at the table 10 minutes after the match time may be forfeited.",
                "A team that cannot play tells the office at least 24 hours before the match (a default): it loses the match, but it is not a forfeit.",
                "A captain may dispute a recorded result within 24 hours of the match's end.",
                "A team is dropped from the league at its 2nd forfeit: its remaining matches are cancelled, its results stay.",
                "The supervisor rates each team's sportsmanship after every match, from 1 to 5. A team that forfeits is rated 1. Every match must be rated.",
                "To enter the playoffs a team needs a sportsmanship average of at least 3.0 and no more than 1 forfeit.",
                "The playoffs start once every regular-season match is played.",
            ]
        );
        let plain = Settings::default().describe();
        assert_eq!(plain.len(), 5);
        assert_eq!(
            plain[3],
            "Every team that has not withdrawn may enter the playoffs."
        );
    }

    #[test]
    fn the_defaults_change_nothing() {
        let s = Settings::default();
        assert_eq!(s.forfeit.grace_minutes, None);
        assert_eq!(s.forfeit.drop_after, None);
        assert_eq!(s.sportsmanship, None);
        assert!(s.eligibility.require_all_played);
        assert_eq!(Settings::default().merged(&json!({})).unwrap(), s);
    }

    #[test]
    fn a_change_is_merged_field_by_field() {
        let s = every_setting();
        let t = s.merged(&json!({"forfeit": {"drop_after": 3}})).unwrap();
        assert_eq!(t.forfeit.grace_minutes, Some(10), "kept");
        assert_eq!(t.forfeit.drop_after, Some(3));
        assert_eq!(t.sportsmanship, s.sportsmanship);
        let u = t
            .merged(&json!({"forfeit": {"grace_minutes": null}}))
            .unwrap();
        assert_eq!(u.forfeit.grace_minutes, None, "null resets");
    }

    #[test]
    fn unknown_fields_and_values_out_of_range_name_the_field() {
        let base = Settings::default();
        let cases = [
            (json!({"forfeit": {"grace": 5}}), "settings.forfeit"),
            (json!({"colour": "red"}), "settings"),
            (
                json!({"forfeit": {"grace_minutes": 500}}),
                "settings.forfeit.grace_minutes",
            ),
            (
                json!({"forfeit": {"drop_after": 0}}),
                "settings.forfeit.drop_after",
            ),
            (
                json!({"sportsmanship": {"min": 5, "max": 5}}),
                "settings.sportsmanship",
            ),
            (
                json!({"sportsmanship": {"min": 1, "max": 5, "forfeit_rating": 7}}),
                "settings.sportsmanship.forfeit_rating",
            ),
            (
                json!({"eligibility": {"min_sportsmanship": 3.0}}),
                "settings.eligibility.min_sportsmanship",
            ),
            (
                json!({"eligibility": {"min_win_pct": 1.5}}),
                "settings.eligibility.min_win_pct",
            ),
            (
                json!({"forfeit": {"drop_after": -1}}),
                "settings.forfeit.drop_after",
            ),
            (
                json!({"eligibility": {"min_matches_played": 0}}),
                "settings.eligibility.min_matches_played",
            ),
            (
                json!({"eligibility": {"min_matches_played": 51}}),
                "settings.eligibility.min_matches_played",
            ),
        ];
        for (patch, field) in cases {
            let e = base.merged(&patch).unwrap_err();
            assert!(e.field.starts_with(field), "{patch}: {e:?}");
        }
    }
}
