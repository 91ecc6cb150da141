// SPDX-License-Identifier: MIT
// The HTML report's page: reads the report's data (DATA.md) from
// <script type="application/json" id="report-data"> and draws its views, linked by one
// selected time window (the whole run until one is chosen).
//
// What the browser tests may rely on:
//   ids      #summary (dd[data-field=heap_peak] ...), #timeline, #event-details, #window-figures,
//            #flame, #flame-search, #flame-search-result, #flame-metric, #flame-direction,
//            #sites-table, #sites-filter, #callers-table (tr.callers-row[data-key][data-self]
//            [data-inclusive]), #callers-details[data-key] ([data-list] callers, callees),
//            #source-body[data-file][data-self][data-inclusive] (tr[data-line][data-self]
//            [data-inclusive]), #source-file, #source-metric, #source-window, a.source-link,
//            .site-histograms[data-blocks][data-max-bytes] (in an open site row), #block-map, #block-tooltip, #threads, #stack-peak,
//            #leaks, #long-lived (its figures in data-threshold, in seconds, data-bytes,
//            data-blocks, data-sites), #long-lived-ms (the duration, in ms), #long-lived-sites
//            (details [data-site] per site, largest first), #selected-window, #thinned-notice
//   data-    #event-details[data-index] (the shown event, or record "r<index>"),
//            #selected-window[data-t0][data-t1], #flame-search-result[data-matches][data-share],
//            #block-tooltip[data-block], tr.site-row[data-site], [data-field] on every figure,
//            #stack-peak .stack-peak[data-tid][data-bytes][data-stack] (a thread's peak) and
//            its li.stack-peak-frame[data-function][data-frames][data-bytes] (a folded line)
//   window.memusageReport
//     .data                       the parsed JSON
//     .ready                      true once every view has drawn (the header, summary and
//                                 timeline draw first, the others one a frame after them;
//                                 performance marks "memusage-first-views", "memusage-ready")
//     .selectWindow(t0, t1)       select a window in seconds; returns its figures
//     .resetWindow()              back to the whole run
//     .goToPeak()                 as the "go to the heap peak" button: shows the first event
//                                 (or record) at the window's highest heap; returns its index
//     .windowFigures()            the selected window's figures
//     .drawnLevel(time)           the heap curve's pixel column at that time: { px, min, max,
//                                 from, to } (its least and greatest level, its time span)
//     .clickTimeline(time, heap)  as a click on the timeline at that time (and heap, in bytes,
//                                 which picks among the events within three pixels): shows
//                                 and returns the event's index (or -1)
//     .showEvent(index)           show one event in #event-details
//     .stepEvent(step)            as the "next event" (1) and "previous event" (-1) buttons:
//                                 shows the event (or record) after or before the shown one;
//                                 returns its index (or -1 when there is none)
//     .stackAxis()                the timeline's stack chart: { top } (the greatest stack it
//                                 draws, its axis' top), or null when the run has no stack
//     .callers(metric, by)        the callers table's rows ({ key, self, inclusive }) and total
//                                 for metric peak|allocated|leaked, by function|line
//     .siteHistograms(site)       a site's size and lifetime bins and most bytes live
//     .overTime()                 the over-time charts' columns (#sites-over-time,
//                                 #calls-per-second, #bytes-per-second in #over-time)
//     .searchFlame(text)          as typing into #flame-search; returns the match count
//     .blockPosition(index)       the viewport's {x, y} of a block in the block map, or null
//     .showBlock(index)           the block's tooltip, as when hovered
//     .setLongLived(ms)           as typing ms into #long-lived-ms; returns the long-lived
//                                 blocks' figures ({ threshold, blocks, bytes, sites: [{ site,
//                                 bytes, blocks, freed, total, longest }] ...}), or null
/* global ReportFormat, ReportData, SummaryView, TimelineView, WindowFiguresView, FlameView, SitesTableView, CallersView, SourceView,
   BlockMapView, ThreadsView, StackPeakView, LeaksView, LongLivedView, SiteHistograms, OverTimeView */
"use strict";

