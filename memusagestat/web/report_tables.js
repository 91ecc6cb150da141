// SPDX-License-Identifier: MIT
// The views made of figures and tables: summary, window figures, sites, threads, leaks and
// long-lived blocks.
/* exported SummaryView, WindowFiguresView, SitesTableView, ThreadsView, LeaksView,
   LongLivedView */
/* global ReportFormat, SiteHistograms, SortableTable, TimeChart */
"use strict";

const missingSites = [
  "This run has no allocation sites.",
  "Run memusage with --html=FILE, or keep them with --sites-file=FILE and give them to " +
    "memusagestat --html with --sites=FILE.",
];
const missingEvents = [
  "This run has no event recording.",
  "Run memusage with --html=FILE, or record with --events=FILE and give it to " +
    "memusagestat --html with --events=FILE.",
];

function figureList(entries) {
  const F = ReportFormat;
  return F.element(
    "dl",
    { className: "figures" },
    ...entries.flatMap(([label, value, field]) => [
      F.element("dt", {}, label),
      F.element("dd", { "data-field": field }, value),
    ]),
  );
}

function SummaryView(data, section) {
  const F = ReportFormat;
  const run = data.run;
  section.append(
    figureList([
      ["command", run.command || "(unknown)", "command"],
      ["program", run.program || "(unknown)", "program"],
      ["process", run.pid ? String(run.pid) : "–", "pid"],
      ["duration", F.seconds(run.seconds), "seconds"],
      [
        "threads",
        data.threads.length ? F.integer(data.threads.length) : "none recorded (no call)",
        "threads",
      ],
      [
        "sites",
        run.sample_interval > 0 ? "sampled every " + F.bytes(run.sample_interval) : "exact",
        "sampling",
      ],
      ["ended", run.ended_by_crash ? "by a crash" : "normally", "ended"],
    ]),
  );
  const s = data.summary;
  if (!s) {
    section.append(
      F.missing("The run's files hold no summary.", "Give memusagestat the data file of the run."),
    );
    return;
  }
  if (s.heap_total === 0 && s.all_calls === 0 && s.heap_peak === 0)
    section.append(
      F.element(
        "p",
        { id: "no-allocation" },
        "No allocation: the program made no call to the heap in its " +
          F.seconds(run.seconds) +
          ".",
      ),
    );
  section.append(
    figureList([
      ["heap total", F.integer(s.heap_total), "heap_total"],
      ["heap peak", F.integer(s.heap_peak), "heap_peak"],
      ["stack peak", F.integer(s.stack_peak), "stack_peak"],
      ["total peak", F.integer(s.total_peak), "total_peak"],
      ["all calls", F.integer(s.all_calls), "all_calls"],
    ]),
  );
  section.append(
    F.table(
      ["function", "calls", "total memory", "failed calls"],
      s.rows.map((r) => [r.name, r.calls, r.bytes, r.failed]),
      { id: "summary-calls", className: "figures-table" },
    ),
  );
  const extra = [
    ["realloc in place", F.integer(s.realloc.nomove), "realloc_nomove"],
    ["realloc decreasing", F.integer(s.realloc.dec), "realloc_dec"],
    ["realloc freeing", F.integer(s.realloc.free), "realloc_free"],
  ];
  if (s.mremap) {
    extra.push(["mremap in place", F.integer(s.mremap.nomove), "mremap_nomove"]);
    extra.push(["mremap decreasing", F.integer(s.mremap.dec), "mremap_dec"]);
  }
  section.append(figureList(extra));
  const most = Math.max(1, ...s.histogram.map((h) => h.count));
  const histogram = F.element("table", { id: "summary-histogram", className: "histogram" });
  for (const bin of s.histogram) {
    const label =
      bin.to === null
        ? F.integer(bin.from) + " and more"
        : F.integer(bin.from) + "–" + F.integer(bin.to);
    const bar = F.element("div", { className: "bar" });
    bar.style.width = (100 * bin.count) / most + "%";
    histogram.append(
      F.element(
        "tr",
        { "data-from": bin.from },
        F.element("th", {}, label),
        F.element("td", { className: "num" }, F.integer(bin.count)),
        F.element("td", { className: "bar-cell" }, bar),
      ),
    );
  }
  section.append(F.element("h3", {}, "Block sizes"), histogram);
}

