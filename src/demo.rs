//! A sample season for a first look: `cargo run --release -- demo`.
//!
//! Everything is loaded through the services the pages and the API use (so the rules check
//! every hand): a supervisor account, the league "Demo Fall Season" with 8 teams, a round
//! robin whose first league night was three weeks ago, the first three nights and half of
//! tonight's matches played to the end, and one match of tonight in progress.
//!
//! The season has its settings (docs/api.md §6.9): a 10-minute grace period, a team dropped
//! at its 3rd forfeit, sportsmanship rated 1 to 5 after every match (a forfeiting team gets
//! 1), and to enter the playoffs a team needs an average of at least 3.0 and at most 1
//! forfeit. Every match played is rated: most teams get 4s and 5s; [`AT_RISK`] has an
//! average of 3.0, so a low rating next game would cost it its playoff place.
//!
//! The hands and the ratings come from small seeded generators, so every load is the same
//! season.

pub mod tournament;

use crate::domain::Slug;
use anyhow::{Context, bail};
use chrono::NaiveDate;

use crate::db::matches::{self as db_matches, MatchRow};
use crate::db::{Db, users};
use crate::domain::{MatchId, MatchStatus, Role, TeamId};
use crate::rules::hand::{BidInput, TeamHandInput};
use crate::rules::{HandInput, RulesSpec};
use crate::service::night::action_keys::Acted;
use crate::service::night::conduct::{self, RatingInput};
use crate::service::night::matches::{self, AnswerShape, HandAnswer, NewHandEntry, Recorded};
use crate::service::people::players::PlayerInput;
use crate::service::term::leagues::{self, League, NewLeagueInput, StageRules};
use crate::service::term::schedule::ScheduleInput;
use crate::service::term::teams::NewTeamInput;
use crate::service::{ServiceError, User, people::accounts};

pub const SLUG: &str = "demo-fall";
pub const NAME: &str = "Demo Fall Season";
pub const SUPERVISOR: &str = "supervisor";

/// The teams and their players.
const TEAMS: [(&str, [&str; 2]); 8] = [
    ("Spade Runners", ["Maya Patel", "Jordan Lee"]),
    ("Nil Rebels", ["Chris Okafor", "Sam Rivera"]),
    ("Big Jokers", ["Taylor Nguyen", "Alex Kim"]),
    ("Book Club", ["Priya Shah", "Marcus Brown"]),
    ("Bag Ladies", ["Dana Whitfield", "Keisha Moore"]),
    ("Set Happens", ["Luis Garcia", "Ethan Cole"]),
    ("Trump Tower Hall", ["Noah Fischer", "Ava Johnson"]),
    ("Late Night Renege", ["Zoe Martin", "Ben Carter"]),
];

/// The league's season settings (merged over the defaults).
const SETTINGS: &str = r#"{
    "forfeit": {"grace_minutes": 10, "drop_after": 3},
    "sportsmanship": {"min": 1, "max": 5, "forfeit_rating": 1, "required": true},
    "eligibility": {"min_sportsmanship": 3.0, "max_forfeits": 1}
}"#;

/// The team whose sportsmanship is at risk: its ratings follow [`AT_RISK_RATINGS`] (an
/// average of 3.0 or a little above, after any number of matches), so the pages have a
/// warning to show.
pub const AT_RISK: &str = "Late Night Renege";
const AT_RISK_RATINGS: [u32; 6] = [3, 4, 2, 3, 3, 4];

/// Rounds (league nights) played to the end; on the next night, this many matches are
/// complete, then one is in progress and the rest are still to be played.
const ROUNDS_DONE: i64 = 3;
const TONIGHT_DONE: usize = 2;
/// Hands entered so far in the match in progress.
const IN_PROGRESS_HANDS: usize = 3;

/// splitmix64: small, seeded, good enough for sample data.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }

    /// True with probability `percent` / 100.
    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// One team's part of a plausible hand that took `tricks` tricks, under rules with a
