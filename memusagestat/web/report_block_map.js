// SPDX-License-Identifier: MIT
// The block map: each block a rectangle from its allocation to its free (x, time) over its
// addresses (y, low addresses at the bottom). Gaps between the used address ranges wider than
// a few MiB are folded to a thin band and marked. The wheel zooms and a drag pans both axes;
// the strip on the right shows the whole address range and where the view is; hovering a
// block shows its size, address, times, thread and allocating stack.
/* exported BlockMapView */
/* global ReportFormat, ReportData */
"use strict";

class BlockMapView {
  constructor(data, container, tooltip) {
    this.data = data;
    this.container = container;
    this.tooltip = tooltip;
    this.colourBy = "site";
    this.window = [data.begin, data.duration];
    if (!data.blocks) {
      container.append(
        ReportFormat.missing(
          "This run has no event recording, from which the blocks' lives come.",
          "Run memusage with --html=FILE, or record with --events=FILE and give it to " +
            "memusagestat --html with --events=FILE.",
        ),
      );
      return;
    }
    this.fold();
    this.build();
  }

  // The used address ranges, merged where closer than the fold limit; the folded coordinate
  // of an address counts its segment's bytes plus a fixed band for each gap below it.
  fold() {
    const b = this.data.blocks;
    const order = d3.range(b.address.length).sort((i, j) => b.address[i] - b.address[j]);
    const segments = [];
    const limit = 4 * 1024 * 1024;
    for (const i of order) {
      const start = b.address[i];
      const end = start + Math.max(1, b.size[i]);
      const last = segments[segments.length - 1];
      if (last && start <= last.end + limit) last.end = Math.max(last.end, end);
      else segments.push({ start, end });
    }
    const used = segments.reduce((sum, s) => sum + (s.end - s.start), 0);
    const band = Math.max(1, used * 0.03);
    let offset = 0;
    for (const [k, s] of segments.entries()) {
      if (k > 0) {
        s.gapBelow = s.start - segments[k - 1].end;
        offset += band;
      }
      s.offset = offset;
      offset += s.end - s.start;
    }
    this.segments = segments;
    this.foldedEnd = offset;
    this.band = band;
  }

