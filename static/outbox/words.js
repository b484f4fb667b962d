// What the outbox says about its items, in words (pure: tests/js/outbox_queue.test.js).

import { valueIn } from "./queue.js";

function bidWords(v) {
  if (!v) return "?";
  return v === "blind_nil" ? "blind nil" : v;
}

function teamWords(f, t, name) {
  let words = name + " bid " + bidWords(valueIn(f, t + "_bid0")) + " + " + bidWords(valueIn(f, t + "_bid1")) +
    ", took " + (valueIn(f, t + "_tricks0") || "?") + " + " + (valueIn(f, t + "_tricks1") || "?");
  const revokes = valueIn(f, t + "_revokes");
  if (revokes && revokes.trim() !== "0") words += ", " + revokes.trim() + " revoke(s)";
  if (valueIn(f, t + "_blind")) words += ", blind";
  return words;
}

// One line for a post of `kind` with fields `f`; `names`: the teams' names {a, b}.
export function summary(kind, f, names) {
  const team = function (k) { return k === "a" ? names.a : k === "b" ? names.b : k; };
  switch (kind) {
    case "hand":
    case "correction": {
      const hand = valueIn(f, "misdeal") ? "misdeal" : teamWords(f, "a", names.a) + " · " + teamWords(f, "b", names.b);
      const reason = valueIn(f, "reason");
      return reason ? hand + " (" + reason.trim() + ")" : hand;
    }
    case "check-in": {
      const who = team(valueIn(f, "team") || "");
      return valueIn(f, "present") === "0" ? "Undo the check-in of " + who : who + " is here";
    }
    case "rating":
      return "Sportsmanship: " + names.a + " " + (valueIn(f, "a") || "?") + ", " + names.b + " " + (valueIn(f, "b") || "?");
    case "time":
      return "Call time";
    case "forfeit": {
      const side = valueIn(f, "team") || "";
      if (side.indexOf("both") === 0) {
        const on = side.split("-")[1];
        return "Double forfeit" + (on ? ": " + team(on) + " advances" : "");
      }
      return team(side) + " forfeits";
    }
    case "start":
      return "Start the match";
    case "lineup":
      return team(valueIn(f, "team") || "") + "'s lineup";
  }
  return kind;
}

export function title(item) {
  if (item.kind === "hand") return (item.hand ? "Hand " + item.hand : "Next hand") + ": " + item.summary;
  if (item.kind === "correction") return "Correction of hand " + item.number + ": " + item.summary;
  return item.summary;
}

// A score as every page writes it: a minus sign (U+2212), not a hyphen, before a negative
// one, as the server's pages do (domain::words::points).
export function points(n) {
  return n < 0 ? "\u2212" + Math.abs(n) : String(n);
}

export function plural(n, one, many) {
  return n + " " + (n === 1 ? one : many);
}

// Who deals hand `n` (seats 1 to 4, turning each hand) and who bids first (the next seat).
export function seatsOf(n) {
  const dealer = ((n - 1) % 4) + 1;
  return { dealer: dealer, first: (dealer % 4) + 1 };
}

// The banner's words: {text, state} for the counts of every match (queue.counts), whether
// the phone is online and whether a send is on its way; text "" when there is nothing to say.
export function bannerWords(c, online, sending) {
  const refused = c.refused + c.conflict;
  const parts = [];
  if (c.waiting > 0) {
    if (!online) parts.push("Offline — " + c.waiting + " waiting to send");
    else if (sending) parts.push("Sending " + c.waiting + "…");
    else parts.push(c.waiting + " waiting to send");
  } else if (!online) {
    parts.push("Offline");
  }
  if (refused > 0) parts.push(plural(refused, "entry needs", "entries need") + " you: see the top of the page");
  const state = refused > 0 ? "refused" : !online ? "offline" : c.waiting > 0 ? (sending ? "sending" : "waiting") : "idle";
  return { text: parts.join(" · "), state: state };
}
