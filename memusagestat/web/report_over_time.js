// SPDX-License-Identifier: MIT
// Over time: the bytes held by the largest sites (stacked, the rest as "other") and the
// allocating calls and bytes per second, across the selected window. Both come from the
// report's exact time buckets (DATA.md's buckets), never from the events it keeps, so they
// hold for every event of the run however many there were.
//
// A column of the charts is a run of consecutive finest buckets (as many as make columns at
// least three pixels wide). Its calls and bytes are the buckets' sums over the column's
// time; its sites are those the bucket with the column's greatest heap lists at that heap's
// moment, so a column's stack is exactly its greatest heap: the top sites' bytes there, and
// "other" the heap less them (the sites outside the top, and a top site the bucket did not
// list among its largest). The top sites are the largest at the window's heap peak: at the
// peak's column they are the window figures' and the sites table's bytes at the peak.
/* exported OverTimeView */
/* global ReportFormat, TimeChart */
"use strict";

function OverTimeView(data, section) {
  const F = ReportFormat;
  const view = { setWindow: () => {}, resize: () => {}, figures: () => null };
  const b = data.buckets;
  if (!b) {
    section.append(
      F.missing(
        "This report has no time buckets (its run has no event recording).",
        "Run memusage with --html=FILE, or give memusagestat --html an --events=FILE.",
      ),
    );
    return view;
  }
  const kTop = 8;
  const fine = b.levels[0];
  const margin = { left: 80, right: 230, top: 10, bottom: 24 };
  let range = [data.begin, data.duration];
  let figures = null;
  let width = 0;
  const holder = F.element("div", { className: "over-time-charts" });
  section.append(holder);

  // The columns of [i0, i1) finest buckets, at most `most` of them.
  const columnsOf = (i0, i1, most) => {
    const per = Math.max(1, Math.ceil((i1 - i0) / most));
    const columns = [];
    for (let i = i0; i < i1; i += per) {
      const end = Math.min(i1, i + per);
      let calls = 0;
      let bytes = 0;
      let at = i;
      for (let k = i; k < end; k++) {
        calls += fine.calls[k];
        bytes += fine.bytes[k];
        if (fine.high[k] > fine.high[at]) at = k;
      }
      const t0 = data.bucketEdge(i);
      const t1 = data.bucketEdge(end);
      columns.push({ t0, t1, calls, bytes, high: fine.high[at], highTime: fine.high_time[at], at });
    }
    return columns;
  };

  // The figures of the window [t0, t1] (snapped to the buckets' edges as every view's).
  const compute = (t0, t1, most) => {
    const [s0, s1, i0, i1] = data.snapWindow(t0, t1);
    const top = data
      .bucketFigures(i0, i1)
      .peakSites.slice(0, kTop)
      .map(([site]) => site);
    const columns = columnsOf(i0, i1, most);
    for (const c of columns) {
      const listed = new Map();
      const flat = fine.sites[c.at] || [];
      for (let k = 0; k + 1 < flat.length; k += 2) listed.set(flat[k], flat[k + 1]);
      c.sites = top.map((site) => listed.get(site) || 0);
      c.other = c.high - c.sites.reduce((sum, v) => sum + v, 0);
      const seconds = c.t1 - c.t0;
      c.callsPerSecond = seconds > 0 ? c.calls / seconds : 0;
      c.bytesPerSecond = seconds > 0 ? c.bytes / seconds : 0;
    }
    return { t0: s0, t1: s1, sites: top, columns };
  };

  const siteColour = (k) => d3.schemeTableau10[k % 10];
  const siteLabel = (site) => data.siteLegendName(site);

  const chart = (id, label, height) => {
    const svg = d3
      .select(holder)
      .append("svg")
      .attr("id", id)
      .attr("role", "img")
      .attr("aria-label", label)
      .attr("width", width)
      .attr("height", height);
    return svg;
  };

  const axes = (svg, x, y, height, yTicks) => TimeChart.axes(svg, x, y, height, margin, yTicks);

  const legendItem = (svg, k, colour, text, title) =>
    TimeChart.legendItem(
      svg,
      width - margin.right + 8,
      margin.top + 14 * k,
      colour,
      F.legendName(text, 28),
      title || text,
    );

  const drawSites = (f, x) => {
    const height = 240;
    const svg = chart("sites-over-time", "bytes held by the largest sites over time", height);
    const most = d3.max(f.columns, (c) => c.high) || 1;
    const yTicks = F.byteTicks(0, most * 1.05, 5);
    const y = d3
      .scaleLinear()
      .domain([0, most * 1.05])
      .range([height - margin.bottom, margin.top]);
    axes(svg, x, y, height, yTicks);
    // Each column a stack of rectangles, the largest site at the bottom, "other" on top.
    const series = f.sites.map((site, k) => ({
      k,
      colour: siteColour(k),
      value: (c) => c.sites[k],
    }));
    series.push({ k: f.sites.length, colour: "var(--other-colour)", value: (c) => c.other });
    const base = f.columns.map(() => 0);
    for (const s of series) {
      const group = svg
        .append("g")
        .attr("class", "over-time-series")
        .attr("data-series", s.k < f.sites.length ? f.sites[s.k] : "other")
        .attr("fill", s.colour);
      f.columns.forEach((c, j) => {
        const v = s.value(c);
        if (v > 0)
          group
            .append("rect")
            .attr("x", x(c.t0))
            .attr("width", Math.max(1, x(c.t1) - x(c.t0)))
            .attr("y", y(base[j] + v))
            .attr("height", Math.max(0, y(base[j]) - y(base[j] + v)));
        base[j] += v;
      });
    }
    f.sites.forEach((site, k) =>
      legendItem(svg, k, siteColour(k), siteLabel(site), site >= 0 ? data.siteTitle(site) : null),
    );
    legendItem(
      svg,
      f.sites.length,
      "var(--other-colour)",
      "other sites",
      "the heap less the sites above: the other sites, and a top site where it was not among the bucket's largest",
    );
  };

  const drawRates = (f, x, metric, id, label) => {
    const height = 140;
    const svg = chart(id, label, height);
    const value = (c) => c[metric];
    const most = d3.max(f.columns, value) || 1;
    const y = d3
      .scaleLinear()
      .domain([0, most * 1.05])
      .range([height - margin.bottom, margin.top]);
    const yTicks =
      metric === "bytesPerSecond"
        ? (() => {
            const t = F.byteTicks(0, most * 1.05, 4);
            return { values: t.values, label: (v) => t.label(v) + "/s" };
          })()
        : { values: y.ticks(4), label: (v) => F.integer(v) + "/s" };
    axes(svg, x, y, height, yTicks);
    const group = svg.append("g").attr("class", "over-time-rates").attr("fill", siteColour(0));
    for (const c of f.columns)
      if (value(c) > 0)
        group
          .append("rect")
          .attr("x", x(c.t0))
          .attr("width", Math.max(1, x(c.t1) - x(c.t0)))
          .attr("y", y(value(c)))
          .attr("height", Math.max(0, y(0) - y(value(c))));
    legendItem(svg, 0, siteColour(0), label);
  };

  const draw = () => {
    holder.replaceChildren();
    width = Math.max(500, section.clientWidth || 1000);
    const plot = width - margin.left - margin.right;
    figures = compute(range[0], range[1], Math.max(1, Math.floor(plot / 3)));
    const x = d3
      .scaleLinear()
      .domain([figures.t0, figures.t1 > figures.t0 ? figures.t1 : figures.t0 + 1])
      .range([margin.left, width - margin.right]);
    drawSites(figures, x);
    drawRates(figures, x, "callsPerSecond", "calls-per-second", "allocating calls per second");
    drawRates(figures, x, "bytesPerSecond", "bytes-per-second", "bytes allocated per second");
  };

  view.setWindow = (t0, t1) => {
    range = [t0, t1];
    draw();
  };
  view.resize = () => {
    if (Math.max(500, section.clientWidth || 1000) !== width) draw();
  };
  view.figures = () => figures;
  return view;
}
