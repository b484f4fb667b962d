//! Leagues, teams, supervisors, schedules and standings.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sqlx::SqliteConnection;

use super::audit;
use super::{ConflictCode, ServiceError, User, require_admin, slugify, to_json};
use crate::domain::{LeagueId, LocalTime, MatchId, MatchStatus, TeamId, TextEnum, Timestamp, UserId};
use crate::db::leagues::{self as db_leagues, LeagueRow, NewLeague, TeamRow};
use crate::db::matches::{self as db_matches, NewMatch};
use crate::db::{Db, users};
use crate::league::schedule::round_robin;
use crate::league::standings::{self, Outcome, Side, Standing, TeamEntry, Tiebreak};
use crate::rules::{Rules, RulesSpec, Stage, Team};

/// A league's rules as given per stage (playoff and final default to the regular rules).
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StageRules {
    pub regular: RulesSpec,
    #[serde(default)]
    pub playoff: Option<RulesSpec>,
    #[serde(default)]
    pub r#final: Option<RulesSpec>,
}

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewLeagueInput {
    pub name: String,
    #[serde(default)]
    pub slug: Option<String>,
    pub rules: StageRules,
    /// Standings tiebreak order, e.g. `["head_to_head", "differential", "points_for"]`.
    #[serde(default)]
    pub tiebreak_order: Option<Vec<String>>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct RulesByStage {
    pub regular: Rules,
    pub playoff: Rules,
    pub r#final: Rules,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct LeagueView {
    pub id: LeagueId,
    pub slug: String,
    pub name: String,
    /// The rules as given (a preset name or overrides), per stage.
    pub rules_spec: serde_json::Value,
    /// Every field resolved, per stage.
    pub rules: RulesByStage,
    pub tiebreak_order: Vec<String>,
    pub created_at: Timestamp,
}

/// A league as stored, with its rules resolved.
#[derive(Debug, Clone)]
pub struct League {
    pub row: LeagueRow,
    pub specs: [RulesSpec; 3],
    pub rules: [Rules; 3],
    pub tiebreak: Vec<Tiebreak>,
}

impl League {
    pub fn from_row(row: LeagueRow) -> Result<League, ServiceError> {
        let parse = |text: &str| -> Result<(RulesSpec, Rules), ServiceError> {
            let spec: RulesSpec = serde_json::from_str(text)
                .map_err(|e| ServiceError::corrupt("stored rules", e))?;
            let rules = spec
                .resolve()
                .map_err(|e| ServiceError::corrupt("stored rules", e.message))?;
            Ok((spec, rules))
        };
        let (s0, r0) = parse(&row.rules_regular)?;
        let (s1, r1) = parse(&row.rules_playoff)?;
        let (s2, r2) = parse(&row.rules_final)?;
        let tiebreak = row
            .tiebreak_order
            .split(',')
            .filter_map(Tiebreak::parse)
            .collect();
        Ok(League {
            row,
            specs: [s0, s1, s2],
            rules: [r0, r1, r2],
            tiebreak,
        })
    }

    pub fn rules_for(&self, stage: Stage) -> &Rules {
        match stage {
            Stage::Regular => &self.rules[0],
            Stage::Playoff => &self.rules[1],
            Stage::Final => &self.rules[2],
        }
    }

    pub fn view(&self) -> LeagueView {
        LeagueView {
            id: self.row.id,
            slug: self.row.slug.clone(),
            name: self.row.name.clone(),
            rules_spec: serde_json::json!({
                "regular": self.specs[0], "playoff": self.specs[1], "final": self.specs[2]
            }),
            rules: RulesByStage {
                regular: self.rules[0].clone(),
                playoff: self.rules[1].clone(),
                r#final: self.rules[2].clone(),
            },
            tiebreak_order: self
                .tiebreak
                .iter()
                .map(|t| t.as_str().to_string())
                .collect(),
            created_at: self.row.created_at,
        }
    }
}

pub async fn league_by_slug(
    conn: &mut SqliteConnection,
    slug: &str,
) -> Result<League, ServiceError> {
    let row = db_leagues::by_slug(conn, slug)
        .await?
        .ok_or(ServiceError::NotFound)?;
    League::from_row(row)
}

pub async fn all_leagues(db: &Db) -> Result<Vec<League>, ServiceError> {
    let mut conn = db.reader().acquire().await?;
    db_leagues::all(&mut conn)
        .await?
        .into_iter()
        .map(League::from_row)
        .collect()
}

/// Checks rules per stage; an error names the stage ("rules.playoff.bags.limit").
fn check_rules(rules: &StageRules) -> Result<[String; 3], ServiceError> {
    let regular = rules.regular.clone();
    let stages = [
        ("regular", Some(regular.clone())),
        ("playoff", rules.playoff.clone()),
        ("final", rules.r#final.clone()),
    ];
    let mut out: [String; 3] = Default::default();
    for (i, (stage, spec)) in stages.into_iter().enumerate() {
        let spec = spec.unwrap_or_else(|| regular.clone());
        spec.resolve().map_err(|e| {
            ServiceError::invalid(
                "invalid_rules",
                &format!("rules.{stage}.{}", e.field.unwrap_or_default()),
                format!("{stage} rules: {}", e.message),
            )
        })?;
        out[i] = to_json("rules", &spec)?;
    }
    Ok(out)
}

fn check_tiebreak(order: Option<&[String]>) -> Result<String, ServiceError> {
    let Some(order) = order else {
        return Ok(Tiebreak::DEFAULT_ORDER
            .iter()
            .map(|t| t.as_str())
            .collect::<Vec<_>>()
            .join(","));
    };
    let mut names = Vec::new();
    for name in order {
        let t = Tiebreak::parse(name).ok_or_else(|| {
            ServiceError::invalid(
                "invalid_league",
                "tiebreak_order",
                format!("unknown tiebreak \"{name}\"; use head_to_head, differential, points_for"),
            )
        })?;
        if !names.contains(&t.as_str()) {
            names.push(t.as_str());
        }
    }
    Ok(names.join(","))
}

fn check_name(name: &str, field: &str, what: &str) -> Result<String, ServiceError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 80 {
        return Err(ServiceError::invalid(
            "invalid_input",
            field,
            format!("{what} must be 1 to 80 characters"),
        ));
    }
    Ok(name.to_string())
}

pub async fn create_league(
    db: &Db,
    user: &User,
    input: &NewLeagueInput,
) -> Result<League, ServiceError> {
    require_admin(user)?;
    let name = check_name(&input.name, "name", "the league's name")?;
    let slug = match &input.slug {
        Some(s) if !s.trim().is_empty() => {
            let s = s.trim();
            if slugify(s) != s {
                return Err(ServiceError::invalid(
                    "invalid_league",
                    "slug",
                    "a slug is lowercase letters, digits and single dashes, e.g. \"fall-2026\"",
                ));
            }
            s.to_string()
        }
        _ => slugify(&name),
    };
    if slug.is_empty() {
        return Err(ServiceError::invalid(
            "invalid_league",
            "slug",
            "give the league a slug of letters or digits",
        ));
    }
    let [regular, playoff, final_] = check_rules(&input.rules)?;
    let tiebreak = check_tiebreak(input.tiebreak_order.as_deref())?;
    let now = Timestamp::now();
    let mut tx = db.write().await?;
    if db_leagues::by_slug(&mut tx, &slug).await?.is_some() {
        return Err(ServiceError::conflict(
                ConflictCode::SlugTaken,
            format!("a league with the slug \"{slug}\" exists"),
        ));
    }
    let new = NewLeague {
        slug: &slug,
        name: &name,
        rules_regular: &regular,
        rules_playoff: &playoff,
        rules_final: &final_,
        tiebreak_order: &tiebreak,
        now,
    };
    let id = db_leagues::insert(&mut tx, &new).await?;
    let after =
        serde_json::json!({"slug": slug, "name": name, "rules": [regular, playoff, final_]})
            .to_string();
    audit::record(&mut tx, user, audit::Change::new("create", audit::Subject::League(id)).after(&after))
    .await?;
    let row = db_leagues::by_id(&mut tx, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    tx.commit().await?;
    League::from_row(row)
}

/// Changes a league's name, rules or tiebreak order (matches already started keep the rules
/// they were frozen with).
pub async fn update_league(
    db: &Db,
    user: &User,
    slug: &str,
    input: &NewLeagueInput,
) -> Result<League, ServiceError> {
    require_admin(user)?;
    let name = check_name(&input.name, "name", "the league's name")?;
    let [regular, playoff, final_] = check_rules(&input.rules)?;
    let tiebreak = check_tiebreak(input.tiebreak_order.as_deref())?;
    let now = Timestamp::now();
    let mut tx = db.write().await?;
    let before = db_leagues::by_slug(&mut tx, slug)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let new = NewLeague {
        slug,
        name: &name,
        rules_regular: &regular,
        rules_playoff: &playoff,
        rules_final: &final_,
        tiebreak_order: &tiebreak,
        now,
    };
    db_leagues::update(&mut tx, before.id, &new).await?;
    let b = serde_json::json!({"name": before.name, "rules": [before.rules_regular, before.rules_playoff, before.rules_final], "tiebreak": before.tiebreak_order}).to_string();
    let a = serde_json::json!({"name": name, "rules": [regular, playoff, final_], "tiebreak": tiebreak}).to_string();
    audit::record(&mut tx, user, audit::Change::new("update", audit::Subject::League(before.id)).before(&b).after(&a))
    .await?;
    let row = db_leagues::by_id(&mut tx, before.id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    tx.commit().await?;
    League::from_row(row)
}


#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTeamInput {
    pub name: String,
    pub players: Vec<String>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct TeamView {
    pub id: TeamId,
    pub name: String,
    pub players: [String; 2],
    pub withdrawn: bool,
}

impl From<&TeamRow> for TeamView {
    fn from(t: &TeamRow) -> Self {
        TeamView {
            id: t.id,
            name: t.name.clone(),
            players: [t.player1.clone(), t.player2.clone()],
            withdrawn: t.withdrawn,
        }
    }
}

/// Checks a team's name and two players.
pub fn check_team(input: &NewTeamInput) -> Result<(String, [String; 2]), ServiceError> {
    let name = check_name(&input.name, "name", "the team's name")?;
    if input.players.len() != 2 {
        return Err(ServiceError::invalid(
            "invalid_team",
            "players",
            format!("a team has 2 players, not {}", input.players.len()),
        ));
    }
    let p1 = check_name(&input.players[0], "players", "each player's name")?;
    let p2 = check_name(&input.players[1], "players", "each player's name")?;
    Ok((name, [p1, p2]))
}

pub async fn add_team(
    db: &Db,
    user: &User,
    slug: &str,
    input: &NewTeamInput,
) -> Result<TeamView, ServiceError> {
    require_admin(user)?;
    let (name, players) = check_team(input)?;
    let mut tx = db.write().await?;
    let league = db_leagues::by_slug(&mut tx, slug)
        .await?
        .ok_or(ServiceError::NotFound)?;
    if db_leagues::teams(&mut tx, league.id)
        .await?
        .iter()
        .any(|t| t.name.eq_ignore_ascii_case(&name))
    {
        return Err(ServiceError::invalid(
            "invalid_team",
            "name",
            format!("the league already has a team named \"{name}\""),
        ));
    }
    let id = db_leagues::insert_team(&mut tx, league.id, &name, [&players[0], &players[1]]).await?;
    let after = serde_json::json!({"name": name, "players": players}).to_string();
    audit::record(&mut tx, user, audit::Change::new("create", audit::Subject::Team(id)).after(&after))
    .await?;
    tx.commit().await?;
    Ok(TeamView {
        id,
        name,
        players,
        withdrawn: false,
    })
}

pub async fn update_team(
    db: &Db,
    user: &User,
    slug: &str,
    team_id: TeamId,
    input: &NewTeamInput,
    withdrawn: bool,
) -> Result<TeamView, ServiceError> {
    require_admin(user)?;
    let (name, players) = check_team(input)?;
    let mut tx = db.write().await?;
    let league = db_leagues::by_slug(&mut tx, slug)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let before = db_leagues::team(&mut tx, team_id)
        .await?
        .filter(|t| t.league_id == league.id)
        .ok_or(ServiceError::NotFound)?;
    if db_leagues::teams(&mut tx, league.id)
        .await?
        .iter()
        .any(|t| t.id != team_id && t.name.eq_ignore_ascii_case(&name))
    {
        return Err(ServiceError::invalid(
            "invalid_team",
            "name",
            format!("the league already has a team named \"{name}\""),
        ));
    }
    db_leagues::update_team(
        &mut tx,
        team_id,
        &name,
        [&players[0], &players[1]],
        withdrawn,
    )
    .await?;
    let b = to_json("team", &TeamView::from(&before))?;
    let view = TeamView {
        id: team_id,
        name,
        players,
        withdrawn,
    };
    let a = to_json("team", &view)?;
    audit::record(&mut tx, user, audit::Change::new("update", audit::Subject::Team(team_id)).before(&b).after(&a))
    .await?;
    tx.commit().await?;
    Ok(view)
}

pub async fn teams(
    conn: &mut SqliteConnection,
    league_id: LeagueId,
) -> Result<Vec<TeamRow>, ServiceError> {
    Ok(db_leagues::teams(conn, league_id).await?)
}

pub async fn assign_supervisor(
    db: &Db,
    user: &User,
    slug: &str,
    username: &str,
) -> Result<(), ServiceError> {
    require_admin(user)?;
    let mut tx = db.write().await?;
    let league = db_leagues::by_slug(&mut tx, slug)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let target = users::by_name(&mut tx, username).await?.ok_or_else(|| {
        ServiceError::invalid(
            "invalid_user",
            "username",
            format!("no user named \"{username}\""),
        )
    })?;
    db_leagues::assign_supervisor(&mut tx, league.id, target.id).await?;
    audit::record(&mut tx, user, audit::Change::new("assign_supervisor", audit::Subject::League(league.id)).after(username))
    .await?;
    tx.commit().await?;
    Ok(())
}

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ScheduleInput {
    /// `round_robin`.
    pub format: String,
    /// The first league night (`YYYY-MM-DD`); later rounds follow weekly.
    #[serde(default)]
    pub start_date: Option<String>,
    /// Time of day of the matches (`HH:MM`, default 19:00).
    #[serde(default)]
    pub time: Option<String>,
    /// Days between league nights (default 7).
    #[serde(default)]
    pub days_between: Option<u32>,
}

/// How a season's schedule is made (only round robins so far).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScheduleFormat {
    RoundRobin,
}

crate::domain::text_enum!(ScheduleFormat, "schedule format", {
    ScheduleFormat::RoundRobin => "round_robin",
});

/// Generates a round robin of the league's active teams: one round per league night, tables
/// numbered 1, 2, ... within a round.
pub async fn generate_schedule(
    db: &Db,
    user: &User,
    slug: &str,
    input: &ScheduleInput,
) -> Result<Vec<MatchId>, ServiceError> {
    require_admin(user)?;
    let ScheduleFormat::RoundRobin = ScheduleFormat::parse(input.format.trim()).map_err(|_| {
        ServiceError::invalid(
            "invalid_schedule",
            "format",
            format!("unknown format \"{}\"; use round_robin", input.format),
        )
    })?;
    let start = match input
        .start_date
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        Some(d) => Some(
            chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").map_err(|_| {
                ServiceError::invalid(
                    "invalid_schedule",
                    "start_date",
                    "the first date is YYYY-MM-DD",
                )
            })?,
        ),
        None => None,
    };
    let time = match input
        .time
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        Some(t) => chrono::NaiveTime::parse_from_str(t, "%H:%M").map_err(|_| {
            ServiceError::invalid("invalid_schedule", "time", "the time is HH:MM, e.g. 19:00")
        })?,
        None => chrono::NaiveTime::from_hms_opt(19, 0, 0).unwrap_or_default(),
    };
    let gap = i64::from(input.days_between.unwrap_or(7).clamp(1, 60));
    let mut tx = db.write().await?;
    let league = db_leagues::by_slug(&mut tx, slug)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let existing = db_matches::of_league(&mut tx, league.id).await?;
    if existing.iter().any(|m| m.stage == Stage::Regular) {
        return Err(ServiceError::conflict(
                ConflictCode::ScheduleExists,
            "the league already has regular-season matches; add single matches instead",
        ));
    }
    let active: Vec<TeamRow> = db_leagues::teams(&mut tx, league.id)
        .await?
        .into_iter()
        .filter(|t| !t.withdrawn)
        .collect();
    if active.len() < 2 {
        return Err(ServiceError::invalid(
            "invalid_schedule",
            "format",
            "a round robin needs at least 2 active teams",
        ));
    }
    let mut ids = Vec::new();
    let mut table_in_round = std::collections::HashMap::new();
    for p in round_robin(active.len()) {
        let table = table_in_round.entry(p.round).or_insert(0);
        *table += 1;
        let when = start.map(|d| {
            LocalTime((d + chrono::Duration::days(gap * (p.round as i64 - 1))).and_time(time))
        });
        let table_name = format!("Table {table}");
        let id = db_matches::insert(
            &mut tx,
            &NewMatch {
                league_id: league.id,
                stage: Stage::Regular,
                round: Some(p.round as i64),
                team_a: active[p.a].id,
                team_b: active[p.b].id,
                table_name: Some(&table_name),
                scheduled_at: when,
            },
        )
        .await?;
        ids.push(id);
    }
    let after = format!("{} matches", ids.len());
    audit::record(&mut tx, user, audit::Change::new("generate_schedule", audit::Subject::League(league.id)).after(&after))
    .await?;
    tx.commit().await?;
    Ok(ids)
}

