// The views made of figures and tables: summary, window figures, sites, threads, leaks.
/* exported SummaryView, WindowFiguresView, SitesTableView, ThreadsView, LeaksView */
/* global ReportFormat */
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
      ["threads", F.integer(data.threads.length), "threads"],
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
      s.rows
        .map((r) => [r.name, r.calls, r.bytes, r.failed])
        .map((r) => r.map((c) => (typeof c === "number" ? F.integer(c) : c))),
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

function siteRows(data, entries, valueHeader, format) {
  const F = ReportFormat;
  const list = F.element("ul", { className: "site-list" });
  for (const [site, value] of entries) {
    const details = F.element(
      "details",
      { "data-site": site },
      F.element("summary", {}, format(value) + " " + valueHeader + " — " + data.siteName(site)),
      data.stackElement(site),
    );
    list.append(F.element("li", {}, details));
  }
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
    section.dataset.t0 = t0;
    section.dataset.t1 = t1;
    const entries = [["window", F.seconds(t0) + " to " + F.seconds(t1), "window"]];
    if (f.peak !== null) {
      entries.push(["heap peak", F.integer(f.peak) + " bytes at " + F.seconds(f.peakTime), "peak"]);
    }
    if (f.allocatedBytes !== null) {
      entries.push(["allocated", F.integer(f.allocatedBytes) + " bytes", "allocated_bytes"]);
      entries.push(["allocating calls", F.integer(f.allocatedCalls), "allocated_calls"]);
      entries.push(["frees", F.integer(f.frees), "frees"]);
    }
    if (f.liveBlocks !== undefined) {
      entries.push([
        "allocated in it, live at its end",
        F.integer(f.liveBlocks) + " blocks, " + F.integer(f.liveBytes) + " bytes",
        "live_at_end",
      ]);
    }
    section.append(figureList(entries));
    if (!data.events) section.append(F.missing(...missingEvents));
    if (f.peakSites) {
      section.append(F.element("h3", {}, "Sites holding the window's heap peak"));
      section.append(siteRows(data, f.peakSites.slice(0, 20), "bytes", F.integer));
      section.lastChild.id = "window-peak-sites";
    }
    if (f.liveSites && f.liveSites.length) {
      section.append(
        F.element("h3", {}, "Blocks allocated in the window and live at its end, by site"),
      );
      const rows = f.liveSites.slice(0, 20).map(([site, v]) => [site, v]);
      section.append(
        siteRows(
          data,
          rows,
          "",
          (v) => F.integer(v.bytes) + " bytes in " + F.integer(v.blocks) + " blocks",
        ),
      );
      section.lastChild.id = "window-live-sites";
    }
  }
}

