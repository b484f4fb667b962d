// The hand form's preview and checks (static/console/preview.js) over the real engine
// (static/rules.wasm, loaded as static/console/engine.js loads it): the request built from
// the match's data and the form, the words drawn from the engine's answer, the bid check,
// the refusal that stops a submit, the outbox's waiting entries. The page itself (events,
// the summary, axe) is tests/api/browser_preview.rs.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const { readFileSync } = require("node:fs");
const path = require("node:path");

const WASM = path.join(__dirname, "../../static/rules.wasm");
const ENGINE = path.join(__dirname, "../../static/console/engine.js");
const PREVIEW = path.join(__dirname, "../../static/console/preview.js");

async function modules() {
  const engine = await import(ENGINE);
  const preview = await import(PREVIEW);
  if (!engine.ready()) {
    const { instance } = await WebAssembly.instantiate(readFileSync(WASM), {});
    engine.use(instance);
  }
  return { engine, preview };
}

// The match as the server writes it in #match-data: unc-im-300 (nil 60, minimum team bid 4,
// bags 6 cost 60, 10-for-200 worth 120, revokes), its resolved rules over another preset.
async function matchData(hands = []) {
  const { engine } = await modules();
  const rules = { ...engine.score({ rules: "unc-im-300" }).rules, preset: "classic" };
  return { rules, stage: "regular", hands, names: ["Aces", "Kings"], time_called: false, ends_at: null };
}

// The form's pairs for bids and tricks in seat order (seat 1, 2, 3, 4).
function pairs(bids, tricks, extra = []) {
  const names = ["a_%0", "b_%0", "a_%1", "b_%1"];
  const out = [["csrf", "t"], ["expected_version", "3"], ["idempotency_key", "k"]];
  names.forEach((n, i) => {
    out.push([n.replace("%", "bid"), bids[i]]);
    out.push([n.replace("%", "tricks"), tricks[i]]);
  });
  return out.concat(extra);
}

test("the request is the match's hands then the hand typed, in the API's shape", async () => {
  const { engine, preview } = await modules();
  const data = await matchData([{ a: { bids: [3, 3], tricks: [3, 3] }, b: { bids: [4, 3], tricks: [4, 3] } }]);
  const typed = pairs(["4", "3", "nil", "3"], ["5", "4", "0", " 4 "], [["b_revokes", "1"]]);
  const read = preview.handOf(typed, 2, false, engine.readHand);
  assert.deepEqual(preview.requestFor(data, read.hand), {
    rules: data.rules,
    stage: "regular",
    hands: [
      data.hands[0],
      { a: { bids: [4, "nil"], tricks: [5, 0] }, b: { bids: [3, 3], tricks: [4, 4] }, revokes: { a: 0, b: 1 } }
    ]
  });
  // A misdeal is exactly {"misdeal": true}; the time-called hand says so.
  assert.deepEqual(preview.handOf([["misdeal", "1"], ["a_bid0", "4"]], 2, true, engine.readHand).hand, { misdeal: true });
  assert.equal(preview.handOf(typed, 2, true, engine.readHand).hand.time_called, true);
  // The console's form has no time field: the match data says it, not a field posted.
  assert.equal(preview.handOf(typed.concat([["time", "1"]]), 2, false, engine.readHand).hand.time_called, undefined);
  assert.equal(preview.timeCalledAt({ ends_at: "2026-11-27T07:00:00Z" }, Date.parse("2026-11-27T07:00:00Z")), true);
  assert.equal(preview.timeCalledAt({ ends_at: "2026-11-27T07:00:00Z" }, Date.parse("2026-11-27T06:59:59Z")), false);
});

