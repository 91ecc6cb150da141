// SPDX-License-Identifier: MIT
// The callers and callees table and a site's histograms, against the text outputs of the same
// run: the fixture (fixtures/phases.c) run once under `memusage --html --sites --events`, then
// `memusagestat --folded` and `--dhat` on its sites file and recording. A function's inclusive
// bytes are the folded stacks through it, its self bytes the `--sites` rows it begins; a
// site's histograms count its blocks and its most bytes live are DHAT's "mb". A window
// changes the table; the table is reached, sorted and walked by keyboard; a long C++ name
// (fixtures/long_names.cpp) is shortened, in full on hover, and never widens the page.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";

import {
  builtFile,
  fixtureConstants,
  run,
  runFixture,
  scratchDirectory,
  sourceDir,
} from "./fixture_run.mjs";
import { openReport } from "./open_report.mjs";

const constants = fixtureConstants();
let dir;
let fixture;
let report;
let page;

// `memusagestat --folded` of the run's sites file: stack (outermost first) -> weight.
function folded(metric) {
  const out = path.join(dir, "run." + metric + ".folded");
  run(builtFile("bin", "memusagestat"), [
    "--sites=" + fixture.sites,
    "--folded=" + out,
    "--folded-metric=" + metric,
  ]);
  return readFileSync(out, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const cut = line.lastIndexOf(" ");
      return { frames: line.slice(0, cut).split(";"), value: Number(line.slice(cut + 1)) };
    });
}

// The text sites report's section by metric.
const sections = {
  peak: "Bytes held at the heap peak",
  allocated: "Bytes allocated",
  leaked: "Bytes still allocated at exit",
};

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "memusage-browser-"));
  fixture = runFixture(dir);
  report = await openReport(fixture.html);
  page = report.page;
});

after(async () => {
  if (report) await report.close();
  rmSync(dir, { recursive: true, force: true });
});

test("each function's inclusive bytes are the folded stacks through it, its self bytes the sites it begins", async () => {
  for (const metric of ["peak", "allocated", "leaked"]) {
    const table = await page.evaluate((m) => window.memusageReport.callers(m, "function"), metric);
    assert.equal(table.metric, metric);
    const stacks = folded(metric);
    const rows = new Map(table.rows.map((r) => [r.key, r]));
    const names = new Set(stacks.flatMap((s) => s.frames));
    assert.ok(names.has("main"), metric + ": no folded stack through main");
    for (const name of names) {
      const inclusive = stacks
        .filter((s) => s.frames.includes(name))
        .reduce((sum, s) => sum + s.value, 0);
      assert.equal(rows.get(name)?.inclusive, inclusive, metric + " inclusive of " + name);
    }
    // main holds every stack: its inclusive bytes are the whole, as the flame graph's root.
    const whole = stacks.reduce((sum, s) => sum + s.value, 0);
    assert.equal(rows.get("main").inclusive, whole);
    assert.equal(table.total, whole);
    const flameRoot = await page.evaluate((m) => {
      const select = document.querySelector("#flame-metric");
      select.value = m;
      select.dispatchEvent(new Event("change"));
      return Number(document.querySelector("#flame").dataset.total);
    }, metric);
    assert.equal(rows.get("main").inclusive, flameRoot, metric + ": the flame graph's root");
    // Self: the text report's rows whose innermost frame is the function.
    const entries = fixture.sitesReport.sections[sections[metric]] || [];
    const selfByName = new Map();
    for (const e of entries)
      selfByName.set(e.frames[0].function, (selfByName.get(e.frames[0].function) || 0) + e.bytes);
    for (const r of table.rows)
      assert.equal(r.self, selfByName.get(r.key) || 0, metric + " self of " + r.key);
    assert.ok(table.rows.some((r) => r.self > 0));
    // Shown as such in the table.
    const shown = await page.$$eval("#callers-table tr.callers-row", (trs) =>
      trs.map((tr) => ({
        key: tr.dataset.key,
        self: Number(tr.dataset.self),
        inclusive: Number(tr.dataset.inclusive),
      })),
    );
    assert.deepEqual(
      new Map(shown.map((r) => [r.key, r])),
      new Map(table.rows.map((r) => [r.key, r])),
    );
  }
});

