// SPDX-License-Identifier: MIT
// The HTML report of a real run, in headless Chromium, against the text outputs of the same
// run: the fixture (fixtures/phases.c) is built with cc -g -O0 and run once under
// `memusage --html --data --sites-file --events --sites`; the page is then driven with the
// mouse and the keyboard and what it shows is compared with memusage's printed summary and
// sites report, and with a replay of the event recording read by events_file.mjs (not by
// the report's writer, not by the page).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";

import { readEvents, replay } from "./events_file.mjs";
import {
  builtFile,
  digits,
  fixtureConstants,
  fixtureMarks,
  fixtureSource,
  run,
  runFixture,
} from "./fixture_run.mjs";
import { openReport } from "./open_report.mjs";

const dir = mkdtempSync(path.join(tmpdir(), "memusage-browser-"));
let fixture;
let report;
let page;
let json;
const marks = fixtureMarks();
const constants = fixtureConstants();

before(async () => {
  fixture = runFixture(dir);
  report = await openReport(fixture.html);
  page = report.page;
  json = await page.evaluate(() => window.memusageReport.data);
});

after(async () => {
  if (report) await report.close();
  rmSync(dir, { recursive: true, force: true });
});

// The centre of an element in the viewport, scrolled into view first.
async function centreOf(selector) {
  return page.$eval(selector, (element) => {
    element.scrollIntoView({ block: "center" });
    const box = element.getBoundingClientRect();
    return { x: box.left + box.width / 2, y: box.top + box.height / 2, box: box.toJSON() };
  });
}

const fieldText = (selector) =>
  page.$eval(selector, (element) => element.textContent.trim()).catch(() => null);

