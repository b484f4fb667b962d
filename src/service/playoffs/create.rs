//! Creating a bracket (and the admin's preview of it): the input checked, the eligible teams
//! seeded from the standings, the structure built and stored.

use crate::domain::Slug;
use serde::Deserialize;

use super::stored::{corrupt, load, sync};
use super::view::{BracketView, bracket_of, team_names, view_of};
use crate::db::leagues as db_leagues;
use crate::db::matches as db_matches;
use crate::db::playoffs::{self as db_playoffs, BracketMatchRow, NewBracket};
use crate::db::{Conn, Db};
use crate::domain::ErrorCode;
use crate::domain::{BracketId, DivisionId, LeagueId, MatchId, TeamId, Timestamp};
use crate::league::bracket::{self, Bracket, BracketError, BracketState, Format, GrandFinal};
use crate::league::divisions::{division_winners_first, winners_first_words};
use crate::league::standings::Standing;
use crate::service::notices::bracket as bracket_notices;
use crate::service::term::divisions::Divisions;
use crate::service::term::leagues::league_by_slug;
use crate::service::views::standings::standings;
use crate::service::{ServiceError, User, audit, require_admin};

/// `POST /api/v1/leagues/{slug}/playoffs`.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayoffsInput {
    /// `single_elimination` or `double_elimination`.
    pub format: String,
    /// How many teams of the standings go in (default: all active teams).
    #[serde(default)]
    pub teams: Option<usize>,
    /// Single elimination: a match for third place between the semi-final losers.
    #[serde(default)]
    pub third_place: Option<bool>,
    /// Double elimination: `none`, `simple` or `double` (default `double`: a reset match
    /// when the losers'-bracket team wins the first grand final).
    #[serde(default)]
    pub grand_final: Option<String>,
    /// Create the bracket although regular-season matches remain to be played, under
    /// `require_all_played` (audited); otherwise that is a 409 `season_unfinished`.
    #[serde(default)]
    pub force: Option<bool>,
    /// `overall`: seeds in overall standings order. `division_winners_first`: each
    /// division's winner first (in their overall order), then everyone else in overall
    /// order. Absent: the league's `settings.playoffs.division_winners_first` says which.
    #[serde(default)]
    pub seeding: Option<String>,
}

/// How the seeds are made from the standings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seeding {
    Overall,
    DivisionWinnersFirst,
    /// Not asked: the league's `division_winners_first`, where it has divisions.
    LeagueWinnersFirst,
}

impl Seeding {
    fn of(
        input: &PlayoffsInput,
        league: &crate::service::term::leagues::League,
    ) -> Result<Seeding, ServiceError> {
        match input.seeding.as_deref().map(str::trim) {
            None if league.settings.playoffs.division_winners_first => {
                Ok(Seeding::LeagueWinnersFirst)
            }
            None | Some("overall") => Ok(Seeding::Overall),
            Some("division_winners_first") => Ok(Seeding::DivisionWinnersFirst),
            Some(other) => Err(ServiceError::invalid(
                ErrorCode::InvalidDivision,
                "seeding",
                format!("the seeding is overall or division_winners_first, not \"{other}\""),
            )),
        }
    }
}

fn invalid(field: &str, message: impl Into<String>) -> ServiceError {
    ServiceError::invalid(ErrorCode::InvalidPlayoffs, field, message)
}

/// A bracket as it would be created: checked input, the seeds from the standings, the
/// structure. Shared by the preview and the creation.
struct Plan {
    format: Format,
    grand_final: GrandFinal,
    seeds: Vec<TeamId>,
    structure: Bracket,
    /// How the seeds were made from divisions, in words (`None`: the overall order).
    seeding_words: Option<String>,
}

