// The outbox on the page: the banner at the top of every console page, the refused items
// at the top with Edit, the list in #pending-hands, the note next to the score, and the
// hand form kept in step with what waits. Only the DOM: what to show comes from main.js.

import { counts, needingPerson, valueIn } from "./queue.js";
import { title, plural, points, seatsOf, bannerWords } from "./words.js";

function el(tag, attrs, children) {
  const node = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (k) {
    if (k === "text") node.textContent = attrs[k];
    else if (k === "hidden") node.hidden = attrs[k];
    else node.setAttribute(k, attrs[k]);
  });
  (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
  return node;
}

function button(id, cls, label, itemId, match) {
  const attrs = { type: "button", "class": cls, "data-outbox-id": itemId, text: label };
  if (id) attrs.id = id;
  if (match) attrs["data-outbox-match"] = match;
  return el("button", attrs);
}

function replaceChildren(node, children) {
  while (node.firstChild) node.removeChild(node.firstChild);
  children.forEach(function (c) { if (c) node.appendChild(c); });
}

// The slots the outbox writes into, made once: the banner (a live region, there before it
// has anything to say, so that screen readers announce its changes) and the refused box,
// both first in <main>; the list in #pending-hands (made at the top when the page has none).
export function slots(doc, match) {
  const main = doc.querySelector("main") || doc.body;
  let banner = doc.getElementById("outbox-banner");
  if (!banner) {
    banner = el("p", { id: "outbox-banner", "class": "outbox-banner", role: "status", "data-state": "idle" });
    main.insertBefore(banner, main.firstChild);
  }
  let top = doc.getElementById("outbox-refused");
  if (!top) {
    top = el("section", { id: "outbox-refused", "class": "outbox-refused", "aria-label": "Not sent: needs you", hidden: true });
    main.insertBefore(top, banner.nextSibling);
  }
  let box = doc.getElementById("pending-hands");
  if (!box && match) {
    box = el("div", { id: "pending-hands", "data-match": match });
    main.insertBefore(box, top.nextSibling);
  }
  return { banner: banner, top: top, box: box };
}

function stateWords(item, sendingId) {
  if (item.id === sendingId) return "sending…";
  if (item.state === "refused") return "refused: " + (item.message || "the server did not take it");
  if (item.state === "conflict") return "not sent: the match changed";
  return "waiting to send";
}

function serverBox(item, items, names) {
  const s = item.server || {};
  const n = s.names || names;
  const score = s.a || s.b ? n.a + " " + s.a + " – " + n.b + " " + s.b : "";
  const hands = s.hands != null && isFinite(s.hands) ? plural(s.hands, "hand", "hands") + " recorded" : "";
  return el("div", { "class": "outbox-conflict" }, [
    el("div", { "class": "outbox-server" }, [
      el("strong", { text: "On the server now" }),
      el("p", { "class": "outbox-server-state", text: [score, hands, s.status].filter(Boolean).join(" · ") || "changed since this was typed" }),
      item.message ? el("p", { "class": "outbox-server-message", text: item.message }) : null
    ]),
    el("div", { "class": "outbox-phone" }, [
      el("strong", { text: "Waiting on this phone" }),
      el("ul", {}, items.map(function (i) { return el("li", { text: title(i) }); }))
    ])
  ]);
}

// Whether a refused item can be put back into a form to be changed.
export function editable(item) {
  return ["hand", "correction", "rating", "forfeit", "lineup", "check-in"].indexOf(item.kind) >= 0;
}

