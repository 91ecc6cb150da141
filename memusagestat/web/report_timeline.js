// The timeline: heap, stack and their total over time or over calls. The wheel zooms, a drag
// pans, a click picks the event there, and the strip below selects the time window. Every
// pixel column draws the least and the greatest value of the points it covers, so no spike
// is lost at any zoom.
/* exported TimelineView */
/* global ReportFormat, ReportData */
"use strict";

class TimelineView {
  constructor(data, container, { onWindow, onPick }) {
    this.data = data;
    this.container = container;
    this.onWindow = onWindow;
    this.onPick = onPick;
    this.axis = "time";
    this.window = [0, data.duration];
    this.picked = null;
    this.source = this.pickSource();
    if (!this.source) {
      container.append(
        ReportFormat.missing(
          "The data file holds no records to draw.",
          "Run the program under memusage with --data=FILE or --html=FILE.",
        ),
      );
      return;
    }
    this.build();
  }

  // The data file's records; the events' heap when the run has no records.
  pickSource() {
    const tl = this.data.timeline;
    if (tl && tl.time && tl.time.length > 0) {
      return { time: tl.time, index: tl.index, heap: tl.heap, stack: tl.stack };
    }
    const e = this.data.events;
    if (e) return { time: e.time, index: e.time.map((_, i) => i), heap: e.heap, stack: null };
    return null;
  }

  xColumn() {
    return this.axis === "time" ? this.source.time : this.source.index;
  }

  // A time as a position on the x axis (calls: the index of the last record at that time).
  xOfTime(t) {
    if (this.axis === "time") return t;
    const i = Math.max(0, ReportData.lowerBound(this.source.time, t) - 1);
    return this.source.index[Math.min(i, this.source.index.length - 1)];
  }

  timeOfX(x) {
    if (this.axis === "time") return x;
    const i = ReportData.lowerBound(this.source.index, x);
    return this.source.time[Math.min(i, this.source.time.length - 1)];
  }

  build() {
    const margin = { left: 70, right: 16, top: 26, bottom: 24 };
    this.margin = margin;
    this.width = Math.max(400, this.container.clientWidth || 1000);
    this.plotWidth = this.width - margin.left - margin.right;
    this.plotHeight = 260;
    this.stripHeight = 34;
    const height = margin.top + this.plotHeight + margin.bottom + this.stripHeight + 20;
    const svg = d3
      .select(this.container)
      .append("svg")
      .attr("width", this.width)
      .attr("height", height)
      .attr("class", "timeline-svg");
    this.svg = svg;
    svg
      .append("defs")
      .append("clipPath")
      .attr("id", "timeline-clip")
      .append("rect")
      .attr("width", this.plotWidth)
      .attr("height", this.plotHeight);
    const plot = svg.append("g").attr("transform", `translate(${margin.left},${margin.top})`);
    this.plot = plot;
    this.xAxisGroup = plot.append("g").attr("transform", `translate(0,${this.plotHeight})`);
    this.yAxisGroup = plot.append("g");
    const clipped = plot.append("g").attr("clip-path", "url(#timeline-clip)");
    this.outside = clipped.append("g").attr("class", "outside-window");
    this.series = [
      { name: "total", className: "series-total", value: (i) => this.heapAt(i) + this.stackAt(i) },
      { name: "heap", className: "series-heap", value: (i) => this.heapAt(i) },
    ];
    if (this.source.stack) {
      this.series.push({ name: "stack", className: "series-stack", value: (i) => this.stackAt(i) });
    } else {
      this.series.shift();
    }
    this.paths = this.series.map((s) =>
      clipped
        .append("path")
        .attr("class", "series " + s.className)
        .attr("data-series", s.name),
    );
    this.marker = clipped
      .append("circle")
      .attr("class", "picked-marker")
      .attr("r", 5)
      .style("display", "none");
    this.overlay = plot
      .append("rect")
      .attr("class", "timeline-overlay")
      .attr("width", this.plotWidth)
      .attr("height", this.plotHeight);
    const legend = plot.append("g").attr("class", "legend").attr("transform", "translate(0,-22)");
    this.series.forEach((s, k) => {
      const item = legend.append("g").attr("transform", `translate(${k * 80},0)`);
      item
        .append("rect")
        .attr("class", s.className)
        .attr("width", 14)
        .attr("height", 4)
        .attr("y", 6);
      item.append("text").attr("x", 18).attr("y", 12).text(s.name);
    });

    const strip = svg
      .append("g")
      .attr("class", "window-strip")
      .attr(
        "transform",
        `translate(${margin.left},${margin.top + this.plotHeight + margin.bottom + 8})`,
      );
    strip
      .append("rect")
      .attr("class", "strip-background")
      .attr("width", this.plotWidth)
      .attr("height", this.stripHeight);
    strip
      .append("text")
      .attr("x", -6)
      .attr("y", this.stripHeight / 2 + 4)
      .attr("text-anchor", "end")
      .text("window");
    this.brush = d3
      .brushX()
      .extent([
        [0, 0],
        [this.plotWidth, this.stripHeight],
      ])
      .on("end", (event) => this.brushed(event));
    this.brushGroup = strip.append("g").attr("class", "brush").call(this.brush);

    this.zoom = d3
      .zoom()
      .scaleExtent([1, 1e7])
      .translateExtent([
        [0, 0],
        [this.plotWidth, this.plotHeight],
      ])
      .extent([
        [0, 0],
        [this.plotWidth, this.plotHeight],
      ])
      .on("zoom", (event) => {
        this.transform = event.transform;
        this.redraw();
      });
    this.overlay.call(this.zoom).on("click", (event) => this.clicked(event));
    this.transform = d3.zoomIdentity;
    this.setAxis("time");
  }

