// SPDX-License-Identifier: MIT
// The report's manners, on the fixture's run (fixtures/phases.c) and checked against that
// run's own outputs: the stack on its own axis, whose top is the text summary's stack peak;
// the charts drawn anew at a new window width, with no horizontal overflow; the "next" and
// "previous event" buttons, which step through the event recording's records (read here by
// events_file.mjs) by keyboard and keep the event in the address; the legends of the
// coloured charts; and the dark theme, taken from the system's (prefers-color-scheme).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";

import { readEvents, replay } from "./events_file.mjs";
import { digits, runFixture } from "./fixture_run.mjs";
import { openReport } from "./open_report.mjs";

const dir = mkdtempSync(path.join(tmpdir(), "memusage-browser-"));
let fixture;
let report;
let page;

before(async () => {
  fixture = runFixture(dir);
  report = await openReport(fixture.html, { width: 1400 });
  page = report.page;
});

after(async () => {
  if (report) {
    assert.deepEqual(report.requests, []);
    assert.deepEqual(report.errors, []);
    await report.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

test("the stack has its own axis, whose top is the text summary's stack peak", async () => {
  assert.ok(fixture.summary.stack_peak > 0, "the fixture's run has no stack peak");
  assert.ok(
    fixture.summary.stack_peak * 50 < fixture.summary.heap_peak,
    "on the heap's axis the stack would not be a flat line",
  );
  const shown = await page.evaluate(() => {
    const plot = document.getElementById("timeline-stack");
    return {
      axis: window.memusageReport.stackAxis(),
      // Where its curve's highest point is, in its chart (0: the top).
      curveTop: plot.querySelector("path[data-series=stack]").getBBox().y,
      inStackChart: plot.contains(document.querySelector("#timeline path[data-series=stack]")),
      ticks: [...plot.querySelectorAll(".stack-axis .tick text")].map((t) => t.textContent),
      title: plot.querySelector(".axis-title").textContent,
      legend: [...document.querySelectorAll("#timeline .legend text")].map((t) => t.textContent),
    };
  });
  assert.equal(shown.axis.top, fixture.summary.stack_peak);
  assert.ok(shown.inStackChart, "the stack is drawn on the heap's chart");
  // Its peak reaches its chart's top: not a line at 0.
  assert.ok(shown.curveTop < 8, `the stack's curve reaches ${shown.curveTop} px below the top`);
  assert.ok(shown.ticks.length >= 2, "the stack's axis has no ticks: " + shown.ticks);
  assert.equal(shown.title, "stack");
  assert.ok(
    shown.legend.some((text) => /^stack/.test(text)),
    "no legend entry for the stack: " + shown.legend,
  );
});

test("the stack's chart shades what is outside the selected window, as the heap's does", async () => {
  const shades = await page.evaluate(() => {
    const json = window.memusageReport.data;
    const t = json.events.time;
    window.memusageReport.selectWindow(
      t[0] + (t.at(-1) - t[0]) / 3,
      t.at(-1) - (t.at(-1) - t[0]) / 3,
    );
    const of = (selector) =>
      [...document.querySelectorAll(selector + " .outside-window rect")].map((r) => [
        Number(r.getAttribute("x")),
        Number(r.getAttribute("width")),
      ]);
    const heap = of("#timeline svg > g:first-of-type");
    const stack = of("#timeline-stack");
    window.memusageReport.resetWindow();
    return { heap, stack, after: of("#timeline-stack") };
  });
  assert.equal(shades.stack.length, 2);
  assert.deepEqual(shades.stack, shades.heap);
  assert.deepEqual(shades.after, []);
});

test("the charts follow a resize of the window, with no horizontal overflow", async () => {
  const widths = async () =>
    page.evaluate(() => ({
      timeline: Number(document.querySelector("#timeline svg").getAttribute("width")),
      timelineBox: document.getElementById("timeline").clientWidth,
      flame: Number(document.querySelector("#flame svg").getAttribute("width")),
      threads: Number(document.getElementById("threads-chart").getAttribute("width")),
      blockMap: document.getElementById("block-map-canvas").getBoundingClientRect().width,
      page: document.documentElement.scrollWidth,
      window: window.innerWidth,
    }));
  const wide = await widths();
  assert.equal(wide.timeline, wide.timelineBox);
  assert.ok(wide.page <= wide.window, `the page is ${wide.page} px wide at ${wide.window} px`);
  for (const width of [800, 1400]) {
    await page.setViewport({ width, height: 1000 });
    await page.waitForFunction(
      () =>
        Number(document.querySelector("#timeline svg").getAttribute("width")) ===
        document.getElementById("timeline").clientWidth,
    );
    const now = await widths();
    assert.ok(now.page <= now.window, `the page is ${now.page} px wide at ${now.window} px`);
    if (width === 800) {
      for (const chart of ["timeline", "flame", "threads", "blockMap"])
        assert.ok(now[chart] < wide[chart] - 400, `${chart}: ${now[chart]} px at 800 px`);
    } else assert.deepEqual(now, wide);
  }
});

test("next and previous event step through the recording's events, by keyboard, kept in the address", async () => {
  const recording = readEvents(fixture.events);
  const { heapAfter } = replay(recording.events);
  const peak = await page.evaluate(() => window.memusageReport.goToPeak());
  assert.ok(peak > 0 && peak < recording.events.length - 1);
  const shownEvent = () =>
    page.evaluate(() => {
      const box = document.getElementById("event-details");
      const field = (name) => box.querySelector(`dd[data-field=${name}]`).textContent;
      return {
        index: box.dataset.index,
        kind: field("kind"),
        size: field("size"),
        address: field("address"),
        heap: field("heap"),
        hash: location.hash,
        focusOutline: getComputedStyle(document.activeElement).outlineStyle,
        focused: document.activeElement.id,
      };
    });
  const expectEvent = (shown, index) => {
    const e = recording.events[index];
    assert.equal(shown.index, String(index));
    assert.equal(shown.kind, { allocate: "allocate", release: "free", resize: "resize" }[e.kind]);
    assert.equal(digits(shown.heap), heapAfter[index], "heap after event " + index);
    assert.equal(Number.parseInt(shown.address, 16), e.address, "address of event " + index);
    if (e.size !== null && e.kind !== "release") assert.equal(digits(shown.size), e.size);
    assert.equal(shown.hash, "#event=" + index);
  };

  await page.focus("#go-to-peak");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  let shown = await shownEvent();
  assert.equal(shown.focused, "next-event");
  assert.notEqual(shown.focusOutline, "none", "the focused button shows no focus");
  expectEvent(shown, peak + 1);

  await page.keyboard.down("Shift");
  await page.keyboard.press("Tab");
  await page.keyboard.up("Shift");
  await page.keyboard.press("Enter");
  await page.keyboard.press("Enter");
  shown = await shownEvent();
  assert.equal(shown.focused, "previous-event");
  expectEvent(shown, peak - 1);

  // A reload opens on the same event.
  await page.reload({ waitUntil: "load" });
  await page.waitForFunction(() => window.memusageReport && window.memusageReport.ready);
  expectEvent(await shownEvent(), peak - 1);

  // The first event has none before it: the button says so.
  const first = await page.evaluate(() => {
    window.memusageReport.showEvent(1);
    const before = window.memusageReport.stepEvent(-1);
    return {
      before,
      again: window.memusageReport.stepEvent(-1),
      disabled: document.getElementById("previous-event").disabled,
    };
  });
  assert.deepEqual(first, { before: 0, again: -1, disabled: true });
});

test("every coloured chart has a legend", async () => {
  const legends = await page.evaluate(() => ({
    timeline: [...document.querySelectorAll("#timeline .legend text")].map((t) => t.textContent),
    threads: [...document.querySelectorAll("#threads-chart .legend")].map((g) => ({
      text: g.querySelector("text").textContent,
      colour: g.querySelector("rect").getAttribute("fill"),
      line: document
        .querySelector(
          `#threads-chart path[data-thread="${g.querySelector("text").textContent.slice(1).split(" ")[0]}"]`,
        )
        ?.getAttribute("fill"),
    })),
    flame: document.getElementById("flame-legend")?.textContent ?? "",
    blockMap: document.getElementById("block-map-legend")?.textContent ?? "",
    overview: document.getElementById("block-map-overview-legend")?.textContent ?? "",
    threadCount: document.querySelectorAll("#threads-chart path.thread-line").length,
  }));
  assert.deepEqual(legends.timeline.slice(0, 2), ["total", "heap"]);
  assert.equal(legends.threads.length, legends.threadCount);
  for (const item of legends.threads) assert.equal(item.colour, item.line, item.text);
  assert.match(legends.flame, /search/);
  assert.match(legends.blockMap, /Colours/);
  assert.match(legends.overview, /in use/);
});
