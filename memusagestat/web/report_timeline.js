// SPDX-License-Identifier: MIT
// The timeline: the heap and the total (heap and stack) over time or over calls, and under
// them the stack on its own axis (a few KiB beside MiB of heap would be a line at 0). The
// wheel zooms, a drag pans, a click picks the event there, and the strip below selects the
// time window. Every pixel column draws the least and the greatest value of the points it
// covers, so no spike is lost at any zoom. A resize of the window draws it anew at the new
// width, on the same stretch of the run.
/* exported TimelineView */
/* global ReportFormat, ReportData */
"use strict";

class TimelineView {
  static FANOUT = 8;

  constructor(data, container, { onWindow, onPick }) {
    this.data = data;
    this.container = container;
    this.onWindow = onWindow;
    this.onPick = onPick;
    this.axis = "time";
    this.window = [data.begin, data.duration];
    this.picked = null;
    this.source = this.pickSource();
    this.envelope = this.pickEnvelope();
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

  // Exact least and greatest levels per time bucket, when the points are a thinned sample:
  // the data file's records' envelope, or the events' buckets (heap only).
  pickEnvelope() {
    const tl = this.data.timeline;
    if (this.source && this.source.stack && tl.thinned && tl.envelope) {
      const e = tl.envelope;
      return {
        start: e.start,
        end: e.end,
        count: e.count,
        series: {
          heap: [e.heap_low, e.heap_high],
          stack: [e.stack_low, e.stack_high],
          total: [e.total_low, e.total_high],
        },
      };
    }
    const b = this.data.buckets;
    if (this.source && !this.source.stack && this.data.json.events.thinned && b) {
      const fine = b.levels[0];
      return {
        start: b.start,
        end: b.end,
        count: fine.count,
        series: { heap: [fine.low, fine.high] },
      };
    }
    return null;
  }

  // Each pixel column's least and greatest level from the envelope's buckets over its time
  // span, so the curve goes through every level the run reached and never steps across
  // records the report left out.
  envelopeColumns(xScale) {
    const e = this.envelope;
    const width = this.plotWidth;
    const bucket = (e.end - e.start) / e.count;
    const out = this.series.map(() => []);
    for (let px = 0; px < width; px++) {
      const a = xScale.invert(px);
      const b = xScale.invert(px + 1);
      if (b <= e.start || a >= e.end) continue;
      const i0 = Math.max(0, Math.floor((a - e.start) / bucket));
      const i1 = Math.min(e.count - 1, Math.ceil((b - e.start) / bucket) - 1);
      this.series.forEach((s, k) => {
        const [low, high] = e.series[s.name];
        let min = Infinity;
        let max = -Infinity;
        for (let i = i0; i <= Math.max(i0, i1); i++) {
          if (low[i] < min) min = low[i];
          if (high[i] > max) max = high[i];
        }
        out[k].push({ px, min, max });
      });
    }
    for (const column of out)
      if (column.length) column.push({ ...column[column.length - 1], px: column.at(-1).px + 1 });
    return out;
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

  // The width the container offers (at least 400 px).
  offeredWidth() {
    return Math.max(400, this.container.clientWidth || 1000);
  }

  // Draws the chart anew at the container's width, on the same stretch of the run, with the
  // same window and picked event.
  resize() {
    if (!this.svg || this.offeredWidth() === this.width) return;
    this.flush();
    const [d0, d1] = this.xScale.domain();
    this.svg.remove();
    this.build();
    const [b0, b1] = this.baseX.domain();
    const k = (b1 - b0) / (d1 - d0);
    if (Number.isFinite(k) && k > 1)
      this.overlay.call(
        this.zoom.transform,
        d3.zoomIdentity.scale(k).translate(-this.baseX(d0), 0),
      );
    this.flush(true);
  }

  build() {
    const margin = { left: 70, right: 16, top: 26, bottom: 24 };
    this.margin = margin;
    this.width = this.offeredWidth();
    this.plotWidth = this.width - margin.left - margin.right;
    this.plotHeight = 260;
    // The stack's own chart, under the heap's x axis, when the records have a stack.
    this.stackHeight = this.source.stack ? 80 : 0;
    this.stackTop = margin.top + this.plotHeight + margin.bottom + 6;
    const stackSpace = this.stackHeight ? this.stackHeight + margin.bottom + 6 : 0;
    this.stripHeight = 34;
    const height =
      margin.top + this.plotHeight + margin.bottom + stackSpace + this.stripHeight + 20;
    const svg = d3
      .select(this.container)
      .append("svg")
      .attr("width", this.width)
      .attr("height", height)
      .attr("class", "timeline-svg")
      // A picture to assistive technology: its figures are in the summary, the event details
      // and the window figures, which the keyboard reaches.
      .attr("role", "img")
      .attr("aria-label", "the heap and the stack in use over the run");
    this.svg = svg;
    const defs = svg.append("defs");
    for (const [id, h] of [
      ["timeline-clip", this.plotHeight],
      ["timeline-stack-clip", this.stackHeight],
    ])
      defs
        .append("clipPath")
        .attr("id", id)
        .append("rect")
        .attr("width", this.plotWidth)
        .attr("height", h);
    const plot = svg.append("g").attr("transform", `translate(${margin.left},${margin.top})`);
    this.plot = plot;
    this.xAxisGroup = plot.append("g").attr("transform", `translate(0,${this.plotHeight})`);
    this.yAxisGroup = plot.append("g");
    const axisTitle = (group, text, h) =>
      group
        .append("text")
        .attr("class", "axis-title")
        .attr("transform", `translate(${-margin.left + 12},${h / 2}) rotate(-90)`)
        .attr("text-anchor", "middle")
        .text(text);
    axisTitle(plot, this.source.stack ? "heap, total" : "heap", this.plotHeight);
    const clipped = plot.append("g").attr("clip-path", "url(#timeline-clip)");
    this.outside = clipped.append("g").attr("class", "outside-window");
    // The stack's chart: the same x scale, its own y scale (its axis' top: data-top).
    let stackClipped = null;
    if (this.stackHeight) {
      this.stackPlot = svg
        .append("g")
        .attr("id", "timeline-stack")
        .attr("transform", `translate(${margin.left},${this.stackTop})`);
      this.stackXAxisGroup = this.stackPlot
        .append("g")
        .attr("transform", `translate(0,${this.stackHeight})`);
      this.stackYAxisGroup = this.stackPlot.append("g").attr("class", "stack-axis");
      axisTitle(this.stackPlot, "stack", this.stackHeight);
      stackClipped = this.stackPlot.append("g").attr("clip-path", "url(#timeline-stack-clip)");
      this.stackOutside = stackClipped.append("g").attr("class", "outside-window");
    }
    this.series = [
      { name: "total", className: "series-total", value: (i) => this.heapAt(i) + this.stackAt(i) },
      { name: "heap", className: "series-heap", value: (i) => this.heapAt(i) },
    ];
    if (this.source.stack) {
      this.series.push({
        name: "stack",
        className: "series-stack",
        own: true,
        label: "stack (its own axis, below)",
        value: (i) => this.stackAt(i),
      });
    } else {
      this.series.shift();
    }
    this.paths = this.series.map((s) =>
      (s.own ? stackClipped : clipped)
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
    let at = 0;
    this.series.forEach((s) => {
      const item = legend.append("g").attr("transform", `translate(${at},0)`);
      at += s.own ? 200 : 80;
      item
        .append("rect")
        .attr("class", s.className)
        .attr("width", 14)
        .attr("height", 4)
        .attr("y", 6);
      item
        .append("text")
        .attr("x", 18)
        .attr("y", 12)
        .text(s.label || s.name);
    });

    const strip = svg
      .append("g")
      .attr("class", "window-strip")
      .attr(
        "transform",
        `translate(${margin.left},${margin.top + this.plotHeight + margin.bottom + stackSpace + 8})`,
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
        this.xScale = this.transform.rescaleX(this.baseX);
        this.scheduleRedraw();
      });
    this.overlay.call(this.zoom).on("click", (event) => this.clicked(event));
    this.transform = d3.zoomIdentity;
    if (!this.values) this.buildPyramid();
    this.setAxis(this.axis);
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
      .domain([
        axis === "time" ? Math.min(x[0], this.data.begin) : Math.min(x[0], 0),
        end > 0 ? end : 1,
      ])
      .range([0, this.plotWidth]);
    this.overlay.call(this.zoom.transform, d3.zoomIdentity);
    this.flush(true);
  }

  resetZoom() {
    this.overlay.call(this.zoom.transform, d3.zoomIdentity);
  }

  // The series' values as columns, and above them a pyramid of levels: level L holds, per
  // bucket of FANOUT^L consecutive points, each series' least and greatest value. A redraw
  // takes whole buckets where one falls in a single pixel column and the points themselves
  // only where a bucket straddles columns, so its cost follows the plot's width, not the
  // number of points.
  buildPyramid() {
    const n = this.source.time.length;
    this.values = this.series.map((s) => {
      const column = new Float64Array(n);
      for (let i = 0; i < n; i++) column[i] = s.value(i);
      return column;
    });
    this.levels = [];
    let below = this.values.map((v) => ({ min: v, max: v }));
    let size = n;
    while (size > TimelineView.FANOUT) {
      const count = Math.ceil(size / TimelineView.FANOUT);
      const level = below.map((b) => {
        const min = new Float64Array(count);
        const max = new Float64Array(count);
        for (let j = 0; j < count; j++) {
          let low = Infinity;
          let high = -Infinity;
          const end = Math.min(size, (j + 1) * TimelineView.FANOUT);
          for (let i = j * TimelineView.FANOUT; i < end; i++) {
            if (b.min[i] < low) low = b.min[i];
            if (b.max[i] > high) high = b.max[i];
          }
          min[j] = low;
          max[j] = high;
        }
        return { min, max };
      });
      this.levels.push(level);
      below = level;
      size = count;
    }
  }

  // Least and greatest value per pixel column of every series over the visible domain, as
  // entries of a step curve: a column starts with the value the previous point left.
  columns(xScale) {
    const x = this.xColumn();
    const n = x.length;
    const [d0, d1] = xScale.domain();
    const first = Math.max(0, ReportData.lowerBound(x, d0) - 1);
    const last = Math.min(n - 1, ReportData.lowerBound(x, d1));
    const width = this.plotWidth;
    const series = this.values.length;
    const out = this.values.map(() => []);
    const pixel = (i) => Math.max(0, Math.min(width, Math.round(xScale(x[i]))));
    const low = new Float64Array(series);
    const high = new Float64Array(series);
    const held = new Float64Array(series);
    const push = (px, flat) => {
      for (let k = 0; k < series; k++)
        out[k].push(flat ? { px, min: held[k], max: held[k] } : { px, min: low[k], max: high[k] });
    };
    const fanout = TimelineView.FANOUT;
    let column = -1;
    let started = false;
    let i = first;
    while (i <= last) {
      // The largest bucket that starts at i, ends by `last` and stays in one pixel column.
      let level = 0;
      let span = 1;
      while (
        level < this.levels.length &&
        i % (span * fanout) === 0 &&
        i + span * fanout - 1 <= last &&
        pixel(i) === pixel(i + span * fanout - 1)
      ) {
        level += 1;
        span *= fanout;
      }
      const px = pixel(i);
      if (px !== column) {
        if (column >= 0) {
          push(column, false);
          if (px > column + 1) push(column + 1, true);
        }
        for (let k = 0; k < series; k++) {
          low[k] = started ? held[k] : Infinity;
          high[k] = started ? held[k] : -Infinity;
        }
        column = px;
      }
      const end = i + span - 1;
      for (let k = 0; k < series; k++) {
        let min;
        let max;
        if (level === 0) min = max = this.values[k][i];
        else {
          const bucket = this.levels[level - 1][k];
          min = bucket.min[i / span];
          max = bucket.max[i / span];
        }
        if (min < low[k]) low[k] = min;
        if (max > high[k]) high[k] = max;
        held[k] = this.values[k][end];
      }
      started = true;
      i = end + 1;
    }
    if (column >= 0) {
      push(column, false);
      if (column < width) push(column + 1, true);
      if (column + 1 < width) push(width, true);
    }
    return out;
  }

  // Redraws at the next animation frame, once however many zoom events come before it.
  scheduleRedraw() {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => {
      this.pending = 0;
      this.redraw();
    });
  }

  // Draws now what a scheduled redraw would (a click must find what it sees), or anyway.
  flush(always = false) {
    if (!this.pending && !always) return;
    if (this.pending) cancelAnimationFrame(this.pending);
    this.pending = 0;
    this.redraw();
  }

  redraw() {
    const xScale = this.transform.rescaleX(this.baseX);
    this.xScale = xScale;
    const columns =
      this.envelope && this.axis === "time" ? this.envelopeColumns(xScale) : this.columns(xScale);
    this.drawn = columns;
    // The greatest level drawn on each axis: the heap's (with the total) and the stack's.
    let top = 0;
    let stackTop = 0;
    columns.forEach((series, k) => {
      for (const c of series)
        if (this.series[k].own) stackTop = Math.max(stackTop, c.max);
        else top = Math.max(top, c.max);
    });
    const scaleTo = (high, height) =>
      d3
        .scaleLinear()
        .domain([0, high > 0 ? high * 1.05 : 1])
        .range([height, 0]);
    const yScale = scaleTo(top, this.plotHeight);
    this.yScale = yScale;
    const stackScale = scaleTo(stackTop, this.stackHeight);
    this.stackScale = stackScale;
    const area = (y) =>
      d3
        .area()
        .x((c) => c.px)
        .y0((c) => y(c.min) + 0.75)
        .y1((c) => y(c.max) - 0.75)
        .curve(d3.curveStepAfter);
    const areas = [area(yScale), area(stackScale)];
    this.paths.forEach((path, k) => path.attr("d", areas[this.series[k].own ? 1 : 0](columns[k])));
    const tickFormat = this.axis === "time" ? ReportFormat.secondsTick : d3.format("~s");
    this.xAxisGroup.call(d3.axisBottom(xScale).ticks(8).tickFormat(tickFormat));
    const ticks = ReportFormat.byteTicks(0, yScale.domain()[1], 6);
    this.yAxisGroup.call(d3.axisLeft(yScale).tickValues(ticks.values).tickFormat(ticks.label));
    if (this.stackPlot) {
      this.stackPlot.attr("data-top", stackTop);
      this.stackXAxisGroup.call(d3.axisBottom(xScale).ticks(8).tickFormat(tickFormat));
      const stackTicks = ReportFormat.byteTicks(0, stackScale.domain()[1], 3);
      this.stackYAxisGroup.call(
        d3.axisLeft(stackScale).tickValues(stackTicks.values).tickFormat(stackTicks.label),
      );
    }
    this.drawWindow();
    this.drawMarker();
  }

  // What the heap curve draws in the pixel column at time t: its least and greatest level and
  // the column's time span (for the tests, through memusageReport.drawnLevel).
  drawnLevel(t) {
    this.flush();
    const px = Math.floor(this.xScale(this.xOfTime(t)));
    const k = this.series.findIndex((s) => s.name === "heap");
    const entry = this.drawn[k].find((c) => c.px === px);
    if (!entry) return null;
    return {
      px,
      min: entry.min,
      max: entry.max,
      from: this.timeOfX(this.xScale.invert(px)),
      to: this.timeOfX(this.xScale.invert(px + 1)),
      envelope: Boolean(this.envelope),
    };
  }

  setWindow(t0, t1) {
    this.window = [t0, t1];
    if (this.svg) this.drawWindow();
  }

  drawWindow() {
    const xScale = this.xScale;
    const [t0, t1] = this.window;
    const whole = t0 <= this.data.begin && t1 >= this.data.duration;
    const a = xScale(this.xOfTime(t0));
    const b = xScale(this.xOfTime(t1));
    const shades = whole
      ? []
      : [
          [-1e6, a],
          [b, 1e6],
        ];
    for (const [group, height] of [
      [this.outside, this.plotHeight],
      [this.stackOutside, this.stackHeight],
    ])
      if (group)
        group
          .selectAll("rect")
          .data(shades)
          .join("rect")
          .attr("x", (d) => Math.max(-10, d[0]))
          .attr("width", (d) =>
            Math.max(0, Math.min(this.plotWidth + 10, d[1]) - Math.max(-10, d[0])),
          )
          .attr("height", height);
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
      this.onWindow(this.data.begin, this.data.duration);
      return;
    }
    const [a, b] = event.selection.map((px) => this.timeOfX(this.xScale.invert(px)));
    this.onWindow(Math.max(this.data.begin, a), b);
  }

  clicked(event) {
    if (event.defaultPrevented) return;
    this.flush();
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
