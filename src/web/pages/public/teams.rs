//! `/leagues/{slug}/teams` (every team with its players) and `/leagues/{slug}/teams/{id}`
//! (a team's record, what it needs for the playoffs, and its matches: the recent and
//! upcoming ones, `?week=DATE` a week's, `?week=all` the whole season's, paged as the
//! schedule is).

use crate::domain::Slug;
use actix_web::{HttpResponse, get, web};
use askama::Template;

use crate::domain::{BracketMatchStatus, MatchId};
use crate::league::race::{Race, RaceStatus};
use crate::service::ServiceError;
use crate::service::playoffs::{BracketMatchView, BracketView};

use super::schedule::{WeekLink, WeekQuery, shown_words, week_links};
use super::{MatchLine, StandingRow, line, page, standing_row};
use crate::domain::words::{ordinal, plural};
use crate::domain::{MatchStatus, PlayerId, TeamId};
use crate::league::settings::{Settings, Sportsmanship};
use crate::league::standings::{Ratings, Standing};
use crate::rules::Team;
use crate::service::TeamRef;
use crate::service::playoffs::eligibility::{EligibilityRow, Override};
use crate::service::term::leagues::League;
use crate::service::term::teams::TeamView;
use crate::service::views::player_stats::{self, PlayerStats};
use crate::service::views::public_views;
use crate::service::views::summaries::MatchSummary;
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::Viewer;
use crate::web::view::nav::Nav;

#[derive(Template)]
#[template(path = "public/teams.html")]
struct TeamsPage {
    nav: Nav,
    slug: String,
    name: String,
    teams: Vec<TeamView>,
}

#[get("/leagues/{slug}/teams")]
pub(super) async fn teams_page(
    state: web::Data<AppState>,
    who: Viewer,
    slug: web::Path<Slug>,
) -> Result<HttpResponse, PageError> {
    let view = public_views::teams(&state.db, &slug).await?;
    let body = TeamsPage {
        nav: who.nav(),
        slug: view.league.row.slug.to_string(),
        name: view.league.row.name,
        teams: view.teams,
    }
    .render()?;
    Ok(page(&who, body))
}

/// A match from one team's side.
pub struct TeamMatch {
    pub line: MatchLine,
    pub opponent: TeamRef,
    /// "W", "L", "T" or empty while not finished.
    pub result: &'static str,
    pub own: String,
    pub theirs: String,
}

impl TeamMatch {
    /// Match `m` as team `team` played it.
    fn of(m: &MatchSummary, team: TeamId) -> TeamMatch {
        let side = if m.team_a.id == team {
            Team::A
        } else {
            Team::B
        };
        let l = line(m);
        let (own, theirs, opponent) = match side {
            Team::A => (l.score_a.clone(), l.score_b.clone(), m.team_b.clone()),
            Team::B => (l.score_b.clone(), l.score_a.clone(), m.team_a.clone()),
        };
        let result = match (m.status, m.winner) {
            (MatchStatus::Complete | MatchStatus::Forfeit, Some(w)) if w == side => "W",
            (MatchStatus::Complete | MatchStatus::Forfeit, Some(_)) => "L",
            (MatchStatus::Forfeit, None) => "L",
            (MatchStatus::Complete, None) => "T",
            _ => "",
        };
        TeamMatch {
            line: l,
            opponent,
            result,
            own,
            theirs,
        }
    }
}