// A list of sites, each opening to its stack (built when opened); the first `shown` of them,
// then a button for more.
function siteRows(data, entries, valueHeader, format, shown = 50) {
  const F = ReportFormat;
  const list = F.element("ul", { className: "site-list" });
  let done = 0;
  const more = F.element("button", { type: "button", className: "more" });
  const add = (count) => {
    const end = Math.min(entries.length, done + count);
    for (; done < end; done++) {
      const [site, value] = entries[done];
      const details = F.element(
        "details",
        { "data-site": site },
        F.element(
          "summary",
          { title: data.siteTitle(site) },
          format(value) + (valueHeader ? " " + valueHeader : "") + " — " + data.siteName(site),
        ),
      );
      details.addEventListener(
        "toggle",
        () =>
          details.open &&
          details.childElementCount === 1 &&
          details.append(data.stackElement(site)),
      );
      list.append(F.element("li", {}, details));
    }
    const left = entries.length - done;
    more.textContent =
      "Show " +
      F.count(Math.min(left, count), "more site", "more sites") +
      " of " +
      F.integer(left);
    if (left > 0) list.append(F.element("li", { className: "more-item" }, more));
    else more.remove();
  };
  more.addEventListener("click", () => {
    more.parentElement.remove();
    add(shown);
  });
  add(shown);
  return list;
}

class WindowFiguresView {
  constructor(data, section) {
    this.data = data;
    this.section = section;
  }

  show(t0, t1) {
    const F = ReportFormat;
    const data = this.data;
    const f = data.windowFigures(t0, t1);
    this.figures = f;
    const section = this.section;
    section.replaceChildren();
    section.dataset.t0 = f.t0;
    section.dataset.t1 = f.t1;
    const entries = [["window", F.seconds(f.t0) + " to " + F.seconds(f.t1), "window"]];
    if (f.peak !== null) {
      entries.push([
        "heap peak",
        F.count(f.peak, "byte", "bytes") + " at " + F.seconds(f.peakTime),
        "peak",
      ]);
    }
    if (f.allocatedBytes !== null) {
      entries.push(["allocated", F.count(f.allocatedBytes, "byte", "bytes"), "allocated_bytes"]);
      entries.push(["allocating calls", F.integer(f.allocatedCalls), "allocated_calls"]);
      entries.push(["blocks freed", F.integer(f.frees), "frees"]);
    }
    if (f.liveBlocks !== undefined) {
      const blocks = (count, bytes) =>
        F.count(count, "block", "blocks") +
        ", " +
        F.count(bytes, "byte", "bytes") +
        (f.liveSampled ? " (of the blocks the report keeps)" : "");
      entries.push([
        "allocated in it, live at its end",
        blocks(f.liveBlocks, f.liveBytes),
        "live_at_end",
      ]);
      entries.push([
        "carried in (allocated before it, live at its start)",
        blocks(f.carriedBlocks, f.carriedBytes),
        "carried_in",
      ]);
    }
    section.append(figureList(entries));
    // What the figures are: exact over whole buckets, or from the events kept.
    let about;
    if (f.exact)
      about =
        "Exact, from every event of the run: the window is widened to the report's time " +
        "buckets of " +
        F.seconds(data.bucketEdge(1) - data.bucketEdge(0)) +
        "; the heap peak counts the heap carried into it. Allocated: the bytes asked for, " +
        "a growing realloc counting its growth, as in the summary. Blocks freed: the calls " +
        "that freed a block (the summary's free row also counts free(NULL), which frees none).";
    else if (data.events && data.json.events.thinned)
      about =
        "From the " +
        F.integer(data.events.time.length) +
        " events the report keeps of " +
        F.integer(data.json.events.total) +
        ": a sample, not the window's exact figures.";
    if (about)
      section.append(F.element("p", { className: "figures-note", id: "window-exact" }, about));
    if (!data.events) section.append(F.missing(...missingEvents));
    if (f.peakSites) {
      section.append(F.element("h3", {}, "Sites holding the window's heap peak"));
      section.append(siteRows(data, f.peakSites, "", (v) => F.count(v, "byte", "bytes"), 20));
      section.lastChild.id = "window-peak-sites";
      if (f.peakSitesRest > 0)
        section.append(
          F.element(
            "p",
            { id: "window-peak-rest", "data-bytes": f.peakSitesRest },
            "and " + F.count(f.peakSitesRest, "byte", "bytes") + " held by smaller sites",
          ),
        );
    }
    if (f.liveSites && f.liveSites.length) {
      section.append(
        F.element(
          "h3",
          {},
          "Blocks allocated in the window and live at its end, by site" +
            (f.liveSampled ? " (a sample: of the blocks the report keeps)" : ""),
        ),
      );
      section.append(
        siteRows(
          data,
          f.liveSites,
          "",
          (v) => F.count(v.bytes, "byte", "bytes") + " in " + F.count(v.blocks, "block", "blocks"),
          20,
        ),
      );
      section.lastChild.id = "window-live-sites";
    }
  }
}