/// minimum team bid of 4 and nil: bids near what the team then took, now and then a nil.
fn team_hand(rng: &mut Rng, tricks: i64) -> TeamHandInput {
    // A nil: the nil player usually makes it; the partner carries the contract.
    if tricks >= 4 && rng.chance(8) {
        let nil_tricks = if rng.chance(75) { 0 } else { 1 };
        let partner = tricks - nil_tricks;
        let contract = (partner + rng.range(-2, 1)).clamp(4, 13);
        let (bids, took) = if rng.chance(50) {
            (
                vec![BidInput::Word("nil".into()), BidInput::Number(contract)],
                vec![nil_tricks, partner],
            )
        } else {
            (
                vec![BidInput::Number(contract), BidInput::Word("nil".into())],
                vec![partner, nil_tricks],
            )
        };
        return TeamHandInput {
            bids,
            tricks: took,
            blind: false,
        };
    }
    let contract = (tricks + rng.range(-2, 1)).clamp(4, 13);
    let first_bid = rng.range(1, contract - 1);
    let first_took = rng.range(0, tricks);
    TeamHandInput {
        bids: vec![
            BidInput::Number(first_bid),
            BidInput::Number(contract - first_bid),
        ],
        tricks: vec![first_took, tricks - first_took],
        blind: false,
    }
}

/// A played hand: the 13 tricks split between the teams, each bidding near what it took.
pub(crate) fn random_hand(rng: &mut Rng) -> HandInput {
    if rng.chance(2) {
        return HandInput {
            misdeal: true,
            ..HandInput::default()
        };
    }
    let a = rng.range(2, 11);
    HandInput {
        misdeal: false,
        a: Some(team_hand(rng, a)),
        b: Some(team_hand(rng, 13 - a)),
        revokes: None,
        time_called: false,
    }
}

fn service(e: ServiceError) -> anyhow::Error {
    anyhow::anyhow!("{e}")
}

/// Enters `rng`'s hands into match `id` until the game is decided or `limit` hands are in.
async fn play(
    db: &Db,
    user: &User,
    id: MatchId,
    rng: &mut Rng,
    limit: usize,
) -> anyhow::Result<()> {
    let mut view = match matches::start(db, user, id, None).await.map_err(service)? {
        Acted::Done(view) => *view,
        Acted::Again(_) => bail!("demo match {id}: a start was taken for a repeat"),
    };
    let mut hands = 0;
    while view.status == MatchStatus::InProgress && hands < limit {
        // Keep the match in progress open: stop well short of the target.
        if limit < usize::MAX && (view.a.score >= 200 || view.b.score >= 200) {
            break;
        }
        let hand = random_hand(rng);
        let entry = NewHandEntry {
            hand: &hand,
            expected_version: view.version,
            idempotency_key: None,
            shape: AnswerShape::Full,
        };
        view = match matches::record_hand(db, user, id, &entry)
            .await
            .map_err(service)
            .with_context(|| format!("demo match {id}, hand {}", hands + 1))?
        {
            Recorded::New(HandAnswer::Full(view)) => *view,
            _ => bail!("demo match {id}: a hand was not answered with the match"),
        };
        hands += 1;
        if hands > 200 {
            bail!("demo match {id} does not end");
        }
    }
    Ok(())
}

