//! The captain's teams as their page shows them: each team's roster, its coming matches
//! with their forms, its results (a dispute while the window is open), what it asked; and a
//! refused form again, with what it held.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use askama::Template;

use super::capitalised;
use crate::domain::{MatchId, MatchStatus, PlayerId};
use crate::rules::Team;
use crate::service::ServiceError;
use crate::service::night::match_view::MatchView;
use crate::service::people::captains::{self, Captain, CaptainTeam};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::respond::{html, no_store};
use crate::web::view::nav::Nav;
use crate::web::view::time::scheduled;

#[derive(Template)]
#[template(path = "account/captain.html")]
pub(super) struct TeamsPage {
    nav: Nav,
    csrf: String,
    teams: Vec<TeamCard>,
    /// What was just saved, in words.
    saved: Option<&'static str>,
    /// A form refused: which, the words, and what it held.
    refused: Option<Refusal>,
}

impl TeamsPage {
    /// The seats a lineup form shows chosen: as sent when it was refused, else as set.
    fn chosen(&self, m: &Coming) -> [Option<PlayerId>; 2] {
        match &self.refused {
            Some(r) if r.form == format!("lineup-{}", m.id) => r.seats,
            _ => m.seats,
        }
    }

    /// The refusal of form `kind` of match `id` (`lineup-3`), if that form was refused.
    fn refusal(&self, kind: &str, id: &MatchId) -> Option<&Refusal> {
        self.refused
            .as_ref()
            .filter(|r| r.form == format!("{kind}-{id}"))
    }

    /// The dispute categories and their words.
    fn categories(&self) -> [(&'static str, &'static str); 4] {
        [
            ("scoring", "The scoring"),
            ("eligibility", "A player's eligibility"),
            ("sportsmanship", "Sportsmanship"),
            ("result", "The result"),
        ]
    }

    /// What a refused form held in field `i` (its text fields in order), else "".
    fn kept(&self, kind: &str, id: &MatchId, i: usize) -> &str {
        self.refusal(kind, id)
            .and_then(|r| r.kept.get(i))
            .map_or("", String::as_str)
    }

    /// Whether `seat` holds player `id` (a form's `selected`).
    fn picked(&self, seat: &&Option<PlayerId>, id: &PlayerId) -> bool {
        seat.as_ref() == Some(id)
    }
}

pub(super) struct Refusal {
    /// The form's id: `lineup-3`, `default-3`, `move-3`, `dispute-3`.
    pub(super) form: String,
    pub(super) message: String,
    pub(super) seats: [Option<PlayerId>; 2],
    /// The form's text fields as sent, in order.
    pub(super) kept: Vec<String>,
}

impl Refusal {
    pub(super) fn of(kind: &str, id: MatchId, e: ServiceError) -> Result<Refusal, PageError> {
        let message = match e {
            ServiceError::Invalid(e) => e.message,
            ServiceError::Conflict { message, .. } => message,
            other => return Err(other.into()),
        };
        Ok(Refusal {
            form: format!("{kind}-{id}"),
            message: capitalised(&message),
            seats: [None, None],
            kept: Vec::new(),
        })
    }
}

/// One team on the captain's page.
struct TeamCard {
    id: crate::domain::TeamId,
    name: String,
    league_name: String,
    league: String,
    players: Vec<captains::TeamMate>,
    coming: Vec<Coming>,
    results: Vec<Played>,
    /// "A default is sent at least 24 hours before the match"; `None`: no defaults.
    defaults: Option<String>,
    asked: Vec<String>,
}

/// A finished match from the team's side.
struct Played {
    id: MatchId,
    words: String,
    /// Its result may still be disputed.
    disputable: bool,
}

/// A match not yet played, from the team's side.
struct Coming {
    id: MatchId,
    side: &'static str,
    words: String,
    /// The lineup may still be set (the match has not started).
    open: bool,
    seats: [Option<PlayerId>; 2],
}

impl TeamCard {
    fn of(team: CaptainTeam) -> TeamCard {
        let (mut coming, mut results) = (Vec::new(), Vec::new());
        for m in &team.matches {
            let side = if m.team_a.id == team.id {
                Team::A
            } else {
                Team::B
            };
            match m.status {
                MatchStatus::Complete | MatchStatus::Forfeit => results.push(Played {
                    id: m.id,
                    words: result_words(m, side),
                    disputable: team.disputable.contains(&m.id),
                }),
                MatchStatus::Cancelled => {}
                _ => coming.push(Coming::of(m, side)),
            }
        }
        TeamCard {
            id: team.id,
            name: team.name,
            league_name: team.league_name,
            league: team.league,
            players: team.players,
            coming,
            results,
            defaults: team.default_notice_hours.map(|h| match h {
                0 => "until the match starts".to_string(),
                1 => "at least 1 hour before the match".to_string(),
                h => format!("at least {h} hours before the match"),
            }),
            asked: team.asked,
        }
    }
}

impl Coming {
    fn of(m: &MatchView, side: Team) -> Coming {
        let opponent = match side {
            Team::A => &m.team_b.name,
            Team::B => &m.team_a.name,
        };
        let when = m
            .scheduled_at
            .map_or_else(|| "no date set".to_string(), scheduled);
        let mut words = format!("{when} · v {opponent}");
        if let Some(label) = &m.label {
            words = format!("{label} · {words}");
        }
        if let Some(table) = &m.table {
            words.push_str(&format!(" · {table}"));
        }
        if m.status != MatchStatus::Scheduled {
            words.push_str(&format!(" ({})", m.status.words()));
        }
        let seats = m
            .lineup
            .of(side)
            .map_or([None, None], |s| [Some(s[0].id), Some(s[1].id)]);
        Coming {
            id: m.id,
            side: side.as_str(),
            words,
            open: matches!(m.status, MatchStatus::Scheduled | MatchStatus::Postponed)
                && m.hands.is_empty(),
            seats,
        }
    }
}

/// "Won 320–250 v Kings", "Lost by forfeit v Kings", "Lost by default v Kings".
fn result_words(m: &MatchView, side: Team) -> String {
    let (own, theirs, opponent) = match side {
        Team::A => (&m.a, &m.b, &m.team_b.name),
        Team::B => (&m.b, &m.a, &m.team_a.name),
    };
    let outcome = match m.winner {
        Some(w) if w == side => "Won",
        Some(_) => "Lost",
        None => "Tied",
    };
    match m.status {
        MatchStatus::Forfeit if m.forfeit == Some(crate::domain::ForfeitSide::Both) => {
            format!("Both teams forfeited v {opponent}")
        }
        MatchStatus::Forfeit if m.result.is_some() => format!("{outcome} by default v {opponent}"),
        MatchStatus::Forfeit => format!("{outcome} by forfeit v {opponent}"),
        _ => format!("{outcome} {}–{} v {opponent}", own.score, theirs.score),
    }
}

pub(super) async fn teams_page(
    state: &AppState,
    captain: &Captain,
    saved: Option<&'static str>,
    refused: Option<Refusal>,
) -> Result<HttpResponse, PageError> {
    let teams = captains::teams(&state.db, captain).await?;
    let status = match refused {
        Some(_) => StatusCode::UNPROCESSABLE_ENTITY,
        None => StatusCode::OK,
    };
    let page = TeamsPage {
        nav: Nav::default(),
        csrf: captain.csrf.clone(),
        teams: teams.into_iter().map(TeamCard::of).collect(),
        saved,
        refused,
    };
    Ok(no_store(html(status, page.render()?)))
}
