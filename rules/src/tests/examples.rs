//! Every worked example of the original rule documents (000–004, docs/scoring.md §1.3), under the preset that
//! encodes the document (docs/scoring.md §5.2), each citing the document and the example.

use serde_json::json;

use super::support::*;
use crate::state::{GameState, Stage, WinReason};
use crate::team::Team;

fn won(winner: Team, reason: WinReason) -> GameState {
    GameState::Won { winner, reason }
}

// ---------------------------------------------------------------------------------------
// 000: University of Chicago IM (`chicago-im`)
// ---------------------------------------------------------------------------------------

/// 000, Bidding: "Alex bids 4. Then Beth bids 3, Charlie bids 2 and David bids 2. Alex and
/// Charlie need to win at least 6 tricks; Beth and David need to win at least 5."
/// 000, Scoring: "Beth and David bid 5 tricks and they won 7 tricks. They score 52 points (50
/// for the tricks bid, plus 2 for the extras, which are known as "bags.")"
#[test]
fn doc000_contracts_add_and_bid_5_won_7_scores_52() {
    let r = preset("chicago-im");
    // Alex seat 1, Beth seat 2, Charlie seat 3, David seat 4.
    let s = one(&r, hj(json!([4, 2]), [4, 2], json!([3, 2]), [4, 3]));
    assert_eq!(s.a.contract, 6);
    assert_eq!(s.b.contract, 5);
    assert_eq!(s.b.made, Some(true));
    assert_eq!(s.b.contract_points, 50);
    assert_eq!(s.b.bag_points, 2);
    assert_eq!(s.b.bags, 2);
    assert_eq!(s.b.points, 52);
    assert_eq!(s.a.points, 60);
    assert_eq!(scores(&s), (60, 52));
}

/// 000, Bidding Nil: "Alex bids 4. Charlie, her partner, bids Nil. ... Alex needs to win at
/// least four tricks." A made nil is a 100-point bonus.
#[test]
fn doc000_nil_partner_still_needs_own_bid() {
    let r = preset("chicago-im");
    let s = one(&r, hj(json!([4, "nil"]), [4, 0], json!([4, 5]), [5, 4]));
    assert_eq!(s.a.contract, 4);
    assert_eq!(s.a.nil_points, 100);
    assert_eq!(s.a.contract_points, 40);
    assert_eq!(s.a.points, 140);
    // Alex takes only 3: set, and the made nil still scores.
    let s = one(&r, hj(json!([4, "nil"]), [3, 0], json!([4, 5]), [5, 5]));
    assert_eq!(s.a.made, Some(false));
    assert_eq!(s.a.points, 100 - 40);
}

/// 000, Bidding Nil: "if the player wins one or more tricks, their partnership receives a
/// 100-point penalty." and Scoring: "When a player bidding Nil fails, tricks won by that
/// player don't count toward making their partner's bid, nor do they count as bags."
#[test]
fn doc000_failed_nil_tricks_neither_help_nor_bag() {
    let r = preset("chicago-im");
    // Partner bid 4 and took 3; the nil player took 2: still set.
    let s = one(&r, hj(json!([4, "nil"]), [3, 2], json!([4, 4]), [4, 4]));
    assert_eq!(s.a.tricks_counted, 3);
    assert_eq!(s.a.made, Some(false));
    assert_eq!(s.a.nil_points, -100);
    assert_eq!(s.a.points, -140);
    // Partner bid 3 and took 3; the nil player's 2 tricks are not bags.
    let s = one(&r, hj(json!([3, "nil"]), [3, 2], json!([4, 4]), [4, 4]));
    assert_eq!(s.a.made, Some(true));
    assert_eq!(s.a.bag_points, 0);
    assert_eq!(s.a.bags, 0);
    assert_eq!(s.a.points, 30 - 100);
}

/// 000, Bidding Nil note: "If both are successful, the partnership earns a 200-point bonus.
/// However, if both partners fail, the partnership receives a 200-point penalty. If one
/// partner succeeds and the other fails ... the net effect is 0 points." Bid as "nil" and as
/// 0 (000: "Any number from 0 ("Nil") to 13").
#[test]
fn doc000_both_nil_200_minus_200_and_0() {
    let r = preset("chicago-im");
    for nil in [json!("nil"), json!(0)] {
        let bids = json!([nil.clone(), nil.clone()]);
        let s = one(&r, hj(bids.clone(), [0, 0], json!([6, 7]), [6, 7]));
        assert_eq!((s.a.nil_points, s.a.points), (200, 200), "both made, {nil}");
        assert_eq!(s.a.contract, 0);
        assert_eq!(s.a.made, None);
        let s = one(&r, hj(bids.clone(), [1, 1], json!([5, 6]), [5, 6]));
        assert_eq!(s.a.points, -200, "both failed, {nil}");
        assert_eq!(s.a.bags, 0, "failed nil tricks are not bags under 000");
        let s = one(&r, hj(bids.clone(), [0, 2], json!([5, 6]), [5, 6]));
        assert_eq!(s.a.points, 0, "one each, {nil}");
        let s = one(&r, hj(bids, [3, 0], json!([5, 5]), [5, 5]));
        assert_eq!(s.a.points, 0, "one each the other way, {nil}");
    }
}

