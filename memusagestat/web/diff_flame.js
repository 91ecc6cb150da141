// SPDX-License-Identifier: MIT
// The diff flame graph (d3-flame-graph): run B's sites, callers at the root, each frame as
// wide as run B's figure through it (bytes at the peak, leaked, allocated, or calls) and
// coloured by how that figure changed against run A's through the same frames: grown,
// shrunk, new (no figure in A) or unchanged. Sites gone in B have no width; their run A
// figures count in their callers' colour.
/* exported DiffFlame */
/* global ReportFormat */
"use strict";

class DiffFlame {
  constructor(data, container, details) {
    this.data = data;
    this.container = container;
    this.details = details;
    this.measure = data.measures[0].key;
    this.chart = null;
    if (!data.sites) {
      container.append(
        ReportFormat.missing(
          "Data files hold no allocation sites.",
          "Give the two runs' sites files (memusage --sites-file=FILE, or --keep=DIR) to " +
            "memusagestat --html=OUT --diff.",
        ),
      );
      return;
    }
    this.draw();
  }

  unitOf(value) {
    return this.measure === "calls"
      ? ReportFormat.count(value, "call", "calls")
      : ReportFormat.bytes(value);
  }

  // The call tree: each node's `value` run B's figure through it, `before` run A's.
  tree() {
    const m = this.measure;
    const root = { name: "all", value: 0, before: 0, children: [] };
    const childOf = (node, name) => {
      node.index = node.index || new Map();
      let child = node.index.get(name);
      if (!child) {
        // Shown with the file's last component; told apart by the whole line.
        child = { name: this.data.shortLine(name), full: name, value: 0, before: 0, children: [] };
        node.index.set(name, child);
        node.children.push(child);
      }
      return child;
    };
    for (const site of this.data.sites) {
      const after = site.b[m];
      const before = site.a[m];
      if (!(after > 0) && !(before > 0)) continue;
      const names = this.data.stackLines(site).slice().reverse();
      if (site.cut_at) names.unshift("[cut at " + site.cut_at + " frames]");
      let node = root;
      root.value += after;
      root.before += before;
      for (const name of names) {
        node = childOf(node, name);
        node.value += after;
        node.before += before;
      }
    }
    // A frame with nothing in B (only gone sites' figures) takes no width: left out.
    const prune = (node) => {
      delete node.index;
      node.children = node.children.filter((c) => c.value > 0);
      node.children.forEach(prune);
      node.status =
        node.before === 0
          ? "new"
          : node.value > node.before
            ? "grown"
            : node.value < node.before
              ? "shrunk"
              : "unchanged";
    };
    prune(root);
    return root;
  }

  colour(status) {
    return ReportFormat.themeColour(
      {
        grown: "--diff-grown",
        shrunk: "--diff-shrunk",
        new: "--diff-new",
        unchanged: "--diff-same",
      }[status],
    );
  }

  label(d) {
    const node = d.data;
    const change = node.value - node.before;
    return (
      (node.full || node.name) +
      ": " +
      this.unitOf(node.value) +
      " in B, " +
      this.unitOf(node.before) +
      " in A (" +
      node.status +
      (node.status === "new" ? "" : ", " + (change > 0 ? "+" : "") + this.unitOf(change)) +
      ")"
    );
  }

  draw() {
    this.container.replaceChildren();
    if (this.chart) this.chart.destroy();
    this.chart = null;
    const root = this.tree();
    this.root = root;
    this.container.dataset.total = root.value;
    this.container.dataset.before = root.before;
    this.container.dataset.measure = this.measure;
    if (root.value === 0) {
      this.container.append(
        ReportFormat.element("p", { className: "empty" }, "No site of run B has this figure."),
      );
      return;
    }
    const width = Math.max(400, this.container.clientWidth || 1000);
    this.drawnWidth = width;
    const colours = {};
    for (const s of ["grown", "shrunk", "new", "unchanged"]) colours[s] = this.colour(s);
    const chart = flamegraph
      .default()
      .width(width)
      .cellHeight(18)
      .transitionDuration(250)
      .minFrameSize(1)
      .sort(true)
      .inverted(true)
      .setColorMapper((d) => colours[d.data.status])
      .setLabelHandler((d) => this.label(d))
      .setDetailsElement(this.details);
    d3.select(this.container).datum(root).call(chart);
    d3.select(this.container)
      .select("svg")
      .attr("role", "img")
      .attr(
        "aria-label",
        "diff flame graph of run B's stacks, coloured by their change against run A; the " +
          "sites table below holds the same figures",
      );
    this.chart = chart;
  }

  setMeasure(measure) {
    this.measure = measure;
    if (this.data.sites) this.draw();
  }

  resize() {
    if (!this.chart || Math.max(400, this.container.clientWidth || 1000) === this.drawnWidth)
      return;
    this.draw();
  }

  resetZoom() {
    if (this.chart) this.chart.resetZoom();
  }
}
