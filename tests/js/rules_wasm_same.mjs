// Checks that the scoring engine compiled to WebAssembly (rules-wasm/) gives the native
// engine's answers: `node tests/js/rules_wasm_same.mjs <module.wasm> <pairs.jsonl>`, each line
// of pairs.jsonl `[export, request body, native answer]` (JSON strings; the export `score`, `read_hand` or
// `describe_rules`), written by rules-wasm/tests/same_as_native.rs, which runs this. Exits 1 at the first answer that
// differs, naming the first field that differs.
import { readFileSync } from "node:fs";

const [wasmPath, pairsPath] = process.argv.slice(2);
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), {});
const { memory, alloc, dealloc } = instance.exports;
const EXPORTS = ["score", "read_hand", "describe_rules"];
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** The answer of the module's export `name` to `body`, as the page would ask for it. */
function answer(name, body) {
  const bytes = encoder.encode(body);
  const at = alloc(bytes.length);
  new Uint8Array(memory.buffer, at, bytes.length).set(bytes);
  const packed = instance.exports[name](at, bytes.length);
  dealloc(at, bytes.length);
  const ptr = Number(packed >> 32n);
  const len = Number(packed & 0xffffffffn);
  // Read after scoring: the memory may have grown, which detaches the old buffer.
  const text = decoder.decode(new Uint8Array(memory.buffer, ptr, len));
  dealloc(ptr, len);
  return text;
}

/** The path of the first field where `a` and `b` differ ("" when they are equal). */
function firstDifference(a, b, path = "") {
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || a === null || b === null) {
    return a === b ? "" : path || ".";
  }
  if (typeof a !== "object") {
    return a === b ? "" : path || ".";
  }
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  for (const key of keys) {
    const found = firstDifference(a[key], b[key], `${path}.${key}`);
    if (found) {
      return found;
    }
  }
  return "";
}

const lines = readFileSync(pairsPath, "utf8").split("\n").filter((line) => line !== "");
for (const [index, line] of lines.entries()) {
  const [name, body, native] = JSON.parse(line);
  if (!EXPORTS.includes(name)) {
    console.error(`line ${index + 1}: no export ${name}`);
    process.exit(1);
  }
  const ours = answer(name, body);
  if (ours !== native) {
    let where = "the same fields, written otherwise";
    try {
      where = `first at ${firstDifference(JSON.parse(native), JSON.parse(ours)) || "(key order)"}`;
    } catch {
      where = "an answer that is not JSON";
    }
    console.error(`request ${index + 1} (${name}) answered otherwise, ${where}:`);
    console.error(`request: ${body}`);
    console.error(`native:  ${native}`);
    console.error(`wasm:    ${ours}`);
    process.exit(1);
  }
}
console.log(`the .wasm gave the native answer to all ${lines.length}`);