(() => {
  const F = ReportFormat;
  const json = JSON.parse(document.getElementById("report-data").textContent);
  const data = new ReportData(json);
  if (json.run && json.run.time_unit === "share") F.useShareOfRun(F);
  const byId = (id) => document.getElementById(id);
  let windowRange = [data.begin, data.duration];
  // The event (or, without events, the record) shown in #event-details: its index, or -1.
  let shownIndex = -1;

  function header() {
    const run = data.run;
    byId("run-command").textContent = run.command || run.program || "";
    byId("run-command").title = run.command || run.program || "";
    document.title = "memusage: " + (run.command || run.program || "report");
    byId("run-line").textContent =
      (run.program || "the program") +
      (run.pid ? ", process " + run.pid : "") +
      ", " +
      F.seconds(run.seconds) +
      ", " +
      F.count(data.threads.length, "thread", "threads") +
      (run.ended_by_crash ? ", ended by a crash" : "");
    const notes = byId("run-notes");
    // The writer's notes say what it thinned and how to get every event; the page adds only
    // what they leave unsaid, so that each fact is said once, in one notice.
    const all = run.notes || [];
    const thinning = all.filter((note) => /thinned/i.test(note));
    for (const note of all) if (!thinning.includes(note)) notes.append(F.element("li", {}, note));
    const said = (pattern) => thinning.some((note) => pattern.test(note));
    const unsaid = [
      json.timeline && json.timeline.thinned && !said(/timeline/i) && "the timeline",
      json.events && json.events.thinned && !said(/event/i) && "the events",
      json.blocks && json.blocks.thinned && !said(/block/i) && "the blocks",
    ].filter(Boolean);
    if (!thinning.length && !unsaid.length) return;
    const notice = F.element("li", { id: "thinned-notice", className: "thinned" });
    notice.append(F.element("strong", {}, "Detail is thinned. "), thinning.join(" "));
    if (unsaid.length)
      notice.append(
        (thinning.length ? " " : "") +
          "Thinned too: " +
          unsaid.join(", ") +
          " (the extremes and a sample are kept).",
      );
    if (data.events && data.events.thinned)
      notice.append(" A click on the timeline finds the nearest kept event.");
    if (!said(/--html-window/))
      notice.append(
        " For every event of a part of the run, write its report alone with " +
          "memusagestat --html-window=START..END.",
      );
    notes.append(notice);
  }

  function eventDetails(index) {
    shown(index);
    const box = byId("event-details");
    box.replaceChildren();
    const e = data.events;
    box.dataset.index = index;
    const kind = F.eventKind(e.kind[index]);
    box.append(
      F.element("h3", {}, "Event " + F.integer(index) + ": " + kind),
      F.element(
        "dl",
        { className: "figures" },
        F.element("dt", {}, "operation"),
        F.element("dd", { "data-field": "kind" }, kind),
        F.element("dt", {}, "size"),
        F.element("dd", { "data-field": "size" }, F.integer(e.size[index]) + " bytes"),
        F.element("dt", {}, "address"),
        F.element("dd", { "data-field": "address" }, F.address(e.address[index])),
        F.element("dt", {}, "thread"),
        F.element("dd", { "data-field": "thread" }, data.threadName(e.thread[index])),
        F.element("dt", {}, "time"),
        F.element("dd", { "data-field": "time" }, F.seconds(e.time[index])),
        F.element("dt", {}, "heap after"),
        F.element("dd", { "data-field": "heap" }, F.integer(e.heap[index]) + " bytes"),
      ),
      F.element("h4", {}, "Stack"),
      data.stackElement(e.site[index]),
    );
  }

  function recordDetails(index) {
    shown(index);
    const box = byId("event-details");
    const tl = data.timeline;
    box.replaceChildren(
      F.element("h3", {}, "Record " + F.integer(tl.index[index])),
      F.element(
        "dl",
        { className: "figures" },
        F.element("dt", {}, "time"),
        F.element("dd", { "data-field": "time" }, F.seconds(tl.time[index])),
        F.element("dt", {}, "heap"),
        F.element("dd", { "data-field": "heap" }, F.integer(tl.heap[index]) + " bytes"),
        F.element("dt", {}, "stack"),
        F.element("dd", { "data-field": "stack" }, F.integer(tl.stack[index]) + " bytes"),
      ),
      F.missing(
        "The run has no event recording, so the record stands for the event: no stack.",
        "Run memusage with --html=FILE, or with --events=FILE, to click through to every event.",
      ),
    );
    box.dataset.index = "r" + index;
  }

  function pick(time, heap, tolerance) {
    if (data.events) {
      const index = data.nearestEvent(time, heap, tolerance);
      eventDetails(index);
      timeline.showPicked(data.events.time[index], data.events.heap[index]);
      return index;
    }
    const record = data.nearestRecord(time);
    if (record < 0) return -1;
    recordDetails(record);
    timeline.showPicked(data.timeline.time[record], data.timeline.heap[record]);
    return record;
  }

  function selectWindow(t0, t1) {
    t0 = Math.max(data.begin, Math.min(t0, t1));
    t1 = Math.min(data.duration, Math.max(t0, t1));
    const whole = t0 <= data.begin && t1 >= data.duration;
    // The window the figures are exact for: widened to the buckets' edges, shown as such.
    if (!whole) [t0, t1] = data.snapWindow(t0, t1);
    windowRange = [t0, t1];
    const box = byId("selected-window");
    box.dataset.t0 = t0;
    box.dataset.t1 = t1;
    byId("window-text").textContent = whole
      ? data.run.window
        ? "the whole report: " + F.seconds(t0) + " to " + F.seconds(t1) + " of the run"
        : "the whole run"
      : F.seconds(t0) + " to " + F.seconds(t1);
    timeline.setWindow(t0, t1);
    if (blockMap) blockMap.setWindow(t0, t1);
    if (overTime) overTime.setWindow(t0, t1);
    keepWindowInAddress(whole ? null : [t0, t1]);
    if (!windowFigures) {
      captions(whole ? null : [t0, t1], null);
      return null;
    }
    windowFigures.show(t0, t1);
    const f = windowFigures.figures;
    // Every view from the same figures of the window: one count of each quantity.
    const shown = whole ? null : f;
    if (flame) flame.setWindow(shown);
    if (callers) callers.setWindow(shown);
    if (source) source.setWindow(shown);
    if (sitesTable) sitesTable.setWindow(shown);
    if (threads) threads.setWindow(shown);
    if (leaks) leaks.setWindow(shown);
    if (longLived) longLived.setWindow(shown);
    captions(whole ? null : [t0, t1], shown);
    return f;
  }

  // Each view's caption: which part of the run it shows.
  function captions(range, f) {
    const name = F.windowName(range);
    const whole = data.run.window ? "the whole report" : "the whole run";
    const say = (id, windowed, text) => F.windowCaption(byId(id), windowed ? range : null, text);
    say(
      "summary-window",
      false,
      "Shows " + whole + (range ? "; the window's figures are under Window figures." : "."),
    );
    say("window-caption", true, "Shows " + (name || whole) + ".");
    say("block-map-window", true, "Shows " + (name || whole) + ".");
    say("over-time-window", true, "Shows " + (name || whole) + ".");
    if (!data.sites) return;
    const exactEvents = !f || f.breakdown;
    say(
      "sites-window",
      true,
      range
        ? "Shows " +
            name +
            ": each site's bytes at its heap peak" +
            (f && f.breakdown ? ", its allocating calls, bytes and frees in it" : "") +
            (f && f.liveSites
              ? ", and the bytes it allocated in the window still live at its end, and never freed"
              : "") +
            "; only the sites with a figure in it." +
            (exactEvents
              ? ""
              : " Its allocations are not listed: the report keeps a sample of the events " +
                "(memusagestat --html-window writes the window's report with every one).")
        : "Shows " + whole + ".",
    );
    const threadsFollow = !range || (f && f.breakdown);
    say(
      "threads-window",
      threadsFollow,
      threadsFollow ? "Shows " + (name || whole) + "." : "Shows " + whole + ".",
    );
    const blocksFollow = !range || (f && f.leaks);
    say(
      "leaks-window",
      blocksFollow,
      blocksFollow
        ? "Shows " + (range ? name + ": the blocks allocated in it" : whole) + "."
        : "Shows " + whole + ": the run has no block lives.",
    );
  }

  // The window and the shown event in the address's fragment (#window=T0..T1&event=N,
  // seconds and the event's index; r<N> for a record), so that a reload or a shared link
  // opens on them; each left out when it is the whole run, or no event.
  let keptWindow = null;
  function keepWindowInAddress(range) {
    keptWindow = range;
    keepInAddress();
  }

  function keepInAddress() {
    const parts = [];
    if (keptWindow) parts.push("window=" + keptWindow[0] + ".." + keptWindow[1]);
    if (shownIndex >= 0) parts.push("event=" + (data.events ? "" : "r") + shownIndex);
    const fragment = parts.length ? "#" + parts.join("&") : "";
    if (location.hash === fragment || (!parts.length && !/^#(window|event)=/.test(location.hash)))
      return;
    history.replaceState(null, "", location.pathname + location.search + fragment);
  }

  function addressPart(name) {
    const part = location.hash
      .slice(1)
      .split("&")
      .find((p) => p.startsWith(name + "="));
    return part === undefined ? null : part.slice(name.length + 1);
  }

  function windowInAddress() {
    const match = /^([0-9.e+-]+)\.\.([0-9.e+-]+)$/.exec(addressPart("window") || "");
    if (!match) return null;
    const range = [Number(match[1]), Number(match[2])];
    return range.every(Number.isFinite) && range[1] > range[0] ? range : null;
  }

  // The event (r<N>: the record) in the address, when the report has it; else -1.
  function eventInAddress() {
    const match = /^(r?)(\d+)$/.exec(addressPart("event") || "");
    const column = data.events || data.timeline;
    if (!match || !column || (match[1] === "r") !== !data.events) return -1;
    const index = Number(match[2]);
    return index < column.time.length ? index : -1;
  }

  // The shown event's index, kept in the address; the step buttons enabled where they lead
  // somewhere.
  function shown(index) {
    shownIndex = index;
    const column = data.events || data.timeline;
    const count = column && column.time ? column.time.length : 0;
    byId("previous-event").disabled = count === 0 || index === 0;
    byId("next-event").disabled = count === 0 || index === count - 1;
    keepInAddress();
  }

  // Shows the event (or record) at `index`, marked on the timeline.
  function showAt(index) {
    if (data.events) {
      eventDetails(index);
      timeline.showPicked(data.events.time[index], data.events.heap[index]);
    } else {
      recordDetails(index);
      timeline.showPicked(data.timeline.time[index], data.timeline.heap[index]);
    }
  }

  // The event after (step 1) or before (-1) the shown one in the recording (the record,
  // without events); with none shown, the window's first or last.
  function stepEvent(step) {
    const column = data.events || data.timeline;
    if (!column || !column.time || column.time.length === 0) return -1;
    let index;
    if (shownIndex >= 0) index = shownIndex + step;
    else if (step > 0) index = ReportData.lowerBound(column.time, windowRange[0]);
    else index = ReportData.lowerBound(column.time, windowRange[1] + 1e-12) - 1;
    if (index < 0 || index >= column.time.length) return -1;
    showAt(index);
    return index;
  }

  // Shows the event (or record) at the heap's highest level in the selected window, the first
  // to reach it; its time is the window figures' peak time when the report has buckets.
  function goToPeak() {
    const [t0, t1] = windowRange;
    const column = data.events || data.timeline;
    if (!column) return -1;
    let best = -1;
    const first = ReportData.lowerBound(column.time, t0);
    for (let i = first; i < column.time.length && column.time[i] <= t1; i++)
      if (best < 0 || column.heap[i] > column.heap[best]) best = i;
    if (best < 0) return -1;
    showAt(best);
    byId("event-details").scrollIntoView({ block: "nearest" });
    return best;
  }

  // The header, the summary and the timeline first; the views below them one at a time in
  // the frames after, so the page shows before they are all drawn.
  header();
  SummaryView(data, byId("summary"));
  const timeline = new TimelineView(data, byId("timeline"), {
    onWindow: (t0, t1) => selectWindow(t0, t1),
    onPick: pick,
  });
  timeline.setWindow(data.begin, data.duration);
  if (!data.events && !data.timeline)
    byId("event-details").append("Nothing to click: the run has no records.");
  byId("timeline-axis").addEventListener(
    "change",
    (event) => timeline.source && timeline.setAxis(event.target.value),
  );
  byId("timeline-reset").addEventListener("click", () => timeline.source && timeline.resetZoom());
  byId("go-to-peak").addEventListener("click", () => goToPeak());
  byId("next-event").addEventListener("click", () => stepEvent(1));
  byId("previous-event").addEventListener("click", () => stepEvent(-1));
  if (!data.events && !(data.timeline && data.timeline.time && data.timeline.time.length)) {
    byId("next-event").disabled = true;
    byId("previous-event").disabled = true;
  }
  // The bar's links scroll to their view and leave the address to the window.
  byId("report-nav").addEventListener("click", (event) => {
    const link = event.target.closest("a[href^='#']");
    const target = link && byId(link.getAttribute("href").slice(1));
    if (!target) return;
    event.preventDefault();
    target.scrollIntoView();
    const heading = target.querySelector("h2");
    if (heading) {
      heading.tabIndex = -1;
      heading.focus({ preventScroll: true });
    }
  });
  byId("window-reset").addEventListener("click", () => selectWindow(data.begin, data.duration));
  // A window's report holds no more than its window: the button goes back to it.
  if (data.run.window) byId("window-reset").textContent = "Whole window";
  performance.mark("memusage-first-views");

  let windowFigures = null;
  let flame = null;
  let blockMap = null;
  let longLived = null;
  let sitesTable = null;
  let callers = null;
  let source = null;
  let threads = null;
  let leaks = null;
  let overTime = null;
  // A window in the address (a reload, a shared link) is opened on.
  {
    const kept = windowInAddress();
    if (kept) windowRange = kept;
    keptWindow = kept;
    const event = eventInAddress();
    if (event >= 0) showAt(event);
  }
  const later = [
    () => {
      windowFigures = new WindowFiguresView(data, byId("window-figures"));
      windowFigures.show(...windowRange);
    },
    () => {
      overTime = OverTimeView(data, byId("over-time"));
      overTime.setWindow(...windowRange);
    },
    () => {
      flame = new FlameView(data, byId("flame"), {
        details: byId("flame-details"),
        search: byId("flame-search"),
        searchResult: byId("flame-search-result"),
        caption: byId("flame-window"),
      });
      byId("flame-metric").addEventListener("change", (event) =>
        flame.setMetric(event.target.value),
      );
      byId("flame-direction").addEventListener("change", (event) =>
        flame.setDirection(event.target.value),
      );
      byId("flame-search").addEventListener("input", (event) =>
        flame.search(event.target.value.trim()),
      );
      byId("flame-reset").addEventListener("click", () => flame.resetZoom());
    },
    () => {
      callers = new CallersView(data, byId("callers-table"), {
        caption: byId("callers-window"),
        details: byId("callers-details"),
      });
      byId("callers-metric").addEventListener("change", (e) => callers.setMetric(e.target.value));
      byId("callers-by").addEventListener("change", (e) => callers.setGrouping(e.target.value));
      byId("callers-filter").addEventListener("input", (e) => callers.setFilter(e.target.value));
    },
    () => {
      source = new SourceView(data, byId("source-body"), {
        caption: byId("source-window"),
        file: byId("source-file"),
      });
      byId("source-metric").addEventListener("change", (e) => source.setMetric(e.target.value));
      byId("source-file").addEventListener("change", (e) => source.setFile(e.target.value));
    },
    () => {
      sitesTable = new SitesTableView(
        data,
        byId("sites-table"),
        byId("sites-filter"),
        byId("sites-count"),
      );
    },
    () => {
      blockMap = new BlockMapView(data, byId("block-map"), byId("block-tooltip"));
      byId("block-colour").addEventListener("change", (event) =>
        blockMap.setColourBy(event.target.value),
      );
      byId("block-reset").addEventListener("click", () => blockMap.resetZoom());
    },
    () => {
      threads = ThreadsView(data, byId("threads-body"));
    },
    () => StackPeakView(data, byId("stack-peak")),
    () => {
      leaks = LeaksView(data, byId("leaks-list"));
      longLived = new LongLivedView(data, byId("long-lived"), byId("long-lived-ms"));
    },
    () => {
      // A window chosen before these views were drawn.
      // (A window's report names its window.)
      if (data.run.window || windowRange[0] > data.begin || windowRange[1] < data.duration)
        selectWindow(...windowRange);
      else captions(null, null);
      window.memusageReport.ready = true;
      performance.mark("memusage-ready");
    },
  ];
  // One view per task, after the browser has had a frame to paint.
  // The charts follow the window's width: drawn anew once the resizing has paused.
  let resizing = 0;
  window.addEventListener("resize", () => {
    clearTimeout(resizing);
    resizing = setTimeout(redrawCharts, 150);
  });
  // The canvases take the theme's colours when drawn: drawn anew when the system's changes.
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
    if (blockMap) blockMap.resize(true);
  });
  function redrawCharts() {
    if (timeline.source) timeline.resize();
    for (const view of [flame, blockMap, threads, overTime]) if (view && view.resize) view.resize();
  }
  const steps = later.length;
  const loading = byId("loading");
  const next = () => {
    const step = later.shift();
    if (!step) {
      loading.hidden = true;
      return;
    }
    loading.textContent = "Drawing the views: " + (steps - later.length) + " of " + steps + "…";
    step();
    requestAnimationFrame(() => setTimeout(next, 0));
  };
  requestAnimationFrame(() => setTimeout(next, 0));

  window.memusageReport = {
    data: json,
    ready: false,
    selectWindow,
    resetWindow: () => selectWindow(data.begin, data.duration),
    windowFigures: () => windowFigures && windowFigures.figures,
    windowRange: () => windowRange.slice(),
    goToPeak,
    drawnLevel: (t) => timeline.drawnLevel(t),
    clickTimeline(time, heap) {
      if (!timeline.source) return -1;
      return pick(time, heap, heap === undefined ? 0 : timeline.toleranceAt(time));
    },
    showEvent(index) {
      eventDetails(index);
      timeline.showPicked(data.events.time[index], data.events.heap[index]);
    },
    stepEvent,
    stackAxis() {
      const plot = byId("timeline-stack");
      return plot ? { top: Number(plot.dataset.top) } : null;
    },
    // The callers table's figures: { metric, by, total, rows: [{ key, self, inclusive }] },
    // after selecting `metric` and `by` when given (as the view's selects do).
    callers(metric, by) {
      if (!callers || !data.sites) return null;
      if (metric && metric !== callers.metric) {
        byId("callers-metric").value = metric;
        callers.setMetric(metric);
      }
      if (by && by !== callers.by) {
        byId("callers-by").value = by;
        callers.setGrouping(by);
      }
      return {
        metric: callers.metric,
        by: callers.by,
        total: callers.total,
        rows: callers.rows.map((r) => ({ ...r })),
      };
    },
    // The over-time charts' figures of the selected window ({ t0, t1, sites, columns:
    // [{ t0, t1, high, highTime, sites, other, calls, bytes, callsPerSecond, bytesPerSecond }] }),
    // or null without buckets.
    overTime: () => (overTime ? overTime.figures() : null),
    // The source view's figures of a file (a frame's recorded path): { file, self, inclusive
    // (each { peak, allocated, leaked }), lines: [{ line, self, inclusive }] }, for the
    // selected window as shown; with `line`, the file is opened there as a click does.
    source(file, line) {
      if (!source || !data.sites) return null;
      if (line !== undefined) source.open(file, line);
      return source.figures(file);
    },
    // A site's histograms and most bytes live (SiteHistograms' figures), or null.
    siteHistograms: (site) => (data.blocks ? SiteHistograms.figures(data, site) : null),
    searchFlame(text) {
      if (!flame) return 0;
      byId("flame-search").value = text;
      flame.search(text.trim());
      return Number(byId("flame-search-result").dataset.matches);
    },
    blockPosition: (index) => (data.blocks && blockMap ? blockMap.blockPosition(index) : null),
    setLongLived(ms) {
      return longLived ? longLived.set(ms) : null;
    },
    showBlock(index) {
      if (!data.blocks || !blockMap) return false;
      const p = blockMap.blockPosition(index);
      if (p) blockMap.showTooltip(index, p.x + window.scrollX, p.y + window.scrollY);
      return p !== null;
    },
  };
})();
