// The report of a 10-million-event run stays under 25 MB, keeps the heap's extreme, says its
// detail is thinned, and opens in Chromium; the test prints its first paint and the frame
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

import { heapPeak } from "./events_file.mjs";
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

test("the report of a 10-million-event run is under 25 MB, keeps the peak and opens", async (t) => {
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

  const { peak, count } = heapPeak(recording);
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
