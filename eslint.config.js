// ESLint for the scripts in static/ (served by the binary as they are: no bundler, no build
// step) and their unit tests in tests/js/. `npm run lint`.
"use strict";

const js = require("@eslint/js");
const globals = require("globals");

// The scripts as the browser gets them: ES modules (`<script type="module">`; a module has
// its own scope, so nothing leaks into the window), all but the service worker. The pages'
// own (`static/*.js`) are ES2017 at most (ES5 style, a few arrow functions and const), for
// the older phones and TV browsers they run on; the console's (`static/console/`,
// `static/outbox/`) ES2020: the phones that run WebAssembly run these.
function scripts(files, environment, options) {
  return {
    files,
    ignores: options.ignores || [],
    languageOptions: {
      ecmaVersion: options.ecmaVersion || 2017,
      sourceType: options.sourceType || "module",
      globals: { ...environment, ...(options.globals || {}) }
    },
    rules: {
      // `catch (e) { /* why nothing is done */ }`: ES2017 has no `catch {}`, and the scripts
      // say in a comment why nothing is done.
      "no-unused-vars": ["error", { caughtErrors: "none" }],
      // Mistakes the recommended set lets through.
      eqeqeq: ["error", "smart"],
      "block-scoped-var": "error",
      "array-callback-return": "error",
      "no-unused-expressions": "error",
      "no-self-compare": "error",
      "no-template-curly-in-string": "error",
      "no-throw-literal": "error",
      "no-implied-eval": "error",
      "guard-for-in": "error",
      radix: "error"
    }
  };
}

module.exports = [
  {
    // Vendored (axe-core), another project's benchmark, build output.
    ignores: ["target/", "fuzz/", "benches/", "tests/fixtures/", "data/"]
  },
  js.configs.recommended,
  scripts(["static/**/*.js"], globals.browser, { ignores: ["static/sw.js", "static/console/**", "static/outbox/**", "static/admin/**"] }),
  // The console's service worker stays a classic script: it imports nothing, and a module
  // worker needs `register(url, {type: "module"})` and a browser with module service workers
  // (they came years after module scripts, last in Firefox). Its unit test loads it with
  // `require`: it ends with `if (typeof module === "object" && module.exports) …`.
  scripts(["static/sw.js"], globals.serviceworker, { sourceType: "script", globals: { module: "readonly" } }),
  scripts(["static/console/**/*.js", "static/outbox/**/*.js", "static/admin/**/*.js"], globals.browser, { ecmaVersion: 2020 }),
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "commonjs",
      globals: { ...globals.node }
    }
  },
  {
    // The OpenID provider the campus sign-in tests start, and the check of the WebAssembly
    // engine (rules-wasm/tests/same_as_native.rs runs it): node, ES modules.
    files: ["tests/oidc/**/*.mjs", "tests/js/**/*.mjs"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.node }
    }
  }
];
