//! A team's players, `/admin/leagues/{slug}/teams/{id}/players`: the roster (name, student
//! id, email, captain, active, matches) with a form to add a player, one to change each
//! player, and a button to deactivate or reactivate one; per player also the erasure of
//! their personal data (after a ticked confirmation) and the download of everything held
//! about them (the JSON of `POST /api/v1/people/export`, found by the student id the server
//! reads from the player: it never travels in a URL). Student ids and emails are shown here
//! only (admins); every change goes through `service::people::players`, which audits it without
//! them.

use actix_web::http::header;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;
use serde::Deserialize;

use super::{Empty, Errors, fixable};
use crate::domain::{ErrorCode, PlayerId, Slug, TeamId};
use crate::service::people::players::{
    self, EraseInput, ExportInput, FORMER_PLAYER, NewPlayerInput, Player, PlayerChange,
};
use crate::service::playoffs::player_eligibility::{self, PlayerOverrideInput};
use crate::service::{ServiceError, term::teams};
use crate::web::AppState;
use crate::web::error::PageError;
use crate::web::extract::{Admin, Authed, CsrfForm};
use crate::web::respond::{html, no_store};
use crate::web::view::nav::Nav;

/// A player form as typed (add or change): the captain box is present when ticked.
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct PlayerForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    student_id: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    captain: Option<String>,
}

impl PlayerForm {
    fn of(p: &Player) -> PlayerForm {
        PlayerForm {
            name: p.name.to_string(),
            student_id: p
                .student_id
                .as_ref()
                .map(|s| s.as_str().to_string())
                .unwrap_or_default(),
            email: p.email.clone().unwrap_or_default(),
            captain: p.captain.then(|| "1".to_string()),
        }
    }

    fn captain(&self) -> bool {
        self.captain.is_some()
    }
}

/// The deactivate / reactivate button: "0" or "1".
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct ActiveForm {
    #[serde(default)]
    active: String,
}

/// The erasure form: the name to show instead (empty for "Former player"), and the box
/// that confirms the erasure (present when ticked).
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct EraseForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    confirm: Option<String>,
}

/// One player's row, with what its change form shows (as stored, or as typed when that
/// form was refused).
struct PlayerLine {
    id: PlayerId,
    name: String,
    student_id: String,
    email: String,
    captain: bool,
    active: bool,
    matches: i64,
    form: PlayerForm,
    /// The name typed in a refused erasure form.
    erase_name: String,
}

#[derive(Template)]
#[template(path = "admin/players.html")]
struct PlayersPage {
    nav: Nav,
    slug: Slug,
    team_id: TeamId,
    team: String,
    players: Vec<PlayerLine>,
    /// The name an erasure gives when none is typed.
    former_player: &'static str,
    add: PlayerForm,
    message: Option<String>,
    errors: Errors,
    /// The id of the field the error summary links to.
    error_target: String,
    /// The players' playoff eligibility and the coordinator's decisions.
    eligibility: EligibilityBlock,
}

/// What a page answers besides the roster: its message, the form refused and its values.
#[derive(Default)]
struct Shown {
    message: Option<String>,
    errors: Errors,
    add: PlayerForm,
    /// A refused change form: (player, its typed values).
    change: Option<(PlayerId, PlayerForm)>,
    /// A refused erasure form: (player, its typed values).
    erase: Option<(PlayerId, EraseForm)>,
    /// A refused eligibility decision: (player, the reason typed).
    decision: Option<(PlayerId, String)>,
}

/// The form key of player `id`'s change form.
fn key(id: PlayerId) -> String {
    format!("player-{id}")
}

/// The form key of player `id`'s erasure form.
fn erase_key(id: PlayerId) -> String {
    format!("erase-{id}")
}

/// The id of the field an error of `errors` belongs to, for the summary's link.
fn target(errors: &Errors) -> String {
    match errors.field.as_str() {
        "" if errors.form == "add" => "add-player".into(),
        "" => errors.form.clone(),
        field => format!("{}-{field}", errors.form),
    }
}

