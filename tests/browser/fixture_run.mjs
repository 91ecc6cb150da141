// SPDX-License-Identifier: MIT
// What the browser tests share besides the browser: the built tools, the fixture program run
// under memusage with every output kept, and readers of memusage's text outputs.
//   MEMUSAGE_BUILD_DIR   the build tree whose bin/memusage and bin/memusagestat are tested
//                        (default: build, beside the sources)
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const sourceDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const buildDir = path.resolve(sourceDir, process.env.MEMUSAGE_BUILD_DIR || "build");

export function builtFile(...parts) {
  const file = path.join(buildDir, ...parts);
  assert.ok(existsSync(file), file + " is missing: build the project first (MEMUSAGE_BUILD_DIR)");
  return file;
}

// The built collector: its directory mirrors the installed one (lib/<multiarch>/memusage on
// Debian), which the build's cache names.
export function builtCollector() {
  const cache = readFileSync(builtFile("CMakeCache.txt"), "utf8");
  const dir = /^MEMUSAGE_COLLECTOR_DIR:INTERNAL=(.*)$/m.exec(cache);
  assert.ok(dir, "the build's CMakeCache.txt names no MEMUSAGE_COLLECTOR_DIR");
  return builtFile(dir[1], "libmemusage.so");
}

export function scratchDirectory(t) {
  const dir = mkdtempSync(path.join(tmpdir(), "memusage-browser-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// Runs a command, failing the test with its output when it fails; returns its stderr.
export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: "utf8", ...options });
  assert.equal(
    result.status,
    0,
    [command, ...args].join(" ") + " failed:\n" + result.stdout + result.stderr,
  );
  return result.stderr;
}

export const fixtureSource = path.join(sourceDir, "tests/browser/fixtures/phases.c");

// The fixture's marked lines: `// MARK(peak)` on line 50 gives { peak: 50 }.
export function fixtureMarks() {
  const marks = {};
  readFileSync(fixtureSource, "utf8")
    .split("\n")
    .forEach((line, i) => {
      const mark = /\/\/ MARK\((\w+)\)/.exec(line);
      if (mark) marks[mark[1]] = i + 1;
    });
  return marks;
}

// The fixture's constants (its enum), as the tests expect them in the figures.
export function fixtureConstants() {
  const constants = {};
  const text = readFileSync(fixtureSource, "utf8");
  for (const [, name, value] of text.matchAll(/^\s+([A-Z_]+) = (\d+),$/gm))
    constants[name] = Number(value);
  return constants;
}

// Builds the fixture (fixtures/phases.c unless another is given) with `cc -g -O0` and runs it under memusage writing the HTML report and,
// of the same run, the data file, the sites file, the event recording and the text summary
// and sites report.
export function runFixture(dir, source = fixtureSource) {
  const name = path.basename(source, ".c");
  const program = path.join(dir, name);
  execFileSync(process.env.CC || "cc", ["-g", "-O0", "-o", program, source]);
  const files = {
    html: path.join(dir, name + ".html"),
    data: path.join(dir, name + ".dat"),
    sites: path.join(dir, name + ".sites"),
    events: path.join(dir, name + ".events"),
  };
  const stderr = run(
    builtFile("bin", "memusage"),
    [
      "--color=never",
      "--html=" + files.html,
      "--data=" + files.data,
      "--sites-file=" + files.sites,
      "--events=" + files.events,
      "--sites",
      program,
    ],
    { cwd: dir },
  );
  return {
    ...files,
    program,
    stderr,
    summary: parseSummary(stderr),
    sitesReport: parseSites(stderr),
  };
}

const digits = (text) => Number(String(text).replace(/[^0-9]/g, ""));
export { digits };

// memusage's summary (glibc's layout): the totals, the rows by function and the histogram.
export function parseSummary(text) {
  const head = /Memory usage summary: heap total: (\d+), heap peak: (\d+), stack peak: (\d+)/.exec(
    text,
  );
  assert.ok(head, "no summary in memusage's output:\n" + text);
  const summary = {
    heap_total: Number(head[1]),
    heap_peak: Number(head[2]),
    stack_peak: Number(head[3]),
    rows: [],
    histogram: [],
  };
  const lines = text.slice(head.index).split("\n");
  for (const line of lines) {
    const row = /^\s*([a-z]+(?:\([rwa]\))?)\|\s+(\d+)\s+(\d+)(?:\s+(\d+))?/.exec(line);
    if (row) {
      summary.rows.push({
        name: row[1],
        calls: Number(row[2]),
        bytes: Number(row[3]),
        failed: row[4] === undefined ? null : Number(row[4]),
      });
      continue;
    }
    const bin = /^\s*(?:(\d+)-(\d+)|(large))\s+(\d+)\s+\d+%/.exec(line);
    if (bin)
      summary.histogram.push({
        from: bin[3] ? "large" : Number(bin[1]),
        count: Number(bin[4]),
      });
    if (/^Allocation sites:/.test(line)) break;
  }
  return summary;
}

// The sites report's sections (`memusage --sites`): each entry's bytes and its frames.
export function parseSites(text) {
  const head = /Allocation sites: (\d+); heap peak: (\d+) bytes/.exec(text);
  assert.ok(head, "no sites report in memusage's output:\n" + text);
  const sections = {};
  let section = null;
  let entry = null;
  for (const line of text.slice(head.index).split("\n")) {
    const title = /^(Bytes [a-z ]+)/.exec(line);
    if (title && line.endsWith(":")) {
      section = sections[title[1].replace(/ \(.*/, "").trim()] = [];
      continue;
    }
    const number = /^\s+#\d+ (\d+) bytes/.exec(line);
    if (number && section) {
      entry = { bytes: Number(number[1]), frames: [] };
      section.push(entry);
      continue;
    }
    const frame = /^\s+(?:at|by) (\S+) \((.*):(\d+)\)/.exec(line);
    if (frame && entry) entry.frames.push({ function: frame[1], file: frame[2], line: +frame[3] });
  }
  return { count: Number(head[1]), heapPeak: Number(head[2]), sections };
}
