// The console's offline outbox (static/outbox.js): the logic that decides what is kept, in
// which order and with which numbers, and what an answer means. The page itself (forms,
// storage, fetch) is covered by the browser tests (tests/api/browser_outbox.rs).
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const outbox = require("../../static/outbox.js");

const NAMES = { a: "Nil Rebels", b: "Book Club" };
const PAGE = { version: 7, hand: 4, names: NAMES };

function counter() {
  let n = 0;
  return () => "id" + ++n;
}

function handFields(extra) {
  return [
    ["expected_version", "7"], ["idempotency_key", "page-key"],
    ["a_bid0", "3"], ["a_bid1", "nil"], ["a_tricks0", "4"], ["a_tricks1", "0"],
    ["b_bid0", "4"], ["b_bid1", "2"], ["b_tricks0", "6"], ["b_tricks1", "3"]
  ].concat(extra || []);
}

const HAND = { match: "12", kind: "hand", path: "/supervise/matches/12/hands", number: null };
const CHECK_IN = { match: "12", kind: "check-in", path: "/supervise/matches/12/check-in", number: null };
const TIME = { match: "12", kind: "time", path: "/supervise/matches/12/time", number: null };

// Queues items as the console does on each submit.
function queue(kinds) {
  const data = { items: [], seen: null };
  const id = counter();
  kinds.forEach((k) => {
    const fields = k.kind === "hand" ? handFields() : [["team", "a"]];
    data.items.push(outbox.newItem(k, fields, data, PAGE, id, 1000));
  });
  return data;
}