/// 000, Double Nil (OPTIONAL, "Only allowed if agreed to by both teams"): ±200 each; both
/// partners: "a 400-point bonus ... a 400-point penalty ... the net effect is 0 points".
/// Enabled with the override `{"blind_nil": {"when": "always"}}`.
#[test]
fn doc000_double_nil_when_agreed() {
    let r = rules(json!({"preset": "chicago-im", "blind_nil": {"when": "always"}}));
    let s = one(
        &r,
        hj(json!([5, "blind_nil"]), [5, 0], json!([4, 4]), [4, 4]),
    );
    assert_eq!(s.a.nil_points, 200);
    assert_eq!(s.a.points, 250);
    let s = one(
        &r,
        hj(json!([5, "blind_nil"]), [5, 1], json!([4, 4]), [4, 3]),
    );
    assert_eq!(s.a.points, 50 - 200);
    let both = json!(["blind_nil", "blind_nil"]);
    let s = one(&r, hj(both.clone(), [0, 0], json!([6, 7]), [6, 7]));
    assert_eq!(s.a.points, 400);
    let s = one(&r, hj(both.clone(), [2, 1], json!([5, 5]), [5, 5]));
    assert_eq!(s.a.points, -400);
    let s = one(&r, hj(both, [0, 1], json!([6, 6]), [6, 6]));
    assert_eq!(s.a.points, 0);
}

/// 000, Double Nil is optional: without the teams' agreement the preset refuses it.
#[test]
fn doc000_double_nil_refused_by_default() {
    let r = preset("chicago-im");
    let e = refused(
        &r,
        None,
        &[hj(json!([5, "blind_nil"]), [5, 0], json!([4, 4]), [4, 4])],
    );
    assert_eq!(e.code.as_str(), "invalid_hand");
    assert_eq!(e.field.as_ref().map(|f| f.as_str()), Some("bids"));
    assert_eq!(e.hand, 1);
    assert_eq!(
        e.message,
        "hand 1: seat 3 bid blind nil, but these rules do not allow blind nil"
    );
}

/// 000, Scoring: "If a partnership does not meet its bid, it scores -10 points for each
/// trick it bid."
#[test]
fn doc000_set_loses_ten_per_trick_bid() {
    let r = preset("chicago-im");
    let s = one(&r, hj(json!([4, 2]), [3, 2], json!([4, 4]), [4, 4]));
    assert_eq!(s.a.made, Some(false));
    assert_eq!(s.a.points, -60);
}

/// 000, Sandbagging: "Alex and Charlie bid 4 tricks and win 7, then they bid 3 and win 6,
/// then they bid 4 and win 9. They now have 11 bags (3+3+5) and receive a 100-point penalty.
/// The additional bag carries over. If Alex and Charlie win 9 more bags, they receive another
/// penalty."
#[test]
fn doc000_eleven_bags_cost_100_and_one_carries() {
    let r = preset("chicago-im");
    let hands = [
        hj(json!([2, 2]), [4, 3], json!([3, 3]), [3, 3]),
        hj(json!([2, 1]), [3, 3], json!([4, 3]), [4, 3]),
        hj(json!([2, 2]), [5, 4], json!([2, 2]), [2, 2]),
        // "9 more bags": bid 2, win 11.
        hj(json!([1, 1]), [6, 5], json!([1, 1]), [1, 1]),
    ];
    let (game, s) = play_all(&r, Stage::Regular, None, &hands);
    assert_eq!(
        s.iter().map(|h| h.a.bags_taken).collect::<Vec<_>>(),
        [3, 3, 5, 9]
    );
    assert_eq!(s.iter().map(|h| h.a.bags).collect::<Vec<_>>(), [3, 6, 1, 0]);
    assert_eq!(
        s.iter().map(|h| h.a.bag_penalty).collect::<Vec<_>>(),
        [0, 0, -100, -100]
    );
    assert_eq!(
        s.iter().map(|h| h.a.points).collect::<Vec<_>>(),
        [43, 33, 40 + 5 - 100, 20 + 9 - 100]
    );
    assert_eq!(game.total(Team::A).score, 43 + 33 - 55 - 71);
    assert_eq!(game.total(Team::A).bags, 0);
    assert_eq!(game.total(Team::B).score, 60 + 70 + 40 + 20);
}

/// 000, Winning: "The first partnership to reach 500 points is the winner."
#[test]
fn doc000_first_to_500_wins() {
    let r = preset("chicago-im");
    let (game, s) = play_all(&r, Stage::Regular, Some((460, 0, 300, 0)), &[exact(5)]);
    assert_eq!(scores(&s[0]), (510, 380));
    assert_eq!(game.state(), won(Team::A, WinReason::Target));
}

/// 000, Winning: "If both partnerships reach 500 in the same hand, the partnership with the
/// highest score is the winner."
#[test]
fn doc000_both_reach_500_higher_wins() {
    let r = preset("chicago-im");
    let (game, s) = play_all(&r, Stage::Regular, Some((470, 0, 480, 0)), &[exact(4)]);
    assert_eq!(scores(&s[0]), (510, 570));
    assert_eq!(game.state(), won(Team::B, WinReason::Target));
}

