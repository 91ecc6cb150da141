// SPDX-License-Identifier: MIT
// The report's data (DATA.md) with what the views ask of it: names of sites and threads,
// stacks, the event nearest a point, and the figures of a time window, computed here from
// the events and the block lives.
/* exported ReportData */
/* global ReportFormat, SourceView */
"use strict";

// A path's last component.
const lastComponent = (path) => path.slice(path.lastIndexOf("/") + 1);

class ReportData {
  constructor(json) {
    this.json = json;
    this.run = json.run || {};
    this.summary = json.summary;
    this.timeline = json.timeline;
    this.threads = json.threads || [];
    this.frames = json.frames || [];
    this.sites = json.sites;
    this.events = json.events && json.events.time.length > 0 ? json.events : null;
    this.blocks = json.blocks && json.blocks.born.length > 0 ? json.blocks : null;
    this.buckets = json.buckets && json.buckets.levels.length > 0 ? json.buckets : null;
    this.threadBySerial = new Map(this.threads.map((t) => [t.serial, t]));
    this.duration = this.computeDuration();
    // Where the report's time begins: a window's report (--html-window) holds that window
    // only, and opens on it.
    this.begin = this.run.window ? Math.min(this.run.window.start, this.duration) : 0;
  }

  computeDuration() {
    // A window's report ends where its window does.
    if (this.run.window) return this.run.window.end;
    let end = this.run.seconds || 0;
    const times = [this.timeline && this.timeline.time, this.events && this.events.time];
    for (const column of times)
      if (column && column.length) end = Math.max(end, column[column.length - 1]);
    return end;
  }

  frameText(index) {
    const frame = this.frames[index];
    if (!frame) return "?";
    const where = frame.file ? frame.file + ":" + frame.line : frame.module || "";
    return (frame.function || "??") + (where ? " (" + where + ")" : "");
  }

  // A frame as the views show it: the function's name shortened (ReportFormat.shortName), its
  // file's last component and line, or its module when it has no line.
  frameLabel(index) {
    const frame = this.frames[index];
    if (!frame) return "?";
    const name = this.frameFunction(index);
    const module = frame.module ? lastComponent(frame.module) : "";
    const where = frame.file
      ? lastComponent(frame.file) + ":" + frame.line
      : name.includes(module)
        ? ""
        : module;
    return ReportFormat.shortName(name) + (where ? " (" + where + ")" : "");
  }

  // A frame's function, whole; without a symbol, the module's name and the offset
  // ("libz.so.1+0x2f10").
  frameFunction(index) {
    const frame = this.frames[index];
    if (!frame) return "?";
    const name = frame.function || "??";
    return !frame.file && /^\/.*\+0x[0-9a-f]+$/.test(name) ? lastComponent(name) : name;
  }

  // A site is named by its innermost frame, as the text reports start a site; the sites that
  // share that name are told apart by their nearest caller that differs ("f (a.c:3) ← g
  // (b.c:9)"), or their number when their stacks are alike.
  siteName(site) {
    const record = this.sites && this.sites[site];
    if (!record) return site < 0 ? "no site" : "site " + site;
    return this.siteNames()[site];
  }

  // The full name of a site, for a title: its innermost frame as the text reports give it.
  siteTitle(site) {
    const record = this.sites && this.sites[site];
    if (!record || record.frames.length === 0) return this.siteName(site);
    return this.frameText(record.frames[0]);
  }

  siteNames() {
    if (!this.names)
      this.names = this.namesOfSites(
        (frame) => this.frameLabel(frame),
        (via) => ReportFormat.shortName(via, 60),
      );
    return this.names;
  }

  // A site's name for a chart's legend to shorten (ReportFormat.legendName): named and told
  // apart as siteName does, by whole function names without their places, which a legend
  // has no room for.
  siteLegendName(site) {
    const record = this.sites && this.sites[site];
    if (!record) return this.siteName(site);
    if (!this.legendNames)
      this.legendNames = this.namesOfSites(
        (frame) => this.frameFunction(frame),
        (via) => via,
      );
    return this.legendNames[site];
  }

