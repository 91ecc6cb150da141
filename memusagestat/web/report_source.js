// SPDX-License-Identifier: MIT
// The source view: a source file the shown sites name, each line with its bytes at the peak,
// allocated or leaked, "self" (the line is a site's innermost frame: it allocated them) and
// "inclusive" (the line is anywhere in the site's stack, once per site), as the callers table
// defines them (CallersView.siteWeight), of the selected window when the report has its
// figures; like `go tool pprof -list`. The files' text is the report's `sources` (DATA.md); a
// file the report holds without text is listed with the reason. A frame's file:line anywhere
// in the page (a stack, the callers table by line) is a link that opens the file there.
/* exported SourceView */
/* global ReportFormat, CallersView */
"use strict";

class SourceView {
  constructor(data, container, elements) {
    this.data = data;
    this.container = container;
    this.elements = elements;
    this.metric = "peak";
    this.window = null;
    this.files = data.json.sources || [];
    this.file = this.files.length ? this.files[0].file : null;
    this.target = null;
    SourceView.shown = this;
    if (!data.sites || !this.files.length) {
      container.append(
        data.sites
          ? ReportFormat.missing(
              "The sites' frames name no source file.",
              "Build the program with -g for file:line in its debug information.",
            )
          : ReportFormat.missing(
              "This run has no allocation sites.",
              "Run memusage with --html=FILE, or give memusagestat --html the sites file with " +
                "--sites=FILE.",
            ),
      );
      elements.file.disabled = true;
      return;
    }
    this.draw();
  }

  // A link to `file` at `line` showing `text`, when the report holds that file; else the text.
  static link(data, file, line, text) {
    if (!data.sourceFiles) data.sourceFiles = new Set((data.json.sources || []).map((s) => s.file));
    if (!file || !data.sourceFiles.has(file)) return text;
    return ReportFormat.element(
      "a",
      {
        className: "source-link",
        href: "#source-view",
        "data-file": file,
        "data-line": line,
        title: "Show " + file + " at line " + line + " in the source view",
      },
      text,
    );
  }

  setWindow(figures) {
    if (figures === null && this.window === null) return;
    this.window = figures;
    if (this.file !== null) this.draw();
  }

  setFile(file) {
    this.file = file;
    this.target = null;
    this.draw();
  }

  setMetric(metric) {
    this.metric = metric;
    if (this.file !== null) this.draw();
  }

  // Opens `file` (a frame's recorded path) at `line`: shown, scrolled to and marked.
  open(file, line) {
    if (!this.files.some((s) => s.file === file)) return false;
    this.file = file;
    this.target = line;
    this.draw();
    const row = this.container.querySelector(`tr[data-line="${line}"]`);
    const view = document.getElementById("source-view");
    if (view) view.scrollIntoView();
    if (row) {
      row.scrollIntoView({ block: "center" });
      const cell = row.querySelector("th");
      cell.tabIndex = -1;
      cell.focus({ preventScroll: true });
    }
    return true;
  }

  // Every line's self and inclusive bytes in `file`, for the three metrics, and the file's
  // sums: self over the sites whose innermost frame is in it, inclusive over the sites with
  // a frame in it (each once).
  figures(file) {
    const metrics = ["peak", "allocated", "leaked"];
    const zero = () => ({ peak: 0, allocated: 0, leaked: 0 });
    const lines = new Map();
    const at = (line) => {
      if (!lines.has(line)) lines.set(line, { line, self: zero(), inclusive: zero() });
      return lines.get(line);
    };
    const self = zero();
    const inclusive = zero();
    const frames = this.data.frames;
    this.data.sites.forEach((site, index) => {
      const inFile = new Set();
      for (const f of site.frames) if (frames[f] && frames[f].file === file) inFile.add(f);
      if (!inFile.size) return;
      const weights = metrics.map((m) => CallersView.siteWeight(this.data, this.window, m, index));
      const innermost = frames[site.frames[0]];
      const lineSet = new Set([...inFile].map((f) => frames[f].line));
      metrics.forEach((m, k) => {
        const w = weights[k];
        if (!(w > 0)) return;
        inclusive[m] += w;
        for (const line of lineSet) at(line).inclusive[m] += w;
        if (innermost && innermost.file === file) {
          self[m] += w;
          at(innermost.line).self[m] += w;
        }
      });
    });
    return {
      file,
      lines: [...lines.values()].sort((a, b) => a.line - b.line),
      self,
      inclusive,
      follows: Object.fromEntries(metrics.map((m) => [m, CallersView.follows(this.window, m)])),
    };
  }

  metricName() {
    return { peak: "bytes at the peak", allocated: "allocated bytes", leaked: "leaked bytes" }[
      this.metric
    ];
  }

