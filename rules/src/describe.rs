//! The rules in plain words, generated from the resolved parameters, for the rules pages.

use super::params::{
    BagOverflow, Bags, BlindBids, BlindWhen, FailedNilTricks, Moon, Revoke, Rules, SetPenalty,
    TenFor200, TenFor200Set, TieRule,
};

/// One rule as a line of the rules page: a short name and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleLine {
    pub topic: &'static str,
    pub text: String,
}

fn signed(points: i32) -> String {
    if points >= 0 {
        format!("+{points}")
    } else {
        format!("−{}", -points)
    }
}

fn blind_condition(when: BlindWhen, deficit: i32) -> String {
    match when {
        BlindWhen::Never => "never allowed".into(),
        BlindWhen::Always => "allowed at any score".into(),
        BlindWhen::BehindAtLeast => {
            format!("allowed only to a team at least {deficit} points behind")
        }
        BlindWhen::BehindMoreThan => {
            format!("allowed only to a team more than {deficit} points behind")
        }
    }
}

/// Every rule of the set, in the order a player meets them.
pub fn describe(rules: &Rules) -> Vec<RuleLine> {
    let ten = rules.ten_for_200.as_ref();
    [
        Some(("Game", game(rules.target))),
        Some(("Time limit", time_limit(rules.time_limit_minutes))),
        Some(("Bidding", bidding(rules.min_team_bid))),
        Some(("Nil", nil(rules))),
        Some(("Blind nil", blind_nil(rules))),
        Some(("Contract", contract(ten, rules.set_penalty))),
        ten.map(|t| ("10 for 200 set", ten_for_200_set(t))),
        Some(("Bags", bags(&rules.bags))),
        rules.revoke.as_ref().map(|r| ("Revoke", revoke(r))),
        rules.moon.as_ref().map(|m| ("Moon", moon(m))),
        rules
            .blind_bids
            .as_ref()
            .map(|b| ("Blind bids", blind_bids(b))),
        rules.loss_floor.map(|f| ("Loss floor", loss_floor(f))),
        Some(("Ties", ties(rules.regular_season_ties))),
        Some(("Misdeal", misdeal())),
    ]
    .into_iter()
    .flatten()
    .map(|(topic, text)| RuleLine { topic, text })
    .collect()
}

fn game(target: i32) -> String {
    format!(
        "The first team to reach {} points wins. If both reach it on the same hand, the higher score wins.",
        target
    )
}

fn time_limit(minutes: Option<u32>) -> String {
    match minutes {
        None => "No time limit.".into(),
        Some(m) => format!(
            "{m} minutes. When time runs out, the hand in play is finished and the higher score wins, whatever the target."
        ),
    }
}

fn bidding(min_team_bid: u8) -> String {
    if min_team_bid > 0 {
        format!(
            "Each player bids 0 to 13 tricks; partners' bids add up to the team's contract. A team must bid at least {} unless both partners bid nil; with one nil, the partner alone must bid at least {}.",
            min_team_bid, min_team_bid
        )
    } else {
        "Each player bids 0 to 13 tricks; partners' bids add up to the team's contract.".into()
    }
}

fn nil(rules: &Rules) -> String {
    match rules.nil {
        None => "Nil may not be bid.".into(),
        Some(v) => {
            let zero = if rules.zero_bid_is_nil {
                " A bid of 0 is a nil bid."
            } else {
                " A bid of 0 is not nil: it is a contract of no tricks."
            };
            let tricks = failed_nil_tricks(rules.failed_nil_tricks);
            format!(
                "{} if the bidder takes no trick, {} otherwise; the partner's bid is scored as usual. Both partners may bid nil: each is scored on its own.{zero} {tricks}",
                signed(v),
                signed(-v)
            )
        }
    }
}

fn failed_nil_tricks(rule: FailedNilTricks) -> &'static str {
    match rule {
        FailedNilTricks::Ignore => {
            "A failed nil's tricks do not count toward the partner's bid, nor as bags."
        }
        FailedNilTricks::CountTowardBid => {
            "A failed nil's tricks count toward the partner's bid (and as bags past it)."
        }
        FailedNilTricks::BagsOnly => {
            "A failed nil's tricks count as bags but never toward the partner's bid."
        }
    }
}

fn blind_nil(rules: &Rules) -> String {
    match rules.blind_nil.when {
        BlindWhen::Never => "Blind nil may not be bid.".into(),
        when => format!(
            "A nil bid before looking at the cards: {} if the bidder takes no trick, {} otherwise; {}.",
            signed(rules.blind_nil.value),
            signed(-rules.blind_nil.value),
            blind_condition(when, rules.blind_nil.deficit)
        ),
    }
}