/// 000, Winning: "Regular season games may end in a tie if both teams end a hand with the
/// exact same number of points of 500 or more. In the playoffs, if there is a tie, play
/// another hand to determine the winner: The team with the higher score at the end of the
/// next hand wins, whether or not it is 500 or above."
#[test]
fn doc000_tie_is_a_draw_in_season_and_a_tiebreak_hand_in_playoffs() {
    let r = preset("chicago-im");
    let tie = exact(7); // a +70, b +60
    let (game, s) = play_all(&r, Stage::Regular, Some((460, 0, 470, 0)), &[tie.clone()]);
    assert_eq!(scores(&s[0]), (530, 530));
    assert_eq!(game.state(), GameState::Tied);

    // Playoffs: a tie-break hand where both teams are set and end below 500.
    let both_set = hj(json!([5, 5]), [3, 3], json!([4, 4]), [4, 3]);
    let (game, s) = play_all(&r, Stage::Playoff, Some((460, 0, 470, 0)), &[tie, both_set]);
    assert_eq!(s[0].state, GameState::Tiebreak);
    assert!(s[1].tiebreak, "the hand after a tie is a tie-break hand");
    assert_eq!(scores(&s[1]), (430, 450));
    assert_eq!(game.state(), won(Team::B, WinReason::Tiebreak));
}

// ---------------------------------------------------------------------------------------
// 001: Short online summary (`classic`)
// ---------------------------------------------------------------------------------------

/// 001, Nil: "This scores 50 points if accomplished, in addition to the points scored for
/// his/her partner. It scores -50 if it fails."
#[test]
fn doc001_nil_plus_minus_50() {
    let r = preset("classic");
    let s = one(&r, hj(json!([4, "nil"]), [4, 0], json!([5, 4]), [5, 4]));
    assert_eq!((s.a.nil_points, s.a.points), (50, 90));
    // The failed nil's trick counts for the team under `classic` (003), so 4 is made.
    let s = one(&r, hj(json!([4, "nil"]), [3, 1], json!([5, 4]), [5, 4]));
    assert_eq!((s.a.nil_points, s.a.points), (-50, -10));
}

/// 001, Blind Nil: "When partners are losing by more than 100 points, they are given the
/// option of bidding blind nil. ... If successful, they gain 100 points, and lose 100 points
/// if unsuccessful."  (003 says the same: "If a team is behind by more than 100 points".)
#[test]
fn doc001_blind_nil_only_more_than_100_behind() {
    let r = preset("classic");
    let bn = hj(json!([5, "blind_nil"]), [5, 0], json!([4, 4]), [4, 4]);
    let s = one_from(&r, (0, 0, 101, 0), bn.clone());
    assert_eq!((s.a.nil_points, s.a.points), (100, 150));
    let s = one_from(
        &r,
        (0, 0, 101, 0),
        hj(json!([5, "blind_nil"]), [4, 1], json!([4, 4]), [4, 4]),
    );
    assert_eq!((s.a.nil_points, s.a.points), (-100, -50));
    // Exactly 100 behind is not "more than 100".
    let e = refused(&r, Some((0, 0, 100, 0)), &[bn.clone()]);
    assert_eq!(e.field.as_ref().map(|f| f.as_str()), Some("bids"));
    assert_eq!(
        e.message,
        "hand 1: seat 3 bid blind nil, but blind nil needs the team more than 100 behind; team a is 100 behind"
    );
    // Level or ahead: refused too.
    let e = refused(&r, None, &[bn.clone()]);
    assert!(e.message.ends_with("team a is level"), "{}", e.message);
    let e = refused(&r, Some((150, 0, 0, 0)), &[bn]);
    assert!(e.message.ends_with("team a is 150 ahead"), "{}", e.message);
}

/// 001, Scores: "If a side takes tricks over the bid, they get 1 point for each overtrick.
/// When these overtricks add up to 10 points, 100 points is deducted from their score."
#[test]
fn doc001_ten_overtricks_cost_100() {
    let r = preset("classic");
    let s = one_from(
        &r,
        (0, 8, 0, 0),
        hj(json!([3, 3]), [5, 4], json!([2, 2]), [2, 2]),
    );
    assert_eq!(s.a.bags_taken, 3);
    assert_eq!(s.a.bag_penalty, -100);
    assert_eq!(s.a.bags, 1);
    assert_eq!(s.a.points, 60 + 3 - 100);
}

// ---------------------------------------------------------------------------------------
// 002: UNC IM (`unc-im-300`, championship `unc-im-500`)
// ---------------------------------------------------------------------------------------

/// 002, Scoring 1 and 2 and Underbidding: "a team bids 7 tricks and takes 7 tricks, they earn
/// 70 points" / "bids 7 tricks and takes 8 tricks, they earn 71 points" / "bids 7 tricks and
/// takes 5 tricks; the team will be penalized 70 points."
#[test]
fn doc002_bid_7_scores_70_71_and_minus_70() {
    let r = preset("unc-im-300");
    let s = one(&r, hj(json!([4, 3]), [4, 3], json!([3, 3]), [3, 3]));
    assert_eq!(s.a.points, 70);
    let s = one(&r, hj(json!([4, 3]), [5, 3], json!([2, 2]), [3, 2]));
    assert_eq!((s.a.points, s.a.bag_points, s.a.bags), (71, 1, 1));
    let s = one(&r, hj(json!([4, 3]), [3, 2], json!([4, 4]), [4, 4]));
    assert_eq!((s.a.made, s.a.points), (Some(false), -70));
}

