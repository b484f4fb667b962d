// Sending one outbox item and saying what the answer means. No page state: fetch, the
// CSRF token and a DOM parser are passed in (the answer's facts are read from the ids and
// data attributes the server renders, never from its wording).
//
// Items are sent as the console's forms post them (the same URL and form body, with the
// item's `expected_version` and `idempotency_key`): the server answers a recorded post with
// a redirect to the match's console, a refusal with its page (422 and the error summary,
// 409 the conflict page, 404/400 an error page).

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

// What an answer means. `answer`: {status, redirected, path (where fetch ended), replay
// (the Idempotent-Replay header)} and `match` (the item's). Outcomes: "recorded",
// "duplicate" (a repeated key answered with its first answer: recorded once, earlier),
// "refused", "conflict" (409), "auth" (the session is over or not this user's: keep it for
// them), "retry" (5xx, 503 busy, 408, 429, or an answer that is not the console: nothing is
// known to be recorded), with `cause` ("server") for the retry's backoff.
export function classify(answer, match) {
  const status = answer.status;
  const ok = status >= 200 && status < 300;
  if (answer.path.indexOf("/login") === 0 || status === 401 || status === 403) {
    return { outcome: "auth", cause: "auth", message: "log in again" };
  }
  if (ok && answer.redirected && answer.path === consolePath(match)) {
    return { outcome: answer.replay ? "duplicate" : "recorded" };
  }
  // A 200 that is not the console (a Wi-Fi login page, a re-rendered form): keep it.
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
// `env`: {fetch, AbortController}. Resolves {response, html}; rejects with the reason.
export function request(env, url, options) {
  const controller = env.AbortController ? new env.AbortController() : null;
  const timer = setTimeout(function () { if (controller) controller.abort(); }, TIMEOUT);
  const opts = Object.assign({ credentials: "same-origin", cache: "no-store" }, options);
  if (controller) opts.signal = controller.signal;
  return env.fetch(url, opts).then(function (response) {
    return response.text().then(function (html) { return { response: response, html: html }; });
  }).then(function (answer) {
    clearTimeout(timer);
    return answer;
  }, function (error) {
    clearTimeout(timer);
    throw new Error(error && error.name === "AbortError" ? "no answer in " + TIMEOUT / 1000 + " s" : "no connection");
  });
}

// Sends `item` (of `match`) with `body` (queue.bodyFields) and says what the answer means
// (classify), with the refusal's message and the match as the server has it, and for a
// recorded post the console's facts (a lineup's new version). `env`: {fetch,
// AbortController, parse (html → Document), origin}. Never rejects: a network failure is
// {outcome: "retry", cause: "network"}.
export function send(env, item, match, body) {
  const form = new URLSearchParams();
  body.forEach(function (pair) { form.append(pair[0], pair[1]); });
  return request(env, env.origin + item.action, {
    method: "POST",
    body: form,
    redirect: "follow",
    headers: { "Content-Type": "application/x-www-form-urlencoded" }
  }).then(function (answer) {
    const r = answer.response;
    const result = classify({
      status: r.status, redirected: r.redirected, path: pathOf(r.url),
      replay: r.headers && r.headers.get("Idempotent-Replay") === "true"
    }, match);
    result.status = r.status;
    if (result.outcome === "recorded" || result.outcome === "duplicate") {
      result.facts = factsOf(env.parse(answer.html));
    } else if (result.outcome === "refused" || result.outcome === "conflict") {
      const doc = env.parse(answer.html);
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
export function fetchConsole(env, match, user) {
  return request(env, env.origin + consolePath(match), { method: "GET", redirect: "follow" }).then(function (answer) {
    const r = answer.response;
    if (!r.ok || pathOf(r.url).indexOf("/login") === 0) return { problem: "log in again" };
    const doc = env.parse(answer.html);
    const facts = factsOf(doc);
    if (facts.user !== user) return { problem: "someone else is logged in on this phone" };
    return { facts: facts, server: serverIn(doc) };
  }, function (error) {
    return { problem: error.message };
  });
}
