// SPDX-License-Identifier: MIT
// The diff flame graph (d3-flame-graph): run B's sites, callers at the root, each frame as
// wide as run B's figure through it (bytes at the peak, leaked, allocated, or calls) and
// coloured by how that figure changed against run A's through the same frames: grown,
// shrunk, new (no figure in A) or unchanged. Sites gone in B have no width; their run A
// figures count in their callers' colour.
/* exported DiffFlame */
/* global ReportFormat, FlameChart */
"use strict";

class DiffFlame {
  constructor(data, container, details) {
    this.data = data;
    this.container = container;
    this.details = details;
    this.measure = data.measures[0].key;
    this.flame = new FlameChart(container);
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
    // Shown with the file's last component; told apart by the whole line.
    const grow = FlameChart.treeGrower(root, (name) => ({
      name: this.data.shortLine(name),
      full: name,
      value: 0,
      before: 0,
      children: [],
    }));
    for (const site of this.data.sites) {
      const after = site.b[m];
      const before = site.a[m];
      if (!(after > 0) && !(before > 0)) continue;
      const names = this.data.stackLines(site).slice().reverse();
      if (site.cut_at) names.unshift("[cut at " + site.cut_at + " frames]");
      grow(names, (node) => {
        node.value += after;
        node.before += before;
      });
    }
    // A frame with nothing in B (only gone sites' figures) takes no width: left out.
    const prune = (node) => {
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
    const root = this.tree();
    this.root = root;
    this.container.dataset.total = root.value;
    this.container.dataset.before = root.before;
    this.container.dataset.measure = this.measure;
    const colours = {};
    for (const s of ["grown", "shrunk", "new", "unchanged"]) colours[s] = this.colour(s);
    this.flame.draw(root, {
      empty: "No site of run B has this figure.",
      label: (d) => this.label(d),
      colour: (d) => colours[d.data.status],
      details: this.details,
      name:
        "diff flame graph of run B's stacks, coloured by their change against run A; the " +
        "sites table below holds the same figures",
    });
  }

  setMeasure(measure) {
    this.measure = measure;
    if (this.data.sites) this.draw();
  }

  resize() {
    if (this.flame.resized()) this.draw();
  }

  resetZoom() {
    this.flame.resetZoom();
  }
}
