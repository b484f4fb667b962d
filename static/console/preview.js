// The hand form's live preview and checks, from the scoring engine itself (engine.js, the
// server's engine as static/rules.wasm): no scoring is written here.
// 1. #hand-preview (aria-live) says, as the hand is typed, what each team scores in it and
//    the new score, in words taken from the engine's answer (docs/api.md §4.3, §4.4).
// 2. As bids are picked, bids the engine refuses get its message by the field.
// 3. On submit, a hand the engine (or the form's own reading) refuses is stopped before
//    anything sees it (the outbox in static/outbox/ included): the error summary and the message by the
//    field, as the server's refusal page shows them. Online and offline alike.
// The match comes from <script type="application/json" id="match-data"> (the server's
// src/web/pages/console/match_data.rs): the rules, the stage, the hands recorded. Without
// the engine (a very old browser) nothing here runs and the server checks the hand.
// The functions above the DOM part touch no page; tests/js/preview.test.js tests them.

import * as engine from "./engine.js";

const TEAMS = ["a", "b"];

/** The seat (1–4) of player `p` (0, 1) of team index `t`: team a sits 1 and 3. */
export function seatOf(t, p) {
  return t === 0 ? 1 + 2 * p : 2 + 2 * p;
}

/** The form's fields as typed, from (name, value) pairs (a FormData's entries). */
export function typedOf(pairs) {
  const typed = {
    bids: [["", ""], ["", ""]],
    tricks: [["", ""], ["", ""]],
    revokes: ["", ""],
    blind: [false, false],
    misdeal: false
  };
  for (const [name, value] of pairs) {
    if (name === "misdeal") {
      typed.misdeal = true;
      continue;
    }
    const m = /^(a|b)_(bid|tricks)([01])$/.exec(name);
    if (m) {
      typed[m[2] === "bid" ? "bids" : "tricks"][TEAMS.indexOf(m[1])][Number(m[3])] = String(value);
      continue;
    }
    const extra = /^(a|b)_(revokes|blind)$/.exec(name);
    if (extra && extra[2] === "revokes") typed.revokes[TEAMS.indexOf(extra[1])] = String(value);
    else if (extra) typed.blind[TEAMS.indexOf(extra[1])] = true;
  }
  return typed;
}

/** Nothing typed yet, or some bid or trick count still missing. */
export function isIncomplete(typed) {
  if (typed.misdeal) return false;
  return [...typed.bids.flat(), ...typed.tricks.flat()].some((v) => v.trim() === "");
}

function cellError(number, t, p, field, detail) {
  const error = { code: "invalid_hand", message: `hand ${number}: ${detail}`, hand: number, field, team: TEAMS[t] };
  if (p !== null) error.player = p;
  return error;
}