/// 002, Scoring Nil, "One partner bids nil and the other partner bids 5 tricks": Situation #1
/// 110, #2 10, #3 −10, #4 −110 (nil ±60 in games to 300, 50 for the bid of 5); and the same
/// situations in games to 500 (nil ±100): 150, 50, −50, −150.
#[test]
fn doc002_nil_and_partner_5_situations_1_to_4() {
    let situations = [
        // (a's tricks [partner, nil], b's bids, b's tricks)
        ([5, 0], json!([4, 4]), [4, 4]), // #1 both make their bid
        ([4, 0], json!([4, 4]), [5, 4]), // #2 nil made, partner set
        ([5, 1], json!([4, 3]), [4, 3]), // #3 nil fails, partner gets 5
        ([3, 1], json!([5, 4]), [5, 4]), // #4 nil fails, partner set
    ];
    for (name, expected) in [
        ("unc-im-300", [110, 10, -10, -110]),
        ("unc-im-500", [150, 50, -50, -150]),
    ] {
        let r = preset(name);
        for (i, (tricks, b_bids, b_tricks)) in situations.iter().enumerate() {
            let s = one(
                &r,
                hj(json!([5, "nil"]), *tricks, b_bids.clone(), *b_tricks),
            );
            assert_eq!(s.a.points, expected[i], "{name} situation #{}", i + 1);
            assert_eq!(s.a.bags, 0, "{name} situation #{}: no bags", i + 1);
        }
    }
}

/// 002, Scoring Nil: "If both partners make their nil bid then the team will receive 120
/// points (in games played to 300) and 200 points (in games played to 500). If one partner
/// makes their nil bid and the other partner does not, then the team will receive 0 points.
/// If both partners fail ... lose 120 points (...300) and 200 points (...500)."
#[test]
fn doc002_both_nil_120_0_minus_120_and_200_0_minus_200() {
    for (name, v) in [("unc-im-300", 120), ("unc-im-500", 200)] {
        let r = preset(name);
        let nn = json!(["nil", "nil"]);
        let s = one(&r, hj(nn.clone(), [0, 0], json!([6, 7]), [6, 7]));
        assert_eq!(s.a.points, v, "{name} both made");
        let s = one(&r, hj(nn.clone(), [0, 1], json!([6, 6]), [6, 6]));
        assert_eq!(s.a.points, 0, "{name} one each");
        let s = one(&r, hj(nn, [1, 1], json!([5, 6]), [5, 6]));
        assert_eq!(s.a.points, -v, "{name} both failed");
    }
}

/// 002, Blind Nil: "A team must be down by a minimum of 100 points to make a blind nil bid"
/// and it scores ±120 (to 300) / ±200 (to 500); "the hand is also scored normally".
#[test]
fn doc002_blind_nil_at_least_100_down() {
    for (name, v) in [("unc-im-300", 120), ("unc-im-500", 200)] {
        let r = preset(name);
        let bn = hj(json!([5, "blind_nil"]), [5, 0], json!([4, 4]), [4, 4]);
        let s = one_from(&r, (0, 0, 100, 0), bn.clone());
        assert_eq!(s.a.points, 50 + v, "{name}: exactly 100 down is allowed");
        let s = one_from(
            &r,
            (0, 0, 100, 0),
            hj(json!([5, "blind_nil"]), [5, 1], json!([4, 3]), [4, 3]),
        );
        assert_eq!(s.a.points, 50 - v, "{name}: failed blind nil");
        let e = refused(&r, Some((0, 0, 99, 0)), &[bn]);
        assert_eq!(
            e.message,
            "hand 1: seat 3 bid blind nil, but blind nil needs the team at least 100 behind; team a is 99 behind",
            "{name}"
        );
        assert_eq!(
            (e.field.as_ref().map(|f| f.as_str()), e.team, e.player),
            (Some("bids"), Some(Team::A), Some(1))
        );
    }
}

/// 002, The Bidding 2: "Each team must bid a minimum of four tricks ... If one player bids
/// nil, their partner must still bid a minimum of four tricks. The only exception is if both
/// players on a team bid nil."
#[test]
fn doc002_minimum_team_bid_of_four() {
    let r = preset("unc-im-300");
    let e = refused(
        &r,
        None,
        &[hj(json!([2, 1]), [2, 1], json!([5, 5]), [5, 5])],
    );
    assert_eq!(
        e.message,
        "hand 1: team a bid 3; the minimum team bid is 4 unless both partners bid nil"
    );
    assert_eq!(
        (e.field.as_ref().map(|f| f.as_str()), e.team),
        (Some("bids"), Some(Team::A))
    );
    let e = refused(
        &r,
        None,
        &[hj(json!([5, 5]), [5, 5], json!([3, "nil"]), [3, 0])],
    );
    assert_eq!(
        e.message,
        "hand 1: team b bid 3; the minimum team bid is 4 unless both partners bid nil"
    );
    assert_eq!(e.team, Some(Team::B));
    let s = one(&r, hj(json!([5, 5]), [5, 4], json!([4, "nil"]), [4, 0]));
    assert_eq!(s.b.points, 40 + 60);
    let s = one(&r, hj(json!([6, 7]), [6, 7], json!(["nil", "nil"]), [0, 0]));
    assert_eq!(s.b.points, 120);
}