// The sites table: sortable by every column, filtered by text, each row opening to its stack.
// It holds the first rows of the order (more on demand), not one row per site: a run has up to
// 100,000 of them.
class SitesTableView {
  constructor(data, container, filterInput, countOutput) {
    this.data = data;
    this.container = container;
    this.countOutput = countOutput;
    this.sortKey = "peak";
    this.descending = true;
    this.filter = "";
    this.step = 200;
    if (!data.sites) {
      container.append(ReportFormat.missing(...missingSites));
      return;
    }
    this.wholeRun = [
      ["site", "site"],
      ["peak", "at peak"],
      ["allocated", "allocated"],
      ["blocks", "blocks"],
      ["freed", "freed"],
      ["freed_blocks", "freed blocks"],
      ["leaked", "leaked"],
      ["leaked_blocks", "leaked blocks"],
      ["kept_by_runtime", "kept by runtime"],
      ["temporary", "temporary"],
    ];
    this.columns = this.wholeRun;
    this.window = null;
    filterInput.addEventListener("input", () => {
      this.filter = filterInput.value.trim().toLowerCase();
      this.render();
    });
    this.render();
  }

  // The selected window's figures (WindowFiguresView's), or null for the whole run: the table
  // then shows each site's figures of the window, from the same figures as the window's view
  // and flame graph, and lists only the sites with a figure in it.
  setWindow(figures) {
    this.window = figures;
    if (!this.data.sites) return;
    if (!figures) this.columns = this.wholeRun;
    else {
      const f = figures;
      const peak = new Map(f.peakSites || []);
      const live = new Map(f.liveSites || []);
      const leaks = f.leaks ? f.leaks.bySite : new Map();
      const by = f.breakdown ? f.breakdown.sites : null;
      const columns = [["site", "site"]];
      const values = {};
      columns.push(["window_peak", "at the window's peak"]);
      values.window_peak = (i) => peak.get(i) || 0;
      if (by) {
        columns.push(["window_allocated", "allocated"], ["window_calls", "allocating calls"]);
        columns.push(["window_frees", "frees"]);
        values.window_allocated = (i) => (by.get(i) || { bytes: 0 }).bytes;
        values.window_calls = (i) => (by.get(i) || { calls: 0 }).calls;
        values.window_frees = (i) => (by.get(i) || { frees: 0 }).frees;
      }
      if (f.liveSites) {
        columns.push(["window_live", "allocated in it, live at its end"]);
        values.window_live = (i) => (live.get(i) || { bytes: 0 }).bytes;
      }
      if (f.leaks) {
        columns.push(["window_leaked", "allocated in it, leaked"]);
        values.window_leaked = (i) => (leaks.get(i) || { bytes: 0 }).bytes;
      }
      this.columns = columns;
      this.windowValues = values;
    }
    if (!this.columns.some(([k]) => k === this.sortKey)) {
      this.sortKey = this.columns[1][0];
      this.descending = true;
    }
    this.render();
  }

