// SPDX-License-Identifier: MIT
// The diff sites table: every site of either run with one measure's figure in run A and in
// run B, its change and its status (grown, shrunk, new, gone, unchanged). By default the
// sites the text --diff lists, in its order: those that changed, the largest change first.
// Every header sorts (click, or Tab and Enter); a site's button opens its stack.
/* exported DiffTable */
/* global ReportFormat, SortableTable */
"use strict";

class DiffTable {
  constructor(data, container, elements) {
    this.data = data;
    this.container = container;
    this.elements = elements;
    this.measure = data.measures[0].key;
    this.sortKey = "change";
    this.descending = true;
    this.step = 500;
    this.columns = [
      ["status", "Status"],
      ["site", "Site"],
      ["a", "Run A"],
      ["b", "Run B"],
      ["change", "Change"],
      ["percent", "Change %"],
    ];
    if (!data.sites) {
      container.append(
        ReportFormat.missing(
          "Data files hold no allocation sites.",
          "Give the two runs' sites files to memusagestat --html=OUT --diff.",
        ),
      );
      return;
    }
    elements.status.addEventListener("change", () => this.draw());
    elements.filter.addEventListener("input", () => this.draw());
    this.draw();
  }

  setMeasure(measure) {
    this.measure = measure;
    if (this.data.sites) this.draw();
  }

  // The sort's value of site `i` in column `key`. Change sorts by its size, as the text
  // --diff ranks; Change % by its sign too (a new site's is above every other).
  value(i, key) {
    const site = this.data.sites[i];
    const a = site.a[this.measure];
    const b = site.b[this.measure];
    switch (key) {
      case "a":
        return a;
      case "b":
        return b;
      case "change":
        return Math.abs(b - a);
      case "percent":
        return a > 0 ? (b - a) / a : b > 0 ? Infinity : 0;
      default:
        return 0;
    }
  }

  shownRows() {
    const sites = this.data.sites;
    const wanted = this.elements.status.value;
    const filter = this.elements.filter.value.trim().toLowerCase();
    const rows = [];
    for (let i = 0; i < sites.length; i++) {
      const site = sites[i];
      const status = this.data.status(site, this.measure);
      const changed = site.b[this.measure] !== site.a[this.measure];
      if (wanted === "changed" ? !changed : wanted !== "all" && status !== wanted) continue;
      if (filter && !this.data.stackLines(site).some((l) => l.toLowerCase().includes(filter)))
        continue;
      rows.push(i);
    }
    const key = this.sortKey;
    const sign = this.descending ? -1 : 1;
    if (key === "site" || key === "status") {
      const text = (i) =>
        key === "site" ? this.data.siteName(sites[i]) : this.data.status(sites[i], this.measure);
      rows.sort((p, q) => sign * (d3.ascending(text(p), text(q)) || 0) || p - q);
    } else {
      // Ties keep the sites' order, as the text --diff's stable sort does.
      rows.sort((p, q) => sign * (this.value(p, key) - this.value(q, key)) || p - q);
    }
    return rows;
  }

  // Whether column `key` holds text (sorted from A), not numbers (sorted largest first).
  static isText(key) {
    return key === "site" || key === "status";
  }

  sortBy(key) {
    [this.sortKey, this.descending] = SortableTable.nextOrder(
      this.sortKey,
      this.descending,
      key,
      DiffTable.isText,
    );
    this.draw();
  }

  draw() {
    const F = ReportFormat;
    this.rows = this.shownRows();
    this.shown = 0;
    this.body = F.element("tbody");
    this.body.addEventListener("click", (event) => {
      const button = event.target.closest("button.site-toggle");
      if (button) this.toggle(button.closest("tr"));
    });
    const table = F.element(
      "table",
      { className: "diff-sites", "data-measure": this.measure },
      F.element("caption", { className: "visually-hidden" }, "Sites of run B against run A"),
      F.element(
        "thead",
        {},
        SortableTable.head(
          this.columns,
          this.sortKey,
          this.descending,
          DiffTable.isText,
          (key) => this.sortBy(key),
          this.container,
        ),
      ),
      this.body,
    );
    this.more = SortableTable.moreButton(() => this.showMore());
    this.container.replaceChildren(table, this.more);
    this.showMore();
  }

