// SPDX-License-Identifier: MIT
// The callers and callees table: the sites' bytes by function (or by function and line), each
// "self" (the function is a site's innermost frame: it allocated them) and "inclusive" (the
// function is anywhere in the site's stack, counted once per site however often it recurs),
// for the flame graph's quantities: bytes at the peak, allocated or leaked, of the selected
// window when the report has them. A row selected shows the function's callers and callees,
// each with its share of the function's inclusive bytes. Made from `sites` and `frames` alone.
/* exported CallersView */
/* global ReportFormat, SourceView, SortableTable */
"use strict";

class CallersView {
  // A window's peak sites as a map, made once per window's figures.
  static peaks = new WeakMap();

  constructor(data, container, elements) {
    this.data = data;
    this.container = container;
    this.elements = elements;
    this.metric = "peak";
    this.by = "function";
    this.sortKey = "inclusive";
    this.descending = true;
    this.filter = "";
    this.selected = null;
    this.window = null;
    this.limit = 200;
    if (!data.sites) {
      container.append(
        ReportFormat.missing(
          "This run has no allocation sites.",
          "Run memusage with --html=FILE, or keep them with --sites-file=FILE and give them " +
            "to memusagestat --html with --sites=FILE.",
        ),
      );
      return;
    }
    this.draw();
  }

  // The selected window's figures (as the flame graph takes them), or null for the whole run.
  setWindow(figures) {
    if (figures === null && this.window === null) return;
    this.window = figures;
    if (this.data.sites) this.draw();
  }

  // Whether a metric's figures are the window's `figures` (else the whole run's: the report
  // keeps a sample of the window's events or blocks), as the flame graph decides. With
  // siteWeight, the one definition the callers table and the source view take.
  static follows(figures, metric) {
    if (!figures) return false;
    if (metric === "peak") return Boolean(figures.peakSites);
    if (metric === "allocated") return Boolean(figures.breakdown);
    if (metric === "leaked") return Boolean(figures.leaks);
    return false;
  }

  // A site's bytes at the peak, allocated or leaked: of the window's `figures` when they
  // have them (follows), else of the whole run; null figures: the whole run.
  static siteWeight(data, figures, metric, site) {
    const record = data.sites[site];
    const windowed = CallersView.follows(figures, metric);
    if (metric === "peak") {
      if (!windowed) return record.peak;
      if (!CallersView.peaks.has(figures))
        CallersView.peaks.set(figures, new Map(figures.peakSites));
      return CallersView.peaks.get(figures).get(site) || 0;
    }
    if (metric === "allocated")
      return windowed
        ? (figures.breakdown.sites.get(site) || { bytes: 0 }).bytes
        : record.allocated;
    if (metric === "leaked")
      return windowed ? (figures.leaks.bySite.get(site) || { bytes: 0 }).bytes : record.leaked;
    return 0;
  }

  setMetric(metric) {
    this.metric = metric;
    if (this.data.sites) this.draw();
  }

  setGrouping(by) {
    this.by = by;
    this.selected = null;
    if (this.data.sites) this.draw();
  }

  setFilter(text) {
    this.filter = text.trim().toLowerCase();
    if (this.data.sites) this.render();
  }

  // Whether the figures are the window's (else the whole run's).
  followsWindow() {
    return CallersView.follows(this.window, this.metric);
  }

  weight(site) {
    return CallersView.siteWeight(this.data, this.window, this.metric, site);
  }

  metricName() {
    return { peak: "bytes at the peak", allocated: "allocated bytes", leaked: "leaked bytes" }[
      this.metric
    ];
  }

  // A frame's key: its function, or its function at its file:line; with the full text to
  // show on hover.
  keyOf(frame) {
    // Made once per grouping: a run has up to 100,000 sites, each of tens of frames.
    this.keys = this.keys || {};
    if (!this.keys[this.by])
      this.keys[this.by] = this.data.frames.map((record, i) =>
        this.by === "function" ? record.function || "??" : this.data.frameText(i),
      );
    return this.keys[this.by][frame] ?? "?";
  }

  // Every function's self and inclusive bytes, and each site's stack as keys (innermost
  // first), from the sites' weights.
  compute() {
    const rows = new Map();
    const row = (key) => {
      let entry = rows.get(key);
      if (!entry) {
        entry = { key, self: 0, inclusive: 0 };
        rows.set(key, entry);
      }
      return entry;
    };
    const stacks = [];
    let total = 0;
    this.data.sites.forEach((site, index) => {
      const value = this.weight(index);
      if (!(value > 0)) return;
      total += value;
      const keys = site.frames.map((f) => this.keyOf(f));
      stacks.push({ keys, value, cut: site.cut });
      if (keys.length === 0) return;
      row(keys[0]).self += value;
      for (const key of new Set(keys)) row(key).inclusive += value;
    });
    this.rows = [...rows.values()];
    this.stacks = stacks;
    this.total = total;
  }

