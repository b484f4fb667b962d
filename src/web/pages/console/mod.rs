//! The supervisor console, made for a phone at a noisy table: tonight's matches, and per
//! match the score, the clock, the hand-entry form (dealer and first bidder shown, only the
//! bids the rules allow now), the scoresheet with each hand's breakdown, corrections with a
//! reason and their history, time calls and forfeits. Every write goes through
//! `service::matches` (the same functions as the JSON API). Works without JavaScript;
//! `console.js` only adds the countdown and the live "tricks sum to 13" check.

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpResponse, get, post, web};
use askama::Template;

use crate::db::leagues as db_leagues;
use crate::db::matches as db_matches;
use crate::rules::hand::{BidInput, HandInput, TeamHandInput};
use crate::rules::{CalcError, Rules, Team, TeamResult, TeamTotal};
use crate::service::ServiceError;
use crate::service::accounts::random_hex;
use crate::service::matches::{self, ForfeitInput, MatchView, Recorded};
use crate::web::AppState;
use crate::web::error::{AppError, PageError};
use crate::web::extract::{Authed, Viewer};
use crate::web::pages::hand_form::{TypedHand, form_error};
use crate::web::respond::html;
use crate::web::respond::no_store;
use crate::web::view::nav::Nav;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(tonight)
        .service(console)
        .service(start)
        .service(record)
        .service(call_time)
        .service(forfeit)
        .service(edit_hand)
        .service(correct);
}

/// The logged-in user, or a redirect to the login form that comes back here.
fn logged_in(who: Viewer, back: &str) -> Result<Authed, Box<HttpResponse>> {
    who.0.ok_or_else(|| {
        Box::new(
            HttpResponse::SeeOther()
                .insert_header((header::LOCATION, format!("/login?next={back}")))
                .finish(),
        )
    })
}

fn see_other(to: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, to.to_string()))
        .finish()
}

fn page(status: StatusCode, body: String) -> HttpResponse {
    no_store(html(status, body))
}

/// Loads a match the user may supervise (404 for anyone else: it does not exist for them).
async fn supervised(state: &AppState, who: &Authed, id: i64) -> Result<MatchView, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let (view, league) = matches::load(&mut conn, id).await?;
    if !matches::may_supervise(&mut conn, &who.user, league.row.id).await? {
        return Err(AppError::NotFound.into());
    }
    Ok(view)
}

// ---------------------------------------------------------------- tonight

struct ListItem {
    id: i64,
    league: String,
    table: String,
    when: String,
    team_a: String,
    team_b: String,
    score_a: i32,
    score_b: i32,
    state: String,
    /// `live`, `today`, `upcoming` or `done`.
    kind: &'static str,
}

#[derive(Template)]
#[template(path = "console/tonight.html")]
struct TonightPage {
    nav: Nav,
    live: Vec<ListItem>,
    upcoming: Vec<ListItem>,
    done: Vec<ListItem>,
}

/// How many finished and upcoming matches the list shows.
const RECENT: usize = 12;
const UPCOMING: usize = 40;