test("by file:line, a line's inclusive bytes are the folded stacks through its function there", async () => {
  const table = await page.evaluate(() => window.memusageReport.callers("allocated", "line"));
  const peakLine = table.rows.find((r) => /^peak_phase \(.*phases\.c:\d+\)$/.test(r.key));
  assert.ok(peakLine, "no row of peak_phase at its line");
  assert.equal(peakLine.self, constants.PEAK_SIZE);
  // warm_up allocates at two lines: two rows, which add up to the function's.
  const warm = table.rows.filter((r) => r.key.startsWith("warm_up ("));
  assert.equal(warm.length, 2);
  const byFunction = await page.evaluate(() =>
    window.memusageReport.callers("allocated", "function"),
  );
  const warmUp = byFunction.rows.find((r) => r.key === "warm_up");
  assert.equal(
    warm.reduce((sum, r) => sum + r.self, 0),
    warmUp.self,
  );
});

test("a selected function lists its callers and callees with their shares", async () => {
  await page.evaluate(() => window.memusageReport.callers("peak", "function"));
  await page.click('#callers-table tr.callers-row[data-key="main"] button');
  const details = await page.$eval("#callers-details", (box) => ({
    key: box.dataset.key,
    callees: [...box.querySelectorAll('[data-list="callees"] tbody tr')].map((tr) => [
      tr.dataset.key,
      Number(tr.dataset.bytes),
    ]),
    callers: [...box.querySelectorAll('[data-list="callers"] tbody tr')].map((tr) => [
      tr.dataset.key,
      Number(tr.dataset.bytes),
    ]),
  }));
  assert.equal(details.key, "main");
  const callees = new Map(details.callees);
  assert.equal(callees.get("peak_phase"), constants.PEAK_SIZE);
  // At the peak, the blocks of window_phase not yet freed.
  assert.equal(
    callees.get("window_phase"),
    (constants.WINDOW_COUNT - constants.WINDOW_FREED) * constants.WINDOW_SIZE,
  );
  assert.equal(details.callers.length, 1);
  // A callee's button selects it.
  await page.click('#callers-details tr[data-key="peak_phase"] button');
  const now = await page.$eval("#callers-details", (box) => ({
    key: box.dataset.key,
    callers: [...box.querySelectorAll('[data-list="callers"] tbody tr')].map((tr) => [
      tr.dataset.key,
      Number(tr.dataset.bytes),
    ]),
  }));
  assert.equal(now.key, "peak_phase");
  assert.deepEqual(now.callers, [["main", constants.PEAK_SIZE]]);
});

test("the table is reached, sorted and walked by keyboard", async () => {
  await page.evaluate(() => window.memusageReport.callers("peak", "function"));
  await page.focus('#callers-table th[data-column="self"]');
  await page.keyboard.press("Enter");
  const order = await page.$$eval("#callers-table tr.callers-row", (trs) =>
    trs.map((tr) => Number(tr.dataset.self)),
  );
  assert.deepEqual(
    order,
    order.slice().sort((a, b) => b - a),
  );
  assert.equal(
    await page.evaluate(() => document.activeElement.dataset.column),
    "self",
    "the focus stays on the sorted column's header",
  );
  await page.focus("#callers-table tr.callers-row button");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  const second = await page.$$eval("#callers-table tr.callers-row", (trs) => trs[1].dataset.key);
  assert.equal(await page.$eval("#callers-details", (box) => box.dataset.key), second);
  const focused = await page.evaluate(() => ({
    key: document.activeElement.closest("tr")?.dataset.key,
    outline: getComputedStyle(document.activeElement.closest("tr")).outlineStyle,
  }));
  assert.equal(focused.key, second);
  assert.equal(focused.outline, "solid", "the focused row shows its focus");
});

