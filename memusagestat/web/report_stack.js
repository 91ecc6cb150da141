// SPDX-License-Identifier: MIT
// The stack peak view: each thread's stack at its deepest captured point (DATA.md's
// `stack_peaks`), as `memusage --stack-peak` reports it. Per thread, the main thread first:
// its frames outermost first as bars as long as the bytes each holds, a recursion folded to
// one bar ("deep ×100, 4,144 B each"); then the functions ranked by the bytes they held.
/* exported StackPeakView */
/* global ReportFormat */
"use strict";

// Threads shown besides the main thread before a button shows the others.
const stackPeakThreadsShown = 10;

function StackPeakView(data, section) {
  const F = ReportFormat;
  const peaks = data.json.stack_peaks;
  if (!peaks || !peaks.length) {
    section.append(
      F.missing(
        "This run has no stack peaks.",
        "Run memusage with --html=FILE, or keep them with --stack-peak or --sites and " +
          "--sites-file=FILE and give that file to memusagestat --html with --sites=FILE.",
      ),
    );
    return;
  }
  const bytesText = (n) => F.integer(n) + " B";

  // A frame's function as the text report names it: the one holding the frame, then each
  // function inlined into it; and where, at the innermost of them.
  function described(frame) {
    const chain = [frame.frame, ...(frame.inlined || [])].map((k) => data.frames[k] || {});
    const innermost = chain[chain.length - 1];
    const file = innermost.file || "";
    return {
      function: chain.map((f) => f.function || "?").join(" > "),
      location: file ? file.slice(file.lastIndexOf("/") + 1) + ":" + innermost.line : "",
      path: file ? file + ":" + innermost.line : innermost.module || "",
      source: innermost.source,
    };
  }

  // Consecutive frames of one function folded, as the text report folds a recursion: the
  // folded line's location is the one most of its frames share (the recursive call).
  function folded(frames) {
    const lines = [];
    let counts = null;
    const settle = () => {
      if (!counts) return;
      let most = 0;
      for (const entry of counts.values())
        if (entry.count > most) {
          most = entry.count;
          Object.assign(lines[lines.length - 1], entry.where);
        }
    };
    for (const frame of frames) {
      const name = described(frame);
      const measured = frame.bytes !== null;
      const bytes = frame.bytes || 0;
      const last = lines[lines.length - 1];
      if (
        last &&
        last.function === name.function &&
        name.function !== "?" &&
        last.measured === measured
      ) {
        last.frames += 1;
        last.bytes += bytes;
        last.least = Math.min(last.least, bytes);
        last.most = Math.max(last.most, bytes);
      } else {
        settle();
        counts = new Map();
        lines.push({ ...name, frames: 1, bytes, least: bytes, most: bytes, measured });
      }
      if (name.location) {
        const entry = counts.get(name.location) || { count: 0, where: name };
        entry.count += 1;
        counts.set(name.location, entry);
      }
    }
    settle();
    return lines;
  }

  function threadTitle(peak) {
    const known = peak.thread !== null && data.threadBySerial.has(peak.thread);
    const words = [];
    if (peak.main_thread) words.push("main");
    if (peak.name && !known) words.push('"' + peak.name + '"');
    const thread = known ? "Thread " + data.threadName(peak.thread) : "Thread tid " + peak.tid;
    return thread + (words.length ? " (" + words.join(", ") + ")" : "");
  }

  function bar(bytes, widest, attributes, label, extra) {
    const share = widest > 0 && bytes !== null ? Math.max(0.2, (100 * bytes) / widest) : 0;
    return F.element(
      "li",
      attributes,
      F.element(
        "span",
        { className: "bar-track" },
        F.element("span", { className: "bar", style: "width: " + share.toFixed(2) + "%" }),
      ),
      F.element("span", { className: "num bytes" }, bytes === null ? "-" : bytesText(bytes)),
      F.element("span", { className: "label" }, ...label),
      extra,
    );
  }

  function peakElement(peak) {
    const box = F.element("div", {
      className: "stack-peak",
      "data-tid": peak.tid,
      "data-bytes": peak.bytes,
      "data-stack": peak.stack,
    });
    box.append(
      F.element("h3", {}, threadTitle(peak)),
      F.element(
        "p",
        { className: "stack-peak-line" },
        F.element("strong", { "data-field": "stack-peak-bytes" }, bytesText(peak.bytes)),
        " at ",
        peak.time === null ? "an unknown time" : F.seconds(peak.time),
        ", " +
          (peak.stack === "signal"
            ? "on its alternate signal stack (sigaltstack)"
            : "on its own stack") +
          (peak.from_tick ? " (profiling tick)" : " (allocation call)"),
      ),
    );
    if (!peak.frames.length && !peak.outer) {
      box.append(
        F.element("p", { className: "missing" }, "No frames: the unwinder could not follow it."),
      );
      return box;
    }
    const lines = folded(peak.frames);
    const shown = peak.outer + d3.sum(lines, (l) => l.bytes);
    const below = peak.bytes > shown ? peak.bytes - shown : 0;
    const widest = Math.max(peak.outer, below, d3.max(lines, (l) => l.bytes) || 0);
    const list = F.element("ol", { className: "stack-peak-frames" });
    if (peak.outer)
      list.append(
        bar(peak.outer, widest, { className: "stack-peak-frame other" }, [
          "(outer frames: more than the " + peak.frames.length + " kept)",
        ]),
      );
    for (const line of lines) {
      const label = F.element("span", { className: "function" }, line.function);
      const words = [label];
      if (line.frames > 1)
        words.push(
          F.element(
            "span",
            { className: "fold" },
            " ×" +
              F.integer(line.frames) +
              ", " +
              (line.least === line.most
                ? bytesText(line.least) + " each"
                : F.integer(line.least) + " to " + bytesText(line.most)),
          ),
        );
      if (line.location)
        words.push(
          " ",
          F.element("span", { className: "location", title: line.path }, line.location),
        );
      const source =
        line.source !== null && line.source !== undefined
          ? F.element(
              "details",
              { className: "source" },
              F.element("summary", {}, "source"),
              F.element("pre", { className: "source" }, line.source),
            )
          : null;
      list.append(
        bar(
          line.measured ? line.bytes : null,
          widest,
          {
            className: "stack-peak-frame",
            "data-function": line.function,
            "data-frames": line.frames,
            "data-bytes": line.measured ? line.bytes : "",
            title: line.source || null,
          },
          words,
          source,
        ),
      );
    }
    if (below)
      list.append(
        bar(below, widest, { className: "stack-peak-frame other" }, [
          "(below: the call into the collector)",
        ]),
      );
    box.append(F.element("h4", {}, "Frames, outermost first"), list);

    const byFunction = new Map();
    for (const line of lines)
      byFunction.set(line.function, (byFunction.get(line.function) || 0) + line.bytes);
    const ranked = [...byFunction].filter(([, b]) => b > 0).sort((a, b) => b[1] - a[1]);
    const whole = Math.max(peak.bytes, shown);
    box.append(
      F.element("h4", {}, "Functions by the bytes they held"),
      F.table(
        ["function", "bytes", "share"],
        ranked.map(([name, b]) => [
          name,
          F.numberCell(bytesText(b)),
          F.numberCell(F.percent(b, whole)),
        ]),
        { className: "stack-peak-functions" },
      ),
    );
    return box;
  }

  const main = peaks.filter((p) => p.main_thread);
  const others = peaks.filter((p) => !p.main_thread);
  for (const peak of main.concat(others.slice(0, stackPeakThreadsShown)))
    section.append(peakElement(peak));
  if (others.length > stackPeakThreadsShown) {
    const more = F.element(
      "button",
      { type: "button", className: "more" },
      "Show the other " + F.count(others.length - stackPeakThreadsShown, "thread", "threads"),
    );
    more.addEventListener("click", () => {
      more.replaceWith(...others.slice(stackPeakThreadsShown).map(peakElement));
    });
    section.append(more);
  }
}