// The refused items of every match, at the top: the server's message, Edit and Discard.
function renderTop(top, view) {
  const refused = needingPerson(view.all).filter(function (x) { return x.item.state === "refused"; });
  top.hidden = refused.length === 0;
  if (!refused.length) { replaceChildren(top, []); return; }
  replaceChildren(top, [
    el("h2", { "class": "outbox-refused-title", text: plural(refused.length, "entry was", "entries were") + " not recorded" }),
    el("ul", {}, refused.map(function (x) {
      const here = x.match === view.match;
      const editing = view.editing && view.editing.id === x.item.id;
      return el("li", { "class": "outbox-refused-item", "data-id": x.item.id, "data-match": x.match }, [
        el("strong", { "class": "outbox-what", text: title(x.item) + (here ? "" : " (another match)") }),
        el("p", { "class": "outbox-refused-message", text: x.item.message || "the server did not take it" }),
        editing ? el("p", { "class": "outbox-editing", text: "It is in the form: change it and send it again." }) : null,
        el("p", { "class": "outbox-actions" }, [
          editing || !editable(x.item) ? null : button("", "outbox-edit", "Edit", x.item.id, x.match),
          " ",
          discardButton(x.item, view, x.match)
        ])
      ]);
    }))
  ]);
}

function discardButton(item, view, match) {
  const armed = view.armed && view.armed.id === item.id && view.armed.until > Date.now();
  return button("", "outbox-discard" + (armed ? " danger" : ""), armed ? "Tap again to discard" : "Discard", item.id, match);
}

function statusWords(view, items) {
  if (view.note) return view.note;
  const head = items[0];
  if (!head) return "";
  if (head.state === "conflict") return "The match changed before these were sent: choose below.";
  if (head.state === "refused") return "The server refused the first one (see the top of the page): the rest of this match waits behind it.";
  const why = !view.online ? "no connection" : view.problem;
  let words = why ? "Not sent yet (" + why + "): kept on this phone." : "Kept on this phone until the server has it.";
  if (view.nextTry > Date.now()) words += " Next try in " + Math.max(1, Math.round((view.nextTry - Date.now()) / 1000)) + " s.";
  return words;
}

// This match's items in #pending-hands: the count, the status line, the list.
function renderList(box, view, items) {
  const count = items.length;
  const stuck = items.filter(function (i) { return i.state !== "waiting"; }).length;
  box.setAttribute("data-count", String(count));
  // A refused or conflicting entry is not "waiting to send": it waits for the supervisor.
  const words = [count - stuck ? count - stuck + " waiting to send" : "", stuck ? stuck + " not sent: needs you" : ""];
  const children = [el("p", {
    id: "outbox", "class": "outbox-count", "data-count": String(count),
    text: words.filter(Boolean).join(" · ") || "Nothing waiting to send", hidden: !count
  })];
  if (count || view.note) {
    const line = el("p", { "class": "outbox-status", id: "outbox-status", text: statusWords(view, items) + " " });
    if (count && items[0].state === "waiting" && items[0].id !== view.sendingId) {
      line.appendChild(button("outbox-send-now", "outbox-send-now", "Send now", ""));
    }
    if (view.problem.indexOf("log in") === 0) {
      line.appendChild(el("a", { href: "/login?next=" + encodeURIComponent("/supervise/matches/" + view.match), text: "Log in" }));
    }
    children.push(line);
  }
  if (count) {
    children.push(el("ol", { "class": "outbox-list", id: "outbox-list" }, items.map(function (item, i) {
      const state = item.id === view.sendingId ? "sending" : item.state;
      const li = el("li", {
        "class": "outbox-item outbox-" + state + (item.state === "conflict" ? " conflict" : ""),
        "data-id": item.id, "data-kind": item.kind, "data-state": state, "data-key": item.key || ""
      }, [
        el("span", { "class": "outbox-what", text: title(item) }), " — ",
        el("strong", { "class": "outbox-state", text: stateWords(item, view.sendingId) })
      ]);
      const actions = el("span", { "class": "outbox-actions" });
      if (i === 0 && item.state === "conflict") {
        li.appendChild(serverBox(item, items, view.names));
        const versioned = items.some(function (x) { return valueIn(x.fields, "expected_version") != null; });
        actions.appendChild(versioned
          ? button("outbox-resend", "outbox-resend primary", count > 1 ? "Send these " + count + " on the current version" : "Send it on the current version", item.id)
          : button("outbox-resend", "outbox-retry", "Try again", item.id));
      }
      if (i === 0 && item.state === "refused" && editable(item) && !(view.editing && view.editing.id === item.id)) {
        actions.appendChild(button("", "outbox-edit", "Edit", item.id, view.match));
      }
      // Not while it is on its way: it may be recorded whatever is tapped here.
      if (item.id !== view.sendingId) actions.appendChild(discardButton(item, view, view.match));
      Array.prototype.slice.call(actions.childNodes, 1).forEach(function (b) {
        actions.insertBefore(document.createTextNode(" "), b);
      });
      li.appendChild(document.createTextNode(" "));
      li.appendChild(actions);
      return li;
    })));
  }
  replaceChildren(box, children);
}

