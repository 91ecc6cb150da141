// SPDX-License-Identifier: MIT
// A window's report, as a user gets to it from a run past the bound of clickable events
// (fixtures/many_events.c, about 700,000 events): `memusage --keep=DIR --html` keeps the run's
// files, the page's "detail is thinned" notice names the memusagestat command that writes a
// window's report from them, and that command, run here as the notice gives it, writes a
// report that carries the run's summary (command, calls, peaks), opens on its window and
// counts the blocks carried into the window apart from those allocated in it (checked
// against a replay of the recording, events_file.mjs).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";

import { readEvents } from "./events_file.mjs";
import { builtFile, parseSummary, run, sourceDir } from "./fixture_run.mjs";
import { openReport } from "./open_report.mjs";

const source = path.join(sourceDir, "tests/browser/fixtures/many_events.c");
const LONG_SIZE = 8 << 20;
const dir = mkdtempSync(path.join(tmpdir(), "memusage-browser-"));
const program = path.join(dir, "many_events");
const keep = path.join(dir, "kept");
const html = path.join(dir, "run.html");
let summary;
let report;
let recording;

before(async () => {
  execFileSync(process.env.CC || "cc", ["-g", "-O0", "-o", program, source]);
  const stderr = run(
    builtFile("bin", "memusage"),
    ["--color=never", "--html=" + html, "--keep=" + keep, program],
    { cwd: dir },
  );
  summary = parseSummary(stderr);
  report = await openReport(html);
  const first = await report.page.evaluate(() => window.memusageReport.data.events.time[0]);
  const { events } = readEvents(path.join(keep, "run.events"));
  const offset = first - events[0].ns / 1e9;
  for (const e of events) e.seconds = e.ns / 1e9 + offset;
  recording = events;
});

after(async () => {
  if (report) await report.close();
  rmSync(dir, { recursive: true, force: true });
});

// A command as the notice gives it, run by the shell in the run's directory, the built
// memusage and memusagestat first on the PATH.
function shell(command) {
  const bin = path.dirname(builtFile("bin", "memusagestat"));
  run("sh", ["-c", command], {
    cwd: dir,
    env: { ...process.env, PATH: bin + ":" + process.env.PATH },
  });
}

// The window's command as the notice gives it, the words START..END and window.html put in.
async function noticeCommand(page) {
  const notice = await page.evaluate(
    () => document.getElementById("thinned-notice")?.textContent ?? "",
  );
  const command = /(memusagestat --html=window\.html --html-window=START\.\.END.*?)\.(?:\s|$)/.exec(
    notice,
  );
  assert.ok(command, "the notice names no window's command: " + notice);
  return command[1];
}

// A time inside the long-lived block's life, in the middle of the pause nearest `t` (the
// fixture pauses between the slices of churn it does while holding the block).
function pauseNear(t) {
  let best = null;
  for (let i = 1; i < recording.length; i++) {
    const a = recording[i - 1].seconds;
    const b = recording[i].seconds;
    if (b - a < 0.001) continue;
    const middle = (a + b) / 2;
    if (best === null || Math.abs(middle - t) < Math.abs(best - t)) best = middle;
  }
  return best;
}

// From the recording: the blocks live at t0 (carried in) and those allocated in [t0, t1] and
// live at t1; a resize ends a block's part and begins another, as the block map draws it.
function blocksOfWindow(t0, t1) {
  const live = new Map(); // address -> { born, size }
  let carried = null;
  const pieces = [];
  for (const e of recording) {
    if (carried === null && e.seconds >= t0)
      carried = { blocks: live.size, bytes: [...live.values()].reduce((s, b) => s + b.size, 0) };
    if (e.seconds > t1) break;
    const from = e.kind === "allocate" ? null : e.kind === "resize" ? e.oldAddress : e.address;
    if (from !== null) live.delete(from);
    if (e.kind !== "release") {
      const piece = { born: e.seconds, size: e.size };
      live.set(e.address, piece);
      pieces.push(piece);
    }
  }
  const alive = new Set(live.values());
  const allocated = pieces.filter((p) => p.born >= t0 && alive.has(p));
  return {
    carried,
    allocated: {
      blocks: allocated.length,
      bytes: allocated.reduce((s, b) => s + b.size, 0),
    },
  };
}

test("--keep keeps every file of the run, the summary's included", () => {
  for (const name of ["run.dat", "run.sites", "run.events", "run.summary"])
    assert.ok(existsSync(path.join(keep, name)), name + " was not kept");
  assert.ok(summary.heap_peak > 0);
});