  value(i, key) {
    if (this.window && this.windowValues[key]) return this.windowValues[key](i);
    return this.data.sites[i][key];
  }

  // Names and the text the filter searches, made when first asked for.
  names() {
    if (!this.siteNames) this.siteNames = this.data.sites.map((_, i) => this.data.siteName(i));
    return this.siteNames;
  }

  searchText() {
    if (!this.texts)
      this.texts = this.data.sites.map((site) =>
        site.frames
          .map((f) => this.data.frameText(f))
          .join("\n")
          .toLowerCase(),
      );
    return this.texts;
  }

  sortBy(key) {
    [this.sortKey, this.descending] = SortableTable.nextOrder(
      this.sortKey,
      this.descending,
      key,
      (k) => k === "site",
    );
    this.render();
  }

  render() {
    const F = ReportFormat;
    const sites = this.data.sites;
    let rows = d3.range(sites.length);
    if (this.window) {
      const keys = this.columns.slice(1).map(([k]) => k);
      rows = rows.filter((i) => keys.some((k) => this.value(i, k) > 0));
    }
    if (this.filter) {
      const texts = this.searchText();
      rows = rows.filter((i) => texts[i].includes(this.filter));
    }
    const key = this.sortKey;
    const sign = this.descending ? -1 : 1;
    if (key === "site") {
      const names = this.names();
      rows.sort((a, b) => sign * (d3.ascending(names[a], names[b]) || a - b));
    } else {
      const values = Float64Array.from(sites, (_, i) => this.value(i, key));
      rows.sort((a, b) => sign * (values[a] - values[b] || a - b));
    }
    this.rows = rows;
    this.shown = 0;
    const head = SortableTable.head(
      this.columns,
      key,
      this.descending,
      (k) => k === "site",
      (k) => this.sortBy(k),
      this.container,
    );
    this.body = F.element("tbody");
    // A click anywhere on a row opens it; the keyboard reaches its button (Enter and Space
    // click a button), which says to assistive technology whether the row is open.
    const open = (event) => {
      const row = event.target.closest("tr.site-row");
      if (row) this.toggle(row, Number(row.dataset.site));
    };
    this.body.addEventListener("click", open);
    const table = F.element(
      "table",
      { className: "sites" },
      F.element("thead", {}, head),
      this.body,
    );
    this.more = SortableTable.moreButton(() => this.showMore());
    this.container.replaceChildren(table, this.more);
    this.showMore();
  }

  // The next rows of the order.
  showMore() {
    const F = ReportFormat;
    const sites = this.data.sites;
    const rows = this.rows;
    const end = SortableTable.showMore(
      this.body,
      this.more,
      rows.length,
      this.shown,
      this.step,
      (at) => {
        const i = rows[at];
        return F.element(
          "tr",
          { className: "site-row", "data-site": i },
          F.element(
            "td",
            { className: "site-name", title: this.data.siteTitle(i) },
            F.element(
              "button",
              { type: "button", className: "site-toggle", "aria-expanded": "false" },
              this.data.siteName(i),
            ),
          ),
          ...this.columns
            .slice(1)
            .map(([k]) =>
              F.element("td", { className: "num", "data-column": k }, F.integer(this.value(i, k))),
            ),
        );
      },
    );
    this.shown = end;
    const matching = this.window
      ? F.integer(rows.length) +
        " of " +
        F.count(sites.length, "site", "sites") +
        (this.filter ? " with figures in the window match" : " have figures in the window")
      : rows.length === sites.length
        ? F.count(sites.length, "site", "sites")
        : F.integer(rows.length) + " of " + F.count(sites.length, "site", "sites") + " match";
    this.countOutput.textContent =
      matching + (rows.length > end ? "; the first " + F.integer(end) + " shown" : "");
  }

