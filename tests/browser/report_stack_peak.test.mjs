// SPDX-License-Identifier: MIT
// The stack peak panel of a real run, against the text report of the same run: the stack
// tests' recursion fixture (100 deep through a frame holding a 4 KiB array) built with
// cc -g -O0 and run once under `memusage --stack-peak --html`, which prints the stack peak
// report and writes the page.
import assert from "node:assert/strict";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { test } from "node:test";

import { builtFile, digits, run, scratchDirectory, sourceDir } from "./fixture_run.mjs";
import { openReport } from "./open_report.mjs";

const recursionSource = path.join(sourceDir, "tests/integration/stack/fixtures/stack_recursion.c");

test("the stack peak panel folds the recursion as memusage --stack-peak does", async (t) => {
  const dir = scratchDirectory(t);
  const program = path.join(dir, "stack_recursion");
  execFileSync(process.env.CC || "cc", ["-g", "-O0", "-o", program, recursionSource]);
  const html = path.join(dir, "stack.html");
  const stderr = run(
    builtFile("bin", "memusage"),
    ["--color=never", "--stack-peak", "--html=" + html, program],
    { cwd: dir },
  );
  // "Thread 1234 (main, ...): 414,960 bytes at ..." and "deep ×100, 4,144 B each = 414,400 B".
  const thread = /^Thread (\d+) \(main[^)]*\): ([\d,]+) bytes at/m.exec(stderr);
  assert.ok(thread, "no main thread's stack peak in memusage's output:\n" + stderr);
  const fold = /^\s*([\d,]+) B\s+deep ×(\d+), ([\d,]+) B each = ([\d,]+) B/m.exec(stderr);
  assert.ok(fold, "no folded recursion in memusage's output:\n" + stderr);
  const text = {
    tid: Number(thread[1]),
    peak: digits(thread[2]),
    frames: Number(fold[2]),
    each: digits(fold[3]),
    bytes: digits(fold[4]),
  };
  assert.ok(text.frames >= 95 && text.frames <= 100, "the text report folds " + text.frames);

  const report = await openReport(html);
  t.after(() => report.close());
  const panel = await report.page.evaluate(() => {
    const peak = document.querySelector("#stack-peak .stack-peak");
    const line = peak && peak.querySelector('li.stack-peak-frame[data-function="deep"]');
    const ranked = peak && peak.querySelector("table.stack-peak-functions tbody tr");
    return (
      peak && {
        tid: Number(peak.dataset.tid),
        bytes: Number(peak.dataset.bytes),
        title: peak.querySelector("h3").textContent,
        nav: document.querySelector('#report-nav a[href="#stack-peak"]') !== null,
        line: line && {
          frames: Number(line.dataset.frames),
          bytes: Number(line.dataset.bytes),
          text: line.textContent,
          barWidth: line.querySelector(".bar").getBoundingClientRect().width,
          source: line.querySelector("pre.source") && line.querySelector("pre.source").textContent,
        },
        widestBar: Math.max(
          ...[...peak.querySelectorAll(".bar")].map((bar) => bar.getBoundingClientRect().width),
        ),
        firstRanked: ranked && ranked.textContent,
      }
    );
  });
  assert.ok(panel, "no stack peak in the panel");
  assert.ok(panel.nav, "the navigation links the panel");
  assert.equal(panel.tid, text.tid);
  assert.equal(panel.bytes, text.peak, "the thread's peak as the text report gives it");
  assert.match(panel.title, /main/);
  assert.ok(panel.line, "the panel names the recursive function");
  assert.ok(panel.line.frames >= 95 && panel.line.frames <= 100, "folds " + panel.line.frames);
  assert.equal(panel.line.frames, text.frames);
  assert.equal(panel.line.bytes, text.bytes, "the same total bytes as the text report");
  assert.match(panel.line.text, new RegExp("deep ×" + text.frames + ", " + fold[3] + " B each"));
  assert.match(panel.line.text, /stack_recursion\.c:\d+/);
  assert.match(panel.line.source || "", /deep\(level - 1\)/, "the recursive call's source line");
  assert.equal(panel.line.barWidth, panel.widestBar, "the recursion's bar is the longest");
  assert.match(panel.firstRanked, /^deep/, "the recursion ranks first");
  assert.deepEqual(report.requests, [], "no request leaves the page");
  assert.deepEqual(report.errors, [], "no console error");
});