#[get("/supervise")]
async fn tonight(state: web::Data<AppState>, who: Viewer) -> Result<HttpResponse, PageError> {
    let who = match logged_in(who, "/supervise") {
        Ok(who) => who,
        Err(redirect) => return Ok(*redirect),
    };
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let today = chrono::Local::now().format("%Y-%m-%d").to_string();
    let mut rows = Vec::new();
    for league in db_leagues::all(&mut conn).await.map_err(AppError::from)? {
        if !matches::may_supervise(&mut conn, &who.user, league.id).await? {
            continue;
        }
        for m in db_matches::of_league(&mut conn, league.id)
            .await
            .map_err(AppError::from)?
        {
            rows.push((league.name.clone(), m));
        }
    }
    let mut live = Vec::new();
    let mut upcoming = Vec::new();
    let mut done = Vec::new();
    for (league, m) in rows {
        match m.status.as_str() {
            "in_progress" => live.push((league, m)),
            "scheduled" => upcoming.push((league, m)),
            _ => done.push((league, m)),
        }
    }
    // Scheduled: today's first, then the coming ones, then unplayed past ones, each by time.
    let rank = |m: &db_matches::MatchRow| match m.scheduled_at.as_deref() {
        Some(s) if s.starts_with(&today) => 0,
        Some(s) if s > today.as_str() => 1,
        Some(_) => 2,
        None => 3,
    };
    upcoming.sort_by(|(_, x), (_, y)| {
        (rank(x), &x.scheduled_at, x.id).cmp(&(rank(y), &y.scheduled_at, y.id))
    });
    upcoming.truncate(UPCOMING);
    // Finished: the latest started first.
    done.sort_by(|(_, x), (_, y)| (&y.started_at, y.id).cmp(&(&x.started_at, x.id)));
    done.truncate(RECENT);
    let mut out: [Vec<ListItem>; 3] = Default::default();
    for (slot, list) in [live, upcoming, done].into_iter().enumerate() {
        for (league, m) in list {
            let (view, _) = matches::load(&mut conn, m.id).await?;
            let kind = match m.status.as_str() {
                "in_progress" => "live",
                "scheduled"
                    if m.scheduled_at
                        .as_deref()
                        .is_some_and(|s| s.starts_with(&today)) =>
                {
                    "today"
                }
                "scheduled" => "upcoming",
                _ => "done",
            };
            out[slot].push(ListItem {
                id: m.id,
                league,
                table: m.table_name.clone().unwrap_or_default(),
                when: m
                    .scheduled_at
                    .as_deref()
                    .map(|s| s.replace('T', " "))
                    .unwrap_or_default(),
                team_a: view.team_a.name.clone(),
                team_b: view.team_b.name.clone(),
                score_a: view.a.score,
                score_b: view.b.score,
                state: matches::state_words(&view),
                kind,
            });
        }
    }
    let [live, upcoming, done] = out;
    let body = TonightPage {
        nav: who.nav(),
        live,
        upcoming,
        done,
    }
    .render()?;
    Ok(page(StatusCode::OK, body))
}

// ---------------------------------------------------------------- the hand form

/// What was typed into the hand form, kept as text so it comes back as typed. Field names:
/// `a_bid0` (seat 1), `a_bid1` (seat 3), `b_bid0` (seat 2), `b_bid1` (seat 4), the same
/// with `_tricks`, `a_revokes`, `b_revokes`, `a_blind`, `b_blind`, `misdeal`, `reason`,
/// `expected_version`, `idempotency_key`, `csrf`.
#[derive(Debug, Clone, Default)]
struct HandForm {
    hand: TypedHand,
    reason: String,
    version: String,
    key: String,
    csrf: String,
    /// For the forfeit form.
    team: String,
    confirm: bool,
    /// A playoff double forfeit: the side the admin sends on.
    advance: Option<String>,
    /// An admin's confirmation that a correction may reset started playoff matches.
    reset_bracket_path: bool,
}

impl HandForm {
    fn from_pairs(pairs: &[(String, String)]) -> HandForm {
        let mut f = HandForm::default();
        for (name, value) in pairs {
            let v = value.clone();
            match name.as_str() {
                "reason" => f.reason = v,
                "expected_version" => f.version = v,
                "idempotency_key" => f.key = v,
                "csrf" => f.csrf = v,
                // "both-a" / "both-b": a double forfeit, the admin sending a or b on.
                "team" => match v.split_once('-') {
                    Some(("both", side)) => {
                        f.team = "both".into();
                        f.advance = Some(side.to_string());
                    }
                    _ => f.team = v,
                },
                "confirm" => f.confirm = true,
                "reset_bracket_path" => f.reset_bracket_path = true,
                // The console has no time field: time is called with its own button.
                "time" => {}
                other => {
                    f.hand.set(other, value);
                }
            }
        }
        f
    }

    /// The form of a recorded hand (for a correction).
    fn of_hand(hand: &HandInput) -> HandForm {
        HandForm {
            hand: TypedHand::of_hand(hand),
            ..HandForm::default()
        }
    }

    fn expected_version(&self) -> Result<i64, CalcError> {
        self.version.trim().parse().map_err(|_| {
            form_error(
                "expected_version",
                "the form has no match version: reload the console".into(),
            )
        })
    }

    /// The hand as the API would get it, or the first thing wrong with the typing.
    fn to_input(&self, number: usize) -> Result<HandInput, CalcError> {
        self.hand.to_input(number)
    }
}

fn bid_words(bid: &BidInput) -> String {
    match bid {
        BidInput::Number(n) => n.to_string(),
        BidInput::Word(w) if w == "blind_nil" => "blind nil".into(),
        BidInput::Word(w) => w.clone(),
    }
}