/// 002, The Bidding 6: "10 for 200 — A team that bids 10 or more tricks will receive 120
/// points (in games played to 300) and 200 points (in games played to 500)."
#[test]
fn doc002_ten_for_200() {
    for (name, v) in [("unc-im-300", 120), ("unc-im-500", 200)] {
        let r = preset(name);
        let s = one(&r, hj(json!([5, 5]), [5, 5], json!([2, 2]), [2, 1]));
        assert_eq!((s.a.contract_points, s.a.points), (v, v), "{name}");
        assert_eq!(s.b.points, -40);
        let s = one(&r, hj(json!([6, 5]), [6, 6], json!([2, 2]), [1, 0]));
        assert_eq!(s.a.points, v + 1, "{name}: 11 bid, 12 taken");
        // A set 10-for-200 loses 10 per trick bid (the preset's `set = per_bid_trick`).
        let s = one(&r, hj(json!([5, 5]), [5, 4], json!([2, 2]), [2, 2]));
        assert_eq!(s.a.points, -100, "{name}: set");
    }
}

/// 002, Scoring 3: "A team can accumulate 6 sandbags, but on the 6th Sandbag the team will be
/// penalized 60 points. The sandbag count will be reset to zero." Reading taken (docs/scoring.md §6.1): bags
/// past the 6th in the same hand start the new count (`carry`).
#[test]
fn doc002_six_bag_rule() {
    let r = preset("unc-im-300");
    let five = hj(json!([2, 2]), [5, 4], json!([2, 2]), [2, 2]);
    let (_, s) = play_all(
        &r,
        Stage::Regular,
        None,
        &[
            five.clone(),
            hj(json!([2, 2]), [3, 2], json!([4, 4]), [4, 4]),
        ],
    );
    assert_eq!((s[0].a.bags, s[0].a.bag_penalty), (5, 0));
    assert_eq!(
        (s[1].a.bags, s[1].a.bag_penalty),
        (0, -60),
        "6th bag, reset"
    );
    assert_eq!(s[1].a.points, 40 + 1 - 60);
    // 3 bags on top of 5: the 6th costs 60, the 7th and 8th start the new count.
    let (_, s) = play_all(
        &r,
        Stage::Regular,
        None,
        &[five, hj(json!([2, 2]), [4, 3], json!([3, 3]), [3, 3])],
    );
    assert_eq!((s[1].a.bags, s[1].a.bag_penalty), (2, -60));
}

/// 002, Scoring 3, Exception: "During the championship game (played to 500), the sandbag
/// limit is ten. On the 10th sandbag, the team will be penalized 100 points."
#[test]
fn doc002_championship_ten_bag_rule() {
    let r = preset("unc-im-500");
    let s = one_from(
        &r,
        (0, 6, 0, 0),
        hj(json!([2, 2]), [4, 3], json!([3, 3]), [3, 3]),
    );
    assert_eq!((s.a.bags, s.a.bag_penalty), (9, 0));
    let s = one_from(
        &r,
        (0, 7, 0, 0),
        hj(json!([2, 2]), [4, 3], json!([3, 3]), [3, 3]),
    );
    assert_eq!((s.a.bags, s.a.bag_penalty), (0, -100));
}

/// 002, The Play 4: "the team will forfeit 3 tricks to the opposing team. The team receiving
/// the tricks will be awarded 30 points. The offending team will need to make their original
/// bid or be penalized according to their original bid." Reading taken (docs/scoring.md §6.1): the 3 tricks are
/// ordinary tricks for the receiving team (towards its bid and as bags), plus 30 points.
#[test]
fn doc002_revoke_three_tricks_and_30_points() {
    let r = preset("unc-im-300");
    // a bid 7 and took 8 but revoked: 5 counted, set.
    let s = one(
        &r,
        with(
            hj(json!([4, 3]), [4, 4], json!([2, 2]), [3, 2]),
            json!({"revokes": {"a": 1}}),
        ),
    );
    assert_eq!(
        (s.a.tricks_counted, s.a.made, s.a.points),
        (5, Some(false), -70)
    );
    assert_eq!(s.a.revoke_award, 0);
    assert_eq!(s.b.tricks_counted, 8);
    assert_eq!(
        (s.b.contract_points, s.b.bag_points, s.b.revoke_award),
        (40, 4, 30)
    );
    assert_eq!((s.b.points, s.b.bags), (74, 4));
    // The offending team may still make its bid.
    let s = one(
        &r,
        with(
            hj(json!([2, 2]), [5, 4], json!([2, 2]), [2, 2]),
            json!({"revokes": {"a": 1}}),
        ),
    );
    assert_eq!((s.a.tricks_counted, s.a.points), (6, 42));
    assert_eq!((s.b.tricks_counted, s.b.points), (7, 40 + 3 + 30));
}