test("the retry schedule starts at 2 s and doubles up to 60 s", () => {
  const waits = [];
  let wait = 0;
  for (let i = 0; i < 8; i++) {
    wait = outbox.nextRetryDelay(wait);
    waits.push(wait);
  }
  assert.deepEqual(waits, [2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
});

test("each user has an outbox per match", () => {
  assert.equal(outbox.storeKeyFor("ref", "12"), "spades-im.outbox.v1.ref.12");
  assert.notEqual(outbox.storeKeyFor("ref", "12"), outbox.storeKeyFor("ref", "13"));
  assert.notEqual(outbox.storeKeyFor("ref", "12"), outbox.storeKeyFor("ref2", "12"));
  // A name as typed at the account: encoded.
  assert.equal(outbox.storeKeyFor("Zoë K", "3"), "spades-im.outbox.v1.Zo%C3%AB%20K.3");
});

test("answers: recorded, refused, conflict, kept for later, log in", () => {
  const on = (status, more) => outbox.outcomeOf(Object.assign({ status, redirected: false, login: false, console: false }, more));
  // The 303 to the console, followed by fetch: recorded.
  assert.deepEqual(on(200, { redirected: true, console: true }), { outcome: "done" });
  assert.equal(on(204, { redirected: true, console: true }).outcome, "done");
  // A 2xx that is not the console after a redirect: nothing is known to be recorded.
  assert.equal(on(200, { console: true }).outcome, "retry");
  assert.equal(on(200, { redirected: true }).outcome, "retry");
  assert.equal(on(422).outcome, "refused");
  assert.equal(on(400).outcome, "refused");
  assert.equal(on(404).outcome, "refused");
  assert.equal(on(409).outcome, "conflict");
  assert.deepEqual(on(503), { outcome: "retry", message: "the server is busy" });
  assert.deepEqual(on(500), { outcome: "retry", message: "the server failed (500)" });
  assert.equal(on(502).outcome, "retry");
  assert.equal(on(408).outcome, "retry");
  assert.equal(on(429).outcome, "retry");
  assert.deepEqual(on(401), { outcome: "login", message: "log in again" });
  assert.equal(on(403).outcome, "login");
  // The session ended: the post was answered with the login page.
  assert.equal(on(200, { redirected: true, login: true }).outcome, "login");
});

test("no answer: a timeout and a lost connection are kept, and said apart", () => {
  assert.equal(outbox.TIMEOUT, 10000);
  const abort = new Error("aborted");
  abort.name = "AbortError";
  assert.equal(outbox.lostMessage(abort), "no answer in 10 s");
  assert.equal(outbox.lostMessage(new TypeError("Failed to fetch")), "no connection");
});

test("the login page is recognised by its path", () => {
  assert.equal(outbox.isLoginUrl("https://im.example.edu/login?next=%2Fsupervise"), true);
  assert.equal(outbox.isLoginUrl("https://im.example.edu/supervise/matches/12"), false);
  assert.equal(outbox.isLoginUrl("not a url"), false);
});

test("one send at a time: calls meanwhile make one more run after it", async () => {
  let running = 0;
  let most = 0;
  let runs = 0;
  const releases = [];
  const pump = outbox.oneAtATime(() => {
    runs++;
    running++;
    most = Math.max(most, running);
    return new Promise((resolve) => releases.push(() => { running--; resolve(); }));
  }, () => true);
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  pump();
  await settle();
  pump();
  pump();
  pump();
  await settle();
  assert.equal(runs, 1);
  releases.shift()();
  await settle();
  assert.equal(runs, 2, "the calls made while it ran ask for one run more");
  releases.shift()();
  await settle();
  assert.equal(runs, 2);
  assert.equal(most, 1);
});

test("a failed run does not stop the next, and nothing runs once the page is gone", async () => {
  let alive = true;
  let runs = 0;
  const pump = outbox.oneAtATime(() => { runs++; throw new Error("boom"); }, () => alive);
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  pump();
  await settle();
  pump();
  await settle();
  assert.equal(runs, 2);
  alive = false;
  pump();
  await settle();
  assert.equal(runs, 2);
});

test("what a form posts to says what it is", () => {
  const base = "https://im.example.edu/supervise/matches/12";
  const kind = (action) => outbox.kindOfAction(action, base);
  assert.deepEqual(kind("/supervise/matches/12/hands"), HAND);
  assert.deepEqual(kind("/supervise/matches/12/hands/3"),
    { match: "12", kind: "correction", path: "/supervise/matches/12/hands/3", number: 3 });
  assert.equal(kind("/supervise/matches/12/sportsmanship").kind, "rating");
  assert.equal(kind("/supervise/matches/12/check-in").kind, "check-in");
  assert.equal(kind("/supervise/matches/12/forfeit").kind, "forfeit");
  assert.equal(kind("/supervise/matches/12/start").kind, "start");
  assert.equal(kind("/supervise/matches/12/time").kind, "time");
  assert.equal(kind("/supervise/matches/9/hands").match, "9");
  assert.equal(kind("/logout"), null);
  assert.equal(kind("/supervise/matches/12/hands/3/extra"), null);
  assert.equal(kind("https://elsewhere.example/supervise/matches/12/hands"), null);
});

test("kept items are numbered in order: versions and hand numbers follow each other", () => {
  const data = queue([HAND, CHECK_IN, HAND, TIME, HAND]);
  assert.deepEqual(data.items.map((i) => i.base), [7, 8, 8, 9, 10]);
  assert.deepEqual(data.items.map((i) => i.hand), [4, null, 5, null, 6]);
  assert.equal(outbox.nextVersion(data, 7), 11);
  assert.equal(outbox.nextHand(data, 4), 7);
  // Every hand has a key of its own, never the page's; other posts have none.
  const keys = data.items.map((i) => i.key);
  assert.deepEqual(keys, ["id1", null, "id4", null, "id7"]);
  assert.equal(data.items[0].state, "waiting");
  assert.equal(data.items[0].at, 1000);
});

test("with nothing kept, the next numbers are the page's, or what this phone sent since", () => {
  const empty = { items: [], seen: null };
  assert.equal(outbox.nextVersion(empty, 7), 7);
  assert.equal(outbox.nextHand(empty, 4), 4);
  // A saved copy of the page, older than what was sent from it since.
  const sent = { items: [], seen: { version: 9, hand: 5 } };
  assert.equal(outbox.nextVersion(sent, 7), 9);
  assert.equal(outbox.nextHand(sent, 4), 6);
  // A fresh page after it: the page is newer.
  assert.equal(outbox.nextVersion(sent, 12), 12);
  assert.equal(outbox.nextHand(sent, 8), 8);
  // No version on the page (before the start): what was seen, else unknown.
  assert.equal(outbox.nextVersion(sent, NaN), 9);
  assert.equal(outbox.nextVersion(empty, NaN), null);
  assert.ok(Number.isNaN(outbox.nextHand(empty, NaN)));
});

test("without a version on the page, an item takes the one typed in its form", () => {
  const data = { items: [], seen: null };
  const page = { version: NaN, hand: NaN, names: NAMES };
  const start = { match: "12", kind: "start", path: "/supervise/matches/12/start", number: null };
  const typed = outbox.newItem(start, [["expected_version", "3"]], data, page, counter(), 0);
  assert.equal(typed.base, 3);
  const none = outbox.newItem(start, [["expected_version", " "]], data, page, counter(), 0);
  assert.equal(none.base, null);
});

test("what the server has after a recorded item", () => {
  const [hand, checkIn] = queue([HAND, CHECK_IN]).items;
  assert.deepEqual(outbox.seenAfter(hand, null), { version: 8, hand: 4 });
  assert.deepEqual(outbox.seenAfter(checkIn, { version: 8, hand: 4 }), { version: 8, hand: 4 });
  assert.deepEqual(outbox.seenAfter({ kind: "start", base: null, bumps: 1 }, { version: 2 }), { version: 2, hand: null });
});

test("nothing is sent past an item that waits for the supervisor", () => {
  assert.equal(outbox.needsPerson({ state: "waiting" }), false);
  assert.equal(outbox.needsPerson({ state: "refused" }), true);
  assert.equal(outbox.needsPerson({ state: "conflict" }), true);
});

test("discarding an item renumbers the ones after it", () => {
  const data = queue([HAND, CHECK_IN, HAND, HAND]);
  const gone = outbox.removeItem(data, data.items[0].id);
  assert.equal(gone.hand, 4);
  assert.deepEqual(data.items.map((i) => [i.kind, i.base, i.hand]),
    [["check-in", 7, null], ["hand", 7, 4], ["hand", 8, 5]]);
  // A check-in moves no version and no hand number.
  outbox.removeItem(data, data.items[0].id);
  assert.deepEqual(data.items.map((i) => [i.base, i.hand]), [[7, 4], [8, 5]]);
  // The last one: nothing after it changes.
  outbox.removeItem(data, data.items[1].id);
  assert.deepEqual(data.items.map((i) => [i.base, i.hand]), [[7, 4]]);
  assert.equal(outbox.removeItem(data, "no such id"), null);
  assert.equal(data.items.length, 1);
});

test("sent again on the current version: every item renumbered from the server's match", () => {
  const data = queue([HAND, CHECK_IN, HAND]);
  data.items[0].state = "conflict";
  data.items[0].message = "the match changed";
  data.items[0].server = { a: "100" };
  outbox.renumber(data.items, 12, 6);
  assert.deepEqual(data.items.map((i) => [i.state, i.message, i.server, i.base, i.hand]),
    [["waiting", "", null, 12, 6], ["waiting", "", null, 13, null], ["waiting", "", null, 13, 7]]);
  // Keys are kept: a hand recorded under its key already is answered as such, never twice.
  assert.deepEqual(data.items.map((i) => i.key), ["id1", null, "id4"]);
  // No hand number on the server's page: the hands keep theirs.
  outbox.renumber(data.items, 20, NaN);
  assert.deepEqual(data.items.map((i) => i.hand), [6, null, 7]);
});

test("an edited refused item keeps its place, takes the new fields, version and key", () => {
  const item = queue([HAND]).items[0];
  item.state = "refused";
  item.message = "Tricks sum to 12, not 13";
  const fields = handFields().map(([k, v]) =>
    k === "expected_version" ? [k, "9"] : k === "b_tricks1" ? [k, "4"] : k === "idempotency_key" ? [k, "edited-key"] : [k, v]);
  outbox.applyEdit(item, fields, NAMES);
  assert.equal(item.state, "waiting");
  assert.equal(item.message, "");
  assert.equal(item.base, 9);
  assert.equal(item.key, "edited-key");
  assert.equal(item.fields, fields);
  assert.match(item.summary, /Book Club bid 4 \+ 2, took 6 \+ 4/);
  // No version in the form: it keeps the one it had.
  const rating = { kind: "rating", base: 9, key: null };
  outbox.applyEdit(rating, [["a", "4"], ["b", "5"]], NAMES);
  assert.equal(rating.base, 9);
  assert.equal(rating.key, null);
});

test("the body sent: the current token, the item's version and key", () => {
  const item = queue([HAND]).items[0];
  item.base = 11;
  const body = outbox.bodyOf(item, "token-1");
  assert.equal(body.toString().split("&")[0], "csrf=token-1");
  assert.equal(body.get("expected_version"), "11");
  assert.equal(body.get("idempotency_key"), "id1");
  assert.equal(body.get("a_bid1"), "nil");
  // An unknown version: the one typed is sent as it is.
  item.base = null;
  assert.equal(outbox.bodyOf(item, "t").get("expected_version"), "7");
});

test("each item is said in words", () => {
  const [hand] = queue([HAND]).items;
  assert.equal(outbox.title(hand),
    "Hand 4: Nil Rebels bid 3 + nil, took 4 + 0 · Book Club bid 4 + 2, took 6 + 3");
  assert.equal(outbox.summary("hand", [["misdeal", "1"], ["reason", " dealt twice "]], NAMES), "misdeal (dealt twice)");
  assert.equal(outbox.summary("check-in", [["team", "b"], ["present", "0"]], NAMES), "Undo the check-in of Book Club");
  assert.equal(outbox.summary("check-in", [["team", "a"]], NAMES), "Nil Rebels is here");
  assert.equal(outbox.summary("forfeit", [["team", "both-b"]], NAMES), "Double forfeit: Book Club advances");
  assert.equal(outbox.summary("forfeit", [["team", "a"]], NAMES), "Nil Rebels forfeits");
  assert.equal(outbox.summary("rating", [["a", "5"]], NAMES), "Sportsmanship: Nil Rebels 5, Book Club ?");
  assert.equal(outbox.summary("hand", [["a_bid0", "blind_nil"], ["a_revokes", "1"], ["a_blind", "1"]], NAMES).split(" · ")[0],
    "Nil Rebels bid blind nil + ?, took ? + ?, 1 revoke(s), blind");
  assert.equal(outbox.title({ kind: "correction", number: 2, summary: "misdeal" }), "Correction of hand 2: misdeal");
  assert.equal(outbox.title({ kind: "hand", hand: null, summary: "misdeal" }), "Next hand: misdeal");
});

test("the dealer turns each hand and the next seat bids first", () => {
  assert.deepEqual([1, 2, 3, 4, 5, 8].map((n) => outbox.seatsOf(n)), [
    { dealer: 1, first: 2 }, { dealer: 2, first: 3 }, { dealer: 3, first: 4 },
    { dealer: 4, first: 1 }, { dealer: 1, first: 2 }, { dealer: 4, first: 1 }
  ]);
});

const LINEUP = { match: "12", kind: "lineup", path: "/supervise/matches/12/lineup", number: null };

test("a lineup is kept in order with the hands; the hands after it follow the server's version", () => {
  const base = "https://im.example.edu/supervise/matches/12";
  assert.deepEqual(outbox.kindOfAction("/supervise/matches/12/lineup", base), LINEUP);
  const data = queue([LINEUP, HAND, HAND]);
  assert.equal(data.items[0].summary, "Nil Rebels's lineup");
  assert.equal(data.items[0].key, null, "no key: the lineup in force sent again writes nothing");
  // Whether it moves the version on is the server's to say: numbered as if it does not.
  assert.deepEqual(data.items.map((i) => [i.kind, i.base, i.hand]),
    [["lineup", 7, null], ["hand", 7, 4], ["hand", 8, 5]]);
  // Recorded, and the console it answered with is at version 8 (it changed who sits).
  const [lineup] = data.items;
  outbox.afterRecorded(data, lineup, 8);
  data.items.shift();
  assert.deepEqual(data.items.map((i) => [i.base, i.hand]), [[8, 4], [9, 5]]);
  assert.deepEqual(data.seen, { version: 8, hand: null });
  // The same lineup sent again: the version stays, and so do the hands.
  const again = queue([LINEUP, HAND]);
  outbox.afterRecorded(again, again.items[0], 7);
  again.items.shift();
  assert.deepEqual(again.items.map((i) => [i.base, i.hand]), [[7, 4]]);
  // No version on the answer: the items keep their numbers.
  const unknown = queue([HAND, HAND]);
  outbox.afterRecorded(unknown, unknown.items[0], NaN);
  assert.deepEqual(unknown.items.map((i) => i.base), [7, 8]);
  assert.deepEqual(unknown.seen, { version: 8, hand: 4 });
});