/// A refusal by its field: a student id held elsewhere goes by the student id, a team that
/// would have too many or too few players by `limit_field` (the form, or the button).
fn player_errors(form: &str, limit_field: &str, e: &ServiceError) -> Errors {
    match e {
        ServiceError::Conflict {
            code: ErrorCode::PlayerOnAnotherTeam | ErrorCode::StudentIdTaken,
            message,
        } => Errors::new(form, "student_id", message.clone()),
        ServiceError::Conflict {
            code: ErrorCode::PlayerLimit,
            message,
        } => Errors::new(form, limit_field, message.clone()),
        e => Errors::of(form, &["name", "student_id", "email"], e),
    }
}

/// The team `id` of league `slug` (404 when it is not one of the league's).
async fn team_name(state: &AppState, slug: &Slug, id: TeamId) -> Result<String, ServiceError> {
    teams::list(&state.db, slug)
        .await?
        .into_iter()
        .find(|t| t.id == id)
        .map(|t| t.name.to_string())
        .ok_or(ServiceError::NotFound)
}

/// The player a form of one player's is sent to, `…/teams/{id}/players/{player_id}`, with
/// the league and team: 404 when the player is not on the team of the league.
async fn player_on_team(
    state: &AppState,
    who: &Authed,
    path: web::Path<(Slug, TeamId, PlayerId)>,
) -> Result<(Slug, TeamId, Player), ServiceError> {
    let (slug, team, player) = path.into_inner();
    team_name(state, &slug, team).await?;
    let found = players::roster(&state.db, &who.user, team)
        .await?
        .into_iter()
        .find(|p| p.id == player)
        .ok_or(ServiceError::NotFound)?;
    Ok((slug, team, found))
}

async fn render(
    state: &AppState,
    who: &Authed,
    slug: Slug,
    team_id: TeamId,
    shown: Shown,
) -> Result<HttpResponse, PageError> {
    let team = team_name(state, &slug, team_id).await?;
    let roster = players::roster(&state.db, &who.user, team_id).await?;
    let players = roster
        .iter()
        .map(|p| {
            let typed = shown
                .change
                .as_ref()
                .filter(|(id, _)| *id == p.id)
                .map(|(_, form)| form.clone());
            let stored = PlayerForm::of(p);
            PlayerLine {
                id: p.id,
                name: stored.name.clone(),
                student_id: stored.student_id.clone(),
                email: stored.email.clone(),
                captain: p.captain,
                active: p.active,
                matches: p.matches,
                form: typed.unwrap_or(stored),
                erase_name: shown
                    .erase
                    .as_ref()
                    .filter(|(id, _)| *id == p.id)
                    .map(|(_, form)| form.name.clone())
                    .unwrap_or_default(),
            }
        })
        .collect();
    let eligibility = EligibilityBlock::of(state, who, team_id, shown.decision).await?;
    let status = shown.errors.status();
    let page = PlayersPage {
        eligibility,
        nav: who.nav(),
        slug,
        team_id,
        team,
        players,
        former_player: FORMER_PLAYER,
        add: shown.add,
        message: shown.message,
        error_target: target(&shown.errors),
        errors: shown.errors,
    };
    Ok(no_store(html(status, page.render()?)))
}

#[get("/admin/leagues/{slug}/teams/{id}/players")]
pub(super) async fn players_page(
    state: web::Data<AppState>,
    Admin(who): Admin,
    path: web::Path<(Slug, TeamId)>,
) -> Result<HttpResponse, PageError> {
    let (slug, id) = path.into_inner();
    render(&state, &who, slug, id, Shown::default()).await
}

/// Adds a player to the team.
#[post("/admin/leagues/{slug}/teams/{id}/players")]
pub(super) async fn add_player(
    state: web::Data<AppState>,
    Admin(who): Admin,
    path: web::Path<(Slug, TeamId)>,
    CsrfForm(form): CsrfForm<PlayerForm>,
) -> Result<HttpResponse, PageError> {
    let (slug, id) = path.into_inner();
    team_name(&state, &slug, id).await?;
    let input = NewPlayerInput {
        name: form.name.clone(),
        student_id: Some(form.student_id.clone()),
        email: Some(form.email.clone()),
        captain: Some(form.captain()),
    };
    let done = players::add(&state.db, &who.user, id, &input).await;
    answer(
        &state,
        &who,
        (slug, id),
        done,
        |player| format!("{} added.", player.name),
        |e| Shown {
            errors: player_errors("add", "", e),
            add: form,
            ..Shown::default()
        },
    )
    .await
}

