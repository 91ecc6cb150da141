// SPDX-License-Identifier: MIT
// Every view follows the selected window and says which it shows: the fixture (fixtures/phases.c)
// run once under `memusage --html --sites --events`; a window is selected on the page and the
// sites table, the threads, the leaks, the long-lived blocks and the flame graph are read as
// shown and compared with the text sites report of the same run (a window holding the heap's
// peak and every leak has the run's sites at the peak and the run's leaks) and with a replay of
// the window's events from the recording (events_file.mjs, not the report's data). The window
// stays in the address across a reload; the sites table is sorted and opened by keyboard.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";

import { readEvents } from "./events_file.mjs";
import { digits, fixtureConstants, runFixture } from "./fixture_run.mjs";
import { openReport } from "./open_report.mjs";

const dir = mkdtempSync(path.join(tmpdir(), "memusage-browser-"));
const constants = fixtureConstants();
let fixture;
let report;
let page;
let json;
let events;
let phases; // the index of each phase's first event (the fixture pauses between phases)

before(async () => {
  fixture = runFixture(dir);
  report = await openReport(fixture.html);
  page = report.page;
  json = await page.evaluate(() => {
    const data = window.memusageReport.data;
    return {
      seconds: data.run.seconds,
      first: data.events.time[0],
      thinned: data.events.thinned,
      sites: data.sites.map((s) => ({
        id: s.id,
        function: data.frames[s.frames[0]]?.function,
      })),
    };
  });
  const recording = readEvents(fixture.events);
  events = recording.events;
  const offset = json.first - events[0].ns / 1e9;
  for (const e of events) e.seconds = e.ns / 1e9 + offset;
  phases = [0];
  for (let i = 1; i < events.length; i++)
    if (events[i].seconds - events[i - 1].seconds > 0.03) phases.push(i);
  assert.ok(phases.length >= 4, "the fixture's pauses are not in the recording");
});

after(async () => {
  if (report) await report.close();
  rmSync(dir, { recursive: true, force: true });
});

// The middle of the pause before phase `k` (0: warm_up ... 3: the frees and leak_phase).
const pauseBefore = (k) => (events[phases[k] - 1].seconds + events[phases[k]].seconds) / 2;

// The window [t0, t1)'s figures from the recording: by site (as the report numbers sites) and
// by thread, the allocating calls, the bytes they asked for (a resize: its growth) and the
// frees (of the block's site, by the calling thread); the blocks whose life began in it and
// were never freed, by site.
function replayWindow(t0, t1) {
  const indexOf = new Map(json.sites.map((s, index) => [s.id, index]));
  const siteOf = (raw) => (indexOf.has(raw) ? indexOf.get(raw) : -1);
  const live = new Map(); // address -> { size, site, first }
  const sites = new Map();
  const threads = new Map();
  const add = (map, key, calls, bytes, frees) => {
    const entry = map.get(key) || { calls: 0, bytes: 0, frees: 0 };
    entry.calls += calls;
    entry.bytes += bytes;
    entry.frees += frees;
    map.set(key, entry);
  };
  for (const e of events) {
    const inside = e.seconds >= t0 && e.seconds < t1;
    let site = siteOf(e.site);
    let asked = 0;
    if (e.kind === "allocate") {
      live.set(e.address, { size: e.size, site, first: e.seconds });
      asked = e.size;
    } else {
      const from = e.kind === "resize" ? e.oldAddress : e.address;
      const block = live.get(from);
      live.delete(from);
      if (block) site = block.site;
      if (e.kind === "resize") {
        const old = block ? block.size : 0;
        asked = Math.max(0, e.size - old);
        live.set(e.address, { size: e.size, site, first: block ? block.first : e.seconds });
      }
    }
    if (!inside) continue;
    const calls = e.kind === "release" ? 0 : 1;
    const frees = e.kind === "release" ? 1 : 0;
    add(sites, site, calls, asked, frees);
    add(threads, e.thread, calls, asked, frees);
  }
  const leaks = new Map();
  for (const b of live.values())
    if (b.first >= t0 && b.first < t1) {
      const entry = leaks.get(b.site) || { bytes: 0, blocks: 0 };
      entry.bytes += b.size;
      entry.blocks += 1;
      leaks.set(b.site, entry);
    }
  return { sites, threads, leaks };
}

