// SPDX-License-Identifier: MIT
// The over-time charts (the largest sites' bytes stacked, the allocating calls and bytes per
// second) against the other outputs of the same run: the fixture (fixtures/phases.c) run once
// under `memusage --html --sites --events`. The column holding the heap's peak stacks up to
// the text summary's heap peak, its sites' bytes are the text sites report's at the peak; the
// rates add up to the summary's heap total and to the allocating calls of a replay of the
// recording (events_file.mjs, not the report's data); a window's charts span the window and
// peak where its figures do.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";

import { readEvents } from "./events_file.mjs";
import { runFixture } from "./fixture_run.mjs";
import { openReport } from "./open_report.mjs";

const dir = mkdtempSync(path.join(tmpdir(), "memusage-browser-"));
let fixture;
let report;
let page;

before(async () => {
  fixture = runFixture(dir);
  report = await openReport(fixture.html);
  page = report.page;
});

after(async () => {
  if (report) await report.close();
  rmSync(dir, { recursive: true, force: true });
});

const overTime = (t0, t1) =>
  page.evaluate(
    (t0, t1) => {
      if (t0 === null) window.memusageReport.resetWindow();
      else window.memusageReport.selectWindow(t0, t1);
      const drawn = (id) => document.querySelectorAll("#" + id + " rect").length;
      return {
        figures: window.memusageReport.overTime(),
        window: window.memusageReport.windowFigures(),
        caption: document.getElementById("over-time-window").dataset.window,
        legend: [...document.querySelectorAll("#sites-over-time .legend text")].map(
          (t) => t.firstChild.textContent,
        ),
        rects: {
          sites: drawn("sites-over-time"),
          calls: drawn("calls-per-second"),
          bytes: drawn("bytes-per-second"),
        },
      };
    },
    t0,
    t1,
  );

const peakColumn = (columns) => columns.reduce((a, c) => (c.high > a.high ? c : a), columns[0]);

test("each column stacks up to its greatest heap; the peak's is the text reports' peak", async () => {
  const shown = await overTime(null, null);
  const f = shown.figures;
  assert.ok(f && f.columns.length > 10, "the charts have columns");
  assert.equal(shown.caption, "whole");
  for (const c of f.columns) {
    assert.ok(c.other >= 0, "a column's other sites are never negative");
    assert.equal(c.sites.reduce((s, v) => s + v, 0) + c.other, c.high);
  }
  const peak = peakColumn(f.columns);
  assert.equal(peak.high, fixture.summary.heap_peak, "the stack's top is the summary's peak");
  assert.equal(peak.high, fixture.sitesReport.heapPeak);
  // The top sites at the peak are the text report's largest at the peak, in its order.
  const text = fixture.sitesReport.sections["Bytes held at the heap peak"].map((e) => e.bytes);
  const held = peak.sites.filter((v) => v > 0);
  assert.ok(held.length >= 2, "the fixture's peak is held by several sites");
  assert.deepEqual(held, text.slice(0, held.length));
  assert.equal(peak.other, fixture.sitesReport.heapPeak - held.reduce((s, v) => s + v, 0));
  // A legend entry per top site and one for the others; something drawn in each chart.
  assert.equal(shown.legend.length, f.sites.length + 1);
  assert.equal(shown.legend.at(-1), "other sites");
  for (const [chart, count] of Object.entries(shown.rects))
    assert.ok(count > f.sites.length + 1, chart + " chart draws its columns");
});

test("the rates add up to the summary's heap total and the recording's allocating calls", async () => {
  const f = (await overTime(null, null)).figures;
  const calls = f.columns.reduce((s, c) => s + c.calls, 0);
  const bytes = f.columns.reduce((s, c) => s + c.bytes, 0);
  assert.equal(bytes, fixture.summary.heap_total);
  const { events } = readEvents(fixture.events);
  const allocating = events.filter((e) => e.kind === "allocate" || e.kind === "resize").length;
  assert.equal(calls, allocating);
  for (const c of f.columns) {
    assert.ok(c.t1 > c.t0, "a column spans some time");
    assert.ok(Math.abs(c.callsPerSecond - c.calls / (c.t1 - c.t0)) <= 1e-6 * c.callsPerSecond);
    assert.ok(Math.abs(c.bytesPerSecond - c.bytes / (c.t1 - c.t0)) <= 1e-6 * c.bytesPerSecond);
  }
});