  toggle(row, site) {
    const next = row.nextElementSibling;
    if (next && next.classList.contains("site-stack")) {
      next.remove();
      row.classList.remove("open");
      row.querySelector(".site-toggle").setAttribute("aria-expanded", "false");
      return;
    }
    row.classList.add("open");
    row.querySelector(".site-toggle").setAttribute("aria-expanded", "true");
    const cell = ReportFormat.element(
      "td",
      { colspan: this.columns.length },
      this.data.stackElement(site),
      SiteHistograms.element(this.data, site),
    );
    row.after(ReportFormat.element("tr", { className: "site-stack", "data-site": site }, cell));
  }
}

// The threads' table and heaps; `setWindow(figures)` shows a window's figures (null: the run's).
function ThreadsView(data, section) {
  const F = ReportFormat;
  const view = { setWindow: () => {} };
  if (!data.events) {
    if (data.threads.length) {
      section.append(
        F.table(
          ["thread", "tid", "name"],
          data.threads.map((t) => ["#" + t.serial, F.numberCell(String(t.tid)), t.name || ""]),
          { id: "threads-table" },
        ),
      );
    }
    section.append(F.missing(...missingEvents));
    return view;
  }
  const heaps = data.threadHeaps();
  const wholeTable = () =>
    F.table(
      ["thread", "allocating calls", "bytes allocated", "frees", "peak heap"],
      heaps.map((t) => [data.threadName(t.thread), t.calls, t.bytes, t.frees, t.peak]),
      { id: "threads-table" },
    );
  let table = wholeTable();
  const note = F.element("p", { className: "figures-note", id: "threads-window-note" });
  section.append(table, note);
  // The window's calls, bytes and frees of each thread, from the window's figures (the same
  // count as its sites'); the peak stays the run's: a thread's heap in a window is drawn below.
  let shownWindow = null;
  view.setWindow = (f) => {
    let next;
    shownWindow = f;
    note.textContent = "";
    if (!f) next = wholeTable();
    else if (!f.breakdown) {
      next = wholeTable();
      note.textContent =
        "The whole run's figures: the report keeps a sample of the events, not every event " +
        "of the window (memusagestat --html-window writes the window's report with them).";
    } else {
      const by = f.breakdown.threads;
      const zero = { calls: 0, bytes: 0, frees: 0 };
      next = F.table(
        [
          "thread",
          "allocating calls in the window",
          "bytes allocated in it",
          "frees in it",
          "peak heap (whole run)",
        ],
        heaps.map((t) => {
          const w = by.get(t.thread) || zero;
          return [data.threadName(t.thread), w.calls, w.bytes, w.frees, t.peak];
        }),
        { id: "threads-table" },
      );
    }
    table.replaceWith(next);
    table = next;
    drawBand();
  };
  const drawBand = () => {
    const f = shownWindow;
    band
      .attr("display", f ? null : "none")
      .attr("x", f ? x(f.t0) : 0)
      .attr("width", f ? Math.max(1, x(f.t1) - x(f.t0)) : 0);
  };
  const height = 220;
  const margin = { left: 70, right: 150, top: 10, bottom: 24 };
  let band = null;
  let x = null;
  let svg = null;
  let width = 0;
  // Drawn anew when the section's width changes (a resize of the window).
  view.resize = () => {
    if (Math.max(400, section.clientWidth || 1000) === width) return;
    svg.remove();
    drawChart();
    drawBand();
  };
  const drawChart = () => {
    width = Math.max(400, section.clientWidth || 1000);
    x = d3
      .scaleLinear()
      .domain([data.begin, data.duration || 1])
      .range([margin.left, width - margin.right]);
    const yTicks = F.byteTicks(0, (d3.max(heaps, (t) => t.peak) || 1) * 1.05, 5);
    const y = d3
      .scaleLinear()
      .domain([0, (d3.max(heaps, (t) => t.peak) || 1) * 1.05])
      .range([height - margin.bottom, margin.top]);
    // A thread's colour is the block map's for it.
    const colour = (serial) => data.threadColour(serial);
    svg = d3
      .select(section)
      .append("svg")
      .attr("id", "threads-chart")
      .attr("role", "img")
      .attr("aria-label", "each thread's heap over time")
      .attr("width", width)
      .attr("height", height);
    band = svg
      .append("rect")
      .attr("class", "window-band")
      .attr("y", margin.top)
      .attr("height", height - margin.top - margin.bottom)
      .attr("display", "none");
    TimeChart.axes(svg, x, y, height, margin, yTicks);
    // Each thread's heap as the least and greatest value per pixel column (a line through
    // every event would be as long as the recording).
    const area = d3
      .area()
      .x((c) => c.px)
      .y0((c) => y(c.min) + 0.75)
      .y1((c) => y(c.max) - 0.75)
      .curve(d3.curveStepAfter);
    const columnsOf = (t) => {
      const columns = [];
      let held = 0;
      for (let j = 0; j < t.time.length; j++) {
        const px = Math.round(x(t.time[j]));
        const last = columns[columns.length - 1];
        if (last && last.px === px) {
          last.min = Math.min(last.min, t.value[j]);
          last.max = Math.max(last.max, t.value[j]);
        } else {
          if (last && px > last.px + 1) columns.push({ px: last.px + 1, min: held, max: held });
          columns.push({ px, min: Math.min(held, t.value[j]), max: Math.max(held, t.value[j]) });
        }
        held = t.value[j];
      }
      columns.push({ px: Math.round(x(data.duration)), min: held, max: held });
      return columns;
    };
    heaps.forEach((t, k) => {
      svg
        .append("path")
        .attr("class", "thread-line")
        .attr("data-thread", t.thread)
        .attr("fill", colour(t.thread))
        .attr("d", area(columnsOf(t)));
      // The legend: the thread's colour and its name.
      TimeChart.legendItem(
        svg,
        width - margin.right + 8,
        margin.top + 14 * k + 2,
        colour(t.thread),
        "#" + t.thread + " " + ((data.threadBySerial.get(t.thread) || {}).name || ""),
      );
    });
  };
  drawChart();
  return view;
}