class SitesTableView {
  constructor(data, container, filterInput, countOutput) {
    this.data = data;
    this.container = container;
    this.countOutput = countOutput;
    this.sortKey = "peak";
    this.descending = true;
    this.filter = "";
    this.limit = 500;
    if (!data.sites) {
      container.append(ReportFormat.missing(...missingSites));
      return;
    }
    this.columns = [
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
    this.names = data.sites.map((_, i) => data.siteName(i));
    this.searchText = data.sites.map((site) =>
      site.frames
        .map((f) => data.frameText(f))
        .join("\n")
        .toLowerCase(),
    );
    filterInput.addEventListener("input", () => {
      this.filter = filterInput.value.trim().toLowerCase();
      this.render();
    });
    this.render();
  }

  sortBy(key) {
    if (this.sortKey === key) this.descending = !this.descending;
    else {
      this.sortKey = key;
      this.descending = key !== "site";
    }
    this.render();
  }

  render() {
    const F = ReportFormat;
    const sites = this.data.sites;
    let rows = d3.range(sites.length);
    if (this.filter) rows = rows.filter((i) => this.searchText[i].includes(this.filter));
    const key = this.sortKey;
    const value = key === "site" ? (i) => this.names[i] : (i) => sites[i][key];
    rows.sort((a, b) => {
      const order = d3.ascending(value(a), value(b)) || a - b;
      return this.descending ? -order : order;
    });
    const head = F.element(
      "tr",
      {},
      ...this.columns.map(([k, label]) => {
        const th = F.element(
          "th",
          {
            "data-column": k,
            className:
              k === key ? "sorted " + (this.descending ? "descending" : "ascending") : null,
          },
          label,
        );
        th.addEventListener("click", () => this.sortBy(k));
        return th;
      }),
    );
    const body = F.element("tbody");
    for (const i of rows.slice(0, this.limit)) {
      const site = sites[i];
      const row = F.element(
        "tr",
        { className: "site-row", "data-site": i },
        F.element("td", { className: "site-name" }, this.names[i]),
        ...this.columns
          .slice(1)
          .map(([k]) => F.element("td", { className: "num" }, F.integer(site[k]))),
      );
      row.addEventListener("click", () => this.toggle(row, i));
      body.append(row);
    }
    const table = F.element("table", { className: "sites" }, F.element("thead", {}, head), body);
    this.container.replaceChildren(table);
    this.countOutput.textContent =
      rows.length === sites.length
        ? F.integer(sites.length) + " sites"
        : F.integer(rows.length) + " of " + F.integer(sites.length) + " sites match";
    if (rows.length > this.limit)
      this.countOutput.textContent += "; the first " + this.limit + " shown";
  }

  toggle(row, site) {
    const next = row.nextElementSibling;
    if (next && next.classList.contains("site-stack")) {
      next.remove();
      row.classList.remove("open");
      return;
    }
    row.classList.add("open");
    const cell = ReportFormat.element(
      "td",
      { colspan: this.columns.length },
      this.data.stackElement(site),
    );
    row.after(ReportFormat.element("tr", { className: "site-stack", "data-site": site }, cell));
  }
}

function ThreadsView(data, section) {
  const F = ReportFormat;
  if (!data.events) {
    if (data.threads.length) {
      section.append(
        F.table(
          ["thread", "tid", "name"],
          data.threads.map((t) => ["#" + t.serial, String(t.tid), t.name || ""]),
          { id: "threads-table" },
        ),
      );
    }
    section.append(F.missing(...missingEvents));
    return;
  }
  const heaps = data.threadHeaps();
  section.append(
    F.table(
      ["thread", "allocating calls", "bytes allocated", "frees", "peak heap"],
      heaps.map((t) => [
        data.threadName(t.thread),
        F.integer(t.calls),
        F.integer(t.bytes),
        F.integer(t.frees),
        F.integer(t.peak),
      ]),
      { id: "threads-table" },
    ),
  );
  const width = Math.max(400, section.clientWidth || 1000);
  const height = 220;
  const margin = { left: 70, right: 150, top: 10, bottom: 24 };
  const x = d3
    .scaleLinear()
    .domain([0, data.duration || 1])
    .range([margin.left, width - margin.right]);
  const y = d3
    .scaleLinear()
    .domain([0, d3.max(heaps, (t) => t.peak) || 1])
    .nice()
    .range([height - margin.bottom, margin.top]);
  const colour = d3.scaleOrdinal(d3.schemeTableau10);
  const svg = d3
    .select(section)
    .append("svg")
    .attr("id", "threads-chart")
    .attr("width", width)
    .attr("height", height);
  svg
    .append("g")
    .attr("transform", `translate(0,${height - margin.bottom})`)
    .call(d3.axisBottom(x).ticks(8).tickFormat(F.seconds));
  svg
    .append("g")
    .attr("transform", `translate(${margin.left},0)`)
    .call(d3.axisLeft(y).ticks(5).tickFormat(F.bytes));
  const line = d3
    .line()
    .x((k) => x(k.t))
    .y((k) => y(k.v))
    .curve(d3.curveStepAfter);
  heaps.forEach((t, k) => {
    const points = t.time.map((time, j) => ({ t: time, v: t.value[j] }));
    points.push({ t: data.duration, v: t.heap });
    svg
      .append("path")
      .attr("class", "thread-line")
      .attr("data-thread", t.thread)
      .attr("stroke", colour(k))
      .attr("d", line(points));
    svg
      .append("text")
      .attr("x", width - margin.right + 8)
      .attr("y", margin.top + 12 + 14 * k)
      .attr("fill", colour(k))
      .text("#" + t.thread + " " + ((data.threadBySerial.get(t.thread) || {}).name || ""));
  });
}

function LeaksView(data, section) {
  const F = ReportFormat;
  if (!data.sites) {
    section.append(F.missing(...missingSites));
    return;
  }
  const leaking = d3
    .range(data.sites.length)
    .filter((i) => data.sites[i].leaked > 0)
    .sort((a, b) => data.sites[b].leaked - data.sites[a].leaked);
  const total = d3.sum(leaking, (i) => data.sites[i].leaked);
  const blocks = d3.sum(leaking, (i) => data.sites[i].leaked_blocks);
  const kept = d3.sum(data.sites, (s) => s.kept_by_runtime);
  section.dataset.leakedBytes = total;
  section.dataset.leakedBlocks = blocks;
  section.append(
    F.element(
      "p",
      { className: "leaks-total" },
      leaking.length
        ? "Leaks: " +
            F.integer(total) +
            " bytes in " +
            F.integer(blocks) +
            " blocks, from " +
            leaking.length +
            " sites."
        : "No leaks.",
      kept > 0
        ? " Not counted: " + F.integer(kept) + " bytes the C/C++ runtime keeps until exit."
        : "",
    ),
  );
  section.append(
    siteRows(
      data,
      leaking.map((i) => [i, data.sites[i]]),
      "",
      (s) => F.integer(s.leaked) + " bytes in " + F.integer(s.leaked_blocks) + " blocks",
    ),
  );
}