// A whole number as Rust's `i64::from_str` reads one (an optional sign, digits).
function integer(text) {
  if (!/^[+-]?\d+$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * The hand as the API gets it (docs/api.md §4.2), or `{error}`: the form's own reading of
 * what was typed, in the server's words and order (src/web/pages/hand_form.rs); the rules'
 * checks are the engine's. `number` is the hand's number, `timeCalled` whether it is the
 * hand in play when time ran out.
 */
export function handOf(typed, number, timeCalled) {
  if (typed.misdeal) return { hand: { misdeal: true } };
  const hand = {};
  const revokes = [0, 0];
  for (let t = 0; t < 2; t++) {
    const bids = [];
    const tricks = [];
    for (let p = 0; p < 2; p++) {
      const bid = typed.bids[t][p].trim();
      if (bid === "") return { error: cellError(number, t, p, "bids", `seat ${seatOf(t, p)} has no bid`) };
      bids.push(integer(bid) ?? bid);
      const took = typed.tricks[t][p].trim();
      const n = integer(took);
      if (n === null) {
        const detail = took === "" ? `seat ${seatOf(t, p)} has no trick count`
          : `seat ${seatOf(t, p)} took "${took}" tricks; tricks are 0 to 13`;
        return { error: cellError(number, t, p, "tricks", detail) };
      }
      tricks.push(n);
    }
    const text = typed.revokes[t].trim();
    if (text !== "") {
      revokes[t] = integer(text);
      if (revokes[t] === null) {
        return { error: cellError(number, t, null, "revokes", `revokes must be a number, not "${text}"`) };
      }
    }
    hand[TEAMS[t]] = typed.blind[t] ? { bids, tricks, blind: true } : { bids, tricks };
  }
  if (revokes[0] !== 0 || revokes[1] !== 0) hand.revokes = { a: revokes[0], b: revokes[1] };
  if (timeCalled) hand.time_called = true;
  return { hand };
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
 * The engine's refusal of the bids picked so far (and the blind boxes), or null: the bids
 * are scored with placeholder tricks, seats not picked yet filled in turn with each bid;
 * a refusal that blames only what was not picked tries the next filler. `score` is the
 * engine's `score`.
 */
export function bidProblem(data, typed, timeCalled, score) {
  const picked = typed.bids.map((pair) => pair.map((b) => b.trim() !== ""));
  if (typed.misdeal || !picked.flat().some(Boolean)) return null;
  const number = data.hands.length + 1;
  const blamesPicked = (e) => {
    const t = TEAMS.indexOf(e.team);
    if (t < 0) return picked.flat().every(Boolean);
    if (e.player === undefined) return picked[t][0] && picked[t][1];
    return picked[t][e.player];
  };
  for (const filler of FILLERS) {
    const hand = {};
    for (let t = 0; t < 2; t++) {
      const bids = typed.bids[t].map((b) => {
        const text = b.trim() === "" ? filler : b.trim();
        return integer(text) ?? text;
      });
      hand[TEAMS[t]] = typed.blind[t] ? { bids, tricks: PLACEHOLDER_TRICKS[t], blind: true }
        : { bids, tricks: PLACEHOLDER_TRICKS[t] };
    }
    if (timeCalled) hand.time_called = true;
    const answer = score(requestFor(data, hand));
    const e = answer.error;
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
  return { title: `If hand ${scored.number} is recorded as typed:`, teams, status: statusWords(scored, data.names) };
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
 * What the form says about `typed` (`now` in ms): `{preview}` (the words), `{hint}` (an
 * incomplete or refused hand), `{waiting}`; and `refusal`, the error that stops a submit.
 */
export function judge(data, typed, now, waiting, score) {
  const number = data.hands.length + 1;
  const timeCalled = timeCalledAt(data, now);
  const read = handOf(typed, number, timeCalled);
  if (read.error) {
    const hint = isIncomplete(typed) ? "Type every bid and trick count to see what this hand scores." : messageOf(read.error, data.names);
    return { hint, refusal: read.error };
  }
  const answer = score(requestFor(data, read.hand));
  const e = answer.error;
  // Stopped only when the engine blames this very hand, and no hand waits in the outbox
  // (then the engine does not know the score the rules look at).
  const refusal = e && e.hand === number && waiting === null ? e : null;
  if (waiting !== null) return { waiting: waitingWords(waiting), refusal };
  if (e) return { hint: `This hand cannot be recorded: ${messageOf(e, data.names)}`, refusal };
  return { preview: previewOf(data, read.hand, answer), refusal: null };
}

// ------------------------------------------------------------------------------ the page

function bindPage() {
  const form = document.getElementById("hand-form");
  const region = document.getElementById("hand-preview");
  const source = document.getElementById("match-data");
  if (!form || !region || !source) return;
  let data;
  try {
    data = JSON.parse(source.textContent);
  } catch {
    return; // no preview; the server checks the hand
  }
  const match = (/^\/supervise\/matches\/(\d+)/.exec(location.pathname) || [])[1] || "";

  const typedNow = () => {
    const pairs = [...new FormData(form).entries()];
    return typedOf(pairs);
  };
  const waiting = () => {
    try {
      const entries = [];
      for (let i = 0; i < localStorage.length; i++) {
        const key = localStorage.key(i);
        entries.push([key, localStorage.getItem(key) || ""]);
      }
      return waitingIn(entries, match);
    } catch {
      return null; // no storage: no outbox either
    }
  };
  const verdict = () => judge(data, typedNow(), Date.now(), waiting(), engine.score);

  const render = () => {
    const said = verdict();
    region.textContent = "";
    const line = (text, className) => {
      const p = document.createElement("p");
      p.textContent = text;
      if (className) p.className = className;
      region.appendChild(p);
    };
    if (said.preview) {
      line(said.preview.title, "preview-title");
      const list = document.createElement("ul");
      for (const team of said.preview.teams) {
        const item = document.createElement("li");
        item.className = `team-${team.key}`;
        item.id = `preview-${team.key}`;
        const strong = document.createElement("strong");
        strong.textContent = teamLine(team);
        item.appendChild(strong);
        if (team.parts.length > 0) item.appendChild(document.createTextNode(`: ${team.parts.join(", ")}`));
        list.appendChild(item);
      }
      if (said.preview.teams.length > 0) region.appendChild(list);
      if (said.preview.status) line(said.preview.status, "preview-status");
    } else if (said.waiting) {
      line(said.waiting, "hint");
    } else {
      line(said.hint, "hint");
    }
  };

  const has = (id) => !!document.getElementById(id);

  // Takes off what this script marked; `all` also the server's messages of a refused post.
  const clear = (all) => {
    const messages = form.querySelectorAll(all ? "p.field-error" : "p.field-error[data-engine]");
    messages.forEach((m) => m.remove());
    form.querySelectorAll(all ? "[aria-invalid]" : "[data-engine-mark]").forEach((field) => {
      field.removeAttribute("aria-invalid");
      field.removeAttribute("aria-describedby");
      field.removeAttribute("data-engine-mark");
      field.classList.remove("invalid");
    });
    form.querySelectorAll(all ? ".has-error" : ".has-error[data-engine-mark]").forEach((box) => {
      box.classList.remove("has-error");
      box.removeAttribute("data-engine-mark");
    });
  };

  // The message by its field and the fields marked, as the server's refused form has them.
  const show = (error) => {
    clear(true);
    const place = placeOf(error, has);
    const p = document.createElement("p");
    p.className = "field-error";
    p.id = "hand-error";
    p.setAttribute("data-engine", "");
    p.textContent = messageOf(error, data.names);
    if (place.at === "seat") {
      const box = form.querySelector(`fieldset[data-seat="${place.seat}"]`);
      p.setAttribute("data-field", `seat-${place.seat}`);
      box.classList.add("has-error");
      box.setAttribute("data-engine-mark", "");
      box.appendChild(p);
    } else if (place.at === "team") {
      const box = document.getElementById(`team-box-${place.team}`);
      p.setAttribute("data-field", `team-${place.team}`);
      if (!box.querySelector("h3")) {
        const h = document.createElement("h3");
        h.textContent = data.names[TEAMS.indexOf(place.team)];
        h.setAttribute("data-engine", "");
        box.prepend(h);
      }
      box.appendChild(p);
    } else if (place.at === "tricks") {
      p.setAttribute("data-field", "tricks");
      document.getElementById("tricks-sum").before(p);
    } else {
      p.setAttribute("data-field", "form");
      form.querySelector("input[name=idempotency_key]").after(p);
    }
    for (const id of place.marked) {
      const field = document.getElementById(id);
      if (!field) continue;
      field.setAttribute("aria-invalid", "true");
      field.setAttribute("aria-describedby", "hand-error");
      field.setAttribute("data-engine-mark", "");
      if (field.type !== "checkbox") field.classList.add("invalid");
    }
    return place;
  };

  // The error summary at the top of the page, focused (templates/console/error_summary.html).
  const summarize = (error, place) => {
    document.querySelectorAll("[data-error-summary]").forEach((s) => s.remove());
    const box = document.createElement("div");
    box.className = "error-summary";
    box.id = "error-summary";
    box.setAttribute("role", "alert");
    box.setAttribute("tabindex", "-1");
    box.setAttribute("aria-labelledby", "error-summary-title");
    box.setAttribute("data-error-summary", "");
    const title = document.createElement("h2");
    title.id = "error-summary-title";
    title.textContent = "The hand was not recorded";
    const list = document.createElement("ul");
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = `#${place.target}`;
    link.setAttribute("data-target", place.target);
    link.textContent = messageOf(error, data.names);
    link.addEventListener("click", (event) => {
      const field = document.getElementById(place.target);
      if (field) {
        event.preventDefault();
        bringIntoView(field);
      }
    });
    item.appendChild(link);
    list.appendChild(item);
    box.append(title, list);
    const heading = document.getElementById("match-title");
    heading.before(box);
    if (!document.title.startsWith("Error: ")) document.title = `Error: ${document.title}`;
    box.focus();
  };

  // The field with its caption in view, or its message where that is above (the tricks'
  // sum) and both fit; then the focus (as console.js does for the server's summary).
  const bringIntoView = (field) => {
    const group = field.closest("fieldset");
    let top = (group && group.querySelector("legend")) || field.closest("label") || field;
    const said = field.getAttribute("aria-describedby");
    const message = said ? document.getElementById(said) : null;
    if (message) {
      const m = message.getBoundingClientRect();
      const f = field.getBoundingClientRect();
      if (m.top < top.getBoundingClientRect().top && f.bottom - m.top < window.innerHeight - 120) top = message;
    }
    top.scrollIntoView({ block: "start" });
    field.focus({ preventScroll: true });
    if (history.replaceState) history.replaceState(null, "", `#${field.id}`);
  };

  const checkBids = () => {
    const problem = bidProblem(data, typedNow(), timeCalledAt(data, Date.now()), engine.score);
    if (problem) show(problem);
    else clear(false);
  };

  engine.load().then((ready) => {
    if (!ready) return;
    render();
    form.addEventListener("input", render);
    form.addEventListener("change", render);
    form.addEventListener("change", (event) => {
      if (event.target.matches("select, input[type=checkbox]")) checkBids();
    });
  });

  // Before the outbox (static/outbox/) or the browser sees it: a hand refused here is neither sent nor
  // queued. Until the engine is loaded the hand goes as before (the server checks it).
  document.addEventListener("submit", (event) => {
    if (event.target !== form || !engine.ready()) return;
    const said = verdict();
    if (!said.refusal) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    summarize(said.refusal, show(said.refusal));
  }, true);
}

if (typeof document === "object" && typeof location === "object") bindPage();
