// The supervisor console's enhancements (an ES module); everything works without them.
// 1. Counts down the match clock from data-ends-at.
// 2. Flags, as you type, tricks that do not sum to 13 (the server checks again).
// 3. Gives a refused post's error summary the focus (where `autofocus` was not honoured),
//    and makes its links move the focus to the field, with its label or legend in view.
// 4. Student ID fields of a lineup ([data-card-reader]): a USB or Bluetooth card reader
//    types the digits then Enter; the magnetic stripe's sentinels (";", "%", "?") are taken
//    off, and Enter in the first seat's field moves on to the second instead of sending.
//    Where the browser has BarcodeDetector, "Scan card" reads a card's barcode with the
//    camera (nothing downloaded); elsewhere the button stays hidden.
// 5. After a recorded hand the console opens at the next hand's form, its first bidder's bid
//    focused: the server sends the page to #next-hand, and where the outbox sent the hand
//    (it reloads the console without the anchor) a note kept across the reload says so.
// The page's part; the functions after it touch no page (tests/js/console.test.js).
function bindPage() {
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

  var next = document.getElementById("next-hand");
  var handForm = document.getElementById("hand-form");
  var noteKey = "spades-next-hand:" + window.location.pathname;
  var noted = false;
  try { noted = window.sessionStorage.getItem(noteKey) === "1"; window.sessionStorage.removeItem(noteKey); } catch (e) { noted = false; }
  if (handForm && next) {
    handForm.addEventListener("submit", function () {
      try { window.sessionStorage.setItem(noteKey, "1"); } catch (e) { /* private mode: the anchor still works */ }
    });
  }
  if (!summary && next && (noted || window.location.hash === "#next-hand")) {
    if (window.location.hash !== "#next-hand") {
      next.scrollIntoView({ block: "start" });
      if (history.replaceState) history.replaceState(null, "", "#next-hand");
    }
    var first = document.getElementById("first-tag");
    var seat = first ? first.closest("fieldset") : null;
    var bid = (seat || next).querySelector("select");
    if (bid) {
      bid.focus({ preventScroll: true });
      // Arriving at #next-hand the browser focuses the section itself once the page has
      // loaded (after this script): it hands the focus on to the bid, that once.
      next.addEventListener("focus", function () { bid.focus({ preventScroll: true }); }, { once: true });
    }
  }

  var clock = document.getElementById("time-left");
  if (clock && clock.dataset.endsAt && !clock.dataset.called) {
    var ends = Date.parse(clock.dataset.endsAt);
    // The server's time when it made the page, and the phone's when it got it: the phone's
    // own clock may run ahead of the server's, or behind.
    var served = Date.parse(clock.dataset.now), loaded = Date.now();
    // A phone clock behind the server's would show more time than the limit: never more.
    var most = Number(clock.dataset.limitMinutes) * 60;
    var tick = function () {
      var left = secondsLeft(ends, served, loaded, Date.now());
      if (isNaN(left)) return;
      var shown = clockWords(left, most);
      clock.textContent = shown.text;
      if (shown.expired) {
        if (clock.parentNode) clock.parentNode.classList.add("expired");
        return;
      }
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
      var values = Array.prototype.map.call(inputs, function (input) { return input.value; });
      var shown = tricksCheck(values, !!(misdeal && misdeal.checked));
      out.classList.remove("bad", "good");
      if (shown.hidden) { out.hidden = true; return; }
      out.hidden = false;
      out.textContent = shown.text;
      if (shown.state) out.classList.add(shown.state);
    };
    form.addEventListener("input", check);
    form.addEventListener("change", check);
    // The server's own message about the sum is shown already, until something changes.
    if (!form.querySelector("[data-field=tricks]")) check();
  }

  var cardFields = document.querySelectorAll("input[data-card-reader]");
  Array.prototype.forEach.call(cardFields, function (field) {
    field.addEventListener("change", function () { field.value = cardText(field.value); });
    field.addEventListener("keydown", function (event) {
      if (event.key !== "Enter") return;
      field.value = cardText(field.value);
      var next = nextCardField(field);
      if (next && next.value.trim() === "") {
        event.preventDefault();
        next.focus();
      }
    });
  });

  // The next student ID field of the same form (the second seat's), if any.
  function nextCardField(field) {
    var all = field.form ? field.form.querySelectorAll("input[data-card-reader]") : [];
    var i = Array.prototype.indexOf.call(all, field);
    return i >= 0 && i + 1 < all.length ? all[i + 1] : null;
  }

  if ("BarcodeDetector" in window && navigator.mediaDevices && navigator.mediaDevices.getUserMedia) {
    Array.prototype.forEach.call(document.querySelectorAll("button[data-scan-for]"), function (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        var field = document.getElementById(button.getAttribute("data-scan-for"));
        if (field) scanInto(field, button);
      });
    });
  }

  // Reads one barcode with the back camera into `field`, in a box under `button` with a
  // Cancel; the camera stops as soon as a code is read or the scan is cancelled.
  function scanInto(field, button) {
    var box = document.createElement("div");
    box.className = "scan-box";
    var video = document.createElement("video");
    video.setAttribute("playsinline", "");
    video.muted = true;
    var cancel = document.createElement("button");
    cancel.type = "button";
    cancel.textContent = "Cancel the scan";
    var said = document.createElement("p");
    said.setAttribute("role", "status");
    said.textContent = "Hold the card's barcode in front of the camera.";
    box.appendChild(said);
    box.appendChild(video);
    box.appendChild(cancel);
    button.parentNode.insertBefore(box, button.nextSibling);
    var stream = null;
    var done = false;
    var stop = function () {
      done = true;
      if (stream) stream.getTracks().forEach(function (t) { t.stop(); });
      if (box.parentNode) box.parentNode.removeChild(box);
    };
    cancel.addEventListener("click", function () { stop(); button.focus(); });
    var detector;
    try { detector = new window.BarcodeDetector(); } catch (e) { stop(); return; }
    navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" } }).then(function (s) {
      stream = s;
      if (done) { stop(); return; }
      video.srcObject = s;
      video.play();
      var look = function () {
        if (done) return;
        detector.detect(video).then(function (codes) {
          if (done) return;
          if (codes.length > 0 && codes[0].rawValue) {
            field.value = cardText(codes[0].rawValue);
            stop();
            var next = nextCardField(field);
            (next && next.value.trim() === "" ? next : field).focus();
            return;
          }
          window.setTimeout(look, 250);
        }, function () { window.setTimeout(look, 500); });
      };
      look();
    }, function () {
      said.textContent = "The camera could not be used: type the student ID instead.";
      if (stream) stream.getTracks().forEach(function (t) { t.stop(); });
    });
  }
}