test("the page opens from file:// with everything inlined", async () => {
  assert.match(page.url(), /^file:\/\//);
  const page_ = await page.evaluate(() => ({
    protocol: location.protocol,
    external: [...document.querySelectorAll("script[src], link[href], img[src]")].length,
    ready: window.memusageReport.ready,
  }));
  assert.deepEqual(page_, { protocol: "file:", external: 0, ready: true });
  assert.equal(json.format, "memusage-report");
  assert.equal(json.run.program, "phases");
});

test("the summary's figures are the text summary's", async () => {
  const text = fixture.summary;
  for (const field of ["heap_total", "heap_peak", "stack_peak"]) {
    const shown = await fieldText(`#summary dd[data-field=${field}]`);
    assert.ok(shown !== null, "the summary shows no " + field);
    assert.equal(digits(shown), text[field], field + ": the page shows " + shown);
  }
  const rows = await page.$$eval("#summary-calls tbody tr", (trs) =>
    trs.map((tr) => [...tr.cells].map((td) => td.textContent.trim())),
  );
  const shownRows = rows.map(([name, calls, bytes, failed]) => ({
    name,
    calls: digits(calls),
    bytes: digits(bytes),
    failed: /\d/.test(failed || "") ? digits(failed) : null,
  }));
  assert.deepEqual(shownRows, text.rows);
  // The histogram: the page lists every bin, the text only the ones with blocks.
  const bins = await page.$$eval("#summary-histogram tr", (trs) =>
    trs.map((tr) => ({
      from: Number(tr.dataset.from),
      label: tr.querySelector("th").textContent,
      count: tr.querySelector("td.num").textContent,
    })),
  );
  const shownBins = bins
    .filter((bin) => digits(bin.count) > 0)
    .map((bin) => ({
      from: /more/.test(bin.label) ? "large" : bin.from,
      count: digits(bin.count),
    }));
  assert.deepEqual(shownBins, text.histogram);
});

test("a click on the timeline's highest point shows the peak's allocation and its line", async () => {
  await centreOf("#timeline");
  // The top of the heap curve as drawn: the least y of its path, in the viewport.
  const top = await page.$eval("#timeline path[data-series=heap]", (path) => {
    const numbers = path
      .getAttribute("d")
      .match(/-?\d+(\.\d+)?(e-?\d+)?/g)
      .map(Number);
    let best = null;
    for (let i = 0; i + 1 < numbers.length; i += 2) {
      if (best === null || numbers[i + 1] < best.y) best = { x: numbers[i], y: numbers[i + 1] };
    }
    const point = path.ownerSVGElement.createSVGPoint();
    point.x = best.x + 0.5;
    point.y = best.y + 1;
    const screen = point.matrixTransform(path.getScreenCTM());
    return { x: screen.x, y: screen.y };
  });
  await page.mouse.click(top.x, top.y);
  const shown = await page.$eval("#event-details", (box) => ({
    index: box.dataset.index,
    kind: box.querySelector("[data-field=kind]")?.textContent,
    size: box.querySelector("[data-field=size]")?.textContent,
    frames: [...box.querySelectorAll("li.frame")].map((li) => ({
      function: li.dataset.function,
      location: li.querySelector(".location")?.textContent,
      source: li.querySelector(".source")?.textContent ?? null,
    })),
  }));
  assert.match(shown.index, /^\d+$/, "the click showed no event: " + JSON.stringify(shown));
  assert.equal(shown.kind, "allocate");
  assert.equal(digits(shown.size), constants.PEAK_SIZE);
  assert.ok(shown.frames.length >= 2, JSON.stringify(shown.frames));
  const [innermost] = shown.frames;
  assert.equal(innermost.function, "peak_phase");
  assert.equal(innermost.location, fixtureSource + ":" + marks.peak);
  assert.match(innermost.source ?? "", /malloc\(PEAK_SIZE\);/, "the source line is not shown");
  assert.equal(shown.frames[1].function, "main");
  // The event is the one after which the heap is at its peak, as the text summary has it.
  assert.equal(json.events.heap[Number(shown.index)], fixture.summary.heap_peak);
});

// The recording's events with their times on the report's clock: the report's first event
// is the recording's first; every other one must be where the recording's clock puts it.
function recordingOnReportClock() {
  const recording = readEvents(fixture.events);
  assert.equal(recording.events.length, recording.eventCount);
  assert.equal(json.events.total, recording.events.length);
  assert.equal(json.events.time.length, recording.events.length, "a small run is not thinned");
  const offset = json.events.time[0] - recording.events[0].ns / 1e9;
  recording.events.forEach((e, i) => {
    e.seconds = e.ns / 1e9 + offset;
    assert.ok(
      Math.abs(json.events.time[i] - e.seconds) < 1e-3,
      `event ${i}: the report's time ${json.events.time[i]} s, the recording's ${e.seconds} s`,
    );
  });
  return recording;
}

test("the report's events are the recording's", () => {
  const { events } = recordingOnReportClock();
  const kinds = { allocate: 0, release: 1, resize: 2 };
  const { heapAfter } = replay(events);
  events.forEach((e, i) => {
    assert.equal(json.events.kind[i], kinds[e.kind], "kind of event " + i);
    assert.equal(json.events.address[i], e.address, "address of event " + i);
    assert.equal(json.events.heap[i], heapAfter[i], "heap after event " + i);
  });
  assert.equal(Math.max(...heapAfter), fixture.summary.heap_peak);
});

test("a window brushed on the timeline gives the figures of a replay of that window", async () => {
  const recording = recordingOnReportClock();
  const events = recording.events;
  // The phases, split at the pauses between them: the second is window_phase's.
  const starts = [0];
  for (let i = 1; i < events.length; i++)
    if (events[i].seconds - events[i - 1].seconds > 0.03) starts.push(i);
  assert.ok(starts.length >= 4, "the fixture's pauses are not in the recording");
  const [first, end] = [starts[1], starts[2]]; // window_phase: events first .. end-1
  const from = events[first].seconds - 0.02;
  const to = events[end - 1].seconds + 0.02;

  const strip = await centreOf("#timeline .strip-background");
  const duration = Math.max(
    json.run.seconds,
    json.timeline?.time.at(-1) ?? 0,
    json.events.time.at(-1),
  );
  const px = (t) => strip.box.left + (t / duration) * strip.box.width;
  await page.mouse.move(px(from), strip.y);
  await page.mouse.down();
  await page.mouse.move(px(to), strip.y, { steps: 8 });
  await page.mouse.up();
  const [t0, t1] = await page.$eval("#selected-window", (box) => [
    Number(box.dataset.t0),
    Number(box.dataset.t1),
  ]);
  assert.ok(
    t0 > events[first - 1].seconds && t0 < events[first].seconds,
    `the window starts at ${t0} s, not in the pause before window_phase`,
  );
  assert.ok(
    t1 > events[end - 1].seconds && t1 < events[end].seconds,
    `the window ends at ${t1} s, not in the pause after window_phase`,
  );

  // The replay of [t0, t1], from the recording.
  const { heapAfter, blocks } = replay(events);
  const inside = events
    .map((_, i) => i)
    .filter((i) => events[i].seconds >= t0 && events[i].seconds <= t1);
  const last = inside.at(-1);
  const expected = {
    allocatedCalls: inside.filter((i) => events[i].kind !== "release").length,
    allocatedBytes: inside.reduce((sum, i) => sum + (events[i].size ?? 0), 0),
    frees: inside.filter((i) => events[i].kind === "release").length,
    peak: Math.max(...inside.map((i) => heapAfter[i])),
  };
  const live = blocks.filter(
    (b) => b.born >= inside[0] && b.born <= last && (b.died < 0 || b.died > last),
  );
  expected.liveBlocks = live.length;
  expected.liveBytes = live.reduce((sum, b) => sum + b.size, 0);
  // ... which is what the fixture's window_phase does.
  const { WINDOW_COUNT, WINDOW_SIZE, WINDOW_FREED } = constants;
  assert.deepEqual(expected, {
    allocatedCalls: WINDOW_COUNT,
    allocatedBytes: WINDOW_COUNT * WINDOW_SIZE,
    frees: WINDOW_FREED,
    peak: WINDOW_COUNT * WINDOW_SIZE,
    liveBlocks: WINDOW_COUNT - WINDOW_FREED,
    liveBytes: (WINDOW_COUNT - WINDOW_FREED) * WINDOW_SIZE,
  });

  const shown = await page.$eval("#window-figures", (section) => {
    const field = (name) => section.querySelector(`[data-field=${name}]`)?.textContent ?? "";
    return {
      allocated: field("allocated_bytes"),
      calls: field("allocated_calls"),
      frees: field("frees"),
      peak: field("peak"),
      live: field("live_at_end"),
      liveSites: [...section.querySelectorAll("#window-live-sites summary")].map(
        (s) => s.textContent,
      ),
    };
  });
  assert.equal(digits(shown.allocated), expected.allocatedBytes);
  assert.equal(digits(shown.calls), expected.allocatedCalls);
  assert.equal(digits(shown.frees), expected.frees);
  assert.equal(digits(shown.peak.split(" bytes")[0]), expected.peak, shown.peak);
  const liveShown = /([\d,]+) blocks, ([\d,]+) bytes/.exec(shown.live);
  assert.ok(liveShown, shown.live);
  assert.deepEqual(
    [digits(liveShown[1]), digits(liveShown[2])],
    [expected.liveBlocks, expected.liveBytes],
  );
  assert.equal(shown.liveSites.length, 1, shown.liveSites.join("\n"));
  assert.match(shown.liveSites[0], new RegExp(`window_phase \\(.*phases\\.c:${marks.window}\\)`));

  await page.click("#window-reset");
  const whole = await page.$eval("#selected-window", (box) => [box.dataset.t0, box.dataset.t1]);
  assert.equal(Number(whole[0]), 0);
});

test("the flame graph's search finds the fixture's functions with their share of the peak", async () => {
  const held = fixture.sitesReport.sections["Bytes held at the heap peak"];
  const share = (name) =>
    held.filter((s) => s.frames.some((f) => f.function === name)).reduce((a, s) => a + s.bytes, 0) /
    fixture.sitesReport.heapPeak;
  assert.equal(await page.$eval("#flame-metric", (select) => select.value), "peak");
  for (const [term, expected] of [
    ["peak_phase", share("peak_phase")],
    ["window_phase", share("window_phase")],
  ]) {
    await centreOf("#flame-search");
    await page.click("#flame-search", { clickCount: 3 });
    await page.keyboard.press("Backspace");
    await page.type("#flame-search", term);
    const result = await page.$eval("#flame-search-result", (out) => ({
      matches: Number(out.dataset.matches),
      share: Number(out.dataset.share),
      text: out.textContent,
    }));
    assert.ok(result.matches >= 1, term + ": " + JSON.stringify(result));
    assert.ok(
      Math.abs(result.share - expected) < 1e-9,
      `${term}: share ${result.share}, not ${expected}`,
    );
    assert.match(result.text, new RegExp((100 * expected).toFixed(1).replace(".", "\\.") + "%"));
    // d3-flame-graph marks the matching frames in their data; each frame is named by its
    // function and file:line.
    const highlighted = await page.$$eval(
      "#flame g",
      (frames, name) =>
        frames.filter(
          (g) =>
            g.__data__?.highlight &&
            new RegExp(`^${name} \\(phases\\.c:\\d+\\)$`).test(g.__data__.data.name),
        ).length,
      term,
    );
    assert.ok(highlighted >= 1, term + ": no frame highlighted");
  }
  await page.click("#flame-search", { clickCount: 3 });
  await page.type("#flame-search", "no_such_function");
  assert.equal(await page.$eval("#flame-search-result", (out) => out.dataset.matches), "0");
});

test("hovering a block in the block map names its size and allocating function", async () => {
  const b = json.blocks;
  for (const [size, name, line] of [
    [constants.WINDOW_SIZE, "window_phase", marks.window],
    [constants.LEAK_SIZE, "leak_phase", marks.leak],
  ]) {
    const index = b.size.findIndex((s) => s === size);
    assert.ok(index >= 0, "no block of " + size + " bytes in the report");
    const at = await page.evaluate((i) => window.memusageReport.blockPosition(i), index);
    assert.ok(at, "block " + index + " is not in view");
    await page.mouse.move(at.x - 40, at.y - 40);
    await page.mouse.move(at.x, at.y, { steps: 4 });
    const tip = await page.$eval("#block-tooltip", (box) => ({
      hidden: box.hidden,
      block: box.dataset.block,
      size: box.querySelector("[data-field=size]")?.textContent,
      function: box.querySelector("[data-field=function]")?.textContent,
      died: box.querySelector("[data-field=died]")?.textContent,
    }));
    assert.equal(tip.hidden, false, "no tooltip over block " + index);
    assert.equal(b.size[Number(tip.block)], size, "the tooltip is another block's");
    assert.equal(tip.size, size.toLocaleString("en-US") + " bytes");
    assert.equal(tip.function, `${name} (${fixtureSource}:${line})`);
    if (name === "leak_phase") assert.match(tip.died, /never/);
  }
});

test("memusagestat --html-window writes every event of the window, and the page replays it", async (t) => {
  const { events } = recordingOnReportClock();
  const starts = [0];
  for (let i = 1; i < events.length; i++)
    if (events[i].seconds - events[i - 1].seconds > 0.03) starts.push(i);
  const [first, end] = [starts[1], starts[2]]; // window_phase's events
  const t0 = events[first].seconds - 0.01;
  const t1 = events[end - 1].seconds + 0.01;
  const micro = (s) => Math.round(s * 1e6) + "us";
  const html = path.join(dir, "window.html");
  run(builtFile("bin", "memusagestat"), [
    "--html=" + html,
    `--html-window=${micro(t0)}..${micro(t1)}`,
    fixture.data,
    "--sites=" + fixture.sites,
    "--events=" + fixture.events,
  ]);
  const windowReport = await openReport(html);
  t.after(() => windowReport.close());
  const shown = await windowReport.page.evaluate(() => {
    const json = window.memusageReport.data;
    const field = (name) =>
      document.querySelector(`#window-figures [data-field=${name}]`)?.textContent ?? "";
    return {
      events: json.events,
      calls: field("allocated_calls"),
      bytes: field("allocated_bytes"),
      frees: field("frees"),
    };
  });
  assert.equal(shown.events.thinned, false);
  const columns = ["time", "kind", "address", "size", "heap"];
  const expected = Object.fromEntries(
    columns.map((c) => [c, json.events[c].filter((_, i) => i >= first && i < end)]),
  );
  const got = Object.fromEntries(columns.map((c) => [c, shown.events[c]]));
  assert.deepEqual(got, expected);
  const { WINDOW_COUNT, WINDOW_SIZE, WINDOW_FREED } = constants;
  assert.equal(digits(shown.calls), WINDOW_COUNT);
  assert.equal(digits(shown.bytes), WINDOW_COUNT * WINDOW_SIZE);
  assert.equal(digits(shown.frees), WINDOW_FREED);
  assert.deepEqual(windowReport.errors, []);
});

test("axes read at round binary values, counts agree in number, number cells align right", async () => {
  const shown = await page.evaluate(() => ({
    heapTicks: [...document.querySelectorAll("#timeline svg g.tick text")].map(
      (t) => t.textContent,
    ),
    runLine: document.getElementById("run-line").textContent,
    numberCells: [
      ...document.querySelectorAll("#summary-calls tbody tr, #threads-table tbody tr"),
    ].map((tr) =>
      [...tr.cells].slice(1, 3).every((td) => getComputedStyle(td).textAlign === "right"),
    ),
    frameWords: [...document.querySelectorAll("#event-details li.frame .word")].map(
      (w) => w.textContent,
    ),
  }));
  const byteTicks = shown.heapTicks.filter((t) => /B$/.test(t) || /bytes$/.test(t));
  assert.ok(byteTicks.length >= 2, shown.heapTicks.join(" | "));
  for (const tick of byteTicks) assert.match(tick, /^[\d,]+ (bytes|KiB|MiB|GiB)$/, tick);
  assert.doesNotMatch(shown.runLine, /\b1 threads\b/);
  const threads = json.threads.length;
  assert.match(shown.runLine, new RegExp(`\\b${threads} thread${threads === 1 ? "\\b" : "s"}`));
  assert.ok(shown.numberCells.length > 0 && shown.numberCells.every(Boolean));
  assert.equal(shown.frameWords[0], "at", "the event's stack starts with its site, at");
  assert.ok(shown.frameWords.slice(1).every((w) => w === "by" || w === "via"));
});

// `memusagestat --long-lived=DURATION`'s report of the same run's files: its totals and each
// entry's figures and innermost frame, in its order.
function textLongLived(duration) {
  const args = [
    "--sites=" + fixture.sites,
    "--events=" + fixture.events,
    "--long-lived=" + duration,
  ];
  const result = spawnSync(builtFile("bin", "memusagestat"), args, { encoding: "utf8" });
  assert.equal(result.status, 0, "memusagestat " + args.join(" ") + ":\n" + result.stderr);
  const text = result.stdout;
  const head =
    /^Long-lived blocks: (\d+) blocks? \((\d+) bytes?\) lived longer than .*, from (\d+) stacks?/m.exec(
      text,
    );
  assert.ok(head || /^No long-lived blocks/m.test(text), text);
  const sites = [];
  for (const line of text.split("\n")) {
    const entry =
      /^\s+#\d+ (\d+) bytes? in (\d+) blocks? \(([^)]*)\); lifetime mean .*, longest ([\d.]+) (s|ms|µs)$/.exec(
        line,
      );
    if (entry) {
      const scale = { s: 1, ms: 1e-3, µs: 1e-6 }[entry[5]];
      sites.push({
        bytes: +entry[1],
        blocks: +entry[2],
        fates: entry[3],
        longest: entry[4] * scale,
      });
      continue;
    }
    const at = /^\s+at (\S+) \((.*):(\d+)\)/.exec(line);
    if (at && sites.length && !sites.at(-1).at) sites.at(-1).at = `${at[1]} (${at[2]}:${at[3]})`;
  }
  return {
    blocks: head ? +head[1] : 0,
    bytes: head ? +head[2] : 0,
    sites,
    text,
  };
}