/// One seat of the form, in seat order.
struct SeatView {
    seat: u8,
    team: &'static str,
    team_name: String,
    player: String,
    bid_name: String,
    tricks_name: String,
    tricks: String,
    /// (value, label, selected).
    options: Vec<(String, String, bool)>,
    bad_bid: bool,
    bad_tricks: bool,
    error: Option<String>,
    dealer: bool,
    first: bool,
}

/// A team's extras (revokes, blind contract) and its team-level message.
struct TeamBox {
    key: &'static str,
    name: String,
    revokes: String,
    blind: bool,
    bad_revokes: bool,
    bad_blind: bool,
    error: Option<String>,
}

/// Everything the hand form template needs (new hand or correction).
struct FormView {
    action: String,
    /// `Some` on a correction: the reason as typed.
    reason: Option<String>,
    version: i64,
    key: String,
    seats: Vec<SeatView>,
    teams: Vec<TeamBox>,
    misdeal: bool,
    show_revokes: bool,
    show_blind: bool,
    dealer: u8,
    first: u8,
    /// Messages not tied to one seat or team.
    tricks_error: Option<String>,
    reason_error: Option<String>,
    top_error: Option<String>,
    submit: &'static str,
}

/// May `team` bid blind nil when it is `deficit` behind?
fn blind_nil_ok(rules: &Rules, deficit: i32) -> bool {
    rules
        .blind_nil
        .when
        .allows(deficit, rules.blind_nil.deficit)
}

fn bid_options(rules: &Rules, deficit: i32, typed: &str) -> Vec<(String, String, bool)> {
    let mut options = vec![(String::new(), "bid…".to_string())];
    options.extend((0..=13).map(|n| (n.to_string(), n.to_string())));
    if rules.nil.is_some() {
        options.push(("nil".into(), "Nil".into()));
    }
    if blind_nil_ok(rules, deficit) {
        options.push(("blind_nil".into(), "Blind nil".into()));
    }
    // A value the rules do not offer now (sent anyway) is kept, so the message makes sense.
    if !options.iter().any(|(v, _)| v == typed) {
        options.push((typed.to_string(), typed.replace('_', " ")));
    }
    options
        .into_iter()
        .map(|(v, l)| {
            let selected = v == typed;
            (v, l, selected)
        })
        .collect()
}

struct FormContext<'a> {
    view: &'a MatchView,
    players: &'a [[String; 2]; 2],
    /// Scores before the hand being entered.
    before: [TeamTotal; 2],
    /// Hands before this one (for the dealer).
    hands_before: usize,
    action: String,
    correction: bool,
}

fn form_view(ctx: &FormContext<'_>, form: &HandForm, error: Option<&CalcError>) -> FormView {
    let rules = &ctx.view.rules;
    let dealer = (ctx.hands_before % 4) as u8 + 1;
    let first = dealer % 4 + 1;
    let field = error.and_then(|e| e.field.as_deref()).unwrap_or("");
    let mut seats = Vec::with_capacity(4);
    let mut tricks_error = None;
    let mut reason_error = None;
    let mut top_error = None;
    let mut team_errors: [Option<String>; 2] = [None, None];
    let mut seat_errors: [[Option<String>; 2]; 2] = Default::default();
    if let Some(e) = error {
        match (e.team, e.player) {
            (Some(t), Some(p)) if field == "bids" || field == "tricks" => {
                seat_errors[t.index()][p] = Some(e.message.clone());
            }
            (Some(t), _) => team_errors[t.index()] = Some(e.message.clone()),
            (None, _) if field == "tricks" => tricks_error = Some(e.message.clone()),
            (None, _) if field == "reason" => reason_error = Some(e.message.clone()),
            _ => top_error = Some(e.message.clone()),
        }
    }
    let team_blamed = |t: Team| error.is_some_and(|e| e.team == Some(t));
    for s in 1..=4u8 {
        let team = if s % 2 == 1 { Team::A } else { Team::B };
        let t = team.index();
        let p = usize::from((s - 1) / 2);
        let deficit = ctx.before[team.other().index()]
            .score
            .saturating_sub(ctx.before[t].score);
        let blamed =
            team_blamed(team) && error.is_some_and(|e| e.player.is_none() || e.player == Some(p));
        seats.push(SeatView {
            seat: s,
            team: team.as_str(),
            team_name: if t == 0 {
                ctx.view.team_a.name.clone()
            } else {
                ctx.view.team_b.name.clone()
            },
            player: ctx.players[t][p].clone(),
            bid_name: format!("{}_bid{p}", team.as_str()),
            tricks_name: format!("{}_tricks{p}", team.as_str()),
            tricks: form.hand.tricks[t][p].clone(),
            options: bid_options(rules, deficit, form.hand.bids[t][p].trim()),
            bad_bid: blamed && field == "bids",
            bad_tricks: field == "tricks" && (blamed || error.is_some_and(|e| e.team.is_none())),
            error: seat_errors[t][p].take(),
            dealer: s == dealer,
            first: s == first,
        });
    }
    let teams = Team::BOTH
        .into_iter()
        .map(|team| {
            let t = team.index();
            TeamBox {
                key: team.as_str(),
                name: if t == 0 {
                    ctx.view.team_a.name.clone()
                } else {
                    ctx.view.team_b.name.clone()
                },
                revokes: form.hand.revokes[t].clone(),
                blind: form.hand.blind[t],
                bad_revokes: team_blamed(team) && field == "revokes",
                bad_blind: team_blamed(team) && field == "blind",
                error: team_errors[t].take(),
            }
        })
        .collect();
    FormView {
        action: ctx.action.clone(),
        reason: ctx.correction.then(|| form.reason.clone()),
        version: ctx.view.version,
        key: if form.key.is_empty() {
            random_hex(16)
        } else {
            form.key.clone()
        },
        seats,
        teams,
        misdeal: form.hand.misdeal,
        show_revokes: rules.revoke.is_some(),
        show_blind: rules.blind_bids.is_some(),
        dealer,
        first,
        tricks_error,
        reason_error,
        top_error,
        submit: if ctx.correction {
            "Save the correction"
        } else {
            "Record the hand"
        },
    }
}