// A student ID as a card reader types it: without the magnetic stripe's start sentinel
// (";" or "%"), end sentinel ("?") and the white space around (the server does the same).
export function cardText(typed) {
  var text = String(typed).trim();
  if (text.charAt(0) === ";" || text.charAt(0) === "%") text = text.slice(1);
  if (text.charAt(text.length - 1) === "?") text = text.slice(0, -1);
  return text.trim();
}

// The whole seconds left until `ends` (ms, by the server's clock) when the phone's clock
// says `now`, for a page the server made at `served` (its clock) and the phone got at
// `loaded` (its own): the difference of the two clocks is taken out, so a phone whose
// clock runs ahead does not call time early. Rounded up: the time is up only once it is.
export function secondsLeft(ends, served, loaded, now) {
  var offset = isNaN(served) ? 0 : served - loaded;
  return Math.ceil((ends - (now + offset)) / 1000);
}

// The match clock's words for `left` seconds, never more than the limit (`most` seconds,
// 0: none): a phone clock behind the server's would show more time than the limit.
export function clockWords(left, most) {
  if (most > 0 && left > most) left = most;
  if (left <= 0) return { text: "Time is up: finish this hand", expired: true };
  var m = Math.floor(left / 60), s = left % 60;
  return { text: m + ":" + (s < 10 ? "0" : "") + s + " left", expired: false };
}

// What the tricks typed so far say (`values`: the four seats' fields as typed): hidden
// (none typed, or a misdeal), or words and "bad", "good" or "" (not all typed yet).
export function tricksCheck(values, misdeal) {
  var sum = 0, filled = 0, bad = false;
  for (var i = 0; i < values.length; i++) {
    var v = values[i].trim();
    if (v === "") continue;
    filled++;
    if (!/^\d+$/.test(v) || Number(v) > 13) { bad = true; continue; }
    sum += Number(v);
  }
  if (misdeal || filled === 0) return { hidden: true };
  if (bad) return { text: "Tricks are whole numbers from 0 to 13", state: "bad" };
  if (filled === values.length && sum !== 13) return { text: "Tricks sum to " + sum + ", not 13", state: "bad" };
  if (sum > 13) return { text: "Tricks already sum to " + sum + ": more than 13", state: "bad" };
  if (filled === values.length) return { text: "Tricks sum to 13 ✓", state: "good" };
  return { text: "Tricks so far: " + sum + " of 13", state: "" };
}

// A module runs once the page is parsed; the unit tests (Node) have no page.
if (typeof document === "object") bindPage();
