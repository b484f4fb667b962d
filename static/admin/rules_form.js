// The league form's live preview: each stage's rules in the rules page's words, redrawn as
// the coordinator changes its preset or a control. The reading is the server's own
// (rules/src/rules_form.rs in static/rules.wasm, through static/console/engine.js), so the
// words shown are the words the preview page and the rules page will show. Without the
// engine (an old browser, no WebAssembly) the form still works: the server's preview checks
// it before anything is saved.
import { load, describeRules } from "../console/engine.js";

/**
 * The engine's request for one stage: its preset and the controls' [name, value] pairs of
 * `pairs` (a FormData's) that belong to the stage `key`, without the stage's prefix.
 */
export function requestOf(key, preset, pairs) {
  const prefix = `${key}_`;
  const fields = [];
  for (const [name, value] of pairs) {
    if (name.startsWith(prefix) && name !== `${key}_preset`) {
      fields.push([name.slice(prefix.length), String(value)]);
    }
  }
  return { preset, fields };
}

/** The value of `rules` at a dotted `path` (undefined when a step is missing). */
export function valueAt(rules, path) {
  return path.split(".").reduce((v, key) => (v == null ? undefined : v[key]), rules);
}

/**
 * What the preset has at a control, in the control's words (as the server writes it in
 * brackets): a number ("−200" with a true minus), "on"/"off" for an optional rule, "yes"/"no",
 * or the words of the option whose value it is; "" for a number of a rule that is off.
 * `options` are the control's [value, words] choices (none for a number).
 */
export function presetWords(value, options, isSwitch) {
  if (isSwitch) return value == null ? "off" : "on";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") return String(value).replace("-", "\u2212");
  if (typeof value === "string") {
    const found = options.find(([v]) => v === value);
    return found ? found[1] : value;
  }
  return "";
}

/**
 * How to go from the lines shown (`[{topic, text}]`) to `next`: the same topics in the same
 * order change only the texts that differ (so a screen reader hears what changed, not the
 * whole list); otherwise everything is redrawn. `{redraw: bool, changed: [index]}`.
 */
export function lineChanges(shown, next) {
  const sameTopics =
    shown.length === next.length && shown.every((line, i) => line.topic === next[i].topic);
  if (!sameTopics) return { redraw: true, changed: [] };
  const changed = [];
  next.forEach((line, i) => {
    if (line.text !== shown[i].text) changed.push(i);
  });
  return { redraw: false, changed };
}

// ---- the page ----

function shownLines(dl) {
  const topics = [...dl.querySelectorAll("dt")];
  return topics.map((dt) => ({ topic: dt.textContent, text: dt.nextElementSibling?.textContent ?? "" }));
}

function drawLines(dl, lines) {
  const { redraw, changed } = lineChanges(shownLines(dl), lines);
  if (redraw) {
    dl.replaceChildren(
      ...lines.flatMap(({ topic, text }) => {
        const dt = document.createElement("dt");
        dt.textContent = topic;
        const dd = document.createElement("dd");
        dd.textContent = text;
        return [dt, dd];
      })
    );
    return;
  }
  const dds = dl.querySelectorAll("dd");
  for (const i of changed) dds[i].textContent = lines[i].text;
}

// The "as the preset" words of every control of the stage, for the preset now chosen.
function showPresetValues(fieldset, presetRules) {
  for (const control of fieldset.querySelectorAll("[data-path]")) {
    const value = valueAt(presetRules, control.dataset.path);
    if (control.tagName === "SELECT") {
      const options = [...control.options].slice(1).map((o) => [o.value, o.textContent]);
      const isSwitch = options.length === 2 && options[0][0] === "on";
      const words = presetWords(value, options, isSwitch);
      control.options[0].textContent = words ? `As the preset (${words})` : "As the preset";
    } else {
      const words = presetWords(value, [], false);
      control.placeholder = words || "—";
      const hint = document.getElementById(`${control.id}-preset`);
      if (hint) hint.textContent = words ? `Empty: as the preset (${words})` : "Empty: as the preset";
    }
  }
}

function refresh(form, fieldset) {
  const key = fieldset.dataset.stage;
  const dl = document.getElementById(`${key}-live`);
  const note = document.getElementById(`${key}-live-note`);
  const preset = form.elements[`${key}_preset`].value;
  if (preset === "") {
    const regular = form.elements.regular_preset.value;
    showPresetValues(fieldset, describeRules({ preset: regular, fields: [] }).rules ?? {});
    drawLines(dl, []);
    note.textContent = "Same as the regular season.";
    return;
  }
  const bare = describeRules({ preset, fields: [] });
  if (bare.rules) showPresetValues(fieldset, bare.rules);
  const answer = describeRules(requestOf(key, preset, new FormData(form)));
  if (answer.error) {
    note.textContent = `Not yet: ${answer.error.message}`;
    return;
  }
  note.textContent = "";
  drawLines(dl, answer.lines);
}

async function start() {
  const form = document.querySelector("form.admin-form");
  const stages = form ? [...form.querySelectorAll("fieldset[data-stage]")] : [];
  if (stages.length === 0 || !(await load())) return;
  const timers = new Map();
  const later = (fieldset) => {
    clearTimeout(timers.get(fieldset));
    timers.set(fieldset, setTimeout(() => refresh(form, fieldset), 250));
  };
  for (const fieldset of stages) {
    fieldset.addEventListener("input", () => later(fieldset));
    fieldset.addEventListener("change", () => later(fieldset));
    refresh(form, fieldset);
  }
  // The stages "same as the regular season" follow the regular season's preset.
  form.elements.regular_preset.addEventListener("change", () => stages.forEach(later));
}

if (typeof document !== "undefined") {
  start();
}