  // The selected function's callers (the frames just outside it) and callees (just inside),
  // each counted once per site: their bytes through it.
  neighbours(key) {
    const callers = new Map();
    const callees = new Map();
    const add = (map, name, value) => map.set(name, (map.get(name) || 0) + value);
    for (const { keys, value, cut } of this.stacks) {
      if (!keys.includes(key)) continue;
      const outer = new Set();
      const inner = new Set();
      keys.forEach((k, j) => {
        if (k !== key) return;
        if (j + 1 < keys.length) outer.add(keys[j + 1]);
        else outer.add(cut ? "[stack cut]" : "[the stack's root]");
        if (j > 0) inner.add(keys[j - 1]);
        else inner.add("[allocates itself]");
      });
      // A recursion calls itself: not its own caller or callee in the shares.
      outer.delete(key);
      inner.delete(key);
      for (const name of outer) add(callers, name, value);
      for (const name of inner) add(callees, name, value);
    }
    const sorted = (map) => [...map].sort((a, b) => b[1] - a[1] || d3.ascending(a[0], b[0]));
    return { callers: sorted(callers), callees: sorted(callees) };
  }

  caption() {
    ReportFormat.weightCaption(
      this.elements.caption,
      this.data,
      this.window,
      this.followsWindow(),
      this.metric,
      this.metricName(),
      ": it keeps a sample.",
    );
  }

  draw() {
    this.caption();
    this.compute();
    if (this.selected !== null && !this.rows.some((r) => r.key === this.selected))
      this.selected = null;
    this.render();
  }

  sortBy(key) {
    [this.sortKey, this.descending] = SortableTable.nextOrder(
      this.sortKey,
      this.descending,
      key,
      (k) => k === "name",
    );
    this.render();
  }

  // A name cell's text: shortened, the full name on hover.
  nameText(key) {
    if (key.startsWith("[")) return key;
    // Without a symbol, the module's name and the offset ("libz.so.1+0x2f10"), not its path.
    const name = (text) =>
      ReportFormat.shortName(
        /^\/.*\+0x[0-9a-f]+$/.test(text) ? text.slice(text.lastIndexOf("/") + 1) : text,
        this.by === "function" ? 60 : 50,
      );
    const cut = key.lastIndexOf(" (");
    if (this.by === "function" || cut < 0) return name(key);
    const where = key.slice(cut + 2, -1);
    const module = /^\/.*\+0x[0-9a-f]+$/.test(key.slice(0, cut));
    return (
      name(key.slice(0, cut)) + (module ? "" : " (" + where.slice(where.lastIndexOf("/") + 1) + ")")
    );
  }