// ---------------------------------------------------------------- the console

pub struct SheetTeam {
    bids: String,
    tricks: String,
    result: TeamResult,
    made: &'static str,
}

pub struct SheetRow {
    number: usize,
    note: String,
    teams: [SheetTeam; 2],
    revision: i64,
}

fn sheet(view: &MatchView) -> Vec<SheetRow> {
    view.hands
        .iter()
        .map(|h| {
            let team = |result: &TeamResult, cells: Option<&TeamHandInput>| SheetTeam {
                bids: cells.map_or_else(String::new, |c| {
                    let mut s = c.bids.iter().map(bid_words).collect::<Vec<_>>().join(" + ");
                    if c.blind {
                        s.push_str(" blind");
                    }
                    s
                }),
                tricks: cells.map_or_else(String::new, |c| {
                    c.tricks
                        .iter()
                        .map(i64::to_string)
                        .collect::<Vec<_>>()
                        .join(" + ")
                }),
                result: *result,
                made: match result.made {
                    Some(true) => "made",
                    Some(false) => "set",
                    None => "",
                },
            };
            let mut notes = Vec::new();
            if h.scored.misdeal {
                notes.push("misdeal".to_string());
            }
            if h.scored.time_called {
                notes.push("time called".into());
            }
            if h.scored.tiebreak {
                notes.push("tie-break".into());
            }
            if let Some(r) = &h.hand.revokes {
                if r.a > 0 {
                    notes.push(format!("A revoked ×{}", r.a));
                }
                if r.b > 0 {
                    notes.push(format!("B revoked ×{}", r.b));
                }
            }
            if h.revision > 1 {
                notes.push(format!("corrected (rev. {})", h.revision));
            }
            SheetRow {
                number: h.scored.number,
                note: notes.join(", "),
                teams: [
                    team(&h.scored.a, h.hand.a.as_ref()),
                    team(&h.scored.b, h.hand.b.as_ref()),
                ],
                revision: h.revision,
            }
        })
        .collect()
}

/// The result in words, prominent: who won and how, or the state of play.
fn result_words(view: &MatchView) -> String {
    let base = matches::state_words(view);
    if view.status == "in_progress"
        && view.game_status == "in_progress"
        && view.time_called_at.is_some()
    {
        return "Time called: this is the last hand".into();
    }
    base
}

async fn players_of(state: &AppState, view: &MatchView) -> Result<[[String; 2]; 2], PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let mut out: [[String; 2]; 2] = Default::default();
    for (t, id) in [view.team_a.id, view.team_b.id].into_iter().enumerate() {
        if let Some(team) = db_leagues::team(&mut conn, id)
            .await
            .map_err(AppError::from)?
        {
            out[t] = [team.player1, team.player2];
        }
    }
    Ok(out)
}