  caption() {
    const f = this.window;
    ReportFormat.weightCaption(
      this.elements.caption,
      this.data,
      f,
      CallersView.follows(f, this.metric),
      this.metric,
      this.metricName(),
      ": it keeps a sample.",
    );
  }

  // Each file's self bytes of the metric: the sites whose innermost frame is in it.
  fileSums() {
    const sums = new Map();
    const frames = this.data.frames;
    this.data.sites.forEach((site, index) => {
      const innermost = frames[site.frames[0]];
      if (!innermost || !innermost.file) return;
      const w = CallersView.siteWeight(this.data, this.window, this.metric, index);
      if (w > 0) sums.set(innermost.file, (sums.get(innermost.file) || 0) + w);
    });
    return sums;
  }

  // The file list: each file with its self bytes of the metric, the selected one chosen.
  fileList() {
    const F = ReportFormat;
    const select = this.elements.file;
    const sums = this.fileSums();
    select.replaceChildren(
      ...this.files.map((s) =>
        F.element(
          "option",
          { value: s.file },
          s.file.slice(s.file.lastIndexOf("/") + 1) +
            " — " +
            F.bytes(sums.get(s.file) || 0) +
            " self" +
            (s.lines ? "" : " (no text)"),
        ),
      ),
    );
    select.value = this.file;
  }

  draw() {
    const F = ReportFormat;
    this.caption();
    this.fileList();
    const source = this.files.find((s) => s.file === this.file);
    const figures = this.figures(this.file);
    this.shown = figures;
    const byLine = new Map(figures.lines.map((l) => [l.line, l]));
    const c = this.container;
    c.dataset.file = this.file;
    c.dataset.metric = this.metric;
    c.dataset.self = figures.self[this.metric];
    c.dataset.inclusive = figures.inclusive[this.metric];
    const head = [
      F.element(
        "h3",
        { className: "source-file", title: this.file },
        this.file,
        ": " +
          F.bytes(figures.self[this.metric]) +
          " self, " +
          F.bytes(figures.inclusive[this.metric]) +
          " inclusive",
      ),
    ];
    if (source.path && source.path !== source.file)
      head.push(
        F.element("p", { className: "hint source-read" }, "Read from " + source.path + "."),
      );
    if (source.omitted)
      head.push(
        F.element(
          "p",
          { className: "missing source-omitted" },
          "The report holds no text of this file: " + source.omitted + ".",
        ),
      );
    const count = source.lines ? source.lines.length : 0;
    // Every line of the text, and the lines with bytes past its end or without text.
    const numbers = new Set(Array.from({ length: count }, (_, i) => i + 1));
    for (const l of figures.lines) numbers.add(l.line);
    const body = F.element("tbody");
    const m = this.metric;
    for (const n of [...numbers].sort((a, b) => a - b)) {
      const l = byLine.get(n);
      const self = l ? l.self[m] : 0;
      const inclusive = l ? l.inclusive[m] : 0;
      const text = n <= count ? source.lines[n - 1] : source.lines ? "(past the file's end)" : "";
      body.append(
        F.element(
          "tr",
          {
            "data-line": n,
            "data-self": self,
            "data-inclusive": inclusive,
            className:
              (self > 0 ? "source-self" : inclusive > 0 ? "source-inclusive" : "") +
              (n === this.target ? " source-target" : ""),
          },
          F.element("th", { scope: "row", className: "num source-number" }, n),
          F.element("td", { className: "num" }, self > 0 ? F.bytes(self) : ""),
          F.element("td", { className: "num" }, inclusive > 0 ? F.bytes(inclusive) : ""),
          F.element("td", { className: "source-text" }, F.element("code", {}, text)),
        ),
      );
    }
    const table = F.element(
      "table",
      { className: "source-lines" },
      F.element(
        "thead",
        {},
        F.element(
          "tr",
          {},
          F.element("th", { scope: "col", className: "num" }, "line"),
          F.element("th", { scope: "col", className: "num" }, "self"),
          F.element("th", { scope: "col", className: "num" }, "inclusive"),
          F.element("th", { scope: "col" }, "source"),
        ),
      ),
      body,
    );
    // A region of its own that scrolls, reached by keyboard (its lines hold no control).
    const scroll = F.element(
      "div",
      {
        className: "source-scroll",
        tabIndex: 0,
        role: "region",
        "aria-label": "The lines of " + this.file,
      },
      table,
    );
    c.replaceChildren(...head, scroll);
  }
}

// A click on a frame's file:line, anywhere in the page, opens the file there.
document.addEventListener("click", (event) => {
  const link = event.target.closest && event.target.closest("a.source-link");
  if (!link || !SourceView.shown) return;
  event.preventDefault();
  SourceView.shown.open(link.dataset.file, Number(link.dataset.line));
});
