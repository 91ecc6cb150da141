// SPDX-License-Identifier: MIT
// The parts of a chart over time (d3, SVG) that the report's threads chart
// (report_tables.js), its Over time charts (report_over_time.js) and the two-run page's
// timeline (diff_timeline.js) share: the time axis along the bottom with the value axis on
// the left, and a legend's row (a colour and its name) to the right of the plot.
/* exported TimeChart */
/* global ReportFormat */
"use strict";

const TimeChart = {
  // The axes of `svg` (`height` high, its plot within `margin`): time by the scale `x`, in
  // seconds (or shares of the run, as ReportFormat.secondsTick writes them); values by the
  // scale `y`, at `yTicks` ({ values, label }, as ReportFormat.byteTicks returns them).
  // `className` (optional) is each axis group's class.
  axes(svg, x, y, height, margin, yTicks, className = null) {
    svg
      .append("g")
      .attr("class", className)
      .attr("transform", `translate(0,${height - margin.bottom})`)
      .call(d3.axisBottom(x).ticks(8).tickFormat(ReportFormat.secondsTick));
    svg
      .append("g")
      .attr("class", className)
      .attr("transform", `translate(${margin.left},0)`)
      .call(d3.axisLeft(y).tickValues(yTicks.values).tickFormat(yTicks.label));
  },

  // A row of the legend at (left, top): a square of `colour` and `text` beside it, in the
  // text's colour (readable on either theme's background); `title` (optional) is the text's
  // tooltip. Returns the row's group.
  legendItem(svg, left, top, colour, text, title = null) {
    const item = svg
      .append("g")
      .attr("class", "legend")
      .attr("transform", `translate(${left},${top})`);
    item.append("rect").attr("width", 10).attr("height", 10).attr("fill", colour);
    const label = item.append("text").attr("x", 14).attr("y", 9).text(text);
    if (title !== null) label.append("title").text(title);
    return item;
  },
};
