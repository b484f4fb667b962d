// The supervisor console's enhancements; everything works without them.
// 1. Counts down the match clock from data-ends-at.
// 2. Flags, as you type, tricks that do not sum to 13 (the server checks again).
// 3. Gives a refused post's error summary the focus (where `autofocus` was not honoured),
//    and makes its links move the focus to the field, with its label or legend in view.
(function () {
  "use strict";

  var summary = document.querySelector("[data-error-summary]");
  if (summary) {
    if (document.activeElement !== summary) summary.focus();
    // The caption of a field: the legend of its group (a seat, a team's ratings), else its
    // label; what the page scrolls to so that both are in view.
    var caption = function (field) {
      var group = field.closest("fieldset");
      if (group && group.querySelector("legend")) return group.querySelector("legend");
      if (field.id) {
        var label = document.querySelector("label[for='" + field.id + "']");
        if (label) return label;
      }
      return field.closest("label") || field;
    };
    summary.addEventListener("click", function (event) {
      var link = event.target.closest ? event.target.closest("a[data-target]") : null;
      if (!link) return;
      var field = document.getElementById(link.getAttribute("data-target"));
      if (!field) return;
      // A closed <details> (the forfeit box) opens first.
      var box = field.closest("details");
      if (box && !box.open) box.open = true;
      event.preventDefault();
      // The field's caption at the top; or its message, when that is above the caption
      // (the tricks' sum, above the seats) and the message and the field fit in the window.
      var top = caption(field);
      var said = field.getAttribute("aria-describedby");
      var message = said ? document.getElementById(said) : null;
      if (message) {
        var m = message.getBoundingClientRect(), f = field.getBoundingClientRect();
        var room = window.innerHeight - 120;
        if (m.top < top.getBoundingClientRect().top && f.bottom - m.top < room) top = message;
      }
      top.scrollIntoView({ block: "start" });
      field.focus({ preventScroll: true });
      if (history.replaceState) history.replaceState(null, "", "#" + field.id);
    });
  }

  var clock = document.getElementById("time-left");
  if (clock && clock.dataset.endsAt && !clock.dataset.called) {
    var ends = Date.parse(clock.dataset.endsAt);
    // A phone clock behind the server's would show more time than the limit: never more.
    var most = Number(clock.dataset.limitMinutes) * 60;
    var tick = function () {
      var left = Math.round((ends - Date.now()) / 1000);
      if (isNaN(left)) return;
      if (most > 0 && left > most) left = most;
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
    // The server's own message about the sum is shown already, until something changes.
    if (!form.querySelector("[data-field=tricks]")) check();
  }
})();
