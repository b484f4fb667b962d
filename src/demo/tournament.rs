//! A sample tournament night: `cargo run --release -- demo --tournament`.
//!
//! One evening's event, loaded through the services as the pages and the API use them: the
//! league "Demo Tournament Night" of 24 teams of two on 6 tables whose queue calls the
//! matches (docs/api.md §21.1), four Swiss rounds paired from the standings one after the
//! other (each played out, hand by hand, as the queue calls its matches to the tables),
//! then the cut: the top 8 in a single-elimination bracket with its quarter-finals played,
//! the semi-finals called to their tables and the final still to come.

use super::{Rng, first_admin, play, service, supervisor};
use crate::db::Db;
use crate::domain::{Role, Slug};
use crate::league::bracket::Section;
use crate::service::User;
use crate::service::night::queue::{self, TableStatus, TablesInput};
use crate::service::people::players::PlayerInput;
use crate::service::playoffs::{PlayoffsInput, create_playoffs};
use crate::service::term::leagues;
use crate::service::term::schedule::{ScheduleInput, ScheduleMode};
use crate::service::term::swiss::pair_next_round;
use crate::service::term::teams::NewTeamInput;

pub const SLUG: &str = "demo-tournament";
pub const NAME: &str = "Demo Tournament Night";

/// Swiss rounds before the cut, the teams the cut keeps, the room's tables.
const ROUNDS: usize = 4;
const CUT: usize = 8;
const TABLES: usize = 6;

/// The 24 team names: each word of the first list with each of the second.
const FIRST: [&str; 6] = ["Midnight", "Lucky", "Silent", "Double", "Lone", "Blind"];
const SECOND: [&str; 4] = ["Spades", "Bidders", "Books", "Bags"];

/// Players' names, two a team, drawn in order.
const GIVEN: [&str; 12] = [
    "Amara", "Blake", "Chen", "Dev", "Elena", "Femi", "Grace", "Hugo", "Imani", "Jonah", "Kira",
    "Leo",
];
const FAMILY: [&str; 4] = ["Ashby", "Boateng", "Castillo", "Duarte"];

/// Loads the tournament night; returns what was loaded and how to look at it.
pub async fn load(db: &Db) -> anyhow::Result<String> {
    let slug: Slug = SLUG.parse()?;
    super::refuse_if_loaded(db, &slug, "the tournament night").await?;
    let first_admin = first_admin(db).await?;
    let (supervisor, password) = supervisor(db, first_admin.as_ref()).await?;
    let admin = first_admin.unwrap_or_else(|| User {
        role: Role::Admin,
        ..supervisor.clone()
    });
    create_league(db, &admin).await?;
    add_teams(db, &admin, &slug).await?;
    if supervisor.role == Role::Supervisor {
        leagues::assign_supervisor(db, &admin, &slug, super::SUPERVISOR)
            .await
            .map_err(service)?;
    }
    let runner = if supervisor.role == Role::Supervisor {
        &supervisor
    } else {
        &admin
    };
    set_up_the_room(db, &admin, &slug).await?;
    let mut rng = Rng(0x5eed_2026_1130);
    for _ in 0..ROUNDS {
        let input = ScheduleInput {
            format: None,
            start_date: None,
            time: None,
            days_between: None,
            mode: ScheduleMode::SwissRound,
            within: None,
            blackouts: Vec::new(),
            scheduled_at: None,
        };
        pair_next_round(db, &admin, &slug, &input)
            .await
            .map_err(service)?;
        play_as_called(db, runner, &slug, &mut rng).await?;
    }
    let bracket = create_playoffs(
        db,
        &admin,
        &slug,
        &PlayoffsInput {
            format: "single_elimination".into(),
            teams: Some(CUT),
            third_place: Some(false),
            grand_final: None,
            force: None,
            seeding: None,
        },
    )
    .await
    .map_err(service)?;
    let quarter_finals: Vec<_> = bracket
        .matches
        .iter()
        .filter(|m| m.bracket == Section::Winners && m.round == 1)
        .filter_map(|m| m.match_id)
        .collect();
    for id in &quarter_finals {
        play(db, runner, *id, &mut rng, usize::MAX).await?;
    }
    let login = match password {
        Some(p) => format!(
            "log in as \"{}\" with the password {p} (shown once)",
            super::SUPERVISOR
        ),
        None => format!(
            "log in as \"{}\" (existing account, password unchanged)",
            super::SUPERVISOR
        ),
    };
    Ok(format!(
        "Loaded the tournament night \"{NAME}\" (/leagues/{SLUG}): {} teams on {TABLES} \
         tables, {ROUNDS} Swiss rounds played as the queue called them, then the top {CUT} in \
         a bracket with its {} quarter-finals played; the semi-finals are called to their \
         tables, the final is still to play.\n\
         Supervisor: {login}.\n\
         Start the server with `{}` (the same --db, if you gave one) and open \
         /leagues/{SLUG}/standings, /leagues/{SLUG}/bracket and the TV's /scoreboard?tv=1.",
        FIRST.len() * SECOND.len(),
        quarter_finals.len(),
        crate::invocation::command(""),
    ))
}

/// The room: tables "1" to "6", the queue calling matches by itself.
async fn set_up_the_room(db: &Db, admin: &User, slug: &Slug) -> anyhow::Result<()> {
    let tables = TablesInput {
        tables: (1..=TABLES).map(|t| t.to_string()).collect(),
    };
    queue::set_tables(db, admin, slug, &tables)
        .await
        .map_err(service)?;
    let auto = serde_json::json!({"queue": {"auto": true}});
    leagues::change_settings(db, admin, slug, &auto)
        .await
        .map_err(service)?;
    Ok(())
}

/// Plays the matches the queue calls, table by table, until none is called: each result
/// calls the next waiting match to its table.
async fn play_as_called(db: &Db, runner: &User, slug: &Slug, rng: &mut Rng) -> anyhow::Result<()> {
    loop {
        let q = queue::queue(db, slug).await.map_err(service)?;
        let called: Vec<_> = q
            .tables
            .iter()
            .filter(|t| t.status == TableStatus::Called)
            .filter_map(|t| t.match_id)
            .collect();
        if called.is_empty() {
            return Ok(());
        }
        for id in called {
            play(db, runner, id, rng, usize::MAX).await?;
        }
    }
}

async fn create_league(db: &Db, admin: &User) -> anyhow::Result<()> {
    super::create_unc_league(db, admin, (NAME, SLUG), None).await?;
    Ok(())
}

async fn add_teams(db: &Db, admin: &User, slug: &Slug) -> anyhow::Result<()> {
    let mut players = GIVEN
        .iter()
        .flat_map(|g| FAMILY.iter().map(move |f| format!("{g} {f}")));
    for first in FIRST {
        for second in SECOND {
            let two: Vec<PlayerInput> = players
                .by_ref()
                .take(2)
                .map(|name| PlayerInput::name(&name))
                .collect();
            crate::service::term::teams::add_team(
                db,
                admin,
                slug,
                &NewTeamInput {
                    name: format!("{first} {second}"),
                    players: two,
                    division: None,
                },
            )
            .await
            .map_err(service)?;
        }
    }
    Ok(())
}
