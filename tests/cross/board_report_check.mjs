// SPDX-License-Identifier: MIT
// Checks the HTML report of a board's run (tests/cross/run.sh) against that run's own
// files: the fixture ("events burn") holds one block of HELD bytes while it burns CPU time.
// The report's timeline must hold it for as long as the board's data file says (its times
// are the board's microseconds), and, when the report has the event recording, its
// allocation and free must stand where the timeline's rise and fall stand; the summary's
// heap peak and total are the printed summary's.
// With WINDOW.html, a report of the same files with --html-window=100ms.. (the block is
// allocated at the run's start and freed after 0.3 s): it must hold the block's free, at
// the same time in its timeline and its events, and nothing before 100 ms.
//   node board_report_check.mjs REPORT.html DATAFILE HELD HEAP_PEAK HEAP_TOTAL [WINDOW.html]
import { readFileSync } from "node:fs";
import process from "node:process";

const [reportPath, dataPath, held, heapPeak, heapTotal, windowPath] = process.argv.slice(2);
function reportData(path) {
  const html = readFileSync(path, "utf8");
  const open = '<script type="application/json" id="report-data">';
  const begin = html.indexOf(open) + open.length;
  return JSON.parse(html.slice(begin, html.indexOf("</script>", begin)));
}
const data = reportData(reportPath);

const problems = [];
const check = (ok, what) => ok || problems.push(what);
const near = (a, b, within) => Math.abs(a - b) <= within;
const size = Number(held);

// The data file's records: u64 heap, u64 stack, u32 time low, u32 time high.
const bytes = readFileSync(dataPath);
const records = [];
for (let at = 0; at + 24 <= bytes.length; at += 24)
  records.push({
    heap: Number(bytes.readBigUInt64LE(at)),
    time: bytes.readUInt32LE(at + 16) + bytes.readUInt32LE(at + 20) * 2 ** 32,
  });
// The block's rise and fall: records 0 and 1 are the header, the heap is 0 before record 2.
const heapBefore = (k) => (k === 2 ? 0 : records[k - 1].heap);
const rise = records.findIndex((r, k) => k >= 2 && r.heap - heapBefore(k) === size);
const fall = records.findIndex((r, k) => rise >= 2 && k > rise && heapBefore(k) - r.heap === size);
if (rise < 0 || fall < 0) {
  process.stderr.write(`${dataPath}: no block of ${size} bytes rises and falls in the data file\n`);
  process.exit(1);
}
const heldSeconds = (records[fall].time - records[rise].time) / 1e6;
check(heldSeconds > 0.1, `the data file holds the block ${heldSeconds} s, not microseconds?`);

// The timeline's records are the data file's, in order, counted from 1 after the header.
const timeline = data.timeline;
check(!timeline.thinned, "the timeline is thinned");
const timeAt = (index) => timeline.time[timeline.index.indexOf(index)];
const riseTime = timeAt(rise - 1);
const fallTime = timeAt(fall - 1);
check(
  near(fallTime - riseTime, heldSeconds, 1e-4),
  `the timeline holds the block from ${riseTime} s to ${fallTime} s, the data file ${heldSeconds} s`,
);
check(
  fallTime <= data.run.seconds && riseTime >= 0,
  `the block's times (${riseTime}..${fallTime} s) are not within the run (0..${data.run.seconds} s)`,
);
check(
  !data.run.notes.some((note) => note.startsWith("Times are fractions")),
  "the report's times are fractions of the run",
);

// The recording's allocation and free of the block, where the timeline has them.
if (data.events) {
  const events = data.events;
  const allocation = events.kind.findIndex((kind, k) => kind === 0 && events.size[k] === size);
  const free = events.kind.findIndex(
    (kind, k) => k > allocation && kind === 1 && events.size[k] === size,
  );
  check(allocation >= 0 && free >= 0, `the recording has no block of ${size} bytes`);
  // Both files stamp the same instants; the two clocks are tied at the run's end, within
  // the microseconds between their last readings.
  check(
    near(events.time[allocation], riseTime, 1e-3) && near(events.time[free], fallTime, 1e-3),
    `the recording has the block from ${events.time[allocation]} s to ${events.time[free]} s, ` +
      `the timeline from ${riseTime} s to ${fallTime} s`,
  );
}

check(
  data.summary.heap_peak === Number(heapPeak),
  `heap peak ${data.summary.heap_peak}, printed ${heapPeak}`,
);
if (data.summary.heap_total !== undefined && heapTotal !== "-")
  check(
    data.summary.heap_total === Number(heapTotal),
    `heap total ${data.summary.heap_total}, printed ${heapTotal}`,
  );

if (windowPath) {
  const windowed = reportData(windowPath);
  const start = 0.1;
  check(
    windowed.timeline.time.every((time) => time >= start) &&
      (!windowed.events || windowed.events.time.every((time) => time >= start)),
    "the window's report holds times before its start",
  );
  const windowFall = windowed.timeline.time[windowed.timeline.index.indexOf(fall - 1)];
  check(
    windowFall === fallTime,
    `the window's timeline has the block's free at ${windowFall} s, the whole report at ${fallTime} s`,
  );
  if (windowed.events) {
    const events = windowed.events;
    const free = events.kind.findIndex((kind, k) => kind === 1 && events.size[k] === size);
    check(
      free >= 0 && near(events.time[free], fallTime, 1e-3),
      `the window's events free the block at ${events.time[free]} s, its timeline at ${fallTime} s`,
    );
  }
}

if (problems.length) {
  process.stderr.write(`${reportPath}:\n  ${problems.join("\n  ")}\n`);
  process.exit(1);
}