/// Changes a player's name, student id, email and captaincy.
#[post("/admin/leagues/{slug}/teams/{id}/players/{player_id}")]
pub(super) async fn change_player(
    state: web::Data<AppState>,
    Admin(who): Admin,
    path: web::Path<(Slug, TeamId, PlayerId)>,
    CsrfForm(form): CsrfForm<PlayerForm>,
) -> Result<HttpResponse, PageError> {
    let (slug, id, Player { id: player, .. }) = player_on_team(&state, &who, path).await?;
    let change = PlayerChange {
        name: Some(form.name.clone()),
        student_id: Some(form.student_id.clone()),
        email: Some(form.email.clone()),
        captain: Some(form.captain()),
        active: None,
    };
    let done = players::change(&state.db, &who.user, player, &change).await;
    answer(
        &state,
        &who,
        (slug, id),
        done,
        |p| format!("{} saved.", p.name),
        |e| Shown {
            errors: player_errors(&key(player), "", e),
            change: Some((player, form)),
            ..Shown::default()
        },
    )
    .await
}

/// Deactivates ("0": the player leaves the team, their history stays) or reactivates ("1")
/// a player.
#[post("/admin/leagues/{slug}/teams/{id}/players/{player_id}/active")]
pub(super) async fn set_active(
    state: web::Data<AppState>,
    Admin(who): Admin,
    path: web::Path<(Slug, TeamId, PlayerId)>,
    CsrfForm(form): CsrfForm<ActiveForm>,
) -> Result<HttpResponse, PageError> {
    let (slug, id, Player { id: player, .. }) = player_on_team(&state, &who, path).await?;
    let active = form.active == "1";
    let change = PlayerChange {
        active: Some(active),
        ..PlayerChange::default()
    };
    let done = players::change(&state.db, &who.user, player, &change).await;
    answer(
        &state,
        &who,
        (slug, id),
        done,
        |p| {
            format!(
                "{} {}.",
                p.name,
                if active { "reactivated" } else { "deactivated" }
            )
        },
        |e| Shown {
            errors: player_errors(&key(player), "active", e),
            ..Shown::default()
        },
    )
    .await
}

/// Erases a player's personal data: the student id and email go, the name becomes the one
/// typed or "Former player". Only with the confirmation ticked; scores stay as they are.
#[post("/admin/leagues/{slug}/teams/{id}/players/{player_id}/erase")]
pub(super) async fn erase_player(
    state: web::Data<AppState>,
    Admin(who): Admin,
    path: web::Path<(Slug, TeamId, PlayerId)>,
    CsrfForm(form): CsrfForm<EraseForm>,
) -> Result<HttpResponse, PageError> {
    let (slug, id, Player { id: player, .. }) = player_on_team(&state, &who, path).await?;
    let form_key = erase_key(player);
    if form.confirm.is_none() {
        let shown = Shown {
            errors: Errors::new(
                &form_key,
                "confirm",
                "tick the box to confirm: the erasure cannot be undone",
            ),
            erase: Some((player, form)),
            ..Shown::default()
        };
        return render(&state, &who, slug, id, shown).await;
    }
    let input = EraseInput {
        name: Some(form.name.clone()),
    };
    let done = players::erase(&state.db, &who.user, player, &input).await;
    answer(
        &state,
        &who,
        (slug, id),
        done,
        |p| format!("Personal data erased: the player is now {}.", p.name),
        |e| Shown {
            errors: Errors::of(&form_key, &["name"], e),
            erase: Some((player, form)),
            ..Shown::default()
        },
    )
    .await
}

// ---------------------------------------------------------------------------------------
// Playoff eligibility (docs/api.md §15): each active player's regular-season matches under
// `settings.eligibility.min_matches_played`, and the coordinator's decision that lets a
// player in all the same (with a reason, public and audited), or its removal.

/// The block of the page: whether the league sets a minimum, and a line per active player.
struct EligibilityBlock {
    min: Option<u32>,
    players: Vec<EligibilityLine>,
}

struct EligibilityLine {
    id: PlayerId,
    name: String,
    matches: i64,
    eligible: bool,
    /// The coordinator's reason, when they decided.
    decided: Option<String>,
    /// The reason as typed in a refused form.
    typed: String,
}

