// ESLint for the scripts in static/ (served by the binary as they are: plain scripts, no
// bundler, no build step) and their unit tests in tests/js/. `npm run lint`.
"use strict";

const js = require("@eslint/js");
const globals = require("globals");

// The scripts end with `if (typeof module === "object" && module.exports) module.exports = …`
// so that the unit tests (Node) can load them; in a browser `module` is not defined.
const exportsForTests = { module: "readonly" };

// The scripts as the browser gets them (but the outbox's modules, below): ES2017 at most (ES5 style, a few arrow functions and
// const), for the older phones and TV browsers they run on.
function scripts(files, environment, ignores) {
  return {
    files,
    ignores: ignores || [],
    languageOptions: {
      ecmaVersion: 2017,
      sourceType: "script",
      globals: { ...environment, ...exportsForTests }
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
  scripts(["static/**/*.js"], globals.browser, ["static/sw.js", "static/console/**", "static/outbox/**"]),
  {
    ...scripts(["static/**/*.js"], globals.browser, ["static/sw.js", "static/console/**", "static/outbox/**"]),
    // A page's scripts share the window: nothing may leak into it (a worker has its own).
    rules: { "no-implicit-globals": "error" }
  },
  scripts(["static/sw.js"], globals.serviceworker),
  {
    // The console's ES modules (`<script type="module">`, import/export, ES2020: the phones
    // that run WebAssembly run these), served as they are; their tests import them: the hand
    // form's preview and the engine it asks (console/), the outbox (outbox/).
    ...scripts(["static/console/**/*.js", "static/outbox/**/*.js"], globals.browser),
    languageOptions: { ecmaVersion: 2020, sourceType: "module", globals: { ...globals.browser } }
  },
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
