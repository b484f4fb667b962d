// The hand form's live preview and checks, from the scoring engine itself (engine.js, the
// server's engine as static/rules.wasm): no scoring is written here.
// 1. #hand-preview (aria-live) says, as the hand is typed, what each team scores in it and
//    the new score, in words taken from the engine's answer (docs/api.md §4.3, §4.4).
// 2. As bids are picked, bids the engine refuses get its message by the field.
// 3. On submit, a hand the engine refuses (or the form's reading, the server's own, which
//    the engine runs too: rules/src/form.rs) is stopped before anything sees it (the outbox
//    in static/outbox/ included): the error summary and the message by the field, as the
//    server's refusal page shows them. Online and offline alike.
// The match comes from <script type="application/json" id="match-data"> (the server's
// src/web/pages/console/match_data.rs): the rules, the stage, the hands recorded. Without
// the engine (a very old browser) nothing here runs and the server checks the hand.
// These functions touch no page (static/console/form.js binds them to the hand form);
// tests/js/preview.test.js tests them.


export const TEAMS = ["a", "b"];

/** The seat (1–4) of player `p` (0, 1) of team index `t`: team a sits 1 and 3. */
export function seatOf(t, p) {
  return t === 0 ? 1 + 2 * p : 2 + 2 * p;
}

/**
 * The hand typed in the form's `pairs` (a FormData's [name, value] entries) as hand `number`,
 * read by the engine as the server reads the posted form: `{hand}` in the API's shape
 * (docs/api.md §4.2) or `{error, incomplete}`, the first thing mistyped in the server's words.
 * `timeCalled` says whether it is the hand in play when time ran out; `readHand` is the
 * engine's.
 */
export function handOf(pairs, number, timeCalled, readHand) {
  const fields = pairs.map(([name, value]) => [name, String(value)]);
  return readHand({ fields, number, time_called: timeCalled });
}

/** Whether the next hand is the time-called one: the server says so, or the clock has run out. */
export function timeCalledAt(data, now) {
  if (data.time_called) return true;
  const ends = data.ends_at ? Date.parse(data.ends_at) : NaN;
  return !Number.isNaN(ends) && now >= ends;
}

/** The score request for `hand` after the match's hands (docs/api.md §5.1). */
export function requestFor(data, hand) {
  return { rules: data.rules, stage: data.stage, hands: [...data.hands, hand] };
}

// Bids tried for a seat not picked yet, to learn whether the bids already picked are
// allowed: the engine decides; these only fill the gaps.
const FILLERS = ["4", "3", "2", "1", "5", "6", "0", "7", "8", "9", "10", "11", "12", "13"];
// Tricks that sum to 13, so that only the bids can be refused.
const PLACEHOLDER_TRICKS = [[4, 3], [3, 3]];

/**
 * The engine's refusal of the bids picked so far in the form's `pairs` (and the blind boxes),
 * or null: the bids are scored with placeholder tricks, seats not picked yet filled in turn
 * with each bid; a refusal that blames only what was not picked tries the next filler.
 * `engine` gives `readHand` and `score` (engine.js).
 */
export function bidProblem(data, pairs, timeCalled, engine) {
  const given = new Map(pairs.map(([name, value]) => [name, String(value)]));
  const bidAt = (t, p) => (given.get(`${TEAMS[t]}_bid${p}`) || "").trim();
  const picked = [0, 1].map((t) => [0, 1].map((p) => bidAt(t, p) !== ""));
  if (given.has("misdeal") || !picked.flat().some(Boolean)) return null;
  const number = data.hands.length + 1;
  const blamesPicked = (e) => {
    const t = TEAMS.indexOf(e.team);
    if (t < 0) return picked.flat().every(Boolean);
    if (e.player === undefined) return picked[t][0] && picked[t][1];
    return picked[t][e.player];
  };
  for (const filler of FILLERS) {
    const fields = [];
    TEAMS.forEach((team, t) => {
      for (let p = 0; p < 2; p++) {
        fields.push([`${team}_bid${p}`, picked[t][p] ? bidAt(t, p) : filler]);
        fields.push([`${team}_tricks${p}`, String(PLACEHOLDER_TRICKS[t][p])]);
      }
      if (given.has(`${team}_blind`)) fields.push([`${team}_blind`, given.get(`${team}_blind`)]);
    });
    const read = handOf(fields, number, timeCalled, engine.readHand);
    if (!read.hand) return null;
    const e = engine.score(requestFor(data, read.hand)).error;
    if (!e) return null;
    if (e.hand !== number || (e.field !== "bids" && e.field !== "blind")) return null;
    if (blamesPicked(e)) return e;
    if (picked.flat().every(Boolean)) return null;
  }
  return null;
}