impl EligibilityBlock {
    async fn of(
        state: &AppState,
        who: &Authed,
        team: TeamId,
        typed: Option<(PlayerId, String)>,
    ) -> Result<EligibilityBlock, ServiceError> {
        let (rows, min) = player_eligibility::of_team(&state.db, &who.user, team).await?;
        let players = rows
            .into_iter()
            .map(|p| EligibilityLine {
                typed: typed
                    .as_ref()
                    .filter(|(id, _)| *id == p.id)
                    .map(|(_, text)| text.clone())
                    .unwrap_or_default(),
                id: p.id,
                name: p.name,
                matches: p.matches,
                eligible: p.eligible,
                decided: p.decision.map(|d| d.reason),
            })
            .collect();
        Ok(EligibilityBlock { min, players })
    }
}

/// The decision form: "1" lets the player in with the reason, "" removes the decision.
#[derive(Debug, Clone, Default, Deserialize)]
pub(super) struct DecisionForm {
    #[serde(default)]
    eligible: String,
    #[serde(default)]
    reason: String,
}

/// Lets a player play in the playoffs whatever their matches ("1", with a reason), or gives
/// the decision back to the rules.
#[post("/admin/leagues/{slug}/teams/{id}/players/{player_id}/eligibility")]
pub(super) async fn decide_eligibility(
    state: web::Data<AppState>,
    Admin(who): Admin,
    path: web::Path<(Slug, TeamId, PlayerId)>,
    CsrfForm(form): CsrfForm<DecisionForm>,
) -> Result<HttpResponse, PageError> {
    let (slug, id, Player { id: player, .. }) = player_on_team(&state, &who, path).await?;
    let input = PlayerOverrideInput {
        eligible: (form.eligible == "1").then_some(true),
        reason: Some(form.reason.clone()).filter(|r| !r.trim().is_empty()),
    };
    let form_key = format!("elig-{player}");
    let done = player_eligibility::set_override(&state.db, &who.user, player, &input).await;
    answer(
        &state,
        &who,
        (slug, id),
        done,
        |p| {
            if input.eligible.is_some() {
                format!("{} may play in the playoffs.", p.name)
            } else {
                format!("The decision on {} is removed.", p.name)
            }
        },
        |e| Shown {
            errors: Errors::of(&form_key, &["reason"], e),
            decision: Some((player, form.reason)),
            ..Shown::default()
        },
    )
    .await
}

/// Everything held about the player as a person (found by their student id in every
/// league, as `POST /api/v1/people/export` answers it), as a JSON download. Audited by the
/// service; a player without a student id has nothing to look up by.
#[post("/admin/leagues/{slug}/teams/{id}/players/{player_id}/export")]
pub(super) async fn export_player(
    state: web::Data<AppState>,
    Admin(who): Admin,
    path: web::Path<(Slug, TeamId, PlayerId)>,
    _: CsrfForm<Empty>,
) -> Result<HttpResponse, PageError> {
    let (slug, id, found) = player_on_team(&state, &who, path).await?;
    let player = found.id;
    let Some(student_id) = found.student_id else {
        let shown = Shown {
            errors: Errors::new(
                &erase_key(player),
                "",
                "this player has no student id: there is nothing to look them up by",
            ),
            ..Shown::default()
        };
        return render(&state, &who, slug, id, shown).await;
    };
    let input = ExportInput {
        student_id: Some(student_id.as_str().to_string()),
    };
    let export = players::export_person(&state.db, &who.user, &input).await?;
    let body = serde_json::to_vec_pretty(&export)
        .map_err(|e| crate::web::error::AppError::Internal(format!("export: {e}")))?;
    Ok(no_store(
        HttpResponse::Ok()
            .content_type("application/json")
            .insert_header((
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"player-{player}-export.json\""),
            ))
            .body(body),
    ))
}

/// The page of team `team` after a form's write: its message when done; the form again (`refused`) when the error is one the
/// coordinator can fix; any other error as the page's.
async fn answer<T>(
    state: &AppState,
    who: &Authed,
    (slug, team): (Slug, TeamId),
    done: Result<T, ServiceError>,
    message: impl FnOnce(T) -> String,
    refused: impl FnOnce(&ServiceError) -> Shown,
) -> Result<HttpResponse, PageError> {
    let shown = match done {
        Ok(value) => Shown {
            message: Some(message(value)),
            ..Shown::default()
        },
        Err(e) if fixable(&e) => refused(&e),
        Err(e) => return Err(e.into()),
    };
    render(state, who, slug, team, shown).await
}