test("a window's charts span the window and peak where its figures do", async () => {
  const whole = (await overTime(null, null)).figures;
  const t0 = whole.t0 + (whole.t1 - whole.t0) * 0.1;
  const t1 = whole.t0 + (whole.t1 - whole.t0) * 0.6;
  const shown = await overTime(t0, t1);
  const f = shown.figures;
  assert.equal(f.t0, shown.window.t0);
  assert.equal(f.t1, shown.window.t1);
  assert.equal(shown.caption, f.t0 + ".." + f.t1);
  assert.equal(f.columns[0].t0, f.t0);
  assert.equal(f.columns.at(-1).t1, f.t1);
  const peak = peakColumn(f.columns);
  assert.equal(peak.high, shown.window.peak);
  assert.deepEqual(
    f.sites,
    shown.window.peakSites.slice(0, f.sites.length).map(([site]) => site),
    "the top sites are the window's at its peak",
  );
  assert.equal(
    f.columns.reduce((s, c) => s + c.calls, 0),
    shown.window.allocatedCalls,
  );
  await overTime(null, null);
});

// The dark theme (the system asking for dark pages): the charts' text and the other sites'
// colour are the dark page's, not the light one's, and still unlike the page's background.
test("the legend tells the sites apart, each with its whole name on hover", async () => {
  const legend = await page.evaluate(() => {
    window.memusageReport.resetWindow();
    return {
      items: [...document.querySelectorAll("#sites-over-time .legend")].map((g) => ({
        text: g.querySelector("text").firstChild.textContent,
        title: g.querySelector("title").textContent,
      })),
    };
  });
  assert.ok(legend.items.length >= 3, "the legend has " + legend.items.length + " entries");
  const texts = legend.items.map((item) => item.text);
  assert.equal(new Set(texts).size, texts.length, "two entries read alike: " + texts.join(" | "));
  for (const item of legend.items) assert.ok(item.text.length <= 28, item.text);
  const titles = legend.items.map((item) => item.title);
  assert.equal(new Set(titles).size, titles.length, "two entries' titles alike");
});

test("the over-time view in the dark theme", async (t) => {
  const colours = (p) =>
    p.evaluate(() => {
      const fill = (selector) => getComputedStyle(document.querySelector(selector)).fill;
      return {
        page: getComputedStyle(document.body).backgroundColor,
        legend: fill("#sites-over-time .legend text"),
        axis: fill("#sites-over-time .tick text"),
        other: fill("#sites-over-time .over-time-series[data-series=other]"),
      };
    });
  const light = await colours(page);
  const dark = await openReport(fixture.html, { colorScheme: "dark" });
  t.after(() => dark.close());
  const shown = await colours(dark.page);
  for (const part of ["page", "legend", "other"])
    assert.notEqual(shown[part], light[part], "the dark theme's " + part);
  for (const part of ["legend", "axis", "other"])
    assert.notEqual(shown[part], shown.page, part + " is drawn in the page's background");
  assert.deepEqual(dark.requests, []);
  assert.deepEqual(dark.errors, []);
});

// docs/report-over-time.png: the view at 1280 px (renew it with
// MEMUSAGE_SCREENSHOT_OVER_TIME=docs/report-over-time.png).
test("the over-time view, screenshot for the docs", async (t) => {
  const out = process.env.MEMUSAGE_SCREENSHOT_OVER_TIME
    ? path.resolve(process.env.MEMUSAGE_SCREENSHOT_OVER_TIME)
    : path.join(dir, "over-time.png");
  const wide = await openReport(fixture.html, { width: 1280, height: 800 });
  t.after(() => wide.close());
  const view = await wide.page.$("#over-time-view");
  await view.screenshot({ path: out });
  const png = readFileSync(out);
  assert.equal(png.toString("latin1", 1, 4), "PNG");
  assert.ok(png.readUInt32BE(16) <= 1280, "the view is no wider than the window");
  assert.deepEqual(wide.requests, []);
  assert.deepEqual(wide.errors, []);
});