/// "What does my team need?": a captain's weekly question about the playoffs, answered in
/// plain words from the team's eligibility row and record.
pub struct Needs {
    /// Withdrawn or dropped: why, in a sentence (then there is no verdict).
    pub out: Option<String>,
    /// Whether the team may enter the playoffs as things stand (an admin's decision wins).
    pub eligible: bool,
    /// The verdict in a sentence.
    pub verdict: String,
    /// The admin's reason, when an admin decided over the rules.
    pub decision: Option<String>,
    /// What leads the failing rules ("What keeps it out:").
    pub reasons_lead: &'static str,
    /// Every playoff rule the team fails, in words.
    pub reasons: Vec<String>,
    /// What is at risk, a line per rule ("one more forfeit and you are out of the playoffs").
    pub at_risk: Vec<String>,
    /// "Nothing at risk: …" when the league has rules and none is at risk; or that the
    /// league has none.
    pub calm: Option<String>,
    /// The record the rules look at: forfeits, sportsmanship, win percentage.
    pub facts: Vec<Fact>,
    /// What each player who may not play in the playoffs yet needs, and the coordinator's
    /// decisions on players ("Cy Park needs 1 more regular-season match to play in the
    /// playoffs"); a team's own verdict does not depend on them.
    pub players: Vec<String>,
}

/// A term of the team's record and its value in words.
pub struct Fact {
    pub id: &'static str,
    pub term: &'static str,
    pub value: String,
}

impl Needs {
    fn of(
        league: &League,
        team: &TeamView,
        standing: Option<&Standing>,
        row: Option<&EligibilityRow>,
    ) -> Needs {
        let settings = &league.settings;
        let mut needs = Needs {
            out: None,
            eligible: row.is_none_or(|r| r.eligible),
            verdict: String::new(),
            decision: None,
            reasons_lead: "What keeps it out:",
            reasons: row.map(|r| r.reasons.clone()).unwrap_or_default(),
            at_risk: row.map(|r| r.at_risk.clone()).unwrap_or_default(),
            calm: None,
            facts: facts(settings, standing),
            players: row.map(player_lines).unwrap_or_default(),
        };
        if team.withdrawn {
            needs.out = Some(out_of_league(team));
            needs.eligible = false;
            needs.reasons.clear();
            needs.at_risk.clear();
            return needs;
        }
        needs.judge(team.name.as_str(), row.and_then(|r| r.decision.as_ref()));
        if !has_playoff_rules(settings) && needs.decision.is_none() {
            needs.calm = Some(
                "This league has no playoff rules on forfeits, sportsmanship or win percentage: every team still in the league may enter.".to_string(),
            );
        } else if needs.eligible && needs.reasons.is_empty() && needs.at_risk.is_empty() {
            let ratings = standing.map_or(Ratings::default(), |s| s.ratings);
            needs.calm = Some(nothing_at_risk(settings, ratings));
        }
        needs
    }

    /// The verdict: an admin's `decision`, or what the rules say.
    fn judge(&mut self, name: &str, decision: Option<&Override>) {
        match decision {
            Some(d) => {
                self.verdict = format!(
                    "The league coordinator has decided that {name} {} enter the playoffs, whatever the rules say.",
                    if d.eligible { "may" } else { "may not" }
                );
                self.decision = Some(d.reason.clone());
                self.reasons_lead = "By the rules alone, what would keep it out:";
            }
            None if self.eligible => {
                self.verdict = format!("As things stand, {name} is eligible for the playoffs.");
            }
            None => {
                self.verdict = format!("As things stand, {name} is not eligible for the playoffs.");
            }
        }
    }
}

/// A line per player who needs more matches for the playoffs, or was let in by the
/// coordinator.
fn player_lines(row: &EligibilityRow) -> Vec<String> {
    row.players
        .iter()
        .filter_map(|p| match (&p.needs, &p.decision) {
            (Some(needs), _) => Some(format!("{needs}.")),
            (None, Some(d)) => Some(format!(
                "{} may play in the playoffs by the coordinator's decision: {}",
                p.name, d.reason
            )),
            (None, None) => None,
        })
        .collect()
}

/// Why a withdrawn or dropped team is out, in a sentence.
fn out_of_league(team: &TeamView) -> String {
    let name = &team.name;
    match &team.dropped_reason {
        Some(why) => format!(
            "{name} was {why}: it is out of the league and cannot enter the playoffs. Its remaining matches are cancelled; its results stay in the standings."
        ),
        None => format!(
            "{name} has withdrawn from the league and cannot enter the playoffs. Its remaining matches are cancelled; its results stay in the standings."
        ),
    }
}

