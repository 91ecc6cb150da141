// SPDX-License-Identifier: MIT
// The flame graph of the sites (d3-flame-graph): weighted by bytes at the peak (of the
// selected window when one is), leaked, allocated, blocks or temporary; top-down (callers at
// the root) or bottom-up (the allocating function at the root). Click zooms into a frame; the
// search highlights the frames whose function contains the text, with their share.
/* exported FlameView */
/* global ReportFormat, FlameChart */
"use strict";

class FlameView {
  constructor(data, container, elements) {
    this.data = data;
    this.container = container;
    this.elements = elements;
    this.metric = "peak";
    this.direction = "top-down";
    this.window = null;
    this.windowPeak = null;
    this.flame = new FlameChart(container);
    if (!data.sites) {
      container.append(
        ReportFormat.missing(
          "This run has no allocation sites.",
          "Run memusage with --html=FILE, or keep them with --sites-file=FILE (or --events=FILE) " +
            "and give them to memusagestat --html with --sites=FILE.",
        ),
      );
      return;
    }
    this.draw();
  }

  // The selected window's figures (the window's view's), or null for the whole run: bytes by
  // site at the window's heap peak, the rest held then by the sites the report lists for no
  // window bucket (the smallest, drawn as one frame of their own so the graph adds up to the
  // peak), its allocated bytes and its leaks by site when the report has them.
  setWindow(figures) {
    if (figures === null && this.window === null) return;
    this.window = figures;
    this.windowPeak = figures && figures.peakSites ? new Map(figures.peakSites) : null;
    this.windowRest = this.windowPeak ? figures.peakSitesRest || 0 : 0;
    if (this.data.sites) this.draw();
  }

  // Whether the graph's weight is of the window (else of the whole run).
  followsWindow() {
    const f = this.window;
    if (!f) return false;
    if (this.metric === "peak") return this.windowPeak !== null;
    if (this.metric === "allocated") return Boolean(f.breakdown);
    if (this.metric === "leaked") return Boolean(f.leaks);
    if (this.metric === "blocks") return Boolean(f.breakdown);
    return false;
  }

  weight(site) {
    const record = this.data.sites[site];
    const windowed = this.followsWindow();
    switch (this.metric) {
      case "peak":
        return windowed ? this.windowPeak.get(site) || 0 : record.peak;
      case "leaked":
        return windowed
          ? (this.window.leaks.bySite.get(site) || { bytes: 0 }).bytes
          : record.leaked;
      case "allocated":
        return windowed
          ? (this.window.breakdown.sites.get(site) || { bytes: 0 }).bytes
          : record.allocated;
      case "blocks":
        // A site's blocks are its allocating calls (the text report's "in N calls").
        return windowed
          ? (this.window.breakdown.sites.get(site) || { calls: 0 }).calls
          : record.blocks;
      case "temporary":
        return record.temporary;
      default:
        return 0;
    }
  }

  unitOf(value) {
    return this.metric === "blocks" || this.metric === "temporary"
      ? ReportFormat.integer(value) + " blocks"
      : ReportFormat.bytes(value);
  }

  // The call tree of the sites, each node's value the total of the stacks through it.
  tree() {
    const root = { name: "all", value: 0, children: [] };
    const grow = FlameChart.treeGrower(root, (name) => ({ name, value: 0, children: [] }));
    this.data.sites.forEach((site, index) => {
      const value = this.weight(index);
      if (!(value > 0)) return;
      // Each frame with its file:line, so that one function's calls from two lines are two
      // frames (the search matches the function's name within it).
      let names = site.frames.map((f) => this.data.frameLabel(f));
      if (this.direction === "top-down") {
        names = names.slice().reverse();
        if (site.cut) names.unshift("[stack cut]");
      } else if (site.cut) {
        names.push("[stack cut]");
      }
      grow(names, (node) => {
        node.value += value;
      });
    });
    if (this.metric === "peak" && this.followsWindow() && this.windowRest > 0) {
      root.value += this.windowRest;
      root.children.push({
        name: "(smaller sites, not named)",
        value: this.windowRest,
        children: [],
      });
    }
    return root;
  }

  // Says what the graph weighs, and of which part of the run.
  caption() {
    ReportFormat.weightCaption(
      this.elements.caption,
      this.data,
      this.window,
      this.followsWindow(),
      this.metric,
      this.metricName(),
      this.metric === "temporary"
        ? " (weigh by bytes at the peak, allocated, blocks or leaked to see the window)."
        : ": it keeps a sample of its events or blocks.",
    );
  }

  draw() {
    this.caption();
    const root = this.tree();
    this.container.dataset.total = root.value;
    this.container.dataset.metric = this.metric;
    this.container.dataset.direction = this.direction;
    this.flame.draw(root, {
      empty: "No site has " + this.metricName() + ".",
      label: (d) =>
        d.data.name +
        ": " +
        this.unitOf(d.value) +
        " (" +
        ReportFormat.percent(d.value, root.value) +
        ")",
      searchMatch: (d, term) =>
        term !== "" && d.data.name.toLowerCase().includes(term.toLowerCase()),
      searched: (results, sum, total) => this.searched(results, sum, total),
      details: this.elements.details,
      name: "flame graph of the allocating stacks by " + this.metricName(),
    });
    const term = this.elements.search.value.trim();
    if (term) this.search(term);
  }

  metricName() {
    return {
      peak: "bytes at the peak",
      leaked: "leaked bytes",
      allocated: "allocated bytes",
      blocks: "blocks",
      temporary: "temporary blocks",
    }[this.metric];
  }

  setMetric(metric) {
    this.metric = metric;
    if (this.data.sites) this.draw();
  }

  setDirection(direction) {
    this.direction = direction;
    if (this.data.sites) this.draw();
  }

  search(term) {
    const chart = this.flame.chart;
    if (!chart) return;
    if (term) chart.search(term);
    else {
      chart.clear();
      this.searched([], 0, 0);
    }
  }

  searched(results, sum, total) {
    const out = this.elements.searchResult;
    out.dataset.matches = results.length;
    out.dataset.share = total > 0 ? sum / total : 0;
    out.textContent =
      results.length === 0
        ? this.elements.search.value.trim()
          ? "no frame matches"
          : ""
        : ReportFormat.count(results.length, "frame matches", "frames match") +
          ": " +
          this.unitOf(sum) +
          ", " +
          ReportFormat.percent(sum, total) +
          " of " +
          this.unitOf(total);
  }

  // Drawn anew when its container's width changes (a resize of the window).
  resize() {
    if (this.flame.resized()) this.draw();
  }

  resetZoom() {
    this.flame.resetZoom();
  }
}