#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewMatchInput {
    pub team_a: TeamId,
    pub team_b: TeamId,
    #[serde(default)]
    pub stage: Option<Stage>,
    #[serde(default)]
    pub table: Option<String>,
    #[serde(default)]
    pub scheduled_at: Option<String>,
}

pub async fn create_match(
    db: &Db,
    user: &User,
    slug: &str,
    input: &NewMatchInput,
) -> Result<MatchId, ServiceError> {
    require_admin(user)?;
    if input.team_a == input.team_b {
        return Err(ServiceError::invalid(
            "invalid_match",
            "team_b",
            "a team cannot play itself",
        ));
    }
    let scheduled = match input
        .scheduled_at
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        Some(s) => Some(parse_when(s)?),
        None => None,
    };
    let table = input
        .table
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    if table.is_some_and(|t| t.chars().count() > 40) {
        return Err(ServiceError::invalid(
            "invalid_match",
            "table",
            "a table name is at most 40 characters",
        ));
    }
    let stage = input.stage.unwrap_or_default();
    let mut tx = db.write().await?;
    let league = db_leagues::by_slug(&mut tx, slug)
        .await?
        .ok_or(ServiceError::NotFound)?;
    for (field, id) in [("team_a", input.team_a), ("team_b", input.team_b)] {
        let team = db_leagues::team(&mut tx, id)
            .await?
            .filter(|t| t.league_id == league.id);
        match team {
            None => {
                return Err(ServiceError::invalid(
                    "invalid_match",
                    field,
                    format!("team {id} is not in this league"),
                ));
            }
            Some(t) if t.withdrawn => {
                return Err(ServiceError::invalid(
                    "invalid_match",
                    field,
                    format!("{} has withdrawn", t.name),
                ));
            }
            Some(_) => {}
        }
    }
    let id = db_matches::insert(
        &mut tx,
        &NewMatch {
            league_id: league.id,
            stage,
            round: None,
            team_a: input.team_a,
            team_b: input.team_b,
            table_name: table,
            scheduled_at: scheduled,
        },
    )
    .await?;
    audit::record(&mut tx, user, audit::Change::new("create", audit::Subject::Match(id))).await?;
    tx.commit().await?;
    Ok(id)
}