/// Whether the league has any rule that can keep a team out of the playoffs.
fn has_playoff_rules(settings: &Settings) -> bool {
    let rules = &settings.eligibility;
    rules.min_sportsmanship.is_some()
        || rules.max_forfeits.is_some()
        || rules.min_win_pct.is_some()
        || settings.forfeit.drop_after.is_some()
}

/// The record the league's rules look at: forfeits always, sportsmanship and win percentage
/// when the league has them.
fn facts(settings: &Settings, standing: Option<&Standing>) -> Vec<Fact> {
    let forfeits = standing.map_or(0, |s| s.forfeits);
    let mut facts = vec![forfeits_fact(settings, forfeits)];
    if let Some(scale) = &settings.sportsmanship {
        facts.push(sportsmanship_fact(settings, scale, standing));
    }
    if let Some(min) = settings.eligibility.min_win_pct {
        let pct = standing.map_or(0.0, |s| s.win_pct);
        facts.push(Fact {
            id: "team-win-pct",
            term: "Win percentage",
            value: format!("{pct:.3}; the playoffs need at least {min:.3}"),
        });
    }
    facts
}

/// The team's forfeits, with the limits the league sets on them.
fn forfeits_fact(settings: &Settings, forfeits: u32) -> Fact {
    let mut limits = Vec::new();
    if let Some(max) = settings.eligibility.max_forfeits {
        limits.push(match max {
            0 => "a playoff team may have none".to_string(),
            n => format!("a playoff team may have at most {n}"),
        });
    }
    if let Some(drop) = settings.forfeit.drop_after {
        limits.push(format!(
            "the {} drops a team from the league",
            ordinal(drop)
        ));
    }
    Fact {
        id: "team-forfeits",
        term: "Forfeits so far",
        value: if limits.is_empty() {
            forfeits.to_string()
        } else {
            format!("{forfeits} ({})", limits.join("; "))
        },
    }
}

/// The team's sportsmanship average on the league's `scale`, with the playoffs' minimum.
fn sportsmanship_fact(
    settings: &Settings,
    scale: &Sportsmanship,
    standing: Option<&Standing>,
) -> Fact {
    let ratings = standing.map_or(Ratings::default(), |s| s.ratings);
    let mut value = match standing.and_then(Standing::sportsmanship) {
        Some(avg) => format!(
            "{avg:.1} from {}, on a scale of {} to {}",
            plural(ratings.count, "rating", "ratings"),
            scale.min,
            scale.max
        ),
        None => format!(
            "not rated yet (the scale is {} to {})",
            scale.min, scale.max
        ),
    };
    if let Some(min) = settings.eligibility.min_sportsmanship {
        value.push_str(&format!("; the playoffs need at least {min:.1}"));
    }
    Fact {
        id: "team-sportsmanship",
        term: "Sportsmanship average",
        value,
    }
}

/// "Nothing at risk: …" for an eligible team with nothing at risk: what next game cannot
/// change. (A team not rated yet has an at-risk line: its first rating.)
fn nothing_at_risk(settings: &Settings, ratings: Ratings) -> String {
    let rules = &settings.eligibility;
    let forfeit_rating = settings
        .sportsmanship
        .as_ref()
        .and_then(|s| s.forfeit_rating);
    // What next game cannot change: a forfeit (its rating included) within the limits, and
    // any rating on the scale (no rating line at risk).
    let forfeit_keeps = match (rules.min_sportsmanship, forfeit_rating) {
        (Some(min), Some(r)) => ratings.average_with(r) >= min,
        _ => true,
    };
    let mut safe = Vec::new();
    if (rules.max_forfeits.is_some() || settings.forfeit.drop_after.is_some()) && forfeit_keeps {
        safe.push("one more forfeit");
    }
    if rules.min_sportsmanship.is_some() {
        safe.push("even the lowest sportsmanship rating");
    }
    let mut calm = if safe.is_empty() {
        "Nothing at risk: the team meets every playoff rule.".to_string()
    } else {
        format!(
            "Nothing at risk: {} next game would not put the team out of the playoffs.",
            safe.join(" or ")
        )
    };
    if let Some(min) = rules.min_win_pct {
        calm.push_str(&format!(
            " Its win percentage must stay at {min:.3} or better."
        ));
    }
    calm
}