test("what was typed wrong is said in the server's words, seat by seat", async () => {
  const { engine, preview } = await modules();
  const reading = (bids, tricks, extra) => preview.handOf(pairs(bids, tricks, extra), 3, false, engine.readHand);
  const read = (bids, tricks, extra) => reading(bids, tricks, extra).error;
  assert.deepEqual(read(["4", "3", "", "3"], ["5", "4", "0", "4"]),
    { code: "invalid_hand", message: "hand 3: seat 3 has no bid", hand: 3, field: "bids", team: "a", player: 1 });
  assert.equal(read(["4", "3", "4", "3"], ["5", "", "0", "4"]).message, "hand 3: seat 2 has no trick count");
  assert.equal(read(["4", "3", "4", "3"], ["5", "abc", "0", "4"]).message, 'hand 3: seat 2 took "abc" tricks; tricks are 0 to 13');
  const revokes = read(["4", "3", "4", "3"], ["5", "4", "0", "4"], [["b_revokes", "two"]]);
  assert.equal(revokes.message, 'hand 3: revokes must be a number, not "two"');
  assert.equal(revokes.player, undefined);
  // Blank cells are said to be blank, so the preview asks for the rest.
  assert.equal(reading(["4", "3", "", "3"], ["5", "4", "0", "4"]).incomplete, true);
  assert.equal(reading(["4", "3", "4", "3"], ["5", "abc", "0", "4"]).incomplete, false);
  assert.equal(reading(["4", "3", "4", "3"], ["5", "abc", "0", ""]).incomplete, true);
});

test("the preview's words come from the engine's answer", async () => {
  const { engine, preview } = await modules();
  const data = await matchData();
  const { hand } = preview.handOf(pairs(["4", "3", "nil", "3"], ["5", "4", "0", "4"]), 1, false, engine.readHand);
  const answer = engine.score(preview.requestFor(data, hand));
  const said = preview.previewOf(data, hand, answer);
  const [a, b] = said.teams;
  const scored = answer.hands[0];
  assert.equal(said.title, "If hand 1 is recorded as typed:");
  assert.equal(preview.previewOf({ ...data, correcting: true }, hand, answer).title, "If hand 1 is corrected as typed:");
  assert.equal(preview.teamLine(a), `Aces: +${scored.a.points} this hand, score ${scored.a.score} (bags ${scored.a.bags})`);
  assert.deepEqual(a.parts, [`nil made +${scored.a.nil_points}`, `made 4 +${scored.a.contract_points}`, `1 bag +${scored.a.bag_points}`]);
  assert.deepEqual(b.parts, [`made 6 +${scored.b.contract_points}`, `2 bags +${scored.b.bag_points}`]);
  assert.equal(said.status, "");

  // A failed nil and a set, then the bag penalty and 10-for-200, on the hands before.
  const set = engine.score(preview.requestFor(data, { a: { bids: [4, "nil"], tricks: [2, 1] }, b: { bids: [3, 3], tricks: [6, 4] } }));
  const [setA, setB] = preview.previewOf(data, { a: { bids: [4, "nil"] }, b: { bids: [3, 3] } }, set).teams;
  assert.deepEqual(setA.parts, [`nil failed −${-set.hands[0].a.nil_points}`, `set on 4 −${-set.hands[0].a.contract_points}`]);
  assert.deepEqual(setB.parts, [`made 6 +${set.hands[0].b.contract_points}`, `4 bags +${set.hands[0].b.bag_points}`]);
  const bagged = await matchData([{ a: { bids: [4, 4], tricks: [13, 0] }, b: { bids: ["nil", "nil"], tricks: [0, 0] } }]);
  const tenHand = { a: { bids: [6, 4], tricks: [11, 0] }, b: { bids: [1, 3], tricks: [2, 0] } };
  const ten = engine.score(preview.requestFor(bagged, tenHand));
  assert.ok(ten.hands[1].a.bag_penalty < 0, "the test's hands reach the bag penalty");
  const [tenA] = preview.previewOf(bagged, tenHand, ten).teams;
  assert.deepEqual(tenA.parts, [
    `made 10-for-200 +${ten.hands[1].a.contract_points}`, `1 bag +1`, `bag penalty −${-ten.hands[1].a.bag_penalty}`
  ]);
  assert.equal(tenA.score, ten.a.score);
});