// The leaks by site: the whole run's (the sites' figures), or with `setWindow(figures)` those
// of the blocks allocated in a window and never freed (the window's figures).
function LeaksView(data, section) {
  const F = ReportFormat;
  const view = { setWindow: () => {} };
  if (!data.sites) {
    section.append(F.missing(...missingSites));
    return view;
  }
  const kept = d3.sum(data.sites, (s) => s.kept_by_runtime);
  const draw = (f) => {
    let entries;
    let keptBytes = kept;
    if (!f) {
      entries = d3
        .range(data.sites.length)
        .filter((i) => data.sites[i].leaked > 0)
        .map((i) => [
          i,
          { bytes: data.sites[i].leaked, blocks: data.sites[i].leaked_blocks, grown: i },
        ]);
    } else {
      entries = [...f.leaks.bySite.entries()].filter(([site]) => site >= 0);
      keptBytes = f.leaks.kept.bytes;
    }
    entries.sort((a, b) => b[1].bytes - a[1].bytes || a[0] - b[0]);
    const total = d3.sum(entries, ([, e]) => e.bytes);
    const blocks = d3.sum(entries, ([, e]) => e.blocks);
    section.dataset.leakedBytes = total;
    section.dataset.leakedBlocks = blocks;
    const what = f ? "Allocated in the window and never freed: " : "Leaks: ";
    const parts = [
      F.element(
        "p",
        { className: "leaks-total" },
        entries.length
          ? what +
              F.count(total, "byte", "bytes") +
              " in " +
              F.count(blocks, "block", "blocks") +
              ", from " +
              F.count(entries.length, "site", "sites") +
              "."
          : f
            ? "No block allocated in the window was left unfreed."
            : "No leaks.",
        keptBytes > 0
          ? " Not counted: " +
              F.count(keptBytes, "byte", "bytes") +
              " the C/C++ runtime keeps until exit."
          : "",
        f && f.leaksSampled ? " Of the blocks the report keeps (the block map's sample)." : "",
      ),
    ];
    parts.push(
      siteRows(data, entries, "", (e) => {
        const grown = e.grown === undefined ? [] : data.sites[e.grown].grown || [];
        return (
          F.count(e.bytes, "byte", "bytes") +
          " in " +
          F.count(e.blocks, "block", "blocks") +
          grown
            .filter((g) => g.leaked > 0)
            .map((g) => ", grown at " + g.where)
            .join("")
        );
      }),
    );
    section.replaceChildren(...parts);
  };
  view.setWindow = (f) => draw(f && f.leaks ? f : null);
  draw(null);
  return view;
}