  signed(n) {
    const text = this.measure === "calls" ? ReportFormat.integer(n) : ReportFormat.bytes(n);
    return n > 0 ? "+" + text : text;
  }

  row(i) {
    const F = ReportFormat;
    const site = this.data.sites[i];
    const a = site.a[this.measure];
    const b = site.b[this.measure];
    const status = this.data.status(site, this.measure);
    const figure = (n) => (this.measure === "calls" ? F.integer(n) : F.bytes(n));
    const name = this.data.siteName(site);
    return F.element(
      "tr",
      { className: "site-row", "data-site": i, "data-status": status },
      F.element(
        "td",
        { className: "status" },
        F.element("span", {
          className: "swatch diff-" + (status === "unchanged" ? "same" : status),
        }),
        status,
      ),
      F.element(
        "td",
        { className: "site-name", title: this.data.stackLines(site).join("\n") },
        F.element(
          "button",
          { type: "button", className: "site-toggle", "aria-expanded": "false" },
          F.shortName(this.data.shortLine(name), 120),
        ),
      ),
      F.element("td", { className: "num", "data-column": "a", "data-value": a }, figure(a)),
      F.element("td", { className: "num", "data-column": "b", "data-value": b }, figure(b)),
      F.element(
        "td",
        { className: "num", "data-column": "change", "data-value": b - a },
        this.signed(b - a),
      ),
      F.element(
        "td",
        { className: "num", "data-column": "percent" },
        a > 0 && b !== a ? (b > a ? "+" : "") + ((100 * (b - a)) / a).toFixed(1) + "%" : "",
      ),
    );
  }

  // Opens a site's row to its stack (the text --diff's lines), or closes it.
  toggle(row) {
    const F = ReportFormat;
    const button = row.querySelector("button.site-toggle");
    const next = row.nextElementSibling;
    if (next && next.classList.contains("stack-row")) {
      next.remove();
      button.setAttribute("aria-expanded", "false");
      return;
    }
    const site = this.data.sites[Number(row.dataset.site)];
    const lines = this.data
      .stackLines(site)
      .map(
        (line, k) =>
          (k === 0 ? "at " : "by ") + line + (k === 0 && site.via ? " via " + site.via : ""),
      );
    if (site.cut_at) lines.push("by ... (the stack was cut at " + site.cut_at + " frames)");
    const m = this.measure;
    lines.unshift(
      "in A: " +
        (site.in_a ? "yes" : "no") +
        ", in B: " +
        (site.in_b ? "yes" : "no") +
        " · A: " +
        this.data.measures.map((x) => x.key + " " + site.a[x.key]).join(", ") +
        " · B: " +
        this.data.measures.map((x) => x.key + " " + site.b[x.key]).join(", ") +
        " (" +
        m +
        " shown)",
    );
    row.after(
      F.element(
        "tr",
        { className: "stack-row" },
        F.element("td", { colspan: this.columns.length }, lines.join("\n")),
      ),
    );
    button.setAttribute("aria-expanded", "true");
  }

  showMore() {
    const F = ReportFormat;
    const end = SortableTable.showMore(
      this.body,
      this.more,
      this.rows.length,
      this.shown,
      this.step,
      (k) => this.row(this.rows[k]),
    );
    this.shown = end;
    const total = this.data.sites.length;
    this.elements.count.textContent =
      F.integer(this.rows.length) +
      " of " +
      F.count(total, "site", "sites") +
      (this.rows.length > end ? "; the first " + F.integer(end) + " shown" : "");
  }
}