/// Accepts `YYYY-MM-DDTHH:MM` (what a datetime-local input sends) or with seconds / a zone.
pub fn parse_when(s: &str) -> Result<LocalTime, ServiceError> {
    let bad = || {
        ServiceError::invalid(
            "invalid_match",
            "scheduled_at",
            "the time is YYYY-MM-DDTHH:MM, e.g. 2026-11-24T19:00",
        )
    };
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        return Ok(LocalTime(t.naive_local()));
    }
    for format in ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"] {
        if let Ok(t) = chrono::NaiveDateTime::parse_from_str(s, format) {
            return Ok(LocalTime(t));
        }
    }
    Err(bad())
}

/// The regular-season standings, in the league's tiebreak order (DESIGN §3), computed from
/// the finished matches' cached results.
pub async fn standings(
    conn: &mut SqliteConnection,
    league: &League,
) -> Result<Vec<Standing>, ServiceError> {
    let teams: Vec<TeamEntry> = db_leagues::teams(conn, league.row.id)
        .await?
        .iter()
        .map(|t| TeamEntry {
            id: t.id.0,
            name: t.name.clone(),
        })
        .collect();
    let results: Vec<standings::Result> = db_matches::results(conn, league.row.id)
        .await?
        .iter()
        .filter_map(result_of)
        .collect();
    let order = if league.tiebreak.is_empty() {
        Tiebreak::DEFAULT_ORDER.to_vec()
    } else {
        league.tiebreak.clone()
    };
    Ok(standings::standings(&teams, &results, &order))
}

