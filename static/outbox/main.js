// The console's outbox: nothing a supervisor sends from the console is lost when the Wi-Fi
// drops at the card table. queue.js keeps the items and their order, transport.js sends one
// and reads the answer, ui.js shows them; this module wires them to the page.
//
// Every console form that writes (a hand, a correction, check-in, ratings, call time,
// forfeit, start, a lineup) is kept in localStorage with its version and idempotency key,
// and sent with fetch instead of a page load. What is not recorded (no connection, no
// answer in 10 s, 5xx, 503) stays and is sent again: at once when the connection returns
// (`online`, the page shown again), every 2 s while nothing reaches the server, backing off
// to 60 s while the server fails. Every match of this user is sent from any of their
// console pages, a match's items in order. A resend is harmless: the key.
// A hand is answered with its totals (about 130 bytes, not the console page). Recorded →
// the console reloads (the server's truth) once the entry the supervisor waits for is
// recorded, or nothing is left to send; while the supervisor is typing it stays, with the
// score of the last answer. Refused while the supervisor waits for it (nothing ahead): the
// form is posted as without this script, so the server's page shows the error next to what
// was typed. Refused after waiting: kept at the top of every console page with the
// server's message, Edit and Discard. 409: kept until sent on the current version or
// discarded. Another user's session never sends this user's items.
// Without modules, fetch or localStorage, the forms post as always.

import * as Q from "./queue.js";
import * as T from "./transport.js";
import * as UI from "./ui.js";
import { summary } from "./words.js";
import * as B from "./browser.js";

const EDITING = "spades-im.outbox.edit";