// The page's long-lived list as shown: totals and each site's figures and innermost frame.
async function pageLongLived() {
  const shown = await page.$eval("#long-lived", (box) => ({
    threshold: Number(box.dataset.threshold),
    blocks: Number(box.dataset.blocks),
    bytes: Number(box.dataset.bytes),
    total: box.querySelector(".long-lived-total")?.textContent ?? "",
    sites: [...box.querySelectorAll("#long-lived-sites details")].map((d) => ({
      site: Number(d.dataset.site),
      summary: d.querySelector("summary").textContent,
    })),
  }));
  shown.sites = shown.sites.map(({ site, summary }) => {
    const figures =
      /^([\d,]+) bytes? in ([\d,]+) blocks? \(([^)]*)\); .*, longest ([\d.]+) (s|ms|µs)/.exec(
        summary,
      );
    assert.ok(figures, summary);
    const frame = json.frames[json.sites[site].frames[0]];
    return {
      bytes: digits(figures[1]),
      blocks: digits(figures[2]),
      fates: figures[3],
      longest: figures[4] * { s: 1, ms: 1e-3, µs: 1e-6 }[figures[5]],
      at: `${frame.function} (${frame.file}:${frame.line})`,
    };
  });
  return shown;
}

function assertSameLongLived(shown, text, what) {
  const context = what + "\n" + shown.total + "\n" + text.text;
  assert.equal(shown.blocks, text.blocks, context);
  assert.equal(shown.bytes, text.bytes, context);
  const figures = (sites) => sites.map((s) => [s.at, s.bytes, s.blocks, s.fates]);
  assert.deepEqual(figures(shown.sites), figures(text.sites), context);
  // Lifetimes as printed, to their last digit (the page's times are rounded to 100 ns).
  shown.sites.forEach((s, i) =>
    assert.ok(Math.abs(s.longest - text.sites[i].longest) <= 0.11e-3, context),
  );
}

