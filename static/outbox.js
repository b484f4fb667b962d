// The console's outbox: nothing a supervisor sends from the console is lost when the Wi-Fi
// drops at the card table.
//
// Every console form that writes (a hand, a correction, check-in, ratings, call time,
// forfeit, start, a team's lineup) is sent with fetch (the same URL and form body) instead of a page load.
// What cannot be sent (no connection, no answer in 10 s, a 5xx, 503 busy) is kept in
// localStorage, per user and match, with the version it was typed on and (a hand) its
// idempotency key; it is listed in #pending-hands and sent again by itself (on the `online`
// event, and every 2 s doubling to 60 s), strictly in order, one at a time. A hand's
// idempotency key makes a resend harmless: the server answers a repeated key with its first
// answer. A lineup needs no key: the lineup in force sent again writes nothing. It moves the
// match's version on only when it changes who sits, so the items after it are renumbered
// from the version on the console the server answered it with. Nothing kept is dropped
// unless the supervisor discards it.
//
// Answers: recorded (2xx after the 303) → the console is reloaded (the server's truth).
// 422 → typed live: the server's page with the error replaces this one, as without
// JavaScript; sent from the outbox: kept as "refused", with Edit and Discard. 409 → kept as
// "not sent: the match changed", shown beside the match as it is now, until the supervisor
// sends it on the current version or discards it.
//
// Also registers the service worker (sw.js) that keeps the console's page for a reload
// offline. Without this script, or without fetch/localStorage, the forms post as always.
//
// Logging out (session.js, on every page) deletes the outbox with the rest of the session's
// data on the phone, after asking when entries wait.
(function () {
  "use strict";

  var TIMEOUT = 10000;
  var FIRST_RETRY = 2000;
  var LAST_RETRY = 60000;
  var PREFIX = "spades-im.outbox.v1.";
  var EDITING = "spades-im.outbox.editing";
  // What each kind of post does to the match's version (the next form's expected_version).
  // A lineup: 0 here, then the server's (afterRecorded).
  var BUMPS = { hand: 1, correction: 1, time: 1, forfeit: 1, start: 1, "check-in": 0, rating: 0, lineup: 0 };

  // The unit tests (Node, tests/js/outbox.test.js) take the functions that touch no page or
  // storage, and stop here. In a browser `module` is not defined.
  if (typeof module === "object" && module.exports) {
    module.exports = {
      TIMEOUT: TIMEOUT, storeKeyFor: storeKeyFor, nextRetryDelay: nextRetryDelay,
      needsPerson: needsPerson, outcomeOf: outcomeOf, lostMessage: lostMessage,
      isLoginUrl: isLoginUrl, oneAtATime: oneAtATime, kindOfAction: kindOfAction,
      nextVersion: nextVersion, nextHand: nextHand, newItem: newItem, applyEdit: applyEdit,
      seenAfter: seenAfter, removeItem: removeItem, renumber: renumber, bodyOf: bodyOf,
      summary: summary, title: title, seatsOf: seatsOf, afterRecorded: afterRecorded
    };
    return;
  }

  if (!window.fetch || !window.URLSearchParams || !window.FormData || !window.DOMParser) return;
  var storage;
  try {
    storage = window.localStorage;
    storage.getItem("x");
  } catch (e) {
    return; // storage blocked: the plain forms are safer than an outbox that forgets
  }

  // document.write (a 422 page shown live) runs this script again in the same window: the
  // old copy must stop touching the new page.
  var generation = (window.__spadesOutbox || 0) + 1;
  window.__spadesOutbox = generation;
  var retired = false;
  function current() { return !retired && window.__spadesOutbox === generation; }

  registerWorker();

  var where = /^\/supervise\/matches\/(\d+)(?:\/|$)/.exec(location.pathname);
  if (!where) return;
  var matchId = where[1];
  var consoleUrl = "/supervise/matches/" + matchId;
  var userLink = document.querySelector('header a[href="/account"]');
  // Per user: someone else logging in on this phone neither sees nor sends these.
  var userName = userLink ? userLink.textContent.trim() : "";
  var storeKey = storeKeyFor(userName, matchId);

  // Whose page `doc` is: a token from another user's session must never send this user's
  // outbox (someone else logged in on this phone since).
  function sameUser(doc) {
    var link = doc.querySelector('header a[href="/account"]');
    return !!link && link.textContent.trim() === userName && userName !== "";
  }

  var box = document.getElementById("pending-hands");
  var handForm = document.getElementById("hand-form");
  var newHandForm = handForm && kindOf(handForm) && kindOf(handForm).kind === "hand" ? handForm : null;
  var pageVersion = versionIn(document);
  var pageHand = handNumberIn(document);
  var names = teamNames(document);
  var freshCsrf = "";

  var liveId = null; // the item the supervisor is waiting for (sent as typed, nothing ahead)
  var liveMode = ""; // "new" or "edit"
  var liveForm = null;
  var sendingId = null;
  var retryTimer = null;
  var retryDelay = 0;
  var nextTry = 0;
  var problem = ""; // why the last try failed, for the status line
  var note = ""; // one-off news for the status line
  var armed = null; // {id, until}: Discard tapped once
  var dirty = false; // something typed in a form since the page was shown
  var sent = false; // something was recorded by this drain: show the server's page after
  var editing = takeEditing();

  // ------------------------------------------------------------------ storage

  // Where a user's outbox for a match is kept in localStorage.
  function storeKeyFor(user, match) {
    return PREFIX + encodeURIComponent(user) + "." + match;
  }

  function load() {
    var data = null;
    try { data = JSON.parse(storage.getItem(storeKey) || "null"); } catch (e) { data = null; }
    if (!data || !Array.isArray(data.items)) data = { items: [], seen: null };
    return data;
  }

  function save(data) {
    if (data.items.length === 0 && !data.seen) storage.removeItem(storeKey);
    else storage.setItem(storeKey, JSON.stringify(data));
  }

  function change(id, fn) {
    var data = load();
    for (var i = 0; i < data.items.length; i++) {
      if (data.items[i].id === id) {
        if (fn(data.items[i], data, i) === "remove") data.items.splice(i, 1);
        save(data);
        return true;
      }
    }
    return false;
  }

  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var bytes = new Uint8Array(16);
    if (window.crypto && crypto.getRandomValues) crypto.getRandomValues(bytes);
    else for (var i = 0; i < 16; i++) bytes[i] = Math.floor(Math.random() * 256);
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }

  // A number, or null (isFinite(null) is true: not good enough for a version).
  function known(v) { return typeof v === "number" && isFinite(v) ? v : null; }

  // The version the match will have once everything kept is recorded (null: unknown, e.g.
  // before the start, where no form carries one). `pageVersion`: the page's (NaN: none).
  function nextVersion(data, pageVersion) {
    var last = data.items[data.items.length - 1];
    if (last && known(last.base) !== null) return last.base + last.bumps;
    var seen = data.seen ? known(data.seen.version) : null;
    var page = known(pageVersion);
    if (page === null || seen === null) return page === null ? seen : page;
    // A copy of the page kept offline may be older than what this phone has sent since.
    return Math.max(page, seen);
  }

  // The number of the next new hand, counting the kept ones (NaN: unknown).
  function nextHand(data, pageHand) {
    for (var i = data.items.length - 1; i >= 0; i--) {
      if (data.items[i].kind === "hand" && data.items[i].hand) return data.items[i].hand + 1;
    }
    var seen = data.seen && data.seen.hand ? data.seen.hand + 1 : NaN;
    if (isFinite(pageHand) && !(seen > pageHand)) return pageHand;
    return seen;
  }

  // ------------------------------------------------------------------ reading pages

  function kindOf(form) {
    return kindOfAction(form.getAttribute("action") || "", location.href);
  }

  // What a form posting to `action` (on the page at `base`) does, or null: not a console post.
  function kindOfAction(action, base) {
    var url;
    try { url = new URL(action, base); } catch (e) { return null; }
    if (url.origin !== new URL(base).origin) return null;
    var m = /^\/supervise\/matches\/(\d+)\/(hands(?:\/(\d+))?|time|forfeit|start|check-in|sportsmanship|lineup)$/.exec(url.pathname);
    if (!m) return null;
    var kind = m[3] ? "correction" : m[2] === "hands" ? "hand" : m[2] === "sportsmanship" ? "rating" : m[2];
    return { match: m[1], kind: kind, path: url.pathname, number: m[3] ? Number(m[3]) : null };
  }

  function text(el) { return el ? el.textContent.replace(/\s+/g, " ").trim() : ""; }

  // The version a page was rendered at (its forms' expected_version as sent by the server).
  function versionIn(doc) {
    var input = doc.querySelector('#hand-form input[name="expected_version"]') ||
      doc.querySelector('input[name="expected_version"]');
    var raw = input ? input.getAttribute("value") : "";
    var v = raw ? Number(raw) : NaN;
    return isFinite(v) ? v : NaN;
  }

  function handHeading(doc) {
    var title = doc.getElementById("hand-title");
    if (title) return title;
    var form = doc.getElementById("hand-form");
    for (var h = form && form.previousElementSibling; h; h = h.previousElementSibling) {
      if (h.tagName === "H2") return /Hand \d+/.test(h.textContent) ? h : null;
    }
    return null;
  }

  function handNumberIn(doc) {
    var h = handHeading(doc);
    var m = h && /Hand (\d+)/.exec(h.textContent);
    return m ? Number(m[1]) : NaN;
  }

  function teamNames(doc) {
    return {
      a: text(doc.querySelector(".scorebox .team-a .label")) || "Team A",
      b: text(doc.querySelector(".scorebox .team-b .label")) || "Team B"
    };
  }

  // What a refusal says, as the server put it on the page it answered with.
  function messageIn(doc) {
    var selectors = ["#hand-error", "#conflict-message", "[data-error-summary] li",
      "[data-error-summary]", "#rating-error", "#forfeit-error", ".error-summary", ".field-error",
      "main [role=alert]", "main h1"];
    for (var i = 0; i < selectors.length; i++) {
      var t = text(doc.querySelector(selectors[i]));
      if (t) return t.length > 300 ? t.slice(0, 297) + "…" : t;
    }
    return "";
  }

  // The match as the server showed it in an answer (a conflict page or the console).
  function serverIn(doc) {
    var rows = doc.querySelectorAll("table.sheet tbody tr");
    var count = doc.getElementById("hand-count");
    return {
      names: teamNames(doc),
      a: text(doc.getElementById("score-a")),
      b: text(doc.getElementById("score-b")),
      status: text(doc.getElementById("game-status")),
      hands: count ? Number(text(count)) : doc.querySelector("#pending-hands") ? rows.length : null
    };
  }

  function fieldsOf(form, submitter) {
    var data;
    try {
      data = submitter ? new FormData(form, submitter) : new FormData(form);
    } catch (e) {
      data = new FormData(form); // older browsers: add the button's own name=value
      if (submitter && submitter.name) data.append(submitter.name, submitter.value);
    }
    var out = [];
    data.forEach(function (value, name) {
      if (name !== "csrf" && typeof value === "string") out.push([name, value]);
    });
    return out;
  }

  function valueIn(fields, name) {
    for (var i = 0; i < fields.length; i++) if (fields[i][0] === name) return fields[i][1];
    return null;
  }

  // ------------------------------------------------------------------ words

  function bidWords(v) {
    if (!v) return "?";
    return v === "blind_nil" ? "blind nil" : v;
  }

  function teamWords(f, t, name) {
    var words = name + " bid " + bidWords(valueIn(f, t + "_bid0")) + " + " + bidWords(valueIn(f, t + "_bid1")) +
      ", took " + (valueIn(f, t + "_tricks0") || "?") + " + " + (valueIn(f, t + "_tricks1") || "?");
    var revokes = valueIn(f, t + "_revokes");
    if (revokes && revokes.trim() !== "0") words += ", " + revokes.trim() + " revoke(s)";
    if (valueIn(f, t + "_blind")) words += ", blind";
    return words;
  }

  function summary(kind, f, names) {
    var team = function (k) { return k === "a" ? names.a : k === "b" ? names.b : k; };
    switch (kind) {
      case "hand":
      case "correction":
        var hand = valueIn(f, "misdeal") ? "misdeal" : teamWords(f, "a", names.a) + " · " + teamWords(f, "b", names.b);
        var reason = valueIn(f, "reason");
        return reason ? hand + " (" + reason.trim() + ")" : hand;
      case "check-in":
        var who = team(valueIn(f, "team") || "");
        return valueIn(f, "present") === "0" ? "Undo the check-in of " + who : who + " is here";
      case "rating":
        return "Sportsmanship: " + names.a + " " + (valueIn(f, "a") || "?") + ", " + names.b + " " + (valueIn(f, "b") || "?");
      case "time":
        return "Call time";
      case "forfeit":
        var side = valueIn(f, "team") || "";
        if (side.indexOf("both") === 0) {
          var on = side.split("-")[1];
          return "Double forfeit" + (on ? ": " + team(on) + " advances" : "");
        }
        return team(side) + " forfeits";
      case "start":
        return "Start the match";
      case "lineup":
        return team(valueIn(f, "team") || "") + "'s lineup";
    }
    return kind;
  }

  function title(item) {
    if (item.kind === "hand") return (item.hand ? "Hand " + item.hand : "Next hand") + ": " + item.summary;
    if (item.kind === "correction") return "Correction of hand " + item.number + ": " + item.summary;
    return item.summary;
  }

  function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }

  // ------------------------------------------------------------------ the hand form

  function setField(form, name, value) {
    var input = form.querySelector('input[name="' + name + '"]');
    if (input) input.value = String(value);
    return input;
  }

  // Who deals hand `n` (seats 1 to 4, turning each hand) and who bids first (the next seat).
  function seatsOf(n) {
    var dealer = ((n - 1) % 4) + 1;
    return { dealer: dealer, first: (dealer % 4) + 1 };
  }

  // The next hand's number, dealer and first bidder, after the hands kept here.
  function showHand(n) {
    var heading = handHeading(document);
    if (heading) heading.textContent = heading.textContent.replace(/Hand \d+/, "Hand " + n);
    var seats = seatsOf(n);
    var dealer = seats.dealer;
    var first = seats.first;
    var d = document.getElementById("dealer");
    var b = document.getElementById("first-bidder");
    if (d) d.textContent = String(dealer);
    if (b) b.textContent = String(first);
    [["dealer-tag", dealer], ["first-tag", first]].forEach(function (pair) {
      var tag = document.getElementById(pair[0]);
      var legend = newHandForm.querySelector('fieldset[data-seat="' + pair[1] + '"] legend');
      if (tag && legend && tag.parentNode !== legend) {
        legend.appendChild(document.createTextNode(" "));
        legend.appendChild(tag);
      }
    });
  }

  // The hand form always describes the hand after everything kept: expected_version and the
  // hand number advanced by the queue, and a key no kept hand uses.
  function syncForm() {
    if (!newHandForm || editing || (liveId && liveMode === "edit")) return;
    var data = load();
    var v = nextVersion(data, pageVersion);
    if (v !== null) setField(newHandForm, "expected_version", v);
    var key = newHandForm.querySelector('input[name="idempotency_key"]');
    // Always a fresh key: a page from the worker's cache may carry one already used.
    if (key) key.value = newKey();
    var n = nextHand(data, pageHand);
    if (isFinite(n)) showHand(n);
  }

  // Empties the hand form for the next hand (the last one is kept in the outbox).
  function clearHandForm(form) {
    Array.prototype.forEach.call(form.elements, function (el) {
      if (el.tagName === "SELECT") el.value = "";
      else if (el.type === "checkbox" || el.type === "radio") el.checked = false;
      else if (el.tagName === "TEXTAREA" || (el.tagName === "INPUT" && el.type !== "hidden" && el.type !== "submit")) el.value = "";
      el.removeAttribute("aria-invalid");
      if (el.classList) el.classList.remove("invalid");
    });
    // The errors of a hand that is now in the outbox are no longer about this form.
    Array.prototype.forEach.call(form.querySelectorAll(".field-error, .error-summary"), function (el) {
      el.hidden = true;
    });
    setField(form, "idempotency_key", newKey());
    dirty = false;
    // console.js recounts the tricks on input.
    form.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function busy(form, on) {
    if (!form) return;
    Array.prototype.forEach.call(form.querySelectorAll("button, input[type=submit]"), function (b) {
      b.disabled = on;
    });
    if (on) form.setAttribute("aria-busy", "true");
    else form.removeAttribute("aria-busy");
  }

  // ------------------------------------------------------------------ sending

  function csrf() {
    if (freshCsrf) return freshCsrf;
    var input = document.querySelector('input[name="csrf"]');
    return input ? input.value : "";
  }

  // The form body of an item: its fields as typed, on the version and key it is sent with.
  function bodyOf(item, token) {
    var body = new URLSearchParams();
    body.append("csrf", token);
    item.fields.forEach(function (pair) {
      var value = pair[1];
      if (pair[0] === "expected_version" && known(item.base) !== null) value = String(item.base);
      if (pair[0] === "idempotency_key" && item.key) value = item.key;
      body.append(pair[0], value);
    });
    return body;
  }

  // fetch with a deadline (the body too): a hung request counts as no connection.
  function request(url, options) {
    var controller = window.AbortController ? new AbortController() : null;
    var timer = setTimeout(function () { if (controller) controller.abort(); }, TIMEOUT);
    options.credentials = "same-origin";
    options.cache = "no-store";
    if (controller) options.signal = controller.signal;
    return fetch(url, options).then(function (response) {
      return response.text().then(function (html) {
        clearTimeout(timer);
        return { response: response, html: html };
      });
    }, function (error) {
      clearTimeout(timer);
      throw error;
    }).catch(function (error) {
      clearTimeout(timer);
      throw new Error(lostMessage(error));
    });
  }

  // Why a request got no answer, for the status line.
  function lostMessage(error) {
    return error && error.name === "AbortError" ? "no answer in " + TIMEOUT / 1000 + " s" : "no connection";
  }

  function parse(html) { return new DOMParser().parseFromString(html, "text/html"); }

  function isLogin(response) {
    return isLoginUrl(response.url);
  }

  function isLoginUrl(url) {
    try { return new URL(url).pathname.indexOf("/login") === 0; } catch (e) { return false; }
  }

  // What the answer to a post means: "done", "retry" (keep it, try later), "login",
  // "refused" (422 and other refusals) or "conflict" (409), with the status line's words.
  // `answer`: its status, whether fetch followed a redirect, whether it ended on the login
  // page or on this match's console.
  function outcomeOf(answer) {
    var status = answer.status;
    var ok = status >= 200 && status < 300;
    if (answer.login || status === 401 || status === 403) return { outcome: "login", message: "log in again" };
    // Recorded: the server answers a done post with the console (POST, redirect, GET).
    if (ok && answer.console && answer.redirected) return { outcome: "done" };
    // A 200 that is not the console (a Wi-Fi login page, an old form's re-render): nothing
    // is known to be recorded; keep it and try again.
    if (ok) return { outcome: "retry", message: "the answer was not the match's page" };
    if (status >= 500 || status === 408 || status === 429) {
      return { outcome: "retry", message: status === 503 ? "the server is busy" : "the server failed (" + status + ")" };
    }
    return { outcome: status === 409 ? "conflict" : "refused" };
  }

  // One try: the outcome of the answer (outcomeOf), or "retry" without one.
  function send(item) {
    return request(item.action, {
      method: "POST",
      body: bodyOf(item, csrf()),
      redirect: "follow",
      headers: { "Content-Type": "application/x-www-form-urlencoded" }
    }).then(function (answer) {
      var r = answer.response;
      var out = outcomeOf({
        status: r.status, redirected: r.redirected, login: isLogin(r),
        console: sameOrigin(r.url) && pathOf(r.url) === consoleUrl
      });
      out.status = r.status;
      out.html = answer.html;
      if (out.outcome === "conflict" || out.outcome === "refused") {
        var doc = parse(answer.html);
        out.message = messageIn(doc) || "refused (" + r.status + ")";
        if (out.outcome === "conflict") out.server = serverIn(doc);
      }
      return out;
    }, function (error) {
      return { outcome: "retry", message: error.message };
    });
  }

  // After a 403 the page's token may belong to an ended session: take the current one.
  function refreshToken() {
    return request(consoleUrl, { method: "GET", redirect: "follow" }).then(function (answer) {
      if (!answer.response.ok || isLogin(answer.response)) return false;
      var doc = parse(answer.html);
      if (!sameUser(doc)) return false;
      var input = doc.querySelector('input[name="csrf"]');
      if (input && input.value && input.value !== csrf()) {
        freshCsrf = input.value;
        return true;
      }
      return false;
    }, function () { return false; });
  }

  function withLock(task) {
    // One tab at a time sends a match's outbox (two would send each item twice).
    if (navigator.locks && navigator.locks.request) {
      return navigator.locks.request(storeKey, { ifAvailable: true }, function (lock) {
        return lock ? task() : "busy";
      });
    }
    return task();
  }

  // Runs `task` (which may return a promise) one at a time: a call while it runs asks for
  // one more run after it, however many calls come meanwhile; never two runs side by side.
  // Nothing runs once `alive()` is false.
  function oneAtATime(task, alive) {
    var running = false;
    var again = false;
    function run() {
      if (!alive()) return;
      if (running) { again = true; return; }
      running = true;
      Promise.resolve().then(task).catch(function () {}).then(function () {
        running = false;
        if (again && alive()) { again = false; run(); }
      });
    }
    return run;
  }

  // Sends what waits, one drain at a time.
  var pump = oneAtATime(function () {
    return Promise.resolve(withLock(drain)).then(function (result) {
      if (result === "busy") schedule();
    });
  }, current);

  // Sends the head of the outbox until it is empty or something needs a person (or the
  // network).
  function drain() {
    if (!current()) return null;
    var data = load();
    var head = data.items[0];
    var live = head && head.id === liveId;
    // Strictly in order: nothing is sent past a head that waits for the supervisor.
    if (!head || (needsPerson(head) && !live)) {
      finish();
      return null;
    }
    if (navigator.onLine === false) {
      problem = "no connection";
      if (live) kept(head);
      schedule();
      return null;
    }
    sendingId = head.id;
    render();
    return send(head).then(function (r) {
      sendingId = null;
      if (!current()) return null;
      return settle(head, r, live);
    });
  }

  function settle(head, r, live) {
    note = "";
    if (r.outcome === "done") {
      var version = head.kind === "lineup" ? versionIn(parse(r.html)) : NaN;
      change(head.id, function (item, data) {
        afterRecorded(data, item, version);
        return "remove";
      });
      problem = "";
      retryDelay = 0;
      if (live) {
        liveId = null;
        if (liveMode === "edit") sessionClear();
        retire();
        location.replace(consoleUrl);
        return null;
      }
      sent = true;
      return drain();
    }
    if (r.outcome === "retry" || r.outcome === "login") {
      problem = r.message;
      if (live) kept(head);
      render();
      if (r.outcome === "login" && r.status === 403) {
        return refreshToken().then(function (fresh) {
          if (fresh) retryDelay = 0;
          schedule();
          return null;
        });
      }
      schedule();
      return null;
    }
    // An admin's correction that resets part of the bracket: the answer is the page that asks
    // to confirm it (the correction in its hidden fields), for a person to see.
    var confirmPage = r.html.indexOf('id="reset-form"') >= 0;
    if (live) {
      liveId = null;
      // The answer was for the person who just sent it: show it as the server wrote it.
      var outboxOnIt = r.html.indexOf("/static/outbox.js") >= 0;
      if (r.outcome === "refused" || confirmPage) {
        if (liveMode === "edit" && outboxOnIt) {
          change(head.id, function (item) { item.state = "refused"; item.message = r.message; });
          sessionMark(head.id);
        } else {
          // The page's form holds what was typed now, with the error next to it.
          change(head.id, function () { return "remove"; });
        }
        replaceDocument(r.html, null);
        return null;
      }
      // 409: a typed hand stays here until the supervisor decides; the conflict page says
      // what changed.
      var keep = head.kind === "hand" || head.kind === "correction";
      change(head.id, function (item) {
        if (!keep) return "remove";
        item.state = "conflict";
        item.message = r.message;
        item.server = r.server;
      });
      if (liveMode === "new") {
        replaceDocument(r.html, keep && !outboxOnIt ? keptNote : null);
        return null;
      }
      finish();
      return null;
    }
    change(head.id, function (item) {
      item.state = r.outcome === "conflict" && !confirmPage ? "conflict" : "refused";
      item.message = confirmPage ? "it needs your confirmation: it resets part of the bracket" : r.message;
      item.server = r.server || null;
    });
    finish();
    return null;
  }

  // What this phone knows the server has after `item` was recorded (`was`: known before):
  // the match's version and the last hand sent, for a saved copy of the page that is older.
  function seenAfter(item, was) {
    was = was || {};
    return {
      version: known(item.base) !== null ? item.base + item.bumps : known(was.version),
      hand: item.kind === "hand" && known(item.hand) !== null ? item.hand : known(was.hand)
    };
  }

  // Outbox `data` once `item` (its first) is recorded: what the server has now, and the items
  // after it renumbered from `version` where the answer showed it (a lineup moves the version
  // on only when it changes who sits; NaN: the item's own bumps are the truth).
  function afterRecorded(data, item, version) {
    data.seen = seenAfter(item, data.seen);
    if (!isFinite(version)) return;
    data.seen.version = version;
    renumber(data.items.slice(1), version, NaN);
  }

  // A refused or conflicting item waits for the supervisor (Edit, Discard, Send again).
  function needsPerson(item) {
    return item.state === "refused" || item.state === "conflict";
  }

  function finish() {
    render();
    syncForm();
    if (!sent) return;
    sent = false;
    // The recorded items are on the server: show its page, unless that throws away typing.
    if (dirty) {
      note = "Sent. The scoresheet shows it after the next hand, or when you reload.";
      render();
      refreshSavedCopy();
      return;
    }
    retire();
    location.replace(consoleUrl);
  }

  // The live item could not be sent: it stays in the outbox, the form is ready for the next.
  function kept(item) {
    liveId = null;
    var form = liveForm;
    liveForm = null;
    busy(form, false);
    if (liveMode === "edit") {
      change(item.id, function (i) { i.state = "refused"; });
      if (form) {
        editing = { id: item.id, form: form };
        sessionMark(item.id);
      }
      render();
      return;
    }
    if (form && form === newHandForm) clearHandForm(form);
    render();
    syncForm();
  }

  function schedule() {
    if (!current()) return;
    if (retryTimer) clearTimeout(retryTimer);
    retryTimer = null;
    var data = load();
    if (!data.items.length || needsPerson(data.items[0])) {
      render();
      return;
    }
    retryDelay = nextRetryDelay(retryDelay);
    nextTry = Date.now() + retryDelay;
    retryTimer = setTimeout(function () { retryTimer = null; pump(); }, retryDelay);
    render();
  }

  // The wait before the next try: 2 s, then doubling up to 60 s (0: no try failed yet).
  function nextRetryDelay(previous) {
    return previous ? Math.min(previous * 2, LAST_RETRY) : FIRST_RETRY;
  }

  function retire() {
    retired = true;
    if (retryTimer) clearTimeout(retryTimer);
  }

  function replaceDocument(html, after) {
    retire();
    document.open();
    document.write(html);
    document.close();
    if (after) after(document);
    window.scrollTo(0, 0);
  }

  function keptNote(doc) {
    var anchor = doc.getElementById("conflict-message");
    if (!anchor || !anchor.parentNode) return;
    var p = doc.createElement("p");
    p.id = "outbox-kept";
    p.textContent = "What you sent is kept on this phone: on the console, send it on the current version or discard it.";
    anchor.parentNode.insertBefore(p, anchor.nextSibling);
  }

  // ------------------------------------------------------------------ Edit (a refused item)

  function sessionMark(id) {
    try { sessionStorage.setItem(EDITING, JSON.stringify({ store: storeKey, id: id })); } catch (e) { /* no Edit then */ }
  }

  function sessionClear() {
    try { sessionStorage.removeItem(EDITING); } catch (e) { /* nothing kept */ }
  }

  // The refused item this page's form was shown for (its 422 page, opened by Edit), if any.
  function takeEditing() {
    var mark = null;
    try { mark = JSON.parse(sessionStorage.getItem(EDITING) || "null"); } catch (e) { mark = null; }
    if (!mark || mark.store !== storeKey) return null;
    var head = load().items[0];
    var forms = document.querySelectorAll("form");
    for (var i = 0; head && head.id === mark.id && i < forms.length; i++) {
      var k = kindOf(forms[i]);
      if (!k || k.path !== head.action) continue;
      var key = forms[i].querySelector('input[name="idempotency_key"]');
      if (head.kind === "hand" && (!key || key.value !== head.key)) continue;
      return { id: head.id, form: forms[i] };
    }
    sessionClear();
    return null;
  }

  function edit(id) {
    var head = load().items[0];
    if (!head || head.id !== id) return;
    liveId = id;
    liveMode = "edit";
    liveForm = null;
    note = "Opening it for editing…";
    render();
    pump();
  }

  // ------------------------------------------------------------------ conflicts

  // Sends everything kept on the match as it is now: asks the server for its version and
  // hand count, and renumbers the queue from there (keys unchanged: a hand already recorded
  // under its key is answered as such, never twice).
  function resendOnCurrent() {
    note = "Asking the server for the match as it is now…";
    render();
    request(consoleUrl, { method: "GET", redirect: "follow" }).then(function (answer) {
      if (!current()) return;
      if (!answer.response.ok || isLogin(answer.response)) {
        note = "The server did not show the match (" + (isLogin(answer.response) ? "log in again" : answer.response.status) + "): nothing was sent.";
        render();
        return;
      }
      var doc = parse(answer.html);
      if (!sameUser(doc)) {
        note = "Someone else is logged in on this phone: log in as " + userName + " to send these.";
        render();
        return;
      }
      var version = versionIn(doc);
      var token = doc.querySelector('input[name="csrf"]');
      if (token && token.value) freshCsrf = token.value;
      var data = load();
      if (!isFinite(version)) {
        var state = text(doc.getElementById("game-status"));
        if (data.items[0]) {
          data.items[0].message = "The match takes nothing more now" + (state ? " (" + state + ")" : "") + ".";
          data.items[0].server = serverIn(doc);
          save(data);
        }
        note = "";
        render();
        return;
      }
      renumber(data.items, version, handNumberIn(doc));
      save(data);
      note = "";
      retryDelay = 0;
      render();
      syncForm();
      pump();
    }, function (error) {
      note = "Not sent: " + error.message + ". Try again when the connection is back.";
      render();
    });
  }

  // Every item waiting again, numbered from the match as the server has it now: its version
  // and the number of its next hand (NaN: unknown, the hands keep theirs).
  function renumber(items, version, hand) {
    var v = version;
    items.forEach(function (item) {
      item.state = "waiting";
      item.message = "";
      item.server = null;
      item.base = v;
      v += item.bumps;
      if (item.kind === "hand" && isFinite(hand)) item.hand = hand++;
    });
  }

  // Takes item `id` out of the outbox data (null: not there) and renumbers those after it.
  function removeItem(data, id) {
    var index = -1;
    data.items.forEach(function (item, i) { if (item.id === id) index = i; });
    if (index < 0) return null;
    var gone = data.items.splice(index, 1)[0];
    // The items after it were numbered as if it would be recorded.
    data.items.slice(index).forEach(function (item) {
      if (known(item.base) !== null) item.base -= gone.bumps;
      if (gone.kind === "hand" && item.kind === "hand" && item.hand) item.hand -= 1;
    });
    return gone;
  }

  function discard(id) {
    if (id === sendingId) return;
    var data = load();
    if (!removeItem(data, id)) return;
    save(data);
    if (editing && editing.id === id) { editing = null; sessionClear(); }
    armed = null;
    render();
    syncForm();
    pump();
  }

  // ------------------------------------------------------------------ showing the outbox

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "hidden") node.hidden = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }

  function stateWords(item) {
    if (item.id === sendingId) return "sending…";
    if (item.state === "refused") return "refused: " + (item.message || "the server did not take it");
    if (item.state === "conflict") return "not sent: the match changed";
    return "waiting to send";
  }

  function serverBox(item, items) {
    var s = item.server || {};
    var n = s.names || names;
    var score = s.a || s.b ? n.a + " " + s.a + " – " + n.b + " " + s.b : "";
    var hands = s.hands != null && isFinite(s.hands) ? plural(s.hands, "hand", "hands") + " recorded" : "";
    var server = el("div", { "class": "outbox-server" }, [
      el("strong", { text: "On the server now" }),
      el("p", { "class": "outbox-server-state", text: [score, hands, s.status].filter(Boolean).join(" · ") || "changed since this was typed" }),
      item.message ? el("p", { "class": "outbox-server-message", text: item.message }) : null
    ]);
    var list = el("ul", {}, items.map(function (i) { return el("li", { text: title(i) }); }));
    var phone = el("div", { "class": "outbox-phone" }, [
      el("strong", { text: "Waiting on this phone" }),
      list
    ]);
    var pair = el("div", { "class": "outbox-conflict" }, [server, phone]);
    // Side by side where there is room (console.css may style .outbox-conflict instead).
    pair.style.display = "grid";
    pair.style.gridTemplateColumns = "repeat(auto-fit, minmax(14rem, 1fr))";
    pair.style.gap = ".75rem";
    return pair;
  }

  function button(id, cls, label, data) {
    var attrs = { type: "button", "class": cls, "data-outbox-id": data, text: label };
    if (id) attrs.id = id;
    return el("button", attrs);
  }

  function statusWords(data) {
    if (note) return note;
    var head = data.items[0];
    if (!head) return "";
    if (head.state === "conflict") return "The match changed before these were sent: choose below.";
    if (head.state === "refused") return "The server refused the first one: edit or discard it; the rest wait behind it.";
    var why = navigator.onLine === false ? "no connection" : problem;
    var words = why ? "Not sent yet (" + why + "): kept on this phone." : "Kept on this phone until the server has it.";
    if (retryTimer && nextTry > Date.now()) words += " Next try in " + Math.max(1, Math.round((nextTry - Date.now()) / 1000)) + " s.";
    return words;
  }

  function render() {
    if (!current()) return;
    var data = load();
    var items = data.items;
    if (!box) {
      if (!items.length) return;
      // A page without the slot (the correction page): the list goes on top.
      var main = document.querySelector("main") || document.body;
      box = el("div", { id: "pending-hands", "data-match": matchId });
      main.insertBefore(box, main.firstChild);
    }
    var count = items.length;
    box.setAttribute("data-count", String(count));
    var children = [
      el("p", {
        id: "outbox", "class": "outbox-count", role: "status", "data-count": String(count),
        text: count ? count + " waiting to send" : "Nothing waiting to send", hidden: !count
      })
    ];
    var status = statusWords(data);
    if (count || note) {
      var line = el("p", { "class": "outbox-status", id: "outbox-status", text: status + " " });
      if (count && items[0].state === "waiting" && items[0].id !== sendingId) {
        line.appendChild(button("outbox-send-now", "outbox-send-now", "Send now", ""));
      }
      if (problem.indexOf("log in") === 0) {
        line.appendChild(el("a", { href: "/login?next=" + encodeURIComponent(consoleUrl), text: "Log in" }));
      }
      children.push(line);
    }
    if (count) {
      children.push(el("ol", { "class": "outbox-list", id: "outbox-list" }, items.map(function (item, i) {
        var li = el("li", {
          // A conflict wears the console's "not saved" box (.conflict in console.css).
          "class": "outbox-item outbox-" + (item.id === sendingId ? "sending" : item.state) +
            (item.state === "conflict" ? " conflict" : ""),
          "data-id": item.id, "data-kind": item.kind, "data-state": item.id === sendingId ? "sending" : item.state
        }, [
          el("span", { "class": "outbox-what", text: title(item) }),
          document.createTextNode(" — "),
          el("strong", { "class": "outbox-state", text: stateWords(item) })
        ]);
        if (item.key) li.setAttribute("data-key", item.key);
        var actions = el("span", { "class": "outbox-actions" });
        if (i === 0 && item.state === "conflict") {
          li.appendChild(serverBox(item, items));
          var versioned = items.some(function (x) { return valueIn(x.fields, "expected_version") != null; });
          actions.appendChild(versioned
            ? button("outbox-resend", "outbox-resend primary", count > 1 ? "Send these " + count + " on the current version" : "Send it on the current version", item.id)
            : button("outbox-resend", "outbox-retry", "Try again", item.id));
        }
        if (i === 0 && item.state === "refused") {
          if (editing && editing.id === item.id) {
            li.appendChild(el("p", { "class": "outbox-editing", text: "It is in the form above with the server's message: change it and send it again." }));
          } else if (item.kind === "hand" || item.kind === "correction" || item.kind === "rating" || item.kind === "forfeit") {
            actions.appendChild(button("", "outbox-edit", "Edit", item.id));
          } else {
            actions.appendChild(button("", "outbox-retry", "Try again", item.id));
          }
        }
        // Not while it is on its way: it may be recorded whatever is tapped here.
        if (item.id !== sendingId) {
          var isArmed = armed && armed.id === item.id && armed.until > Date.now();
          actions.appendChild(button("", "outbox-discard" + (isArmed ? " danger" : ""), isArmed ? "Tap again to discard" : "Discard", item.id));
        }
        Array.prototype.slice.call(actions.childNodes, 1).forEach(function (b) {
          actions.insertBefore(document.createTextNode(" "), b);
        });
        li.appendChild(document.createTextNode(" "));
        li.appendChild(actions);
        return li;
      })));
    }
    while (box.firstChild) box.removeChild(box.firstChild);
    children.forEach(function (c) { box.appendChild(c); });
  }

  function onClick(event) {
    if (!current() || !box) return;
    var target = event.target.closest ? event.target.closest("button[data-outbox-id]") : null;
    if (!target || !box.contains(target)) return;
    var id = target.getAttribute("data-outbox-id");
    var cls = target.classList;
    note = "";
    if (cls.contains("outbox-send-now")) {
      retryDelay = 0;
      pump();
    } else if (cls.contains("outbox-resend")) {
      resendOnCurrent();
    } else if (cls.contains("outbox-retry")) {
      change(id, function (item) { item.state = "waiting"; });
      retryDelay = 0;
      pump();
    } else if (cls.contains("outbox-edit")) {
      edit(id);
    } else if (cls.contains("outbox-discard")) {
      // Two taps: a thumb at a crowded table must not throw a hand away by accident.
      if (armed && armed.id === id && armed.until > Date.now()) {
        discard(id);
      } else {
        armed = { id: id, until: Date.now() + 4000 };
        render();
        setTimeout(function () { if (armed && armed.id === id) { armed = null; render(); } }, 4100);
      }
    }
  }

  // ------------------------------------------------------------------ the forms

  function onSubmit(event) {
    var form = event.target;
    if (!current() || event.defaultPrevented || !form || form.tagName !== "FORM") return;
    if ((form.getAttribute("method") || "").toLowerCase() !== "post" || form.getAttribute("data-outbox-off")) return;
    var k = kindOf(form);
    if (!k || k.match !== matchId) return;
    event.preventDefault();
    if (form.getAttribute("aria-busy")) return; // this form is being sent already
    var fields = fieldsOf(form, event.submitter);
    var data = load();
    var item = editing && editing.form === form ? data.items[0] : null;
    var mode = "new";
    if (item && item.id === editing.id) {
      mode = "edit";
      applyEdit(item, fields, names);
    } else {
      item = newItem(k, fields, data, { version: pageVersion, hand: pageHand, names: names }, newKey, Date.now());
      data.items.push(item);
    }
    try {
      save(data);
    } catch (e) {
      // Storage full: the plain post, as without this script.
      form.setAttribute("data-outbox-off", "1");
      if (form.requestSubmit) form.requestSubmit(event.submitter || undefined);
      else form.submit();
      return;
    }
    if (data.items[0].id === item.id && navigator.onLine !== false) {
      // Nothing ahead of it: the supervisor waits for this answer as for a page load.
      liveId = item.id;
      liveMode = mode;
      liveForm = form;
      busy(form, true);
    } else if (mode === "new" && form === newHandForm) {
      clearHandForm(form);
    }
    note = "";
    if (mode === "edit") { editing = null; sessionClear(); }
    render();
    syncForm();
    pump();
  }

  // A new item for a post of kind `k` (kindOfAction) with `fields`, numbered after the items
  // kept in `data`; `page`: the page's version, hand number and team names; ids from `newId`.
  function newItem(k, fields, data, page, newId, now) {
    // A new hand gets a key of its own, never the page's (a saved copy may carry a used one).
    var key = k.kind === "hand" ? newId() : null;
    var item = {
      id: newId(), kind: k.kind, action: k.path, number: k.number, fields: fields, key: key,
      base: nextVersion(data, page.version), bumps: BUMPS[k.kind] || 0,
      hand: k.kind === "hand" ? nextHand(data, page.hand) : null,
      summary: summary(k.kind, fields, page.names), state: "waiting", message: "", at: now
    };
    if (item.base === null) {
      var typed = valueIn(fields, "expected_version");
      item.base = typed && typed.trim() !== "" ? known(Number(typed)) : null;
    }
    return item;
  }

  // The refused item, changed in the form the server sent back: it keeps its place.
  function applyEdit(item, fields, names) {
    item.fields = fields;
    item.summary = summary(item.kind, fields, names);
    item.state = "waiting";
    item.message = "";
    // The server's form for it carries the version it was refused on.
    var typedOn = valueIn(fields, "expected_version");
    if (typedOn && known(Number(typedOn)) !== null) item.base = Number(typedOn);
    if (item.kind === "hand") item.key = valueIn(fields, "idempotency_key") || item.key;
  }

  // The worker's copy of this page must show what was sent since: a reload offline must
  // not show a scoresheet without hands the server has (they would be typed again).
  function sameOrigin(url) {
    try { return new URL(url, location.href).origin === location.origin; } catch (e) { return false; }
  }

  function pathOf(url) {
    try { return new URL(url, location.href).pathname; } catch (e) { return ""; }
  }

  // A page older than what this phone has sent (the worker's copy, offline): say so, so that
  // no hand is typed again.
  function warnIfSavedCopy() {
    var data = load();
    var seen = data.seen ? known(data.seen.version) : null;
    if (seen !== null && known(pageVersion) !== null && seen > pageVersion) {
      note = "This is a saved copy of the page: what this phone sent since is not on it. Reload when the connection is back before typing a hand again.";
    }
  }

  function refreshSavedCopy() {
    if (!("serviceWorker" in navigator) || !navigator.serviceWorker.controller) return;
    navigator.serviceWorker.controller.postMessage({ type: "refresh-page", url: consoleUrl });
  }

  function registerWorker() {
    if (!("serviceWorker" in navigator)) return;
    navigator.serviceWorker.register("/supervise/sw.js", { scope: "/supervise" }).then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (registration) {
      // The page this script runs in was loaded before the worker could keep it.
      return new Promise(function (resolve) {
        var worker = registration.active;
        if (!worker || !window.MessageChannel) return resolve(false);
        var channel = new MessageChannel();
        var timer = setTimeout(function () { resolve(false); }, 15000);
        channel.port1.onmessage = function (e) {
          clearTimeout(timer);
          resolve(!!(e.data && e.data.ok));
        };
        worker.postMessage({ type: "keep-page", url: location.href }, [channel.port2]);
      });
    }).then(function (ok) {
      // For the tests and the curious: this page can be reloaded offline.
      if (ok) document.documentElement.setAttribute("data-outbox-offline", "ready");
    }).catch(function () { /* no worker: the outbox still keeps everything */ });
  }

  // ------------------------------------------------------------------ start

  document.addEventListener("submit", onSubmit);
  document.addEventListener("click", onClick);
  var typing = function (event) {
    var form = event.target && event.target.form;
    if (current() && form && kindOf(form) && event.isTrusted) dirty = true;
  };
  document.addEventListener("input", typing);
  document.addEventListener("change", typing);
  window.addEventListener("online", function () {
    if (!current()) return;
    problem = "";
    retryDelay = 0;
    pump();
  });
  window.addEventListener("offline", function () { if (current()) render(); });
  window.addEventListener("storage", function (event) {
    // Another tab changed this outbox.
    if (current() && event.key === storeKey) { render(); syncForm(); }
  });
  document.addEventListener("visibilitychange", function () {
    if (current() && document.visibilityState === "visible") pump();
  });
  warnIfSavedCopy();
  render();
  syncForm();
  pump();
})();