#[derive(Template)]
#[template(path = "console/console.html")]
struct ConsolePage {
    nav: Nav,
    m: MatchView,
    players: [[String; 2]; 2],
    result: String,
    over: bool,
    scheduled: bool,
    live: bool,
    tiebreak: bool,
    time_limit: Option<u32>,
    time_left: String,
    ends_at: String,
    time_called: bool,
    can_correct: bool,
    sheet: Vec<SheetRow>,
    form: Option<FormView>,
    /// A message for the whole page (e.g. a hand sent after the game is over).
    page_error: Option<String>,
    forfeit_error: Option<String>,
    forfeit_open: bool,
    /// A playoff match: a double forfeit needs the admin to choose who advances.
    playoff: bool,
}

fn time_left(view: &MatchView) -> (String, String) {
    let Some(ends) = view
        .ends_at
        .as_deref()
        .and_then(|e| chrono::DateTime::parse_from_rfc3339(e).ok())
    else {
        return (String::new(), String::new());
    };
    let left = (ends.to_utc() - chrono::Utc::now()).num_seconds();
    let words = if view.time_called_at.is_some() || left <= 0 {
        "Time is up: finish this hand".to_string()
    } else {
        format!("{}:{:02} left", left / 60, left % 60)
    };
    (
        words,
        ends.to_utc()
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    )
}

async fn render_console(
    state: &AppState,
    who: &Authed,
    view: MatchView,
    status: StatusCode,
    typed: Option<(&HandForm, &CalcError)>,
    forfeit_error: Option<String>,
) -> Result<HttpResponse, PageError> {
    let players = players_of(state, &view).await?;
    let over = view.is_over();
    let live = view.status == "in_progress";
    let form = if live {
        let ctx = FormContext {
            view: &view,
            players: &players,
            before: [view.a, view.b],
            hands_before: view.hands.len(),
            action: format!("/supervise/matches/{}/hands", view.id),
            correction: false,
        };
        let blank = HandForm::default();
        let (form, error) = match typed {
            Some((f, e)) => (f, Some(e)),
            None => (&blank, None),
        };
        Some(form_view(&ctx, form, error))
    } else {
        None
    };
    let page_error = match (&form, typed) {
        (None, Some((_, e))) => Some(e.message.clone()),
        _ => None,
    };
    let (time_left, ends_at) = time_left(&view);
    let body = ConsolePage {
        nav: who.nav(),
        players,
        result: result_words(&view),
        over,
        scheduled: view.status == "scheduled",
        live,
        tiebreak: view.game_status == "tiebreak",
        time_limit: view.rules.time_limit_minutes,
        time_left,
        ends_at,
        time_called: view.time_called_at.is_some(),
        can_correct: view.status == "in_progress" || view.status == "complete",
        sheet: sheet(&view),
        form,
        page_error,
        forfeit_open: forfeit_error.is_some(),
        forfeit_error,
        playoff: view.stage != "regular",
        m: view,
    }
    .render()?;
    Ok(page(status, body))
}

#[derive(Template)]
#[template(path = "console/conflict.html")]
struct ConflictPage {
    nav: Nav,
    m: MatchView,
    message: String,
    result: String,
    /// A stale version: someone else changed the match (otherwise the message says why).
    stale: bool,
}

/// The clear conflict page (409): what happened, the current state, a link to reload.
async fn conflict(
    state: &AppState,
    who: &Authed,
    id: i64,
    code: &str,
    message: String,
) -> Result<HttpResponse, PageError> {
    let view = supervised(state, who, id).await?;
    let body = ConflictPage {
        nav: who.nav(),
        result: result_words(&view),
        m: view,
        message,
        stale: code == "version_conflict",
    }
    .render()?;
    Ok(page(StatusCode::CONFLICT, body))
}

#[get("/supervise/matches/{id}")]
async fn console(
    state: web::Data<AppState>,
    who: Viewer,
    id: web::Path<i64>,
) -> Result<HttpResponse, PageError> {
    let who = match logged_in(who, &format!("/supervise/matches/{id}")) {
        Ok(who) => who,
        Err(redirect) => return Ok(*redirect),
    };
    let view = supervised(&state, &who, *id).await?;
    render_console(&state, &who, view, StatusCode::OK, None, None).await
}

type Fields = web::Form<Vec<(String, String)>>;