  heapAt(i) {
    return this.source.heap[i];
  }

  stackAt(i) {
    return this.source.stack ? this.source.stack[i] : 0;
  }

  setAxis(axis) {
    this.axis = axis;
    const x = this.xColumn();
    const last = x[x.length - 1];
    const end = axis === "time" ? Math.max(this.data.duration, last) : last;
    this.baseX = d3
      .scaleLinear()
      .domain([x[0] < 0 ? x[0] : 0, end > 0 ? end : 1])
      .range([0, this.plotWidth]);
    this.overlay.call(this.zoom.transform, d3.zoomIdentity);
    this.redraw();
  }

  resetZoom() {
    this.overlay.call(this.zoom.transform, d3.zoomIdentity);
  }

  // Least and greatest value per pixel column of every series over the visible domain, as
  // entries of a step curve: a column starts with the value the previous point left.
  columns(xScale) {
    const x = this.xColumn();
    const [d0, d1] = xScale.domain();
    const first = Math.max(0, ReportData.lowerBound(x, d0) - 1);
    const last = Math.min(x.length - 1, ReportData.lowerBound(x, d1));
    const out = this.series.map(() => []);
    const push = (px, bounds) =>
      bounds.forEach((b, k) => out[k].push({ px, min: b[0], max: b[1] }));
    let column = -1;
    let bounds = null;
    let held = null;
    for (let i = first; i <= last; i++) {
      const px = Math.max(0, Math.min(this.plotWidth, Math.round(xScale(x[i]))));
      if (px !== column) {
        if (column >= 0) {
          push(column, bounds);
          if (px > column + 1)
            push(
              column + 1,
              held.map((v) => [v, v]),
            );
        }
        bounds = held ? held.map((v) => [v, v]) : this.series.map(() => [Infinity, -Infinity]);
        column = px;
      }
      held = this.series.map((s) => s.value(i));
      held.forEach((v, k) => {
        if (v < bounds[k][0]) bounds[k][0] = v;
        if (v > bounds[k][1]) bounds[k][1] = v;
      });
    }
    if (column >= 0) {
      push(column, bounds);
      const flat = held.map((v) => [v, v]);
      if (column < this.plotWidth) push(column + 1, flat);
      if (column + 1 < this.plotWidth) push(this.plotWidth, flat);
    }
    return out;
  }

