// The console's service worker (served as /supervise/sw.js, scope /supervise): keeps the
// supervisor's pages and the site's assets so that a reload at a table without Wi-Fi still
// shows the match, and the outbox (static/outbox/, from localStorage) what is waiting to be sent.
//
// - Network first, always: the server is the truth whenever it answers. The cache is only
//   a fallback when the network fails (or has not answered a page in 10 s).
// - Only GETs: pages navigated to under /supervise, and /static/ assets. A POST is never
//   touched (the outbox, static/outbox/, keeps and resends those itself).
// - Pages are private: they are kept only for the session that saw them. A page from a new
//   session (another CSRF token: a new login, maybe someone else) first empties the page
//   cache, and a /supervise page answered with a redirect (to the login: the session is
//   over) empties it. A log-out from any page removes the caches and this worker: session.js
//   before it posts, and the answer's `Clear-Site-Data: "cache", "storage"`.
"use strict";

var PAGES = "spades-im-pages-v1";
var ASSETS = "spades-im-assets-v1";
// Where the current session's token is kept, inside PAGES (not a real page).
var SESSION_KEY = "/supervise/__session__";
var PAGE_TIMEOUT = 10000;
var PRECACHE = [
  "/static/style.css",
  "/static/print.css",
  "/static/console.css",
  "/static/console.js",
  "/static/outbox/main.js",
  "/static/outbox/browser.js",
  "/static/outbox/queue.js",
  "/static/outbox/transport.js",
  "/static/outbox/ui.js",
  "/static/outbox/words.js",
  "/static/session.js",
  "/static/favicon.svg",
  "/static/rules.wasm",
  // The hand form's preview and the engine it asks (ES modules).
  "/static/console/preview.js",
  "/static/console/form.js",
  "/static/console/engine.js"
];

self.addEventListener("install", function (event) {
  // Assets the first page loaded before the worker existed: a reload offline needs them.
  event.waitUntil(
    caches.open(ASSETS).then(function (cache) {
      return cache.addAll(PRECACHE);
    }).catch(function () {}).then(function () {
      return self.skipWaiting();
    })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(staleCaches(names).map(function (n) { return caches.delete(n); }));
    }).then(function () { return self.clients.claim(); })
  );
});

// This site's caches of an older version of this worker.
function staleCaches(names) {
  return names.filter(function (n) {
    return n.indexOf("spades-im-") === 0 && n !== PAGES && n !== ASSETS;
  });
}

function isPage(url, request) {
  return request.mode === "navigate" &&
    (url.pathname === "/supervise" || url.pathname.indexOf("/supervise/") === 0) &&
    url.pathname !== "/supervise/sw.js";
}

// What this worker does with a request: "page", "asset", or null (the network, untouched:
// a POST, the API, fetches of pages by scripts, other sites).
function routeOf(request) {
  if (request.method !== "GET") return null;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return null;
  if (isPage(url, request)) return "page";
  if (url.pathname.indexOf("/static/") === 0) return "asset";
  return null;
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var route = routeOf(request);
  if (route === "page") {
    event.respondWith(page(event, request));
  } else if (route === "asset") {
    event.respondWith(asset(event, request));
  }
});

// One change of the page cache at a time: a purge must not race a store.
var queue = Promise.resolve();
function serially(task) {
  queue = queue.then(task, task).catch(function () {});
  return queue;
}

function purgePages() {
  return serially(function () { return caches.delete(PAGES); });
}

// The session's CSRF token in a page ("" when there is none: not a logged-in page).
function tokenOf(html) {
  var m = /name="csrf" value="([^"]*)"/.exec(html);
  return m ? m[1] : "";
}

// Whether an answer may be kept as a page: a plain 200 HTML page of this site.
function keepable(response) {
  if (response.status !== 200 || response.type !== "basic" || response.redirected) return false;
  var type = response.headers.get("Content-Type") || "";
  return type.indexOf("text/html") === 0;
}

// Keeps a logged-in page for its session; a page of another session empties the cache first.
function storePage(key, response) {
  if (!keepable(response)) return Promise.resolve(false);
  return response.clone().text().then(function (html) {
    var token = tokenOf(html);
    if (!token) return false;
    return serially(function () {
      return caches.open(PAGES).then(function (cache) {
        return cache.match(SESSION_KEY).then(function (kept) {
          return kept ? kept.text() : null;
        }).then(function (keptToken) {
          if (keptToken === token) return cache;
          return caches.delete(PAGES).then(function () {
            return caches.open(PAGES);
          }).then(function (fresh) {
            return fresh.put(SESSION_KEY, new Response(token)).then(function () {
              return fresh;
            });
          });
        }).then(function (target) {
          return target.put(key, response);
        });
      });
    }).then(function () { return true; });
  });
}