// Next to the score: the hands this phone still has to send, so that the score above is
// never taken for the match as the form counts it.
function renderScoreNote(doc, hands) {
  const status = doc.getElementById("game-status");
  let note = doc.getElementById("outbox-score-note");
  if (!status) return;
  if (!note) {
    note = el("p", { id: "outbox-score-note", "class": "outbox-score-note" });
    status.parentNode.insertBefore(note, status.nextSibling);
  }
  note.hidden = hands === 0;
  note.textContent = hands ? plural(hands, "hand", "hands") + " waiting to send: not in this score yet" : "";
  renderBarWaiting(doc, hands);
}

// The same in the console's one-row header, whose score is the first thing seen.
function renderBarWaiting(doc, hands) {
  const score = doc.getElementById("bar-score");
  if (!score) return;
  let mark = doc.getElementById("bar-waiting");
  if (!mark) {
    mark = el("span", { id: "bar-waiting", "class": "bar-waiting" });
    score.appendChild(mark);
  }
  mark.hidden = hands === 0;
  mark.textContent = hands ? " +" + hands + " to send" : "";
}

// The score of the last hand's answer (its totals: queue.js's settle), while the page
// stays because the supervisor is typing; the score box is a live region, so it is
// announced. The scoresheet below waits for the reload.
export function showTotals(doc, totals) {
  const sides = [["a", totals.a], ["b", totals.b]];
  if (!sides.every(function (x) { return x[1] && typeof x[1].score === "number"; })) return;
  sides.forEach(function (x) {
    const score = doc.getElementById("score-" + x[0]);
    const bags = doc.getElementById("bags-" + x[0]);
    if (score) score.textContent = points(x[1].score);
    if (bags) bags.textContent = "bags " + x[1].bags;
  });
  // The header's "101–62", after its hidden "Score: ".
  const bar = doc.getElementById("bar-score");
  const text = bar ? Array.prototype.find.call(bar.childNodes, function (n) { return n.nodeType === 3 && n.nodeValue.trim(); }) : null;
  if (text) text.nodeValue = points(totals.a.score) + "–" + points(totals.b.score);
}

// The hands sent while the supervisor types the next one, shown without a page load: the
// score box and the scoresheet of `fresh` (the console as the server shows it now) replace
// this page's, and the match's data the hand form's preview reads is brought up to date (a
// "change" event on #match-data tells static/console/form.js). The form is not touched.
export function swapSheet(doc, fresh) {
  ["scorebox", "sheet-block"].forEach(function (id) {
    const now = doc.getElementById(id);
    const next = fresh.getElementById(id);
    if (now && next) now.replaceWith(doc.importNode(next, true));
  });
  const data = doc.getElementById("match-data");
  const next = fresh.getElementById("match-data");
  if (data && next && data.textContent !== next.textContent) {
    data.textContent = next.textContent;
    data.dispatchEvent(new Event("change"));
  }
}

// Everything, from `view`: {all (queue.loadAll), match, names, online, sendingId, problem,
// note, nextTry, armed, editing}.
export function render(doc, parts, view) {
  const mine = view.all.filter(function (o) { return o.match === view.match; });
  const items = mine.length ? mine[0].data.items : [];
  const words = bannerWords(counts(view.all), view.online, !!view.sendingId);
  if (parts.banner.textContent !== words.text) parts.banner.textContent = words.text;
  parts.banner.setAttribute("data-state", words.state);
  parts.banner.hidden = words.text === "";
  renderTop(parts.top, view);
  if (parts.box) renderList(parts.box, view, items);
  renderScoreNote(doc, counts(view.all, view.match).hands);
}

// ------------------------------------------------------------------------ the hand form

