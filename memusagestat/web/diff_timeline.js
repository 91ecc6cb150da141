// SPDX-License-Identifier: MIT
// The two runs' heap over time on one pair of axes: time since each run began (or the share
// of each run, when a run's files hold no rate of its clock) and bytes, run A and run B in
// their colours (A dashed), with a legend. From each run's data file (DATA.md's timeline).
/* exported DiffTimeline */
/* global ReportFormat, TimeChart */
"use strict";

class DiffTimeline {
  constructor(data, container, legend) {
    this.data = data;
    this.container = container;
    this.legend = legend;
    this.runs = data.runs.filter((run) => run.timeline && run.timeline.time.length > 0);
    this.drawLegend();
    this.draw();
  }

  drawLegend() {
    const F = ReportFormat;
    this.legend.replaceChildren(F.element("span", { className: "legend-title" }, "Heap:"));
    for (const run of this.data.runs) {
      const peak = run.timeline ? d3.max(run.timeline.heap) || 0 : null;
      this.legend.append(
        F.element(
          "span",
          { className: "legend-item", "data-run": run.label, title: run.path },
          F.element("span", { className: "swatch run-" + run.label.toLowerCase() }),
          "run " +
            run.label +
            (run.label === "A" ? " (dashed)" : "") +
            (run.timeline
              ? ": peak " + F.bytes(peak) + " over " + F.seconds(run.seconds)
              : ": no timeline (no data file)"),
        ),
      );
    }
  }

  draw() {
    const F = ReportFormat;
    this.container.replaceChildren();
    if (this.runs.length === 0) {
      this.container.append(
        F.missing(
          "Neither run has a timeline.",
          "Keep each run's files with memusage --keep=DIR (the data file DIR/NAME.dat beside " +
            "DIR/NAME.sites), or give the two data files.",
        ),
      );
      return;
    }
    const width = Math.max(400, this.container.clientWidth || 1000);
    const height = 260;
    const margin = { top: 10, right: 20, bottom: 30, left: 80 };
    const end = Math.max(...this.runs.map((run) => run.seconds), 1e-9);
    const top = Math.max(1, ...this.runs.map((run) => d3.max(run.timeline.heap) || 0));
    const x = d3
      .scaleLinear()
      .domain([0, end])
      .range([margin.left, width - margin.right]);
    const y = d3
      .scaleLinear()
      .domain([0, top])
      .range([height - margin.bottom, margin.top]);
    const svg = d3
      .select(this.container)
      .append("svg")
      .attr("width", width)
      .attr("height", height)
      .attr("role", "img")
      .attr(
        "aria-label",
        "heap over time of run A and run B: " +
          this.data.runs
            .map((run) => "run " + run.label + " peak " + F.bytes(run.heap_peak))
            .join(", "),
      );
    this.container.dataset.end = end;
    this.container.dataset.top = top;
    TimeChart.axes(svg, x, y, height, margin, F.byteTicks(0, top, 5), "axis");
    for (const run of this.runs) {
      const t = run.timeline;
      // Each run starts from 0 at its start, as the report's timeline does.
      const points = [[0, 0]];
      for (let i = 0; i < t.time.length; i++) points.push([t.time[i], t.heap[i]]);
      // On to the run's end, at the level its last record left.
      const last = t.time.length - 1;
      if (run.seconds > t.time[last]) points.push([run.seconds, t.heap[last]]);
      const line = d3
        .line()
        .x((p) => x(p[0]))
        .y((p) => y(p[1]))
        .curve(d3.curveStepAfter);
      svg
        .append("path")
        .attr("class", "heap run-" + run.label.toLowerCase())
        .attr("data-run", run.label)
        .attr("data-points", t.time.length)
        .attr("data-peak", d3.max(t.heap) || 0)
        .attr("fill", "none")
        .attr("stroke-width", 1.5)
        .attr("stroke-dasharray", run.label === "A" ? "6 3" : null)
        .attr("d", line(points));
    }
  }
}
