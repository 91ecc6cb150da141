// SPDX-License-Identifier: MIT
// The report of a run past the bound of clickable events (fixtures/many_events.c, about
// 700,000 events) says exact figures for any window: the whole run's equal memusage's printed
// summary, and three windows (inside the life of a long-lived block, across the heap's peak,
// a quiet stretch) equal a replay of every event of the recording in that window, computed
// here from the events file (events_file.mjs), not from the report's data.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";

import { readEvents } from "./events_file.mjs";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";

import { builtFile, digits, run, runFixture, sourceDir } from "./fixture_run.mjs";
import { openReport } from "./open_report.mjs";

const source = path.join(sourceDir, "tests/browser/fixtures/many_events.c");
const LONG_SIZE = 8 << 20;
const dir = mkdtempSync(path.join(tmpdir(), "memusage-browser-"));
let fixture;
let report;
let page;
let json;
let recording;

before(async () => {
  fixture = runFixture(dir, source);
  report = await openReport(fixture.html);
  page = report.page;
  json = await page.evaluate(() => {
    const data = window.memusageReport.data;
    return {
      run: data.run,
      events: {
        total: data.events.total,
        thinned: data.events.thinned,
        first: data.events.time[0],
      },
      sites: data.sites.map((s) => s.id),
    };
  });
  recording = replayByTime(readEvents(fixture.events));
});

after(async () => {
  if (report) await report.close();
  rmSync(dir, { recursive: true, force: true });
});

// Every event with its time on the report's clock (the report's first event is the
// recording's first), the heap after it, its call's asked bytes (a resize: its growth) and
// the bytes each raw site holds after it, kept only where asked for (`holdersAt`).
function replayByTime({ events }) {
  const offset = json.events.first - events[0].ns / 1e9;
  const live = new Map(); // address -> { size, site }
  let heap = 0;
  for (const e of events) {
    e.seconds = e.ns / 1e9 + offset;
    e.asked = 0;
    if (e.kind === "allocate") {
      live.set(e.address, { size: e.size, site: e.site });
      heap += e.size;
      e.asked = e.size;
    } else {
      const from = e.kind === "resize" ? e.oldAddress : e.address;
      const block = live.get(from);
      const old = block ? block.size : 0;
      if (block) {
        live.delete(from);
        heap -= old;
      }
      if (e.kind === "resize") {
        live.set(e.address, { size: e.size, site: block ? block.site : 0 });
        heap += e.size;
        e.asked = Math.max(0, e.size - old);
      }
    }
    e.heap = heap;
  }
  return events;
}

// The bytes each raw site holds right after event `index`.
function holdersAfter(events, index) {
  const live = new Map();
  for (let i = 0; i <= index; i++) {
    const e = events[i];
    if (e.kind === "allocate") live.set(e.address, { size: e.size, site: e.site });
    else {
      const from = e.kind === "resize" ? e.oldAddress : e.address;
      const block = live.get(from);
      live.delete(from);
      if (e.kind === "resize") live.set(e.address, { size: e.size, site: block ? block.site : 0 });
    }
  }
  const bySite = new Map();
  for (const { size, site } of live.values()) bySite.set(site, (bySite.get(site) || 0) + size);
  return bySite;
}

// The window's figures from the recording: every event at or after t0 and before t1 (a
// bucket holds its start, not its end), the heap carried in counted in the peak.
function replayWindow(t0, t1) {
  const events = recording;
  let before = -1;
  const inside = [];
  events.forEach((e, i) => {
    if (e.seconds < t0) before = i;
    else if (e.seconds < t1) inside.push(i);
  });
  let peak = before >= 0 ? events[before].heap : 0;
  let peakAfter = before;
  for (const i of inside)
    if (events[i].heap > peak) {
      peak = events[i].heap;
      peakAfter = i;
    }
  return {
    allocatedCalls: inside.filter((i) => events[i].kind !== "release").length,
    allocatedBytes: inside.reduce((sum, i) => sum + events[i].asked, 0),
    frees: inside.filter((i) => events[i].kind === "release").length,
    peak,
    peakAfter,
  };
}