// The blocks that lived longer than a duration the user sets, by site, counted as
// `memusage --long-lived=DURATION` counts them (long_lived_report.cpp, site_replay.cpp): a
// block lives from its first allocation (a resize keeps its life) to its free, or to the
// recording's end when never freed; it is long-lived when it lived strictly longer than the
// duration; its bytes are its size at the end of its life. The blocks the C/C++ runtime keeps
// until exit are totalled apart. Sites are listed by bytes, then by the longest lifetime.
class LongLivedView {
  constructor(data, container, input) {
    this.data = data;
    this.container = container;
    this.input = input;
    this.list = container.querySelector("#long-lived-list");
    this.figures = null;
    this.window = null;
    const F = ReportFormat;
    const blocks = data.json.blocks;
    if (!blocks || !data.sites) {
      input.disabled = true;
      this.list.append(F.missing(...(blocks ? missingSites : missingEvents)));
      return;
    }
    // A tenth of the run, to three significant digits, in milliseconds.
    const tenth = Number((data.duration * 100).toPrecision(3));
    input.value = String(tenth);
    input.addEventListener("input", () => {
      const ms = Number(input.value);
      if (input.value !== "" && Number.isFinite(ms) && ms >= 0) this.show(ms / 1000);
    });
    this.show(tenth / 1000);
  }

  // The selected window (its figures' [t0, t1]), or null for the whole run: only the blocks
  // whose life began in it are counted, as the window's leaks are.
  setWindow(figures) {
    this.window = figures ? [figures.t0, figures.t1] : null;
    if (this.input.disabled) return;
    const ms = Number(this.input.value);
    if (Number.isFinite(ms) && ms >= 0) this.show(ms / 1000);
  }

  // The long-lived blocks' figures for a threshold in seconds.
  compute(threshold) {
    const b = this.data.json.blocks;
    const end = b.end !== undefined ? b.end : this.data.duration;
    const w = this.window;
    const bySite = new Map();
    const figures = { threshold, blocks: 0, bytes: 0, sites: [], kept: { blocks: 0, bytes: 0 } };
    figures.noSite = { blocks: 0, bytes: 0 };
    figures.neverFreed = 0;
    for (let i = 0; i < b.born.length; i++) {
      if (b.resized && b.resized[i]) continue; // its life goes on in a later block
      const died = b.died[i];
      const before = b.lived_before ? b.lived_before[i] : 0;
      if (w && !this.data.eventInWindow(b.born[i] - before, w[0], w[1])) continue;
      const lived = (died < 0 ? end : died) - b.born[i] + before;
      if (!(lived > threshold)) continue;
      const size = b.size[i];
      if (b.kept && b.kept[i]) {
        figures.kept.blocks += 1;
        figures.kept.bytes += size;
        continue;
      }
      const site = b.site[i];
      if (site < 0) {
        figures.noSite.blocks += 1;
        figures.noSite.bytes += size;
        continue;
      }
      let f = bySite.get(site);
      if (!f) {
        f = { site, bytes: 0, blocks: 0, freed: 0, total: 0, longest: 0 };
        bySite.set(site, f);
      }
      f.bytes += size;
      f.blocks += 1;
      if (died >= 0) f.freed += 1;
      else figures.neverFreed += 1;
      f.total += lived;
      if (lived > f.longest) f.longest = lived;
      figures.blocks += 1;
      figures.bytes += size;
    }
    figures.sites = [...bySite.values()].sort(
      (x, y) => y.bytes - x.bytes || y.longest - x.longest || x.site - y.site,
    );
    return figures;
  }