function setField(form, name, value) {
  const input = form.querySelector('input[name="' + name + '"]');
  if (input) input.value = String(value);
}

// The hand form shows hand `n` (its heading, dealer and first bidder); `pageHand`: the
// number the server rendered it with.
export function showHand(doc, form, n, pageHand) {
  const heading = doc.getElementById("hand-title");
  const printed = "Hand " + pageHand;
  if (heading && isFinite(pageHand)) {
    if (!heading.hasAttribute("data-rest")) {
      const t = heading.textContent;
      heading.setAttribute("data-rest", t.indexOf(printed) === 0 ? t.slice(printed.length) : "");
    }
    heading.textContent = "Hand " + n + heading.getAttribute("data-rest");
  }
  const seats = seatsOf(n);
  const d = doc.getElementById("dealer");
  const b = doc.getElementById("first-bidder");
  if (d) d.textContent = String(seats.dealer);
  if (b) b.textContent = String(seats.first);
  [["dealer-tag", seats.dealer], ["first-tag", seats.first]].forEach(function (pair) {
    const tag = doc.getElementById(pair[0]);
    const legend = form.querySelector('fieldset[data-seat="' + pair[1] + '"] legend');
    if (tag && legend && tag.parentNode !== legend) {
      legend.appendChild(doc.createTextNode(" "));
      legend.appendChild(tag);
    }
  });
}

// The new-hand form describes the hand after everything kept: its version, a fresh key.
export function syncHandForm(doc, form, version, hand, pageHand, key) {
  if (version !== null) setField(form, "expected_version", version);
  setField(form, "idempotency_key", key);
  if (isFinite(hand)) showHand(doc, form, hand, pageHand);
}

// Empties a form's typed values (its hidden fields stay) and its old error marks.
export function clearForm(form) {
  Array.prototype.forEach.call(form.elements, function (e) {
    if (e.tagName === "SELECT") e.value = "";
    else if (e.type === "checkbox" || e.type === "radio") e.checked = false;
    else if (e.tagName === "TEXTAREA" || (e.tagName === "INPUT" && e.type !== "hidden" && e.type !== "submit")) e.value = "";
    e.removeAttribute("aria-invalid");
    if (e.classList) e.classList.remove("invalid");
  });
  Array.prototype.forEach.call(form.querySelectorAll(".field-error, .error-summary"), function (e) { e.hidden = true; });
  form.dispatchEvent(new Event("input", { bubbles: true }));
}

// Puts a kept item's values back into `form` (Edit): every typed field, not the hidden
// ones the outbox sets itself.
export function fillForm(form, fields) {
  clearForm(form);
  fields.forEach(function (pair) {
    if (pair[0] === "csrf" || pair[0] === "expected_version" || pair[0] === "idempotency_key") return;
    const targets = form.querySelectorAll('[name="' + pair[0].replace(/["\\]/g, "") + '"]');
    Array.prototype.forEach.call(targets, function (e) {
      if (e.type === "checkbox" || e.type === "radio") { if (e.value === pair[1]) e.checked = true; }
      else if (e.type !== "submit" && e.type !== "hidden" && e.tagName !== "BUTTON") e.value = pair[1];
    });
  });
  form.dispatchEvent(new Event("input", { bubbles: true }));
  form.dispatchEvent(new Event("change", { bubbles: true }));
}

export function busy(form, on) {
  if (!form) return;
  Array.prototype.forEach.call(form.querySelectorAll("button, input[type=submit]"), function (b) { b.disabled = on; });
  if (on) form.setAttribute("aria-busy", "true");
  else form.removeAttribute("aria-busy");
}

// The form on the page that an item was typed in, if any (`kindOf`: form → its post).
export function formFor(doc, item, kindOf) {
  return Array.prototype.find.call(doc.querySelectorAll("form[method=post], form[method=POST]"), function (form) {
    const k = kindOf(form);
    if (!k || k.path !== item.action) return false;
    const team = valueIn(item.fields, "team");
    const own = form.querySelector('[name="team"]');
    return !team || !own || own.value === team || own.tagName === "SELECT";
  }) || null;
}
