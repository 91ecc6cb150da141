// SPDX-License-Identifier: MIT
// Where a block grew, in the HTML report of a real run: the sites tests' fixture
// (tests/integration/sites/fixtures/sites_grown.c) allocates a block in make_buffer, grows
// it by realloc in grow_buffer and keeps it to the end. Run once under `memusage --leaks
// --html`, the page's leak list and the site's stack say "grown at" the realloc, as the text
// leak report does.
import assert from "node:assert/strict";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { builtFile, run, scratchDirectory, sourceDir } from "./fixture_run.mjs";
import { openReport } from "./open_report.mjs";

const source = path.join(sourceDir, "tests/integration/sites/fixtures/sites_grown.c");

// "grow_buffer (FILE:LINE)" of the fixture's realloc (its line marked SITE(grow)).
function growingLine(file) {
  const line = readFileSync(source, "utf8")
    .split("\n")
    .findIndex((text) => text.includes("SITE(grow)"));
  return `grow_buffer (${file}:${line + 1})`;
}

test("the leak list and the site's stack say where the leaked block grew", async (t) => {
  const dir = scratchDirectory(t);
  const program = path.join(dir, "sites_grown");
  execFileSync(process.env.CC || "cc", ["-g", "-O0", "-o", program, source]);
  const html = path.join(dir, "grown.html");
  const stderr = run(
    builtFile("bin", "memusage"),
    ["--color=never", "--leaks", "--html=" + html, program, "0"],
    { cwd: dir },
  );
  const where = growingLine(source);
  assert.ok(
    stderr.includes("grown at " + where + ": 1048576 bytes in 1 block"),
    "the text leak report names no growing realloc:\n" + stderr,
  );

  const report = await openReport(html);
  t.after(() => report.close());
  const page = report.page;
  const summary = await page.$eval("#leaks-list details summary", (s) => s.textContent);
  assert.match(summary, /^1,048,576 bytes in 1 block, grown at /);
  assert.ok(summary.includes("grown at " + where), summary);

  // The site's stack, opened: its frames, then where its blocks grew.
  await page.click("#leaks-list details summary");
  const grown = await page.$$eval("#leaks-list details li.grown", (items) =>
    items.map((item) => item.textContent.replace(/\s+/g, " ").trim()),
  );
  assert.deepEqual(grown, [
    "grown at " +
      where +
      ": 1,048,576 bytes in 1 block at the peak, 1,048,576 bytes in 1 block at exit",
  ]);
});