/**
 * `error`'s message as the console says it: the team it is about by its name, where the API
 * says "team a" (the server's FieldError::message_naming gives the same words).
 */
export function messageOf(error, names) {
  const t = TEAMS.indexOf(error.team);
  if (t < 0) return error.message;
  return error.message.split(`team ${error.team}`).join(names[t]);
}

/**
 * Where the form shows `error` (src/web/pages/console/form.rs, Placed and error_target):
 * `at` is "seat" (with `seat`), "team" (with `team`), "tricks" or "form"; `target` the id of
 * the field the summary links to; `marked` the ids of the fields marked aria-invalid.
 * `has` says which optional fields the form has (`a_revokes`, `a_blind`...).
 */
export function placeOf(error, has) {
  const t = TEAMS.indexOf(error.team);
  const team = error.team;
  const p = error.player;
  const onSeat = t >= 0 && p !== undefined;
  const field = error.field;
  let at = "form";
  if (onSeat && (field === "bids" || field === "tricks")) at = "seat";
  else if (t >= 0) at = "team";
  else if (field === "tricks") at = "tricks";
  let target = "hand-form";
  if (t >= 0 && field === "bids") target = `${team}_bid${onSeat ? p : 0}`;
  else if (t >= 0 && field === "tricks") target = `${team}_tricks${onSeat ? p : 0}`;
  else if (t >= 0 && field === "revokes" && has(`${team}_revokes`)) target = `${team}_revokes`;
  else if (t >= 0 && field === "blind" && has(`${team}_blind`)) target = `${team}_blind`;
  else if (t >= 0) target = `team-box-${team}`;
  else if (field === "tricks") target = "a_tricks0";
  const marked = [];
  for (let u = 0; u < 2; u++) {
    for (let q = 0; q < 2; q++) {
      const blamed = u === t && (p === undefined || p === q);
      if (field === "bids" && blamed) marked.push(`${TEAMS[u]}_bid${q}`);
      if (field === "tricks" && (blamed || t < 0)) marked.push(`${TEAMS[u]}_tricks${q}`);
    }
  }
  if (t >= 0 && (field === "revokes" || field === "blind") && has(`${team}_${field}`)) marked.push(`${team}_${field}`);
  return { at, seat: onSeat ? seatOf(t, p) : null, team: t >= 0 ? team : null, target, marked };
}

// A signed number: "+40", "−60" (a minus sign), "0".
function signed(n) {
  if (n > 0) return `+${n}`;
  if (n < 0) return `−${-n}`;
  return "0";
}

function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

/** The parts of one team's result in words, from the engine's team result (§4.3). */
export function partsOf(result, bids, rules) {
  const parts = [];
  const nils = bids.filter((b) => b === "nil" || b === "blind_nil");
  if (nils.length > 0 || result.nil_points !== 0) {
    const kind = nils.includes("blind_nil") ? "blind nil" : "nil";
    const how = nils.length > 1 ? "" : result.nil_points > 0 ? " made" : result.nil_points < 0 ? " failed" : "";
    parts.push(`${nils.length > 1 ? "nils" : kind}${how} ${signed(result.nil_points)}`);
  }
  if (result.made !== null) {
    const ten = rules.ten_for_200 && result.contract >= rules.ten_for_200.min_bid;
    const what = ten ? "10-for-200" : `${result.blind ? "blind " : ""}${result.contract}`;
    parts.push(`${result.made ? "made" : "set on"} ${what} ${signed(result.contract_points)}`);
  }
  if (result.bags_taken > 0) parts.push(`${plural(result.bags_taken, "bag", "bags")} ${signed(result.bag_points)}`);
  if (result.bag_penalty !== 0) parts.push(`bag penalty ${signed(result.bag_penalty)}`);
  if (result.revoke_award !== 0) parts.push(`revoke award ${signed(result.revoke_award)}`);
  return parts;
}

