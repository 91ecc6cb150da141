// Numbers, times, addresses and stacks as the page shows them, and small DOM builders.
/* exported ReportFormat */
"use strict";

const ReportFormat = (() => {
  const groupedInteger = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

  function integer(n) {
    return n === null || n === undefined ? "–" : groupedInteger.format(n);
  }

  // Bytes as the text reports write them: exact below 10 kB, then one decimal of a binary unit.
  function bytes(n) {
    if (n === null || n === undefined) return "–";
    const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let value = Math.abs(n);
    let unit = 0;
    while (value >= 10240 && unit < units.length - 1) {
      value /= 1024;
      unit += 1;
    }
    const sign = n < 0 ? "-" : "";
    return unit === 0
      ? sign + integer(value) + " bytes"
      : sign + value.toFixed(1) + " " + units[unit];
  }

  function seconds(t) {
    if (t === null || t === undefined || t < 0) return "–";
    if (t === 0) return "0 s";
    if (t < 1e-3) return (t * 1e6).toFixed(1) + " µs";
    if (t < 1) return (t * 1e3).toFixed(3) + " ms";
    return t.toFixed(3) + " s";
  }

  function address(a) {
    return "0x" + a.toString(16);
  }

  function percent(part, whole) {
    return whole > 0 ? ((100 * part) / whole).toFixed(1) + "%" : "–";
  }

  const eventKinds = ["allocate", "free", "resize"];
  function eventKind(kind) {
    return eventKinds[kind] || "kind " + kind;
  }

  function element(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === null || value === undefined) continue;
      if (name === "className") node.className = value;
      else node.setAttribute(name, value);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  // A table from a header row and rows of cells; numeric cells are right-aligned.
  function table(headers, rows, attributes) {
    const head = element("tr", {}, ...headers.map((h) => element("th", {}, h)));
    const body = rows.map((row) =>
      element(
        "tr",
        {},
        ...row.map((cell) =>
          element("td", { className: typeof cell === "number" ? "num" : null }, cell),
        ),
      ),
    );
    return element("table", attributes, element("thead", {}, head), element("tbody", {}, ...body));
  }

  // What a view says when the run's files lack its data, and how to get it.
  function missing(what, how) {
    return element(
      "p",
      { className: "missing" },
      what + " ",
      element("span", { className: "how" }, how),
    );
  }

  return { integer, bytes, seconds, address, percent, eventKind, element, table, missing };
})();