  show(threshold) {
    const F = ReportFormat;
    const data = this.data;
    const b = data.json.blocks;
    const f = this.compute(threshold);
    this.figures = f;
    const box = this.container;
    box.dataset.threshold = threshold;
    box.dataset.bytes = f.bytes;
    box.dataset.blocks = f.blocks;
    box.dataset.sites = f.sites.length;
    const limit = F.duration(threshold);
    const run = " (of a " + F.duration(data.duration) + " run)";
    const total = F.element(
      "p",
      { className: "long-lived-total", "data-field": "long_lived" },
      f.sites.length
        ? "Long-lived blocks: " +
            F.count(f.blocks, "block", "blocks") +
            " (" +
            F.count(f.bytes, "byte", "bytes") +
            ") lived longer than " +
            limit +
            run +
            ", from " +
            F.count(f.sites.length, "site", "sites") +
            "."
        : "No long-lived blocks: none lived longer than " + limit + run + ".",
    );
    const notes = F.element("ul", { className: "long-lived-notes" });
    const note = (...parts) => notes.append(F.element("li", {}, ...parts));
    note(
      "A block lives from its allocation (a realloc keeps its life) to its free; its bytes are " +
        "its size at the end of its life. A block never freed lives until the run's end: " +
        "those allocated longer than the duration before the end are listed here as well as " +
        "among the leaks above" +
        (f.neverFreed ? " (" + F.count(f.neverFreed, "block", "blocks") + " here)" : "") +
        ".",
    );
    if (b.thinned)
      note(
        F.element("strong", {}, "From the blocks kept: "),
        "the block map is thinned to " +
          F.integer(b.born.length) +
          " of " +
          F.integer(b.total) +
          " blocks, those covering most of it (size times lifetime), which favours " +
          "long-lived blocks; memusage --long-lived=DURATION counts every block.",
      );
    if (this.window)
      note(
        "Of " +
          ReportFormat.windowName(this.window) +
          ": only the blocks allocated in it are counted (a block's life may go on after it).",
      );
    else if (data.run.window)
      note("The report covers a window of the run: only the blocks alive in it are counted.");
    if (f.noSite.blocks)
      note(
        "Not listed: " +
          F.count(f.noSite.bytes, "byte", "bytes") +
          " in " +
          F.count(f.noSite.blocks, "block", "blocks") +
          " of no site the report holds.",
      );
    if (f.kept.blocks)
      note(
        "Not counted: " +
          F.count(f.kept.bytes, "byte", "bytes") +
          " in " +
          F.count(f.kept.blocks, "block", "blocks") +
          " the C and C++ runtimes keep until exit.",
      );
    const fates = (s) => {
      const kept = s.blocks - s.freed;
      if (kept === 0) return "all freed";
      if (s.freed === 0) return "never freed";
      return s.freed + " freed, " + kept + " never freed";
    };
    const list = siteRows(
      data,
      f.sites.map((s) => [s.site, s]),
      "",
      (s) =>
        F.count(s.bytes, "byte", "bytes") +
        " in " +
        F.count(s.blocks, "block", "blocks") +
        " (" +
        fates(s) +
        "); lifetime mean " +
        F.duration(s.total / s.blocks) +
        ", longest " +
        F.duration(s.longest),
    );
    list.id = "long-lived-sites";
    this.list.replaceChildren(total, list, notes);
    return f;
  }

  // As typing `ms` into the input; returns the figures.
  set(ms) {
    if (this.input.disabled) return null;
    this.input.value = String(ms);
    return this.show(ms / 1000);
  }
}
