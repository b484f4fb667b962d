// The console's outbox (static/outbox/): the queue (queue.js: what is kept, in which order,
// with which numbers and keys, the retries, the storage), the words (words.js) and what an
// answer means (transport.js). The page itself (forms, fetch, the banner) is covered by the
// browser tests (tests/api/browser_outbox.rs). The modules are ES modules: imported once.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");

let Q;
let W;
let T;
let UI;
test.before(async () => {
  Q = await import("../../static/outbox/queue.js");
  W = await import("../../static/outbox/words.js");
  T = await import("../../static/outbox/transport.js");
  UI = await import("../../static/outbox/ui.js");
});

class FakeStorage {
  constructor(entries) { this.map = new Map(Object.entries(entries || {})); }
  get length() { return this.map.size; }
  key(i) { return [...this.map.keys()][i] ?? null; }
  getItem(k) { return this.map.has(k) ? this.map.get(k) : null; }
  setItem(k, v) { this.map.set(k, String(v)); }
  removeItem(k) { this.map.delete(k); }
}

const NAMES = { a: "Nil Rebels", b: "Book Club" };
const PAGE = { version: 7, hand: 4 };

function counter(prefix) {
  let n = 0;
  return () => (prefix || "id") + ++n;
}

function handFields(extra) {
  return [
    ["expected_version", "7"], ["idempotency_key", "page-key"],
    ["a_bid0", "3"], ["a_bid1", "nil"], ["a_tricks0", "4"], ["a_tricks1", "0"],
    ["b_bid0", "4"], ["b_bid1", "2"], ["b_tricks0", "6"], ["b_tricks1", "3"]
  ].concat(extra || []);
}

const kind = (match, k, tail) => ({ match, kind: k, path: "/supervise/matches/" + match + "/" + tail, number: null });
const HAND = kind("12", "hand", "hands");
const CHECK_IN = kind("12", "check-in", "check-in");
const TIME = kind("12", "time", "time");
const LINEUP = kind("12", "lineup", "lineup");

// Queues items as the console does on each submit.
function queue(kinds, at) {
  const data = { items: [], seen: null };
  const id = counter();
  kinds.forEach((k) => {
    const fields = k.kind === "hand" ? handFields() : [["team", "a"]];
    data.items.push(Q.newItem(k, fields, data, PAGE, id, at || 1000));
  });
  return data;
}

// ---------------------------------------------------------------- retries

test("nothing reached the server: a try every 2 s, however many failed", () => {
  let delay = 0;
  const waits = [];
  for (let i = 0; i < 6; i++) { delay = Q.nextRetryDelay(delay, "network"); waits.push(delay); }
  assert.deepEqual(waits, [2000, 2000, 2000, 2000, 2000, 2000]);
  // The phone says it is offline: its `online` event sends; a slow try in case it never comes.
  assert.equal(Q.nextRetryDelay(2000, "offline"), 30000);
  assert.equal(Q.nextRetryDelay(0, "offline"), 30000);
});