test("the long-lived blocks are memusagestat --long-lived's for the duration set", async () => {
  // The default, a tenth of the run, in ms.
  const input = await page.$eval("#long-lived-ms", (box) => box.value);
  assert.ok(Number(input) > 0, "no default duration: " + input);
  assert.ok(Math.abs(Number(input) - json.run.seconds * 100) <= json.run.seconds * 0.5);
  assertSameLongLived(await pageLongLived(), textLongLived(input + "ms"), "the default, " + input);

  // Typed: 30 ms, past the first phases' blocks (microseconds), short of window_phase's
  // blocks freed after the next two pauses (120 ms and more).
  await centreOf("#long-lived-ms");
  await page.click("#long-lived-ms");
  await page.keyboard.down("Control");
  await page.keyboard.press("a");
  await page.keyboard.up("Control");
  await page.keyboard.type("30");
  const shown = await pageLongLived();
  assert.equal(shown.threshold, 0.03);
  const text = textLongLived("30ms");
  assertSameLongLived(shown, text, "30 ms");
  const { WINDOW_COUNT, WINDOW_SIZE, WINDOW_FREED } = constants;
  assert.deepEqual(
    shown.sites.map((s) => [s.at, s.blocks, s.bytes, s.fates]),
    [
      [
        `window_phase (${fixtureSource}:${marks.window})`,
        WINDOW_COUNT - WINDOW_FREED,
        (WINDOW_COUNT - WINDOW_FREED) * WINDOW_SIZE,
        "all freed",
      ],
    ],
  );
});

test("the page made no request and logged no error", () => {
  assert.deepEqual(report.requests, []);
  assert.deepEqual(report.errors, []);
});
