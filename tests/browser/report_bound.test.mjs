// SPDX-License-Identifier: MIT
// The report of a 10-million-event run stays under 25 MB, keeps the heap's extreme, says its
// detail is thinned, opens in Chromium, and its window figures are exact: the whole run's and
// two inner windows' (across the peak, and one of the run's middle) equal a replay of the
// recording computed here (events_file.mjs); the test prints its first paint and the frame
// rate of zooming and panning the timeline and the block map (printed, not asserted: times
// depend on the machine).
//
// The recording is the pictures' benchmark's synthetic one (tests/bench/stat/make_events.cpp,
// built here with c++ -O2: about 10 million events, 66 MB, written in about a second), named
// by the sites of a run of the bundled example, as bench_pictures.sh does. It is made at the
// full 10 million events, not scaled from a smaller run.
import assert from "node:assert/strict";
import { statSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { eventColumns } from "./events_file.mjs";
import { builtCollector, builtFile, run, scratchDirectory, sourceDir } from "./fixture_run.mjs";
import { openReport } from "./open_report.mjs";

const EVENTS = 10_000_000;
const BOUND = 25_000_000;

// Frames per second while a gesture goes on over an element, one step per animation frame,
// `count` steps, in the page: "zoom" turns the wheel in (and leaves the view zoomed), "pan" drags left and right.
// `moved` says whether the view's zoom transform (d3's, on that element) changed.
async function frameRate(page, selector, gesture, count = 30) {
  return page.evaluate(
    async (selector, gesture, count) => {
      const target = document.querySelector(selector);
      target.scrollIntoView({ block: "center" });
      const box = target.getBoundingClientRect();
      const x = box.left + box.width / 2;
      const y = box.top + box.height / 2;
      const mouse = (type, dx, on = target) =>
        on.dispatchEvent(
          new MouseEvent(type, {
            bubbles: true,
            cancelable: true,
            view: window,
            button: 0,
            clientX: x + dx,
            clientY: y,
          }),
        );
      const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
      await frame();
      if (gesture === "pan") mouse("mousedown", 0);
      const transform = () => String(window.d3.zoomTransform(target));
      const initial = transform();
      let moved = false;
      const start = performance.now();
      for (let i = 1; i <= count; i++) {
        if (gesture === "zoom")
          target.dispatchEvent(
            new WheelEvent("wheel", {
              bubbles: true,
              cancelable: true,
              clientX: x,
              clientY: y,
              deltaY: -60,
            }),
          );
        else mouse("mousemove", (i % 40) * 6 - 120, window);
        await frame();
        moved = moved || transform() !== initial;
      }
      const seconds = (performance.now() - start) / 1000;
      if (gesture === "pan") mouse("mouseup", 0, window);
      return { fps: count / seconds, moved };
    },
    selector,
    gesture,
    count,
  );
}

// Whether a replay of the recording's events in [t0, t1) gives the window's figures as the
// page shows them, for some way the events within CLOCK of either edge fall on its sides (the
// report's times are rounded to 100 ns, and the recording puts an event every few ns): the
// calls, bytes and frees in it and its heap peak, the level carried in counted.
const CLOCK = 2e-6;
function replayMatches(columns, figures) {
  const { seconds, kind, asked, heap, count } = columns;
  const first = (t) => {
    let low = 0;
    let high = count;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (seconds[middle] < t) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  const shown = {
    calls: figures.allocatedCalls,
    bytes: figures.allocatedBytes,
    frees: figures.frees,
    peak: figures.peak,
  };
  // The core [a, b): inside whatever the events near the edges do.
  const a = first(figures.t0 + CLOCK);
  const b = first(figures.t1 - CLOCK);
  const sums = (from, to) => {
    const out = { calls: 0, bytes: 0, frees: 0, high: -Infinity };
    for (let i = from; i < to; i++) {
      if (kind[i] === 1) out.frees += 1;
      else out.calls += 1;
      out.bytes += asked[i];
      out.high = Math.max(out.high, heap[i]);
    }
    return out;
  };
  const core = sums(a, b);
  let nearest = null;
  for (let c0 = first(figures.t0 - CLOCK); c0 <= a; c0++) {
    const left = sums(c0, a);
    const carried = c0 > 0 ? heap[c0 - 1] : 0;
    for (let c1 = b; c1 <= first(figures.t1 + CLOCK); c1++) {
      const right = sums(b, c1);
      const replayed = {
        calls: left.calls + core.calls + right.calls,
        bytes: left.bytes + core.bytes + right.bytes,
        frees: left.frees + core.frees + right.frees,
        peak: Math.max(carried, left.high, core.high, right.high),
      };
      if (Object.keys(shown).every((k) => shown[k] === replayed[k]))
        return { found: true, shown, nearest: replayed };
      nearest = nearest ?? replayed;
    }
  }
  return { found: false, shown, nearest };
}

test("the report of a 10-million-event run is under 25 MB, keeps the peak, opens, and its windows equal a replay", async (t) => {
  const dir = scratchDirectory(t);
  const makeEvents = path.join(dir, "make_events");
  run(process.env.CXX || "c++", [
    "-std=c++20",
    "-O2",
    "-I" + path.join(sourceDir, "libmemusage/include"),
    "-I" + path.join(sourceDir, "tests/unit/events"),
    "-o",
    makeEvents,
    path.join(sourceDir, "tests/bench/stat/make_events.cpp"),
  ]);
  const recording = path.join(dir, "run.events");
  const sites = path.join(dir, "run.sites");
  const html = path.join(dir, "run.html");
  run(makeEvents, [String(EVENTS), recording]);
  run(builtFile("example", "word_census"), [], {
    env: {
      ...process.env,
      MEMUSAGE_SITES: sites,
      LD_PRELOAD: builtCollector(),
    },
  });
  const started = process.hrtime.bigint();
  run(builtFile("bin", "memusagestat"), [
    "--html=" + html,
    "--events=" + recording,
    "--sites=" + sites,
  ]);
  const writing = Number(process.hrtime.bigint() - started) / 1e9;

  const size = statSync(html).size;
  t.diagnostic(
    `recording ${(statSync(recording).size / 1e6).toFixed(1)} MB; report ${(size / 1e6).toFixed(2)} MB, written in ${writing.toFixed(2)} s`,
  );
  assert.ok(size < BOUND, `the report is ${size} bytes`);

  const columns = eventColumns(recording);
  const { count } = columns;
  let peakAt = 0;
  for (let i = 1; i < count; i++) if (columns.heap[i] > columns.heap[peakAt]) peakAt = i;
  const peak = columns.heap[peakAt];
  assert.ok(count >= EVENTS, "the recording has " + count + " events");

  const report = await openReport(html);
  t.after(() => report.close());
  const { page } = report;
  const shown = await page.evaluate(() => {
    const json = window.memusageReport.data;
    let top = 0;
    for (const h of json.events.heap) if (h > top) top = h;
    const notice = document.getElementById("thinned-notice");
    const noteTexts = [...document.querySelectorAll("#run-notes li")].map((li) => li.textContent);
    return {
      total: json.events.total,
      kept: json.events.time.length,
      blocks: [json.blocks.born.length, json.blocks.total],
      thinned: json.events.thinned,
      top,
      notice: notice && notice.offsetParent !== null ? notice.textContent : null,
      noteRepeats: json.run.notes.map((note) => noteTexts.join("\n").split(note).length - 1),
      whole: (() => {
        const f = window.memusageReport.windowFigures();
        return {
          events: f.allocatedCalls + f.frees,
          peak: f.peak,
          sites: f.peakSites.reduce((sum, [, bytes]) => sum + bytes, 0) + f.peakSitesRest,
        };
      })(),
      views: performance.getEntriesByName("memusage-first-views").map((m) => m.startTime),
      ready: performance.getEntriesByName("memusage-ready").map((m) => m.startTime),
      paint: performance.getEntriesByType("paint").map((p) => [p.name, p.startTime]),
      loaded: performance.getEntriesByType("navigation")[0].loadEventEnd,
    };
  });
  assert.equal(shown.total, count);
  assert.equal(shown.thinned, true);
  assert.ok(shown.kept < count, "thinned, yet every event is kept");
  assert.equal(shown.top, peak, "the heap's peak is not among the kept events");
  // The whole run's window counts every event, not the kept ones, and its peak's sites add up.
  assert.deepEqual(shown.whole, { events: count, peak, sites: peak });
  assert.match(shown.notice ?? "", /--html-window/, "the page does not say the detail is thinned");
  assert.ok(
    shown.noteRepeats.every((n) => n === 1),
    "each of the writer's notes is shown once: " + shown.noteRepeats,
  );
  assert.equal(
    (shown.notice.match(/--html-window/g) || []).length,
    1,
    "the notice says once how to get every event",
  );

  // Inner windows: across the heap's peak, and a stretch of the run's middle.
  const peakTime = columns.seconds[peakAt];
  const end = columns.seconds[count - 1];
  for (const [what, t0, t1] of [
    ["across the peak", peakTime - 0.004, peakTime + 0.004],
    ["the run's middle", end * 0.4, end * 0.55],
  ]) {
    const figures = await page.evaluate(
      (t0, t1) => window.memusageReport.selectWindow(t0, t1),
      t0,
      t1,
    );
    assert.ok(figures.exact, what + ": the figures are not the exact ones");
    assert.ok(figures.t0 > 0 && figures.t1 < end, what + ": not an inner window");
    const matches = replayMatches(columns, figures);
    assert.ok(
      matches.found,
      `${what} (${figures.t0}..${figures.t1} s): the page says ${JSON.stringify(matches.shown)}, ` +
        `no replay with the events within 2 µs of its edges on either side says so (nearest: ` +
        JSON.stringify(matches.nearest) +
        ")",
    );
  }

  const paint = Object.fromEntries(shown.paint);
  t.diagnostic(
    `first paint ${paint["first-paint"]?.toFixed(0)} ms, first contentful paint ${paint["first-contentful-paint"]?.toFixed(0)} ms, header, summary and timeline drawn ${shown.views[0]?.toFixed(0)} ms, every view ${shown.ready[0]?.toFixed(0)} ms, load ended ${shown.loaded.toFixed(0)} ms; ${shown.kept} events kept of ${shown.total}, ${shown.blocks[0]} blocks of ${shown.blocks[1]}`,
  );
  const rates = {
    "timeline zoom": await frameRate(page, "#timeline .timeline-overlay", "zoom"),
    "timeline pan": await frameRate(page, "#timeline .timeline-overlay", "pan"),
    "block map zoom": await frameRate(page, "#block-map-canvas", "zoom"),
    "block map pan": await frameRate(page, "#block-map-canvas", "pan"),
  };
  t.diagnostic(
    Object.entries(rates)
      .map(([name, rate]) => `${name} ${rate.fps.toFixed(1)} frames/s`)
      .join(", "),
  );
  for (const [name, rate] of Object.entries(rates)) assert.ok(rate.moved, name + " moved nothing");
  assert.deepEqual(report.requests, []);
  assert.deepEqual(report.errors, []);
});
