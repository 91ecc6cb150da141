// SPDX-License-Identifier: MIT
// The README's screenshot: the report of the bundled example (build/example/word_census, as
// README.md runs it) in Chromium, its top views (header, summary, timeline) as a PNG.
// Taken in the light theme and in the dark one (the system asking for dark pages). The test
// keeps them in a temporary directory; to renew docs/report.png and docs/report-dark.png:
//   MEMUSAGE_SCREENSHOT=docs/report.png MEMUSAGE_SCREENSHOT_DARK=docs/report-dark.png \
//     node --test tests/browser/report_screenshot.test.mjs
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

import {
  builtFile,
  digits,
  parseSummary,
  run,
  scratchDirectory,
  sourceDir,
} from "./fixture_run.mjs";
import { openReport } from "./open_report.mjs";

const WIDTH = 1280;

for (const [colorScheme, variable] of [
  ["light", "MEMUSAGE_SCREENSHOT"],
  ["dark", "MEMUSAGE_SCREENSHOT_DARK"],
])
  test(`the example's report, screenshot for the README (${colorScheme})`, async (t) => {
    const dir = scratchDirectory(t);
    const html = path.join(dir, "word_census.html");
    const out = process.env[variable]
      ? path.resolve(process.env[variable])
      : path.join(dir, "report.png");
    // Run from the sources, as README.md does, so that the page names build/example/word_census.
    const example = builtFile("example", "word_census");
    const relative = path.relative(sourceDir, example);
    const stderr = run(
      builtFile("bin", "memusage"),
      ["--color=never", "--html=" + html, relative.startsWith("..") ? example : relative],
      { cwd: sourceDir },
    );
    const summary = parseSummary(stderr);

    const report = await openReport(html, { width: WIDTH, height: 800, colorScheme });
    t.after(() => report.close());
    const { page } = report;
    const shown = await page.evaluate(() => ({
      program: window.memusageReport.data.run.program,
      peak: document.querySelector("#summary dd[data-field=heap_peak]")?.textContent,
      curves: document.querySelectorAll("#timeline path[data-series]").length,
    }));
    assert.equal(shown.program, "word_census");
    assert.equal(digits(shown.peak), summary.heap_peak);
    assert.ok(shown.curves >= 2, "the timeline draws " + shown.curves + " curves");

    // Down to the end of the timeline's view, with the peak's event picked.
    await page.evaluate(() => {
      const json = window.memusageReport.data;
      const heap = json.events.heap;
      let top = 0;
      for (let i = 1; i < heap.length; i++) if (heap[i] > heap[top]) top = i;
      window.memusageReport.showEvent(top);
      window.scrollTo(0, 0);
    });
    const bottom = await page.$eval("#timeline-view", (view) => {
      const box = view.getBoundingClientRect();
      return Math.ceil(box.bottom + window.scrollY + 8);
    });
    await page.screenshot({
      path: out,
      clip: { x: 0, y: 0, width: WIDTH, height: Math.min(bottom, 2600) },
      captureBeyondViewport: true,
    });
    const png = readFileSync(out);
    assert.equal(png.toString("latin1", 1, 4), "PNG");
    assert.equal(png.readUInt32BE(16), WIDTH);
    assert.ok(png.length < 300_000, `the screenshot is ${png.length} bytes`);
    t.diagnostic(`${out}: ${WIDTH}x${png.readUInt32BE(20)}, ${png.length} bytes`);
    assert.deepEqual(report.requests, []);
    assert.deepEqual(report.errors, []);
  });

// Each view of the example's report on its own at 1280 px, for docs/report.md: renewed with
//   MEMUSAGE_SCREENSHOT_VIEWS=docs/views node --test tests/browser/report_screenshot.test.mjs
// (a file per view, named by its section's id). A view with a sites row opened shows its
// histograms; the callers table shows a function's callers and callees.
test("each view of the example's report, screenshots for the docs", async (t) => {
  const dir = scratchDirectory(t);
  const html = path.join(dir, "word_census.html");
  const outDir = process.env.MEMUSAGE_SCREENSHOT_VIEWS
    ? path.resolve(process.env.MEMUSAGE_SCREENSHOT_VIEWS)
    : dir;
  mkdirSync(outDir, { recursive: true });
  const example = builtFile("example", "word_census");
  const relative = path.relative(sourceDir, example);
  run(
    builtFile("bin", "memusage"),
    ["--color=never", "--html=" + html, relative.startsWith("..") ? example : relative],
    { cwd: sourceDir },
  );
  const report = await openReport(html, { width: WIDTH, height: 800 });
  t.after(() => report.close());
  const { page } = report;
  await page.evaluate(() => {
    document.querySelector("#sites-table tr.site-row")?.click();
    document.querySelector("#callers-table tr.callers-row")?.click();
  });
  const ids = await page.$$eval("main > section.view", (views) => views.map((v) => v.id));
  assert.ok(ids.length >= 12, "the report has its views: " + ids.join(", "));
  for (const id of ids) {
    const out = path.join(outDir, "report-" + id + ".png");
    const view = await page.$("#" + id);
    await view.screenshot({ path: out });
    const png = readFileSync(out);
    assert.equal(png.toString("latin1", 1, 4), "PNG", id);
    assert.ok(png.readUInt32BE(16) <= WIDTH, id + " is no wider than the window");
  }
  assert.deepEqual(report.requests, []);
  assert.deepEqual(report.errors, []);
});
