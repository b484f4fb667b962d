// Public pages (an ES module): live pages update in place. An element with data-poll="URL" and
// data-key="..." is replaced by the same element of the page as served now when the JSON at
// URL has a different value in data-field (the match's version, the scoreboard's key), and a
// changed score is said in the page's #live-announce (aria-live="polite"): "Nil Rebels 212,
// Book Club 161, hand 9". Countdowns (data-ends) tick every second. Times are left as the
// server wrote them (the league's zone, 24-hour, like the schedule). The TV's strip of
// latest results ([data-page-every]) shows as many as fit and pages through the rest.
// Everything works without this file: the page shows the same numbers and a <noscript>
// refresh reloads it.
function pad(n) { return n < 10 ? '0' + n : String(n); }

// A countdown's words for `left` seconds: "12:05 left", "1:02:03 left", "time is up";
// `soon` under 5 minutes.
export function countdown(left) {
  if (left <= 0) { return { text: 'time is up', expired: true, soon: false }; }
  var h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
  return {
    text: (h > 0 ? h + ':' + pad(m) : String(m)) + ':' + pad(s) + ' left',
    expired: false,
    soon: left < 300
  };
}

function tick() {
  var els = document.querySelectorAll('[data-ends]');
  for (var i = 0; i < els.length; i++) {
    var ends = Date.parse(els[i].getAttribute('data-ends'));
    if (isNaN(ends)) { continue; }
    var shown = countdown(Math.round((ends - Date.now()) / 1000));
    els[i].textContent = shown.text;
    if (shown.expired) {
      els[i].classList.add('expired');
    } else {
      els[i].classList.toggle('soon', shown.soon);
    }
  }
}

// The strip's pages: the items (their `widths`, in order) cut into runs that fit `room`
// with `gap` between them; an item wider than the room is a page of its own.
export function stripPages(widths, room, gap) {
  var pages = [];
  var page = [];
  var used = 0;
  for (var i = 0; i < widths.length; i++) {
    var need = page.length ? used + gap + widths[i] : widths[i];
    if (page.length && need > room) {
      pages.push(page);
      page = [];
      need = widths[i];
    }
    page.push(i);
    used = need;
  }
  if (page.length) { pages.push(page); }
  return pages;
}

// Pages the TV's strip of latest results: one page shown at a time, the next every
// data-page-every seconds (a page, not a slide: nothing moves). Started again after each
// update of the board (the strip is new then).
var stripTimer = null;
function pageStrip() {
  window.clearInterval(stripTimer);
  var strip = document.querySelector('[data-page-every]');
  var list = strip ? strip.querySelector('ul') : null;
  if (!list) { return; }
  var items = list.children;
  for (var i = 0; i < items.length; i++) { items[i].hidden = false; }
  var widths = [];
  for (var w = 0; w < items.length; w++) { widths.push(items[w].getBoundingClientRect().width); }
  var gap = parseFloat(window.getComputedStyle(list).columnGap) || 0;
  var pages = stripPages(widths, list.clientWidth, gap);
  strip.setAttribute('data-pages', String(pages.length));
  for (var p = 0; p < pages.length; p++) {
    for (var k = 0; k < pages[p].length; k++) { items[pages[p][k]].setAttribute('data-page', String(p)); }
  }
  var shown = 0;
  var show = function () {
    for (var j = 0; j < items.length; j++) {
      items[j].hidden = items[j].getAttribute('data-page') !== String(shown);
    }
    strip.setAttribute('data-showing', String(shown));
  };
  show();
  if (pages.length < 2) { return; }
  var every = (parseInt(strip.getAttribute('data-page-every'), 10) || 8) * 1000;
  stripTimer = window.setInterval(function () {
    shown = (shown + 1) % pages.length;
    show();
  }, every);
}

// The wait before the next reading, in ms: data-every seconds (5 by default), longer after
// each failure (up to 6 times), 6 times longer while the page is hidden.
export function pollWait(everyAttr, failures, hidden) {
  var every = (parseInt(everyAttr, 10) || 5) * 1000;
  return hidden ? every * 6 : every * Math.min(1 + failures, 6);
}

