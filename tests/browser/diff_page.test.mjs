// SPDX-License-Identifier: MIT
// The two-run page (memusagestat --html=OUT --diff A B) in headless Chromium, against the text
// --diff of the same two runs (fixtures/two_runs.c run as "before" and as "after", their files
// kept by memusage --keep): the sites table lists the text's rows in its order with its
// figures, for each measure; the flame graph's width is run B's bytes at the peak (the text's
// heap peak of B) and its frames are coloured grown, shrunk, new or unchanged as the text's
// changes say; both timelines are drawn on one pair of axes, with a legend; sorting and a
// site's stack work from the keyboard; axe-core finds no serious violation, light or dark;
// the page makes no request. Its screenshot at 1280x800; to renew docs/diff-page.png:
//   MEMUSAGE_SCREENSHOT_DIFF=docs/diff-page.png MEMUSAGE_SCREENSHOT_DIFF_SITES=docs/diff-page-sites.png \
//     node --test tests/browser/diff_page.test.mjs
// (the top of the page, and the flame graph with the sites table).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { builtFile, run, scratchDirectory, sourceDir } from "./fixture_run.mjs";
import { openReport } from "./open_report.mjs";

const axeSource = readFileSync(path.join(sourceDir, "node_modules/axe-core/axe.min.js"), "utf8");

// The two runs, the text --diff of their sites files (every site listed) and the page.
function twoRuns(dir) {
  const program = path.join(dir, "two_runs");
  execFileSync(process.env.CC || "cc", [
    "-g",
    "-O0",
    "-o",
    program,
    path.join(sourceDir, "tests/browser/fixtures/two_runs.c"),
  ]);
  for (const which of ["before", "after"])
    run(builtFile("bin", "memusage"), ["--color=never", "--keep=" + which, program, which], {
      cwd: dir,
    });
  const stat = builtFile("bin", "memusagestat");
  const text = execFileSync(
    stat,
    ["--diff", "before/run.sites", "after/run.sites", "--top=100000"],
    { cwd: dir, encoding: "utf8" },
  );
  const html = path.join(dir, "diff.html");
  run(stat, ["--html=" + html, "--diff", "before/run.sites", "after/run.sites"], { cwd: dir });
  return { html, text: parseTextDiff(text) };
}

// The text --diff: its totals by label and its rankings by title, each row's figures and the
// frame it is "at".
function parseTextDiff(text) {
  const totals = {};
  const rankings = {};
  let section = null;
  for (const line of text.split("\n")) {
    let m;
    if (line.startsWith("Change in ")) {
      section = line.replace(/ \(top .*$/, "").replace(/:$/, "");
      rankings[section] = [];
    } else if (!section && (m = /^ {2}(\S.*?) +(\d+) +(\d+) {3}\S/.exec(line))) {
      totals[m[1]] = [Number(m[2]), Number(m[3])];
    } else if (
      section &&
      (m = /^ +#\d+ ([+-]\d+) \w+ \((\d+) -> (\d+)\)( new)?( gone)?$/.exec(line))
    ) {
      rankings[section].push({
        change: Number(m[1]),
        a: Number(m[2]),
        b: Number(m[3]),
        status: m[4] ? "new" : m[5] ? "gone" : Number(m[1]) > 0 ? "grown" : "shrunk",
        at: null,
      });
    } else if (section && line.startsWith("       at ")) {
      rankings[section][rankings[section].length - 1].at = line.slice(10);
    }
  }
  return { totals, rankings };
}

// The table's rows as shown: status, the site's full innermost frame, A, B and change.
function shownRows(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll("#diff-sites tr.site-row")].map((tr) => {
      const site = window.memusageReport.data.sites[Number(tr.dataset.site)];
      return {
        status: tr.dataset.status,
        at: window.memusageReport.data.siteName(site),
        shownName: tr.querySelector("button.site-toggle").textContent,
        a: Number(tr.querySelector("[data-column=a]").dataset.value),
        b: Number(tr.querySelector("[data-column=b]").dataset.value),
        change: Number(tr.querySelector("[data-column=change]").dataset.value),
      };
    }),
  );
}

