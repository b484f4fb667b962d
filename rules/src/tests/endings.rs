//! Ending a game (docs/scoring.md §4), the start state of a resumed game, misdeals, and the
//! calculator's view of the same.

use serde_json::{Value, json};

use super::support::*;
use crate::game::Game;
use crate::hand::Hand;
use crate::state::{GameState, Phase, Stage, TeamTotal, WinReason};
use crate::team::Team;

fn won(winner: Team, reason: WinReason) -> GameState {
    GameState::Won { winner, reason }
}

fn timed(h: Value) -> Value {
    with(h, json!({"time_called": true}))
}

/// The state a tie at or above the target leads to, by preset and stage (§2.3: a draw only
/// in a regular-season match whose rules say `regular_season_ties = draw`).
fn tie_state(name: &str, stage: Stage) -> GameState {
    if name == "chicago-im" && stage == Stage::Regular {
        GameState::Tied
    } else {
        GameState::Tiebreak
    }
}

/// "A team at or above `target` while the other is below wins" — exactly at the target too.
#[test]
fn target_reached_exactly_wins() {
    for name in PRESETS {
        let r = preset(name);
        let t = r.target;
        let (g, s) = play_all(&r, Stage::Regular, Some((t - 50, 0, 0, 0)), &[exact(5)]);
        assert_eq!(s[0].a.score, t, "{name}");
        assert_eq!(g.state(), won(Team::A, WinReason::Target), "{name}");
        let (g, _) = play_all(&r, Stage::Regular, Some((t - 51, 0, 0, 0)), &[exact(5)]);
        assert_eq!(g.state(), GameState::InProgress, "{name}: one short");
        let (g, _) = play_all(&r, Stage::Regular, Some((0, 0, t - 80, 0)), &[exact(5)]);
        assert_eq!(g.state(), won(Team::B, WinReason::Target), "{name}");
    }
}

/// "Both at or above: the higher score wins. Equal at or above the target: a tie."
#[test]
fn both_over_target_and_ties_by_preset_and_stage() {
    for name in PRESETS {
        let r = preset(name);
        let t = r.target;
        // exact(6): a +60, b +70.
        let (g, _) = play_all(&r, Stage::Regular, Some((t, 0, t - 20, 0)), &[]);
        assert_eq!(
            g.state(),
            won(Team::A, WinReason::Target),
            "{name}: start decided"
        );
        let (g, _) = play_all(
            &r,
            Stage::Regular,
            Some((t - 50, 0, t - 50, 0)),
            &[exact(6)],
        );
        assert_eq!(g.state(), won(Team::B, WinReason::Target), "{name}");
        for stage in [Stage::Regular, Stage::Playoff, Stage::Final] {
            let (g, s) = play_all(&r, stage, Some((t - 50, 0, t - 60, 0)), &[exact(6)]);
            assert_eq!(scores(&s[0]), (t + 10, t + 10), "{name}");
            assert_eq!(g.state(), tie_state(name, stage), "{name} {stage:?}");
        }
    }
}

/// "one more hand is played — a tie-break hand — and the higher total after it wins"; a
/// misdeal in between decides nothing.
#[test]
fn tiebreak_hand_after_a_tie() {
    for name in PRESETS {
        let r = preset(name);
        let t = r.target;
        let stage = if name == "chicago-im" {
            Stage::Playoff
        } else {
            Stage::Regular
        };
        let (g, s) = play_all(
            &r,
            stage,
            Some((t - 50, 0, t - 60, 0)),
            &[exact(6), json!({"misdeal": true}), exact(6)],
        );
        assert_eq!(scores(&s[0]), (t + 10, t + 10), "{name}");
        assert_eq!(
            (s[0].tiebreak, s[0].state),
            (false, GameState::Tiebreak),
            "{name}"
        );
        assert_eq!(
            (s[1].tiebreak, s[1].state),
            (true, GameState::Tiebreak),
            "{name}"
        );
        assert!(s[2].tiebreak, "{name}");
        assert_eq!(scores(&s[2]), (t + 70, t + 80), "{name}");
        assert_eq!(g.state(), won(Team::B, WinReason::Tiebreak), "{name}");
    }
}

