// The hand form on the page: binds the preview and checks of preview.js (pure) to the
// console's hand form, with the engine of engine.js. Loaded as a module under the hand form
// by templates/console/console.html (a new hand) and templates/console/edit.html (a
// correction: its match-data says `correcting`, and holds the hands before the one corrected).

import * as engine from "./engine.js";
import {
  TEAMS, bidProblem, judge, messageOf, placeOf, teamLine, timeCalledAt, waitingIn
} from "./preview.js";

function bindPage() {
  const form = document.getElementById("hand-form");
  const region = document.getElementById("hand-preview");
  const source = document.getElementById("match-data");
  if (!form || !region || !source) return;
  let data;
  try {
    data = JSON.parse(source.textContent);
  } catch {
    return; // no preview; the server checks the hand
  }
  const match = (/^\/supervise\/matches\/(\d+)/.exec(location.pathname) || [])[1] || "";
  // Hands the outbox sent while this hand was typed: the match's data is new (outbox/ui.js).
  source.addEventListener("change", () => {
    try {
      data = JSON.parse(source.textContent);
    } catch {
      return;
    }
    render();
  });

  const pairsNow = () => [...new FormData(form).entries()];
  const waiting = () => {
    try {
      const entries = [];
      for (let i = 0; i < localStorage.length; i++) {
        const key = localStorage.key(i);
        entries.push([key, localStorage.getItem(key) || ""]);
      }
      return waitingIn(entries, match);
    } catch {
      return null; // no storage: no outbox either
    }
  };
  // Hands waiting in the outbox come after a corrected hand: they do not change its score.
  const verdict = () => judge(data, pairsNow(), Date.now(), data.correcting ? null : waiting(), engine);

  const render = () => {
    const said = verdict();
    region.textContent = "";
    const line = (text, className) => {
      const p = document.createElement("p");
      p.textContent = text;
      if (className) p.className = className;
      region.appendChild(p);
    };
    if (said.preview) {
      line(said.preview.title, "preview-title");
      const list = document.createElement("ul");
      for (const team of said.preview.teams) {
        const item = document.createElement("li");
        item.className = `team-${team.key}`;
        item.id = `preview-${team.key}`;
        const strong = document.createElement("strong");
        strong.textContent = teamLine(team);
        item.appendChild(strong);
        if (team.parts.length > 0) item.appendChild(document.createTextNode(`: ${team.parts.join(", ")}`));
        list.appendChild(item);
      }
      if (said.preview.teams.length > 0) region.appendChild(list);
      if (said.preview.status) line(said.preview.status, "preview-status");
    } else if (said.waiting) {
      line(said.waiting, "hint");
    } else {
      line(said.hint, "hint");
    }
  };

  const has = (id) => !!document.getElementById(id);

  // Takes off what this script marked; `all` also the server's messages of a refused post.
  const clear = (all) => {
    const messages = form.querySelectorAll(all ? "p.field-error" : "p.field-error[data-engine]");
    messages.forEach((m) => m.remove());
    form.querySelectorAll(all ? "[aria-invalid]" : "[data-engine-mark]").forEach((field) => {
      field.removeAttribute("aria-invalid");
      field.removeAttribute("aria-describedby");
      field.removeAttribute("data-engine-mark");
      field.classList.remove("invalid");
    });
    form.querySelectorAll(all ? ".has-error" : ".has-error[data-engine-mark]").forEach((box) => {
      box.classList.remove("has-error");
      box.removeAttribute("data-engine-mark");
    });
  };

  // The message by its field and the fields marked, as the server's refused form has them.
  const show = (error) => {
    clear(true);
    const place = placeOf(error, has);
    const p = document.createElement("p");
    p.className = "field-error";
    p.id = "hand-error";
    p.setAttribute("data-engine", "");
    p.textContent = messageOf(error, data.names);
    if (place.at === "seat") {
      const box = form.querySelector(`fieldset[data-seat="${place.seat}"]`);
      p.setAttribute("data-field", `seat-${place.seat}`);
      box.classList.add("has-error");
      box.setAttribute("data-engine-mark", "");
      box.appendChild(p);
    } else if (place.at === "team") {
      const box = document.getElementById(`team-box-${place.team}`);
      p.setAttribute("data-field", `team-${place.team}`);
      if (!box.querySelector("h3")) {
        const h = document.createElement("h3");
        h.textContent = data.names[TEAMS.indexOf(place.team)];
        h.setAttribute("data-engine", "");
        box.prepend(h);
      }
      box.appendChild(p);
    } else if (place.at === "tricks") {
      p.setAttribute("data-field", "tricks");
      document.getElementById("tricks-sum").before(p);
    } else {
      p.setAttribute("data-field", "form");
      form.querySelector("input[name=idempotency_key]").after(p);
    }
    for (const id of place.marked) {
      const field = document.getElementById(id);
      if (!field) continue;
      field.setAttribute("aria-invalid", "true");
      field.setAttribute("aria-describedby", "hand-error");
      field.setAttribute("data-engine-mark", "");
      if (field.type !== "checkbox") field.classList.add("invalid");
    }
    return place;
  };

  // The error summary at the top of the page, focused (templates/console/error_summary.html).
  const summarize = (error, place) => {
    document.querySelectorAll("[data-error-summary]").forEach((s) => s.remove());
    const box = document.createElement("div");
    box.className = "error-summary";
    box.id = "error-summary";
    box.setAttribute("role", "alert");
    box.setAttribute("tabindex", "-1");
    box.setAttribute("aria-labelledby", "error-summary-title");
    box.setAttribute("data-error-summary", "");
    const title = document.createElement("h2");
    title.id = "error-summary-title";
    title.textContent = data.correcting ? "The correction was not saved" : "The hand was not recorded";
    const list = document.createElement("ul");
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = `#${place.target}`;
    link.setAttribute("data-target", place.target);
    link.textContent = messageOf(error, data.names);
    link.addEventListener("click", (event) => {
      const field = document.getElementById(place.target);
      if (field) {
        event.preventDefault();
        bringIntoView(field);
      }
    });
    item.appendChild(link);
    list.appendChild(item);
    box.append(title, list);
    document.querySelector("main h1").before(box);
    if (!document.title.startsWith("Error: ")) document.title = `Error: ${document.title}`;
    box.focus();
  };

  // The field with its caption in view, or its message where that is above (the tricks'
  // sum) and both fit; then the focus (as console.js does for the server's summary).
  const bringIntoView = (field) => {
    const group = field.closest("fieldset");
    let top = (group && group.querySelector("legend")) || field.closest("label") || field;
    const said = field.getAttribute("aria-describedby");
    const message = said ? document.getElementById(said) : null;
    if (message) {
      const m = message.getBoundingClientRect();
      const f = field.getBoundingClientRect();
      if (m.top < top.getBoundingClientRect().top && f.bottom - m.top < window.innerHeight - 120) top = message;
    }
    top.scrollIntoView({ block: "start" });
    field.focus({ preventScroll: true });
    if (history.replaceState) history.replaceState(null, "", `#${field.id}`);
  };

  const checkBids = () => {
    const problem = bidProblem(data, pairsNow(), timeCalledAt(data, Date.now()), engine);
    if (problem) show(problem);
    else clear(false);
  };

  engine.load().then((ready) => {
    if (!ready) return;
    render();
    form.addEventListener("input", render);
    form.addEventListener("change", render);
    form.addEventListener("change", (event) => {
      if (event.target.matches("select, input[type=checkbox]")) checkBids();
    });
  });

  // Before the outbox (static/outbox/) or the browser sees it: a hand refused here is neither sent nor
  // queued. Until the engine is loaded the hand goes as before (the server checks it).
  document.addEventListener("submit", (event) => {
    if (event.target !== form || !engine.ready()) return;
    const said = verdict();
    if (!said.refusal) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    summarize(said.refusal, show(said.refusal));
  }, true);
}

bindPage();