  redraw() {
    const xScale = this.transform.rescaleX(this.baseX);
    this.xScale = xScale;
    const columns = this.columns(xScale);
    let top = 0;
    for (const series of columns) for (const c of series) top = Math.max(top, c.max);
    const yScale = d3
      .scaleLinear()
      .domain([0, top > 0 ? top * 1.05 : 1])
      .range([this.plotHeight, 0]);
    this.yScale = yScale;
    const area = d3
      .area()
      .x((c) => c.px)
      .y0((c) => yScale(c.min) + 0.5)
      .y1((c) => yScale(c.max) - 0.5)
      .curve(d3.curveStepAfter);
    this.paths.forEach((path, k) => path.attr("d", area(columns[k])));
    const tickFormat = this.axis === "time" ? (v) => ReportFormat.seconds(v) : d3.format("~s");
    this.xAxisGroup.call(d3.axisBottom(xScale).ticks(8).tickFormat(tickFormat));
    this.yAxisGroup.call(
      d3
        .axisLeft(yScale)
        .ticks(6)
        .tickFormat((v) => ReportFormat.bytes(v)),
    );
    this.drawWindow();
    this.drawMarker();
  }

  setWindow(t0, t1) {
    this.window = [t0, t1];
    if (this.svg) this.drawWindow();
  }

  drawWindow() {
    const xScale = this.xScale;
    const [t0, t1] = this.window;
    const whole = t0 <= 0 && t1 >= this.data.duration;
    const a = xScale(this.xOfTime(t0));
    const b = xScale(this.xOfTime(t1));
    const shades = whole
      ? []
      : [
          [-1e6, a],
          [b, 1e6],
        ];
    this.outside
      .selectAll("rect")
      .data(shades)
      .join("rect")
      .attr("x", (d) => Math.max(-10, d[0]))
      .attr("width", (d) => Math.max(0, Math.min(this.plotWidth + 10, d[1]) - Math.max(-10, d[0])))
      .attr("height", this.plotHeight);
    this.movingBrush = true;
    this.brushGroup.call(
      this.brush.move,
      whole ? null : [Math.max(0, a), Math.min(this.plotWidth, b)],
    );
    this.movingBrush = false;
  }

  brushed(event) {
    if (this.movingBrush || !event.sourceEvent) return;
    if (!event.selection) {
      this.onWindow(0, this.data.duration);
      return;
    }
    const [a, b] = event.selection.map((px) => this.timeOfX(this.xScale.invert(px)));
    this.onWindow(Math.max(0, a), b);
  }

  clicked(event) {
    if (event.defaultPrevented) return;
    const [mx, my] = d3.pointer(event, this.overlay.node());
    const time = this.timeOfX(this.xScale.invert(mx));
    this.onPick(time, this.yScale.invert(my), this.toleranceAt(time));
  }

  // The tolerance in seconds of a click at `time`: three pixels at the current zoom.
  toleranceAt(time) {
    const px = this.xScale(this.xOfTime(time));
    return (
      Math.abs(
        this.timeOfX(this.xScale.invert(px + 3)) - this.timeOfX(this.xScale.invert(px - 3)),
      ) / 2
    );
  }

  showPicked(time, heap) {
    this.picked = time === null ? null : [time, heap];
    if (this.svg) this.drawMarker();
  }

  drawMarker() {
    if (!this.picked) {
      this.marker.style("display", "none");
      return;
    }
    this.marker
      .style("display", null)
      .attr("cx", this.xScale(this.xOfTime(this.picked[0])))
      .attr("cy", this.yScale(this.picked[1]));
  }
}
