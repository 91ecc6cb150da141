// SPDX-License-Identifier: MIT
// A flame graph (d3-flame-graph) in its container, as the report's (report_flame.js) and the
// two-run page's (diff_flame.js) draw theirs: the call tree grown from stacks, the chart drawn
// at the container's width with its label, colours and accessible name, drawn anew when that
// width changes, and its zoom reset.
/* exported FlameChart */
/* global ReportFormat */
"use strict";

class FlameChart {
  constructor(container) {
    this.container = container;
    this.chart = null;
    this.drawnWidth = 0;
  }

  // A call tree from `root`: the function returned walks a stack's names (root first) down
  // from the root, making a missing child with `make(name)`, told apart from its siblings by
  // `name`, and gives `visit` the root and each node of the way.
  static treeGrower(root, make) {
    const children = new Map();
    const childOf = (node, name) => {
      let index = children.get(node);
      if (!index) {
        index = new Map();
        children.set(node, index);
      }
      let child = index.get(name);
      if (!child) {
        child = make(name);
        index.set(name, child);
        node.children.push(child);
      }
      return child;
    };
    return (names, visit) => {
      let node = root;
      visit(node);
      for (const name of names) {
        node = childOf(node, name);
        visit(node);
      }
    };
  }

  width() {
    return Math.max(400, this.container.clientWidth || 1000);
  }

  // Draws the tree `root` (its `value` the whole), or `how.empty` when it weighs nothing.
  // `how`: label(d), the frame's text; name, the picture's accessible name; details, the
  // element that shows the frame under the pointer; colour(d) (else the library's);
  // searchMatch(d, term) and searched(results, sum, total), the search (else none).
  draw(root, how) {
    this.container.replaceChildren();
    if (this.chart) this.chart.destroy();
    this.chart = null;
    if (root.value === 0) {
      this.container.append(ReportFormat.element("p", { className: "empty" }, how.empty));
      return;
    }
    const width = this.width();
    this.drawnWidth = width;
    const chart = flamegraph
      .default()
      .width(width)
      .cellHeight(18)
      .transitionDuration(250)
      .minFrameSize(1)
      .sort(true)
      .inverted(true)
      .setLabelHandler(how.label)
      .setDetailsElement(how.details);
    if (how.colour) chart.setColorMapper(how.colour);
    if (how.searchMatch) chart.setSearchMatch(how.searchMatch).setSearchHandler(how.searched);
    d3.select(this.container).datum(root).call(chart);
    // A picture to assistive technology: a table of the page holds the same figures.
    d3.select(this.container).select("svg").attr("role", "img").attr("aria-label", how.name);
    this.chart = chart;
  }

  // Whether the chart is drawn at another width than its container's (a resize of the window).
  resized() {
    return this.chart !== null && this.width() !== this.drawnWidth;
  }

  resetZoom() {
    if (this.chart) this.chart.resetZoom();
  }
}
