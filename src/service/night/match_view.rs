//! A match as the API and the pages show it: every hand replayed through the engine from
//! the stored revisions, with its breakdown, the totals and the clock.

use crate::db::Conn;
use crate::domain::Slug;
use serde::{Deserialize, Serialize};

use crate::db::Db;
use crate::db::hands::{self as db_hands, HandRow};
use crate::db::leagues as db_leagues;
use crate::db::lineups::{self as db_lineups, LineupRow};
use crate::db::match_write::{self, MatchNames};
use crate::db::matches::{self as db_matches, MatchRow};
use crate::domain::{
    FieldError, ForfeitSide, GameStatus, LocalTime, MatchId, MatchStatus, PlayerId, TeamId,
    Timestamp,
};
use crate::rules::calculator::ScoredHandOut;
use crate::rules::{Game, HandInput, Rules, ScoredHand, Stage, Team, TeamTotal, WinReason};
use crate::service::term::leagues::League;
use crate::service::{ServiceError, TeamRef};

/// A recorded hand: what was entered, its breakdown, and which revision it is.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct HandView {
    #[serde(flatten)]
    pub scored: ScoredHandOut,
    /// The hand as entered (docs/api.md §4.2).
    pub hand: HandInput,
    pub revision: i64,
    pub recorded_at: Timestamp,
    /// Why it was corrected (revisions after the first).
    pub reason: Option<String>,
}

/// How a match ended when it is not told by its status alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchResult {
    /// The team told the office in time that it could not play.
    Default,
}

/// A match as the API answers it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct MatchView {
    pub id: MatchId,
    pub league: String,
    pub stage: Stage,
    pub round: Option<i64>,
    /// A bracket match's label, "M5 · Winners semi-final" (docs/api.md §18.5); null for a
    /// regular-season match.
    pub label: Option<String>,
    pub table: Option<String>,
    pub scheduled_at: Option<LocalTime>,
    pub status: MatchStatus,
    /// Why the coordinator postponed or cancelled the match (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_note: Option<String>,
    pub started_at: Option<Timestamp>,
    /// When the queue called the match to its `table` (docs/api.md §21.1); absent when it
    /// was not called.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub called_at: Option<Timestamp>,
    /// When time was called by a supervisor (if it was).
    pub time_called_at: Option<Timestamp>,
    /// When the time limit runs out (started + the rules' limit).
    pub ends_at: Option<Timestamp>,
    pub team_a: TeamRef,
    pub team_b: TeamRef,
    /// The rules it is played under: frozen at start; before that, the league's for its stage.
    pub rules: Rules,
    pub version: i64,
    pub hands: Vec<HandView>,
    pub a: TeamTotal,
    pub b: TeamTotal,
    pub game_status: GameStatus,
    pub winner: Option<Team>,
    pub reason: Option<WinReason>,
    /// `a`, `b` or `both` when the match was forfeited.
    pub forfeit: Option<ForfeitSide>,
    /// `default` when the forfeiting team defaulted in time (a loss, never a forfeit:
    /// docs/api.md §20.4); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<MatchResult>,
    /// When each team checked in at the table (docs/api.md §6.9).
    pub checked_in: CheckedIn,
    /// Who sits at the table for the next hand (docs/api.md, "Lineups").
    pub lineup: Lineup,
    /// Both teams' sportsmanship ratings; present only when the league rates sportsmanship.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sportsmanship: Option<Ratings>,
    /// The username of the supervisor the match is given (`null`: none; any supervisor of
    /// its league may run it).
    pub supervisor: Option<String>,
}

/// When each team checked in (`null`: not yet).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct CheckedIn {
    pub a: Option<Timestamp>,
    pub b: Option<Timestamp>,
}

/// A match's sportsmanship ratings (`null`: not rated yet).
// (Deserialize: an idempotency key keeps them as first answered.)
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Ratings {
    pub a: Option<u32>,
    pub b: Option<u32>,
    /// The caller's own note, in the answer to their rating; `null` in every read (notes are
    /// for their author and the admins: the console and the admin pages).
    pub note: Option<String>,
    /// The league requires ratings, the match is over and a team is not rated yet: the
    /// console and the admin dashboard say "rating missing".
    pub missing: bool,
}

impl MatchView {
    pub fn is_over(&self) -> bool {
        self.status.is_over()
    }

    /// Whose deal it is for the next hand (seat 1–4) and who bids first: the deal moves
    /// left every hand (misdeals included: a new deal by the next dealer), seat 1 deals first.
    pub fn next_dealer(&self) -> (u8, u8) {
        let dealer = (self.hands.len() % 4) as u8 + 1;
        (dealer, dealer % 4 + 1)
    }
}