#[derive(Template)]
#[template(path = "public/team.html")]
struct TeamPage {
    nav: Nav,
    slug: String,
    name: String,
    team: TeamView,
    standing: Option<StandingRow>,
    needs: Needs,
    /// What part of the team's season is shown, in words.
    shown: String,
    /// The pager (as the schedule's).
    weeks: Vec<WeekLink>,
    matches: Vec<TeamMatch>,
    stats: Vec<PlayerStats>,
    /// Some lineup was recorded (else the figures would all read zero: the page says so).
    lineups_recorded: bool,
    /// Where the team is in the playoff race, in words, and the cut line; `None` when the
    /// league does not say how many teams the playoffs take.
    race_words: Option<(String, String)>,
    /// Once the bracket exists: the team's seed and what comes next, in words.
    bracket_words: Option<String>,
}

/// The team in the league's bracket, in words: "Seed 3. Next: M5 · Semi-final v Aces, Tue 8
/// Dec 2026, 19:00." (`when` gives a real match's time as the schedule shows it); `None`
/// when the team is not in it.
fn bracket_words(
    bracket: &BracketView,
    team: TeamId,
    when: impl Fn(MatchId) -> Option<String>,
) -> Option<String> {
    let side = |m: &BracketMatchView| {
        if m.team_a.as_ref().is_some_and(|t| t.id == team) {
            Some(0)
        } else if m.team_b.as_ref().is_some_and(|t| t.id == team) {
            Some(1)
        } else {
            None
        }
    };
    let seed = bracket.matches.iter().find_map(|m| match side(m)? {
        0 => m.seed_a,
        _ => m.seed_b,
    })?;
    let seed = format!("Seed {seed} in the playoffs.");
    if bracket.champion.as_ref().is_some_and(|c| c.id == team) {
        return Some(format!("{seed} Champion."));
    }
    let playing = |m: &&BracketMatchView| {
        side(m).is_some()
            && matches!(
                m.status,
                BracketMatchStatus::Match(MatchStatus::Scheduled | MatchStatus::InProgress)
            )
    };
    if let Some(m) = bracket.matches.iter().find(playing) {
        let other = if side(m) == Some(0) {
            &m.team_b
        } else {
            &m.team_a
        };
        let other = other.as_ref().map_or("", |t| t.name.as_str());
        let at = m
            .match_id
            .and_then(&when)
            .map(|w| format!(", {w}"))
            .unwrap_or_default();
        return Some(format!("{seed} Next: {} v {other}{at}.", m.label));
    }
    let knocked_out = bracket.matches.iter().any(|m| {
        let lost = matches!(
            (side(m), m.winner),
            (Some(0), Some(Team::B)) | (Some(1), Some(Team::A))
        );
        lost && m.loser_next_match.is_none()
    });
    Some(if knocked_out {
        format!("{seed} Out of the playoffs.")
    } else {
        format!("{seed} Waiting for the next opponent.")
    })
}

