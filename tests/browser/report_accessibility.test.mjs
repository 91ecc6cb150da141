// SPDX-License-Identifier: MIT
// The report is usable with assistive technology: axe-core (npm, the same rules as the browser
// extensions) runs inside the page on the report of the bundled example, its heap peak's event
// shown and every folded list open, and on the fixture's report (fixtures/phases.c) with a
// window selected and a row of the sites table opened, so that the window captions and the
// opened rows are checked too. Any violation of impact "serious" or
// "critical" fails the test, with its rule, its impact and the first elements it names. Each
// page is checked in the light theme and in the dark one (the system asking for dark pages,
// prefers-color-scheme), whose colours must differ. axe is evaluated from node_modules into
// the page: the report itself still makes no request.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { builtFile, run, runFixture, scratchDirectory, sourceDir } from "./fixture_run.mjs";
import { openReport } from "./open_report.mjs";

const axeSource = readFileSync(path.join(sourceDir, "node_modules/axe-core/axe.min.js"), "utf8");

// Runs axe on the whole page and returns its serious and critical violations, each as one line.
async function seriousViolations(page) {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      count: v.nodes.length,
      targets: v.nodes.slice(0, 4).map((n) => n.target.join(" ")),
    }));
  });
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}, ${v.count} elements): ${v.targets.join(" | ")}`);
}

// The charts (svg, canvas) that are not one picture with a name to assistive technology: their
// marks and axis labels would be read one by one, out of context.
async function unnamedCharts(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll("main svg, main canvas")]
      .filter((e) => e.getAttribute("role") !== "img" || !e.getAttribute("aria-label")?.trim())
      .map((e) => e.tagName.toLowerCase() + " in #" + e.closest("section").id),
  );
}

// The page's background and the block map's, as the theme paints them.
async function themeColours(page) {
  return page.evaluate(() => {
    const canvas = document.getElementById("block-map-canvas");
    // Its most frequent opaque colour: the background between the blocks.
    let pixel = null;
    if (canvas) {
      const rgba = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
      const counts = new Map();
      for (let i = 0; i < rgba.length; i += 4) {
        if (rgba[i + 3] !== 255) continue;
        const key = rgba[i] + "," + rgba[i + 1] + "," + rgba[i + 2];
        counts.set(key, (counts.get(key) || 0) + 1);
      }
      pixel = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
    }
    return { page: getComputedStyle(document.body).backgroundColor, blockMap: pixel };
  });
}

const lightColours = {};

for (const colorScheme of ["light", "dark"]) {
  test(`the example's report, the peak's event shown, has no serious accessibility violation (${colorScheme})`, async (t) => {
    const dir = scratchDirectory(t);
    const html = path.join(dir, "word_census.html");
    run(
      builtFile("bin", "memusage"),
      ["--color=never", "--html=" + html, builtFile("example", "word_census")],
      {
        cwd: dir,
      },
    );
    const report = await openReport(html, { colorScheme });
    t.after(() => report.close());
    const colours = await themeColours(report.page);
    if (colorScheme === "light") lightColours.example = colours;
    else if (lightColours.example) {
      assert.notEqual(colours.page, lightColours.example.page, "the dark page's background");
      assert.notEqual(colours.blockMap, lightColours.example.blockMap, "the dark block map's");
    }
    // With the peak's event shown and every folded list open, so that they are checked too.
    const shown = await report.page.evaluate(() => {
      document.getElementById("go-to-peak").click();
      for (const d of document.querySelectorAll("details")) d.open = true;
      return document.querySelectorAll("#event-details dd").length;
    });
    assert.ok(shown > 0, "the peak's event is not shown");
    assert.deepEqual(await unnamedCharts(report.page), []);
    const found = await seriousViolations(report.page);
    assert.deepEqual(found, [], "axe found:\n" + found.join("\n"));
    assert.deepEqual(report.requests, []);
    assert.deepEqual(report.errors, []);
  });

  test(`the fixture's report, a window selected and a site opened, has none either (${colorScheme})`, async (t) => {
    const dir = scratchDirectory(t);
    const fixture = runFixture(dir);
    const report = await openReport(fixture.html, { colorScheme });
    t.after(() => report.close());
    const { page } = report;
    const opened = await page.evaluate(() => {
      const data = window.memusageReport.data;
      const t0 = data.events.time[0];
      const t1 = data.events.time[data.events.time.length - 1];
      // The middle half of the run: a window that is not the whole run, with its captions.
      window.memusageReport.selectWindow(t0 + (t1 - t0) / 4, t1 - (t1 - t0) / 4);
      const row = document.querySelector("#sites-table .site-row");
      if (row) row.click();
      return {
        caption: document.getElementById("sites-window").textContent,
        expanded: document.querySelectorAll("#sites-table [aria-expanded=true]").length,
      };
    });
    assert.match(opened.caption, /\S/, "the sites table names no window");
    assert.ok(opened.expanded > 0, "no row of the sites table opened");
    assert.deepEqual(await unnamedCharts(page), []);
    const found = await seriousViolations(page);
    assert.deepEqual(found, [], "axe found:\n" + found.join("\n"));
    assert.deepEqual(report.requests, []);
    assert.deepEqual(report.errors, []);
  });
}