pub(in crate::service) fn rules_of(m: &MatchRow, league: &League) -> Result<Rules, ServiceError> {
    Ok(frozen_rules(m)?.unwrap_or_else(|| league.rules_for(m.stage).clone()))
}

/// The rules `m` is played under, reading its league only when they are not frozen yet (a
/// started match's are: the hand path then reads no league).
pub(in crate::service) async fn match_rules(
    conn: &mut Conn,
    m: &MatchRow,
) -> Result<Rules, ServiceError> {
    match frozen_rules(m)? {
        Some(rules) => Ok(rules),
        None => rules_of(m, &crate::service::night::access::league_of(conn, m).await?),
    }
}

/// The rules frozen in `m` when it started (`None` before).
fn frozen_rules(m: &MatchRow) -> Result<Option<Rules>, ServiceError> {
    m.rules
        .as_deref()
        .map(|frozen| {
            serde_json::from_str(frozen).map_err(|e| ServiceError::corrupt("frozen rules", e))
        })
        .transpose()
}

pub(in crate::service) fn stored_hand(row: &HandRow) -> Result<HandInput, ServiceError> {
    serde_json::from_str(&row.hand).map_err(|e| ServiceError::corrupt("stored hand", e))
}

/// The current revision of every hand of a match, as stored and as API hands.
pub(in crate::service) async fn stored_hands(
    conn: &mut Conn,
    id: MatchId,
) -> Result<(Vec<HandRow>, Vec<HandInput>), ServiceError> {
    let rows = db_hands::current_hands(conn, id).await?;
    let inputs = rows
        .iter()
        .map(stored_hand)
        .collect::<Result<Vec<_>, _>>()?;
    Ok((rows, inputs))
}