async function seriousViolations(page) {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.slice(0, 4).map((n) => n.target.join(" ")),
    }));
  });
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.targets.join(" | ")}`);
}

test("the two-run page shows the text --diff's rows, flame graph and timelines", async (t) => {
  const dir = scratchDirectory(t);
  const { html, text } = twoRuns(dir);
  assert.ok(statSync(html).size < 25 * 1024 * 1024);
  const report = await openReport(html, { width: 1280, height: 800 });
  t.after(() => report.close());
  const { page } = report;

  // The table, measure by measure, against the text's ranking of it.
  const measures = await page.evaluate(() => window.memusageReport.data.measures);
  for (const measure of measures) {
    await page.select("#diff-measure", measure.key);
    const rows = await shownRows(page);
    const expected = text.rankings[measure.title];
    assert.ok(expected && expected.length > 0, "the text has no ranking " + measure.title);
    assert.deepEqual(
      rows.map(({ status, at, a, b, change }) => ({ status, at, a, b, change })),
      expected,
      measure.title,
    );
  }
  await page.select("#diff-measure", "peak");

  // The flame graph: run B's bytes at the peak, the frames coloured by their change.
  const flame = await page.evaluate(() => {
    const container = document.getElementById("diff-flame");
    const colours = {};
    for (const g of container.querySelectorAll("g")) {
      const title = g.querySelector("title");
      const rect = g.querySelector("rect");
      if (title && rect) colours[title.textContent.split(" (")[0]] = rect.getAttribute("fill");
    }
    const css = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();
    return {
      total: Number(container.dataset.total),
      before: Number(container.dataset.before),
      colours,
      grown: css("--diff-grown"),
      shrunk: css("--diff-shrunk"),
      fresh: css("--diff-new"),
      same: css("--diff-same"),
    };
  });
  assert.equal(flame.total, text.totals["heap peak"][1], "the flame graph weighs B's heap peak");
  const colourOf = (fn) => {
    const key = Object.keys(flame.colours).find((k) => k === fn);
    return key ? flame.colours[key] : undefined;
  };
  const status = {};
  for (const row of text.rankings["Change in bytes held at the heap peak"])
    status[row.at.split(" (")[0]] = row.status;
  assert.deepEqual(status, { fresh: "new", retired: "gone", kept: "grown", table: "shrunk" });
  assert.equal(colourOf("kept"), flame.grown, JSON.stringify(flame.colours));
  assert.equal(colourOf("table"), flame.shrunk);
  assert.equal(colourOf("fresh"), flame.fresh);
  assert.equal(colourOf("steady"), flame.same);
  assert.equal(colourOf("retired"), undefined, "a gone site has no width in B");

  // Both timelines on one pair of axes, with a legend naming both runs.
  const timeline = await page.evaluate(() => ({
    paths: [...document.querySelectorAll("#diff-timeline path.heap")].map((p) => ({
      run: p.dataset.run,
      peak: Number(p.dataset.peak),
      stroke: getComputedStyle(p).stroke,
    })),
    svgs: document.querySelectorAll("#diff-timeline svg").length,
    legend: [...document.querySelectorAll("#diff-timeline-legend [data-run]")].map(
      (e) => e.dataset.run,
    ),
  }));
  assert.equal(timeline.svgs, 1);
  assert.deepEqual(
    timeline.paths.map((p) => [p.run, p.peak]),
    [
      ["A", text.totals["heap peak"][0]],
      ["B", text.totals["heap peak"][1]],
    ],
  );
  assert.notEqual(timeline.paths[0].stroke, timeline.paths[1].stroke);
  assert.deepEqual(timeline.legend, ["A", "B"]);

  // Sorting and a site's stack from the keyboard.
  await page.focus('#diff-sites th[data-column="b"]');
  await page.keyboard.press("Enter");
  const sorted = await page.evaluate(() => ({
    sort: document.querySelector('#diff-sites th[data-column="b"]').getAttribute("aria-sort"),
    focused: document.activeElement.dataset.column,
  }));
  assert.deepEqual(sorted, { sort: "descending", focused: "b" });
  const byB = (await shownRows(page)).map((r) => r.b);
  assert.deepEqual(
    byB,
    [...byB].sort((x, y) => y - x),
  );
  await page.focus("#diff-sites button.site-toggle");
  await page.keyboard.press("Enter");
  const opened = await page.evaluate(() => ({
    expanded: document
      .querySelector("#diff-sites button.site-toggle")
      .getAttribute("aria-expanded"),
    stack: document.querySelector("#diff-sites tr.stack-row")?.textContent || "",
  }));
  assert.equal(opened.expanded, "true");
  assert.match(opened.stack, /\nat \S+ \(.*two_runs\.c:\d+\)\nby main \(/);

  // The status filter: the one gone site.
  await page.select("#diff-status", "gone");
  const gone = await shownRows(page);
  assert.deepEqual(
    gone.map((r) => r.at.split(" (")[0]),
    ["retired"],
  );
  await page.select("#diff-status", "changed");

  // The default order again (the text's), for the pictures.
  await page.evaluate(() => {
    const table = window.memusageReport.table;
    table.sortKey = "change";
    table.descending = true;
    table.draw();
  });
  for (const [variable, where] of [
    ["MEMUSAGE_SCREENSHOT_DIFF", null],
    ["MEMUSAGE_SCREENSHOT_DIFF_SITES", "diff-flame-view"],
  ]) {
    await page.evaluate((id) => {
      if (id) document.getElementById(id).scrollIntoView();
      else window.scrollTo(0, 0);
    }, where);
    const out = process.env[variable]
      ? path.resolve(process.env[variable])
      : path.join(dir, (where || "top") + ".png");
    await page.screenshot({ path: out });
    assert.ok(statSync(out).size > 10000, out + " is nearly empty");
  }
  assert.deepEqual(report.requests, []);
  assert.deepEqual(report.errors, []);
});

for (const colorScheme of ["light", "dark"])
  test(`the two-run page, a site opened, has no serious accessibility violation (${colorScheme})`, async (t) => {
    const dir = scratchDirectory(t);
    const { html } = twoRuns(dir);
    const report = await openReport(html, { width: 1280, height: 800, colorScheme });
    t.after(() => report.close());
    await report.page.click("#diff-sites button.site-toggle");
    const found = await seriousViolations(report.page);
    assert.deepEqual(found, [], "axe found:\n" + found.join("\n"));
    const unnamed = await report.page.evaluate(() =>
      [...document.querySelectorAll("main svg")]
        .filter((e) => e.getAttribute("role") !== "img" || !e.getAttribute("aria-label"))
        .map((e) => e.closest("section").id),
    );
    assert.deepEqual(unnamed, []);
    assert.deepEqual(report.requests, []);
    assert.deepEqual(report.errors, []);
  });
