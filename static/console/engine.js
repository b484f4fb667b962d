// The scoring engine on the phone: static/rules.wasm, the server's own engine (rules/)
// compiled to WebAssembly by rules-wasm/. `score(request)` answers exactly what
// `POST /api/v1/score` answers (docs/api.md §5.1): the scored game, or `{"error": {...}}`;
// `readHand(request)` reads the hand form as the server reads it (rules/src/form.rs);
// `describeRules(request)` reads a league's rules form (rules/src/rules_form.rs).
// No scoring or reading is written here: the request goes in as JSON and the engine's JSON
// comes out.
//
// The module's exports (no wasm-bindgen): `alloc(len) -> ptr`; `score`, `read_hand` and
// `describe_rules`, each `(ptr, len) -> u64` packing the answer's `ptr << 32 | len`; `dealloc(ptr, len)`.

export const ENGINE_URL = "/static/rules.wasm";

let exports = null;
let loading = null;

/** Takes an instantiated rules.wasm as the engine (the tests give it theirs). */
export function use(instance) {
  exports = instance.exports;
}

/** Whether the engine can answer now. */
export function ready() {
  return exports !== null;
}

/**
 * Loads the engine once: compiled as it streams in, or from its bytes where the browser
 * cannot stream (or the answer's type is not application/wasm). Resolves to true when the
 * engine is ready, false when it cannot be had (very old browser, no connection and no
 * cached copy): the form then works as before, checked by the server.
 */
export function load(url = ENGINE_URL, fetcher = globalThis.fetch) {
  if (exports) return Promise.resolve(true);
  if (!loading) {
    loading = instantiate(url, fetcher).then(
      (instance) => {
        use(instance);
        return true;
      },
      () => {
        loading = null; // a later call may try again
        return false;
      }
    );
  }
  return loading;
}

async function instantiate(url, fetcher) {
  if (typeof WebAssembly !== "object" || typeof fetcher !== "function") {
    throw new Error("no WebAssembly here");
  }
  if (typeof WebAssembly.instantiateStreaming === "function") {
    try {
      const { instance } = await WebAssembly.instantiateStreaming(fetcher(url), {});
      return instance;
    } catch {
      // A server or cache that answers another Content-Type: compile the bytes below.
    }
  }
  const response = await fetcher(url);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  const { instance } = await WebAssembly.instantiate(await response.arrayBuffer(), {});
  return instance;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The engine's answer to `request` (an object, the body of POST /api/v1/score), as an
 * object: the scored game, or `{error: {...}}`. Throws when the engine is not loaded.
 */
export function score(request) {
  return ask("score", request);
}

/**
 * The hand form read as the server reads it: `request` is `{fields, number, time_called}`
 * (the form's [name, value] pairs, the hand's number, whether it is the time-called hand);
 * the answer `{hand}` (docs/api.md §4.2) or `{error, incomplete}` (the first thing mistyped,
 * in the server's words, and whether some bid or trick count is still blank). Throws when
 * the engine is not loaded.
 */
export function readHand(request) {
  return ask("read_hand", request);
}

/**
 * A league's rules form read as the server reads it (rules/src/rules_form.rs): `request` is
 * `{preset, fields}` (a stage's preset and its controls' [name, value] pairs, without the
 * stage's prefix); the answer `{lines: [{topic, text}], rules}` (the rules in the rules page's
 * words, and as the API shows them) or `{error: {control, message}}`. Throws when the engine
 * is not loaded.
 */
export function describeRules(request) {
  return ask("describe_rules", request);
}

// The answer of the module's export `name` to `request`, both JSON.
function ask(name, request) {
  if (!exports) throw new Error("the scoring engine is not loaded");
  const { memory, alloc, dealloc } = exports;
  const bytes = encoder.encode(JSON.stringify(request));
  const at = alloc(bytes.length);
  new Uint8Array(memory.buffer, at, bytes.length).set(bytes);
  const packed = exports[name](at, bytes.length);
  dealloc(at, bytes.length);
  const ptr = Number(packed >> 32n);
  const len = Number(packed & 0xffffffffn);
  // Read after the call: the memory may have grown, which detaches the old buffer.
  const text = decoder.decode(new Uint8Array(memory.buffer, ptr, len));
  dealloc(ptr, len);
  return JSON.parse(text);
}