#[post("/supervise/matches/{id}/start")]
async fn start(
    state: web::Data<AppState>,
    who: Viewer,
    id: web::Path<i64>,
    fields: Fields,
) -> Result<HttpResponse, PageError> {
    let id = *id;
    let back = format!("/supervise/matches/{id}");
    let who = match logged_in(who, &back) {
        Ok(who) => who,
        Err(redirect) => return Ok(*redirect),
    };
    let form = HandForm::from_pairs(&fields);
    who.check_csrf(&form.csrf)?;
    match matches::start(&state.db, &who.user, id).await {
        Ok(_) => Ok(see_other(&back)),
        // A double tap on Start: it is started, show it.
        Err(ServiceError::Conflict {
            code: "not_scheduled",
            ..
        }) if supervised(&state, &who, id).await?.status == "in_progress" => Ok(see_other(&back)),
        Err(ServiceError::Conflict { code, message }) => {
            conflict(&state, &who, id, code, message).await
        }
        Err(e) => Err(e.into()),
    }
}

#[post("/supervise/matches/{id}/hands")]
async fn record(
    state: web::Data<AppState>,
    who: Viewer,
    id: web::Path<i64>,
    fields: Fields,
) -> Result<HttpResponse, PageError> {
    let id = *id;
    let back = format!("/supervise/matches/{id}");
    let who = match logged_in(who, &back) {
        Ok(who) => who,
        Err(redirect) => return Ok(*redirect),
    };
    let form = HandForm::from_pairs(&fields);
    who.check_csrf(&form.csrf)?;
    let view = supervised(&state, &who, id).await?;
    let number = view.hands.len() + 1;
    let parsed = form
        .expected_version()
        .and_then(|v| form.to_input(number).map(|h| (v, h)));
    let (version, hand) = match parsed {
        Ok(ok) => ok,
        Err(e) => {
            return render_console(
                &state,
                &who,
                view,
                StatusCode::UNPROCESSABLE_ENTITY,
                Some((&form, &e)),
                None,
            )
            .await;
        }
    };
    let key = form.key.trim();
    let key = (!key.is_empty()).then_some(key);
    match matches::record_hand(&state.db, &who.user, id, &hand, version, key).await {
        Ok(Recorded::New(_) | Recorded::Repeat(_)) => Ok(see_other(&back)),
        Err(ServiceError::Invalid(e)) => {
            let view = supervised(&state, &who, id).await?;
            render_console(
                &state,
                &who,
                view,
                StatusCode::UNPROCESSABLE_ENTITY,
                Some((&form, &e)),
                None,
            )
            .await
        }
        Err(ServiceError::Conflict { code, message }) => {
            conflict(&state, &who, id, code, message).await
        }
        Err(e) => Err(e.into()),
    }
}

#[post("/supervise/matches/{id}/time")]
async fn call_time(
    state: web::Data<AppState>,
    who: Viewer,
    id: web::Path<i64>,
    fields: Fields,
) -> Result<HttpResponse, PageError> {
    let id = *id;
    let back = format!("/supervise/matches/{id}");
    let who = match logged_in(who, &back) {
        Ok(who) => who,
        Err(redirect) => return Ok(*redirect),
    };
    let form = HandForm::from_pairs(&fields);
    who.check_csrf(&form.csrf)?;
    let version = form.expected_version().map_err(AppError::Invalid)?;
    match matches::call_time(&state.db, &who.user, id, version).await {
        Ok(_) => Ok(see_other(&back)),
        Err(ServiceError::Conflict { code, message }) => {
            conflict(&state, &who, id, code, message).await
        }
        Err(e) => Err(e.into()),
    }
}

#[post("/supervise/matches/{id}/forfeit")]
async fn forfeit(
    state: web::Data<AppState>,
    who: Viewer,
    id: web::Path<i64>,
    fields: Fields,
) -> Result<HttpResponse, PageError> {
    let id = *id;
    let back = format!("/supervise/matches/{id}");
    let who = match logged_in(who, &back) {
        Ok(who) => who,
        Err(redirect) => return Ok(*redirect),
    };
    let form = HandForm::from_pairs(&fields);
    who.check_csrf(&form.csrf)?;
    let view = supervised(&state, &who, id).await?;
    let problem = if !matches!(form.team.as_str(), "a" | "b" | "both") {
        Some("choose which team forfeits".to_string())
    } else if !form.confirm {
        Some("tick \"I confirm\" to record the forfeit: it ends the match".to_string())
    } else {
        None
    };
    if let Some(message) = problem {
        return render_console(
            &state,
            &who,
            view,
            StatusCode::UNPROCESSABLE_ENTITY,
            None,
            Some(message),
        )
        .await;
    }
    let input = ForfeitInput {
        team: form.team.clone(),
        advance: form.advance.clone(),
        expected_version: form.version.trim().parse().ok(),
    };
    match matches::forfeit(&state.db, &who.user, id, &input).await {
        Ok(_) => Ok(see_other(&back)),
        Err(ServiceError::Invalid(e)) => {
            render_console(
                &state,
                &who,
                view,
                StatusCode::UNPROCESSABLE_ENTITY,
                None,
                Some(e.message),
            )
            .await
        }
        Err(ServiceError::Conflict { code, message }) => {
            conflict(&state, &who, id, code, message).await
        }
        Err(e) => Err(e.into()),
    }
}