async fn plan(
    conn: &mut Conn,
    league: &crate::service::term::leagues::League,
    input: &PlayoffsInput,
) -> Result<Plan, ServiceError> {
    let (format, grand_final, third_place) = shape(input)?;
    if db_playoffs::of_league(&mut *conn, league.row.id)
        .await?
        .is_some()
    {
        return Err(ServiceError::conflict(
            ErrorCode::BracketExists,
            "the league already has a playoff bracket",
        ));
    }
    let table = eligible_standings(conn, league).await?;
    let wanted = input.teams.unwrap_or(table.len());
    if wanted < bracket::MIN_TEAMS || wanted > table.len().min(bracket::MAX_TEAMS) {
        return Err(invalid(
            "teams",
            format!(
                "a bracket needs 2 to {} teams (the league has {} eligible)",
                table.len().min(bracket::MAX_TEAMS),
                table.len()
            ),
        ));
    }
    let overall = |table: &[Standing]| {
        let seeds = bracket::seed_teams(table, Some(wanted))
            .into_iter()
            .map(TeamId)
            .collect();
        (seeds, None)
    };
    let (seeds, seeding_words) = match Seeding::of(input, league)? {
        Seeding::Overall => overall(&table),
        Seeding::DivisionWinnersFirst => winners_first(conn, league, &table, wanted).await?,
        Seeding::LeagueWinnersFirst => {
            match Divisions::of_league(conn, league.row.id)
                .await?
                .list
                .is_empty()
            {
                true => overall(&table),
                false => winners_first(conn, league, &table, wanted).await?,
            }
        }
    };
    let structure = match format {
        Format::SingleElimination => bracket::single_elimination(seeds.len(), third_place),
        Format::DoubleElimination => bracket::double_elimination(seeds.len(), grand_final),
    }
    .map_err(|e: BracketError| invalid("teams", e.to_string()))?;
    Ok(Plan {
        format,
        grand_final,
        seeds,
        structure,
        seeding_words,
    })
}

/// The seeds with each division's winner first, and the words saying so (422
/// `invalid_division` on `seeding` when the league has no divisions).
async fn winners_first(
    conn: &mut Conn,
    league: &crate::service::term::leagues::League,
    table: &[Standing],
    wanted: usize,
) -> Result<(Vec<TeamId>, Option<String>), ServiceError> {
    let divisions = Divisions::of_league(conn, league.row.id).await?;
    if divisions.list.is_empty() {
        return Err(ServiceError::invalid(
            ErrorCode::InvalidDivision,
            "seeding",
            "the league has no divisions: seed by the overall standings",
        ));
    }
    let overall: Vec<(TeamId, Option<DivisionId>)> = bracket::seed_teams(table, None)
        .into_iter()
        .map(|id| (TeamId(id), divisions.of(TeamId(id))))
        .collect();
    let seeding = division_winners_first(&overall, wanted);
    let names: Vec<&str> = seeding
        .winners_of
        .iter()
        .map(|&d| divisions.name(d))
        .collect();
    let words = winners_first_words(&names, seeding.seeds.len());
    Ok((seeding.seeds, Some(words)))
}

/// The bracket's format, grand final and third-place match as the input asks, checked
/// against each other.
fn shape(input: &PlayoffsInput) -> Result<(Format, GrandFinal, bool), ServiceError> {
    let format = Format::parse(&input.format).ok_or_else(|| {
        invalid(
            "format",
            format!(
                "unknown format \"{}\"; use single_elimination or double_elimination",
                input.format
            ),
        )
    })?;
    let grand_final = match (format, input.grand_final.as_deref().map(str::trim)) {
        (Format::SingleElimination, None | Some("none")) => GrandFinal::None,
        (Format::SingleElimination, Some(_)) => {
            return Err(invalid(
                "grand_final",
                "a grand final is for double elimination",
            ));
        }
        (Format::DoubleElimination, None) => GrandFinal::Double,
        (Format::DoubleElimination, Some(g)) => GrandFinal::parse(g).ok_or_else(|| {
            invalid(
                "grand_final",
                format!("the grand final is none, simple or double, not \"{g}\""),
            )
        })?,
    };
    let third_place = input.third_place.unwrap_or(false);
    if third_place && format == Format::DoubleElimination {
        return Err(invalid(
            "third_place",
            "a third-place match is for single elimination",
        ));
    }
    Ok((format, grand_final, third_place))
}

