// The supervisor console's enhancements; everything works without them.
// 1. Counts down the match clock from data-ends-at.
// 2. Flags, as you type, tricks that do not sum to 13 (the server checks again).
// 3. Gives the ratings' error summary the focus (where `autofocus` was not honoured).
(function () {
  "use strict";

  var summary = document.getElementById("rating-error");
  if (summary && document.activeElement !== summary) summary.focus();

  var clock = document.getElementById("time-left");
  if (clock && clock.dataset.endsAt && !clock.dataset.called) {
    var ends = Date.parse(clock.dataset.endsAt);
    var tick = function () {
      var left = Math.round((ends - Date.now()) / 1000);
      if (isNaN(left)) return;
      if (left <= 0) {
        clock.textContent = "Time is up: finish this hand";
        if (clock.parentNode) clock.parentNode.classList.add("expired");
        return;
      }
      var m = Math.floor(left / 60), s = left % 60;
      clock.textContent = m + ":" + (s < 10 ? "0" : "") + s + " left";
      window.setTimeout(tick, 1000);
    };
    tick();
  }

  var form = document.getElementById("hand-form");
  var out = document.getElementById("tricks-sum");
  if (form && out) {
    var inputs = form.querySelectorAll("input[data-tricks]");
    var misdeal = document.getElementById("misdeal");
    var check = function () {
      var sum = 0, filled = 0, bad = false;
      for (var i = 0; i < inputs.length; i++) {
        var v = inputs[i].value.trim();
        if (v === "") continue;
        filled++;
        if (!/^\d+$/.test(v) || Number(v) > 13) { bad = true; continue; }
        sum += Number(v);
      }
      out.classList.remove("bad", "good");
      if ((misdeal && misdeal.checked) || filled === 0) { out.hidden = true; return; }
      out.hidden = false;
      if (bad) {
        out.textContent = "Tricks are whole numbers from 0 to 13";
        out.classList.add("bad");
      } else if (filled === inputs.length && sum !== 13) {
        out.textContent = "Tricks sum to " + sum + ", not 13";
        out.classList.add("bad");
      } else if (sum > 13) {
        out.textContent = "Tricks already sum to " + sum + ": more than 13";
        out.classList.add("bad");
      } else if (filled === inputs.length) {
        out.textContent = "Tricks sum to 13 ✓";
        out.classList.add("good");
      } else {
        out.textContent = "Tricks so far: " + sum + " of 13";
      }
    };
    form.addEventListener("input", check);
    form.addEventListener("change", check);
    check();
  }
})();