/// 002, Game Time 4: "If the time limit expires ... the game will be finished to determine
/// the winner ... If the game is tied the score for next hand will determine the winner"
/// (reading taken, docs/scoring.md §6.1: the hand in play is finished, then the higher score wins; tied, the
/// next hand decides).
#[test]
fn doc002_time_limit() {
    let r = preset("unc-im-300");
    let timed = |h| with(h, json!({"time_called": true}));
    let (game, s) = play_all(
        &r,
        Stage::Regular,
        Some((150, 0, 120, 0)),
        &[timed(exact(6))],
    );
    assert_eq!(scores(&s[0]), (210, 190));
    assert_eq!(
        game.state(),
        won(Team::A, WinReason::Time),
        "below the target"
    );
    // Tied when time is called: a tie-break hand (with a misdeal in between), below 300.
    let (game, s) = play_all(
        &r,
        Stage::Regular,
        Some((150, 0, 140, 0)),
        &[timed(exact(6)), json!({"misdeal": true}), exact(5)],
    );
    assert_eq!(scores(&s[0]), (210, 210));
    assert_eq!(s[0].state, GameState::Tiebreak);
    assert_eq!(s[1].state, GameState::Tiebreak, "a misdeal decides nothing");
    assert!(s[2].tiebreak);
    assert_eq!(scores(&s[2]), (260, 290));
    assert_eq!(game.state(), won(Team::B, WinReason::Tiebreak));
}

/// 002, Game Scoring 3: "Games will be played to 300 ... Should both teams reach 300 on the
/// same deal, the team with the higher score wins." (3a: the championship to 500.)
#[test]
fn doc002_to_300_and_to_500() {
    let r = preset("unc-im-300");
    let (game, _) = play_all(&r, Stage::Regular, Some((250, 0, 200, 0)), &[exact(5)]);
    assert_eq!(game.state(), won(Team::A, WinReason::Target), "300 reached");
    let (game, _) = play_all(&r, Stage::Regular, Some((260, 0, 250, 0)), &[exact(4)]);
    assert_eq!(
        (game.total(Team::A).score, game.total(Team::B).score),
        (300, 340)
    );
    assert_eq!(game.state(), won(Team::B, WinReason::Target));
    let r = preset("unc-im-500");
    let (game, _) = play_all(&r, Stage::Final, Some((250, 0, 200, 0)), &[exact(5)]);
    assert_eq!(game.state(), GameState::InProgress, "300 is not 500");
}

/// 002, Misdeal: a misdeal is redealt; docs/scoring.md §2.3: it scores nothing, changes nothing and
/// keeps its place in the record.
#[test]
fn doc002_misdeal_scores_nothing() {
    let r = preset("unc-im-300");
    let (game, s) = play_all(
        &r,
        Stage::Regular,
        Some((100, 3, 80, 2)),
        &[json!({"misdeal": true}), exact(5)],
    );
    assert_eq!(s[0].number, 1);
    assert_eq!((s[0].a.points, s[0].b.points), (0, 0));
    assert_eq!(
        (s[0].a.score, s[0].a.bags, s[0].b.score, s[0].b.bags),
        (100, 3, 80, 2)
    );
    assert_eq!(s[1].number, 2);
    assert_eq!(game.hands_played(), 2);
    assert_eq!(scores(&s[1]), (150, 160));
}

// ---------------------------------------------------------------------------------------
// 003: Classic (McLeod) and its variations (`classic` with overrides)
// ---------------------------------------------------------------------------------------

/// 003, Scoring: "If a player bids nil and does take tricks, the teams score is reduced by
/// 50 points (the tricks the nil bidder took may be used towards the teams bid, though)."
#[test]
fn doc003_failed_nil_tricks_count_toward_bid() {
    let r = preset("classic");
    let s = one(&r, hj(json!([4, "nil"]), [3, 2], json!([4, 4]), [4, 4]));
    assert_eq!(s.a.tricks_counted, 5);
    assert_eq!(s.a.made, Some(true));
    assert_eq!(
        (s.a.bag_points, s.a.bags),
        (1, 1),
        "past the bid they are bags"
    );
    assert_eq!(s.a.points, 40 + 1 - 50);
}

/// 003, Scoring: "This reduction is taken for every 10 overtricks." Several in one hand.
#[test]
fn doc003_every_ten_overtricks() {
    let r = preset("classic");
    let s = one_from(
        &r,
        (0, 9, 0, 0),
        hj(json!([1, 0]), [7, 6], json!([0, 0]), [0, 0]),
    );
    assert_eq!(s.a.bags_taken, 12);
    assert_eq!((s.a.bag_penalty, s.a.bags), (-200, 1));
}

/// 003, Variations in scoring: "If team fails to take number of tricks bid, their score is
/// reduced by 10 times the number of tricks bid ... (e.g. A team bids 8, but takes only 7.
/// Their score is reduced by 80 points.)" — the preset's reading; 003's own text ("reduced 10
/// points for each trick they fell short") is `set_penalty: per_short_trick`.
#[test]
fn doc003_bid_8_take_7() {
    let h = hj(json!([4, 4]), [4, 3], json!([3, 3]), [3, 3]);
    let s = one(&preset("classic"), h.clone());
    assert_eq!(s.a.points, -80);
    let literal = rules(json!({"preset": "classic", "set_penalty": "per_short_trick"}));
    let s = one(&literal, h);
    assert_eq!(s.a.points, -10);
}