// Whether the JSON says the page shows the latest already (its data-key).
export function unchanged(data, field, key) {
  return String(data[field]) === key;
}

// The announcement for what changed between two readings of the JSON: on the match page
// one match (`data` is the match), on the scoreboard every match in play (`data.matches`)
// and the matches called to their tables (`data.calling`, keyed "call-" and the id).
// Only a changed score or a new call is announced, never a version bump alone (a check-in,
// a rating).
export function scores(data) {
  var list = data.matches || [data];
  var out = {};
  for (var i = 0; i < list.length; i++) {
    var m = list[i];
    var hands = typeof m.hands === 'number' ? m.hands : (m.hands || []).length;
    out[m.id] = {
      text: m.team_a.name + ' ' + m.a.score + ', ' + m.team_b.name + ' ' + m.b.score +
        ', hand ' + hands + (m.status === 'complete' || m.status === 'forfeit' ? ', final' : ''),
      score: m.a.score + ':' + m.b.score + ':' + (m.status || '')
    };
  }
  var calls = data.calling || [];
  for (var j = 0; j < calls.length; j++) {
    var c = calls[j];
    out['call-' + c.id] = {
      text: 'Now calling ' + tableName(c.table) + ': ' + c.team_a + ' v ' + c.team_b,
      score: 'call:' + (c.table || '')
    };
  }
  return out;
}

// A table's name as people say it: "Table 3" for "3" (as domain::table_name::shown).
export function tableName(name) {
  if (!name) { return 'a table'; }
  return /^table/i.test(name) ? name : 'Table ' + name;
}

export function announcement(before, after) {
  var said = [];
  for (var id in after) {
    if (!Object.prototype.hasOwnProperty.call(after, id)) { continue; }
    // A match just started (not in `before`) has no new score to say; a new call, or a
    // call moved to another table, is said.
    var call = id.indexOf('call-') === 0;
    if ((before[id] || call) && (!before[id] || before[id].score !== after[id].score)) {
      said.push(after[id].text);
    }
  }
  return said.join('. ');
}

// Replaces the live part of the page by the same part of the page as the server renders it
// now (one renderer: the page cache serves it), keeping focus and open <details>.
function swap(root, html) {
  var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById(root.id);
  if (!fresh) { return false; }
  // Focus comes back to the same element: by its id, else by its place among the live
  // part's focusable elements (the cards' links have no id).
  var focusable = 'a[href], button, summary, input, select, textarea, [tabindex]';
  var active = document.activeElement;
  var focusedId = '';
  var focusedAt = -1;
  if (active && active !== root && root.contains(active)) {
    focusedId = active.id;
    focusedAt = Array.prototype.indexOf.call(root.querySelectorAll(focusable), active);
  }
  var scrolled = [];
  var scrollers = root.querySelectorAll('.scroll, .bracket-scroll');
  for (var s = 0; s < scrollers.length; s++) { scrolled.push(scrollers[s].scrollLeft); }
  var open = [];
  var details = root.querySelectorAll('details[open][id]');
  for (var i = 0; i < details.length; i++) { open.push(details[i].id); }
  for (var a = 0; a < fresh.attributes.length; a++) {
    root.setAttribute(fresh.attributes[a].name, fresh.attributes[a].value);
  }
  if (!fresh.hasAttribute('data-poll')) { root.removeAttribute('data-poll'); }
  // A loop rather than replaceChildren: older TV browsers lack it.
  while (root.firstChild) { root.removeChild(root.firstChild); }
  while (fresh.firstChild) { root.appendChild(document.adoptNode(fresh.firstChild)); }
  for (var j = 0; j < open.length; j++) {
    var d = document.getElementById(open[j]);
    if (d) { d.open = true; }
  }
  var now = root.querySelectorAll('.scroll, .bracket-scroll');
  for (var k = 0; k < now.length && k < scrolled.length; k++) { now[k].scrollLeft = scrolled[k]; }
  var again = focusedId ? document.getElementById(focusedId) : null;
  if (!again && focusedAt >= 0) { again = root.querySelectorAll(focusable)[focusedAt] || null; }
  if (again) {
    again.focus({ preventScroll: true });
  } else if (focusedAt >= 0 || focusedId) {
    // The element is gone: focus the live part itself rather than losing it to <body>.
    root.setAttribute('tabindex', '-1');
    root.focus({ preventScroll: true });
  }
  tick();
  pageStrip();
  return true;
}