test("the thinned notice's command writes a window's report that carries the run's summary, opens on its window and counts the blocks carried in apart", async (t) => {
  const command = await noticeCommand(report.page);
  assert.match(command, /--summary=/, "the command gives no summary: " + command);

  const born = recording.findIndex((e) => e.kind === "allocate" && e.size === LONG_SIZE);
  const died = recording.findIndex(
    (e, i) => i > born && e.kind === "release" && e.address === recording[born].address,
  );
  const a = recording[born].seconds;
  const b = recording[died].seconds;
  const t0 = pauseNear(a + (b - a) * 0.3);
  const t1 = pauseNear(a + (b - a) * 0.6);
  assert.ok(a < t0 && t0 < t1 && t1 < b, "the window is not inside the long-lived block");
  const window = path.join(dir, "window.html");
  const given = command
    .replace("--html=window.html", "--html=" + window)
    .replace("START..END", `${t0.toFixed(7)}s..${t1.toFixed(7)}s`);
  shell(given);

  const shown = await openReport(window);
  t.after(() => shown.close());
  const page = shown.page;
  const seen = await page.evaluate(() => {
    const data = window.memusageReport.data;
    const field = (name) =>
      document.querySelector(`#window-figures [data-field=${name}]`)?.textContent ?? "";
    return {
      command: document.querySelector("#summary [data-field=command]")?.textContent ?? "",
      summary: data.summary,
      window: data.run.window,
      range: window.memusageReport.windowRange(),
      text: document.getElementById("window-text").textContent,
      reset: document.getElementById("window-reset").textContent,
      figures: window.memusageReport.windowFigures(),
      carried: field("carried_in"),
    };
  });
  // The run's summary, as memusage printed it.
  assert.equal(seen.command, program);
  const rows = Object.fromEntries(seen.summary.rows.map((r) => [r.name, r.calls]));
  for (const row of summary.rows) assert.equal(rows[row.name], row.calls, row.name + " calls");
  assert.equal(seen.summary.heap_total, summary.heap_total);
  assert.equal(seen.summary.heap_peak, summary.heap_peak);
  assert.equal(seen.summary.stack_peak, summary.stack_peak);
  // Opened on the window, not on the whole run.
  assert.deepEqual(seen.range, [seen.window.start, seen.window.end]);
  assert.ok(Math.abs(seen.window.start - t0) < 1e-6 && Math.abs(seen.window.end - t1) < 1e-6);
  assert.match(seen.text, /whole report/);
  assert.equal(seen.reset, "Whole window");
  // Blocks allocated in the window are those of the window; the ones from before are
  // carried in, the long-lived block among them.
  const expected = blocksOfWindow(seen.window.start, seen.window.end);
  assert.equal(seen.figures.liveSampled, false);
  assert.deepEqual(
    { blocks: seen.figures.liveBlocks, bytes: seen.figures.liveBytes },
    expected.allocated,
  );
  assert.deepEqual(
    { blocks: seen.figures.carriedBlocks, bytes: seen.figures.carriedBytes },
    expected.carried,
  );
  assert.ok(seen.figures.carriedBytes >= LONG_SIZE);
  assert.match(seen.carried, /^\d+ blocks?, [\d,]+ bytes/);
  assert.deepEqual(shown.requests, []);
  assert.deepEqual(shown.errors, []);
});

test("a plain --html run's notice gives the run again with --keep, and both commands work", async (t) => {
  const plain = path.join(dir, "plain.html");
  run(builtFile("bin", "memusage"), ["--html=" + plain, program], { cwd: dir });
  const shown = await openReport(plain);
  t.after(() => shown.close());
  const notice = await shown.page.evaluate(
    () => document.getElementById("thinned-notice")?.textContent ?? "",
  );
  const again = /run it again keeping them, (memusage --keep=\S+ .*?), then /.exec(notice);
  assert.ok(again, "the notice gives no command to run again: " + notice);
  shell(again[1]);
  const command = await noticeCommand(shown.page);
  const window = path.join(dir, "rerun_window.html");
  shell(
    command.replace("--html=window.html", "--html=" + window).replace("START..END", "10ms..20ms"),
  );
  const data = await (async () => {
    const opened = await openReport(window);
    try {
      return await opened.page.evaluate(() => window.memusageReport.data);
    } finally {
      await opened.close();
    }
  })();
  assert.ok(data.summary.rows.length > 0, "the window's report has no summary");
  assert.equal(data.run.command, program);
});