// Selects [t0, t1] on the page and reads the window's figures as shown.
async function shownWindow(t0, t1) {
  return page.evaluate(
    (t0, t1) => {
      if (t0 === null) window.memusageReport.resetWindow();
      else window.memusageReport.selectWindow(t0, t1);
      const section = document.getElementById("window-figures");
      const field = (name) => section.querySelector(`[data-field=${name}]`)?.textContent ?? "";
      const box = document.getElementById("selected-window");
      const f = window.memusageReport.windowFigures();
      return {
        t0: Number(box.dataset.t0),
        t1: Number(box.dataset.t1),
        figuresT0: Number(section.dataset.t0),
        allocated: field("allocated_bytes"),
        calls: field("allocated_calls"),
        frees: field("frees"),
        peak: field("peak"),
        sites: [...section.querySelectorAll("#window-peak-sites details")].map((d) => [
          Number(d.dataset.site),
          d.querySelector("summary").textContent,
        ]),
        rest: Number(document.getElementById("window-peak-rest")?.dataset.bytes ?? 0),
        peakSites: f.peakSites,
        note: document.getElementById("window-exact")?.textContent ?? "",
      };
    },
    t0,
    t1,
  );
}

// A time near `t` clear of events by two buckets: `t` itself when it is, else the middle of
// the nearest pause in the recording at least five buckets long (the fixture pauses between
// its phases and between the slices of its long-lived phase).
function clearOfEvents(t, width) {
  const near = (time, by) => recording.some((e) => Math.abs(e.seconds - time) < by);
  if (!near(t, 2 * width)) return t;
  let best = null;
  for (let i = 1; i < recording.length; i++) {
    const a = recording[i - 1].seconds;
    const b = recording[i].seconds;
    if (b - a < 5 * width) continue;
    const middle = (a + b) / 2;
    if (best === null || Math.abs(middle - t) < Math.abs(best - t)) best = middle;
  }
  assert.ok(best !== null, "no pause in the recording near " + t);
  return best;
}

// A window near [t0, t1] whose snapped edges have no event within 2 µs (the recording's
// clock and the report's agree to well under that): the test's replay then puts every
// event in the bucket the report put it in, however densely the machine ran the fixture.
async function windowAwayFromEvents(t0, t1) {
  const width = (json.run.seconds || 1) / 4096;
  const shown = await shownWindow(clearOfEvents(t0, width), clearOfEvents(t1, width));
  const near = (edge) => recording.some((e) => Math.abs(e.seconds - edge) < 2e-6);
  assert.ok(
    !near(shown.t0) && !near(shown.t1),
    `the window ${shown.t0}..${shown.t1} has an event at an edge`,
  );
  return shown;
}

function assertEqualsReplay(shown, what) {
  // The last bucket holds its end too: the run's last event may be at it.
  const expected = replayWindow(shown.t0, shown.t1 >= json.run.seconds ? Infinity : shown.t1);
  assert.equal(shown.figuresT0, shown.t0, what + ": the figures are of another window");
  assert.equal(digits(shown.allocated), expected.allocatedBytes, what + ": allocated");
  assert.equal(digits(shown.calls), expected.allocatedCalls, what + ": calls");
  assert.equal(digits(shown.frees), expected.frees, what + ": frees");
  assert.equal(digits(shown.peak.split(" bytes")[0]), expected.peak, what + ": " + shown.peak);
  // The sites holding the peak, and the smaller ones' bytes, add up to it; each listed
  // site holds what the replay says its raw sites held at that moment.
  const listed = shown.peakSites.reduce((sum, [, bytes]) => sum + bytes, 0);
  assert.equal(listed + shown.rest, expected.peak, what + ": the peak's sites do not add up");
  const holders = holdersAfter(recording, expected.peakAfter);
  const indexOf = new Map(json.sites.map((id, index) => [id, index]));
  const bySite = new Map();
  for (const [raw, bytes] of holders) {
    const index = indexOf.has(raw) ? indexOf.get(raw) : -1;
    bySite.set(index, (bySite.get(index) || 0) + bytes);
  }
  for (const [site, bytes] of shown.peakSites)
    assert.equal(bytes, bySite.get(site), `${what}: site ${site} at the peak`);
  return expected;
}

test("the run is past the bound of clickable events, and the page says its figures are exact", async () => {
  assert.ok(json.events.total >= 600000, json.events.total + " events");
  assert.equal(json.events.thinned, true);
  const shown = await shownWindow(null, null);
  assert.match(shown.note, /^Exact/);
});

test("the whole run's window is the summary", async () => {
  const shown = await shownWindow(null, null);
  const summary = fixture.summary;
  const row = (name) => summary.rows.find((r) => r.name === name)?.calls ?? 0;
  assert.equal(digits(shown.allocated), summary.heap_total);
  assert.equal(digits(shown.calls), row("malloc") + row("realloc") + row("calloc"));
  assert.equal(digits(shown.peak.split(" bytes")[0]), summary.heap_peak);
  assertEqualsReplay(shown, "the whole run");
  // One meaning of "allocated": the threads' bytes add up to the summary's heap total.
  const threads = await page.evaluate(() =>
    window.memusageReport.data.threads.reduce((sum, t) => sum + (t.bytes || 0), 0),
  );
  assert.equal(threads, summary.heap_total);
});