  // Every site's name, its frames labelled by `label` (a frame's index to text) and its
  // allocator function by `viaLabel`.
  namesOfSites(label, viaLabel) {
    const sites = this.sites || [];
    const names = sites.map((s) =>
      s.frames.length ? label(s.frames[0]) : "site " + s.id + " (no frames)",
    );
    const groups = new Map();
    names.forEach((name, i) => {
      if (!groups.has(name)) groups.set(name, []);
      groups.get(name).push(i);
    });
    for (const [name, members] of groups) {
      if (members.length < 2) continue;
      let left = members;
      // The callers out to `depth`, as one key; a site whose key no other shares is named by
      // its caller at that depth.
      for (let depth = 1; depth <= 8 && left.length; depth++) {
        const key = (i) =>
          sites[i].frames
            .slice(1, depth + 1)
            .map((f) => this.frameText(f))
            .join("\n");
        const counts = new Map();
        for (const i of left) counts.set(key(i), (counts.get(key(i)) || 0) + 1);
        left = left.filter((i) => {
          const frames = sites[i].frames;
          if (counts.get(key(i)) !== 1 || frames.length <= depth) return true;
          names[i] = name + " ← " + label(frames[depth]);
          return false;
        });
      }
      // Alike but for the allocator function they went through ("via"), else their number.
      const vias = new Map();
      for (const i of left) vias.set(sites[i].via, (vias.get(sites[i].via) || 0) + 1);
      for (const i of left)
        names[i] =
          sites[i].via && vias.get(sites[i].via) === 1
            ? name + " via " + viaLabel(sites[i].via)
            : name + " [site " + sites[i].id + "]";
    }
    return names;
  }

  siteFunction(site) {
    const record = this.sites && this.sites[site];
    if (!record || record.frames.length === 0) return site < 0 ? "no site" : "?";
    return this.frames[record.frames[0]].function || "??";
  }

  // One colour per thread in every view (the threads' chart, the block map coloured by
  // thread).
  threadColour(serial) {
    return d3.schemeTableau10[((serial % 10) + 10) % 10];
  }

  threadName(serial) {
    const thread = this.threadBySerial.get(serial);
    if (!thread) return "thread " + serial;
    return (
      "#" + thread.serial + " (tid " + thread.tid + (thread.name ? ", " + thread.name : "") + ")"
    );
  }

  // The full stack of a site, innermost first: function, file:line and the source line, worded
  // as `memusage --sites` words it: "at" the site's frame, "via" the outermost allocator or
  // runtime function it called (when the data names it), "by" its callers.
  stackElement(site) {
    const F = ReportFormat;
    const record = this.sites && this.sites[site];
    if (!record)
      return F.element("p", { className: "stack-none" }, "No stack: the block belongs to no site.");
    const list = F.element("ol", { className: "stack", "data-site": site });
    record.frames.forEach((index, k) => {
      const frame = this.frames[index] || {};
      const item = F.element(
        "li",
        { className: "frame", "data-function": frame.function || "" },
        F.element("span", { className: "word" }, k === 0 ? "at" : "by"),
        " ",
        F.element(
          "span",
          { className: "function", title: frame.function || null },
          F.shortName(frame.function || "??"),
        ),
        " ",
        F.element(
          "span",
          { className: "location" },
          frame.file
            ? SourceView.link(this, frame.file, frame.line, frame.file + ":" + frame.line)
            : frame.module || "",
        ),
      );
      if (k === 0 && record.via)
        item.append(
          " ",
          F.element("span", { className: "word" }, "via"),
          " ",
          F.element("span", { className: "via" }, record.via),
        );
      if (frame.source !== null && frame.source !== undefined) {
        item.append(F.element("pre", { className: "source" }, frame.source));
      }
      list.append(item);
    });
    if (record.cut)
      list.append(
        F.element(
          "li",
          { className: "frame cut" },
          F.element("span", { className: "word" }, "by"),
          " ... (the stack was cut here)",
        ),
      );
    // Where its blocks grew: a realloc elsewhere made them larger (memusage --sites says
    // "grown at" likewise).
    for (const grown of record.grown || []) {
      const held = [];
      const add = (bytes, blocks, when) => {
        if (bytes > 0)
          held.push(
            F.count(bytes, "byte", "bytes") + " in " + F.count(blocks, "block", "blocks") + when,
          );
      };
      add(grown.peak, grown.peak_blocks, " at the peak");
      add(grown.leaked, grown.leaked_blocks, " at exit");
      if (!held.length) continue;
      list.append(
        F.element(
          "li",
          { className: "frame grown" },
          F.element("span", { className: "word" }, "grown at"),
          " ",
          F.element("span", { className: "grown-at" }, grown.where),
          ": " + held.join(", "),
        ),
      );
    }
    return list;
  }

