// Sending one outbox item and saying what the answer means. No page state: fetch, the
// CSRF token and a DOM parser are passed in (the answer's facts are read from the ids and
// data attributes the server renders, never from its wording).
//
// Items are sent as the console's forms post them (the same URL and form body, with the
// item's `expected_version` and `idempotency_key`). A hand asks for the light answer
// (`Prefer: return=minimal`, docs/api.md §7.3): a recorded hand is answered with its totals
// (JSON, the same size at hand 500 as at hand 1), not the console page that lists every
// hand. Any other post, or a hand on a server that does not apply the preference, is
// answered with a redirect to the match's console. A refusal is answered with its page (422
// and the error summary, 409 the conflict page, 404/400 an error page).

export const TIMEOUT = 10000;

// The match a console post's path belongs to, and what it does: {match, kind, path,
// number} or null (not a console post). `base`: the page's address.
export function kindOfAction(action, base) {
  let url;
  try { url = new URL(action, base); } catch (e) { return null; }
  if (url.origin !== new URL(base).origin) return null;
  const m = /^\/supervise\/matches\/(\d+)\/(hands(?:\/(\d+))?|time|forfeit|start|check-in|sportsmanship|lineup)$/.exec(url.pathname);
  if (!m) return null;
  const kind = m[3] ? "correction" : m[2] === "hands" ? "hand" : m[2] === "sportsmanship" ? "rating" : m[2];
  return { match: m[1], kind: kind, path: url.pathname, number: m[3] ? Number(m[3]) : null };
}

export function consolePath(match) {
  return "/supervise/matches/" + match;
}

function pathOf(url) {
  try { return new URL(url).pathname; } catch (e) { return ""; }
}

// The totals of a light answer ({version, number, a, b, game_status, winner}: the match's
// version and the hand's number after it), from its Preference-Applied and Content-Type
// headers and its body; null for any other answer (a page: the console's, or a Wi-Fi
// portal's).
export function totalsOf(applied, type, body) {
  if (!/(^|[\s,;])return=minimal\b/i.test(applied || "") || !/^application\/json\b/i.test(type || "")) return null;
  let totals = null;
  try { totals = JSON.parse(body); } catch (e) { return null; }
  const number = function (v) { return typeof v === "number" && isFinite(v); };
  return totals && number(totals.version) && number(totals.number) ? totals : null;
}

// What an answer means. `answer`: {status, redirected, path (where fetch ended), replay
// (the Idempotent-Replay header), totals (totalsOf)} and `match` (the item's). Outcomes:
// "recorded", "duplicate" (a repeated key answered with its first answer: recorded once,
// earlier), "refused", "conflict" (409), "auth" (the session is over or not this user's:
// keep it for them), "retry" (5xx, 503 busy, 408, 429, or a 2xx that is neither the totals
// nor the console: nothing is known to be recorded), with `cause` ("server") for the
// retry's backoff.
export function classify(answer, match) {
  const status = answer.status;
  const ok = status >= 200 && status < 300;
  if (answer.path.indexOf("/login") === 0 || status === 401 || status === 403) {
    return { outcome: "auth", cause: "auth", message: "log in again" };
  }
  // The light answer comes from the post itself, never from a redirect.
  if (ok && answer.totals && !answer.redirected && answer.path.indexOf(consolePath(match) + "/") === 0) {
    return { outcome: answer.replay ? "duplicate" : "recorded" };
  }
  if (ok && answer.redirected && answer.path === consolePath(match)) {
    return { outcome: answer.replay ? "duplicate" : "recorded" };
  }
  // A 200 that is neither (a Wi-Fi login page, a re-rendered form): keep it.
  if (ok) return { outcome: "retry", cause: "server", message: "the answer was not the match's page" };
  if (status >= 500 || status === 408 || status === 429) {
    return { outcome: "retry", cause: "server", message: status === 503 ? "the server is busy" : "the server failed (" + status + ")" };
  }
  return { outcome: status === 409 ? "conflict" : "refused" };
}

function text(el) {
  return el ? el.textContent.replace(/\s+/g, " ").trim() : "";
}

// What a refusal says, where the server's pages put it (the error summary, the message at
// the form, the conflict's, the page's heading).
export function messageIn(doc) {
  const places = ["#hand-error", "#conflict-message", "[data-error-summary] li",
    "[data-error-summary]", "#rating-error", "#forfeit-error", ".error-summary", ".field-error",
    "main [role=alert]", "main h1"];
  for (let i = 0; i < places.length; i++) {
    const t = text(doc.querySelector(places[i]));
    if (t) return t.length > 300 ? t.slice(0, 297) + "…" : t;
  }
  return "";
}