/// A team's place in the race, in words ("Win 2 of your last 3 matches and you are in,
/// whatever else happens"), and the cut line.
fn race_words(race: &Race, places: u32) -> (String, String) {
    let verdict = match (race.status, race.wins_needed) {
        (RaceStatus::Clinched, _) => "Clinched a playoff place.".to_string(),
        (RaceStatus::Eliminated, _) => "Out of the playoff race.".to_string(),
        (RaceStatus::Alive, Some(1)) if race.games_left == 1 => {
            "Win your last match and you are in, whatever else happens.".to_string()
        }
        (RaceStatus::Alive, Some(w)) if w == race.games_left => format!(
            "Win your last {w} matches and you are in, whatever else happens."
        ),
        (RaceStatus::Alive, Some(w)) => format!(
            "Win {w} of your last {} matches and you are in, whatever else happens.",
            race.games_left
        ),
        (RaceStatus::Alive, None) => {
            "Still in the race: winning every match left is not enough on its own; it takes other results too."
                .to_string()
        }
    };
    (
        verdict,
        format!("The playoffs take the top {places} teams."),
    )
}

#[get("/leagues/{slug}/teams/{id}")]
pub(super) async fn team_page(
    state: web::Data<AppState>,
    who: Viewer,
    path: web::Path<(Slug, TeamId)>,
    query: web::Query<WeekQuery>,
) -> Result<HttpResponse, PageError> {
    let (slug, team) = path.into_inner();
    let asked = query.span()?;
    let today = state.db.clock().local_now().0.date();
    let view = public_views::team(&state.db, &slug, team, asked, today).await?;
    let stats = player_stats::team_stats(&state.db, team).await?.players;
    let needs = Needs::of(
        &view.league,
        &view.team,
        view.standing.as_ref(),
        view.eligibility.as_ref(),
    );
    let race_words = match view.league.settings.playoffs.teams {
        Some(places) => {
            let table = crate::service::views::standings::table(&state.db, &slug).await?;
            let at = table.rows.iter().position(|s| s.team_id == team);
            table
                .races
                .zip(at)
                .and_then(|(races, at)| races.get(at).copied())
                .map(|race| race_words(&race, places))
        }
        None => None,
    };
    let bracket_words = match crate::service::playoffs::bracket(&state.db, &slug).await {
        Ok(bracket) => {
            let when = |id: MatchId| {
                view.matches
                    .iter()
                    .find(|m| m.id == id)
                    .and_then(|m| m.scheduled_at)
                    .map(crate::web::view::time::scheduled)
            };
            bracket_words(&bracket, team, when)
        }
        Err(ServiceError::NotFound) => None,
        Err(e) => return Err(e.into()),
    };
    let body = TeamPage {
        nav: who.nav(),
        needs,
        race_words,
        bracket_words,
        lineups_recorded: stats.iter().any(|s| s.hands > 0),
        stats,
        standing: view.standing.as_ref().map(standing_row),
        shown: shown_words(view.span, &view.weeks),
        weeks: week_links(&view.weeks, view.span, true),
        matches: view
            .matches
            .iter()
            .map(|m| TeamMatch::of(m, team))
            .collect(),
        slug: view.league.row.slug.to_string(),
        name: view.league.row.name,
        team: view.team,
    }
    .render()?;
    Ok(page(&who, body))
}

#[derive(Template)]
#[template(path = "public/player.html")]
struct PlayerPage {
    nav: Nav,
    slug: String,
    name: String,
    team_id: TeamId,
    team: String,
    stats: PlayerStats,
}

/// A player's public page: the name, the team and the player's statistics (names only).
#[get("/leagues/{slug}/teams/{id}/players/{player_id}")]
pub(super) async fn player_page(
    state: web::Data<AppState>,
    who: Viewer,
    path: web::Path<(Slug, TeamId, PlayerId)>,
) -> Result<HttpResponse, PageError> {
    let (slug, team, player) = path.into_inner();
    let view = player_stats::player(&state.db, &slug, team, player).await?;
    let body = PlayerPage {
        nav: who.nav(),
        slug: view.league.row.slug.to_string(),
        name: view.league.row.name,
        team_id: view.team_id,
        team: view.team,
        stats: view.stats,
    }
    .render()?;
    Ok(page(&who, body))
}
