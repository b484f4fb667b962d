//! What the public league pages read besides the league's home (`league_home`): the
//! standings, the schedule, the teams, a team's season (with what it needs for the playoffs)
//! and the bracket, each with its league, in one call per page.

use crate::domain::Slug;
use std::collections::HashMap;

use crate::db::{Conn, Db};
use chrono::{Datelike, Days, NaiveDate, NaiveTime};

use crate::db::leagues::{self as db_leagues, TeamRow};
use crate::db::matches::{self as db_matches, Whose};
use crate::domain::{LocalTime, TeamId, parse_day};
use crate::league::standings::Standing;
use crate::rules::Stage;
use crate::service::ServiceError;
use crate::service::playoffs::eligibility::{EligibilityRow, judge};
use crate::service::playoffs::{self, BracketView};
use crate::service::term::leagues::{self, League};
use crate::service::term::teams::TeamView;
use crate::service::views::summaries::MatchSummary;

/// A league and its regular-season standings.
#[derive(Debug, Clone)]
pub struct LeagueStandings {
    pub league: League,
    pub rows: Vec<Standing>,
    /// The teams out of the league, by id, and why (see [`out_of_league`]).
    pub out: HashMap<TeamId, String>,
    /// The league's divisions and each row's division and rank in it, in row order.
    pub divisions: crate::service::term::divisions::Divisions,
    pub placed: Vec<crate::service::term::divisions::Placed>,
}

#[tracing::instrument(skip_all, fields(slug = ?slug))]
pub async fn standings(db: &Db, slug: &Slug) -> Result<LeagueStandings, ServiceError> {
    // A read of its own: the page's handler holds no connection.
    let mut conn = db.read().await?;
    let conn: &mut Conn = &mut conn;
    let league = leagues::league_by_slug(conn, slug).await?;
    let rows = crate::service::views::standings::standings(conn, &league).await?;
    let out = db_leagues::withdrawn_teams(conn, league.row.id).await?;
    let divisions =
        crate::service::term::divisions::Divisions::of_league(conn, league.row.id).await?;
    let placed = divisions.placed(&rows);
    Ok(LeagueStandings {
        league,
        rows,
        out: out_of_league(&out),
        divisions,
        placed,
    })
}

/// The teams of `teams` that are out of the league, by id, with why in words for their
/// standings row: the forfeit policy's reason ("dropped after 2 forfeits") or "withdrawn".
pub fn out_of_league(teams: &[TeamRow]) -> HashMap<TeamId, String> {
    teams
        .iter()
        .filter(|t| t.withdrawn)
        .map(|t| {
            let why = t
                .dropped_reason
                .clone()
                .unwrap_or_else(|| "withdrawn".to_string());
            (t.id, why)
        })
        .collect()
}

/// A league's schedule as the public page shows it: the regular season night by night, then
/// the playoffs night by night, then the matches without a time. Every match is in it but the
/// cancelled ones of a reset bracket path (a new match replaced each); a match the
/// coordinator cancelled or postponed stays, marked.
#[derive(Debug, Clone)]
pub struct LeagueSchedule {
    pub league: League,
    /// The part of the season shown.
    pub span: Span,
    /// The weeks to link to, in order.
    pub weeks: Vec<WeekLink>,
    /// The regular-season matches that have a time, by night, in date order.
    pub regular: Vec<Night>,
    /// The playoff and final matches that have a time, by night, in date order.
    pub playoffs: Vec<Night>,
    /// The matches without a time (not yet scheduled, or postponed): the regular season's
    /// by round (those of no round last), then the playoffs' and the final's by round.
    pub undated: Vec<RoundOf>,
}

/// The matches of one night (the date of their scheduled time, in the league's wall-clock
/// time), by time.
#[derive(Debug, Clone)]
pub struct Night {
    pub date: NaiveDate,
    pub matches: Vec<MatchSummary>,
}

/// The matches of one round of one stage.
#[derive(Debug, Clone)]
pub struct RoundOf {
    pub stage: Stage,
    pub round: Option<i64>,
    pub matches: Vec<MatchSummary>,
}