// Selects a window and reads every view as shown.
async function shownViews(t0, t1) {
  return page.evaluate(
    (t0, t1) => {
      if (t0 === null) window.memusageReport.resetWindow();
      else window.memusageReport.selectWindow(t0, t1);
      const box = document.getElementById("selected-window");
      const captions = Object.fromEntries(
        [...document.querySelectorAll(".window-caption")].map((c) => [c.id, c.dataset.window]),
      );
      const columns = [...document.querySelectorAll("#sites-table thead th")].map(
        (th) => th.dataset.column,
      );
      const rows = [...document.querySelectorAll("#sites-table tr.site-row")].map((tr) => ({
        site: Number(tr.dataset.site),
        cells: Object.fromEntries(
          [...tr.querySelectorAll("td[data-column]")].map((td) => [
            td.dataset.column,
            Number(td.textContent.replace(/[^0-9]/g, "")),
          ]),
        ),
      }));
      const threadRows = [...document.querySelectorAll("#threads-table tbody tr")].map((tr) =>
        [...tr.children].map((td) => td.textContent),
      );
      const leaks = document.getElementById("leaks-list");
      const flame = document.getElementById("flame");
      return {
        window: [Number(box.dataset.t0), Number(box.dataset.t1)],
        captions,
        columns,
        rows,
        threadHeader: [...document.querySelectorAll("#threads-table thead th")].map(
          (th) => th.textContent,
        ),
        threadRows,
        leaks: {
          bytes: Number(leaks.dataset.leakedBytes),
          blocks: Number(leaks.dataset.leakedBlocks),
          sites: [...leaks.querySelectorAll("details")].map((d) => [
            Number(d.dataset.site),
            d.querySelector("summary").textContent,
          ]),
        },
        flameTotal: Number(flame.dataset.total),
        figures: window.memusageReport.windowFigures(),
        hash: location.hash,
      };
    },
    t0,
    t1,
  );
}

test("the whole run: every view says it shows the whole run", async () => {
  assert.equal(json.thinned, false, "a small run is not thinned");
  const shown = await shownViews(null, null);
  const ids = ["summary-window", "window-caption", "flame-window", "sites-window"];
  ids.push("block-map-window", "threads-window", "leaks-window");
  for (const id of ids) assert.equal(shown.captions[id], "whole", id);
  assert.equal(shown.columns[1], "peak");
  assert.equal(shown.hash, "");
});

test("a window holding the heap's peak and every leak: the sites at its peak and its leaks are the text report's", async () => {
  const t0 = pauseBefore(2);
  const shown = await shownViews(t0, json.seconds);
  const range = shown.window;
  // Each view says it shows this window (the summary stays the run's, and says so).
  for (const [id, said] of Object.entries(shown.captions))
    assert.equal(said, id === "summary-window" ? "whole" : range.join(".."), id);

  // The sites table's "at the window's peak": the text report's bytes at the heap peak.
  const byFunction = (rows, column) => {
    const out = new Map();
    for (const row of rows) {
      const name = json.sites[row.site].function;
      const value = row.cells[column] || 0;
      if (value > 0) out.set(name, (out.get(name) || 0) + value);
    }
    return out;
  };
  const text = fixture.sitesReport.sections;
  const textBy = (section) => {
    const out = new Map();
    for (const entry of text[section] || []) {
      if (!(entry.bytes > 0)) continue;
      const name = entry.frames[0]?.function;
      out.set(name, (out.get(name) || 0) + entry.bytes);
    }
    return out;
  };
  assert.ok(shown.columns.includes("window_peak"), shown.columns.join(", "));
  assert.deepEqual(byFunction(shown.rows, "window_peak"), textBy("Bytes held at the heap peak"));
  // Its leaks (allocated in it, never freed): the run's, as `memusage --sites` prints them.
  assert.deepEqual(
    byFunction(shown.rows, "window_leaked"),
    textBy("Bytes still allocated at exit"),
  );
  const { LEAK_COUNT, LEAK_SIZE } = constants;
  assert.deepEqual(
    { bytes: shown.leaks.bytes, blocks: shown.leaks.blocks },
    { bytes: LEAK_COUNT * LEAK_SIZE, blocks: LEAK_COUNT },
  );
  assert.match(shown.leaks.sites[0][1], /leak_phase/);
  // The flame graph weighs the window's peak: it adds up to the run's heap peak.
  assert.equal(shown.flameTotal, fixture.summary.heap_peak);
  assert.equal(shown.figures.peak, fixture.summary.heap_peak);
});