function withTimeout(promise, ms) {
  return new Promise(function (resolve, reject) {
    var timer = setTimeout(function () { reject(new Error("timeout")); }, ms);
    promise.then(function (v) { clearTimeout(timer); resolve(v); },
      function (e) { clearTimeout(timer); reject(e); });
  });
}

function page(event, request) {
  var key = request.url.split("#")[0];
  var network = fetch(request).then(function (response) {
    var kept = response.type === "opaqueredirect" || response.redirected
      // A logged-in page that redirects: the session is over (to the login) or the page is
      // gone; nothing of it stays.
      ? purgePages()
      : storePage(key, response.clone()).catch(function () {});
    // After a timeout the answer may come once the event is over: store it all the same.
    try { event.waitUntil(kept); } catch (e) { /* the worker stays up a little anyway */ }
    return response;
  });
  return withTimeout(network, PAGE_TIMEOUT).catch(function () {
    return caches.open(PAGES).then(function (cache) {
      return cache.match(key);
    }).then(function (kept) {
      if (kept) return kept;
      // Slow rather than down: keep waiting for the server.
      return network.catch(function () { return offlinePage(); });
    });
  });
}

function asset(event, request) {
  return fetch(request).then(function (response) {
    if (response.ok && response.type === "basic") {
      var copy = response.clone();
      event.waitUntil(caches.open(ASSETS).then(function (cache) {
        return cache.put(request, copy);
      }).catch(function () {}));
    }
    return response;
  }).catch(function (error) {
    return caches.open(ASSETS).then(function (cache) {
      return cache.match(request, { ignoreSearch: true });
    }).then(function (kept) {
      if (kept) return kept;
      throw error;
    });
  });
}

// A page never visited on this phone, asked for without a connection.
function offlinePage() {
  var body = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">" +
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">" +
    "<title>Offline · spades-im</title><link rel=\"stylesheet\" href=\"/static/style.css\">" +
    "</head><body><main><h1 id=\"offline\">No connection</h1>" +
    "<p>This page was not opened on this phone while it was online, so it cannot be shown now. " +
    "Pages of matches you opened earlier still work; anything you record there is kept on " +
    "this phone and sent when the connection returns.</p>" +
    "<p><a href=\"/supervise\">Tonight's matches</a></p>" +
    "</main></body></html>";
  return new Response(body, {
    status: 503,
    headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" }
  });
}

// From the outbox (static/outbox/main.js): keep the page it runs in (loaded before this worker controlled it), or
// keep the server's page again after a send. Answers on the message's port when done.
self.addEventListener("message", function (event) {
  var data = event.data || {};
  var port = event.ports && event.ports[0];
  var done = function (ok) { if (port) port.postMessage({ ok: ok }); };
  var work;
  if (data.type === "keep-page" && typeof data.url === "string") {
    var url = new URL(data.url, self.location.origin);
    if (url.origin !== self.location.origin || !isPage(url, { mode: "navigate" })) {
      done(false);
      return;
    }
    var key = url.href.split("#")[0];
    work = caches.open(PAGES).then(function (cache) {
      return cache.match(key);
    }).then(function (kept) {
      if (kept) return true;
      return fetch(key, { credentials: "same-origin", redirect: "manual" }).then(function (response) {
        return storePage(key, response);
      });
    });
  } else if (data.type === "refresh-page" && typeof data.url === "string") {
    // The outbox sent something while the page stayed: keep the server's page as it is now.
    var fresh = new URL(data.url, self.location.origin);
    if (fresh.origin !== self.location.origin || !isPage(fresh, { mode: "navigate" })) {
      done(false);
      return;
    }
    var freshKey = fresh.href.split("#")[0];
    work = fetch(freshKey, { credentials: "same-origin", redirect: "manual" }).then(function (response) {
      return storePage(freshKey, response);
    });
  } else {
    return;
  }
  event.waitUntil(work.then(done, function () { done(false); }));
});

// The unit tests (Node, tests/js/sw.test.js) load this file with a stand-in `self` and
// `caches`; in a worker `module` is not defined.
if (typeof module === "object" && module.exports) {
  module.exports = {
    PAGES: PAGES, ASSETS: ASSETS, PRECACHE: PRECACHE, staleCaches: staleCaches, routeOf: routeOf,
    keepable: keepable, tokenOf: tokenOf, storePage: storePage, withTimeout: withTimeout,
    page: page, asset: asset, offlinePage: offlinePage
  };
}