#[tracing::instrument(skip_all, fields(slug = ?slug))]
pub async fn schedule(
    db: &Db,
    slug: &Slug,
    asked: Option<Span>,
    today: NaiveDate,
) -> Result<LeagueSchedule, ServiceError> {
    // A read of its own: the page's handler holds no connection.
    let mut conn = db.read().await?;
    let conn: &mut Conn = &mut conn;
    let league = leagues::league_by_slug(conn, slug).await?;
    let id = league.row.id;
    let span = match asked {
        Some(span) => span,
        None => {
            // This week, else the next week with matches, else the season's last week.
            let this_week = monday_of(today);
            let next = week_from(conn, Whose::League(id), this_week).await?;
            let last = week_before(conn, Whose::League(id), None).await?;
            Span::Week(next.or(last).unwrap_or(this_week))
        }
    };
    let mut rows = in_span(conn, Whose::League(id), span).await?;
    let weeks = week_links(conn, Whose::League(id), span).await?;
    rows.retain(crate::service::views::summaries::listed);
    let matches = crate::service::views::summaries::summaries_of(conn, id, &rows).await?;
    let (regular, playoffs, undated) = grouped(matches);
    Ok(LeagueSchedule {
        league,
        span,
        weeks,
        regular,
        playoffs,
        undated,
    })
}

/// What part of the season the schedule shows: one week (from its Monday), all of it, or
/// (a team's page at first) the weeks around this week.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    Week(NaiveDate),
    Season,
    /// Recent and upcoming: up to [`WEEKS_AROUND`] weeks with matches before the week of
    /// this Monday, it, and up to as many weeks with matches after it.
    Around(NaiveDate),
}

impl Span {
    /// `all`, or a date a user may name (`2026-11-25`: the week from its Monday); `None` for
    /// anything else.
    pub fn parse(s: &str) -> Option<Span> {
        match s.trim() {
            "all" => Some(Span::Season),
            date => parse_day(date).ok().map(|d| Span::Week(monday_of(d))),
        }
    }
}

/// A link of the schedule's list of weeks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WeekLink {
    /// A week with matches (or the week shown), by its Monday, and its first league night
    /// (`None`: the week shown has no match).
    Week {
        monday: NaiveDate,
        night: Option<NaiveDate>,
    },
    /// Weeks with matches left out of the list.
    Gap,
}

/// How many weeks with matches are linked on each side of the week shown (besides the
/// season's first and last).
pub const WEEKS_AROUND: usize = 3;

/// The matches of `whose` in `span`, with those without a time, in schedule order.
async fn in_span(
    conn: &mut Conn,
    whose: Whose,
    span: Span,
) -> Result<Vec<db_matches::MatchRow>, ServiceError> {
    let (from, to) = match span {
        Span::Week(monday) => (monday, next_monday(monday)),
        Span::Around(monday) => {
            let before = weeks_before(conn, whose, monday).await?;
            let after = weeks_from(conn, whose, monday).await?;
            let last = after.last().copied().unwrap_or(monday);
            (before.first().copied().unwrap_or(monday), next_monday(last))
        }
        Span::Season => {
            return Ok(match whose {
                Whose::League(id) => db_matches::of_league(conn, id).await?,
                Whose::Team(id) => db_matches::of_team(conn, id).await?,
            });
        }
    };
    Ok(db_matches::in_week_or_undated(conn, whose, start_of(from), start_of(to)).await?)
}

/// Up to [`WEEKS_AROUND`] weeks with matches of `whose` before the week of `monday`, in date
/// order (one index seek a week).
async fn weeks_before(
    conn: &mut Conn,
    whose: Whose,
    monday: NaiveDate,
) -> Result<Vec<NaiveDate>, ServiceError> {
    let mut weeks = Vec::new();
    let mut at = monday;
    for _ in 0..WEEKS_AROUND {
        let Some(w) = week_before(conn, whose, Some(at)).await? else {
            break;
        };
        weeks.insert(0, w);
        at = w;
    }
    Ok(weeks)
}

/// Up to [`WEEKS_AROUND`] weeks with matches of `whose` from the week of `monday` on (it
/// first if it has any), in date order (one index seek a week).
async fn weeks_from(
    conn: &mut Conn,
    whose: Whose,
    monday: NaiveDate,
) -> Result<Vec<NaiveDate>, ServiceError> {
    let mut weeks = Vec::new();
    let mut from = monday;
    for _ in 0..WEEKS_AROUND {
        let Some(w) = week_from(conn, whose, from).await? else {
            break;
        };
        weeks.push(w);
        from = next_monday(w);
    }
    Ok(weeks)
}