test("a window of window_phase: sites, threads, leaks and long-lived blocks count only its events", async () => {
  const t0 = pauseBefore(1);
  const t1 = pauseBefore(2);
  const shown = await shownViews(t0, t1);
  const [s0, s1] = shown.window;
  const expected = replayWindow(s0, s1);
  const { WINDOW_COUNT, WINDOW_SIZE, WINDOW_FREED } = constants;

  // The sites table: one row per site with a figure in the window, each the replay's.
  const rows = new Map(shown.rows.map((r) => [r.site, r.cells]));
  for (const [site, figures] of expected.sites) {
    if (site < 0) continue;
    const cells = rows.get(site);
    assert.ok(cells, "site " + site + " is not listed");
    assert.equal(cells.window_allocated, figures.bytes, "allocated by site " + site);
    assert.equal(cells.window_calls, figures.calls, "calls by site " + site);
    assert.equal(cells.window_frees, figures.frees, "frees by site " + site);
  }
  for (const [site, cells] of rows)
    assert.ok(
      expected.sites.has(site) || cells.window_peak > 0 || cells.window_live > 0,
      "site " + site + " has no figure in the window",
    );
  const phase = [...rows].find(([site]) => json.sites[site].function === "window_phase");
  assert.ok(phase, "window_phase's site is not listed");
  assert.deepEqual(
    {
      calls: phase[1].window_calls,
      bytes: phase[1].window_allocated,
      frees: phase[1].window_frees,
      live: phase[1].window_live,
      peak: phase[1].window_peak,
    },
    {
      calls: WINDOW_COUNT,
      bytes: WINDOW_COUNT * WINDOW_SIZE,
      frees: WINDOW_FREED,
      live: (WINDOW_COUNT - WINDOW_FREED) * WINDOW_SIZE,
      peak: WINDOW_COUNT * WINDOW_SIZE,
    },
  );
  // The sites' figures add up to the window's, which the window's view shows.
  const sum = (key) => [...rows.values()].reduce((s, cells) => s + (cells[key] || 0), 0);
  assert.equal(sum("window_allocated"), shown.figures.allocatedBytes);
  assert.equal(sum("window_calls"), shown.figures.allocatedCalls);
  assert.equal(sum("window_frees"), shown.figures.frees);

  // The threads: the window's calls, bytes and frees of each.
  assert.match(shown.threadHeader[1], /in the window/);
  for (const row of shown.threadRows) {
    const serial = Number(/^#(\d+)/.exec(row[0])[1]);
    const figures = expected.threads.get(serial) || { calls: 0, bytes: 0, frees: 0 };
    assert.deepEqual(
      [digits(row[1]), digits(row[2]), digits(row[3])],
      [figures.calls, figures.bytes, figures.frees],
      row[0],
    );
  }
  // No block allocated in the window is left unfreed (the rest of window_phase's blocks
  // are freed in the last phase).
  assert.equal(expected.leaks.size, 0);
  assert.equal(shown.leaks.bytes, 0);
  assert.deepEqual(shown.leaks.sites, []);

  // The long-lived blocks of the window: its blocks freed in the last phase lived longer than
  // the pause; the peak's block and warm_up's are of other windows.
  const longLived = await page.evaluate(() => window.memusageReport.setLongLived(50));
  assert.deepEqual(
    longLived.sites.map((s) => [s.site, s.bytes, s.blocks]),
    [[phase[0], (WINDOW_COUNT - WINDOW_FREED) * WINDOW_SIZE, WINDOW_COUNT - WINDOW_FREED]],
  );
  const note = await page.$eval("#long-lived", (box) => box.textContent);
  assert.match(note, /only the blocks allocated in it are counted/);
});

test("the window stays in the address: a reload opens on it", async () => {
  const shown = await shownViews(pauseBefore(1), pauseBefore(2));
  assert.match(shown.hash, /^#window=/);
  await page.reload({ waitUntil: "load" });
  await page.waitForFunction(() => window.memusageReport && window.memusageReport.ready);
  const after = await page.evaluate(() => ({
    range: window.memusageReport.windowRange(),
    caption: document.getElementById("sites-window").dataset.window,
  }));
  assert.deepEqual(after.range, shown.window);
  assert.equal(after.caption, shown.window.join(".."));
  await page.evaluate(() => window.memusageReport.resetWindow());
  assert.equal(await page.evaluate(() => location.hash), "");
});

test("the sites table is sorted and opened by keyboard", async () => {
  await page.evaluate(() => window.memusageReport.resetWindow());
  await page.focus('#sites-table th[data-column="allocated"]');
  await page.keyboard.press("Enter");
  const sorted = await page.evaluate(() => ({
    sorted: document.querySelector('#sites-table th[data-column="allocated"]').ariaSort,
    focused: document.activeElement?.dataset?.column,
  }));
  assert.equal(sorted.sorted, "descending");
  assert.equal(sorted.focused, "allocated");
  await page.keyboard.press("Tab");
  const row = await page.evaluate(() => document.activeElement?.dataset?.column ?? "");
  assert.notEqual(row, "allocated");
  await page.focus("#sites-table tr.site-row .site-toggle");
  await page.keyboard.press("Enter");
  const opened = await page.evaluate(() => ({
    expanded: document
      .querySelector("#sites-table tr.site-row .site-toggle")
      .getAttribute("aria-expanded"),
    stack: document.querySelectorAll("#sites-table tr.site-stack").length,
  }));
  assert.deepEqual(opened, { expanded: "true", stack: 1 });
});

test("the heap peak button shows the event at the peak", async () => {
  await page.evaluate(() => window.memusageReport.resetWindow());
  await page.click("#go-to-peak");
  const heap = await page.$eval("#event-details [data-field=heap]", (dd) => dd.textContent);
  assert.equal(digits(heap.split(" bytes")[0]), fixture.summary.heap_peak);
});

test("the page made no request and raised no error", () => {
  assert.deepEqual(report.requests, []);
  assert.deepEqual(report.errors, []);
});