  // A row's name: the button that selects it and, by line, its file:line as a link to the
  // source view (when the report holds the file).
  nameCell(key) {
    const button = (text) =>
      ReportFormat.element(
        "button",
        {
          type: "button",
          className: "callers-select",
          "aria-pressed": key === this.selected ? "true" : "false",
        },
        text,
      );
    const cut = key.lastIndexOf(" (");
    const where = this.by === "line" && cut > 0 && /^(.*):(\d+)\)$/.exec(key.slice(cut + 2));
    const link =
      where &&
      SourceView.link(
        this.data,
        where[1],
        Number(where[2]),
        "(" + where[1].slice(where[1].lastIndexOf("/") + 1) + ":" + where[2] + ")",
      );
    if (!link || typeof link === "string") return [button(this.nameText(key))];
    return [button(this.nameText(key.slice(0, cut))), " ", link];
  }

  render() {
    const F = ReportFormat;
    const c = this.container;
    c.dataset.metric = this.metric;
    c.dataset.by = this.by;
    c.dataset.total = this.total;
    let rows = this.rows;
    if (this.filter) rows = rows.filter((r) => r.key.toLowerCase().includes(this.filter));
    const key = this.sortKey;
    const sign = this.descending ? -1 : 1;
    rows = rows
      .slice()
      .sort((a, b) =>
        key === "name"
          ? sign * d3.ascending(a.key, b.key)
          : sign * (a[key] - b[key]) || d3.ascending(a.key, b.key),
      );
    const columns = [
      ["name", this.by === "function" ? "function" : "function (file:line)"],
      ["self", "self"],
      ["self_share", "self %"],
      ["inclusive", "inclusive"],
      ["inclusive_share", "inclusive %"],
    ];
    const sortable = { name: "name", self: "self", inclusive: "inclusive" };
    const head = F.element(
      "tr",
      {},
      ...columns.map(([k, label]) => {
        const sorts = sortable[k];
        return F.element(
          "th",
          {
            "data-column": k,
            scope: "col",
            className: (k === "name" ? "" : "num ") + (sorts === key ? "sorted" : ""),
            tabIndex: sorts ? 0 : null,
            "aria-sort": sorts
              ? sorts === key
                ? this.descending
                  ? "descending"
                  : "ascending"
                : "none"
              : null,
          },
          label,
        );
      }),
    );
    const sort = (event) => {
      const th = event.target.closest("th");
      const column = th && sortable[th.dataset.column];
      if (!column) return;
      this.sortBy(column);
      const again = c.querySelector(`th[data-column="${th.dataset.column}"]`);
      if (again && event.type === "keydown") again.focus();
    };
    head.addEventListener("click", sort);
    head.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" && event.key !== " ") return;
      event.preventDefault();
      sort(event);
    });
    const body = F.element("tbody");
    for (const r of rows.slice(0, this.limit)) {
      body.append(
        F.element(
          "tr",
          {
            className: "callers-row" + (r.key === this.selected ? " selected" : ""),
            "data-key": r.key,
            "data-self": r.self,
            "data-inclusive": r.inclusive,
          },
          F.element("td", { className: "callers-name", title: r.key }, ...this.nameCell(r.key)),
          F.element("td", { className: "num", "data-column": "self" }, F.integer(r.self)),
          F.element("td", { className: "num" }, F.percent(r.self, this.total)),
          F.element("td", { className: "num", "data-column": "inclusive" }, F.integer(r.inclusive)),
          F.element("td", { className: "num" }, F.percent(r.inclusive, this.total)),
        ),
      );
    }
    body.addEventListener("click", (event) => {
      const tr = event.target.closest("tr.callers-row");
      if (tr) this.select(tr.dataset.key, true);
    });
    // Up and down move between the rows' buttons; Enter (a button's click) selects.
    body.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
      const tr = event.target.closest("tr.callers-row");
      const next =
        tr && (event.key === "ArrowDown" ? tr.nextElementSibling : tr.previousElementSibling);
      if (!next) return;
      event.preventDefault();
      next.querySelector("button").focus();
    });
    const table = F.element("table", { className: "callers" }, F.element("thead", {}, head), body);
    const count = F.element(
      "p",
      { className: "callers-count" },
      (rows.length > this.limit
        ? "The first " + F.integer(this.limit) + " of " + F.integer(rows.length)
        : F.integer(rows.length)) +
        (this.by === "function" ? " functions" : " lines") +
        (this.filter ? " match" : "") +
        "; " +
        F.bytes(this.total) +
        " in all.",
    );
    const wrap = F.element("div", { className: "callers-scroll" }, table);
    c.replaceChildren(count, wrap);
    this.showSelected();
  }

  // Selects a function (its row's callers and callees shown below the table).
  select(key, fromRow = false) {
    this.selected = key;
    for (const tr of this.container.querySelectorAll("tr.callers-row")) {
      const on = tr.dataset.key === key;
      tr.classList.toggle("selected", on);
      tr.querySelector("button").setAttribute("aria-pressed", on ? "true" : "false");
    }
    this.showSelected();
    if (!fromRow) {
      const row = [...this.container.querySelectorAll("tr.callers-row")].find(
        (tr) => tr.dataset.key === key,
      );
      if (row) row.querySelector("button").focus({ preventScroll: true });
    }
  }

  showSelected() {
    const F = ReportFormat;
    const box = this.elements.details;
    box.replaceChildren();
    box.dataset.key = this.selected || "";
    if (this.selected === null) {
      box.append(
        F.element("p", { className: "hint" }, "Select a row to see its callers and callees."),
      );
      return;
    }
    const entry = this.rows.find((r) => r.key === this.selected);
    const inclusive = entry ? entry.inclusive : 0;
    const { callers, callees } = this.neighbours(this.selected);
    const list = (title, kind, pairs) => {
      const body = F.element("tbody");
      for (const [name, value] of pairs) {
        const navigable = this.rows.some((r) => r.key === name);
        const label = navigable
          ? F.element("button", { type: "button", className: "callers-go" }, this.nameText(name))
          : this.nameText(name);
        body.append(
          F.element(
            "tr",
            { "data-key": name, "data-bytes": value },
            F.element("td", { className: "callers-name", title: name }, label),
            F.element("td", { className: "num" }, F.integer(value)),
            F.element("td", { className: "num" }, F.percent(value, inclusive)),
          ),
        );
      }
      body.addEventListener("click", (event) => {
        const button = event.target.closest("button.callers-go");
        if (button) this.select(button.closest("tr").dataset.key);
      });
      return F.element(
        "div",
        { className: "callers-list", "data-list": kind },
        F.element("h4", {}, title),
        pairs.length
          ? F.element(
              "table",
              { className: "callers" },
              F.element(
                "thead",
                {},
                F.element(
                  "tr",
                  {},
                  F.element("th", { scope: "col" }, "function"),
                  F.element("th", { scope: "col", className: "num" }, "bytes through it"),
                  F.element("th", { scope: "col", className: "num" }, "share"),
                ),
              ),
              body,
            )
          : F.element("p", { className: "hint" }, "none"),
      );
    };
    box.append(
      F.element(
        "h3",
        { title: this.selected },
        this.nameText(this.selected) +
          ": " +
          F.bytes(inclusive) +
          " inclusive, " +
          F.bytes(entry ? entry.self : 0) +
          " self",
      ),
      F.element(
        "div",
        { className: "callers-pair" },
        list("Called by", "callers", callers),
        list("Calls", "callees", callees),
      ),
    );
  }
}