/// The weeks the schedule links to (none when no match has a time): the season's first and
/// last, [`WEEKS_AROUND`] each side of the week shown, and that week (for [`Span::Around`],
/// the weeks it shows); gaps where weeks with matches are left out. A few index seeks,
/// whatever the season's length.
async fn week_links(
    conn: &mut Conn,
    whose: Whose,
    span: Span,
) -> Result<Vec<WeekLink>, ServiceError> {
    let Some(first) = week_from(conn, whose, NaiveDate::MIN).await? else {
        // No match has a time: no weeks.
        return Ok(Vec::new());
    };
    let mut weeks: Vec<NaiveDate> = vec![first];
    weeks.extend(week_before(conn, whose, None).await?);
    match span {
        Span::Week(shown) => {
            weeks.push(shown);
            weeks.extend(weeks_before(conn, whose, shown).await?);
            weeks.extend(weeks_from(conn, whose, next_monday(shown)).await?);
        }
        Span::Around(monday) => {
            weeks.extend(weeks_before(conn, whose, monday).await?);
            weeks.extend(weeks_from(conn, whose, monday).await?);
        }
        Span::Season => {}
    }
    weeks.sort();
    weeks.dedup();
    let mut links = Vec::with_capacity(weeks.len() + 2);
    for (i, w) in weeks.iter().enumerate() {
        if let Some(previous) = i.checked_sub(1).map(|p| weeks[p])
            && week_from(conn, whose, next_monday(previous))
                .await?
                .is_some_and(|between| between < *w)
        {
            links.push(WeekLink::Gap);
        }
        let night = db_matches::next_scheduled(conn, whose, start_of(*w))
            .await?
            .map(|t| t.0.date())
            .filter(|day| *day < next_monday(*w));
        links.push(WeekLink::Week { monday: *w, night });
    }
    Ok(links)
}

/// The Monday of the week of `day` (`day` itself in chrono's first week: a stored night may
/// be any date, and this never overflows).
pub fn monday_of(day: NaiveDate) -> NaiveDate {
    day.checked_sub_days(Days::new(u64::from(day.weekday().num_days_from_monday())))
        .unwrap_or(day)
}

/// The Monday after `monday` (chrono's last day past its last week).
fn next_monday(monday: NaiveDate) -> NaiveDate {
    monday
        .checked_add_days(Days::new(7))
        .unwrap_or(NaiveDate::MAX)
}

fn start_of(day: NaiveDate) -> LocalTime {
    LocalTime(day.and_time(NaiveTime::MIN))
}

/// The first week from the week of `monday` on that has a match of `whose` (one index seek).
async fn week_from(
    conn: &mut Conn,
    whose: Whose,
    monday: NaiveDate,
) -> Result<Option<NaiveDate>, ServiceError> {
    Ok(db_matches::next_scheduled(conn, whose, start_of(monday))
        .await?
        .map(|t| monday_of(t.0.date())))
}

/// The last week before the week of `monday` (`None`: the season's last week) that has a
/// match of `whose` (one index seek).
async fn week_before(
    conn: &mut Conn,
    whose: Whose,
    monday: Option<NaiveDate>,
) -> Result<Option<NaiveDate>, ServiceError> {
    Ok(
        db_matches::last_scheduled_before(conn, whose, monday.map(start_of))
            .await?
            .map(|t| monday_of(t.0.date())),
    )
}

/// `matches` by night (regular season, then playoffs) and the undated ones by round.
fn grouped(matches: Vec<MatchSummary>) -> (Vec<Night>, Vec<Night>, Vec<RoundOf>) {
    let (mut dated, mut undated): (Vec<_>, Vec<_>) =
        matches.into_iter().partition(|m| m.scheduled_at.is_some());
    dated.sort_by_key(|m| (m.scheduled_at, m.round, m.id));
    let (regular, playoffs): (Vec<_>, Vec<_>) =
        dated.into_iter().partition(|m| m.stage == Stage::Regular);
    let stage_order = |stage: Stage| match stage {
        Stage::Regular => 0,
        Stage::Playoff => 1,
        Stage::Final => 2,
    };
    undated.sort_by_key(|m| (stage_order(m.stage), m.round.is_none(), m.round, m.id));
    let mut rounds: Vec<RoundOf> = Vec::new();
    for m in undated {
        match rounds.last_mut() {
            Some(r) if r.stage == m.stage && r.round == m.round => r.matches.push(m),
            _ => rounds.push(RoundOf {
                stage: m.stage,
                round: m.round,
                matches: vec![m],
            }),
        }
    }
    (nights(regular), nights(playoffs), rounds)
}

/// Dated `matches`, in time order, by night.
fn nights(matches: Vec<MatchSummary>) -> Vec<Night> {
    let mut nights: Vec<Night> = Vec::new();
    for m in matches {
        let Some(date) = m.scheduled_at.map(|t| t.0.date()) else {
            continue;
        };
        match nights.last_mut() {
            Some(n) if n.date == date => n.matches.push(m),
            _ => nights.push(Night {
                date,
                matches: vec![m],
            }),
        }
    }
    nights
}

/// A league and its teams, by name.
#[derive(Debug, Clone)]
pub struct LeagueTeams {
    pub league: League,
    pub teams: Vec<TeamView>,
}