/// The standings of the teams that may play in the playoffs.
async fn eligible_standings(
    conn: &mut Conn,
    league: &crate::service::term::leagues::League,
) -> Result<Vec<Standing>, ServiceError> {
    // Only eligible teams are seeded (withdrawn teams never are); the standings once, for
    // the verdicts and the seeds.
    let teams = db_leagues::teams(&mut *conn, league.row.id).await?;
    let overrides = db_leagues::overrides(&mut *conn, league.row.id).await?;
    let all = standings(&mut *conn, league).await?;
    let eligible: Vec<TeamId> = crate::service::playoffs::eligibility::judge(
        league,
        &teams,
        &overrides,
        &all,
        Default::default(),
    )
    .into_iter()
    .filter(|row| row.eligible)
    .map(|row| row.team_id)
    .collect();
    Ok(all
        .into_iter()
        .filter(|s| eligible.contains(&s.team_id))
        .collect())
}

/// The league and the bracket it would get, for the admin (shared by the preview and the
/// creation).
async fn checked_plan(
    conn: &mut Conn,
    user: &User,
    slug: &Slug,
    input: &PlayoffsInput,
) -> Result<(crate::service::term::leagues::League, Plan), ServiceError> {
    require_admin(user)?;
    let league = league_by_slug(&mut *conn, slug).await?;
    let plan = plan(conn, &league, input).await?;
    Ok((league, plan))
}

/// The bracket that [`create_playoffs`] would create now, without saving anything (the
/// admin's preview): seeds from the standings, byes decided, no real matches.
pub async fn preview_playoffs(
    db: &Db,
    user: &User,
    slug: &Slug,
    input: &PlayoffsInput,
) -> Result<BracketView, ServiceError> {
    let mut conn = db.read().await?;
    let (league, plan) = checked_plan(&mut conn, user, slug, input).await?;
    let names = team_names(&mut conn, league.row.id).await?;
    let state = BracketState::new(&plan.structure);
    let real = vec![None; plan.structure.matches.len()];
    let view = view_of(
        &league.row.slug,
        &plan.structure,
        &state,
        &plan.seeds,
        &real,
        &names,
    );
    Ok(BracketView {
        seeding: plan.seeding_words,
        ..view
    })
}

/// Creates the league's bracket from its regular-season standings (admin), seeding the
/// eligible teams. Under `require_all_played` it waits for the regular season unless
/// forced (409 `season_unfinished`).
pub async fn create_playoffs(
    db: &Db,
    user: &User,
    slug: &Slug,
    input: &PlayoffsInput,
) -> Result<BracketView, ServiceError> {
    let now = db.clock().now();
    let mut tx = db.write().await?;
    let (league, plan) = checked_plan(&mut tx, user, slug, input).await?;
    // The season must be over first, unless the league says otherwise or the admin forces it.
    let remaining = db_matches::count_unplayed_regular(&mut tx, league.row.id).await?;
    let forced = remaining > 0 && league.settings.eligibility.require_all_played;
    if forced && input.force != Some(true) {
        let named = unplayed_regular(&mut tx, league.row.id)
            .await?
            .into_iter()
            .map(|m| m.words)
            .collect::<Vec<_>>()
            .join("; ");
        return Err(ServiceError::conflict(
            ErrorCode::SeasonUnfinished,
            format!(
                "{remaining} regular-season match{} still to be played (scheduled, postponed or in progress): {named}. Finish the season first, or create the playoffs anyway with \"force\": true",
                if remaining == 1 { " is" } else { "es are" }
            ),
        ));
    }
    let bracket_id = store_bracket(&mut tx, league.row.id, &plan, now).await?;
    let row = db_playoffs::by_id(&mut tx, bracket_id)
        .await?
        .ok_or_else(|| corrupt("just created"))?;
    let loaded = load(&mut tx, row).await?;
    sync(&mut tx, &loaded).await?;
    let after = created_words(&plan);
    let forced_reason = format!(
        "forced with {remaining} regular-season match{} unplayed",
        if remaining == 1 { "" } else { "es" }
    );
    let mut change =
        audit::Change::new("create_playoffs", audit::Subject::League(league.row.id)).after(&after);
    if forced {
        change = change.reason(&forced_reason);
    }
    audit::record(&mut tx, user, now, change).await?;
    let queue_now = crate::service::night::calls::Now::of(db);
    crate::service::night::calls::refill(&mut tx, league.row.id, queue_now).await?;
    let view = bracket_of(&mut tx, &league.row.slug).await?;
    if let Some(public_url) = db.notices() {
        let bracket = (bracket_id, &league.row);
        bracket_notices::tell_bracket_created(
            &mut tx,
            public_url,
            now,
            bracket,
            &plan.seeds,
            &view,
        )
        .await?;
    }
    tx.commit().await?;
    Ok(view)
}