/// Loads the sample season; returns what was loaded and how to look at it.
pub async fn load(db: &Db) -> anyhow::Result<String> {
    refuse_if_loaded(db, &slug()?, "the demo season").await?;
    let first_admin = first_admin(db).await?;
    let (supervisor, password) = supervisor(db, first_admin.as_ref()).await?;
    let admin = first_admin.unwrap_or_else(|| User {
        role: Role::Admin,
        ..supervisor.clone()
    });
    let league = create_league(db, &admin).await?;
    let at_risk = add_teams(db, &admin).await?;
    if supervisor.role == Role::Supervisor {
        leagues::assign_supervisor(db, &admin, &slug()?, SUPERVISOR)
            .await
            .map_err(service)?;
    }
    let first_night = db.clock().local_now().0.date() - chrono::Duration::weeks(3);
    generate_schedule(db, &admin, first_night).await?;

    let rows = {
        let mut conn = db.read().await?;
        db_matches::of_league(&mut conn, league.row.id).await?
    };
    // The supervisor runs the tables when they may; otherwise the coordinator does.
    let runner = if supervisor.role == Role::Supervisor {
        &supervisor
    } else {
        &admin
    };
    let played = play_season(db, runner, &rows).await?;
    rate(db, &admin, &played.complete, at_risk).await?;

    let login = match password {
        Some(p) => format!("log in as \"{SUPERVISOR}\" with the password {p} (shown once)"),
        None => format!("log in as \"{SUPERVISOR}\" (existing account, password unchanged)"),
    };
    Ok(format!(
        "Loaded the demo season \"{NAME}\" (/leagues/{SLUG}): {} teams, {} round-robin \
         matches over {} league nights from {first_night}, {} played, {} in \
         progress tonight; sportsmanship rated after every match played ({AT_RISK} is one low \
         rating from losing its playoff place).\nSupervisor: {login}; the supervisor is \
         assigned to the league.\n\
         Start the server with `{}` (the same --db, if you gave one) and open /leagues/{SLUG}.",
        TEAMS.len(),
        rows.len(),
        rows.iter().filter_map(|m| m.round).max().unwrap_or(0),
        played.complete.len(),
        played.in_progress,
        crate::invocation::command(""),
    ))
}

/// The demo season's slug, [`SLUG`] as a [`Slug`].
fn slug() -> anyhow::Result<Slug> {
    Ok(SLUG.parse()?)
}

/// Refuses a database where the demo league `slug` (`what`: "the demo season") exists
/// already.
async fn refuse_if_loaded(db: &Db, slug: &Slug, what: &str) -> anyhow::Result<()> {
    let mut conn = db.read().await?;
    if crate::db::leagues::by_slug(&mut conn, slug)
        .await?
        .is_some()
    {
        bail!(
            "a league with the slug \"{slug}\" exists already: {what} is loaded \
             (use a fresh database file to load it again)"
        );
    }
    Ok(())
}

/// The first admin account, if the server has created one: the coordinator's part is done
/// as that admin; without one, as the supervisor account with the coordinator's rights (the
/// audit log then names the supervisor).
async fn first_admin(db: &Db) -> anyhow::Result<Option<User>> {
    let mut conn = db.read().await?;
    let all = users::all(&mut conn).await?;
    Ok(all
        .into_iter()
        .find(|u| u.role == Role::Admin)
        .map(|row| User {
            id: row.id,
            username: row.username,
            role: Role::Admin,
        }))
}

/// The supervisor who runs the tables, and its password when it was created now (an
/// existing account is reused as it is).
async fn supervisor(db: &Db, first_admin: Option<&User>) -> anyhow::Result<(User, Option<String>)> {
    let mut conn = db.read().await?;
    let existing = users::by_name(&mut conn, SUPERVISOR).await?;
    drop(conn);
    if let Some(row) = existing {
        let user = User {
            id: row.id,
            username: row.username,
            role: row.role,
        };
        return Ok((user, None));
    }
    let password = accounts::random_hex(8);
    let user = accounts::create_user(db, first_admin, SUPERVISOR, Role::Supervisor, &password)
        .await
        .map_err(service)?;
    Ok((user, Some(password)))
}

/// The league [`NAME`] with its rules and [`SETTINGS`].
async fn create_league(db: &Db, admin: &User) -> anyhow::Result<League> {
    let settings = Some(serde_json::from_str(SETTINGS)?);
    create_unc_league(db, admin, (NAME, SLUG), settings).await
}

/// A demo league `name` (`slug`): UNC's 300-point rules, its 500-point final, `settings`.
async fn create_unc_league(
    db: &Db,
    admin: &User,
    (name, slug): (&str, &str),
    settings: Option<serde_json::Value>,
) -> anyhow::Result<League> {
    leagues::create_league(
        db,
        admin,
        &NewLeagueInput {
            name: name.into(),
            slug: Some(slug.into()),
            rules: StageRules {
                regular: RulesSpec::Preset("unc-im-300".into()),
                playoff: None,
                r#final: Some(RulesSpec::Preset("unc-im-500".into())),
            },
            tiebreak_order: None,
            settings,
        },
    )
    .await
    .map_err(service)
}

