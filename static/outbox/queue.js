// The console's outbox queue: what a supervisor sent that the server has not recorded yet.
// Pure: no page, no network, no globals; the storage (the Web Storage interface:
// getItem, setItem, removeItem, key, length) is passed in, so node --test checks it all
// (tests/js/outbox_queue.test.js).
//
// Kept in localStorage, one entry per user and match, in the format the first outbox
// (outbox.js, one script) wrote, so that a phone updated in the middle of a night still
// sends what it kept:
//   "spades-im.outbox.v1.<user, URI-encoded>.<match id>" →
//   {"items": [item, ...], "seen": {"version": n, "hand": n} | null}
// An item: {id, kind, action, number, fields: [[name, value], ...], key, base, bumps, hand,
// summary, state, message, at, server}. `base` is the match's version it is sent on (the
// form's expected_version), `bumps` how much it moves the version on, `key` its
// idempotency key (the first script gave keys to hands only: the others get one before
// their first send here), `state` "waiting", "refused" (the server said no: it waits for
// the supervisor) or "conflict" (the match changed: 409).
//
// Order: a match's items are sent strictly in order, one at a time (each is numbered on the
// version the one before it leaves); a refused or conflicting item holds back the items
// after it in its match, never another match's.

export const PREFIX = "spades-im.outbox.v1.";
export const STATES = ["waiting", "refused", "conflict"];
// What each kind of post does to the match's version. A lineup: 0 here, then the server's
// (afterRecorded), as it moves the version on only when it changes who sits.
export const BUMPS = { hand: 1, correction: 1, time: 1, forfeit: 1, start: 1, "check-in": 0, rating: 0, lineup: 0 };

// Retries. Nothing reached the server (no connection, no answer) though the phone says it
// is online (its Wi-Fi is up, the Wi-Fi's way out is not): try again every 2 s, a failed
// try costs the server nothing, and no event will say when the way out is back. The phone
// says it is offline: its `online` event sends at once; a try every 30 s all the same, in
// case a browser misses the event. The server answered 5xx or 503 (busy): back off, 2 s
// doubling to 60 s, so that a struggling server is not hammered by every phone.
export const RETRY = { network: 2000, offline: 30000, first: 2000, last: 60000 };

// The wait before the next try after a failed one (`previous`: the last wait, 0 if none;
// `cause`: "network", "offline", or "server" / "auth" for an answer that was not a yes).
export function nextRetryDelay(previous, cause) {
  if (cause === "network") return RETRY.network;
  if (cause === "offline") return RETRY.offline;
  return previous ? Math.min(previous * 2, RETRY.last) : RETRY.first;
}

// ------------------------------------------------------------------------ storage

// Where a user's outbox for a match is kept.
export function storeKeyFor(user, match) {
  return PREFIX + encodeURIComponent(user) + "." + match;
}

// The match a storage key belongs to, if it is `user`'s outbox (null otherwise).
export function matchOfKey(key, user) {
  const head = PREFIX + encodeURIComponent(user) + ".";
  if (typeof key !== "string" || key.indexOf(head) !== 0) return null;
  const match = key.slice(head.length);
  return /^[0-9]+$/.test(match) ? match : null;
}

// A number, or null (isFinite(null) is true: not good enough for a version).
export function known(v) {
  return typeof v === "number" && isFinite(v) ? v : null;
}

// One kept item as this outbox reads it: anything unreadable is dropped, a missing or
// unknown state is "waiting".
function readItem(raw) {
  if (!raw || typeof raw !== "object" || typeof raw.id !== "string" || typeof raw.action !== "string") return null;
  const fields = Array.isArray(raw.fields) ? raw.fields.filter(function (p) {
    return Array.isArray(p) && typeof p[0] === "string" && typeof p[1] === "string";
  }) : [];
  const item = Object.assign({}, raw, { fields: fields });
  if (STATES.indexOf(item.state) < 0) item.state = "waiting";
  if (typeof item.bumps !== "number") item.bumps = BUMPS[item.kind] || 0;
  if (typeof item.message !== "string") item.message = "";
  return item;
}