/// "... the higher total after it wins, above the target or not. Still equal: another
/// tie-break hand."
#[test]
fn tiebreak_hands_repeat_and_decide_below_target() {
    let both_minus_80 = hj(json!([4, 4]), [3, 3], json!([4, 4]), [4, 3]);
    let both_set = hj(json!([5, 5]), [3, 3], json!([4, 4]), [4, 3]); // a −100, b −80
    for name in PRESETS {
        let r = preset(name);
        let t = r.target;
        for stage in [Stage::Regular, Stage::Playoff, Stage::Final] {
            if tie_state(name, stage) == GameState::Tied {
                continue;
            }
            let (g, s) = play_all(
                &r,
                stage,
                Some((t - 50, 0, t - 60, 0)),
                &[
                    exact(6),
                    both_minus_80.clone(),
                    both_minus_80.clone(),
                    both_set.clone(),
                ],
            );
            assert_eq!(s[0].state, GameState::Tiebreak, "{name} {stage:?}");
            assert_eq!(scores(&s[1]), (t - 70, t - 70), "{name} {stage:?}");
            assert_eq!(
                s[1].state,
                GameState::Tiebreak,
                "{name} {stage:?}: tied again, below"
            );
            assert_eq!(
                s[2].state,
                GameState::Tiebreak,
                "{name} {stage:?}: and again"
            );
            assert!(s[3].tiebreak);
            assert_eq!(scores(&s[3]), (t - 250, t - 230), "{name} {stage:?}");
            assert_eq!(
                g.state(),
                won(Team::B, WinReason::Tiebreak),
                "{name} {stage:?}"
            );
        }
    }
}

/// "When time expires, the hand in play is finished ... and then the higher score wins,
/// whatever the target. Equal: a tie." Only the unc presets have a time limit.
#[test]
fn time_called_ends_the_game() {
    for name in ["unc-im-300", "unc-im-500"] {
        let r = preset(name);
        let (g, _) = play_all(&r, Stage::Regular, None, &[timed(exact(7))]);
        assert_eq!(g.state(), won(Team::A, WinReason::Time), "{name}");
        let (g, _) = play_all(&r, Stage::Regular, Some((-30, 0, 0, 0)), &[timed(exact(7))]);
        assert_eq!(g.state(), won(Team::B, WinReason::Time), "{name}: b higher");
        for stage in [Stage::Regular, Stage::Playoff, Stage::Final] {
            let (g, _) = play_all(&r, stage, Some((10, 0, 0, 0)), &[timed(exact(6))]);
            assert_eq!(g.state(), GameState::Tiebreak, "{name} {stage:?}");
        }
        // Time over the target: both past it, the reason is time.
        let t = r.target;
        let (g, _) = play_all(
            &r,
            Stage::Regular,
            Some((t - 10, 0, t - 10, 0)),
            &[timed(exact(7))],
        );
        assert_eq!(
            g.state(),
            won(Team::A, WinReason::Time),
            "{name}: time before target"
        );
    }
    // A league may add a time limit and draw a tie on time in its regular season.
    let r = rules(json!({"preset": "chicago-im", "time_limit_minutes": 40}));
    let (g, _) = play_all(&r, Stage::Regular, Some((10, 0, 0, 0)), &[timed(exact(6))]);
    assert_eq!(g.state(), GameState::Tied);
    let (g, _) = play_all(&r, Stage::Playoff, Some((10, 0, 0, 0)), &[timed(exact(6))]);
    assert_eq!(g.state(), GameState::Tiebreak);
}