/// The match as it is now, inside the transaction that changed it.
pub(in crate::service) async fn reload(
    conn: &mut Conn,
    id: MatchId,
    league: &League,
) -> Result<MatchView, ServiceError> {
    let m = db_matches::by_id(conn, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    build_view(conn, &m, league).await
}

/// Replays hands with the rules: every hand's breakdown and the final game.
pub(in crate::service) fn replay(
    rules: &Rules,
    stage: Stage,
    hands: &[HandInput],
) -> Result<(Game, Vec<ScoredHand>), ServiceError> {
    let mut game = Game::new(rules.clone(), stage);
    let mut scored = Vec::with_capacity(hands.len());
    for (i, input) in hands.iter().enumerate() {
        let hand = input.parse(i + 1).map_err(FieldError::from)?;
        scored.push(game.play(&hand).map_err(FieldError::from)?);
    }
    Ok((game, scored))
}

/// Loads a match with everything the API shows.
pub async fn load(conn: &mut Conn, id: MatchId) -> Result<(MatchView, League), ServiceError> {
    let m = db_matches::by_id(conn, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let league_row = db_leagues::by_id(conn, m.league_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let league = League::from_row(league_row)?;
    let view = build_view(conn, &m, &league).await?;
    Ok((view, league))
}

pub(in crate::service) async fn build_view(
    conn: &mut Conn,
    m: &MatchRow,
    league: &League,
) -> Result<MatchView, ServiceError> {
    let label = crate::service::playoffs::label_of(conn, m.id, m.stage).await?;
    view_labelled(conn, m, league, label).await
}

/// [`build_view`] with the match's label known (a list reads its league's labels at once).
async fn view_labelled(
    conn: &mut Conn,
    m: &MatchRow,
    league: &League,
    label: Option<String>,
) -> Result<MatchView, ServiceError> {
    let rules = rules_of(m, league)?;
    let (rows, inputs) = stored_hands(conn, m.id).await?;
    let (_, scored) = replay(&rules, m.stage, &inputs)?;
    let names = match_write::names(conn, m).await?;
    let lineups = db_lineups::of_match(conn, m.id).await?;
    Ok(view_of(
        m,
        names,
        league,
        Replayed {
            rules,
            rows,
            inputs,
            scored,
            lineups,
            label,
        },
    ))
}

/// A match's current hands replayed under its rules, and who played them.
pub(in crate::service) struct Replayed {
    pub rules: Rules,
    pub rows: Vec<HandRow>,
    pub inputs: Vec<HandInput>,
    pub scored: Vec<ScoredHand>,
    pub lineups: Vec<LineupRow>,
    /// The bracket match's label ([`crate::service::playoffs::label_of`]).
    pub label: Option<String>,
}

/// The match as the API shows it, from its row, its teams' names and its replayed hands: a
/// write builds its answer from what it already holds instead of reading it again.
pub(in crate::service) fn view_of(
    m: &MatchRow,
    names: MatchNames,
    league: &League,
    played: Replayed,
) -> MatchView {
    let team = |name: Option<String>, id: TeamId| TeamRef {
        id,
        name: name.unwrap_or_else(|| format!("team {id}")),
    };
    let lineup = Lineup::at_hand(&played.lineups, played.inputs.len() as i64 + 1);
    let hands = played
        .scored
        .iter()
        .zip(played.rows.into_iter().zip(played.inputs))
        .map(|(s, (row, input))| HandView {
            scored: ScoredHandOut::from(s),
            hand: input,
            revision: row.revision,
            recorded_at: row.recorded_at,
            reason: row.reason,
        })
        .collect();
    let (rules, label) = (played.rules, played.label);
    let ends_at = ends_at(m, &rules);
    MatchView {
        id: m.id,
        league: league.row.slug.to_string(),
        stage: m.stage,
        round: m.round,
        label,
        table: m.table_name.clone(),
        scheduled_at: m.scheduled_at,
        status: m.status,
        status_note: m.status_note.clone(),
        started_at: m.started_at,
        called_at: m.called_at,
        time_called_at: m.time_called_at,
        ends_at,
        team_a: team(names.a, m.team_a),
        team_b: team(names.b, m.team_b),
        rules,
        version: m.version,
        hands,
        a: TeamTotal {
            score: m.score_a as i32,
            bags: m.bags_a as u32,
        },
        b: TeamTotal {
            score: m.score_b as i32,
            bags: m.bags_b as u32,
        },
        game_status: m.game_status,
        winner: m.winner,
        reason: m.reason,
        forfeit: m.forfeit,
        checked_in: CheckedIn {
            a: m.checked_in_a,
            b: m.checked_in_b,
        },
        lineup,
        sportsmanship: ratings_of(m, league),
        supervisor: names.supervisor,
        result: m.defaulted.then_some(MatchResult::Default),
    }
}

/// The ratings of `m`, if its league rates sportsmanship.
fn ratings_of(m: &MatchRow, league: &League) -> Option<Ratings> {
    let scale = league.settings.sportsmanship.as_ref()?;
    let rating = |r: Option<i64>| r.and_then(|r| u32::try_from(r).ok());
    let (a, b) = (rating(m.rating_a), rating(m.rating_b));
    Some(Ratings {
        a,
        b,
        note: None,
        missing: scale.required && m.status.is_result() && (a.is_none() || b.is_none()),
    })
}

/// When the match's time runs out: its start plus the rules' time limit, if it has one.
pub(crate) fn ends_at(m: &MatchRow, rules: &Rules) -> Option<Timestamp> {
    let (start, limit) = (m.started_at?, rules.time_limit_minutes?);
    Some(start.plus_minutes(i64::from(limit)))
}

/// A revision of a hand, for the correction history.
pub async fn history(conn: &mut Conn, id: MatchId) -> Result<Vec<HandRow>, ServiceError> {
    Ok(db_hands::all_revisions(conn, id).await?)
}

/// A match as the API shows it to anyone, with its hands and totals.
#[tracing::instrument(skip_all, fields(match_id = %id))]
pub async fn view(db: &Db, id: MatchId) -> Result<MatchView, ServiceError> {
    Ok(with_league(db, id).await?.0)
}

/// A match as the API shows it, with its league (the match page and its CSV), read in one
/// snapshot: its totals and its hands from the same commit, even while a hand is recorded
/// between the queries (separate reads once showed three hands with two hands' totals).
pub async fn with_league(db: &Db, id: MatchId) -> Result<(MatchView, League), ServiceError> {
    let mut snapshot = db.snapshot().await?;
    load(&mut snapshot, id).await
}

/// The matches `ids` as the API shows them, read on the writer's connection so that a write
/// just committed is seen.
pub async fn views_after_write(db: &Db, ids: &[MatchId]) -> Result<Vec<MatchView>, ServiceError> {
    let mut conn = db.read_latest().await?;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        out.push(load(&mut conn, *id).await?.0);
    }
    Ok(out)
}

/// Every match of team `team` as the API shows it, in schedule order (a captain's list).
pub async fn team_matches(conn: &mut Conn, team: TeamId) -> Result<Vec<MatchView>, ServiceError> {
    let rows = db_matches::of_team(conn, team).await?;
    let Some(first) = rows.first() else {
        return Ok(Vec::new());
    };
    let row = db_leagues::by_id(conn, first.league_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let league = League::from_row(row)?;
    let mut labels = crate::service::playoffs::labels_of_league(conn, league.row.id).await?;
    let mut out = Vec::with_capacity(rows.len());
    for m in &rows {
        let label = labels.remove(&m.id);
        out.push(view_labelled(conn, m, &league, label).await?);
    }
    Ok(out)
}

/// How many matches a page of [`league_matches`] may ask for, and how many it gives when not
/// asked: a 64-team season's matches with their hands are over 20 MB in one answer.
pub const PAGE_LIMITS: std::ops::RangeInclusive<i64> = 1..=500;
pub const DEFAULT_PAGE: i64 = 200;

/// A page of a league's matches; `next` is the `after` of the next page, `None` on the last.
#[derive(Debug)]
pub struct MatchPage {
    pub matches: Vec<MatchView>,
    pub next: Option<MatchId>,
}

/// The matches of the league `slug` (404 for no such league) that come after the match
/// `after` in schedule order (from the first without it), at most `limit` ([`PAGE_LIMITS`],
/// [`DEFAULT_PAGE`] when `None`), as the API shows them (with their hands; cancelled ones
/// too). A limit out of range, or an `after` that is no match of the league, is a 422.
#[tracing::instrument(skip_all, fields(slug = ?slug))]
pub async fn league_matches(
    db: &Db,
    slug: &Slug,
    after: Option<MatchId>,
    limit: Option<i64>,
) -> Result<MatchPage, ServiceError> {
    let limit = page_limit(limit)?;
    // One snapshot, as for one match ([`with_league`]).
    let mut conn = db.snapshot().await?;
    let league = crate::service::term::leagues::league_by_slug(&mut conn, slug).await?;
    // Only the rows, cheap: the hands are read for the page's matches alone.
    let rows = db_matches::of_league(&mut conn, league.row.id).await?;
    let start = match after {
        None => 0,
        // A match that is not the league's is not found (404), as a list filter naming
        // nothing is (the query itself is well formed).
        Some(id) => {
            1 + rows
                .iter()
                .position(|m| m.id == id)
                .ok_or(ServiceError::NotFound)?
        }
    };
    let page = rows.get(start..).unwrap_or_default();
    let page = &page[..page.len().min(limit)];
    let more = start + page.len() < rows.len();
    let next = if more {
        page.last().map(|m| m.id)
    } else {
        None
    };
    let mut labels = crate::service::playoffs::labels_of_league(&mut conn, league.row.id).await?;
    let mut matches = Vec::with_capacity(page.len());
    for m in page {
        let label = labels.remove(&m.id);
        matches.push(view_labelled(&mut conn, m, &league, label).await?);
    }
    Ok(MatchPage { matches, next })
}

/// The page size asked for, checked.
fn page_limit(limit: Option<i64>) -> Result<usize, ServiceError> {
    let limit = limit.unwrap_or(DEFAULT_PAGE);
    if !PAGE_LIMITS.contains(&limit) {
        let (low, high) = (PAGE_LIMITS.start(), PAGE_LIMITS.end());
        return Err(invalid_page(
            "limit",
            format!("limit is {low} to {high} matches a page"),
        ));
    }
    usize::try_from(limit).map_err(|_| invalid_page("limit", "limit is a count".into()))
}

fn invalid_page(field: &str, why: String) -> ServiceError {
    ServiceError::invalid(crate::rules::ErrorCode::InvalidRequest, field, why)
}

/// One seat of a lineup: the player's id and name (never more: public reads show it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Seat {
    pub id: PlayerId,
    pub name: String,
}

/// Each team's lineup for the next hand (`null`: not set).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Lineup {
    pub a: Option<[Seat; 2]>,
    pub b: Option<[Seat; 2]>,
}

impl Lineup {
    /// The lineups in force at hand `hand` (1 is the first): each team's row with the
    /// greatest `from_hand` up to it.
    pub fn at_hand(rows: &[LineupRow], hand: i64) -> Lineup {
        let of = |team: Team| {
            rows.iter()
                .filter(|r| r.team() == team && r.from_hand <= hand)
                .max_by_key(|r| r.from_hand)
                .map(LineupRow::named_seats)
        };
        Lineup {
            a: of(Team::A),
            b: of(Team::B),
        }
    }

    pub fn of(&self, team: Team) -> Option<&[Seat; 2]> {
        match team {
            Team::A => self.a.as_ref(),
            Team::B => self.b.as_ref(),
        }
    }
}

impl LineupRow {
    fn named_seats(&self) -> [Seat; 2] {
        [
            Seat {
                id: self.seat1,
                name: self.name1.to_string(),
            },
            Seat {
                id: self.seat2,
                name: self.name2.to_string(),
            },
        ]
    }
}
