// The header's "Log out", on every page of a logged-in user (an ES module): a log-out leaves
// nothing of the session on the phone, whichever page it was made from.
//
// The server's answer to the log-out says `Clear-Site-Data: "cache", "storage"`: the browser
// drops its HTTP cache and the site's storage, which holds the console's service worker
// (sw.js) with the pages it keeps for a reload offline (the user's name, notes, a CSRF token)
// and localStorage with the console's outbox (static/outbox/). This script does the same first,
// for a browser that ignores the header or an answer that never arrives: it empties the
// worker's caches and the outbox, then posts the form.
//
// The outbox holds what was typed on a console and has not reached the server yet (refused,
// in conflict, or waiting for the connection). Logging out deletes it, so when entries wait
// the log-out asks first; "Cancel" keeps everything (open the match's console to send or
// discard them). Without this script the form posts as always and the header clears.
export var OUTBOX = "spades-im.outbox.v1.";
var OURS = "spades-im.";
export var CACHES = "spades-im-";

// window.localStorage or sessionStorage, or null: reading it throws where it is blocked.
export function storageNamed(name) {
  try { return window[name]; } catch (e) { return null; }
}

// Entries waiting in every outbox on this phone (any user's: all are deleted).
export function waiting(storage) {
  var count = 0;
  try {
    for (var i = 0; i < storage.length; i++) {
      var key = storage.key(i);
      if (key && key.indexOf(OUTBOX) === 0) count += entriesIn(storage.getItem(key));
    }
  } catch (e) { /* storage blocked: nothing to count */ }
  return count;
}

// The entries of one outbox (0 when unreadable: it does not stop the count of the others).
function entriesIn(json) {
  try {
    var data = JSON.parse(json || "null");
    return data && Array.isArray(data.items) ? data.items.length : 0;
  } catch (e) {
    return 0;
  }
}

export function removeOurs(storage) {
  try {
    var keys = [];
    for (var i = 0; i < storage.length; i++) {
      var key = storage.key(i);
      if (key && key.indexOf(OURS) === 0) keys.push(key);
    }
    keys.forEach(function (key) { storage.removeItem(key); });
  } catch (e) { /* storage blocked: the header clears it */ }
}

// What the session left on the phone: the outbox, the worker's caches and the worker.
export function forget() {
  removeOurs(storageNamed("localStorage"));
  removeOurs(storageNamed("sessionStorage"));
  var work = [];
  if (window.caches) {
    work.push(caches.keys().then(function (names) {
      return Promise.all(names.filter(function (n) { return n.indexOf(CACHES) === 0; })
        .map(function (n) { return caches.delete(n); }));
    }));
  }
  if (navigator.serviceWorker && navigator.serviceWorker.getRegistrations) {
    work.push(navigator.serviceWorker.getRegistrations().then(function (all) {
      return Promise.all(all.map(function (r) { return r.unregister(); }));
    }));
  }
  return Promise.all(work);
}

export function sentence(n) {
  return n === 1
    ? "1 entry typed on a match console has not reached the server yet"
    : n + " entries typed on match consoles have not reached the server yet";
}

// A log-out posted from any page: asked first when entries wait, then all forgotten.
function logOut(event) {
  var form = event.target;
  if (!form || form.tagName !== "FORM" || form.getAttribute("action") !== "/logout") return;
  if (event.defaultPrevented) return;
  event.preventDefault();
  if (form.getAttribute("data-leaving")) return; // already on its way
  var n = waiting(storageNamed("localStorage"));
  if (n > 0 && !window.confirm(sentence(n) + ". Logging out deletes it from this phone. Log out anyway?")) {
    return;
  }
  form.setAttribute("data-leaving", "1");
  var go = function () { form.submit(); };
  // A slow cache must not keep anyone from logging out: the header clears it anyway.
  Promise.race([forget(), new Promise(function (r) { setTimeout(r, 1500); })]).then(go, go);
}

// A module runs once the page is parsed; the unit tests (Node, tests/js/session.test.js)
// take the functions above, and have no page.
if (typeof document === "object") document.addEventListener("submit", logOut);