test("the game's end is said by the winner's name", async () => {
  const { engine, preview } = await modules();
  const data = await matchData([
    { a: { bids: [6, 4], tricks: [10, 0] }, b: { bids: [2, 2], tricks: [3, 0] } },
    { a: { bids: [6, 4], tricks: [10, 0] }, b: { bids: [2, 2], tricks: [3, 0] } }
  ]);
  const hand = { a: { bids: [6, 4], tricks: [10, 0] }, b: { bids: [2, 2], tricks: [3, 0] } };
  const answer = engine.score(preview.requestFor(data, hand));
  assert.equal(answer.hands[2].status, "won");
  assert.equal(preview.previewOf(data, hand, answer).status, "Aces wins (reaches the target)");
});

test("bids the engine refuses are found as they are picked", async () => {
  const { engine, preview } = await modules();
  const data = await matchData();
  const bids = (seats, extra) => pairs(seats, ["", "", "", ""], extra);
  // A nil and a partner's 2, the other team not picked yet: the engine's own message.
  const problem = preview.bidProblem(data, bids(["nil", "", "2", ""]), false, engine);
  const direct = engine.score(preview.requestFor(data, { a: { bids: ["nil", 2], tricks: [0, 4] }, b: { bids: [4, 4], tricks: [5, 4] } }));
  assert.deepEqual(problem, direct.error);
  assert.equal(preview.messageOf(problem, data.names), direct.error.message.replace("team a", "Aces"));
  assert.ok(problem.message.includes("team a"), problem.message);
  // Bids that are allowed, or only one of a team picked: nothing to say.
  assert.equal(preview.bidProblem(data, bids(["nil", "", "4", ""]), false, engine), null);
  assert.equal(preview.bidProblem(data, bids(["2", "", "", ""]), false, engine), null);
  assert.equal(preview.bidProblem(data, bids(["", "", "", ""]), false, engine), null);
  // A misdeal has no bids to check.
  assert.equal(preview.bidProblem(data, bids(["nil", "", "2", ""], [["misdeal", "on"]]), false, engine), null);
  // The other team's bids picked wrong are blamed on it.
  assert.equal(preview.bidProblem(data, bids(["4", "1", "4", "1"]), false, engine).team, "b");
  // Blind nil at 0–0 (it needs the team 100 behind): the seat is blamed.
  const blind = preview.bidProblem(data, bids(["4", "", "blind_nil", ""]), false, engine);
  assert.deepEqual([blind.team, blind.player, blind.field], ["a", 1, "bids"]);
});

test("a hand the engine refuses stops the submit; a good one goes; waiting hands are not counted", async () => {
  const { engine, preview } = await modules();
  const data = await matchData();
  const judge = (bids, tricks, waiting = null) =>
    preview.judge(data, pairs(bids, tricks), 0, waiting, engine);
  const good = judge(["4", "3", "4", "3"], ["5", "4", "0", "4"]);
  assert.equal(good.refusal, null);
  assert.ok(good.preview);
  const sum = judge(["4", "3", "4", "3"], ["5", "4", "0", "3"]);
  assert.equal(sum.refusal.message, "hand 1: tricks sum to 12, not 13");
  assert.equal(sum.hint, "This hand cannot be recorded: hand 1: tricks sum to 12, not 13");
  const partial = judge(["4", "", "4", "3"], ["", "", "", ""]);
  assert.equal(partial.hint, "Type every bid and trick count to see what this hand scores.");
  assert.equal(partial.refusal.message, "hand 1: seat 1 has no trick count");
  // Hands waiting in the outbox: no total, and the engine's refusal does not stop the hand
  // (the score its rules look at is not known); the form's own reading still does.
  const waiting = judge(["4", "3", "4", "3"], ["5", "4", "0", "4"], 2);
  assert.deepEqual(waiting, { waiting: preview.waitingWords(2), refusal: null });
  assert.equal(judge(["4", "3", "4", "3"], ["5", "4", "0", "3"], 1).refusal, null);
  assert.ok(judge(["4", "", "4", "3"], ["5", "4", "0", "4"], 1).refusal);
  assert.equal(preview.waitingWords(1).startsWith("1 hand waiting to send is not counted yet"), true);
});

