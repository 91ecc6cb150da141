// SPDX-License-Identifier: MIT
// Lint of the HTML report's page (memusagestat/web) and of its browser tests (tests/browser).
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", "build*/"] },
  js.configs.recommended,
  {
    // The page: classic scripts inlined one after another into one HTML file. The libraries
    // come before them as globals; each script publishes what the next ones use on the global
    // scope, named in an `/* exported */` comment.
    files: ["memusagestat/web/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "script",
      globals: { ...globals.browser, d3: "readonly", flamegraph: "readonly" },
    },
    rules: {
      "no-unused-vars": ["error", { args: "none" }],
      eqeqeq: "error",
      "no-var": "error",
      "prefer-const": "error",
    },
  },
  {
    files: ["tests/browser/**/*.{js,mjs}", "eslint.config.mjs"],
    // Functions given to page.evaluate run in the page, so browser globals are known too.
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.node, ...globals.browser },
    },
  },
];