test("a window changes the table, and its caption says which", async () => {
  const table = await page.evaluate(() => window.memusageReport.callers("peak", "function"));
  assert.equal(table.rows.find((r) => r.key === "main").inclusive, table.total);
  // A window ending between window_phase and peak_phase: its peak is window_phase's blocks
  // all live.
  const times = await page.evaluate(() => {
    const d = window.memusageReport.data;
    const born = (fn) =>
      d.blocks.born.filter((_, i) => d.frames[d.sites[d.blocks.site[i]].frames[0]].function === fn);
    return { windowLast: Math.max(...born("window_phase")), peak: Math.min(...born("peak_phase")) };
  });
  const end = (times.windowLast + times.peak) / 2;
  await page.evaluate((t1) => window.memusageReport.selectWindow(0, t1), end);
  const windowed = await page.evaluate(() => {
    const select = document.querySelector("#flame-metric");
    select.value = "peak";
    select.dispatchEvent(new Event("change"));
    return {
      table: window.memusageReport.callers(),
      caption: document.querySelector("#callers-window").dataset.window,
      flame: Number(document.querySelector("#flame").dataset.total),
    };
  });
  const main = windowed.table.rows.find((r) => r.key === "main");
  assert.equal(main.inclusive, constants.WINDOW_COUNT * constants.WINDOW_SIZE);
  assert.equal(main.inclusive, windowed.flame, "the flame graph's root in the window");
  assert.ok(!windowed.table.rows.some((r) => r.key === "peak_phase" && r.inclusive > 0));
  assert.notEqual(windowed.caption, "whole");
  await page.evaluate(() => window.memusageReport.resetWindow());
  const back = await page.evaluate(() => ({
    table: window.memusageReport.callers(),
    caption: document.querySelector("#callers-window").dataset.window,
  }));
  assert.equal(back.caption, "whole");
  assert.equal(back.table.rows.find((r) => r.key === "main").inclusive, table.total);
});

test("a site's histograms count its blocks, and its most bytes live are DHAT's", async () => {
  const dhatFile = path.join(dir, "run.dhat.json");
  run(builtFile("bin", "memusagestat"), [
    "--sites=" + fixture.sites,
    "--events=" + fixture.events,
    "--dhat=" + dhatFile,
  ]);
  const dhat = JSON.parse(readFileSync(dhatFile, "utf8"));
  assert.equal(dhat.bklt, true, "the DHAT file has no lifetimes");
  const pages = await page.evaluate(() => {
    const d = window.memusageReport.data;
    const text = (f) => {
      const frame = d.frames[f];
      return frame.function + " (" + frame.file + ":" + frame.line + ")";
    };
    return {
      thinned: d.blocks.thinned,
      sites: d.sites.map((s, i) => ({
        innermost: text(s.frames[0]),
        blocks: s.blocks,
        peak: s.peak,
        leaked_blocks: s.leaked_blocks,
        figures: window.memusageReport.siteHistograms(i),
      })),
    };
  });
  assert.equal(pages.thinned, false, "the fixture's blocks are all in the report");
  assert.equal(pages.sites.length, dhat.pps.length);
  for (const site of pages.sites) {
    const f = site.figures;
    assert.equal(f.exact, true);
    const sizes = f.sizes.reduce((sum, bin) => sum + bin.count, 0);
    assert.equal(sizes, site.blocks, site.innermost + ": the size bins add up to its blocks");
    const lives = f.lives.reduce((sum, bin) => sum + bin.count, 0) + f.neverFreed;
    assert.equal(lives, site.blocks, site.innermost + ": the lifetime bins and never freed");
    assert.equal(f.neverFreed, site.leaked_blocks);
    assert.ok(f.maxBytes >= site.peak, site.innermost + ": most live below its peak");
    const point = dhat.pps.find((pp) => dhat.ftbl[pp.fs[0]] === site.innermost);
    assert.ok(point, "no DHAT point for " + site.innermost);
    assert.equal(f.maxBytes, point.mb, site.innermost + ": DHAT's max bytes live");
  }
  // The window site's blocks: all of one size, so one bin, and all live at once.
  const windowSite = pages.sites.find((s) => s.innermost.startsWith("window_phase"));
  assert.deepEqual(
    windowSite.figures.sizes.map((b) => b.count),
    [constants.WINDOW_COUNT],
  );
  assert.equal(windowSite.figures.maxBytes, constants.WINDOW_COUNT * constants.WINDOW_SIZE);

  // Shown where the site's row opens, by keyboard.
  const index = pages.sites.indexOf(windowSite);
  await page.focus(`#sites-table tr.site-row[data-site="${index}"] button`);
  await page.keyboard.press("Enter");
  const shown = await page.$eval(`#sites-table tr.site-stack[data-site="${index}"]`, (tr) => {
    const box = tr.querySelector(".site-histograms");
    return {
      blocks: Number(box.dataset.blocks),
      maxBytes: Number(box.dataset.maxBytes),
      sizeRows: [...box.querySelectorAll('table[data-kind="sizes"] tr')].map((r) =>
        Number(r.dataset.count),
      ),
      text: box.textContent,
    };
  });
  assert.equal(shown.blocks, constants.WINDOW_COUNT);
  assert.equal(shown.maxBytes, constants.WINDOW_COUNT * constants.WINDOW_SIZE);
  assert.deepEqual(shown.sizeRows, [constants.WINDOW_COUNT]);
  assert.match(shown.text, /At most 70\.3 KiB live at once/);
  assert.deepEqual(report.errors, []);
});

