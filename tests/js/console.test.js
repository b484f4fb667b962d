// The supervisor console's helpers (static/console.js): the match clock's words and the
// tricks' running check. The page (focus, forms) is covered by the browser tests
// (tests/api/browser_phone.rs and browser_a11y.rs).
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
// An ES module: imported before the tests run.
let consoleJs;
test.before(async () => {
  consoleJs = await import("../../static/console.js");
});

test("the match clock counts minutes and seconds, never above the limit", () => {
  assert.deepEqual(consoleJs.clockWords(125, 3000), { text: "2:05 left", expired: false });
  assert.deepEqual(consoleJs.clockWords(59, 0), { text: "0:59 left", expired: false });
  // A phone clock behind the server's: the limit, not more.
  assert.equal(consoleJs.clockWords(4000, 3000).text, "50:00 left");
  // No limit known: as counted.
  assert.equal(consoleJs.clockWords(4000, 0).text, "66:40 left");
  assert.deepEqual(consoleJs.clockWords(0, 3000), { text: "Time is up: finish this hand", expired: true });
  assert.equal(consoleJs.clockWords(-5, 3000).expired, true);
});

test("the tricks typed so far are checked against 13", () => {
  const check = (values, misdeal) => consoleJs.tricksCheck(values, !!misdeal);
  assert.deepEqual(check(["", "", "", ""]), { hidden: true });
  assert.deepEqual(check(["4", "3", "", ""], true), { hidden: true });
  assert.deepEqual(check(["4", " 3", "", ""]), { text: "Tricks so far: 7 of 13", state: "" });
  assert.deepEqual(check(["4", "3", "6", "0"]), { text: "Tricks sum to 13 ✓", state: "good" });
  assert.deepEqual(check(["4", "3", "6", "1"]), { text: "Tricks sum to 14, not 13", state: "bad" });
  assert.deepEqual(check(["4", "3", "5", "0"]), { text: "Tricks sum to 12, not 13", state: "bad" });
  assert.deepEqual(check(["9", "5", "", ""]), { text: "Tricks already sum to 14: more than 13", state: "bad" });
  assert.deepEqual(check(["13", "", "", ""]), { text: "Tricks so far: 13 of 13", state: "" });
  for (const wrong of ["14", "-1", "2.5", "x"]) {
    assert.deepEqual(check([wrong, "", "", ""]), { text: "Tricks are whole numbers from 0 to 13", state: "bad" }, wrong);
  }
});

test("a card reader's magnetic stripe sentinels are not part of the student ID", () => {
  assert.equal(consoleJs.cardText(";20231234?"), "20231234");
  assert.equal(consoleJs.cardText(" %A-77?\n"), "A-77");
  assert.equal(consoleJs.cardText("20231234\r\n"), "20231234");
  assert.equal(consoleJs.cardText("S100"), "S100");
  assert.equal(consoleJs.cardText("  "), "");
});

test("the match clock takes the phone's clock's difference from the server's out", () => {
  const served = Date.parse("2026-11-24T19:00:00Z");
  const ends = served + 60 * 1000;
  // A phone 30 s ahead of the server, right after loading the page: a full minute left,
  // not 30 s.
  const loaded = served + 30 * 1000;
  assert.equal(consoleJs.secondsLeft(ends, served, loaded, loaded), 60);
  // 59.6 s later on the phone: under a second left, not yet up.
  assert.equal(consoleJs.secondsLeft(ends, served, loaded, loaded + 59600), 1);
  assert.equal(consoleJs.secondsLeft(ends, served, loaded, loaded + 60000), 0);
  // A phone 30 s behind: the same minute.
  assert.equal(consoleJs.secondsLeft(ends, served, served - 30000, served - 30000), 60);
  // No server time on the page: the phone's clock as it is.
  assert.equal(consoleJs.secondsLeft(ends, NaN, loaded, served), 60);
});
