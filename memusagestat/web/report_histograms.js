// SPDX-License-Identifier: MIT
// A site's blocks in figures, shown where its row of the sites table opens: how many of its
// blocks had each size (power-of-two bins) and how long they lived (decades, the blocks
// never freed apart), and the most bytes the site held at once, and when. From `blocks`,
// exact when the report keeps every block of the site (else said: a sample's figures).
/* exported SiteHistograms */
/* global ReportFormat */
"use strict";

const SiteHistograms = (() => {
  // The blocks of each site, made once: site -> indexes into `blocks`.
  const bySiteCache = new WeakMap();
  function blocksBySite(blocks) {
    let map = bySiteCache.get(blocks);
    if (map) return map;
    map = new Map();
    for (let i = 0; i < blocks.site.length; i++) {
      const s = blocks.site[i];
      if (!map.has(s)) map.set(s, []);
      map.get(s).push(i);
    }
    bySiteCache.set(blocks, map);
    return map;
  }

  // The figures of one site's blocks (each a life, as the sites count their allocating calls;
  // at its last size): { blocks, sizes: [{ from, to, count }], lives: [{ from,
  // to, count }], neverFreed, lifeCount, maxBytes, maxBlocks, maxTime, exact }.
  // Each site's most bytes held at once and when, from the buckets (DATA.md's most_held).
  const mostHeldOf = new WeakMap();
  function mostHeld(data) {
    const m = data.buckets && data.buckets.most_held;
    if (!m) return new Map();
    if (!mostHeldOf.has(m))
      mostHeldOf.set(m, new Map(m.site.map((s, i) => [s, [m.bytes[i], m.time[i]]])));
    return mostHeldOf.get(m);
  }

  function figures(data, site) {
    const b = data.blocks;
    if (!b) return null;
    const mine = blocksBySite(b).get(site) || [];
    const sizes = new Map();
    const lives = new Map();
    let neverFreed = 0;
    let lifeCount = 0;
    const changes = [];
    for (const i of mine) {
      const size = b.size[i];
      changes.push([b.born[i], 1, size]);
      if (b.died[i] >= 0) changes.push([b.died[i], -1, size]);
      // A resized block's earlier parts are no blocks of their own: a block is one life,
      // from its allocating call, at its last size.
      if (b.resized[i]) continue;
      lifeCount += 1;
      // [2^k, 2^(k+1)); a block of 0 bytes in a bin of its own.
      const k = size > 0 ? Math.floor(Math.log2(size)) : -1;
      sizes.set(k, (sizes.get(k) || 0) + 1);
      if (b.died[i] < 0) {
        neverFreed += 1;
        continue;
      }
      const life = b.died[i] - b.born[i] + (b.lived_before ? b.lived_before[i] : 0);
      // Decades from 1 µs: [10^d, 10^(d+1)) µs; below 1 µs in one bin.
      const d = life >= 1e-6 ? Math.floor(Math.log10(life * 1e6) + 1e-9) : -1;
      lives.set(d, (lives.get(d) || 0) + 1);
    }
    // Frees before allocations at one time: a resize's old block is gone when the new is born.
    changes.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    let bytes = 0;
    let count = 0;
    let maxBytes = 0;
    let maxBlocks = 0;
    let maxTime = null;
    for (const [time, sign, size] of changes) {
      bytes += sign * size;
      count += sign;
      if (bytes > maxBytes) {
        maxBytes = bytes;
        maxTime = time;
      }
      maxBlocks = Math.max(maxBlocks, count);
    }
    // The most bytes live, and when: the buckets' (every event in its order) when the report
    // has them; the block times, to 100 ns, cannot order a free and an allocation in one tick.
    const most = mostHeld(data).get(site);
    if (most) [maxBytes, maxTime] = most;
    const bins = (map, edge) =>
      [...map.keys()].sort((x, y) => x - y).map((k) => ({ ...edge(k), count: map.get(k) }));
    return {
      blocks: lifeCount,
      sizes: bins(sizes, (k) =>
        k < 0 ? { from: 0, to: 0 } : { from: 2 ** k, to: 2 ** (k + 1) - 1 },
      ),
      lives: bins(lives, (d) =>
        d < 0 ? { from: 0, to: 1e-6 } : { from: 10 ** d * 1e-6, to: 10 ** (d + 1) * 1e-6 },
      ),
      neverFreed,
      lifeCount,
      maxBytes,
      maxBlocks,
      maxTime,
      // A thinned report may still keep every one of this site's blocks: then its figures
      // are whole. With sampled sites a site's blocks are the sample's, never all the run's.
      exact: !b.thinned || (!data.run.sample_interval && data.sites?.[site]?.blocks === lifeCount),
    };
  }

  function histogram(kind, rows) {
    const F = ReportFormat;
    const most = Math.max(1, ...rows.map((r) => r.count));
    const table = F.element("table", { className: "histogram site-histogram", "data-kind": kind });
    for (const row of rows) {
      const bar = F.element("div", { className: "bar" + (row.apart ? " apart" : "") });
      bar.style.width = (100 * row.count) / most + "%";
      table.append(
        F.element(
          "tr",
          { "data-from": row.from, "data-count": row.count },
          F.element("th", { scope: "row" }, row.label),
          F.element("td", { className: "num" }, F.integer(row.count)),
          F.element("td", { className: "bar-cell" }, bar),
        ),
      );
    }
    return table;
  }

  // The element shown under a site's stack.
  function element(data, site) {
    const F = ReportFormat;
    const box = F.element("div", { className: "site-histograms", "data-site": site });
    const f = figures(data, site);
    if (!f) {
      box.append(
        F.missing(
          "The report has no block lives: no histograms of this site's blocks.",
          "Run memusage with --html=FILE, or with --events=FILE given to memusagestat --html.",
        ),
      );
      return box;
    }
    box.dataset.blocks = f.blocks;
    box.dataset.maxBytes = f.maxBytes;
    box.dataset.maxTime = f.maxTime === null ? "" : f.maxTime;
    box.dataset.exact = f.exact;
    if (!f.exact)
      box.append(
        F.element(
          "p",
          { className: "thinned" },
          "The report keeps a sample of the blocks: these figures are of the " +
            F.integer(f.blocks) +
            " kept" +
            (data.sites && data.sites[site]
              ? " of its " + F.count(data.sites[site].blocks, "block", "blocks")
              : "") +
            " only (memusagestat --html-window=START..END writes a part of the run with every " +
            "one).",
        ),
      );
    box.append(
      F.element(
        "p",
        { className: "site-max", "data-field": "max_bytes" },
        f.maxTime === null
          ? "It never held a byte."
          : "At most " +
              F.bytes(f.maxBytes) +
              " live at once (" +
              F.count(f.maxBlocks, "block", "blocks") +
              " at most), first at " +
              F.seconds(f.maxTime) +
              ".",
      ),
    );
    const sizeRows = f.sizes.map((bin) => ({
      from: bin.from,
      count: bin.count,
      label: bin.to === 0 ? "0 bytes" : F.integer(bin.from) + "–" + F.integer(bin.to) + " bytes",
    }));
    const lifeRows = f.lives.map((bin) => ({
      from: bin.from,
      count: bin.count,
      label:
        bin.from === 0
          ? "under " + F.duration(bin.to)
          : F.duration(bin.from) + " to " + F.duration(bin.to),
    }));
    if (f.neverFreed)
      lifeRows.push({ from: "never", count: f.neverFreed, label: "never freed", apart: true });
    box.append(
      F.element(
        "div",
        { className: "site-histogram-pair" },
        F.element(
          "div",
          {},
          F.element(
            "h4",
            {},
            "Block sizes (" + F.count(f.blocks, "block", "blocks") + ", at their last size)",
          ),
          histogram("sizes", sizeRows),
        ),
        F.element("div", {}, F.element("h4", {}, "Lifetimes"), histogram("lives", lifeRows)),
      ),
    );
    return box;
  }

  return { figures, element };
})();