test("the outbox's waiting entries are read without trusting a format this does not know", async () => {
  const { preview } = await modules();
  const store = (items) => JSON.stringify({ items, seen: null });
  assert.equal(preview.waitingIn([], "7"), null);
  assert.equal(preview.waitingIn([["spades-im.outbox.v1.sam.7", store([])]], "7"), null);
  assert.equal(preview.waitingIn([
    ["spades-im.outbox.v1.sam.7", store([{ kind: "hand" }, { kind: "check-in" }, { kind: "correction" }])],
    ["spades-im.outbox.v1.sam.17", store([{ kind: "hand" }])],
    ["other", "x"]
  ], "7"), 2);
  // Another version's store, or one that does not read: waiting, never a wrong total.
  assert.equal(preview.waitingIn([["spades-im.outbox.v2.sam.7", "{\"queue\": []}"]], "7"), 1);
  assert.equal(preview.waitingIn([["spades-im.outbox.v1.sam.7", "not json"]], "7"), 1);
});

test("a refusal is placed where the server's form places it", async () => {
  const { preview } = await modules();
  const has = (id) => id === "a_revokes" || id === "b_revokes";
  assert.deepEqual(preview.placeOf({ field: "bids", team: "a", player: 1 }, has),
    { at: "seat", seat: 3, team: "a", target: "a_bid1", marked: ["a_bid1"] });
  assert.deepEqual(preview.placeOf({ field: "bids", team: "b" }, has),
    { at: "team", seat: null, team: "b", target: "b_bid0", marked: ["b_bid0", "b_bid1"] });
  assert.deepEqual(preview.placeOf({ field: "tricks" }, has),
    { at: "tricks", seat: null, team: null, target: "a_tricks0", marked: ["a_tricks0", "a_tricks1", "b_tricks0", "b_tricks1"] });
  assert.deepEqual(preview.placeOf({ field: "revokes", team: "b" }, has),
    { at: "team", seat: null, team: "b", target: "b_revokes", marked: ["b_revokes"] });
  assert.equal(preview.placeOf({ field: "blind", team: "a" }, has).target, "team-box-a");
  assert.equal(preview.placeOf({ code: "game_over" }, has).target, "hand-form");
});

test("the engine loads as it streams in, from its bytes otherwise, and says when it cannot", async () => {
  const bytes = readFileSync(WASM);
  const asked = [];
  const serve = (type) => async (url) => {
    asked.push(url);
    return new Response(bytes, { headers: { "content-type": type } });
  };
  const streamed = await import(`${ENGINE}?streamed`);
  assert.equal(await streamed.load("/static/rules.wasm", serve("application/wasm")), true);
  assert.equal(streamed.score({ rules: "unc-im-300" }).rules.target, 300);
  assert.deepEqual(asked, ["/static/rules.wasm"]);
  // A cache that lost the type: streaming refuses it, the bytes compile.
  const bytesOnly = await import(`${ENGINE}?bytes`);
  assert.equal(await bytesOnly.load("/x.wasm", serve("application/octet-stream")), true);
  assert.equal(bytesOnly.ready(), true);
  // No engine to be had: false, and nothing scores.
  const none = await import(`${ENGINE}?none`);
  assert.equal(await none.load("/x.wasm", async () => new Response("gone", { status: 404 })), false);
  assert.equal(none.ready(), false);
  assert.throws(() => none.score({ rules: "unc-im-300" }), /not loaded/);
});