// ---------------------------------------------------------------- corrections

struct RevisionLine {
    revision: i64,
    recorded_at: String,
    reason: String,
    summary: String,
}

#[derive(Template)]
#[template(path = "console/edit.html")]
struct EditPage {
    nav: Nav,
    m: MatchView,
    number: usize,
    f: FormView,
    history: Vec<RevisionLine>,
}

fn summary(hand: &HandInput) -> String {
    if hand.misdeal {
        return "misdeal".into();
    }
    let team = |name: &str, t: Option<&TeamHandInput>| {
        t.map_or_else(String::new, |t| {
            format!(
                "{name}: bid {}{}, took {}",
                t.bids.iter().map(bid_words).collect::<Vec<_>>().join(" + "),
                if t.blind { " blind" } else { "" },
                t.tricks
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(" + ")
            )
        })
    };
    let mut s = format!(
        "{}; {}",
        team("A", hand.a.as_ref()),
        team("B", hand.b.as_ref())
    );
    if let Some(r) = &hand.revokes {
        s.push_str(&format!("; revokes A {} B {}", r.a, r.b));
    }
    if hand.time_called {
        s.push_str("; time called");
    }
    s
}

async fn render_edit(
    state: &AppState,
    who: &Authed,
    view: MatchView,
    number: usize,
    typed: Option<(&HandForm, &CalcError)>,
    status: StatusCode,
) -> Result<HttpResponse, PageError> {
    let index = number
        .checked_sub(1)
        .filter(|i| *i < view.hands.len())
        .ok_or(AppError::NotFound)?;
    if !(view.status == "in_progress" || view.status == "complete") {
        return Err(AppError::NotFound.into());
    }
    let players = players_of(state, &view).await?;
    let before = match index.checked_sub(1).map(|i| &view.hands[i].scored) {
        Some(prev) => [
            TeamTotal {
                score: prev.a.score,
                bags: prev.a.bags,
            },
            TeamTotal {
                score: prev.b.score,
                bags: prev.b.bags,
            },
        ],
        None => [TeamTotal::default(); 2],
    };
    let recorded = HandForm::of_hand(&view.hands[index].hand);
    let (form, error) = match typed {
        Some((f, e)) => (f.clone(), Some(e)),
        None => (recorded, None),
    };
    let ctx = FormContext {
        view: &view,
        players: &players,
        before,
        hands_before: index,
        action: format!("/supervise/matches/{}/hands/{number}", view.id),
        correction: true,
    };
    let form = form_view(&ctx, &form, error);
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let history = matches::history(&mut conn, view.id)
        .await?
        .into_iter()
        .filter(|r| r.number == number as i64)
        .map(|r| RevisionLine {
            revision: r.revision,
            recorded_at: r.recorded_at.replace('T', " ").replace('Z', " UTC"),
            reason: r.reason.clone().unwrap_or_default(),
            summary: serde_json::from_str::<HandInput>(&r.hand)
                .map(|h| summary(&h))
                .unwrap_or_default(),
        })
        .collect();
    let body = EditPage {
        nav: who.nav(),
        m: view,
        number,
        f: form,
        history,
    }
    .render()?;
    Ok(page(status, body))
}

#[get("/supervise/matches/{id}/hands/{number}/edit")]
async fn edit_hand(
    state: web::Data<AppState>,
    who: Viewer,
    path: web::Path<(i64, usize)>,
) -> Result<HttpResponse, PageError> {
    let (id, number) = path.into_inner();
    let who = match logged_in(who, &format!("/supervise/matches/{id}/hands/{number}/edit")) {
        Ok(who) => who,
        Err(redirect) => return Ok(*redirect),
    };
    let view = supervised(&state, &who, id).await?;
    render_edit(&state, &who, view, number, None, StatusCode::OK).await
}