fn contract(ten: Option<&TenFor200>, set_penalty: SetPenalty) -> String {
    format!(
        "A team that takes at least its contract scores 10 per trick bid{}. A team that falls short (is set) loses {}.",
        match ten {
            Some(t) => format!(
                ", or {} for a contract of {} or more (10 for 200)",
                t.value, t.min_bid
            ),
            None => String::new(),
        },
        match set_penalty {
            SetPenalty::PerBidTrick => "10 per trick bid",
            SetPenalty::PerShortTrick => "10 per trick short of the contract",
        }
    )
}

fn ten_for_200_set(t: &TenFor200) -> String {
    match t.set {
        TenFor200Set::Flat => format!("A set 10-for-200 loses {}.", t.value),
        TenFor200Set::PerBidTrick => "A set 10-for-200 loses what any set loses.".to_string(),
    }
}

fn bags(bags: &Bags) -> String {
    match bags.limit {
        Some(limit) => format!(
            "Each trick over the contract is a bag worth {} point{}. Every {}th bag costs {} points; {}.",
            signed(bags.value),
            if bags.value.abs() == 1 { "" } else { "s" },
            limit,
            bags.penalty,
            match bags.overflow {
                BagOverflow::Carry => "bags past it start the next count",
                BagOverflow::Discard => "the count then goes back to 0, bags past it are dropped",
            }
        ),
        None => format!(
            "Each trick over the contract is worth {} point{}; there is no bag penalty.",
            signed(bags.value),
            if bags.value.abs() == 1 { "" } else { "s" }
        ),
    }
}

fn revoke(r: &Revoke) -> String {
    format!(
        "A team caught failing to follow suit gives {} tricks to the other team (as ordinary tricks, toward its bid), which also gains {} points. The offending team must still make its bid.",
        r.tricks, r.award
    )
}

fn moon(m: &Moon) -> String {
    format!(
        "A contract of all 13 tricks scores {} if made, {} if not{}.",
        signed(m.value),
        signed(-m.value),
        if m.wins_game {
            "; making it wins the game"
        } else {
            ""
        }
    )
}

fn blind_bids(b: &BlindBids) -> String {
    format!(
        "A team may bid its contract blind, before looking at the cards, for {} or more tricks: its contract points, made or set, are multiplied by {}; {}.",
        b.min_bid,
        b.multiplier,
        blind_condition(b.when, b.deficit)
    )
}

fn loss_floor(floor: i32) -> String {
    format!("A team at or below {floor} points loses at once.")
}

fn ties(rule: TieRule) -> String {
    match rule {
        TieRule::Draw => "A regular-season game tied at or above the target is a draw. In the playoffs a tie is broken by one more hand: the higher score after it wins; still tied, another hand.".into(),
        TieRule::TiebreakHand => "A tie is broken by one more hand: the higher score after it wins, above the target or not; still tied, another hand.".into(),
    }
}

fn misdeal() -> String {
    "A misdeal scores nothing and changes nothing; it is kept in the record.".into()
}

/// The readings taken where the source documents are unclear (docs/scoring.md §6.1), for the rules
/// that they concern.
pub fn readings(rules: &Rules, source: &str) -> Vec<&'static str> {
    let mut notes = Vec::new();
    if source == "002" {
        notes.push("The document says the bag count \"will be reset to zero\" on the 6th bag; bags are counted one at a time, so bags past the 6th in the same hand start the new count.");
        notes.push("Revoke: the 3 tricks count for the receiving team as ordinary tricks (towards its bid, and as bags past it), and the 30 points are added on top.");
        notes.push("Time limit: \"the game will be finished\" means the hand in play is finished, then the higher score wins; tied, the next hand decides.");
    }
    if source == "003" && rules.set_penalty == SetPenalty::PerBidTrick {
        notes.push("The document literally says a set loses 10 per trick short; this preset uses 10 per trick bid, the common reading. Leagues that want the literal one set set_penalty to per_short_trick.");
    }
    if source == "000" {
        notes.push("Blind (\"double\") nil is optional and only allowed if both teams agree before play: the preset has it off; a league turns it on with blind_nil.when = always.");
    }
    if rules.blind_nil.when != BlindWhen::Never {
        notes.push("A blind nil is by definition declared before the player looks at the cards; the score sheet does not ask again.");
    }
    notes
}