/// Stores the planned bracket: its row, the seeds in order, and its matches (no real
/// match yet: [`sync`] creates those).
async fn store_bracket(
    conn: &mut Conn,
    league_id: LeagueId,
    plan: &Plan,
    now: Timestamp,
) -> Result<BracketId, ServiceError> {
    let bracket_id = db_playoffs::insert(
        conn,
        &NewBracket {
            league_id,
            format: plan.format,
            teams: plan.seeds.len() as i64,
            third_place: plan.structure.third_place,
            grand_final: plan.grand_final,
            now,
            seeding_words: plan.seeding_words.clone(),
        },
    )
    .await?;
    for (i, team) in plan.seeds.iter().enumerate() {
        db_playoffs::insert_seed(conn, bracket_id, i as i64 + 1, *team).await?;
    }
    for m in &plan.structure.matches {
        db_playoffs::insert_match(
            conn,
            &BracketMatchRow {
                bracket_id,
                match_index: m.index as i64,
                section: m.bracket,
                round: m.round as i64,
                position: m.position as i64,
                seed_a: None,
                seed_b: None,
                match_id: None,
            },
        )
        .await?;
    }
    Ok(bracket_id)
}

/// The created bracket as the audit log tells it.
fn created_words(plan: &Plan) -> String {
    format!(
        "{} of {} teams, {}",
        plan.format.as_str(),
        plan.seeds.len(),
        if plan.format == Format::DoubleElimination {
            format!("grand final {}", plan.grand_final.as_str())
        } else {
            format!("third place {}", plan.structure.third_place)
        }
    )
}

/// A regular-season match still to be played, named in words: "M12 · Aces v Kings,
/// postponed — not played".
#[derive(Debug, Clone)]
pub struct Unplayed {
    pub id: MatchId,
    pub words: String,
}

/// The league's regular-season matches still to be played, in schedule order (they hold
/// back the playoffs under `require_all_played`).
pub async fn unplayed_regular(
    conn: &mut Conn,
    league_id: LeagueId,
) -> Result<Vec<Unplayed>, ServiceError> {
    use crate::domain::MatchStatus;
    let names: std::collections::HashMap<TeamId, String> = db_leagues::teams(conn, league_id)
        .await?
        .into_iter()
        .map(|t| (t.id, t.name.to_string()))
        .collect();
    let name = |id: TeamId| names.get(&id).cloned().unwrap_or_else(|| format!("#{id}"));
    Ok(db_matches::of_league(conn, league_id)
        .await?
        .into_iter()
        .filter(|m| {
            m.stage == crate::rules::Stage::Regular
                && matches!(
                    m.status,
                    MatchStatus::Scheduled | MatchStatus::Postponed | MatchStatus::InProgress
                )
        })
        .map(|m| Unplayed {
            id: m.id,
            words: format!(
                "M{} · {} v {}, {} — not played",
                m.id,
                name(m.team_a),
                name(m.team_b),
                m.status.words()
            ),
        })
        .collect())
}
