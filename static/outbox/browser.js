// What the outbox needs from the browser beyond the page: fresh keys, a form's fields, and
// the service worker (sw.js) that keeps the console's page for a reload offline.

// A random idempotency key (a UUID where the browser makes them).
export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
}

// What `form` posts, tapped with `submitter`, as [name, value] pairs (not the token: the
// current one is added when it is sent).
export function fieldsOf(form, submitter) {
  let data;
  try { data = submitter ? new FormData(form, submitter) : new FormData(form); } catch (e) {
    data = new FormData(form); // older browsers: add the button's own name=value
    if (submitter && submitter.name) data.append(submitter.name, submitter.value);
  }
  const out = [];
  data.forEach(function (value, name) { if (name !== "csrf" && typeof value === "string") out.push([name, value]); });
  return out;
}

// The worker keeps the server's page as it is now (something was sent while the page stayed).
export function refreshSavedCopy(url) {
  if (!("serviceWorker" in navigator) || !navigator.serviceWorker.controller) return;
  navigator.serviceWorker.controller.postMessage({ type: "refresh-page", url: url });
}

export function registerWorker() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/supervise/sw.js", { scope: "/supervise" }).then(function () {
    return navigator.serviceWorker.ready;
  }).then(function (registration) {
    // The page this script runs in was loaded before the worker could keep it.
    return new Promise(function (resolve) {
      const worker = registration.active;
      if (!worker || !window.MessageChannel) return resolve(false);
      const channel = new MessageChannel();
      const timer = setTimeout(function () { resolve(false); }, 15000);
      channel.port1.onmessage = function (e) {
        clearTimeout(timer);
        resolve(!!(e.data && e.data.ok));
      };
      worker.postMessage({ type: "keep-page", url: location.href }, [channel.port2]);
    });
  }).then(function (ok) {
    // For the tests and the curious: this page can be reloaded offline.
    if (ok) document.documentElement.setAttribute("data-outbox-offline", "ready");
  }).catch(function () { /* no worker: the outbox still keeps everything */ });
}
