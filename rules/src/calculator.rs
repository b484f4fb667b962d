//! The stateless scoring calculator (docs/api.md §5.1): a request of rules, stage, start and hands in,
//! every hand's breakdown and the game's state out. The JSON API, the CLI and the calculator
//! page all go through [`score_request`], so they cannot disagree.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::{ErrorCode, Field, FieldError};
use super::game::{Game, ScoredHand, TeamResult};
use super::hand::{Hand, HandInput};
use super::params::{Rules, RulesSpec};
use super::state::{GameState, Phase, Stage, TeamTotal, WinReason};
use super::team::Team;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StartInput {
    #[serde(default)]
    pub a: TeamTotal,
    #[serde(default)]
    pub b: TeamTotal,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ScoreRequest {
    pub rules: RulesSpec,
    #[serde(default)]
    pub stage: Stage,
    #[serde(default)]
    pub start: Option<StartInput>,
    #[serde(default)]
    pub hands: Vec<HandInput>,
}

/// One hand of the answer: the breakdown of both teams and the state after it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct ScoredHandOut {
    pub number: usize,
    pub misdeal: bool,
    pub time_called: bool,
    /// This hand was a tie-break hand.
    pub tiebreak: bool,
    pub a: TeamResult,
    pub b: TeamResult,
    /// `in_progress`, `tiebreak`, `won` or `tied`.
    pub status: Phase,
    pub winner: Option<Team>,
    pub reason: Option<WinReason>,
}

impl From<&ScoredHand> for ScoredHandOut {
    fn from(s: &ScoredHand) -> Self {
        let (misdeal, time_called) = match &s.hand {
            Hand::Misdeal => (true, false),
            Hand::Played(p) => (false, p.time_called),
        };
        ScoredHandOut {
            number: s.number,
            misdeal,
            time_called,
            tiebreak: s.tiebreak,
            a: s.a,
            b: s.b,
            status: s.state.phase(),
            winner: s.state.winner(),
            reason: s.state.reason(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct ScoreResponse {
    pub rules: Rules,
    pub hands: Vec<ScoredHandOut>,
    pub a: TeamTotal,
    pub b: TeamTotal,
    pub status: Phase,
    pub winner: Option<Team>,
    pub reason: Option<WinReason>,
}

impl ScoreResponse {
    pub fn new(game: &Game, hands: &[ScoredHand]) -> Self {
        let state: GameState = game.state();
        ScoreResponse {
            rules: game.rules().clone(),
            hands: hands.iter().map(ScoredHandOut::from).collect(),
            a: game.total(Team::A),
            b: game.total(Team::B),
            status: state.phase(),
            winner: state.winner(),
            reason: state.reason(),
        }
    }
}

/// Reads a request from JSON (a struct only from an object, [`super::strict`]), naming the path
/// of a field of the wrong type.
pub fn parse_request(value: Value) -> Result<ScoreRequest, FieldError> {
    super::strict::from_value(value).map_err(|e| {
        let path = e.path().to_string();
        let words = super::strict::in_words(&e.inner().to_string());
        let mut err = FieldError::new(ErrorCode::InvalidRequest, format!("{path}: {words}"));
        // "hands[2].a.bids[0]" names hand 3.
        if let Some(rest) = path.strip_prefix("hands[")
            && let Some((index, field)) = rest.split_once(']')
            && let Ok(index) = index.parse::<usize>()
        {
            err.code = ErrorCode::InvalidHand;
            err.hand = Some(index + 1);
            err.message = format!("hand {}: {words}", index + 1);
            let field = field.trim_start_matches('.');
            // "a.bids[0]" names `bids`; "revokes.a" names `revokes`.
            let field = match field.split_once('.') {
                Some(("a" | "b", f)) => f,
                Some((f, _)) => f,
                None => field,
            };
            let field = field.split('[').next().unwrap_or(field);
            err.field = (!field.is_empty()).then(|| Field::path(field.to_string()));
        } else if path != "." {
            err.field = Some(Field::path(path));
        }
        err
    })
}

/// Scores a request: resolves the rules, then plays every hand in order.
pub fn score_request(request: &ScoreRequest) -> Result<ScoreResponse, FieldError> {
    let rules = request.rules.resolve().map_err(|e| FieldError {
        field: e.field.map(|f| Field::RULES.child(&f)),
        ..FieldError::new(ErrorCode::InvalidRules, e.message)
    })?;
    let mut game = match &request.start {
        Some(start) => Game::resume(rules, request.stage, start.a, start.b)
            .map_err(|e| FieldError::at(ErrorCode::InvalidStart, e.field, e.message))?,
        None => Game::new(rules, request.stage),
    };
    let mut scored = Vec::with_capacity(request.hands.len());
    for (index, input) in request.hands.iter().enumerate() {
        let hand = input.parse(index + 1)?;
        scored.push(game.play(&hand)?);
    }
    Ok(ScoreResponse::new(&game, &scored))
}

/// Parses and scores a JSON request (the CLI's and the API's entry point).
pub fn score_json(value: Value) -> Result<ScoreResponse, FieldError> {
    score_request(&parse_request(value)?)
}