/// A finished match as a standings result; `None` while it is not finished.
fn result_of(m: &db_matches::ResultRow) -> Option<standings::Result> {
    let side = |team: Team| match team {
        Team::A => Side::A,
        Team::B => Side::B,
    };
    let outcome = match (m.status, m.forfeit) {
        (MatchStatus::Forfeit, Some(who)) => match who.team() {
            Some(team) => Outcome::Forfeit(side(team)),
            None => Outcome::DoubleForfeit,
        },
        (MatchStatus::Forfeit, None) => Outcome::DoubleForfeit,
        (MatchStatus::Complete, _) => Outcome::Played {
            winner: m.winner.map(side),
        },
        _ => return None,
    };
    Some(standings::Result {
        team_a: m.team_a.0,
        team_b: m.team_b.0,
        score_a: m.score_a,
        score_b: m.score_b,
        outcome,
    })
}

/// Each league's standings, computed once per `standings_version` (bumped by triggers when a
/// result or a team changes) and tiebreak order: reading them costs the rows, not the season.
#[derive(Debug, Default)]
pub struct StandingsCache {
    leagues: std::sync::Mutex<HashMap<LeagueId, CachedStandings>>,
}

#[derive(Debug)]
struct CachedStandings {
    version: i64,
    tiebreak: String,
    rows: Arc<Vec<Standing>>,
}