#[post("/supervise/matches/{id}/hands/{number}")]
async fn correct(
    state: web::Data<AppState>,
    who: Viewer,
    path: web::Path<(i64, usize)>,
    fields: Fields,
) -> Result<HttpResponse, PageError> {
    let (id, number) = path.into_inner();
    let back = format!("/supervise/matches/{id}");
    let who = match logged_in(who, &back) {
        Ok(who) => who,
        Err(redirect) => return Ok(*redirect),
    };
    let form = HandForm::from_pairs(&fields);
    who.check_csrf(&form.csrf)?;
    let view = supervised(&state, &who, id).await?;
    let parsed = form.expected_version().and_then(|v| {
        if form.reason.trim().is_empty() {
            return Err(form_error(
                "reason",
                "say why the hand is corrected (e.g. \"seat 3 took 4, not 3\")".into(),
            ));
        }
        form.to_input(number).map(|h| (v, h))
    });
    let (version, mut hand) = match parsed {
        Ok(ok) => ok,
        Err(e) => {
            return render_edit(
                &state,
                &who,
                view,
                number,
                Some((&form, &e)),
                StatusCode::UNPROCESSABLE_ENTITY,
            )
            .await;
        }
    };
    // The hand in play when time ran out stays the time-called one.
    if !hand.misdeal
        && let Some(recorded) = number.checked_sub(1).and_then(|i| view.hands.get(i))
    {
        hand.time_called = recorded.hand.time_called;
    }
    match matches::correct_hand(
        &state.db,
        &who.user,
        id,
        &matches::Correction {
            number: number as i64,
            hand: &hand,
            reason: &form.reason,
            expected_version: version,
            reset_bracket_path: form.reset_bracket_path,
        },
    )
    .await
    {
        Ok(_) => Ok(see_other(&back)),
        Err(ServiceError::ResetNeeded(ids)) if who.user.is_admin() => {
            render_reset(&state, &who, view, number, &form.reason, &fields, &ids).await
        }
        Err(ServiceError::ResetNeeded(ids)) => {
            let list = ids.iter().map(|id| format!("#{id}")).collect::<Vec<_>>();
            let message = format!(
                "This correction changes who won, and the playoff match(es) {} that followed have already started. Ask the coordinator (an admin) to make it: they see exactly what resets and confirm it.",
                list.join(", ")
            );
            conflict(&state, &who, id, "bracket_reset_needed", message).await
        }
        Err(ServiceError::Invalid(e)) => {
            render_edit(
                &state,
                &who,
                view,
                number,
                Some((&form, &e)),
                StatusCode::UNPROCESSABLE_ENTITY,
            )
            .await
        }
        Err(ServiceError::Conflict { code, message }) => {
            conflict(&state, &who, id, code, message).await
        }
        Err(e) => Err(e.into()),
    }
}

// ---------------------------------------------------------------- bracket path reset

struct ResetLine {
    id: i64,
    teams: String,
    score: String,
    state: String,
    hands: usize,
}

#[derive(Template)]
#[template(path = "console/reset.html")]
struct ResetPage {
    nav: Nav,
    m: MatchView,
    number: usize,
    reason: String,
    resets: Vec<ResetLine>,
    /// The correction as typed, sent again with the confirmation.
    fields: Vec<(String, String)>,
}

/// An admin's correction would change who plays in started playoff matches: show exactly
/// which (their teams, score and hands), and ask to confirm the reset (DESIGN §3).
async fn render_reset(
    state: &AppState,
    who: &Authed,
    view: MatchView,
    number: usize,
    reason: &str,
    fields: &[(String, String)],
    ids: &[i64],
) -> Result<HttpResponse, PageError> {
    let mut conn = state.db.reader().acquire().await.map_err(AppError::from)?;
    let mut resets = Vec::with_capacity(ids.len());
    for id in ids {
        let (m, _) = matches::load(&mut conn, *id).await?;
        resets.push(ResetLine {
            id: m.id,
            teams: format!("{} v {}", m.team_a.name, m.team_b.name),
            score: format!("{}–{}", m.a.score, m.b.score),
            state: matches::state_words(&m),
            hands: m.hands.len(),
        });
    }
    let body = ResetPage {
        nav: who.nav(),
        m: view,
        number,
        reason: reason.to_string(),
        resets,
        fields: fields
            .iter()
            .filter(|(name, _)| name != "csrf" && name != "reset_bracket_path")
            .cloned()
            .collect(),
    }
    .render()?;
    Ok(page(StatusCode::CONFLICT, body))
}
