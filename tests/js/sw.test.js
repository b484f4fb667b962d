// The console's service worker (static/sw.js): which requests it answers, what it keeps and
// for whom, and what it answers without a connection. Loaded with stand-ins for the worker's
// `self` and `caches`; the browser tests (tests/api/browser_outbox.rs) reload offline for real.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");

const ORIGIN = "https://im.example.edu";
const listeners = {};
globalThis.self = {
  location: new URL(ORIGIN + "/supervise/sw.js"),
  addEventListener: (type, fn) => { listeners[type] = fn; },
  skipWaiting: () => Promise.resolve(),
  clients: { claim: () => Promise.resolve() }
};

// CacheStorage as the worker uses it: named caches of request URL → response.
function fakeCaches() {
  const stores = new Map();
  const keyOf = (k) => (typeof k === "string" ? k : k.url);
  return {
    stores,
    open(name) {
      if (!stores.has(name)) stores.set(name, new Map());
      const m = stores.get(name);
      return Promise.resolve({
        match(k, options) {
          let key = keyOf(k);
          if (options && options.ignoreSearch) key = key.split("?")[0];
          // A fresh copy each time, as the Cache API gives (a body is read once).
          const kept = m.get(key);
          return Promise.resolve(kept && kept.clone ? kept.clone() : kept);
        },
        put(k, response) { m.set(keyOf(k), response); return Promise.resolve(); },
        addAll(urls) { urls.forEach((u) => m.set(u, "precached")); return Promise.resolve(); }
      });
    },
    delete(name) { return Promise.resolve(stores.delete(name)); },
    keys() { return Promise.resolve([...stores.keys()]); }
  };
}

// An answer as fetch gives it in a worker (a constructed Response is never "basic").
function answer(body, more) {
  const r = Object.assign({
    status: 200, type: "basic", redirected: false, ok: true,
    headers: new Headers({ "Content-Type": "text/html; charset=utf-8" })
  }, more);
  r.clone = () => answer(body, more);
  r.text = () => Promise.resolve(body);
  r.body = body;
  return r;
}

function pageWith(token, text) {
  return "<main>" + text + '<form><input type="hidden" name="csrf" value="' + token + '"></form></main>';
}

const waits = [];
const event = { waitUntil: (p) => waits.push(p) };
const settled = () => Promise.all(waits.splice(0));

globalThis.caches = fakeCaches();
const sw = require("../../static/sw.js");

test.beforeEach(() => {
  globalThis.caches = fakeCaches();
  globalThis.fetch = () => Promise.reject(new TypeError("no connection in this test"));
});

const request = (url, more) => Object.assign({ method: "GET", url: ORIGIN + url, mode: "navigate" }, more);

test("only GETs of console pages and of /static/ are the worker's", () => {
  assert.equal(sw.routeOf(request("/supervise")), "page");
  assert.equal(sw.routeOf(request("/supervise/matches/12")), "page");
  assert.equal(sw.routeOf(request("/supervise/matches/12?x=1")), "page");
  assert.equal(sw.routeOf(request("/static/outbox/queue.js", { mode: "cors" })), "asset");
  // A POST is the outbox's business.
  assert.equal(sw.routeOf(request("/supervise/matches/12/hands", { method: "POST" })), null);
  assert.equal(sw.routeOf(request("/static/style.css", { method: "POST" })), null);
  // The worker's own script, pages outside the console, the API, a script's fetch.
  assert.equal(sw.routeOf(request("/supervise/sw.js")), null);
  assert.equal(sw.routeOf(request("/supervisors")), null);
  assert.equal(sw.routeOf(request("/scoreboard")), null);
  assert.equal(sw.routeOf(request("/api/v1/matches/12", { mode: "cors" })), null);
  assert.equal(sw.routeOf(request("/api/v1/static/12", { mode: "cors" })), null);
  assert.equal(sw.routeOf(request("/supervise/matches/12", { mode: "cors" })), null);
  assert.equal(sw.routeOf({ method: "GET", url: "https://cdn.example/static/x.js", mode: "no-cors" }), null);
});

test("the fetch listener answers only what is the worker's", () => {
  const answered = [];
  const dispatch = (req) => listeners.fetch({ request: req, respondWith: (p) => answered.push(p), waitUntil: () => {} });
  dispatch(request("/supervise/matches/12/hands", { method: "POST" }));
  dispatch(request("/api/v1/leagues", { mode: "cors" }));
  assert.equal(answered.length, 0);
  dispatch(request("/supervise/matches/12"));
  dispatch(request("/static/console.css", { mode: "no-cors" }));
  assert.equal(answered.length, 2);
  return Promise.allSettled(answered);
});

test("a new version of the worker drops the old caches, only the site's", () => {
  assert.deepEqual(sw.staleCaches(["spades-im-pages-v0", sw.PAGES, sw.ASSETS, "spades-im-assets-v0", "other-app"]),
    ["spades-im-pages-v0", "spades-im-assets-v0"]);
});