// The facts a console page carries for the outbox: whose page it is, the match's version
// (its forms' expected_version) and the next hand's number (NaN when not shown).
export function factsOf(doc) {
  const user = doc.querySelector("header a[data-user]");
  const slot = doc.getElementById("pending-hands");
  const input = doc.querySelector('#hand-form input[name="expected_version"]') ||
    doc.querySelector('input[name="expected_version"]');
  const version = input && input.getAttribute("value") ? Number(input.getAttribute("value")) : NaN;
  const hand = slot && slot.getAttribute("data-next-hand") ? Number(slot.getAttribute("data-next-hand")) : NaN;
  return {
    user: user ? user.getAttribute("data-user") : "",
    version: isFinite(version) ? version : NaN,
    hand: isFinite(hand) ? hand : NaN,
    csrf: (doc.querySelector('input[name="csrf"]') || { value: "" }).value || ""
  };
}

function teamNames(doc) {
  return {
    a: text(doc.querySelector(".scorebox .team-a .label")) || "Team A",
    b: text(doc.querySelector(".scorebox .team-b .label")) || "Team B"
  };
}

// The match as the server showed it in an answer (a conflict page or the console).
export function serverIn(doc) {
  const count = doc.getElementById("hand-count");
  const rows = doc.querySelectorAll("table.sheet tbody tr");
  return {
    names: teamNames(doc),
    a: text(doc.getElementById("score-a")),
    b: text(doc.getElementById("score-b")),
    status: text(doc.getElementById("game-status")),
    hands: count ? Number(text(count)) : doc.getElementById("pending-hands") ? rows.length : null
  };
}

export { teamNames };

// fetch with a deadline (the body too): a hung request counts as no connection.
// `env`: {fetch, AbortController}. Resolves {response, body (text)}; rejects with the reason.
export function request(env, url, options) {
  const controller = env.AbortController ? new env.AbortController() : null;
  const timer = setTimeout(function () { if (controller) controller.abort(); }, TIMEOUT);
  const opts = Object.assign({ credentials: "same-origin", cache: "no-store" }, options);
  if (controller) opts.signal = controller.signal;
  return env.fetch(url, opts).then(function (response) {
    return response.text().then(function (body) { return { response: response, body: body }; });
  }).then(function (answer) {
    clearTimeout(timer);
    return answer;
  }, function (error) {
    clearTimeout(timer);
    throw new Error(error && error.name === "AbortError" ? "no answer in " + TIMEOUT / 1000 + " s" : "no connection");
  });
}

// Sends `item` (of `match`) with `body` (queue.bodyFields) and says what the answer means
// (classify), with the refusal's message and the match as the server has it; for a
// recorded hand its totals (totalsOf), for another recorded post the console's facts (a
// lineup's new version). `env`: {fetch, AbortController, parse (html → Document), origin}.
// Never rejects: a network failure is {outcome: "retry", cause: "network"}.
export function send(env, item, match, body) {
  const form = new URLSearchParams();
  body.forEach(function (pair) { form.append(pair[0], pair[1]); });
  const headers = { "Content-Type": "application/x-www-form-urlencoded" };
  if (item.kind === "hand") headers.Prefer = "return=minimal";
  return request(env, env.origin + item.action, {
    method: "POST",
    body: form,
    redirect: "follow",
    headers: headers
  }).then(function (answer) {
    const r = answer.response;
    const header = function (name) { return (r.headers && r.headers.get(name)) || ""; };
    const totals = totalsOf(header("Preference-Applied"), header("Content-Type"), answer.body);
    const result = classify({
      status: r.status, redirected: r.redirected, path: pathOf(r.url),
      replay: header("Idempotent-Replay") === "true", totals: totals
    }, match);
    result.status = r.status;
    if ((result.outcome === "recorded" || result.outcome === "duplicate") && totals) {
      result.totals = totals;
    } else if (result.outcome === "recorded" || result.outcome === "duplicate") {
      result.facts = factsOf(env.parse(answer.body));
    } else if (result.outcome === "refused" || result.outcome === "conflict") {
      const doc = env.parse(answer.body);
      result.message = messageIn(doc) || "refused (" + r.status + ")";
      // An admin's correction that resets part of the bracket answers a page asking to
      // confirm it: a person must see it.
      if (doc.getElementById("reset-form")) {
        result.outcome = "refused";
        result.message = "it needs your confirmation: it resets part of the bracket";
      }
      if (result.outcome === "conflict") result.server = serverIn(doc);
    }
    return result;
  }, function (error) {
    return { outcome: "retry", cause: "network", message: error.message };
  });
}

// The match's console as the server has it now, for this user: {facts, server} or
// {problem}. Used after a 403 (a fresh CSRF token) and to send on the current version.
// The console of `match` as the server shows it now: {facts, server, doc} or {problem}.
export function fetchConsole(env, match, user) {
  return request(env, env.origin + consolePath(match), { method: "GET", redirect: "follow" }).then(function (answer) {
    const r = answer.response;
    if (!r.ok || pathOf(r.url).indexOf("/login") === 0) return { problem: "log in again" };
    const doc = env.parse(answer.body);
    const facts = factsOf(doc);
    if (facts.user !== user) return { problem: "someone else is logged in on this phone" };
    return { facts: facts, server: serverIn(doc), doc: doc };
  }, function (error) {
    return { problem: error.message };
  });
}