test("long names in the callers table are shortened, in full on hover, and never widen the page", async (t) => {
  const scratch = scratchDirectory(t);
  const source = path.join(sourceDir, "tests/browser/fixtures/long_names.cpp");
  const program = path.join(scratch, "long_names");
  execFileSync(process.env.CXX || "c++", ["-g", "-O0", "-o", program, source]);
  const html = path.join(scratch, "long_names.html");
  run(builtFile("bin", "memusage"), ["--color=never", "--html=" + html, program], {
    cwd: scratch,
  });
  const opened = await openReport(html, { width: 1400, height: 900 });
  t.after(() => opened.close());
  const p = opened.page;
  await p.evaluate(() => window.memusageReport.callers("allocated", "line"));
  const long = await p.$$eval("#callers-table td.callers-name", (tds) =>
    tds
      .filter((td) => td.title.includes("build<"))
      .map((td) => ({ text: td.textContent, title: td.title })),
  );
  assert.ok(long.length > 0, "no row of the template");
  for (const { text, title } of long) {
    assert.ok(text.length < title.length, "not shortened: " + text);
    assert.ok(text.length <= 80, "too long: " + text);
  }
  await p.click("#callers-table tr.callers-row:has(td[title*='build<']) button");
  const widths = await p.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    window: document.documentElement.clientWidth,
  }));
  assert.ok(widths.page <= widths.window, "the page is wider than its window");
  assert.deepEqual(opened.errors, []);
});

test("under recursion a function's inclusive bytes count each stack once, as the folded stacks", async (t) => {
  const scratch = scratchDirectory(t);
  const source = path.join(sourceDir, "tests/browser/fixtures/recursion.c");
  const result = runFixture(scratch, source);
  const text = readFileSync(source, "utf8");
  const blockSize = Number(/BLOCK_SIZE = (\d+)/.exec(text)[1]);
  const depth = Number(/DEPTH = (\d+)/.exec(text)[1]);
  const opened = await openReport(result.html);
  t.after(() => opened.close());
  const table = await opened.page.evaluate(() =>
    window.memusageReport.callers("allocated", "function"),
  );
  const out = path.join(scratch, "recursion.folded");
  run(builtFile("bin", "memusagestat"), [
    "--sites=" + result.sites,
    "--folded=" + out,
    "--folded-metric=allocated",
  ]);
  const stacks = readFileSync(out, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split(" "))
    .map(([frames, value]) => ({ frames: frames.split(";"), value: Number(value) }));
  const deep = stacks.find((s) => s.frames.filter((f) => f === "descend").length === depth + 1);
  assert.ok(deep, "no folded stack holds descend " + (depth + 1) + " times");
  const descend = table.rows.find((r) => r.key === "descend");
  assert.equal(descend.inclusive, blockSize);
  assert.equal(descend.self, blockSize);
  assert.equal(table.rows.find((r) => r.key === "main").inclusive, 2 * blockSize);
  // Its callers: main only (calling itself is no caller of its own).
  await opened.page.click('#callers-table tr.callers-row[data-key="descend"] button');
  const callers = await opened.page.$$eval(
    '#callers-details [data-list="callers"] tbody tr',
    (trs) => trs.map((tr) => [tr.dataset.key, Number(tr.dataset.bytes)]),
  );
  assert.deepEqual(callers, [["main", blockSize]]);
});