test("a window inside a long-lived block counts the block carried into it", async () => {
  const born = recording.findIndex((e) => e.kind === "allocate" && e.size === LONG_SIZE);
  const died = recording.findIndex(
    (e, i) => i > born && e.kind === "release" && e.address === recording[born].address,
  );
  assert.ok(born >= 0 && died > born, "no long-lived block in the recording");
  const a = recording[born].seconds;
  const b = recording[died].seconds;
  const shown = await windowAwayFromEvents(a + (b - a) * 0.3, a + (b - a) * 0.5);
  assert.ok(shown.t0 > a && shown.t1 < b, "the window is not inside the block's life");
  const expected = assertEqualsReplay(shown, "inside the long-lived block");
  assert.ok(expected.peak >= LONG_SIZE);
  const long = shown.sites.find(([, text]) => /long_lived/.test(text));
  assert.ok(long, "the long-lived block's site does not hold the window's peak");
});

test("a window across the heap's peak", async () => {
  let top = 0;
  recording.forEach((e, i) => {
    if (e.heap > recording[top].heap) top = i;
  });
  const t = recording[top].seconds;
  const shown = await windowAwayFromEvents(t - 0.004, t + 0.004);
  const expected = assertEqualsReplay(shown, "across the peak");
  assert.equal(expected.peak, fixture.summary.heap_peak);
});

test("a window of a quiet stretch holds no call and the heap carried in", async () => {
  let gap = 1;
  for (let i = 1; i < recording.length; i++)
    if (
      recording[i].seconds - recording[i - 1].seconds >
      recording[gap].seconds - recording[gap - 1].seconds
    )
      gap = i;
  const a = recording[gap - 1].seconds;
  const b = recording[gap].seconds;
  assert.ok(b - a > 0.05, "no quiet stretch in the recording");
  const shown = await windowAwayFromEvents(a + 0.01, b - 0.02);
  const expected = assertEqualsReplay(shown, "a quiet stretch");
  assert.equal(expected.allocatedCalls + expected.frees, 0);
  assert.ok(expected.peak > 0, "the kept blocks are not carried in");
});

// The heap levels the recording went through in [t0, t1): the one carried in, and after each
// event inside.
function levelsIn(t0, t1) {
  let low = null;
  let high = null;
  let carried = 0;
  for (const e of recording) {
    if (e.seconds < t0) carried = e.heap;
    else if (e.seconds < t1) {
      low = Math.min(low ?? carried, e.heap);
      high = Math.max(high ?? carried, e.heap);
    }
  }
  return {
    low: Math.min(low ?? carried, carried),
    high: Math.max(high ?? carried, carried),
    carried,
  };
}

// The [least, greatest] levels of [t0, t1) for every way the events within CLOCK of either
// edge may fall on its sides: the recording's clock and the report's agree only to that, and
// the churn phases put an event every few hundred nanoseconds.
const CLOCK = 2e-6;
function possibleLevels(t0, t1) {
  const first = (t) => {
    const i = recording.findIndex((e) => e.seconds >= t);
    return i < 0 ? recording.length : i;
  };
  const cuts = (t) => {
    const out = [];
    for (let i = first(t - CLOCK); i <= first(t + CLOCK); i++) out.push(i);
    return out;
  };
  const heapAt = (i) => recording[i].heap;
  const out = [];
  for (const c0 of cuts(t0))
    for (const c1 of cuts(t1)) {
      // Events c0 .. c1 - 1 fall inside; the level carried in is the one after c0 - 1.
      const carried = c0 > 0 ? heapAt(c0 - 1) : 0;
      let low = carried;
      let high = carried;
      for (let i = c0; i < c1; i++) {
        low = Math.min(low, heapAt(i));
        high = Math.max(high, heapAt(i));
      }
      out.push([low, high]);
    }
  return out;
}