/// 003, Variations in scoring: "Nil bid counts 100, Blind Nil counts 200." and "Game may be
/// played to 300 (or 400) points."
#[test]
fn doc003_nil_100_blind_200_and_game_to_300() {
    let r = rules(
        json!({"preset": "classic", "nil": 100, "blind_nil": {"value": 200},
                         "target": 300}),
    );
    let s = one(&r, hj(json!([4, "nil"]), [4, 0], json!([5, 4]), [5, 4]));
    assert_eq!(s.a.points, 140);
    let s = one_from(
        &r,
        (0, 0, 150, 0),
        hj(json!([4, "blind_nil"]), [4, 0], json!([5, 4]), [5, 4]),
    );
    assert_eq!(s.a.points, 240);
    let (game, _) = play_all(&r, Stage::Regular, Some((250, 0, 0, 0)), &[exact(5)]);
    assert_eq!(game.state(), won(Team::A, WinReason::Target));
}

/// 003, Variations in scoring: "Tricks taken over the amount of the bid count as -1 instead
/// of +1." / "... as -10 instead of +1. (100 point penalty for accumulating 10 extra tricks
/// does not apply.)" and "There is no penalty for accumulating extra tricks."
#[test]
fn doc003_overtricks_minus_1_minus_10_or_free() {
    let h = hj(json!([3, 3]), [5, 4], json!([2, 2]), [2, 2]);
    for (value, expected) in [(-1, 60 - 3), (-10, 60 - 30), (1, 60 + 3)] {
        let r = rules(json!({"preset": "classic", "bags": {"limit": null, "value": value}}));
        let s = one_from(&r, (0, 9, 0, 0), h.clone());
        assert_eq!(s.a.points, expected, "value {value}");
        assert_eq!(s.a.bag_penalty, 0, "value {value}: no penalty at 10");
    }
}

/// 003, Variations in scoring/bidding: "Moon bidding may be allowed. This is a bid to take all
/// 13 tricks. It is worth 200 points (+ or -)." and "Blind Moon ... is worth 400 points".
#[test]
fn doc003_moon_200_and_blind_moon_400() {
    let r = rules(json!({"preset": "classic", "moon": {}, "blind_bids": {}}));
    let moon = hj(json!([7, 6]), [7, 6], json!([0, 0]), [0, 0]);
    let s = one(&r, moon.clone());
    assert_eq!(s.a.contract_points, 200);
    let s = one(&r, hj(json!([7, 6]), [7, 5], json!([0, 0]), [1, 0]));
    assert_eq!(s.a.contract_points, -200);
    let blind = with(moon, json!({"a": {"blind": true}}));
    let s = one_from(&r, (0, 0, 100, 0), blind.clone());
    assert_eq!(s.a.contract_points, 400);
    assert!(s.a.blind);
    let s = one_from(
        &r,
        (0, 0, 100, 0),
        with(
            hj(json!([7, 6]), [6, 6], json!([0, 0]), [1, 0]),
            json!({"a": {"blind": true}}),
        ),
    );
    assert_eq!(s.a.contract_points, -400);
}

/// 003, Variations in bidding: "Blind 6 (or Blind 7) bidding may be allowed. ... It is then
/// worth double the normal contract (either positive or negative). 6 or 7 is the minimum
/// blind bid allowed." and "Blind bidding is only allowed when a team is 100 or more points
/// behind."
#[test]
fn doc003_blind_six_doubles() {
    let r = rules(json!({"preset": "classic", "blind_bids": {}}));
    let blind = |h| with(h, json!({"a": {"blind": true}}));
    let s = one_from(
        &r,
        (0, 0, 100, 0),
        blind(hj(json!([3, 3]), [4, 3], json!([3, 3]), [3, 3])),
    );
    assert_eq!(
        (s.a.contract_points, s.a.bag_points, s.a.points),
        (120, 1, 121)
    );
    let s = one_from(
        &r,
        (0, 0, 100, 0),
        blind(hj(json!([3, 3]), [3, 2], json!([4, 4]), [4, 4])),
    );
    assert_eq!(s.a.points, -120);
    let e = refused(
        &r,
        Some((0, 0, 99, 0)),
        &[blind(hj(json!([3, 3]), [3, 3], json!([4, 3]), [4, 3]))],
    );
    assert_eq!(
        e.message,
        "hand 1: team a may not bid blind now: it is 99 behind"
    );
    let e = refused(
        &r,
        Some((0, 0, 100, 0)),
        &[blind(hj(json!([3, 2]), [3, 2], json!([4, 4]), [4, 4]))],
    );
    assert_eq!(
        e.message,
        "hand 1: team a's blind bid is 5; a blind bid is at least 6"
    );
    assert_eq!(
        (e.field.as_ref().map(|f| f.as_str()), e.team),
        (Some("blind"), Some(Team::A))
    );
}

/// 003, Variations in scoring: "A 10-for-200 bid is allowed. This is a bid to take exactly 10
/// tricks (or at least 10 tricks) for 200 points (+ or -)." — `ten_for_200` with `set: flat`.
#[test]
fn doc003_ten_for_200_plus_or_minus() {
    let r = rules(json!({"preset": "classic", "ten_for_200": {"set": "flat"}}));
    let s = one(&r, hj(json!([5, 5]), [5, 5], json!([2, 1]), [2, 1]));
    assert_eq!(s.a.points, 200);
    let s = one(&r, hj(json!([5, 5]), [5, 4], json!([2, 2]), [2, 2]));
    assert_eq!(s.a.points, -200);
}