// The outbox data kept as `text` (JSON), or an empty one.
export function parseData(text) {
  let data = null;
  try { data = JSON.parse(text || "null"); } catch (e) { data = null; }
  if (!data || !Array.isArray(data.items)) return { items: [], seen: null };
  return { items: data.items.map(readItem).filter(Boolean), seen: data.seen || null };
}

// `user`'s outboxes in `storage`: load, save and list them by match.
export function openStore(storage, user) {
  return {
    user: user,
    load: function (match) { return parseData(storage.getItem(storeKeyFor(user, match))); },
    // Throws when the storage is full (the caller falls back to a plain post).
    save: function (match, data) {
      const key = storeKeyFor(user, match);
      if (data.items.length === 0 && !data.seen) storage.removeItem(key);
      else storage.setItem(key, JSON.stringify(data));
    },
    // The matches with an outbox, in storage order.
    matches: function () {
      const out = [];
      for (let i = 0; i < storage.length; i++) {
        const match = matchOfKey(storage.key(i), user);
        if (match !== null) out.push(match);
      }
      return out;
    }
  };
}

// Every outbox of the store's user: [{match, data}].
export function loadAll(store) {
  return store.matches().map(function (match) { return { match: match, data: store.load(match) }; });
}

// ------------------------------------------------------------------------ order

// A refused or conflicting item waits for the supervisor (Edit, Discard, Send again).
export function needsPerson(item) {
  return item.state === "refused" || item.state === "conflict";
}

// What may be sent now: the first item of each match, when it waits; oldest first.
export function sendable(all) {
  return all
    .filter(function (o) { return o.data.items.length > 0 && !needsPerson(o.data.items[0]); })
    .map(function (o) { return { match: o.match, item: o.data.items[0] }; })
    .sort(function (x, y) { return (x.item.at || 0) - (y.item.at || 0); });
}

// How many items wait, over all matches or in `match` only: {total, waiting, refused,
// conflict, hands}.
export function counts(all, match) {
  const out = { total: 0, waiting: 0, refused: 0, conflict: 0, hands: 0 };
  all.forEach(function (o) {
    if (match !== undefined && o.match !== match) return;
    o.data.items.forEach(function (item) {
      out.total += 1;
      out[item.state] += 1;
      if (item.kind === "hand") out.hands += 1;
    });
  });
  return out;
}

// The items that need the supervisor, over all matches: [{match, item}].
export function needingPerson(all) {
  const out = [];
  all.forEach(function (o) {
    o.data.items.forEach(function (item) { if (needsPerson(item)) out.push({ match: o.match, item: item }); });
  });
  return out;
}

// ------------------------------------------------------------------------ numbering

// The version the match will have once everything kept is recorded (null: unknown, e.g.
// before the start, where no form carries one). `pageVersion`: the page's (NaN: none).
export function nextVersion(data, pageVersion) {
  const last = data.items[data.items.length - 1];
  if (last && known(last.base) !== null) return last.base + last.bumps;
  const seen = data.seen ? known(data.seen.version) : null;
  const page = known(pageVersion);
  if (page === null || seen === null) return page === null ? seen : page;
  // A copy of the page kept offline may be older than what this phone has sent since.
  return Math.max(page, seen);
}

// The number of the next new hand, counting the kept ones (NaN: unknown).
export function nextHand(data, pageHand) {
  for (let i = data.items.length - 1; i >= 0; i--) {
    if (data.items[i].kind === "hand" && data.items[i].hand) return data.items[i].hand + 1;
  }
  const seen = data.seen && data.seen.hand ? data.seen.hand + 1 : NaN;
  if (isFinite(pageHand) && !(seen > pageHand)) return pageHand;
  return seen;
}

export function valueIn(fields, name) {
  for (let i = 0; i < fields.length; i++) if (fields[i][0] === name) return fields[i][1];
  return null;
}

// A new item for a post of kind `k` ({kind, path, number}) with `fields`, numbered after
// the items kept in `data`; `page`: the page's version and hand number; every item gets its
// own idempotency key (never the page's: a saved copy of the page may carry a used one).
export function newItem(k, fields, data, page, newId, now) {
  const item = {
    id: newId(), kind: k.kind, action: k.path, number: k.number, fields: fields, key: newId(),
    base: nextVersion(data, page.version), bumps: BUMPS[k.kind] || 0,
    hand: k.kind === "hand" ? nextHand(data, page.hand) : null,
    summary: "", state: "waiting", message: "", at: now, server: null
  };
  if (item.base === null) {
    const typed = valueIn(fields, "expected_version");
    item.base = typed && typed.trim() !== "" ? known(Number(typed)) : null;
  }
  return item;
}

