//! A sample tournament night: `cargo run --release -- demo --tournament`.
//!
//! One evening's event, loaded through the services as the pages and the API use them: the
//! league "Demo Tournament Night" of 24 teams of two, four Swiss rounds paired from the
//! standings one after the other (each played out, hand by hand, from 13:00 today, an hour
//! a round), then the cut: the top 8 in a single-elimination bracket with its quarter-finals
//! played, the semi-finals and the final still to come.

use super::{Rng, first_admin, play, service, supervisor};
use crate::db::Db;
use crate::domain::{Role, Slug};
use crate::league::bracket::Section;
use crate::service::User;
use crate::service::people::players::PlayerInput;
use crate::service::playoffs::{PlayoffsInput, create_playoffs};
use crate::service::term::leagues;
use crate::service::term::schedule::{ScheduleInput, ScheduleMode};
use crate::service::term::swiss::pair_next_round;
use crate::service::term::teams::NewTeamInput;

pub const SLUG: &str = "demo-tournament";
pub const NAME: &str = "Demo Tournament Night";

/// Swiss rounds before the cut, and the teams the cut keeps.
const ROUNDS: usize = 4;
const CUT: usize = 8;

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
    let today = db.clock().local_now().0.date();
    let mut rng = Rng(0x5eed_2026_1130);
    for round in 0..ROUNDS {
        let input = ScheduleInput {
            format: None,
            start_date: None,
            time: None,
            days_between: None,
            mode: ScheduleMode::SwissRound,
            within: None,
            blackouts: Vec::new(),
            scheduled_at: Some(format!("{today}T{:02}:00", 13 + round)),
        };
        let paired = pair_next_round(db, &admin, &slug, &input)
            .await
            .map_err(service)?;
        for id in paired.matches {
            play(db, runner, id, &mut rng, usize::MAX).await?;
        }
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
        "Loaded the tournament night \"{NAME}\" (/leagues/{SLUG}): {} teams, {ROUNDS} Swiss \
         rounds played from 13:00 today, then the top {CUT} in a bracket with its {} \
         quarter-finals played; the semi-finals and the final are still to play.\n\
         Supervisor: {login}.\n\
         Start the server with `{}` (the same --db, if you gave one) and open \
         /leagues/{SLUG}/standings and /leagues/{SLUG}/bracket.",
        FIRST.len() * SECOND.len(),
        quarter_finals.len(),
        crate::invocation::command(""),
    ))
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