impl StandingsCache {
    /// The standings of `league` as read in `conn` (whose league row gives the version).
    pub async fn get(
        &self,
        conn: &mut SqliteConnection,
        league: &League,
    ) -> Result<Arc<Vec<Standing>>, ServiceError> {
        let key = (league.row.standings_version, &league.row.tiebreak_order);
        if let Ok(cache) = self.leagues.lock()
            && let Some(c) = cache.get(&league.row.id)
            && (c.version, &c.tiebreak) == key
        {
            return Ok(c.rows.clone());
        }
        // Computed outside the lock; two requests racing both compute, the later stores.
        let rows = Arc::new(standings(conn, league).await?);
        if let Ok(mut cache) = self.leagues.lock() {
            cache.insert(
                league.row.id,
                CachedStandings {
                    version: league.row.standings_version,
                    tiebreak: league.row.tiebreak_order.clone(),
                    rows: rows.clone(),
                },
            );
        }
        Ok(rows)
    }
}

// ---- Appended for the admin pages (src/web/admin.rs) ----

/// Checks a league's input exactly as [`create_league`] (`creating`) or [`update_league`]
/// would, without writing, and returns the resolved rules per stage (for a preview).
pub fn check_league_input(
    input: &NewLeagueInput,
    creating: bool,
) -> Result<RulesByStage, ServiceError> {
    let name = check_name(&input.name, "name", "the league's name")?;
    if creating {
        match input.slug.as_deref().map(str::trim) {
            Some(s) if !s.is_empty() => {
                if slugify(s) != s {
                    return Err(ServiceError::invalid(
                        "invalid_league",
                        "slug",
                        "a slug is lowercase letters, digits and single dashes, e.g. \"fall-2026\"",
                    ));
                }
            }
            _ => {
                if slugify(&name).is_empty() {
                    return Err(ServiceError::invalid(
                        "invalid_league",
                        "slug",
                        "give the league a slug of letters or digits",
                    ));
                }
            }
        }
    }
    check_rules(&input.rules)?;
    check_tiebreak(input.tiebreak_order.as_deref())?;
    let resolve = |stage: &str, spec: Option<&RulesSpec>| {
        spec.unwrap_or(&input.rules.regular).resolve().map_err(|e| {
            ServiceError::invalid(
                "invalid_rules",
                &format!("rules.{stage}.{}", e.field.unwrap_or_default()),
                format!("{stage} rules: {}", e.message),
            )
        })
    };
    Ok(RulesByStage {
        regular: resolve("regular", None)?,
        playoff: resolve("playoff", input.rules.playoff.as_ref())?,
        r#final: resolve("final", input.rules.r#final.as_ref())?,
    })
}

/// Removes a supervisor from a league (their account stays).
pub async fn unassign_supervisor(
    db: &Db,
    user: &User,
    slug: &str,
    user_id: UserId,
) -> Result<(), ServiceError> {
    require_admin(user)?;
    let mut tx = db.write().await?;
    let league = db_leagues::by_slug(&mut tx, slug)
        .await?
        .ok_or(ServiceError::NotFound)?;
    if !db_leagues::is_supervisor(&mut tx, league.id, user_id).await? {
        return Err(ServiceError::NotFound);
    }
    let username = users::by_id(&mut tx, user_id)
        .await?
        .map(|u| u.username)
        .unwrap_or_default();
    db_leagues::unassign_supervisor(&mut tx, league.id, user_id).await?;
    audit::record(&mut tx, user, audit::Change::new("unassign_supervisor", audit::Subject::League(league.id)).before(&username))
    .await?;
    tx.commit().await?;
    Ok(())
}