// An item kept by the first outbox may have no key (it gave keys to hands only): it gets
// one, saved before it is sent, so that every resend carries the same.
export function ensureKey(item, newId) {
  if (typeof item.key === "string" && item.key.length >= 1 && item.key.length <= 200) return false;
  item.key = newId();
  return true;
}

// A refused item, changed by the supervisor: it keeps its place and its version, and gets
// a new key (the server may remember the refused request under the old one).
export function applyEdit(item, fields, newId) {
  item.fields = fields;
  item.state = "waiting";
  item.message = "";
  item.server = null;
  item.key = newId();
}

// The form body of an item, as [name, value] pairs: its fields as typed, on the version and
// with the key it is sent with (the key added when the form had none).
export function bodyFields(item, csrf) {
  const out = [["csrf", csrf]];
  let keyed = false;
  item.fields.forEach(function (pair) {
    let value = pair[1];
    if (pair[0] === "csrf") return;
    if (pair[0] === "expected_version" && known(item.base) !== null) value = String(item.base);
    if (pair[0] === "idempotency_key") { value = item.key; keyed = true; }
    out.push([pair[0], value]);
  });
  if (!keyed && item.key) out.push(["idempotency_key", item.key]);
  return out;
}

// What this phone knows the server has after `item` was recorded (`was`: known before).
export function seenAfter(item, was) {
  was = was || {};
  return {
    version: known(item.base) !== null ? item.base + item.bumps : known(was.version),
    hand: item.kind === "hand" && known(item.hand) !== null ? item.hand : known(was.hand)
  };
}

// Every item waiting again, numbered from the match as the server has it now: its version
// and the number of its next hand (NaN: unknown, the hands keep theirs).
export function renumber(items, version, hand) {
  let v = version;
  items.forEach(function (item) {
    item.state = "waiting";
    item.message = "";
    item.server = null;
    item.base = v;
    v += item.bumps;
    if (item.kind === "hand" && isFinite(hand)) item.hand = hand++;
  });
}

// Outbox `data` once its first item is recorded: taken out, what the server has now noted,
// the items after it renumbered from the server's `version` (and a hand's `number`) where
// its answer said them: a hand's totals, a lineup's page (a lineup moves the version on
// only when it changes who sits). NaN: the item's own bumps and number are the truth.
export function afterRecorded(data, version, number) {
  const item = data.items.shift();
  if (!item) return;
  data.seen = seenAfter(item, data.seen);
  const hand = known(number);
  if (hand !== null) data.seen.hand = hand;
  if (known(version) === null) return;
  data.seen.version = version;
  renumber(data.items, version, hand !== null ? hand + 1 : NaN);
}

// Takes item `id` out of `data` (null: not there) and renumbers those after it.
export function removeItem(data, id) {
  const index = data.items.findIndex(function (item) { return item.id === id; });
  if (index < 0) return null;
  const gone = data.items.splice(index, 1)[0];
  // The items after it were numbered as if it would be recorded.
  data.items.slice(index).forEach(function (item) {
    if (known(item.base) !== null) item.base -= gone.bumps;
    if (gone.kind === "hand" && item.kind === "hand" && item.hand) item.hand -= 1;
  });
  return gone;
}

// `data` after the server's answer `result` ({outcome, message, server}) to its first item
// `id`: "recorded" (and "duplicate", a repeated key's first answer) takes it out (the
// server's `version` and hand `number` after it: afterRecorded), "refused" and "conflict"
// keep it for the supervisor, anything else keeps it waiting. Whether `data` changed.
export function settle(data, id, result, version, number) {
  const head = data.items[0];
  if (!head || head.id !== id) return false;
  if (result.outcome === "recorded" || result.outcome === "duplicate") {
    afterRecorded(data, version, number);
    return true;
  }
  if (result.outcome === "refused" || result.outcome === "conflict") {
    head.state = result.outcome;
    head.message = result.message || "";
    head.server = result.server || null;
    return true;
  }
  return false;
}