const REASONS = { target: "reaches the target", time: "leads when time is up", tiebreak: "wins the tie-break hand", floor: "the other team fell to the floor", moon: "shot the moon" };

/** The game's state after the hand in words (§4.4), "" while it goes on. */
export function statusWords(scored, names) {
  if (scored.status === "won") {
    const reason = REASONS[scored.reason];
    return `${names[TEAMS.indexOf(scored.winner)]} wins${reason ? ` (${reason})` : ""}`;
  }
  if (scored.status === "tiebreak") return "Tied: a tie-break hand decides";
  if (scored.status === "tied") return "The game ends tied";
  return "";
}

/**
 * What #hand-preview says for the engine's `answer` to the hand `hand` (the last of the
 * answer's hands): `{title, teams: [{key, name, points, score, bags, parts}], status}`.
 */
export function previewOf(data, hand, answer) {
  const scored = answer.hands[answer.hands.length - 1];
  if (scored.misdeal) {
    return { title: `Hand ${scored.number}: a misdeal scores nothing; the deal passes on.`, teams: [], status: "" };
  }
  const teams = TEAMS.map((key, t) => {
    const result = scored[key];
    return {
      key, name: data.names[t], points: result.points, score: result.score, bags: result.bags,
      parts: partsOf(result, hand[key].bids, answer.rules)
    };
  });
  const as = data.correcting ? "corrected" : "recorded";
  return { title: `If hand ${scored.number} is ${as} as typed:`, teams, status: statusWords(scored, data.names) };
}

/** One team's line: "Aces: +101 this hand, score 101 (bags 1)". */
export function teamLine(team) {
  return `${team.name}: ${signed(team.points)} this hand, score ${team.score} (bags ${team.bags})`;
}

/**
 * The entries of the console's outbox (static/outbox/, read only: its format is the top comment of
 * static/outbox/queue.js) waiting for match `match` that change the score: `null` when none, else
 * their count. `entries` are [key, value] of localStorage. A store this does not read counts
 * as waiting: better "not counted yet" than a wrong total.
 */
export function waitingIn(entries, match) {
  let count = 0;
  for (const [key, value] of entries) {
    if (!key.startsWith("spades-im.outbox.") || !key.endsWith(`.${match}`)) continue;
    let items;
    try {
      items = JSON.parse(value).items;
    } catch {
      items = null;
    }
    if (!Array.isArray(items)) {
      count += 1;
      continue;
    }
    count += items.filter((i) => !i || !["check-in", "rating", "lineup"].includes(i.kind)).length;
  }
  return count === 0 ? null : count;
}

/** The preview's words when `waiting` entries are not sent yet. */
export function waitingWords(waiting) {
  return waiting === 1
    ? "1 hand waiting to send is not counted yet: the score after this hand shows once it is sent."
    : `${waiting} hands waiting to send are not counted yet: the score after this hand shows once they are sent.`;
}

/**
 * What the form says about its `pairs` (`now` in ms): `{preview}` (the words), `{hint}` (an
 * incomplete or refused hand), `{waiting}`; and `refusal`, the error that stops a submit.
 * `engine` gives `readHand` and `score` (engine.js).
 */
export function judge(data, pairs, now, waiting, engine) {
  const number = data.hands.length + 1;
  const read = handOf(pairs, number, timeCalledAt(data, now), engine.readHand);
  if (read.error) {
    const hint = read.incomplete ? "Type every bid and trick count to see what this hand scores." : messageOf(read.error, data.names);
    return { hint, refusal: read.error };
  }
  const answer = engine.score(requestFor(data, read.hand));
  const e = answer.error;
  // Stopped only when the engine blames this very hand, and no hand waits in the outbox
  // (then the engine does not know the score the rules look at).
  const refusal = e && e.hand === number && waiting === null ? e : null;
  if (waiting !== null) return { waiting: waitingWords(waiting), refusal };
  if (e) return { hint: `This hand cannot be recorded: ${messageOf(e, data.names)}`, refusal };
  return { preview: previewOf(data, read.hand, answer), refusal: null };
}