/// 003, Variations in scoring: "Taking all 13 tricks wins the game." / "A successful moon bid
/// (or blind moon) bid wins the game." — `moon.wins_game`.
#[test]
fn doc003_moon_wins_the_game() {
    let r = rules(json!({"preset": "classic", "moon": {"wins_game": true}}));
    let (game, s) = play_all(
        &r,
        Stage::Regular,
        None,
        &[hj(json!([7, 6]), [7, 6], json!([0, 0]), [0, 0])],
    );
    assert_eq!(s[0].a.score, 200);
    assert_eq!(game.state(), won(Team::A, WinReason::Moon));
}

/// 003, Variations in bidding: "A bid of zero and a bid of nil may or may not be considered
/// different." — `zero_bid_is_nil`.
#[test]
fn doc003_zero_and_nil_same_or_different() {
    let h = hj(json!([4, 0]), [4, 0], json!([5, 4]), [5, 4]);
    let s = one(&preset("classic"), h.clone());
    assert_eq!((s.a.nil_points, s.a.points), (0, 40), "0 is a bid of 0");
    let r = rules(json!({"preset": "classic", "zero_bid_is_nil": true}));
    let s = one(&r, h);
    assert_eq!((s.a.nil_points, s.a.points), (50, 90), "0 is nil");
}

// ---------------------------------------------------------------------------------------
// 004: Partnership Spades (`partnership`)
// ---------------------------------------------------------------------------------------

/// 004, Tallying Up the Score: "You bid 3. Your partner bid was 2. Your combined total of
/// tricks taken ended up being 7. You scored 52 points that round."
#[test]
fn doc004_bid_3_and_2_took_7_scores_52() {
    let s = one(
        &preset("partnership"),
        hj(json!([3, 2]), [4, 3], json!([3, 3]), [3, 3]),
    );
    assert_eq!((s.a.contract, s.a.points, s.a.bags), (5, 52, 2));
}

/// 004: "So if your team bid 5 and only took 4, then you would lose 50 points".
#[test]
fn doc004_bid_5_took_4_loses_50() {
    let s = one(
        &preset("partnership"),
        hj(json!([3, 2]), [2, 2], json!([4, 5]), [5, 4]),
    );
    assert_eq!(s.a.points, -50);
}

/// 004: "your teammate bid nil and you bid 5, and you are both successful. He will score 100
/// points and you will score 50, for a total of 150 points" / "if he fails his nil ... and
/// you still fail to get a total of 5 tricks between you, you'll be taking 150 points off".
#[test]
fn doc004_nil_and_5_plus_150_minus_150() {
    let r = preset("partnership");
    let s = one(&r, hj(json!([5, "nil"]), [5, 0], json!([4, 4]), [4, 4]));
    assert_eq!(s.a.points, 150);
    let s = one(&r, hj(json!([5, "nil"]), [3, 1], json!([5, 4]), [5, 4]));
    assert_eq!(s.a.points, -150);
}

/// 004: "he will earn 100 points for a nil bid or 200 points for a blind nil. If he takes any
/// tricks, he will lose 100 points or 200 points respectively." (blind nil at any score)
#[test]
fn doc004_blind_nil_200() {
    let r = preset("partnership");
    let s = one_from(
        &r,
        (300, 0, 0, 0),
        hj(json!([5, "blind_nil"]), [5, 0], json!([4, 4]), [4, 4]),
    );
    assert_eq!(s.a.points, 250, "even 300 ahead");
    let s = one(
        &r,
        hj(json!([5, "blind_nil"]), [5, 1], json!([4, 3]), [4, 3]),
    );
    assert_eq!(s.a.points, 50 - 200);
}

/// 004: "If your sandbag total hits 10, your team loses 100 points. Once you hit 20 bags, you
/// lose another 100 points, and so on."
#[test]
fn doc004_bags_at_10_and_20() {
    let r = preset("partnership");
    let six = hj(json!([2, 2]), [5, 5], json!([2, 1]), [2, 1]);
    let eight = hj(json!([1, 1]), [5, 5], json!([2, 1]), [2, 1]);
    let (game, s) = play_all(&r, Stage::Regular, None, &[six.clone(), six, eight]);
    assert_eq!(
        s.iter()
            .map(|h| (h.a.bags, h.a.bag_penalty))
            .collect::<Vec<_>>(),
        [(6, 0), (2, -100), (0, -100)]
    );
    assert_eq!(game.total(Team::A).score, 46 + 46 - 100 + 28 - 100);
}

/// 004: "If both teams reach this set point on the same round, then the team with the
/// highest score wins."
#[test]
fn doc004_both_reach_higher_wins() {
    let r = preset("partnership");
    let (game, _) = play_all(&r, Stage::Regular, Some((480, 0, 450, 0)), &[exact(6)]);
    assert_eq!(
        (game.total(Team::A).score, game.total(Team::B).score),
        (540, 520)
    );
    assert_eq!(game.state(), won(Team::A, WinReason::Target));
}
