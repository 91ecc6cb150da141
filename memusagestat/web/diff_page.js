// SPDX-License-Identifier: MIT
// The two-run page: reads the data (DATA.md, "The two-run page") from
// <script type="application/json" id="report-data"> and draws the runs, the totals, the
// heap timelines of both runs, the diff flame graph and the diff sites table.
/* global ReportFormat, DiffTimeline, DiffFlame, DiffTable */
"use strict";

// A site's status against run A, by one measure's figures: new, gone, grown, shrunk or
// unchanged.
function diffStatus(site, measure) {
  if (!site.in_a) return "new";
  if (!site.in_b) return "gone";
  const change = site.b[measure] - site.a[measure];
  return change > 0 ? "grown" : change < 0 ? "shrunk" : "unchanged";
}

(() => {
  const F = ReportFormat;
  const json = JSON.parse(document.getElementById("report-data").textContent);
  if (json.time_unit === "share") F.useShareOfRun(F);
  const byId = (id) => document.getElementById(id);

  // The page's data with the helpers every view shares.
  const data = {
    ...json,
    status: diffStatus,
    // The site's stack, innermost first, as the text --diff writes its lines.
    stackLines: (site) => site.stack.map((k) => json.frames[k]),
    // A stack line as shown: the file's last component (the whole path on hover).
    shortLine: (line) => line.replace(/\(([^()]*\/)([^/()]*:\d+)\)/, "($2)"),
    siteName: (site) => {
      const lines = site.stack.map((k) => json.frames[k]);
      const name = lines.length > 0 ? lines[0] : "(no stack)";
      return name + (site.via ? " via " + site.via : "");
    },
  };

  const runs = byId("diff-runs");
  for (const [k, run] of json.runs.entries()) {
    runs.append(
      F.element(
        "li",
        { "data-run": run.label },
        F.element("span", { className: "swatch run-" + run.label.toLowerCase() }),
        " Run " + run.label + ": ",
        F.element("code", {}, run.path),
        run.command ? " (" + run.command + ")" : run.program ? " (" + run.program + ")" : "",
        k === 0 ? " — before" : " — after",
      ),
    );
  }
  const notes = byId("run-notes");
  for (const note of json.notes) notes.append(F.element("li", {}, note));

  // The totals, as the text --diff's first table.
  const totalRows = json.totals.map((row) => {
    const change = row.b - row.a;
    return [
      row.label,
      F.numberCell(F.integer(row.a)),
      F.numberCell(F.integer(row.b)),
      F.numberCell((change > 0 ? "+" : "") + F.integer(change)),
      F.numberCell(
        row.a !== 0 && change !== 0
          ? (change > 0 ? "+" : "") + ((100 * change) / row.a).toFixed(1) + "%"
          : "",
      ),
    ];
  });
  byId("diff-totals").append(
    F.table(["", "run A", "run B", "change", "%"], totalRows, { className: "diff-totals" }),
  );

  const timeline = new DiffTimeline(data, byId("diff-timeline"), byId("diff-timeline-legend"));

  const select = byId("diff-measure");
  for (const m of json.measures)
    select.append(F.element("option", { value: m.key }, m.title.replace(/^Change in /, "")));
  const flame = new DiffFlame(data, byId("diff-flame"), byId("diff-flame-details"));
  const table = new DiffTable(data, byId("diff-sites"), {
    status: byId("diff-status"),
    filter: byId("diff-filter"),
    count: byId("diff-count"),
  });
  select.addEventListener("change", () => {
    flame.setMeasure(select.value);
    table.setMeasure(select.value);
  });
  byId("diff-flame-reset").addEventListener("click", () => flame.resetZoom());

  let resizing = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizing);
    resizing = setTimeout(() => {
      timeline.draw();
      flame.resize();
    }, 150);
  });
  byId("loading").textContent = "";
  byId("loading").hidden = true;
  // For the tests, as the report's page offers them (open_report.mjs waits for `ready`).
  window.memusageReport = { data, flame, table, timeline, ready: true };
})();