test("the server failed (5xx, 503): back off from 2 s, doubling up to 60 s", () => {
  let delay = 0;
  const waits = [];
  for (let i = 0; i < 8; i++) { delay = Q.nextRetryDelay(delay, "server"); waits.push(delay); }
  assert.deepEqual(waits, [2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
  // A lost session backs off the same way; a network failure after it starts again short.
  assert.equal(Q.nextRetryDelay(16000, "auth"), 32000);
  assert.equal(Q.nextRetryDelay(60000, "network"), 2000);
});

// ---------------------------------------------------------------- storage

test("each user has an outbox per match, and only theirs is listed", () => {
  assert.equal(Q.storeKeyFor("ref", "12"), "spades-im.outbox.v1.ref.12");
  assert.equal(Q.storeKeyFor("a b/c", "3"), "spades-im.outbox.v1.a%20b%2Fc.3");
  assert.equal(Q.matchOfKey("spades-im.outbox.v1.ref.12", "ref"), "12");
  assert.equal(Q.matchOfKey("spades-im.outbox.v1.ref.12", "re"), null);
  // "ref.1" is another user, not "ref"'s match 1.something.
  assert.equal(Q.matchOfKey("spades-im.outbox.v1.ref.1.2", "ref"), null);
  assert.equal(Q.matchOfKey("spades-im.outbox.v1.ref.1.2", "ref.1"), "2");
  assert.equal(Q.matchOfKey(null, "ref"), null);
});

test("the storage round trip: saved, listed and read back as it was; empty is removed", () => {
  const storage = new FakeStorage({ "elsewhere": "x", [Q.storeKeyFor("other", "12")]: "{}" });
  const store = Q.openStore(storage, "ref");
  const data = queue([HAND, CHECK_IN]);
  data.items[0].summary = W.summary("hand", data.items[0].fields, NAMES);
  store.save("12", data);
  store.save("13", queue([HAND]));
  assert.deepEqual(store.matches().sort(), ["12", "13"]);
  assert.deepEqual(store.load("12"), JSON.parse(JSON.stringify(data)));
  assert.deepEqual(Q.loadAll(store).map((o) => [o.match, o.data.items.length]).sort(), [["12", 2], ["13", 1]]);
  // Another user's outbox is not this user's.
  assert.deepEqual(Q.openStore(storage, "other").matches(), ["12"]);
  store.save("13", { items: [], seen: null });
  assert.equal(storage.getItem(Q.storeKeyFor("ref", "13")), null);
  // What this phone sent is remembered even with nothing waiting (a saved page is older).
  store.save("13", { items: [], seen: { version: 3, hand: 2 } });
  assert.deepEqual(store.load("13"), { items: [], seen: { version: 3, hand: 2 } });
});

test("an unreadable outbox reads as empty; unreadable items are left out", () => {
  assert.deepEqual(Q.parseData("{not json"), { items: [], seen: null });
  assert.deepEqual(Q.parseData(null), { items: [], seen: null });
  assert.deepEqual(Q.parseData('{"items": 3}'), { items: [], seen: null });
  const data = Q.parseData(JSON.stringify({ items: [null, { id: 1 }, { id: "a", action: "/x", state: "odd", fields: [["n", "v"], ["bad", 3]] }] }));
  assert.equal(data.items.length, 1);
  assert.equal(data.items[0].state, "waiting");
  assert.deepEqual(data.items[0].fields, [["n", "v"]]);
});

// An outbox as the first outbox (static/outbox.js, one ES5 script) left it on a phone: a
// hand with its key, a check-in and a rating without one, a refused correction.
const OLD = JSON.stringify({
  items: [
    { id: "h1", kind: "hand", action: "/supervise/matches/12/hands", number: null,
      fields: handFields(), key: "old-hand-key", base: 7, bumps: 1, hand: 4,
      summary: "Nil Rebels bid 3 + nil, took 4 + 0 · Book Club bid 4 + 2, took 6 + 3", state: "waiting", message: "", at: 5 },
    { id: "c1", kind: "check-in", action: "/supervise/matches/12/check-in", number: null,
      fields: [["expected_version", "8"], ["team", "a"], ["present", "1"]], key: null, base: 8, bumps: 0, hand: null,
      summary: "Nil Rebels is here", state: "waiting", message: "", at: 6 }
  ],
  seen: { version: 7, hand: 3 }
});

test("items kept by the first outbox still send: same keys, a key added where there was none", () => {
  const storage = new FakeStorage({ [Q.storeKeyFor("ref", "12")]: OLD });
  const store = Q.openStore(storage, "ref");
  const data = store.load("12");
  assert.deepEqual(Q.sendable(Q.loadAll(store)).map((x) => x.item.id), ["h1"]);
  const hand = data.items[0];
  assert.equal(Q.ensureKey(hand, counter("new")), false);
  assert.deepEqual(Q.bodyFields(hand, "tok").filter(([n]) => ["csrf", "expected_version", "idempotency_key"].includes(n)),
    [["csrf", "tok"], ["expected_version", "7"], ["idempotency_key", "old-hand-key"]]);
  // Recorded: the check-in is next, and gets a key of its own before its first send.
  Q.settle(data, "h1", { outcome: "recorded" }, NaN);
  assert.deepEqual(data.seen, { version: 8, hand: 4 });
  const checkIn = data.items[0];
  assert.equal(Q.ensureKey(checkIn, counter("new")), true);
  assert.equal(checkIn.key, "new1");
  assert.equal(Q.ensureKey(checkIn, counter("other")), false, "the same key on every resend");
  assert.deepEqual(Q.bodyFields(checkIn, "tok"),
    [["csrf", "tok"], ["expected_version", "8"], ["team", "a"], ["present", "1"], ["idempotency_key", "new1"]]);
});

// ---------------------------------------------------------------- order

test("a match's items go one at a time in order; other matches go side by side, oldest first", () => {
  const all = [
    { match: "12", data: queue([HAND, HAND], 2000) },
    { match: "13", data: queue([kind("13", "hand", "hands")], 1000) },
    { match: "14", data: { items: [], seen: null } }
  ];
  const next = Q.sendable(all);
  assert.deepEqual(next.map((x) => [x.match, x.item.hand]), [["13", 4], ["12", 4]]);
  // The second hand of match 12 waits behind its first.
  assert.ok(!next.some((x) => x.item === all[0].data.items[1]));
});

test("a refused item holds back its own match, never another", () => {
  const all = [
    { match: "12", data: queue([HAND, HAND]) },
    { match: "13", data: queue([kind("13", "hand", "hands")]) }
  ];
  const head = all[0].data.items[0];
  assert.equal(Q.settle(all[0].data, head.id, { outcome: "refused", message: "Tricks sum to 12, not 13", status: 422 }), true);
  assert.equal(head.state, "refused");
  assert.equal(head.message, "Tricks sum to 12, not 13");
  assert.deepEqual(Q.sendable(all).map((x) => x.match), ["13"]);
  assert.deepEqual(Q.needingPerson(all).map((x) => [x.match, x.item.id]), [["12", head.id]]);
  assert.deepEqual(Q.counts(all), { total: 3, waiting: 2, refused: 1, conflict: 0, hands: 3 });
  assert.deepEqual(Q.counts(all, "13"), { total: 1, waiting: 1, refused: 0, conflict: 0, hands: 1 });
  // A 404 or 400 is a refusal like the others: kept, with what the server said.
  const other = all[1].data;
  Q.settle(other, other.items[0].id, { outcome: "refused", message: "refused (404)" });
  assert.equal(other.items.length, 1);
  assert.equal(other.items[0].message, "refused (404)");
  // A retry changes nothing; an answer for another item is ignored.
  const data = queue([HAND]);
  assert.equal(Q.settle(data, data.items[0].id, { outcome: "retry", cause: "server" }), false);
  assert.equal(Q.settle(data, "not the head", { outcome: "recorded" }), false);
  assert.equal(data.items.length, 1);
  // A repeated key's first answer: recorded once, taken out.
  Q.settle(data, data.items[0].id, { outcome: "duplicate" }, NaN);
  assert.equal(data.items.length, 0);
});

test("a conflict keeps the item with the server's match", () => {
  const data = queue([HAND]);
  Q.settle(data, data.items[0].id, { outcome: "conflict", message: "the match changed", server: { a: "100" } });
  assert.deepEqual([data.items[0].state, data.items[0].server], ["conflict", { a: "100" }]);
  assert.equal(Q.needsPerson(data.items[0]), true);
});

// ---------------------------------------------------------------- numbering and keys

test("kept items are numbered in order, each with its own key", () => {
  const data = queue([HAND, CHECK_IN, HAND, TIME, HAND]);
  assert.deepEqual(data.items.map((i) => i.base), [7, 8, 8, 9, 10]);
  assert.deepEqual(data.items.map((i) => i.hand), [4, null, 5, null, 6]);
  assert.equal(Q.nextVersion(data, 7), 11);
  assert.equal(Q.nextHand(data, 4), 7);
  // Every item has a key of its own (never the page's); ids and keys are apart.
  const keys = data.items.map((i) => i.key);
  assert.equal(new Set(keys).size, 5);
  assert.ok(!keys.includes("page-key"));
  assert.ok(data.items.every((i) => i.key !== i.id && i.state === "waiting" && i.at === 1000));
});

test("with nothing kept, the next numbers are the page's, or what this phone sent since", () => {
  const empty = { items: [], seen: null };
  assert.equal(Q.nextVersion(empty, 7), 7);
  assert.equal(Q.nextHand(empty, 4), 4);
  const sent = { items: [], seen: { version: 9, hand: 5 } };
  assert.equal(Q.nextVersion(sent, 7), 9);
  assert.equal(Q.nextHand(sent, 4), 6);
  assert.equal(Q.nextVersion(sent, 12), 12);
  assert.equal(Q.nextHand(sent, 8), 8);
  assert.equal(Q.nextVersion(sent, NaN), 9);
  assert.equal(Q.nextVersion(empty, NaN), null);
  assert.ok(Number.isNaN(Q.nextHand(empty, NaN)));
  // Without a version on the page, an item takes the one typed in its form.
  const start = kind("12", "start", "start");
  assert.equal(Q.newItem(start, [["expected_version", "3"]], empty, { version: NaN, hand: NaN }, counter(), 0).base, 3);
  assert.equal(Q.newItem(start, [["expected_version", " "]], empty, { version: NaN, hand: NaN }, counter(), 0).base, null);
});

test("the body sent: the token, the item's version and key, the key added to forms without one", () => {
  const [hand, checkIn] = queue([HAND, CHECK_IN]).items;
  hand.base = 11;
  const body = new Map(Q.bodyFields(hand, "token-1"));
  assert.equal(Q.bodyFields(hand, "token-1")[0][0], "csrf");
  assert.equal(body.get("csrf"), "token-1");
  assert.equal(body.get("expected_version"), "11");
  assert.equal(body.get("idempotency_key"), hand.key);
  assert.equal(body.get("a_bid1"), "nil");
  assert.equal(Q.bodyFields(checkIn, "t").filter(([n]) => n === "idempotency_key").length, 1);
  assert.deepEqual(Q.bodyFields(checkIn, "t").at(-1), ["idempotency_key", checkIn.key]);
  // An unknown version: the one typed is sent as it is.
  hand.base = null;
  assert.equal(new Map(Q.bodyFields(hand, "t")).get("expected_version"), "7");
});

test("discarding an item renumbers the ones after it", () => {
  const data = queue([HAND, CHECK_IN, HAND, HAND]);
  const gone = Q.removeItem(data, data.items[0].id);
  assert.equal(gone.hand, 4);
  assert.deepEqual(data.items.map((i) => [i.kind, i.base, i.hand]),
    [["check-in", 7, null], ["hand", 7, 4], ["hand", 8, 5]]);
  Q.removeItem(data, data.items[0].id);
  assert.deepEqual(data.items.map((i) => [i.base, i.hand]), [[7, 4], [8, 5]]);
  assert.equal(Q.removeItem(data, "no such id"), null);
});

test("sent again on the current version: every item renumbered, keys kept", () => {
  const data = queue([HAND, CHECK_IN, HAND]);
  const keys = data.items.map((i) => i.key);
  data.items[0].state = "conflict";
  data.items[0].server = { a: "100" };
  Q.renumber(data.items, 12, 6);
  assert.deepEqual(data.items.map((i) => [i.state, i.server, i.base, i.hand]),
    [["waiting", null, 12, 6], ["waiting", null, 13, null], ["waiting", null, 13, 7]]);
  assert.deepEqual(data.items.map((i) => i.key), keys);
  Q.renumber(data.items, 20, NaN);
  assert.deepEqual(data.items.map((i) => i.hand), [6, null, 7]);
});

test("an edited refused item keeps its place and version, and gets a new key", () => {
  const data = queue([HAND, HAND]);
  const item = data.items[0];
  const old = item.key;
  item.state = "refused";
  item.message = "Tricks sum to 12, not 13";
  const fields = handFields().map(([k, v]) => (k === "b_tricks1" ? [k, "4"] : [k, v]));
  Q.applyEdit(item, fields, counter("edit"));
  assert.deepEqual([item.state, item.message, item.base, item.hand, item.key], ["waiting", "", 7, 4, "edit1"]);
  assert.notEqual(item.key, old);
  assert.equal(data.items[0], item);
  assert.equal(item.fields, fields);
});

test("a lineup: the hands after it follow the version the server answered with", () => {
  const data = queue([LINEUP, HAND, HAND]);
  assert.deepEqual(data.items.map((i) => [i.kind, i.base, i.hand]),
    [["lineup", 7, null], ["hand", 7, 4], ["hand", 8, 5]]);
  Q.afterRecorded(data, 8);
  assert.deepEqual(data.items.map((i) => [i.base, i.hand]), [[8, 4], [9, 5]]);
  assert.deepEqual(data.seen, { version: 8, hand: null });
  const unknown = queue([HAND, HAND]);
  Q.afterRecorded(unknown, NaN);
  assert.deepEqual(unknown.items.map((i) => i.base), [8]);
  assert.deepEqual(unknown.seen, { version: 8, hand: 4 });
  assert.deepEqual(Q.seenAfter({ kind: "start", base: null, bumps: 1 }, { version: 2 }), { version: 2, hand: null });
});

test("a hand: the items after it follow the version and number of its totals", () => {
  const data = queue([HAND, HAND, CHECK_IN, HAND]);
  assert.deepEqual(data.items.map((i) => [i.base, i.hand]), [[7, 4], [8, 5], [9, null], [9, 6]]);
  // The server counted one hand fewer than the page said (a copy of the page kept offline).
  Q.settle(data, data.items[0].id, { outcome: "recorded" }, 8, 3);
  assert.deepEqual(data.items.map((i) => [i.base, i.hand]), [[8, 4], [9, null], [9, 5]]);
  assert.deepEqual(data.seen, { version: 8, hand: 3 });
  // A replay says the same as the first answer.
  Q.settle(data, data.items[0].id, { outcome: "duplicate" }, 9, 4);
  assert.deepEqual(data.seen, { version: 9, hand: 4 });
  assert.equal(Q.nextHand(data, NaN), 6);
});

// ---------------------------------------------------------------- words

test("each item is said in words", () => {
  const [hand] = queue([HAND]).items;
  hand.summary = W.summary("hand", hand.fields, NAMES);
  assert.equal(W.title(hand), "Hand 4: Nil Rebels bid 3 + nil, took 4 + 0 · Book Club bid 4 + 2, took 6 + 3");
  assert.equal(W.summary("hand", [["misdeal", "1"], ["reason", " dealt twice "]], NAMES), "misdeal (dealt twice)");
  assert.equal(W.summary("check-in", [["team", "b"], ["present", "0"]], NAMES), "Undo the check-in of Book Club");
  assert.equal(W.summary("forfeit", [["team", "both-b"]], NAMES), "Double forfeit: Book Club advances");
  assert.equal(W.summary("rating", [["a", "5"]], NAMES), "Sportsmanship: Nil Rebels 5, Book Club ?");
  assert.equal(W.summary("lineup", [["team", "a"]], NAMES), "Nil Rebels's lineup");
  assert.equal(W.title({ kind: "correction", number: 2, summary: "misdeal" }), "Correction of hand 2: misdeal");
  assert.deepEqual([1, 2, 4, 5].map((n) => W.seatsOf(n)),
    [{ dealer: 1, first: 2 }, { dealer: 2, first: 3 }, { dealer: 4, first: 1 }, { dealer: 1, first: 2 }]);
});

test("the banner: offline with what waits, sending, refused entries, nothing when all is sent", () => {
  const c = (waiting, refused) => ({ total: waiting + refused, waiting, refused, conflict: 0, hands: waiting });
  assert.deepEqual(W.bannerWords(c(2, 0), false, false), { text: "Offline — 2 waiting to send", state: "offline" });
  assert.deepEqual(W.bannerWords(c(3, 0), true, true), { text: "Sending 3…", state: "sending" });
  assert.deepEqual(W.bannerWords(c(1, 0), true, false), { text: "1 waiting to send", state: "waiting" });
  assert.deepEqual(W.bannerWords(c(0, 0), true, false), { text: "", state: "idle" });
  assert.deepEqual(W.bannerWords(c(0, 0), false, false), { text: "Offline", state: "offline" });
  assert.equal(W.bannerWords(c(1, 1), true, false).state, "refused");
  assert.match(W.bannerWords(c(0, 2), true, false).text, /^2 entries need you/);
});

// ---------------------------------------------------------------- answers

test("what a form posts to says what it is", () => {
  const base = "https://im.example.edu/supervise/matches/12";
  const k = (action) => T.kindOfAction(action, base);
  assert.deepEqual(k("/supervise/matches/12/hands"), HAND);
  assert.deepEqual(k("/supervise/matches/12/hands/3"),
    { match: "12", kind: "correction", path: "/supervise/matches/12/hands/3", number: 3 });
  assert.equal(k("/supervise/matches/12/sportsmanship").kind, "rating");
  assert.equal(k("/supervise/matches/9/lineup").match, "9");
  assert.equal(k("/logout"), null);
  assert.equal(k("/supervise/matches/12/hands/3/extra"), null);
  assert.equal(k("https://elsewhere.example/supervise/matches/12/hands"), null);
});

test("answers: recorded, replayed, refused (422, 404, 400), conflict, retry, session lost", () => {
  const answer = (status, path, extra) => T.classify(Object.assign({ status, redirected: true, path, replay: false }, extra), "12");
  assert.equal(answer(200, "/supervise/matches/12").outcome, "recorded");
  assert.equal(answer(200, "/supervise/matches/12", { replay: true }).outcome, "duplicate");
  // A 200 that is not this match's console (a Wi-Fi portal, another match): kept.
  assert.deepEqual(answer(200, "/portal"), { outcome: "retry", cause: "server", message: "the answer was not the match's page" });
  assert.equal(answer(200, "/supervise/matches/13").outcome, "retry");
  assert.equal(answer(200, "/supervise/matches/12", { redirected: false }).outcome, "retry");
  for (const s of [422, 404, 400]) assert.equal(answer(s, "/supervise/matches/12/hands").outcome, "refused", s);
  assert.equal(answer(409, "/supervise/matches/12/hands").outcome, "conflict");
  assert.deepEqual(answer(503, "/x"), { outcome: "retry", cause: "server", message: "the server is busy" });
  assert.deepEqual(answer(500, "/x"), { outcome: "retry", cause: "server", message: "the server failed (500)" });
  assert.equal(answer(429, "/x").outcome, "retry");
  assert.equal(answer(403, "/x").outcome, "auth");
  assert.equal(answer(200, "/login").outcome, "auth");
});

const LIGHT = { version: 9, number: 5, a: { score: 101, bags: 3 }, b: { score: 62, bags: 0 }, game_status: "in_progress", winner: null };

test("the light answer: its totals, only from the JSON the preference was applied to", () => {
  const body = JSON.stringify(LIGHT);
  assert.deepEqual(T.totalsOf("return=minimal", "application/json", body), LIGHT);
  assert.deepEqual(T.totalsOf("foo, return=minimal", "application/json; charset=utf-8", body), LIGHT);
  // The console page (a server that ignored the preference), a portal's page or JSON.
  assert.equal(T.totalsOf("", "text/html; charset=utf-8", "<!doctype html>"), null);
  assert.equal(T.totalsOf("return=minimal", "text/html", body), null);
  assert.equal(T.totalsOf("", "application/json", body), null);
  assert.equal(T.totalsOf("return=representation", "application/json", body), null);
  assert.equal(T.totalsOf("return=minimal", "application/json", "{\"version\": 9}"), null);
  assert.equal(T.totalsOf("return=minimal", "application/json", "{\"version\": \"9\", \"number\": 5}"), null);
  assert.equal(T.totalsOf("return=minimal", "application/json", "<html>"), null);
});

test("answers to a hand sent for the light answer: recorded, replayed, or kept", () => {
  const answer = (status, path, extra) =>
    T.classify(Object.assign({ status, redirected: false, path, replay: false, totals: LIGHT }, extra), "12");
  assert.equal(answer(201, "/supervise/matches/12/hands").outcome, "recorded");
  assert.equal(answer(201, "/supervise/matches/12/hands", { replay: true }).outcome, "duplicate");
  // A Wi-Fi portal's 200 page in place of the answer: nothing is known to be recorded.
  assert.deepEqual(answer(200, "/supervise/matches/12/hands", { totals: null }),
    { outcome: "retry", cause: "server", message: "the answer was not the match's page" });
  assert.equal(answer(200, "/portal", { redirected: true }).outcome, "retry");
  // Totals of another match, or after a redirect, are not this hand's.
  assert.equal(answer(201, "/supervise/matches/13/hands").outcome, "retry");
  assert.equal(answer(200, "/supervise/matches/12/hands", { redirected: true }).outcome, "retry");
  // A server that ignored the preference: its redirect to the console, as before.
  assert.equal(answer(200, "/supervise/matches/12", { redirected: true, totals: null }).outcome, "recorded");
  // Refusals are pages, whatever was asked.
  assert.equal(answer(422, "/supervise/matches/12/hands", { totals: null }).outcome, "refused");
  assert.equal(answer(409, "/supervise/matches/12/hands", { totals: null }).outcome, "conflict");
});

test("a hand asks for the light answer and reads its totals, never a page", async () => {
  const items = queue([HAND, CHECK_IN]).items;
  const sent = [];
  const env = (answer) => ({
    fetch: (url, opts) => {
      sent.push(opts.headers);
      return Promise.resolve(answer);
    },
    origin: "https://im.example.edu",
    parse: () => { throw new Error("no page to parse"); }
  });
  const light = (replay) => ({
    status: 201, redirected: false, url: "https://im.example.edu/supervise/matches/12/hands",
    headers: new Map([["Preference-Applied", "return=minimal"], ["Content-Type", "application/json"]]
      .concat(replay ? [["Idempotent-Replay", "true"]] : [])),
    text: () => Promise.resolve(JSON.stringify(LIGHT))
  });
  const result = await T.send(env(light(false)), items[0], "12", Q.bodyFields(items[0], "t"));
  assert.deepEqual(result, { outcome: "recorded", status: 201, totals: LIGHT });
  assert.equal(sent[0].Prefer, "return=minimal");
  const again = await T.send(env(light(true)), items[0], "12", Q.bodyFields(items[0], "t"));
  assert.equal(again.outcome, "duplicate");
  assert.deepEqual(again.totals, LIGHT);
  // A portal's page with a 200: kept, nothing parsed.
  const portal = { status: 200, redirected: false, url: "https://im.example.edu/supervise/matches/12/hands", headers: new Map([["Content-Type", "text/html"]]), text: () => Promise.resolve("<html>Accept the terms</html>") };
  assert.equal((await T.send(env(portal), items[0], "12", Q.bodyFields(items[0], "t"))).outcome, "retry");
  // Another post asks for nothing: its answer is the console.
  await T.send(env(portal), items[1], "12", Q.bodyFields(items[1], "t"));
  assert.equal(sent[sent.length - 1].Prefer, undefined);
});

test("the page that stays shows the score of the last totals", () => {
  const hidden = { nodeType: 1, textContent: "Score: " };
  const score = { nodeType: 3, nodeValue: "40–20" };
  const nodes = {
    "score-a": { textContent: "40" }, "score-b": { textContent: "20" },
    "bags-a": { textContent: "bags 0" }, "bags-b": { textContent: "bags 0" },
    "bar-score": { childNodes: [hidden, score] }
  };
  const doc = { getElementById: (id) => nodes[id] || null };
  UI.showTotals(doc, LIGHT);
  assert.deepEqual([nodes["score-a"].textContent, nodes["bags-a"].textContent, nodes["score-b"].textContent, nodes["bags-b"].textContent],
    ["101", "bags 3", "62", "bags 0"]);
  assert.equal(score.nodeValue, "101–62");
  assert.equal(hidden.textContent, "Score: ");
  // Totals without scores change nothing.
  UI.showTotals(doc, { version: 9, number: 5 });
  assert.equal(nodes["score-a"].textContent, "101");
});

test("a send that gets no answer is kept for a retry on the network's schedule", async () => {
  const item = queue([HAND]).items[0];
  const env = { fetch: () => Promise.reject(new TypeError("Failed to fetch")), origin: "https://im.example.edu", parse: () => null };
  assert.deepEqual(await T.send(env, item, "12", Q.bodyFields(item, "t")), { outcome: "retry", cause: "network", message: "no connection" });
  const posted = [];
  const ok = {
    fetch: (url, opts) => {
      posted.push([url, opts.body.toString()]);
      return Promise.resolve({ status: 200, redirected: true, url: "https://im.example.edu/supervise/matches/12", headers: new Map(), text: () => Promise.resolve("") });
    },
    origin: "https://im.example.edu",
    parse: () => ({ querySelector: () => null, getElementById: () => null })
  };
  const result = await T.send(ok, item, "12", Q.bodyFields(item, "t"));
  assert.equal(result.outcome, "recorded");
  assert.equal(posted[0][0], "https://im.example.edu/supervise/matches/12/hands");
  assert.match(posted[0][1], new RegExp("idempotency_key=" + item.key));
});

test("a negative score is written with a minus sign, as the server writes it", () => {
  assert.equal(W.points(-89), "\u221289");
  assert.equal(W.points(0), "0");
  assert.equal(W.points(161), "161");
  assert.equal(W.points(161) + "–" + W.points(-89), "161–\u221289");
});
