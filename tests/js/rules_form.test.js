// The league form's live preview (static/admin/rules_form.js) over the real engine
// (static/rules.wasm): the request built from the form's pairs, the preset's values in the
// controls' words, the lines redrawn only where they changed. The page itself is
// tests/api/browser_a11y.rs (axe) and tests/api/admin.rs (the server's reading).
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const { readFileSync } = require("node:fs");
const path = require("node:path");

const WASM = path.join(__dirname, "../../static/rules.wasm");
const ENGINE = path.join(__dirname, "../../static/console/engine.js");
const FORM = path.join(__dirname, "../../static/admin/rules_form.js");

async function modules() {
  const engine = await import(ENGINE);
  const form = await import(FORM);
  if (!engine.ready()) {
    const { instance } = await WebAssembly.instantiate(readFileSync(WASM), {});
    engine.use(instance);
  }
  return { engine, form };
}

test("a stage's request takes its own controls, without the prefix or the preset", async () => {
  const { form } = await modules();
  const pairs = [
    ["csrf", "t"],
    ["regular_preset", "unc-im-300"],
    ["regular_target", "500"],
    ["playoff_target", "250"],
    ["regular_moon", "on"]
  ];
  assert.deepEqual(form.requestOf("regular", "unc-im-300", pairs), {
    preset: "unc-im-300",
    fields: [
      ["target", "500"],
      ["moon", "on"]
    ]
  });
});

test("the engine reads the controls as the server does, in the rules page's words", async () => {
  const { engine, form } = await modules();
  const request = form.requestOf("regular", "unc-im-300", [
    ["regular_target", "500"],
    ["regular_moon", "on"]
  ]);
  const answer = engine.describeRules(request);
  const game = answer.lines.find((l) => l.topic === "Game");
  assert.match(game.text, /500/);
  assert.ok(answer.lines.some((l) => l.topic === "Moon"), "the moon is on");
  assert.equal(answer.rules.target, 500);

  const wrong = engine.describeRules(form.requestOf("regular", "unc-im-300", [["regular_target", "lots"]]));
  assert.equal(wrong.error.control, "target");
  assert.match(wrong.error.message, /whole number/);
});

test("the preset's values read as the server writes them", async () => {
  const { engine, form } = await modules();
  const rules = engine.describeRules({ preset: "unc-im-300", fields: [] }).rules;
  const setPenalty = [
    ["per_bid_trick", "10 per trick bid"],
    ["per_short_trick", "10 per trick short"]
  ];
  assert.equal(form.presetWords(form.valueAt(rules, "target"), [], false), "300");
  assert.equal(form.presetWords(form.valueAt(rules, "moon"), [], true), "off");
  assert.equal(form.presetWords(form.valueAt(rules, "revoke"), [], true), "on");
  assert.equal(form.presetWords(form.valueAt(rules, "moon.value"), [], false), "");
  assert.equal(form.presetWords(form.valueAt(rules, "zero_bid_is_nil"), [], false), "no");
  assert.equal(form.presetWords(form.valueAt(rules, "set_penalty"), setPenalty, false), "10 per trick bid");
  assert.equal(form.presetWords(-200, [], false), "\u2212200");
});

test("only the lines whose words changed are redrawn", async () => {
  const { form } = await modules();
  const shown = [
    { topic: "Game", text: "to 300" },
    { topic: "Bags", text: "10 cost 100" }
  ];
  assert.deepEqual(form.lineChanges(shown, [{ topic: "Game", text: "to 500" }, shown[1]]), {
    redraw: false,
    changed: [0]
  });
  assert.deepEqual(form.lineChanges(shown, [...shown, { topic: "Moon", text: "±200" }]), {
    redraw: true,
    changed: []
  });
  assert.deepEqual(form.lineChanges(shown, shown), { redraw: false, changed: [] });
});