/// The [`TEAMS`]; returns the id of [`AT_RISK`].
async fn add_teams(db: &Db, admin: &User) -> anyhow::Result<Option<TeamId>> {
    let mut at_risk = None;
    for (name, players) in TEAMS {
        let team = crate::service::term::teams::add_team(
            db,
            admin,
            &slug()?,
            &NewTeamInput {
                name: name.into(),
                players: players.iter().map(|p| PlayerInput::name(p)).collect(),
                division: None,
            },
        )
        .await
        .map_err(service)?;
        if name == AT_RISK {
            at_risk = Some(team.id);
        }
    }
    Ok(at_risk)
}

/// A round robin, a night a week at 19:00 from `first_night`.
async fn generate_schedule(db: &Db, admin: &User, first_night: NaiveDate) -> anyhow::Result<()> {
    crate::service::term::schedule::generate_schedule(
        db,
        admin,
        &slug()?,
        &ScheduleInput {
            format: None,
            scheduled_at: None,
            start_date: Some(first_night.format("%Y-%m-%d").to_string()),
            time: Some("19:00".into()),
            days_between: Some(7),
            mode: Default::default(),
            within: None,
            blackouts: Vec::new(),
        },
    )
    .await
    .map_err(service)?;
    Ok(())
}

/// What [`play_season`] played.
struct Played<'a> {
    /// The matches played to the end, in schedule order.
    complete: Vec<&'a MatchRow>,
    /// How many matches are left in progress.
    in_progress: usize,
}

/// Plays the first [`ROUNDS_DONE`] rounds to the end, then on the next night
/// [`TONIGHT_DONE`] matches to the end and one in progress; the rest stay to be played.
async fn play_season<'a>(
    db: &Db,
    runner: &User,
    rows: &'a [MatchRow],
) -> anyhow::Result<Played<'a>> {
    let mut rng = Rng(0x5EED_5BAD_E5D0_2026);
    let mut played = Played {
        complete: Vec::new(),
        in_progress: 0,
    };
    let tonight = ROUNDS_DONE + 1;
    let mut tonight_seen = 0;
    for m in rows {
        let round = m.round.unwrap_or(0);
        if round <= ROUNDS_DONE {
            play(db, runner, m.id, &mut rng, usize::MAX).await?;
            played.complete.push(m);
        } else if round == tonight {
            tonight_seen += 1;
            if tonight_seen <= TONIGHT_DONE {
                play(db, runner, m.id, &mut rng, usize::MAX).await?;
                played.complete.push(m);
            } else if tonight_seen == TONIGHT_DONE + 1 {
                play(db, runner, m.id, &mut rng, IN_PROGRESS_HANDS).await?;
                played.in_progress += 1;
            }
        }
    }
    Ok(played)
}

/// Every match played is rated, in schedule order: [`AT_RISK`] (team `at_risk`) by its
/// list, the others a 4 or a 5 from their own seeded generator (the hands stay as they
/// were). The ratings are the coordinator's here, as the rest of the setup (the supervisor
/// only runs the tables).
async fn rate(
    db: &Db,
    admin: &User,
    played: &[&MatchRow],
    at_risk: Option<TeamId>,
) -> anyhow::Result<()> {
    let mut ratings = Rng(0xC0DE_5EED_0F00_2026);
    let mut at_risk_rated = 0;
    for m in played {
        let mut rating = |team| {
            if Some(team) == at_risk {
                let r = AT_RISK_RATINGS[at_risk_rated % AT_RISK_RATINGS.len()];
                at_risk_rated += 1;
                i64::from(r)
            } else if ratings.chance(50) {
                5
            } else {
                4
            }
        };
        let input = RatingInput {
            a: rating(m.team_a),
            b: rating(m.team_b),
            note: None,
            idempotency_key: None,
        };
        conduct::rate(db, admin, m.id, &input)
            .await
            .map_err(service)
            .with_context(|| format!("demo match {}: sportsmanship ratings", m.id))?;
    }
    Ok(())
}
