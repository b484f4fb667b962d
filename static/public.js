// Public pages: live pages refresh themselves. An element with data-poll="URL" and
// data-key="..." is reloaded when the JSON at URL has a different value in data-field
// (the match's version, the scoreboard's key). Countdowns (data-ends) tick every second and
// times (<time data-local>) are shown in the reader's time zone. Everything works without
// this file: the page shows the same numbers and a <noscript> refresh reloads it.
(function () {
  'use strict';

  function pad(n) { return n < 10 ? '0' + n : String(n); }

  function localTimes() {
    var els = document.querySelectorAll('time[data-local]');
    for (var i = 0; i < els.length; i++) {
      var d = new Date(els[i].getAttribute('datetime'));
      if (!isNaN(d.getTime())) {
        els[i].textContent = d.toLocaleString([], {
          weekday: 'short', hour: '2-digit', minute: '2-digit'
        });
        els[i].title = d.toString();
      }
    }
  }

  function tick() {
    var els = document.querySelectorAll('[data-ends]');
    for (var i = 0; i < els.length; i++) {
      var ends = Date.parse(els[i].getAttribute('data-ends'));
      if (isNaN(ends)) { continue; }
      var left = Math.round((ends - Date.now()) / 1000);
      if (left <= 0) {
        els[i].textContent = 'time is up';
        els[i].classList.add('expired');
      } else {
        var h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
        els[i].textContent = (h > 0 ? h + ':' + pad(m) : String(m)) + ':' + pad(s) + ' left';
        els[i].classList.toggle('soon', left < 300);
      }
    }
  }

  function poll(root) {
    var url = root.getAttribute('data-poll');
    var key = root.getAttribute('data-key');
    var field = root.getAttribute('data-field') || 'version';
    var every = (parseInt(root.getAttribute('data-every'), 10) || 5) * 1000;
    var failures = 0;

    function later() {
      var wait = document.hidden ? every * 6 : every * Math.min(1 + failures, 6);
      window.setTimeout(check, wait);
    }

    function check() {
      fetch(url, { headers: { 'Accept': 'application/json' }, cache: 'no-store', credentials: 'omit' })
        .then(function (r) {
          if (!r.ok) { throw new Error('HTTP ' + r.status); }
          return r.json();
        })
        .then(function (data) {
          failures = 0;
          root.classList.remove('stale');
          if (String(data[field]) !== key) {
            window.location.reload();
            return;
          }
          later();
        })
        .catch(function () {
          failures += 1;
          root.classList.add('stale');
          later();
        });
    }

    later();
  }

  function start() {
    localTimes();
    if (document.querySelector('[data-ends]')) {
      tick();
      window.setInterval(tick, 1000);
    }
    var root = document.querySelector('[data-poll]');
    if (root && window.fetch) { poll(root); }
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