/// Precedence (§2.3): a made moon with `wins_game`, the loss floor, a tie-break hand, time,
/// the target — the first that applies decides winner and reason.
#[test]
fn precedence_of_endings() {
    let r = rules(json!({"preset": "unc-im-300", "moon": {"wins_game": true},
                         "loss_floor": -500}));
    let moon = hj(json!([7, 6]), [7, 6], json!([2, 2]), [0, 0]); // a +200, b −40
    // Moon over floor: b is set to the floor in the hand where a makes the moon (a made
    // moon only adds points, so the winner is the same; the reason is the moon).
    let (g, _) = play_all(&r, Stage::Regular, Some((0, 0, -470, 0)), &[moon.clone()]);
    assert_eq!(g.total(Team::B).score, -510);
    assert_eq!(g.state(), won(Team::A, WinReason::Moon));
    // Moon over time: b is ahead when time is called, but the moon wins.
    let (g, _) = play_all(
        &r,
        Stage::Regular,
        Some((0, 0, 250, 0)),
        &[timed(moon.clone())],
    );
    assert_eq!((g.total(Team::A).score, g.total(Team::B).score), (200, 210));
    assert_eq!(g.state(), won(Team::A, WinReason::Moon));
    // Moon over a tie-break hand.
    let (g, s) = play_all(&r, Stage::Regular, Some((300, 0, 300, 0)), &[moon.clone()]);
    assert!(s[0].tiebreak);
    assert_eq!(g.state(), won(Team::A, WinReason::Moon));
    // Moon over target.
    let (g, _) = play_all(&r, Stage::Regular, Some((150, 0, 0, 0)), &[moon]);
    assert_eq!(g.state(), won(Team::A, WinReason::Moon));

    let r = rules(json!({"preset": "unc-im-300", "loss_floor": -100}));
    let a_up_b_set = hj(json!([4, 4]), [4, 4], json!([4, 4]), [3, 2]); // +80 / −80
    // Floor over target: a reaches 300 while b falls to the floor.
    let (g, _) = play_all(
        &r,
        Stage::Regular,
        Some((250, 0, -50, 0)),
        &[a_up_b_set.clone()],
    );
    assert_eq!(g.state(), won(Team::A, WinReason::Floor));
    // Floor over time.
    let (g, _) = play_all(
        &r,
        Stage::Regular,
        Some((0, 0, -50, 0)),
        &[timed(a_up_b_set.clone())],
    );
    assert_eq!(g.state(), won(Team::A, WinReason::Floor));
    // Floor over a tie-break hand: tied on time at −20, then b is set to the floor.
    let (g, s) = play_all(
        &r,
        Stage::Regular,
        Some((-80, 0, -90, 0)),
        &[timed(exact(6)), a_up_b_set],
    );
    assert_eq!(
        (scores(&s[0]), s[0].state),
        ((-20, -20), GameState::Tiebreak)
    );
    assert!(s[1].tiebreak);
    assert_eq!(g.state(), won(Team::A, WinReason::Floor));
    // Tie-break over time: a time call in the tie-break hand keeps the reason `tiebreak`.
    let (g, s) = play_all(
        &r,
        Stage::Regular,
        Some((10, 0, 0, 0)),
        &[timed(exact(6)), timed(exact(7))],
    );
    assert_eq!(s[0].state, GameState::Tiebreak);
    assert_eq!(g.state(), won(Team::A, WinReason::Tiebreak));
    // Time over target: both pass 300, a higher; the reason is time.
    let (g, _) = play_all(
        &r,
        Stage::Regular,
        Some((260, 0, 260, 0)),
        &[timed(exact(7))],
    );
    assert_eq!(g.state(), won(Team::A, WinReason::Time));
}