  // The first index in a sorted column whose value is at least `value`.
  static lowerBound(column, value) {
    let low = 0;
    let high = column.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (column[middle] < value) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  // The first index in a sorted column whose value is greater than `value`.
  static upperBound(column, value) {
    let low = 0;
    let high = column.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (column[middle] <= value) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  // The event at a point of the timeline: among the events within `tolerance` seconds of
  // `time`, the one whose heap is nearest `heap` (so a click on a spike's top finds the spike);
  // the nearest in time when none is that close or no heap is given.
  nearestEvent(time, heap, tolerance) {
    const events = this.events;
    if (!events) return -1;
    const n = events.time.length;
    let best = Math.min(ReportData.lowerBound(events.time, time), n - 1);
    if (best > 0 && time - events.time[best - 1] <= events.time[best] - time) best -= 1;
    if (heap === undefined || heap === null || !(tolerance > 0)) return best;
    const first = ReportData.lowerBound(events.time, time - tolerance);
    let bestDistance = Infinity;
    for (let i = first; i < n && events.time[i] <= time + tolerance; i++) {
      const distance = Math.abs(events.heap[i] - heap);
      if (distance < bestDistance) {
        bestDistance = distance;
        best = i;
      }
    }
    return best;
  }

  nearestRecord(time) {
    const timeline = this.timeline;
    if (!timeline || timeline.time.length === 0) return -1;
    let i = Math.min(ReportData.lowerBound(timeline.time, time), timeline.time.length - 1);
    if (i > 0 && time - timeline.time[i - 1] <= timeline.time[i] - time) i -= 1;
    return i;
  }

  // Live blocks at time t (born at or before it, not yet freed), bytes by site.
  liveBySite(t) {
    const blocks = this.blocks;
    const bySite = new Map();
    let total = 0;
    for (let i = 0; i < blocks.born.length; i++) {
      if (blocks.born[i] > t || (blocks.died[i] >= 0 && blocks.died[i] <= t)) continue;
      bySite.set(blocks.site[i], (bySite.get(blocks.site[i]) || 0) + blocks.size[i]);
      total += blocks.size[i];
    }
    return { bySite, total };
  }

  // The window the exact figures are of: [t0, t1] widened to the finest buckets' edges
  // (DATA.md's buckets), as [t0, t1, first bucket, bucket after the last]; [t0, t1] itself
  // when the report has no buckets.
  snapWindow(t0, t1) {
    const b = this.buckets;
    if (!b) return [t0, t1, -1, -1];
    const count = b.levels[0].count;
    const width = (b.end - b.start) / count;
    // On the edges as shown (to 100 ns), so that a snapped window snaps to itself.
    let i0 = Math.max(0, Math.min(count - 1, Math.floor((t0 - b.start) / width)));
    while (i0 + 1 < count && this.bucketEdge(i0 + 1) <= t0) i0 += 1;
    while (i0 > 0 && this.bucketEdge(i0) > t0) i0 -= 1;
    let i1 = Math.max(i0 + 1, Math.min(count, Math.ceil((t1 - b.start) / width)));
    while (i1 - 1 > i0 && this.bucketEdge(i1 - 1) >= t1) i1 -= 1;
    while (i1 < count && this.bucketEdge(i1) < t1) i1 += 1;
    return [this.bucketEdge(i0), this.bucketEdge(i1), i0, i1];
  }

  // The start of the finest bucket i (the end of the last for i = count), to 100 ns as the
  // report's other times.
  bucketEdge(i) {
    const b = this.buckets;
    const count = b.levels[0].count;
    if (i >= count) return b.end;
    return Math.round((b.start + ((b.end - b.start) * i) / count) * 1e7) / 1e7;
  }

  // A window's figures from the buckets: sums and maxima over its finest buckets, the level
  // carried in included; the sites at the peak from the coarsest bucket inside the window
  // that reaches it (coarser buckets list more sites).
  bucketFigures(i0, i1) {
    const levels = this.buckets.levels;
    const fine = levels[0];
    let calls = 0;
    let bytes = 0;
    let frees = 0;
    let peak = -1;
    let at = i0;
    for (let i = i0; i < i1; i++) {
      calls += fine.calls[i];
      bytes += fine.bytes[i];
      frees += fine.frees[i];
      if (fine.high[i] > peak) {
        peak = fine.high[i];
        at = i;
      }
    }
    let holder = fine;
    let j = at;
    for (let l = levels.length - 1; l > 0; l--) {
      const ratio = fine.count / levels[l].count;
      const k = Math.floor(at / ratio);
      if (k * ratio >= i0 && (k + 1) * ratio <= i1 && levels[l].high[k] === peak) {
        holder = levels[l];
        j = k;
        break;
      }
    }
    const flat = holder.sites[j] || [];
    const peakSites = [];
    let listed = 0;
    for (let k = 0; k + 1 < flat.length; k += 2) {
      peakSites.push([flat[k], flat[k + 1]]);
      listed += flat[k + 1];
    }
    return {
      peak,
      peakTime: holder.high_time[j],
      peakSites,
      peakSitesRest: peak - listed,
      allocatedBytes: bytes,
      allocatedCalls: calls,
      frees,
    };
  }

  // The figures of the window [t0, t1]: exact from the buckets, over the window snapped to
  // their edges (figures.t0, t1); without buckets, from the events the report holds.
  windowFigures(t0, t1) {
    const figures = { t0, t1, peak: null, peakTime: null, peakSites: null, allocatedBytes: null };
    if (this.buckets) {
      const [s0, s1, i0, i1] = this.snapWindow(t0, t1);
      Object.assign(figures, { t0: s0, t1: s1, exact: true }, this.bucketFigures(i0, i1));
      t0 = s0;
      t1 = s1;
    } else if (this.events) {
      const e = this.events;
      const first = ReportData.lowerBound(e.time, t0);
      let calls = 0;
      let bytes = 0;
      let frees = 0;
      // The heap carried in: the level the last event before the window left.
      let peak = first > 0 ? e.heap[first - 1] : 0;
      let peakTime = t0;
      for (let i = first; i < e.time.length && e.time[i] <= t1; i++) {
        if (e.kind[i] === 1) frees += 1;
        else {
          calls += 1;
          bytes += e.size[i];
        }
        if (e.heap[i] > peak) {
          peak = e.heap[i];
          peakTime = e.time[i];
        }
      }
      Object.assign(figures, {
        peak,
        peakTime,
        allocatedBytes: bytes,
        allocatedCalls: calls,
        frees,
      });
    } else if (this.timeline && this.timeline.time.length) {
      const tl = this.timeline;
      let peak = 0;
      let peakTime = t0;
      for (
        let i = ReportData.lowerBound(tl.time, t0);
        i < tl.time.length && tl.time[i] <= t1;
        i++
      ) {
        if (tl.heap[i] > peak) {
          peak = tl.heap[i];
          peakTime = tl.time[i];
        }
      }
      Object.assign(figures, { peak, peakTime });
    }
    figures.breakdown = this.windowBreakdown(figures.t0, figures.t1);
    figures.leaks = this.windowLeaks(figures.t0, figures.t1);
    figures.leaksSampled = Boolean(this.json.blocks && this.json.blocks.thinned);
    if (this.blocks) {
      const b = this.blocks;
      if (figures.peakTime !== null && !figures.peakSites) {
        const live = this.liveBySite(figures.peakTime);
        figures.peakSites = [...live.bySite.entries()].sort((x, y) => y[1] - x[1]);
        figures.peakSitesTotal = live.total;
      }
      const stillLive = new Map();
      let liveBlocks = 0;
      let liveBytes = 0;
      let carriedBlocks = 0;
      let carriedBytes = 0;
      for (let i = 0; i < b.born.length; i++) {
        // Allocated before the window and live when it begins: carried in, not allocated in it.
        if (b.born[i] < t0 && (b.died[i] < 0 || b.died[i] > t0)) {
          carriedBlocks += 1;
          carriedBytes += b.size[i];
        }
        if (b.born[i] < t0 || b.born[i] > t1) continue;
        if (b.died[i] >= 0 && b.died[i] <= t1) continue;
        liveBlocks += 1;
        liveBytes += b.size[i];
        const entry = stillLive.get(b.site[i]) || { bytes: 0, blocks: 0 };
        entry.bytes += b.size[i];
        entry.blocks += 1;
        stillLive.set(b.site[i], entry);
      }
      figures.liveBlocks = liveBlocks;
      figures.liveBytes = liveBytes;
      figures.carriedBlocks = carriedBlocks;
      figures.carriedBytes = carriedBytes;
      figures.liveSites = [...stillLive.entries()].sort((x, y) => y[1].bytes - x[1].bytes);
      // Counted from the blocks the report keeps: a sample when the block map is thinned.
      figures.liveSampled = Boolean(this.json.blocks.thinned);
    }
    return figures;
  }

  // Whether an event at `time` falls in the window [t0, t1]: with buckets, as the writer puts
  // it in a bucket (its start held, its end not, but the last bucket's); else by its time.
  eventInWindow(time, t0, t1) {
    if (!this.buckets) return time >= t0 && time <= t1;
    return time >= t0 && (time < t1 || t1 >= this.buckets.end);
  }

  // The window's allocating calls, the bytes they asked for (as the summary counts them: a
  // resize its growth) and the frees, by site and by thread, from every event of the window:
  // null when the report keeps only a sample of the events (their sums are then not the
  // window's). A resize and a free count for the block's site, every call for the thread that
  // made it, as the writer counts the sites' and threads' figures of the whole run.
  windowBreakdown(t0, t1) {
    const e = this.events;
    if (!e || this.json.events.thinned) return null;
    const sites = new Map();
    const threads = new Map();
    const totals = { calls: 0, bytes: 0, frees: 0 };
    const add = (map, key, calls, bytes, frees) => {
      let entry = map.get(key);
      if (!entry) {
        entry = { calls: 0, bytes: 0, frees: 0 };
        map.set(key, entry);
      }
      entry.calls += calls;
      entry.bytes += bytes;
      entry.frees += frees;
    };
    // The heap before the first event: the level carried into the report (a window's report
    // begins inside the run).
    let before = this.buckets ? this.buckets.levels[0].heap[0] : 0;
    for (let i = 0; i < e.time.length; i++) {
      const heap = e.heap[i];
      const level = before;
      before = heap;
      if (!this.eventInWindow(e.time[i], t0, t1)) {
        if (e.time[i] > t1) break;
        continue;
      }
      const kind = e.kind[i];
      const calls = kind === 1 ? 0 : 1;
      const frees = kind === 1 ? 1 : 0;
      const bytes = kind === 0 ? e.size[i] : kind === 2 ? Math.max(0, heap - level) : 0;
      add(sites, e.site[i], calls, bytes, frees);
      add(threads, e.thread[i], calls, bytes, frees);
      totals.calls += calls;
      totals.bytes += bytes;
      totals.frees += frees;
    }
    return { sites, threads, totals };
  }

  // The blocks whose life began in [t0, t1] (their first allocation: a resize keeps a block's
  // life) and which were never freed, by site: the window's leaks; the blocks the runtimes
  // keep until exit apart, as the sites' leaks leave them out.
  windowLeaks(t0, t1) {
    const b = this.blocks;
    if (!b) return null;
    const bySite = new Map();
    const figures = { bytes: 0, blocks: 0, kept: { bytes: 0, blocks: 0 }, bySite };
    for (let i = 0; i < b.born.length; i++) {
      if (b.died[i] >= 0) continue;
      const first = b.born[i] - (b.lived_before ? b.lived_before[i] : 0);
      if (!this.eventInWindow(first, t0, t1)) continue;
      if (b.kept && b.kept[i]) {
        figures.kept.bytes += b.size[i];
        figures.kept.blocks += 1;
        continue;
      }
      const entry = bySite.get(b.site[i]) || { bytes: 0, blocks: 0 };
      entry.bytes += b.size[i];
      entry.blocks += 1;
      bySite.set(b.site[i], entry);
      figures.bytes += b.size[i];
      figures.blocks += 1;
    }
    return figures;
  }

  // Each thread's figures and heap curve as the writer counted them over every event
  // (DATA.md's threads[].allocations, bytes, frees, peak and series), so they stay exact
  // when the events are thinned; threads that made no call are left out.
  threadHeaps() {
    return this.threads
      .filter((t) => t.series)
      .map((t) => ({
        thread: t.serial,
        calls: t.allocations,
        bytes: t.bytes,
        frees: t.frees,
        peak: t.peak,
        time: t.series.time,
        value: t.series.heap,
      }))
      .sort((a, b) => a.thread - b.thread);
  }
}