  folded(address) {
    const segments = this.segments;
    let low = 0;
    let high = segments.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (segments[middle].start <= address) low = middle;
      else high = middle - 1;
    }
    const s = segments[low];
    return s.offset + Math.min(Math.max(0, address - s.start), s.end - s.start);
  }

  build() {
    const F = ReportFormat;
    // The page's theme (light or dark, as the system's) in the canvases too.
    const css = (name) => F.themeColour(name);
    this.theme = {
      background: css("--chart-background"),
      ink: css("--ink"),
      muted: css("--muted"),
      panel: css("--panel"),
      shade: css("--outside-window"),
      used: css("--total"),
      view: css("--heap"),
    };
    this.margin = { left: 110, right: 10, top: 8, bottom: 26 };
    this.width = this.offeredWidth();
    this.height = 440;
    this.plotWidth = this.width - this.margin.left - this.margin.right;
    this.plotHeight = this.height - this.margin.top - this.margin.bottom;
    const wrapper = F.element("div", { className: "block-map-wrapper" });
    // Pictures to assistive technology: the tooltip's figures of a block need the mouse.
    this.canvas = F.element("canvas", {
      id: "block-map-canvas",
      role: "img",
      "aria-label": "block map: the blocks' addresses across time",
    });
    this.context = F.element("canvas", {
      id: "block-map-context",
      title: "the whole address range",
      role: "img",
      "aria-label": "block map overview: the whole address range",
    });
    wrapper.append(this.canvas, this.context);
    this.container.append(wrapper);
    const b = this.data.blocks;
    this.container.append(
      F.element(
        "p",
        { className: "block-map-caption" },
        (b.total > b.born.length
          ? F.integer(b.born.length) + " of " + F.count(b.total, "block", "blocks")
          : F.count(b.born.length, "block", "blocks")) +
          ", " +
          F.count(this.segments.length, "address range", "address ranges") +
          (this.segments.length > 1 ? " (gaps folded, marked by dashed bands)" : ""),
      ),
    );
    this.legend = F.element("div", { id: "block-map-legend", className: "legend-list" });
    this.container.append(this.legend);
    // The overview strip's colours.
    const swatch = (colour, text, outline) => {
      const box = F.element("span", { className: "swatch" });
      if (outline) box.style.border = "2px solid " + colour;
      else box.style.background = colour;
      return F.element("span", { className: "legend-item" }, box, text);
    };
    this.container.append(
      F.element(
        "div",
        { id: "block-map-overview-legend", className: "legend-list" },
        F.element("span", { className: "legend-title" }, "Strip on the right: "),
        swatch(this.theme.used, "addresses in use"),
        swatch(this.theme.view, "the part in view", true),
        swatch("#999", "a folded gap"),
      ),
    );
    const ratio = window.devicePixelRatio || 1;
    this.ratio = ratio;
    for (const [canvas, w] of [
      [this.canvas, this.width],
      [this.context, 60],
    ]) {
      canvas.width = w * ratio;
      canvas.height = this.height * ratio;
      canvas.style.width = w + "px";
      canvas.style.height = this.height + "px";
      canvas.getContext("2d").setTransform(ratio, 0, 0, ratio, 0, 0);
    }
    this.baseX = d3
      .scaleLinear()
      .domain([this.data.begin, this.data.duration || 1])
      .range([0, this.plotWidth]);
    this.baseY = d3.scaleLinear().domain([0, this.foldedEnd]).range([this.plotHeight, 0]);
    this.sizeColour = d3
      .scaleSequentialLog(d3.interpolateViridis)
      .domain([Math.max(1, d3.min(b.size)), Math.max(2, d3.max(b.size))]);
    this.zoom = d3
      .zoom()
      .scaleExtent([1, 1e6])
      .extent([
        [0, 0],
        [this.plotWidth, this.plotHeight],
      ])
      .translateExtent([
        [0, 0],
        [this.plotWidth, this.plotHeight],
      ])
      .on("zoom", (event) => {
        this.transform = event.transform;
        this.updateScales();
        this.hideTooltip();
        this.scheduleDraw();
      });
    this.transform = d3.zoomIdentity;
    d3.select(this.canvas)
      .call(this.zoom)
      .on("mousemove", (event) => this.hovered(event))
      .on("mouseleave", () => this.hideTooltip());
    this.index();
    this.updateScales();
    this.drawContextBase();
    this.drawLegend();
    this.draw();
  }

  // The blocks as columns the drawing reads without a call per block: folded bottom and top,
  // end of life, and their order by allocation time (a view ends where the blocks allocated
  // after its right edge begin).
  index() {
    const b = this.data.blocks;
    const n = b.born.length;
    this.low = new Float64Array(n);
    this.high = new Float64Array(n);
    this.end = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      this.low[i] = this.folded(b.address[i]);
      this.high[i] = this.folded(b.address[i] + b.size[i]);
      this.end[i] = b.died[i] >= 0 ? b.died[i] : this.data.duration;
    }
    this.order = Uint32Array.from(d3.range(n)).sort((i, j) => b.born[i] - b.born[j] || i - j);
    this.bornSorted = Float64Array.from(this.order, (i) => b.born[i]);
    this.colours = new Map();
    this.background = BlockMapView.pixel(this.theme.background);
  }

  // A CSS colour as a pixel of ImageData, whatever the machine's byte order.
  static pixel(css) {
    const pixel = new Uint32Array(1);
    const c = d3.rgb(css);
    new Uint8Array(pixel.buffer).set([c.r, c.g, c.b, 255]);
    return pixel[0];
  }

  updateScales() {
    this.x = this.transform.rescaleX(this.baseX);
    this.y = this.transform.rescaleY(this.baseY);
  }

  // Draws at the next animation frame, once however many zoom events come before it.
  scheduleDraw() {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => {
      this.pending = 0;
      this.draw();
    });
  }

  // Draws now what a scheduled draw would (the mouse must find what it sees).
  flush() {
    if (!this.pending) return;
    cancelAnimationFrame(this.pending);
    this.pending = 0;
    this.draw();
  }

  // Each block's colour in the current mode, as a pixel of ImageData (RGBA bytes).
  pixelColours() {
    let colours = this.colours.get(this.colourBy);
    if (colours) return colours;
    const b = this.data.blocks;
    const pack = BlockMapView.pixel;
    const grey = pack("#999");
    const palette = d3.schemeTableau10.map(pack);
    const [s0, s1] = this.sizeColour.domain().map(Math.log);
    const ramp = d3
      .range(256)
      .map((k) => pack(this.sizeColour(Math.exp(s0 + ((s1 - s0) * k) / 255))));
    colours = new Uint32Array(b.born.length);
    for (let i = 0; i < colours.length; i++) {
      if (this.colourBy === "size") {
        const at = (Math.log(Math.max(1, b.size[i])) - s0) / (s1 - s0 || 1);
        colours[i] = ramp[Math.max(0, Math.min(255, Math.round(at * 255)))];
      } else {
        const key = this.colourBy === "thread" ? b.thread[i] : b.site[i];
        colours[i] =
          key < 0
            ? grey
            : this.colourBy === "thread"
              ? pack(this.data.threadColour(key))
              : palette[key % 10];
      }
    }
    this.colours.set(this.colourBy, colours);
    return colours;
  }

  setColourBy(mode) {
    this.colourBy = mode;
    if (!this.data.blocks) return;
    this.drawLegend();
    this.draw();
  }

  // What the colours stand for: each thread's, the sites covering most of the map (a site's
  // colour is one of ten, so sites share them), or the sizes' scale.
  drawLegend() {
    const F = ReportFormat;
    const b = this.data.blocks;
    const swatch = (colour, text, title) => {
      const box = F.element("span", { className: "swatch" });
      box.style.background = colour;
      return F.element("span", { className: "legend-item", title: title || null }, box, text);
    };
    const items = [F.element("span", { className: "legend-title" }, "Colours: ")];
    if (this.colourBy === "thread") {
      const serials = [...new Set(b.thread)].sort((x, y) => x - y);
      for (const serial of serials.slice(0, 20))
        items.push(swatch(this.data.threadColour(serial), this.data.threadName(serial)));
    } else if (this.colourBy === "site") {
      const area = new Map();
      for (let i = 0; i < b.born.length; i++) {
        const end = b.died[i] >= 0 ? b.died[i] : this.data.duration;
        area.set(b.site[i], (area.get(b.site[i]) || 0) + b.size[i] * (end - b.born[i]));
      }
      const top = [...area.entries()].sort((x, y) => y[1] - x[1]).slice(0, 10);
      for (const [site] of top)
        items.push(
          swatch(
            site < 0 ? "#999" : d3.schemeTableau10[site % 10],
            this.data.siteName(site),
            this.data.siteTitle(site),
          ),
        );
      items.push(
        F.element(
          "span",
          { className: "hint" },
          "(the sites covering most of the map; ten colours, shared by sites)",
        ),
      );
    } else {
      const [low, high] = this.sizeColour.domain();
      const ramp = F.element("span", { className: "ramp" });
      ramp.style.background =
        "linear-gradient(to right, " +
        d3
          .range(0, 1.01, 0.25)
          .map((k) =>
            this.sizeColour(Math.exp(Math.log(low) + (Math.log(high) - Math.log(low)) * k)),
          )
          .join(", ") +
        ")";
      items.push(F.bytes(low) + " ", ramp, " " + F.bytes(high) + " (block size, log scale)");
    }
    this.legend.replaceChildren(...items);
  }

  // The map spans the selected window (the whole run's time when none is), zoom reset.
  setWindow(t0, t1) {
    this.window = [t0, t1];
    if (!this.data.blocks) return;
    this.baseX.domain(t1 > t0 ? [t0, t1] : [this.data.begin, this.data.duration || 1]);
    this.transform = d3.zoomIdentity;
    d3.select(this.canvas).property("__zoom", d3.zoomIdentity);
    this.updateScales();
    this.hideTooltip();
    this.draw();
  }

  // Drawn anew when its container's width changes (a resize of the window), on the window.
  // With `always`, drawn anew anyway (the theme changed).
  resize(always = false) {
    if (!this.data.blocks || (!always && this.offeredWidth() === this.width)) return;
    this.hideTooltip();
    this.container.replaceChildren();
    this.build();
    this.setWindow(...this.window);
  }

  offeredWidth() {
    return Math.max(500, (this.container.clientWidth || 1000) - 80);
  }

  resetZoom() {
    if (this.data.blocks) d3.select(this.canvas).call(this.zoom.transform, d3.zoomIdentity);
  }

  // The block's rectangle in the plot's pixels, at least one pixel each way.
  rect(i) {
    const b = this.data.blocks;
    const end = b.died[i] >= 0 ? b.died[i] : this.data.duration;
    const x0 = this.x(b.born[i]);
    const x1 = Math.max(x0 + 1, this.x(end));
    const y0 = this.y(this.folded(b.address[i] + b.size[i]));
    const y1 = Math.max(y0 + 1, this.y(this.folded(b.address[i])));
    return [x0, y0, x1, y1];
  }

  // The blocks in view rasterised into the plot's pixels, each at least a pixel each way:
  // the pixels are filled in an array (with the block that owns each, for the mouse) and put
  // on the canvas at once, so blocks smaller than a pixel cost a pixel and no canvas call.
  draw() {
    const ctx = this.canvas.getContext("2d");
    const m = this.margin;
    const ratio = this.ratio;
    const w = Math.round(this.plotWidth * ratio);
    const h = Math.round(this.plotHeight * ratio);
    if (!this.image || this.image.width !== w || this.image.height !== h) {
      this.image = ctx.createImageData(w, h);
      this.pixels = new Uint32Array(this.image.data.buffer);
      this.owner = new Int32Array(w * h);
    }
    const pixels = this.pixels;
    const owner = this.owner;
    pixels.fill(this.background);
    owner.fill(-1);
    const [t0, t1] = this.x.domain();
    const [v0, v1] = this.y.domain();
    const kx = w / (t1 - t0);
    const ky = h / (v1 - v0);
    const colours = this.pixelColours();
    const order = this.order;
    const stop = ReportData.upperBound(this.bornSorted, t1);
    for (let k = 0; k < stop; k++) {
      const i = order[k];
      if (this.end[i] < t0 || this.high[i] < v0 || this.low[i] > v1) continue;
      let left = Math.floor((this.bornSorted[k] - t0) * kx);
      let right = Math.max(left + 1, Math.round((this.end[i] - t0) * kx));
      let top = Math.floor((v1 - this.high[i]) * ky);
      let bottom = Math.max(top + 1, Math.round((v1 - this.low[i]) * ky));
      if (left < 0) left = 0;
      if (right > w) right = w;
      if (top < 0) top = 0;
      if (bottom > h) bottom = h;
      if (left >= right || top >= bottom) continue;
      const colour = colours[i];
      for (let row = top * w; row < bottom * w; row += w) {
        if (right - left === 1) {
          pixels[row + left] = colour;
          owner[row + left] = i;
        } else {
          pixels.fill(colour, row + left, row + right);
          owner.fill(i, row + left, row + right);
        }
      }
    }
    ctx.clearRect(0, 0, this.width, this.height);
    ctx.putImageData(this.image, Math.round(m.left * ratio), Math.round(m.top * ratio));
    ctx.save();
    ctx.translate(m.left, m.top);
    ctx.beginPath();
    ctx.rect(0, 0, this.plotWidth, this.plotHeight);
    ctx.clip();
    this.drawGaps(ctx);
    this.drawWindow(ctx);
    ctx.restore();
    this.drawAxes(ctx);
    this.drawContext();
  }

  drawGaps(ctx) {
    ctx.font = "11px sans-serif";
    for (const s of this.segments) {
      if (s.gapBelow === undefined) continue;
      const top = this.y(s.offset);
      const bottom = this.y(s.offset - this.band);
      if (bottom < 0 || top > this.plotHeight) continue;
      ctx.fillStyle = "rgba(120,120,120,0.18)";
      ctx.fillRect(0, top, this.plotWidth, Math.max(2, bottom - top));
      ctx.strokeStyle = this.theme.muted;
      ctx.setLineDash([6, 4]);
      ctx.beginPath();
      ctx.moveTo(0, (top + bottom) / 2);
      ctx.lineTo(this.plotWidth, (top + bottom) / 2);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = this.theme.ink;
      ctx.fillText(
        "gap of " + ReportFormat.bytes(s.gapBelow) + " folded",
        6,
        (top + bottom) / 2 - 3,
      );
    }
  }

  drawWindow(ctx) {
    const [t0, t1] = this.window;
    if (t0 <= this.data.begin && t1 >= this.data.duration) return;
    ctx.fillStyle = this.theme.shade;
    const a = this.x(t0);
    const b = this.x(t1);
    ctx.fillRect(Math.min(a, 0), 0, Math.max(0, a - Math.min(a, 0)), this.plotHeight);
    ctx.fillRect(b, 0, Math.max(0, this.plotWidth - b), this.plotHeight);
  }

  // Ticks of the address axis at round addresses: multiples of a power of two (so round
  // in hexadecimal) in each address range the view shows; as {y, address}.
  addressTicks(count) {
    const [v0, v1] = this.y.domain();
    const step = 2 ** Math.ceil(Math.log2(Math.max(1, (v1 - v0) / count)));
    const ticks = [];
    for (const s of this.segments) {
      const low = Math.max(v0, s.offset);
      const high = Math.min(v1, s.offset + (s.end - s.start));
      if (low > high) continue;
      const first = Math.ceil((s.start + (low - s.offset)) / step) * step;
      for (let a = first; a <= s.start + (high - s.offset); a += step)
        ticks.push({ y: this.y(s.offset + (a - s.start)), address: a });
    }
    return ticks;
  }

  drawAxes(ctx) {
    const m = this.margin;
    ctx.save();
    ctx.fillStyle = this.theme.ink;
    ctx.strokeStyle = this.theme.ink;
    ctx.font = "11px sans-serif";
    ctx.textAlign = "center";
    for (const t of this.x.ticks(8)) {
      const px = m.left + this.x(t);
      ctx.fillText(ReportFormat.secondsTick(t), px, m.top + this.plotHeight + 16);
      ctx.fillRect(px, m.top + this.plotHeight, 1, 4);
    }
    ctx.textAlign = "right";
    let last = Infinity;
    for (const { y, address } of this.addressTicks(8)) {
      const py = m.top + y;
      if (py < m.top || py > m.top + this.plotHeight || Math.abs(last - py) < 14) continue;
      last = py;
      ctx.fillText(ReportFormat.address(address), m.left - 6, py + 4);
      ctx.fillRect(m.left - 4, py, 4, 1);
    }
    ctx.strokeRect(m.left, m.top, this.plotWidth, this.plotHeight);
    ctx.restore();
  }

  // The whole folded address range, full height, drawn once: each pixel row that a block
  // covers.
  drawContextBase() {
    const ratio = this.ratio;
    const base = document.createElement("canvas");
    base.width = this.context.width;
    base.height = this.context.height;
    const ctx = base.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    const m = this.margin;
    const h = this.plotHeight;
    const y = (v) => m.top + h - (v / this.foldedEnd) * h;
    ctx.fillStyle = this.theme.panel;
    ctx.fillRect(10, m.top, 40, h);
    const rows = new Uint8Array(Math.ceil(h * ratio) + 1);
    for (let i = 0; i < this.low.length; i++) {
      const top = Math.floor(((this.foldedEnd - this.high[i]) / this.foldedEnd) * h * ratio);
      const bottom = Math.max(
        top + 1,
        Math.ceil(((this.foldedEnd - this.low[i]) / this.foldedEnd) * h * ratio),
      );
      rows.fill(1, Math.max(0, top), Math.min(rows.length, bottom));
    }
    ctx.fillStyle = this.theme.used;
    for (let r = 0; r < rows.length; r++) {
      if (!rows[r]) continue;
      let end = r;
      while (end < rows.length && rows[end]) end++;
      ctx.fillRect(10, m.top + r / ratio, 40, (end - r) / ratio);
      r = end;
    }
    ctx.fillStyle = "#999";
    for (const s of this.segments) {
      if (s.gapBelow !== undefined) ctx.fillRect(6, y(s.offset - this.band / 2), 48, 2);
    }
    this.contextBase = base;
  }

  // The strip and the rectangle of the view on it.
  drawContext() {
    const ctx = this.context.getContext("2d");
    const m = this.margin;
    const h = this.plotHeight;
    const y = (v) => m.top + h - (v / this.foldedEnd) * h;
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.context.width, this.context.height);
    ctx.drawImage(this.contextBase, 0, 0);
    ctx.restore();
    const [v0, v1] = this.y.domain();
    ctx.strokeStyle = this.theme.view;
    ctx.lineWidth = 2;
    ctx.strokeRect(8, y(v1), 44, Math.max(2, y(v0) - y(v1)));
  }

  // The drawn block under a point of the plot, or -1: the one that owns the pixel, else the
  // nearest within a pixel and a half of it (the smallest blocks are a pixel high).
  blockAt(px, py) {
    this.flush();
    const ratio = this.ratio;
    const w = this.image.width;
    const h = this.image.height;
    const cx = Math.floor(px * ratio);
    const cy = Math.floor(py * ratio);
    const reach = Math.ceil(1.5 * ratio);
    let best = -1;
    let bestDistance = Infinity;
    for (let dy = -reach; dy <= reach; dy++) {
      for (let dx = -reach; dx <= reach; dx++) {
        const x = cx + dx;
        const y = cy + dy;
        if (x < 0 || y < 0 || x >= w || y >= h) continue;
        const i = this.owner[y * w + x];
        const distance = dx * dx + dy * dy;
        if (i >= 0 && distance < bestDistance) {
          best = i;
          bestDistance = distance;
        }
      }
    }
    return best;
  }

  hovered(event) {
    const [mx, my] = d3.pointer(event, this.canvas);
    const px = mx - this.margin.left;
    const py = my - this.margin.top;
    const i =
      px < 0 || py < 0 || px > this.plotWidth || py > this.plotHeight ? -1 : this.blockAt(px, py);
    if (i < 0) this.hideTooltip();
    else this.showTooltip(i, event.pageX, event.pageY);
  }

  hideTooltip() {
    this.tooltip.hidden = true;
    this.tooltip.dataset.block = "";
  }

  showTooltip(i, pageX, pageY) {
    const F = ReportFormat;
    const b = this.data.blocks;
    const died = b.died[i];
    const lifetime = died >= 0 ? died - b.born[i] : this.data.duration - b.born[i];
    const tip = this.tooltip;
    tip.replaceChildren(
      F.element(
        "dl",
        {},
        F.element("dt", {}, "size"),
        F.element("dd", { "data-field": "size" }, F.bytes(b.size[i])),
        F.element("dt", {}, "address"),
        F.element("dd", { "data-field": "address" }, F.address(b.address[i])),
        F.element("dt", {}, "allocated"),
        F.element("dd", { "data-field": "born" }, F.seconds(b.born[i])),
        F.element("dt", {}, "freed"),
        F.element(
          "dd",
          { "data-field": "died" },
          died >= 0 ? F.seconds(died) : "never (live at exit)",
        ),
        F.element("dt", {}, "lifetime"),
        F.element(
          "dd",
          { "data-field": "lifetime" },
          F.seconds(lifetime) + (died >= 0 ? "" : " or more"),
        ),
        F.element("dt", {}, "thread"),
        F.element("dd", { "data-field": "thread" }, this.data.threadName(b.thread[i])),
        F.element("dt", {}, "allocated by"),
        F.element("dd", { "data-field": "function" }, this.data.siteTitle(b.site[i])),
      ),
      this.data.stackElement(b.site[i]),
    );
    tip.dataset.block = i;
    tip.hidden = false;
    tip.style.left = pageX + 14 + "px";
    tip.style.top = pageY + 14 + "px";
  }

  // Zooms until block i is at least 6 pixels high and centres it, when it is smaller.
  zoomToBlock(i) {
    const b = this.data.blocks;
    const end = b.died[i] >= 0 ? b.died[i] : this.data.duration;
    const top = this.baseY(this.folded(b.address[i] + b.size[i]));
    const bottom = this.baseY(this.folded(b.address[i]));
    const [, y0, , y1] = this.rect(i);
    if (y1 - y0 >= 6 && this.x(b.born[i]) >= 0 && this.x(end) <= this.plotWidth) return;
    const k = Math.min(1e6, Math.max(this.transform.k, 6 / Math.max(1e-9, bottom - top)));
    const cx = (this.baseX(b.born[i]) + this.baseX(end)) / 2;
    const transform = d3.zoomIdentity
      .translate(this.plotWidth / 2, this.plotHeight / 2)
      .scale(k)
      .translate(-cx, -(top + bottom) / 2);
    d3.select(this.canvas).call(this.zoom.transform, transform);
  }

  // The centre of the visible part of block i in the viewport's coordinates, the block zoomed
  // to and the map scrolled into view (for tests, which then move the mouse there); null when the view does not show it.
  blockPosition(i) {
    this.zoomToBlock(i);
    const [x0, y0, x1, y1] = this.rect(i);
    const left = Math.max(0, x0);
    const right = Math.min(this.plotWidth, x1);
    if (right < left || y1 < 0 || y0 > this.plotHeight) return null;
    this.canvas.scrollIntoView({ block: "center" });
    const box = this.canvas.getBoundingClientRect();
    return {
      x: box.left + this.margin.left + (left + right) / 2,
      y: box.top + this.margin.top + (Math.max(0, y0) + Math.min(this.plotHeight, y1)) / 2,
    };
  }
}