/// A resumed game keeps its scores and bag counters; a start already tied at or above the
/// target makes the first hand a tie-break hand (or is a draw where allowed).
#[test]
fn start_state() {
    for name in PRESETS {
        let r = preset(name);
        let t = r.target;
        let limit = r.bags.limit.unwrap();
        let (g, s) = play_all(
            &r,
            Stage::Regular,
            Some((120, limit - 1, -40, 3)),
            &[exact(5)],
        );
        assert_eq!(scores(&s[0]), (170, 40), "{name}");
        assert_eq!((s[0].a.bags, s[0].b.bags), (limit - 1, 3), "{name}");
        assert_eq!(g.deficit(Team::B), 130);
        let mut g = new_game(&r, Stage::Regular, Some((t, 0, t, 0)));
        assert_eq!(g.state(), tie_state(name, Stage::Regular), "{name}");
        let next = g.play(&hand(exact(6)));
        if name == "chicago-im" {
            let e = next.expect_err("a drawn game takes no hand");
            assert_eq!((e.code.as_str(), e.hand), ("game_over", 1));
        } else {
            let s = next.expect("the tie-break hand");
            assert!(s.tiebreak);
            assert_eq!(s.state, won(Team::B, WinReason::Tiebreak), "{name}");
        }
        let g = new_game(&r, Stage::Playoff, Some((t + 5, 0, t + 5, 0)));
        assert_eq!(g.state(), GameState::Tiebreak, "{name}");
        let g = new_game(&r, Stage::Regular, Some((t - 1, 0, t - 1, 0)));
        assert_eq!(
            g.state(),
            GameState::InProgress,
            "{name}: tied below the target"
        );
        // Bags at the limit are impossible: the counter is always below it.
        for team_b in [false, true] {
            let total = TeamTotal {
                score: 0,
                bags: limit,
            };
            let zero = TeamTotal::default();
            let (a, b) = if team_b { (zero, total) } else { (total, zero) };
            let e = Game::resume(r.clone(), Stage::Regular, a, b).expect_err("bags at the limit");
            assert_eq!(e.field.as_str(), "start");
            let who = if team_b { "b" } else { "a" };
            assert_eq!(
                e.message,
                format!(
                    "start: team {who} has {limit} bags; the counter is always below the limit of {limit}"
                )
            );
        }
    }
    // Without a bag limit any counter is a valid start.
    let r = rules(json!({"preset": "classic", "bags": {"limit": null}}));
    assert!(
        Game::resume(
            r,
            Stage::Regular,
            TeamTotal { score: 0, bags: 40 },
            TeamTotal::default()
        )
        .is_ok()
    );
    // A start at the floor is decided.
    let r = rules(json!({"preset": "classic", "loss_floor": -200}));
    let g = new_game(&r, Stage::Regular, Some((-200, 0, 0, 0)));
    assert_eq!(g.state(), won(Team::B, WinReason::Floor));
}

/// The calculator's start: `start` in the request, a tie at the target, bags over the limit.
#[test]
fn calculator_start() {
    let res = calc(
        json!({"rules": "chicago-im", "start": {"a": {"score": 500, "bags": 2},
                          "b": {"score": 500}}}),
    );
    assert_eq!(
        (res.status, res.winner, res.reason),
        (Phase::Tied, None, None)
    );
    let res = calc(json!({"rules": "chicago-im", "stage": "playoff",
                          "start": {"a": {"score": 500}, "b": {"score": 500}},
                          "hands": [exact(4)]}));
    assert!(res.hands[0].tiebreak);
    assert_eq!(
        (res.status, res.winner, res.reason),
        (Phase::Won, Some(Team::B), Some(WinReason::Tiebreak))
    );
    let e = calc_err(
        json!({"rules": "chicago-im", "start": {"a": {"score": 500}, "b": {"score": 500}},
                            "hands": [exact(4)]}),
    );
    assert_eq!((e.code.as_str(), e.hand), ("game_over", Some(1)));
    let e = calc_err(json!({"rules": "unc-im-300", "start": {"a": {"bags": 6}}}));
    assert_eq!(
        (e.code.as_str(), e.field.as_ref().map(|f| f.as_str())),
        ("invalid_start", Some("start"))
    );
}