test("the timeline draws, at clicked times, the levels the recording went through there", async () => {
  await page.evaluate(() => window.memusageReport.resetWindow());
  const envelope = await page.evaluate(() => {
    const e = window.memusageReport.data.timeline.envelope;
    return e ? { start: e.start, end: e.end, count: e.count } : null;
  });
  assert.ok(envelope, "the thinned timeline has no envelope");
  const width = (envelope.end - envelope.start) / envelope.count;
  const edge = (i) => envelope.start + width * i;
  let top = 0;
  recording.forEach((e, i) => {
    if (e.heap > recording[top].heap) top = i;
  });
  const born = recording.findIndex((e) => e.kind === "allocate" && e.size === LONG_SIZE);
  const end = recording.at(-1).seconds;
  const times = [
    recording[Math.floor(recording.length / 10)].seconds,
    recording[born].seconds + 0.002,
    recording[top].seconds,
    end * 0.8,
    end * 0.95,
  ];
  for (const t of times) {
    const drawn = await page.evaluate((t) => window.memusageReport.drawnLevel(t), t);
    assert.ok(drawn, "nothing drawn at " + t);
    const at = levelsIn(t, t).carried; // the level at t: after the last event before it
    assert.ok(
      drawn.min <= at && at <= drawn.max,
      `${t} s: level ${at} outside ${drawn.min}..${drawn.max}`,
    );
    // The column draws exactly the least and greatest of the buckets it covers.
    const i0 = Math.max(0, Math.floor((drawn.from - envelope.start) / width));
    const i1 = Math.max(i0, Math.ceil((drawn.to - envelope.start) / width) - 1);
    const possible = possibleLevels(edge(i0), edge(i1 + 1));
    assert.ok(
      possible.some(([low, high]) => low === drawn.min && high === drawn.max),
      `${t} s: drawn ${drawn.min}..${drawn.max}, the recording ${possible[0].join("..")}`,
    );
  }
});

test("a run without allocation says so, with the time it ran", async (t) => {
  const program = path.join(dir, "no_allocation");
  writeFileSync(program + ".c", "int main(void) { return 0; }\n");
  execFileSync(process.env.CC || "cc", ["-O0", "-o", program, program + ".c"]);
  const html = path.join(dir, "no_allocation.html");
  run(builtFile("bin", "memusage"), ["--html=" + html, program]);
  const empty = await openReport(html);
  t.after(() => empty.close());
  const shown = await empty.page.evaluate(() => ({
    seconds: window.memusageReport.data.run.seconds,
    said: document.getElementById("no-allocation")?.textContent ?? "",
    threads: document.querySelector("#summary [data-field=threads]").textContent,
  }));
  assert.ok(shown.seconds < 60, "the run lasted " + shown.seconds + " s, the machine's uptime");
  assert.match(shown.said, /^No allocation/);
  assert.doesNotMatch(shown.threads, /^0$/);
  assert.deepEqual(empty.errors, []);
});

test("a data file alone, without a clock, is drawn in shares of the run", async (t) => {
  const html = path.join(dir, "data_only.html");
  run(builtFile("bin", "memusagestat"), ["--html=" + html, fixture.data]);
  const alone = await openReport(html);
  t.after(() => alone.close());
  const shown = await alone.page.evaluate(() => ({
    unit: window.memusageReport.data.run.time_unit,
    ticks: [...document.querySelectorAll("#timeline svg g.tick text")].map((t) => t.textContent),
    duration: document.querySelector("#summary [data-field=seconds]").textContent,
  }));
  assert.equal(shown.unit, "share");
  assert.match(shown.duration, /^100% of the run$/);
  assert.ok(
    shown.ticks.some((tick) => /^\d+(\.\d+)?%$/.test(tick)),
    "no tick in % of the run: " + shown.ticks.join(" | "),
  );
  assert.ok(
    !shown.ticks.some((tick) => /\d (s|ms|µs)$/.test(tick)),
    "a tick in seconds: " + shown.ticks.join(" | "),
  );
  assert.deepEqual(alone.errors, []);
});

test("a site's histograms are exact when the report kept every one of its blocks", async () => {
  const sites = await page.evaluate(() => {
    const data = window.memusageReport.data;
    const kept = new Map();
    data.blocks.site.forEach((s, i) => {
      if (!data.blocks.resized[i]) kept.set(s, (kept.get(s) || 0) + 1);
    });
    return {
      thinned: data.blocks.thinned,
      rows: data.sites.map((s, i) => {
        // The element a click on the site's row opens (report_histograms.js).
        // eslint-disable-next-line no-undef
        const box = SiteHistograms.element(data, i);
        return {
          blocks: s.blocks,
          kept: kept.get(i) || 0,
          exact: window.memusageReport.siteHistograms(i).exact,
          note: box.querySelector(".thinned")?.textContent ?? null,
        };
      }),
    };
  });
  assert.equal(sites.thinned, true, "the fixture's blocks are thinned");
  let whole = 0;
  let part = 0;
  for (const row of sites.rows) {
    assert.equal(row.exact, row.kept === row.blocks, JSON.stringify(row));
    assert.equal(row.note === null, row.exact, "the sample's note where the figures are one");
    if (row.exact) whole += 1;
    else part += 1;
  }
  assert.ok(whole > 0 && part > 0, `sites with every block kept: ${whole}, with some: ${part}`);
});

test("the page made no request and raised no error", () => {
  assert.deepEqual(report.requests, []);
  assert.deepEqual(report.errors, []);
});