function start() {
  let storage;
  try { storage = window.localStorage; storage.getItem("x"); } catch (e) { return; }
  B.registerWorker();
  const where = /^\/supervise\/matches\/(\d+)(?:\/|$)/.exec(location.pathname);
  if (!where) return;
  const match = where[1];
  const consoleUrl = T.consolePath(match);
  const page = T.factsOf(document);
  // Per user: someone else logging in on this phone neither sees nor sends these.
  if (!page.user) return;
  const store = Q.openStore(storage, page.user);
  const env = {
    fetch: window.fetch.bind(window), AbortController: window.AbortController, origin: location.origin,
    parse: function (html) { return new DOMParser().parseFromString(html, "text/html"); }
  };
  const names = T.teamNames(document);
  const handForm = document.getElementById("hand-form");
  const newHandForm = handForm && kindOf(handForm) && kindOf(handForm).kind === "hand" ? handForm : null;
  const parts = UI.slots(document, match);
  const s = {
    csrf: page.csrf, live: null, sendingId: null, timer: null, delay: 0, nextTry: 0,
    problem: "", note: "", armed: null, dirty: false, sent: false, editing: null, leaving: false,
    totals: null
  };

  function kindOf(form) { return T.kindOfAction(form.getAttribute("action") || "", location.href); }
  function online() { return navigator.onLine !== false; }

  function render() {
    if (s.leaving) return;
    UI.render(document, parts, {
      all: Q.loadAll(store), match: match, names: names, online: online(), sendingId: s.sendingId,
      problem: s.problem, note: s.note, nextTry: s.timer ? s.nextTry : 0, armed: s.armed, editing: s.editing
    });
  }

  function change(m, fn) {
    const data = store.load(m);
    const out = fn(data);
    store.save(m, data);
    return out;
  }

  function syncForm() {
    if (!newHandForm || (s.editing && s.editing.form === newHandForm)) return;
    if (s.live && s.live.form === newHandForm) return;
    const data = store.load(match);
    UI.syncHandForm(document, newHandForm, Q.nextVersion(data, page.version), Q.nextHand(data, page.hand), page.hand, B.newKey());
  }

  function leave(url) {
    s.leaving = true;
    if (s.timer) clearTimeout(s.timer);
    location.replace(url);
  }

  function schedule(cause) {
    if (s.timer) clearTimeout(s.timer);
    s.timer = null;
    if (!Q.sendable(Q.loadAll(store)).length) { render(); return; }
    s.delay = Q.nextRetryDelay(s.delay, cause);
    s.nextTry = Date.now() + s.delay;
    s.timer = setTimeout(function () { s.timer = null; pump(); }, s.delay);
    render();
  }

  // Sends now: the connection is back, the page is shown again, or the supervisor asked.
  function sendNow() {
    s.delay = 0;
    s.problem = "";
    if (s.timer) clearTimeout(s.timer);
    s.timer = null;
    pump();
  }

  let running = false;
  let again = false;
  // One drain at a time in this tab, and one tab at a time per user (two would send each
  // item twice; the key would make it harmless, but not free).
  function pump() {
    if (s.leaving) return;
    if (running) { again = true; return; }
    running = true;
    const locked = navigator.locks && navigator.locks.request
      ? navigator.locks.request("spades-im.outbox." + page.user, { ifAvailable: true }, function (lock) { return lock ? drain() : "busy"; })
      : drain();
    Promise.resolve(locked).catch(function () { return null; }).then(function (result) {
      running = false;
      if (result === "busy") schedule("network");
      if (again) { again = false; pump(); }
    });
  }

  // Sends what may be sent, oldest first, until nothing is left or the network fails.
  function drain() {
    if (s.leaving) return null;
    const next = Q.sendable(Q.loadAll(store))[0];
    if (!next) { finish(); return null; }
    if (!online()) {
      s.problem = "no connection";
      if (s.live) kept(s.live);
      schedule("offline");
      return null;
    }
    const item = next.item;
    if (change(next.match, function (data) { return Q.ensureKey(data.items[0], B.newKey); })) item.key = store.load(next.match).items[0].key;
    s.sendingId = item.id;
    render();
    return T.send(env, item, next.match, Q.bodyFields(item, s.csrf)).then(function (result) {
      s.sendingId = null;
      return settle(next.match, item, result);
    });
  }

  function settle(m, item, result) {
    s.note = "";
    const live = s.live && s.live.id === item.id ? s.live : null;
    if (result.outcome === "recorded" || result.outcome === "duplicate") {
      // The server's version after it: a hand's totals say it (and the hand's number), a
      // lineup's page (it moves the version on only when it changes who sits).
      const t = result.totals;
      const version = t ? t.version : item.kind === "lineup" && result.facts ? result.facts.version : NaN;
      change(m, function (data) { Q.settle(data, item.id, result, version, t ? t.number : NaN); });
      // The score to show if the page stays; not after another entry (a correction moves it).
      if (m === match) s.totals = t || null;
      s.problem = "";
      s.delay = 0;
      if (live) {
        s.live = null;
        if (s.editing && s.editing.id === item.id) clearEditing();
        leave(consoleUrl);
        return null;
      }
      if (m === match) s.sent = true;
      return drain();
    }
    // Nothing went through: whatever the supervisor waits for is kept, not only this item.
    if (result.outcome === "retry") {
      s.problem = result.message;
      if (s.live) kept(s.live);
      schedule(result.cause);
      return null;
    }
    if (result.outcome === "auth") return lostSession(s.live);
    if (live && live.mode === "new") {
      // The supervisor waits for this answer: the server's page, as without this script,
      // shows what to fix next to what was typed (the item was never recorded).
      change(m, function (data) { Q.removeItem(data, item.id); });
      s.live = null;
      plainPost(live.form, live.submitter);
      return null;
    }
    if (live) { s.live = null; UI.busy(live.form, false); }
    if (s.editing && s.editing.id === item.id) clearEditing();
    change(m, function (data) { Q.settle(data, item.id, result, NaN); });
    return drain();
  }

  // A 401/403 or the login page: a new token if the session is still this user's, else
  // the items wait for this user to log in again (another user's session never sends them).
  function lostSession(live) {
    s.problem = "log in again";
    if (live) kept(live);
    return T.fetchConsole(env, match, page.user).then(function (now) {
      if (now.facts && now.facts.csrf && now.facts.csrf !== s.csrf) {
        s.csrf = now.facts.csrf;
        s.problem = "";
        return drain();
      }
      if (now.problem) s.problem = now.problem === "log in again" ? "log in again" : "log in again as " + page.user + ": " + now.problem;
      schedule("auth");
      return null;
    });
  }

  function finish() {
    render();
    syncForm();
    if (!s.sent) return;
    s.sent = false;
    // Recorded on the server: show its page, unless that throws away typing.
    if (s.dirty) {
      s.note = "Sent.";
      if (s.totals) UI.showTotals(document, s.totals);
      s.totals = null;
      render();
      showSent();
      B.refreshSavedCopy(consoleUrl);
      return;
    }
    leave(consoleUrl);
  }

  // The scoresheet with what was just sent, fetched, while the typing in the form stays.
  function showSent() {
    T.fetchConsole(env, match, page.user).then(function (now) {
      if (!now.doc || s.leaving) return;
      UI.swapSheet(document, now.doc);
      s.note = "Sent: the scoresheet shows it.";
      render();
    });
  }

  // The live item could not be sent: it stays, the form is ready for the next.
  function kept(live) {
    s.live = null;
    UI.busy(live.form, false);
    if (live.form === newHandForm) {
      UI.clearForm(newHandForm);
      s.dirty = false;
    }
    if (live.mode === "edit") clearEditing();
    render();
    syncForm();
  }

  function plainPost(form, submitter) {
    s.leaving = true;
    if (s.timer) clearTimeout(s.timer);
    form.setAttribute("data-outbox-off", "1");
    UI.busy(form, false);
    if (form.requestSubmit) form.requestSubmit(submitter || undefined);
    else form.submit();
  }

  // Sends everything kept on this match as it is now: the server's version and next hand
  // number, the queue renumbered from there (keys unchanged: never recorded twice).
  function resendOnCurrent() {
    s.note = "Asking the server for the match as it is now…";
    render();
    T.fetchConsole(env, match, page.user).then(function (now) {
      s.note = "";
      if (now.problem) {
        s.note = "Nothing was sent: " + now.problem + ".";
      } else if (!isFinite(now.facts.version)) {
        change(match, function (data) {
          if (!data.items[0]) return;
          data.items[0].message = "The match takes nothing more now" + (now.server.status ? " (" + now.server.status + ")" : "") + ".";
          data.items[0].server = now.server;
        });
      } else {
        if (now.facts.csrf) s.csrf = now.facts.csrf;
        change(match, function (data) { Q.renumber(data.items, now.facts.version, now.facts.hand); });
        render();
        syncForm();
        sendNow();
        return;
      }
      render();
    });
  }

  function clearEditing() {
    if (s.editing) s.editing.form.removeAttribute("data-outbox-editing");
    s.editing = null;
    try { sessionStorage.removeItem(EDITING); } catch (e) { /* nothing kept */ }
  }

  // Puts a refused item back into its form, here or on the page that has it.
  function edit(m, id) {
    const item = store.load(m).items.find(function (x) { return x.id === id; });
    if (!item) return;
    const form = m === match ? UI.formFor(document, item, kindOf) : null;
    if (!form) {
      try { sessionStorage.setItem(EDITING, JSON.stringify({ user: page.user, match: m, id: id })); } catch (e) { return; }
      location.assign(item.kind === "correction" ? item.action + "/edit" : T.consolePath(m));
      return;
    }
    clearEditing();
    UI.fillForm(form, item.fields);
    if (form === newHandForm && item.hand) UI.showHand(document, form, item.hand, page.hand);
    form.setAttribute("data-outbox-editing", id);
    s.editing = { id: id, match: m, form: form };
    render();
    const first = form.querySelector("select, input:not([type=hidden]), textarea");
    form.scrollIntoView({ block: "start" });
    if (first) first.focus({ preventScroll: true });
  }

  function resumeEditing() {
    let mark = null;
    try { mark = JSON.parse(sessionStorage.getItem(EDITING) || "null"); } catch (e) { mark = null; }
    if (mark && mark.user === page.user && mark.match === match) edit(match, mark.id);
    else if (mark) clearEditing();
  }

  function discard(m, id) {
    if (id === s.sendingId) return;
    change(m, function (data) { Q.removeItem(data, id); });
    if (s.editing && s.editing.id === id) clearEditing();
    s.armed = null;
    render();
    syncForm();
    pump();
  }

  function onClick(event) {
    const target = event.target.closest ? event.target.closest("button[data-outbox-id]") : null;
    if (!target || s.leaving) return;
    const id = target.getAttribute("data-outbox-id");
    const m = target.getAttribute("data-outbox-match") || match;
    const cls = target.classList;
    s.note = "";
    if (cls.contains("outbox-send-now")) sendNow();
    else if (cls.contains("outbox-resend")) resendOnCurrent();
    else if (cls.contains("outbox-retry")) {
      change(m, function (data) { if (data.items[0] && data.items[0].id === id) data.items[0].state = "waiting"; });
      sendNow();
    } else if (cls.contains("outbox-edit")) edit(m, id);
    else if (cls.contains("outbox-discard")) {
      // Two taps: a thumb at a crowded table must not throw a hand away by accident.
      if (s.armed && s.armed.id === id && s.armed.until > Date.now()) discard(m, id);
      else {
        s.armed = { id: id, until: Date.now() + 4000 };
        render();
        setTimeout(function () { if (s.armed && s.armed.id === id) { s.armed = null; render(); } }, 4100);
      }
    }
  }

  function onSubmit(event) {
    const form = event.target;
    if (s.leaving || event.defaultPrevented || !form || form.tagName !== "FORM") return;
    if ((form.getAttribute("method") || "").toLowerCase() !== "post" || form.getAttribute("data-outbox-off")) return;
    const k = kindOf(form);
    if (!k || k.match !== match) return;
    event.preventDefault();
    if (form.getAttribute("aria-busy")) return; // this form is being sent already
    const fields = B.fieldsOf(form, event.submitter);
    const data = store.load(match);
    const editing = s.editing && s.editing.form === form ? data.items.find(function (x) { return x.id === s.editing.id; }) : null;
    let item = editing;
    if (item) Q.applyEdit(item, fields, B.newKey);
    else {
      item = Q.newItem(k, fields, data, page, B.newKey, Date.now());
      data.items.push(item);
    }
    item.summary = summary(item.kind, fields, names);
    try { store.save(match, data); } catch (e) {
      plainPost(form, event.submitter); // storage full: the plain post, as without this script
      return;
    }
    if (data.items[0].id === item.id && online()) {
      // Nothing ahead of it: the supervisor waits for this answer as for a page load.
      s.live = { id: item.id, form: form, submitter: event.submitter, mode: editing ? "edit" : "new" };
      UI.busy(form, true);
    } else {
      if (editing) clearEditing();
      if (form === newHandForm) { UI.clearForm(form); s.dirty = false; }
    }
    s.note = "";
    render();
    syncForm();
    sendNow();
  }

  // A page older than what this phone has sent (the worker's copy, offline): say so.
  function warnIfSavedCopy() {
    const data = store.load(match);
    const seen = data.seen ? Q.known(data.seen.version) : null;
    if (seen !== null && Q.known(page.version) !== null && seen > page.version) {
      s.note = "This is a saved copy of the page: what this phone sent since is not on it. Reload when the connection is back before typing a hand again.";
    }
  }

  document.addEventListener("submit", onSubmit);
  document.addEventListener("click", onClick);
  const typing = function (event) {
    const form = event.target && event.target.form;
    if (form && kindOf(form) && event.isTrusted) s.dirty = true;
  };
  document.addEventListener("input", typing);
  document.addEventListener("change", typing);
  window.addEventListener("online", sendNow);
  window.addEventListener("offline", render);
  window.addEventListener("pageshow", function (event) { if (event.persisted) sendNow(); });
  document.addEventListener("visibilitychange", function () { if (document.visibilityState === "visible") sendNow(); });
  window.addEventListener("storage", function (event) {
    // Another tab changed an outbox of this user.
    if (Q.matchOfKey(event.key, page.user) !== null) { render(); syncForm(); }
  });
  warnIfSavedCopy();
  render();
  syncForm();
  resumeEditing();
  sendNow();
}

if (window.fetch && window.URLSearchParams && window.FormData && window.DOMParser && window.crypto) start();
