// The live public pages (static/public.js): what is said when a score changes, how a
// countdown reads, when the page reads the server again. The page swap itself is covered by
// the browser tests (tests/api/browser_live.rs).
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
// An ES module: imported before the tests run.
let live;
test.before(async () => {
  live = await import("../../static/public.js");
});

function match(id, a, b, more) {
  return Object.assign({
    id, team_a: { name: "Nil Rebels" }, team_b: { name: "Book Club" },
    a: { score: a }, b: { score: b }, hands: 9, status: "in_progress"
  }, more);
}

test("a match is said with its score and hand; a finished one as final", () => {
  assert.deepEqual(live.scores(match(3, 212, 161)),
    { 3: { text: "Nil Rebels 212, Book Club 161, hand 9", score: "212:161:in_progress" } });
  // The match page's JSON lists the hands; the scoreboard's counts them.
  assert.equal(live.scores(match(3, 212, 161, { hands: [{}, {}] }))[3].text, "Nil Rebels 212, Book Club 161, hand 2");
  assert.equal(live.scores(match(3, 500, 161, { status: "complete" }))[3].text, "Nil Rebels 500, Book Club 161, hand 9, final");
  assert.match(live.scores(match(3, 0, 0, { status: "forfeit" }))[3].text, /, final$/);
  assert.deepEqual(Object.keys(live.scores({ matches: [match(3, 1, 2), match(4, 3, 4)] })), ["3", "4"]);
});

test("only a changed score is announced, never a match just started or a version bump alone", () => {
  const before = live.scores({ matches: [match(3, 100, 90), match(4, 50, 60)] });
  assert.equal(live.announcement(before, live.scores({ matches: [match(3, 100, 90), match(4, 50, 60)] })), "");
  const after = live.scores({ matches: [match(3, 140, 90), match(4, 50, 60), match(5, 10, 0)] });
  assert.equal(live.announcement(before, after), "Nil Rebels 140, Book Club 90, hand 9");
  const both = live.scores({ matches: [match(3, 140, 90), match(4, 50, 90)] });
  assert.equal(live.announcement(before, both),
    "Nil Rebels 140, Book Club 90, hand 9. Nil Rebels 50, Book Club 90, hand 9");
  // The same score, finished: said (as final).
  const done = live.scores({ matches: [match(3, 100, 90, { status: "complete" })] });
  assert.equal(live.announcement(before, done), "Nil Rebels 100, Book Club 90, hand 9, final");
});

test("a countdown reads minutes and seconds, hours when there are, and time is up", () => {
  assert.deepEqual(live.countdown(725), { text: "12:05 left", expired: false, soon: false });
  assert.deepEqual(live.countdown(3723), { text: "1:02:03 left", expired: false, soon: false });
  assert.deepEqual(live.countdown(299), { text: "4:59 left", expired: false, soon: true });
  assert.equal(live.countdown(300).soon, false);
  assert.equal(live.countdown(1).text, "0:01 left");
  assert.deepEqual(live.countdown(0), { text: "time is up", expired: true, soon: false });
  assert.equal(live.countdown(-40).text, "time is up");
});

test("the page reads the server every data-every seconds, slower after failures and hidden", () => {
  assert.equal(live.pollWait(null, 0, false), 5000);
  assert.equal(live.pollWait("15", 0, false), 15000);
  assert.equal(live.pollWait("x", 0, false), 5000);
  assert.equal(live.pollWait("5", 1, false), 10000);
  assert.equal(live.pollWait("5", 5, false), 30000);
  assert.equal(live.pollWait("5", 40, false), 30000);
  assert.equal(live.pollWait("5", 0, true), 30000);
});

test("the page is fetched again only when the JSON's key differs from the page's", () => {
  assert.equal(live.unchanged({ version: 12 }, "version", "12"), true);
  assert.equal(live.unchanged({ version: 13 }, "version", "12"), false);
  assert.equal(live.unchanged({ key: "3:12|4:7" }, "key", "3:12|4:7"), true);
  assert.equal(live.unchanged({}, "key", "3:12"), false);
});

test("the TV's strip of results is cut into pages that fit, every result on one", () => {
  // 6 results of 736 px on a 1,700 px strip with 58 px gaps: two a page, three pages.
  assert.deepEqual(live.stripPages([736, 736, 736, 736, 736, 736], 1700, 58), [[0, 1], [2, 3], [4, 5]]);
  // What fits exactly stays together; one too wide is a page of its own.
  assert.deepEqual(live.stripPages([500, 500, 500], 1100, 100), [[0, 1], [2]]);
  assert.deepEqual(live.stripPages([300, 2000, 300], 1000, 10), [[0], [1], [2]]);
  assert.deepEqual(live.stripPages([], 1000, 10), []);
});

test("a feed's subscription address is webcal:// on the page's own host", () => {
  assert.equal(
    live.webcalUrl("im.example.edu", "/teams/7/calendar.ics"),
    "webcal://im.example.edu/teams/7/calendar.ics"
  );
  assert.equal(
    live.webcalUrl("127.0.0.1:8080", "/leagues/fall/calendar.ics"),
    "webcal://127.0.0.1:8080/leagues/fall/calendar.ics"
  );
});

test("a new call to a table is said; a call already said is not", () => {
  const call = (id, table) => ({ id, table, team_a: "Aces", team_b: "Kings" });
  const before = live.scores({ matches: [match(3, 100, 90)], calling: [call(7, "2")] });
  assert.equal(live.announcement(before, before), "");
  const after = live.scores({ matches: [match(3, 100, 90)], calling: [call(8, "Table 5"), call(7, "2")] });
  assert.equal(live.announcement(before, after), "Now calling Table 5: Aces v Kings");
  const moved = live.scores({ matches: [match(3, 100, 90)], calling: [call(7, "3")] });
  assert.equal(live.announcement(before, moved), "Now calling Table 3: Aces v Kings");
  assert.equal(live.tableName("Lounge"), "Table Lounge");
  assert.equal(live.tableName("table 4"), "table 4");
});
