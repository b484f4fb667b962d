// The log-out (static/session.js): it counts what waits in the outboxes before asking, and
// removes the site's storage, caches and worker, and nothing of another site. The form and
// the confirm are covered by the browser tests (tests/api/browser_outbox.rs).
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
let session;
let outbox;
test.before(async () => {
  session = await import("../../static/session.js");
  outbox = await import("../../static/outbox/queue.js");
});

class FakeStorage {
  constructor(entries) { this.map = new Map(Object.entries(entries || {})); }
  get length() { return this.map.size; }
  key(i) { return [...this.map.keys()][i] ?? null; }
  getItem(k) { return this.map.has(k) ? this.map.get(k) : null; }
  setItem(k, v) { this.map.set(k, String(v)); }
  removeItem(k) { this.map.delete(k); }
}

const items = (n) => JSON.stringify({ items: Array.from({ length: n }, (_, i) => ({ id: "i" + i })), seen: null });

test("the outbox's keys are the ones the log-out looks for", () => {
  assert.ok(outbox.storeKeyFor("ref", "12").startsWith(session.OUTBOX));
});

test("entries waiting in every user's outbox are counted", () => {
  const storage = new FakeStorage({
    [outbox.storeKeyFor("ref", "12")]: items(2),
    "spades-im.outbox.editing": JSON.stringify({ store: "x", id: "y" }),
    [outbox.storeKeyFor("other", "13")]: items(1),
    "elsewhere.outbox": items(5)
  });
  assert.equal(session.waiting(storage), 3);
  assert.equal(session.waiting(new FakeStorage()), 0);
});

test("an unreadable outbox does not hide the others from the count", () => {
  const storage = new FakeStorage({
    [outbox.storeKeyFor("ref", "11")]: "{not json",
    [outbox.storeKeyFor("ref", "12")]: items(2),
    [outbox.storeKeyFor("ref", "13")]: JSON.stringify({ seen: { version: 3 } })
  });
  assert.equal(session.waiting(storage), 2);
});

test("blocked storage: nothing to count, nothing thrown", () => {
  assert.equal(session.waiting(null), 0);
  const blocked = { get length() { throw new Error("SecurityError"); } };
  assert.equal(session.waiting(blocked), 0);
  assert.doesNotThrow(() => session.removeOurs(null));
});

test("the log-out removes every key of the site, and only those", () => {
  const storage = new FakeStorage({
    "spades-im.outbox.v1.ref.12": items(1),
    "spades-im.outbox.v1.ref.13": items(1),
    "spades-im.outbox.editing": "{}",
    "other-site": "keep",
    "spades-imposter": "keep"
  });
  session.removeOurs(storage);
  assert.deepEqual([...storage.map.keys()], ["other-site", "spades-imposter"]);
});

test("the question says how many entries would be deleted", () => {
  assert.equal(session.sentence(1), "1 entry typed on a match console has not reached the server yet");
  assert.equal(session.sentence(3), "3 entries typed on match consoles have not reached the server yet");
});

test("forget: storage, the site's caches and the worker go, even where storage is blocked", async () => {
  const sessionStorage = new FakeStorage({ "spades-im.outbox.editing": "{}", "other": "keep" });
  const names = new Set(["spades-im-pages-v1", "spades-im-assets-v1", "another-app"]);
  let unregistered = 0;
  globalThis.window = {
    get localStorage() { throw new Error("SecurityError: access is denied"); },
    sessionStorage,
    caches: true
  };
  globalThis.caches = {
    keys: () => Promise.resolve([...names]),
    delete: (n) => Promise.resolve(names.delete(n))
  };
  Object.defineProperty(globalThis, "navigator", {
    configurable: true, writable: true,
    value: { serviceWorker: { getRegistrations: () => Promise.resolve([{ unregister: () => { unregistered++; return Promise.resolve(true); } }]) } }
  });
  assert.equal(session.storageNamed("localStorage"), null);
  await session.forget();
  assert.deepEqual([...sessionStorage.map.keys()], ["other"]);
  assert.deepEqual([...names], ["another-app"]);
  assert.equal(unregistered, 1);
});