/// §2.1: a misdeal "scores nothing and changes nothing but is kept in the record" — also in
/// a tie-break, and not once the game is decided.
#[test]
fn misdeals() {
    for name in PRESETS {
        let r = preset(name);
        let mut g = new_game(&r, Stage::Regular, Some((40, 2, 70, 1)));
        let before = (g.total(Team::A), g.total(Team::B), g.state());
        let s = g.play(&Hand::Misdeal).unwrap();
        assert_eq!(
            (s.number, s.a.points, s.b.points, s.a.made),
            (1, 0, 0, None)
        );
        assert_eq!((s.a.score, s.a.bags, s.b.score, s.b.bags), (40, 2, 70, 1));
        assert_eq!(
            (g.total(Team::A), g.total(Team::B), g.state()),
            before,
            "{name}"
        );
        assert_eq!(g.hands_played(), 1);
        let s = g.play(&hand(exact(5))).unwrap();
        assert_eq!(s.number, 2, "{name}: the misdeal is numbered");
        let t = r.target;
        let mut g = new_game(&r, Stage::Regular, Some((t, 0, 0, 0)));
        let e = g.play(&Hand::Misdeal).expect_err("decided");
        assert_eq!(
            (e.code.as_str(), e.hand, e.field),
            ("game_over", 1, None),
            "{name}"
        );
    }
}

/// "no hand is accepted after the game is decided", for every way of deciding it; the error
/// names the hand.
#[test]
fn no_hand_after_the_game_is_decided() {
    let r = preset("unc-im-300");
    let hands = [exact(5), timed(exact(5)), exact(6)];
    let e = refused(&r, None, &hands);
    assert_eq!((e.code.as_str(), e.hand, e.field), ("game_over", 3, None));
    assert_eq!(e.message, "hand 3: the game is already decided");
    let e = calc_err(json!({"rules": "unc-im-300", "hands": hands}));
    assert_eq!((e.code.as_str(), e.hand), ("game_over", Some(3)));
    let r = preset("chicago-im");
    let e = refused(&r, Some((460, 0, 470, 0)), &[exact(7), exact(6)]);
    assert_eq!((e.code.as_str(), e.hand), ("game_over", 2), "after a draw");
}

/// The calculator reports each hand's state and the game's, as docs/api.md §4.4 and §5.1 show.
#[test]
fn calculator_reports_states() {
    let res = calc(json!({"rules": "unc-im-300", "hands": [
        hj(json!([4, 3]), [5, 3], json!([3, 2]), [3, 2]),
        timed(exact(6)),
    ]}));
    assert_eq!(res.hands.len(), 2);
    let h = &res.hands[0];
    assert_eq!(
        (h.number, h.misdeal, h.time_called, h.status.as_str()),
        (1, false, false, "in_progress")
    );
    assert_eq!(
        (
            h.a.contract,
            h.a.tricks_counted,
            h.a.made,
            h.a.contract_points
        ),
        (7, 8, Some(true), 70)
    );
    assert_eq!(
        (h.a.bag_points, h.a.points, h.a.bags, h.a.score),
        (1, 71, 1, 71)
    );
    assert_eq!((h.b.points, h.b.score), (50, 50));
    assert!(res.hands[1].time_called);
    assert_eq!((res.a.score, res.b.score), (71 + 60, 50 + 70));
    assert_eq!(
        (res.status, res.winner, res.reason),
        (Phase::Won, Some(Team::A), Some(WinReason::Time))
    );
    assert_eq!(res.rules, preset("unc-im-300"));
    let json = serde_json::to_value(&res).unwrap();
    assert_eq!(json["hands"][0]["a"]["made"], json!(true));
    assert_eq!(json["winner"], json!("a"));
    assert_eq!(json["reason"], json!("time"));
}
