// SPDX-License-Identifier: MIT
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

  // "1 thread", "2 threads", "1,024 blocks".
  function count(n, one, many) {
    return integer(n) + " " + (n === 1 ? one : many);
  }

  // Ticks of a byte axis at round binary values: multiples of a step of 1, 2 or 5 times a
  // power of ten times 1024^k (1, 2, 5, ..., 500 bytes, KiB, MiB ...), at most about `count`
  // of them over [low, high]; each labelled in the step's unit, so "4 MiB", "8 MiB", never
  // "7812.5 KiB". Returns { values, label }.
  const binaryUnits = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];
  function byteTicks(low, high, count = 6) {
    const span = Math.max(0, high - low);
    let unit = 0;
    let step = 1;
    search: for (; unit < binaryUnits.length; unit++) {
      for (const m of [1, 2, 5, 10, 20, 50, 100, 200, 500]) {
        step = m * 1024 ** unit;
        if (span / step <= count) break search;
      }
    }
    unit = Math.min(unit, binaryUnits.length - 1);
    const scale = 1024 ** unit;
    const values = [];
    for (let v = Math.ceil(low / step) * step; v <= high + step * 1e-9; v += step) values.push(v);
    const label = (v) =>
      v === 0 ? "0" : groupedInteger.format(Math.round(v / scale)) + " " + binaryUnits[unit];
    return { values, label };
  }

  // A colour of the page's theme (a custom property of report.css: light, or dark when the
  // system asks for it), for what CSS does not paint (canvases).
  function themeColour(name) {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  }

  // A time as an axis tick: the fewest digits that tell the ticks apart ("0.5 s", "250 ms").
  function secondsTick(t) {
    if (t === 0) return "0";
    const trim = (text) => text.replace(/\.?0+$/, "");
    if (t < 1e-3) return trim((t * 1e6).toFixed(3)) + " µs";
    if (t < 1) return trim((t * 1e3).toFixed(3)) + " ms";
    return trim(t.toFixed(3)) + " s";
  }

  function seconds(t) {
    if (t === null || t === undefined || t < 0) return "–";
    if (t === 0) return "0 s";
    if (t < 1e-3) return (t * 1e6).toFixed(1) + " µs";
    if (t < 1) return (t * 1e3).toFixed(3) + " ms";
    return t.toFixed(3) + " s";
  }

  // A lifetime or a duration as memusage's text reports write it: "1.25 s", "18.5 ms", "250 µs".
  function duration(t) {
    if (t >= 1) return t.toFixed(2) + " s";
    if (t >= 1e-3) return (t * 1e3).toFixed(1) + " ms";
    return (t * 1e6).toFixed(0) + " µs";
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

  // A number cell of a table: its text as shown (formatted), right-aligned.
  function numberCell(text) {
    return { number: text };
  }

  // A table from a header row and rows of cells. A number is shown as an integer and, like a
  // numberCell (a formatted figure), right-aligned; so is the header of a column of them.
  function table(headers, rows, attributes) {
    const isNumber = (cell) =>
      typeof cell === "number" || (cell !== null && typeof cell === "object" && "number" in cell);
    const numeric = headers.map(
      (_, k) => rows.length > 0 && rows.every((row) => isNumber(row[k]) || row[k] === null),
    );
    const head = element(
      "tr",
      {},
      ...headers.map((h, k) => element("th", { className: numeric[k] ? "num" : null }, h)),
    );
    const body = rows.map((row) =>
      element(
        "tr",
        {},
        ...row.map((cell) => {
          if (typeof cell === "number") return element("td", { className: "num" }, integer(cell));
          if (isNumber(cell)) return element("td", { className: "num" }, cell.number);
          return element("td", {}, cell);
        }),
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

  // Times as shares of the run, for a report whose files hold no rate of the clock (DATA.md's
  // run.time_unit "share"): every view then says "% of the run", never a unit it cannot know.
  function useShareOfRun(format) {
    const trim = (text) => text.replace(/\.?0+$/, "");
    format.seconds = (t) =>
      t === null || t === undefined || t < 0 ? "–" : trim((100 * t).toFixed(3)) + "% of the run";
    format.secondsTick = (t) => (t === 0 ? "0" : trim((100 * t).toFixed(2)) + "%");
    format.duration = (t) => trim((100 * t).toFixed(2)) + "% of the run";
  }

  // C++ template arguments folded: `build<…>`. "operator<" and the like leave a bracket
  // open: then the name as it was.
  function foldTemplates(name) {
    let out = "";
    let depth = 0;
    for (const c of name) {
      if (c === "<") {
        if (depth === 0) out += "<…";
        depth += 1;
      } else if (c === ">" && depth > 0) {
        depth -= 1;
        if (depth === 0) out += ">";
      } else if (depth === 0) out += c;
    }
    return depth === 0 ? out : name;
  }

  // A function's name as shown: past `limit` characters, its template arguments folded,
  // then the middle cut; the full name goes on hover (a title).
  function shortName(name, limit = 80) {
    if (!name || name.length <= limit) return name;
    let out = foldTemplates(name);
    if (out.length > limit) {
      const half = Math.floor((limit - 1) / 2);
      out = out.slice(0, half) + "…" + out.slice(out.length - half);
    }
    return out;
  }

  // A C++ function's name as a legend has room for: without "(anonymous namespace)::", its
  // template arguments folded, its parameter list (and "const") dropped, and only its last
  // `parts` components ("HandleScope::Extend" of "v8::internal::HandleScope::Extend(…)").
  function bareFunction(name, parts) {
    let out = foldTemplates(name.replace(/\(anonymous namespace\)::/g, ""));
    out = out.replace(/(\S)\((?:[^()]|\([^()]*\))*\)( const)?$/, "$1");
    const components = out.split("::");
    return components.slice(Math.max(0, components.length - parts)).join("::");
  }

  // A site's name in a chart's legend, `limit` characters at most, from its whole function
  // names ("f ← g [site 3]", ReportData.siteLegendName): each frame's function bare (above),
  // and when still too long, the caller's half of "innermost ← caller" (an allocator
  // wrapper's sites share the innermost frame and differ in their callers), the middle cut
  // then. The full name goes on hover.
  function legendName(name, limit) {
    const tail = / via (.*)$| \[site \d+\]$/.exec(name);
    const suffix = !tail ? "" : tail[1] ? " via " + bareFunction(tail[1], 1) : tail[0];
    const frames = name.slice(0, tail ? tail.index : name.length).split(" ← ");
    const candidates = [];
    for (const parts of [2, 1])
      candidates.push(frames.map((f) => bareFunction(f, parts)).join(" ← "));
    if (frames.length > 1)
      for (const parts of [2, 1])
        candidates.push("… ← " + bareFunction(frames[frames.length - 1], parts));
    const fits = candidates.find((c) => (c + suffix).length <= limit);
    return shortName((fits ?? candidates[candidates.length - 1]) + suffix, limit);
  }

  // A view's caption saying which part of the run it shows: `window` [t0, t1] of the window's
  // figures, or null for the whole run (data-window "whole" or "t0..t1", for the tests).
  function windowCaption(node, window, text) {
    if (!node) return;
    node.dataset.window = window ? window[0] + ".." + window[1] : "whole";
    node.textContent = text;
  }

  // The caption of a view weighing sites by a metric (the flame graph, the callers table,
  // the source view): the window `f` when the view shows its figures (`windowed`), else the
  // whole run (or report), and with a window selected, why not: `why`, the end of "The ... of
  // the window are not in the report".
  function weightCaption(node, data, f, windowed, metric, metricName, why) {
    let text;
    if (windowed)
      text =
        "Shows " +
        windowName([f.t0, f.t1]) +
        ": " +
        (metric === "peak" ? "bytes at its heap peak" : metricName + " in it") +
        ".";
    else {
      text = "Shows the whole " + (data.run.window ? "report" : "run") + ": " + metricName + ".";
      if (f) text += " The " + metricName + " of the window are not in the report" + why;
    }
    windowCaption(node, windowed ? [f.t0, f.t1] : null, text);
  }

  // "the window 1.2 s to 1.5 s" or "the whole run".
  function windowName(window) {
    return window ? "the window " + seconds(window[0]) + " to " + seconds(window[1]) : null;
  }

  return {
    shortName,
    legendName,
    windowCaption,
    weightCaption,
    windowName,
    useShareOfRun,
    integer,
    count,
    bytes,
    byteTicks,
    themeColour,
    seconds,
    secondsTick,
    duration,
    address,
    percent,
    eventKind,
    element,
    numberCell,
    table,
    missing,
  };
})();