test("what the console needs offline is fetched at install", () => {
  const console = fs.readFileSync(path.join(__dirname, "../../templates/console/console.html"), "utf8");
  const used = [...console.matchAll(/"(\/static\/[^"]+)"/g)].map((m) => m[1]);
  assert.ok(used.length >= 3, "the console's template names its assets");
  used.forEach((asset) => assert.ok(sw.PRECACHE.includes(asset), asset + " is precached"));
});

test("every module of the outbox is served by the binary and fetched at install", () => {
  const dir = path.join(__dirname, "../../static/outbox");
  const modules = fs.readdirSync(dir).filter((f) => f.endsWith(".js"));
  const served = fs.readFileSync(path.join(__dirname, "../../src/web/mod.rs"), "utf8");
  assert.ok(modules.includes("main.js") && modules.includes("queue.js"));
  modules.forEach((f) => {
    assert.ok(sw.PRECACHE.includes("/static/outbox/" + f), f + " is precached");
    assert.ok(served.includes('asset!("outbox/' + f + '"'), f + " is in ASSETS");
  });
});

test("the session's token is read from the page", () => {
  assert.equal(sw.tokenOf(pageWith("t0k3n", "")), "t0k3n");
  assert.equal(sw.tokenOf("<main>Log in</main>"), "");
});

test("only plain 200 HTML pages of this site are kept", () => {
  assert.equal(sw.keepable(answer("")), true);
  assert.equal(sw.keepable(answer("", { status: 500, ok: false })), false);
  assert.equal(sw.keepable(answer("", { status: 303 })), false);
  assert.equal(sw.keepable(answer("", { redirected: true })), false);
  assert.equal(sw.keepable(answer("", { type: "opaqueredirect" })), false);
  assert.equal(sw.keepable(answer("", { headers: new Headers({ "Content-Type": "application/json" }) })), false);
});

test("pages are kept for one session: a page of another empties the cache first", async () => {
  const pages = () => globalThis.caches.stores.get(sw.PAGES);
  assert.equal(await sw.storePage(ORIGIN + "/supervise", answer(pageWith("one", "tonight"))), true);
  assert.equal(await sw.storePage(ORIGIN + "/supervise/matches/12", answer(pageWith("one", "match"))), true);
  assert.ok(pages().has(ORIGIN + "/supervise") && pages().has(ORIGIN + "/supervise/matches/12"));
  // Someone logged in again (a new token): nothing of the first session stays.
  assert.equal(await sw.storePage(ORIGIN + "/supervise/matches/13", answer(pageWith("two", "other"))), true);
  assert.ok(!pages().has(ORIGIN + "/supervise"));
  assert.ok(!pages().has(ORIGIN + "/supervise/matches/12"));
  assert.ok(pages().has(ORIGIN + "/supervise/matches/13"));
  // Not a logged-in page: not kept.
  assert.equal(await sw.storePage(ORIGIN + "/supervise/x", answer("<main>Log in</main>")), false);
  assert.ok(!pages().has(ORIGIN + "/supervise/x"));
});

test("a page: the network first, kept for later", async () => {
  globalThis.fetch = () => Promise.resolve(answer(pageWith("one", "fresh")));
  const got = await sw.page(event, request("/supervise/matches/12#hand-form"));
  await settled();
  assert.equal(got.body, pageWith("one", "fresh"));
  assert.ok(globalThis.caches.stores.get(sw.PAGES).has(ORIGIN + "/supervise/matches/12"), "kept without its #fragment");
});

test("a page without a connection: the kept copy, else the offline page", async () => {
  await sw.storePage(ORIGIN + "/supervise/matches/12", answer(pageWith("one", "kept")));
  const kept = await sw.page(event, request("/supervise/matches/12"));
  assert.equal(kept.body, pageWith("one", "kept"));
  const never = await sw.page(event, request("/supervise/matches/99"));
  assert.equal(never.status, 503);
  assert.match(await never.text(), /No connection/);
});

test("a console page that redirects (the session is over) empties the page cache", async () => {
  await sw.storePage(ORIGIN + "/supervise/matches/12", answer(pageWith("one", "kept")));
  globalThis.fetch = () => Promise.resolve(answer("<main>Log in</main>", { redirected: true }));
  await sw.page(event, request("/supervise/matches/12"));
  await settled();
  assert.ok(!globalThis.caches.stores.has(sw.PAGES));
});

test("an asset: the network first, the kept copy (whatever its query) without one", async () => {
  globalThis.fetch = () => Promise.resolve(answer("body{}", { headers: new Headers({ "Content-Type": "text/css" }) }));
  const css = request("/static/style.css", { mode: "no-cors" });
  assert.equal((await sw.asset(event, css)).body, "body{}");
  await settled();
  globalThis.fetch = () => Promise.reject(new TypeError("offline"));
  assert.equal((await sw.asset(event, request("/static/style.css?v=2", { mode: "no-cors" }))).body, "body{}");
  await assert.rejects(sw.asset(event, request("/static/never.js", { mode: "no-cors" })), /offline/);
});

test("a page the server does not answer in time falls back like one without a connection", async () => {
  await assert.rejects(sw.withTimeout(new Promise(() => {}), 5), /timeout/);
  assert.equal(await sw.withTimeout(Promise.resolve("answer"), 1000), "answer");
});