pub async fn teams(db: &Db, slug: &Slug) -> Result<LeagueTeams, ServiceError> {
    // A read of its own: the page's handler holds no connection.
    let mut conn = db.read().await?;
    let conn: &mut Conn = &mut conn;
    let league = leagues::league_by_slug(conn, slug).await?;
    let teams = crate::service::term::teams::teams(conn, league.row.id).await?;
    let teams = crate::service::term::teams::views(conn, league.row.id, &teams).await?;
    Ok(LeagueTeams { league, teams })
}

/// One team's season: its record, and a part of its matches with links to the others.
#[derive(Debug, Clone)]
pub struct TeamSeason {
    pub league: League,
    pub team: TeamView,
    /// Its row of the standings.
    pub standing: Option<Standing>,
    /// The part of its season shown ([`Span::Around`] this week unless asked).
    pub span: Span,
    /// The weeks of its matches to link to, in order (as the schedule's).
    pub weeks: Vec<WeekLink>,
    /// Its matches in `span` and those without a time, in schedule order.
    pub matches: Vec<MatchSummary>,
    /// Its playoff eligibility as things stand: every failing rule, what is at risk, an
    /// admin's decision (`None` only if the team has no row of the standings).
    pub eligibility: Option<EligibilityRow>,
}

/// Team `id` of league `slug` (not found when it is another league's), its matches in the
/// part `asked` (by default the weeks around `today`'s).
#[tracing::instrument(skip_all, fields(slug = ?slug, team_id = %id))]
pub async fn team(
    db: &Db,
    slug: &Slug,
    id: TeamId,
    asked: Option<Span>,
    today: NaiveDate,
) -> Result<TeamSeason, ServiceError> {
    // A read of its own: the page's handler holds no connection.
    let mut conn = db.read().await?;
    let conn: &mut Conn = &mut conn;
    let league = leagues::league_by_slug(conn, slug).await?;
    let row = team_of(conn, &league, id).await?;
    let team = crate::service::term::teams::view(conn, &row).await?;
    let standing = crate::service::views::standings::team_standing(conn, &league, id).await?;
    let eligibility = eligibility_in(conn, &league, &row, standing.as_slice()).await?;
    let span = asked.unwrap_or(Span::Around(monday_of(today)));
    let mut rows = in_span(conn, Whose::Team(id), span).await?;
    let weeks = week_links(conn, Whose::Team(id), span).await?;
    rows.retain(crate::service::views::summaries::listed);
    let matches =
        crate::service::views::summaries::summaries_of(conn, league.row.id, &rows).await?;
    Ok(TeamSeason {
        league,
        team,
        standing,
        span,
        weeks,
        matches,
        eligibility,
    })
}

/// Team `id` of `league` (not found when it is another league's).
async fn team_of(conn: &mut Conn, league: &League, id: TeamId) -> Result<TeamRow, ServiceError> {
    db_leagues::team(conn, id)
        .await?
        .filter(|t| t.league_id == league.row.id)
        .ok_or(ServiceError::NotFound)
}

/// The eligibility row of `team` judged from its row of the standings `table` (read by the
/// caller), its players and the admins' decisions.
async fn eligibility_in(
    conn: &mut Conn,
    league: &League,
    team: &TeamRow,
    table: &[Standing],
) -> Result<Option<EligibilityRow>, ServiceError> {
    let id = team.id;
    let Some(row) = table.iter().find(|s| s.team_id == id) else {
        return Ok(None);
    };
    let overrides = db_leagues::overrides(conn, league.row.id).await?;
    let players =
        crate::service::playoffs::player_eligibility::of_one_team(conn, league, id).await?;
    Ok(judge(
        league,
        std::slice::from_ref(team),
        &overrides,
        std::slice::from_ref(row),
        players,
    )
    .into_iter()
    .next())
}

/// A league and its playoff bracket, if it is drawn.
#[derive(Debug, Clone)]
pub struct LeagueBracket {
    pub league: League,
    pub bracket: Option<BracketView>,
}

#[tracing::instrument(skip_all, fields(slug = ?slug))]
pub async fn bracket(db: &Db, slug: &Slug) -> Result<LeagueBracket, ServiceError> {
    // A read of its own: the page's handler holds no connection.
    let mut conn = db.read().await?;
    let conn: &mut Conn = &mut conn;
    let league = leagues::league_by_slug(conn, slug).await?;
    let bracket = match playoffs::bracket_of(conn, &league.row.slug).await {
        Ok(view) => Some(view),
        Err(ServiceError::NotFound) => None,
        Err(e) => return Err(e),
    };
    Ok(LeagueBracket { league, bracket })
}