function poll(root) {
  var url = root.getAttribute('data-poll');
  var field = root.getAttribute('data-field') || 'version';
  var live = document.getElementById('live-announce');
  var failures = 0;
  var known = null;
  // WCAG 2.2.2: the reader may pause the updates (#pause-live, shown only with this file).
  var paused = false;
  var busy = false;
  var timer = null;
  var pause = document.getElementById('pause-live');
  if (pause) {
    pause.parentNode.hidden = false;
    pause.addEventListener('click', function () {
      paused = !paused;
      pause.textContent = paused ? 'Resume live updates' : 'Pause live updates';
      if (!paused && !busy) {
        window.clearTimeout(timer);
        check();
      }
    });
  }

  function later() {
    busy = false;
    if (!root.hasAttribute('data-poll')) {
      // Nothing more to follow (the match is over): nothing to pause either.
      if (pause) { pause.parentNode.hidden = true; }
      return;
    }
    // Read each time: a scheduled match polls slowly, and faster once it starts.
    timer = window.setTimeout(check, pollWait(root.getAttribute('data-every'), failures, document.hidden));
  }

  function failed() {
    failures += 1;
    root.classList.add('stale');
    later();
  }

  function check() {
    if (paused) { return; }
    busy = true;
    fetch(url, { headers: { 'Accept': 'application/json' }, cache: 'no-store', credentials: 'omit' })
      .then(function (r) {
        if (!r.ok) { throw new Error('HTTP ' + r.status); }
        return r.json();
      })
      .then(function (data) {
        var now = scores(data);
        var before = known;
        root.setAttribute('data-polled', '1');
        if (paused) { busy = false; return; }
        if (unchanged(data, field, root.getAttribute('data-key'))) {
          known = now;
          failures = 0;
          root.classList.remove('stale');
          later();
          return;
        }
        return fetch(window.location.href, { headers: { 'Accept': 'text/html' }, cache: 'no-store' })
          .then(function (r) {
            if (!r.ok) { throw new Error('HTTP ' + r.status); }
            return r.text();
          })
          .then(function (html) {
            // Paused while the page was on its way: leave the page as it is.
            if (paused) { busy = false; return; }
            if (!swap(root, html)) { throw new Error('no live part in the page'); }
            // Only now is the change shown (a failed swap is said at the retry).
            known = now;
            failures = 0;
            root.classList.remove('stale');
            var said = before ? announcement(before, now) : '';
            if (said && live) { live.textContent = said; }
            later();
          });
      })
      .catch(failed);
  }

  // Back from a hidden tab or a sleeping screen: read at once.
  document.addEventListener('visibilitychange', function () {
    if (!document.hidden && !paused && !busy) {
      window.clearTimeout(timer);
      check();
    }
  });
  check();
}

// The calendar apps' address of a feed at `path` on `host`: `webcal://`, which a phone
// opens in its calendar as a subscription (kept up to date) instead of a one-off import.
export function webcalUrl(host, path) {
  return 'webcal://' + host + path;
}

// "Subscribe in your calendar app" links ([data-webcal]) get this host's address and show;
// without this file they stay hidden (the page is the same for every host it is cached for).
function subscribeLinks() {
  var links = document.querySelectorAll('a[data-webcal]');
  for (var i = 0; i < links.length; i++) {
    links[i].href = webcalUrl(window.location.host, links[i].getAttribute('data-webcal'));
    links[i].hidden = false;
  }
}

function start() {
  subscribeLinks();
  pageStrip();
  window.addEventListener('resize', pageStrip);
  if (document.querySelector('[data-ends]')) {
    tick();
    window.setInterval(tick, 1000);
  }
  var root = document.querySelector('[data-poll]');
  if (root && window.fetch) { poll(root); }
}

// A module runs once the page is parsed; the unit tests (Node, tests/js/public.test.js)
// take the functions that touch no page, and have no page.
if (typeof document === 'object') { start(); }
