// SPDX-License-Identifier: MIT
// Names people can read: the report of fixtures/long_names.cpp (a function template whose
// name is hundreds of characters long, allocating from two callers) shows the template
// folded (`build<…>`) with its full name on hover, tells the two sites apart by their callers
// (in the over-time legend too), names the flame graph's frames with their file:line, and
// never grows wider than a 1,400-pixel window; the legend names a member function in nested
// namespaces by its class and name.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

import {
  builtFile,
  fixtureMarks,
  fixtureSource,
  parseSites,
  run,
  scratchDirectory,
  sourceDir,
} from "./fixture_run.mjs";
import { openReport } from "./open_report.mjs";

const source = path.join(sourceDir, "tests/browser/fixtures/long_names.cpp");
const buildLine =
  readFileSync(source, "utf8")
    .split("\n")
    .findIndex((line) => line.includes("MARK(build)")) + 1;

test("long template names are folded, told apart by their callers and never widen the page", async (t) => {
  const dir = scratchDirectory(t);
  const program = path.join(dir, "long_names");
  execFileSync(process.env.CXX || "c++", ["-g", "-O0", "-o", program, source]);
  const html = path.join(dir, "long_names.html");
  const stderr = run(
    builtFile("bin", "memusage"),
    ["--color=never", "--html=" + html, "--sites", program],
    {
      cwd: dir,
    },
  );
  // The text report names the template in full.
  assert.match(stderr, /build<Box<Box<Box</);

  const report = await openReport(html, { width: 1400, height: 900 });
  t.after(() => report.close());
  const { page } = report;
  await page.evaluate(() => window.memusageReport.data.sites.length);
  const shown = await page.evaluate(() => {
    const flip = document.querySelector("#flame-metric");
    flip.value = "allocated";
    flip.dispatchEvent(new Event("change"));
    const rows = [...document.querySelectorAll("#sites-table tr.site-row")]
      .map((tr) => tr.querySelector("td.site-name"))
      .filter((td) => td.title.includes("build<"))
      .map((td) => ({ text: td.textContent, title: td.title }));
    const frames = [...document.querySelectorAll("#flame g")]
      .map((g) => g.__data__?.data?.name ?? "")
      .filter((name) => name.startsWith("void* build<") || name.includes(" build<"));
    const legendOf = (part) =>
      [...document.querySelectorAll("#sites-over-time .legend")]
        .filter((g) => g.querySelector("title").textContent.includes(part))
        .map((g) => g.querySelector("text").firstChild.textContent);
    const legend = legendOf("build<");
    const pool = legendOf("Pool::grow");
    for (const d of document.querySelectorAll("details")) d.open = true;
    for (const tr of document.querySelectorAll("#sites-table tr.site-row")) tr.click();
    return {
      rows,
      frames,
      legend,
      pool,
      width: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
      height: document.documentElement.scrollHeight,
    };
  });
  assert.equal(shown.rows.length, 2, JSON.stringify(shown.rows));
  const [a, b] = shown.rows;
  // Folded for display, whole on hover.
  for (const row of shown.rows) {
    assert.match(row.text, /build<…>/);
    assert.ok(row.text.length < 200, row.text);
    assert.ok(row.title.length > 600, "the title is not the full name: " + row.title.length);
    assert.match(row.title, new RegExp(`build<Box<Box<.*\\(.*long_names\\.cpp:${buildLine}\\)$`));
  }
  // Told apart by their callers.
  assert.notEqual(a.text, b.text);
  assert.deepEqual(shown.rows.map((r) => /← (\w+)/.exec(r.text)?.[1]).sort(), [
    "first_caller",
    "second_caller",
  ]);
  // So are they in the over-time chart's legend, short as it is.
  assert.deepEqual(shown.legend.map((text) => /← (\w+)/.exec(text)?.[1]).sort(), [
    "first_caller",
    "second_caller",
  ]);
  // "store::(anonymous namespace)::Pool::grow(unsigned long, char const*) const
  // (long_names.cpp:N)" has room as its class and name only.
  assert.deepEqual(shown.pool, ["Pool::grow"]);
  // The flame graph's frames carry their file:line.
  assert.ok(shown.frames.length >= 1, "no build<…> frame in the flame graph");
  for (const name of shown.frames)
    assert.match(name, new RegExp(`build<…>.* \\(long_names\\.cpp:${buildLine}\\)$`));
  // Every stack open, every row expanded: still no wider than the window.
  assert.ok(shown.width <= shown.client, `the page is ${shown.width} px wide in ${shown.client}`);
  assert.ok(shown.height < 20000, `the page is ${shown.height} px tall`);
  assert.deepEqual(report.requests, []);
  assert.deepEqual(report.errors, []);
});

test("a program compiled with a relative path has its source lines when run from elsewhere", async (t) => {
  // Compiled in `dir` as `cc -g src/phases.c`: the debug information names the file relative
  // to the compile directory; memusage runs from another directory.
  const dir = scratchDirectory(t);
  mkdirSync(path.join(dir, "src"));
  mkdirSync(path.join(dir, "elsewhere"));
  copyFileSync(fixtureSource, path.join(dir, "src", "phases.c"));
  execFileSync(process.env.CC || "cc", ["-g", "-O0", "-o", "phases", "src/phases.c"], { cwd: dir });
  const html = path.join(dir, "phases.html");
  const stderr = run(
    builtFile("bin", "memusage"),
    ["--color=never", "--html=" + html, "--sites", path.join(dir, "phases")],
    { cwd: path.join(dir, "elsewhere") },
  );
  const file = path.join(dir, "src", "phases.c");
  const peak = parseSites(stderr).sections["Bytes held at the heap peak"][0];
  assert.equal(peak.frames[0].function, "peak_phase");
  assert.equal(peak.frames[0].file, file);

  const report = await openReport(html);
  t.after(() => report.close());
  const frame = await report.page.evaluate(() => {
    const data = window.memusageReport.data;
    return data.frames.find((f) => f.function === "peak_phase");
  });
  assert.equal(frame.file, file);
  assert.equal(frame.line, fixtureMarks().peak);
  assert.match(frame.source ?? "", /malloc\(PEAK_SIZE\);/);
  assert.deepEqual(report.errors, []);
});
