// SPDX-License-Identifier: MIT
// The source view, against the text sites report of the same run: a program of two files and
// a third padded past the size the report embeds (fixtures/source_tree), compiled with -g from
// its tree's root with relative names in a temporary directory (the program beside the tree),
// run once under memusage with its files kept, then the tree moved. memusagestat --html writes the report again without
// --source-dir (every file listed, none with text, each saying why), with --source-dir=DIR of
// the moved tree (found by the path from the compile directory) and of its parent (found by
// the last components). In the browser a file's lines carry the bytes of `memusagestat
// --sites` (self: the sites whose innermost frame is at the line; the file's sum: those whose
// innermost frame is in it), a file:line of a stack or of the callers table opens the file
// there, and a window changes the figures as it changes the callers table's. The screenshot
// of the view for docs/report.md (the bundled example) is renewed with
//   MEMUSAGE_SCREENSHOT_SOURCE=docs/report-source.png node --test tests/browser/report_source.test.mjs
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";

import { builtFile, run, scratchDirectory, sourceDir } from "./fixture_run.mjs";
import { openReport } from "./open_report.mjs";

const fixtureTree = path.join(sourceDir, "tests/browser/fixtures/source_tree");
let dir;
let tree; // where it was built and ran
let moved; // where it is now
let files;
let report;
let page;

// The marked lines of a file of the tree: `// MARK(peak)` on line 22 gives { peak: 22 }.
function marks(file) {
  const found = {};
  readFileSync(path.join(fixtureTree, file), "utf8")
    .split("\n")
    .forEach((line, i) => {
      const mark = /\/\/ MARK\((\w+)\)/.exec(line);
      if (mark) found[mark[1]] = i + 1;
    });
  return found;
}

function writeReport(name, ...options) {
  const html = path.join(dir, name + ".html");
  run(builtFile("bin", "memusagestat"), [
    "--html=" + html,
    files.data,
    "--sites=" + files.sites,
    "--events=" + files.events,
    ...options,
  ]);
  return html;
}

// `memusagestat --sites` of the run, every site shown: per section, each site's bytes and
// innermost frame's file and line.
function textSites() {
  const out = execFileSync(
    builtFile("bin", "memusagestat"),
    ["--sites=" + files.sites, "--top=1000"],
    { encoding: "utf8" },
  );
  const sections = {};
  let section = null;
  let entry = null;
  for (const line of out.split("\n")) {
    const title = /^(Bytes [a-z ]+?)(?: \(.*\))?:$/.exec(line);
    if (title) {
      section = sections[title[1]] = [];
      continue;
    }
    const number = /^\s+#\d+ (\d+) bytes/.exec(line);
    if (number && section) {
      entry = { bytes: Number(number[1]), file: null, line: null };
      section.push(entry);
      continue;
    }
    const frame = /^\s+at \S+ \((.*):(\d+)\)/.exec(line);
    if (frame && entry && entry.file === null) [entry.file, entry.line] = [frame[1], +frame[2]];
  }
  return sections;
}

const sectionOf = {
  peak: "Bytes held at the heap peak",
  allocated: "Bytes allocated",
  leaked: "Bytes still allocated at exit",
};

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "memusage-browser-"));
  tree = path.join(dir, "tree");
  cpSync(fixtureTree, tree, { recursive: true });
  // lib/big.c past the 1 MB the report takes of a file: a comment of 1.1 MB after its code.
  appendFileSync(path.join(tree, "lib/big.c"), ("// " + "x".repeat(97) + "\n").repeat(11_500));
  execFileSync(
    process.env.CC || "cc",
    ["-g", "-O0", "-o", "../prog", "main.c", "lib/pieces.c", "lib/big.c"],
    { cwd: tree },
  );
  files = {
    data: path.join(dir, "run.dat"),
    sites: path.join(dir, "run.sites"),
    events: path.join(dir, "run.events"),
  };
  run(
    builtFile("bin", "memusage"),
    [
      "--color=never",
      "--html=" + path.join(dir, "first.html"),
      "--data=" + files.data,
      "--sites-file=" + files.sites,
      "--events=" + files.events,
      path.join(dir, "prog"),
    ],
    { cwd: dir },
  );
  mkdirSync(path.join(dir, "moved"));
  moved = path.join(dir, "moved", "tree");
  renameSync(tree, moved);
  report = await openReport(writeReport("found", "--source-dir=" + moved));
  page = report.page;
  await page.waitForFunction(() => window.memusageReport.ready);
});

after(async () => {
  if (report) await report.close();
  rmSync(dir, { recursive: true, force: true });
});

const sourcesOf = (html) =>
  JSON.parse(
    /<script type="application\/json" id="report-data">\s*([\s\S]*?)\s*<\/script>/.exec(
      readFileSync(html, "utf8"),
    )[1],
  ).sources;

test("a moved tree's files are found with --source-dir, and listed with the reason without it", () => {
  const recorded = ["main.c", "lib/pieces.c", "lib/big.c"].map((f) => path.join(tree, f));
  const without = sourcesOf(writeReport("without"));
  assert.deepEqual(without.map((s) => s.file).sort(), recorded.slice().sort());
  for (const s of without) {
    assert.equal(s.lines, null, s.file);
    assert.equal(s.path, null, s.file);
    assert.match(s.omitted, /not found on this machine.*--source-dir/, s.file);
  }
  // Under the moved tree by the path from the compile directory; under its parent by the
  // last components (tree/lib/pieces.c).
  for (const where of [moved, path.dirname(moved)]) {
    const found = sourcesOf(writeReport("found-" + path.basename(where), "--source-dir=" + where));
    const byFile = new Map(found.map((s) => [s.file, s]));
    for (const f of ["main.c", "lib/pieces.c"]) {
      const s = byFile.get(path.join(tree, f));
      assert.equal(s.path, path.join(moved, f), f + " under " + where);
      assert.equal(s.omitted, null);
      assert.deepEqual(s.lines, readFileSync(path.join(moved, f), "utf8").split("\n").slice(0, -1));
    }
    const big = byFile.get(path.join(tree, "lib/big.c"));
    assert.ok(statSync(path.join(moved, "lib/big.c")).size > 1 << 20);
    assert.equal(big.lines, null);
    assert.equal(big.path, path.join(moved, "lib/big.c"));
    assert.match(big.omitted, /larger than the 1 MB/);
  }
  // A directory that is none is refused, by memusagestat and by the driver before the run.
  const refused = (command, args) => {
    try {
      execFileSync(command, args, { encoding: "utf8", stdio: "pipe" });
    } catch (error) {
      return { status: error.status, stderr: error.stderr };
    }
    return { status: 0, stderr: "" };
  };
  const missing = path.join(dir, "no-such-dir");
  const stat = refused(builtFile("bin", "memusagestat"), [
    "--html=" + path.join(dir, "x.html"),
    "--sites=" + files.sites,
    "--source-dir=" + missing,
  ]);
  assert.equal(stat.status, 1);
  assert.match(stat.stderr, /--source-dir: '.*no-such-dir' is not a directory/);
  const driver = refused(builtFile("bin", "memusage"), [
    "--html=" + path.join(dir, "y.html"),
    "--source-dir=" + missing,
    "/bin/true",
  ]);
  assert.equal(driver.status, 1);
  assert.match(driver.stderr, /invalid directory '.*no-such-dir' for '--source-dir'/);
  // The text reports print no source lines: the option goes with --html only.
  const text = refused(builtFile("bin", "memusagestat"), [
    "--sites=" + files.sites,
    "--source-dir=" + moved,
  ]);
  assert.equal(text.status, 1);
  assert.match(text.stderr, /--source-dir goes with --html/);
});

test("each line's bytes and each file's sum are those of memusagestat --sites", async () => {
  const sections = textSites();
  const main = marks("main.c");
  const pieces = marks("lib/pieces.c");
  for (const [metric, title] of Object.entries(sectionOf)) {
    const entries = sections[title] || [];
    assert.ok(entries.length > 0, "no section " + title);
    for (const f of ["main.c", "lib/pieces.c", "lib/big.c"]) {
      const file = path.join(tree, f);
      const shown = await page.evaluate((name) => window.memusageReport.source(name), file);
      const mine = entries.filter((e) => e.file === file);
      const sum = mine.reduce((s, e) => s + e.bytes, 0);
      assert.equal(shown.self[metric], sum, metric + " of " + f);
      const byLine = new Map();
      for (const e of mine) byLine.set(e.line, (byLine.get(e.line) || 0) + e.bytes);
      for (const l of shown.lines)
        assert.equal(l.self[metric], byLine.get(l.line) || 0, metric + " of " + f + ":" + l.line);
    }
  }
  // The figures the fixture makes: pieces.c's malloc allocated every piece and the peak;
  // main's loop line holds the pieces (inclusive), its own line what it allocated itself.
  const piecesFile = await page.evaluate(
    (name) => window.memusageReport.source(name),
    path.join(tree, "lib/pieces.c"),
  );
  const at = (shown, line) => shown.lines.find((l) => l.line === line);
  assert.equal(at(piecesFile, pieces.piece).self.allocated, 1000 + 2000 + 3000 + 200000);
  // At the peak the pieces are held too.
  assert.equal(at(piecesFile, pieces.piece).self.peak, 1000 + 2000 + 3000 + 200000);
  assert.equal(at(piecesFile, pieces.piece).self.leaked, 2000 + 3000);
  const mainFile = await page.evaluate(
    (name) => window.memusageReport.source(name),
    path.join(tree, "main.c"),
  );
  assert.equal(at(mainFile, main.main_calls).self.allocated, 0);
  assert.equal(at(mainFile, main.main_calls).inclusive.allocated, 6000);
  assert.equal(at(mainFile, main.main_alloc).self.leaked, 5000);
  assert.equal(at(mainFile, main.peak).inclusive.peak, 200000);
  // As the page shows them: the table's rows and the file's text.
  await page.evaluate((name) => window.memusageReport.source(name, 1), path.join(tree, "main.c"));
  await page.select("#source-metric", "allocated");
  const rows = await page.$$eval("#source-body tr[data-line]", (trs) =>
    trs.map((tr) => ({
      line: Number(tr.dataset.line),
      self: Number(tr.dataset.self),
      inclusive: Number(tr.dataset.inclusive),
      text: tr.querySelector(".source-text").textContent,
    })),
  );
  const text = readFileSync(path.join(moved, "main.c"), "utf8").split("\n");
  assert.equal(rows.length, text.length - 1);
  for (const r of rows) {
    assert.equal(r.text, text[r.line - 1]);
    const l = at(mainFile, r.line);
    assert.equal(r.self, l ? l.self.allocated : 0);
    assert.equal(r.inclusive, l ? l.inclusive.allocated : 0);
  }
  // The file without text says why, and still lists its lines' bytes.
  await page.select("#source-file", path.join(tree, "lib/big.c"));
  const big = await page.evaluate(() => ({
    omitted: document.querySelector("#source-body .source-omitted")?.textContent,
    rows: [...document.querySelectorAll("#source-body tr[data-line]")].map((tr) => ({
      line: Number(tr.dataset.line),
      self: Number(tr.dataset.self),
    })),
  }));
  assert.match(big.omitted, /larger than the 1 MB/);
  assert.deepEqual(big.rows, [{ line: marks("lib/big.c").big_piece, self: 300 }]);
  assert.deepEqual(report.errors, []);
  assert.deepEqual(report.requests, []);
});

test("a file:line in a stack or in the callers table opens the file at that line", async () => {
  const pieces = marks("lib/pieces.c");
  // A row of the sites table opened: its stack's innermost frame.
  await page.click("#sites-table tr.site-row button");
  const link = await page.waitForSelector("#sites-table a.source-link");
  const target = await link.evaluate((a) => ({ file: a.dataset.file, line: a.dataset.line }));
  await link.click();
  const shown = await page.evaluate(() => ({
    file: document.getElementById("source-body").dataset.file,
    selected: document.getElementById("source-file").value,
    target: document.querySelector("#source-body tr.source-target")?.dataset.line,
    focused: document.activeElement.closest("tr")?.dataset.line,
  }));
  assert.equal(shown.file, target.file);
  assert.equal(shown.selected, target.file);
  assert.equal(shown.target, target.line);
  assert.equal(shown.focused, target.line);
  // The callers table by line: pieces.c's malloc line.
  await page.evaluate(() => window.memusageReport.callers("allocated", "line"));
  const callersLink = await page.$(
    `#callers-table a.source-link[data-line="${pieces.piece}"][data-file$="lib/pieces.c"]`,
  );
  assert.ok(callersLink, "no link to pieces.c:" + pieces.piece + " in the callers table");
  await callersLink.click();
  const opened = await page.evaluate(() => ({
    file: document.getElementById("source-body").dataset.file,
    target: document.querySelector("#source-body tr.source-target")?.dataset.line,
  }));
  assert.equal(opened.file, path.join(tree, "lib/pieces.c"));
  assert.equal(Number(opened.target), pieces.piece);
  assert.deepEqual(report.errors, []);
});

test("the view follows the selected window, as the callers table does, and says so", async () => {
  const window = await page.evaluate(() => {
    const data = window.memusageReport.data;
    const t = data.events.time;
    // The first half of the run's events: before the peak's block is freed.
    return [t[0], t[Math.floor(t.length / 2)]];
  });
  const figures = await page.evaluate(([t0, t1]) => {
    const f = window.memusageReport.selectWindow(t0, t1);
    return { t0: f.t0, t1: f.t1 };
  }, window);
  const caption = await page.$eval("#source-window", (p) => ({
    window: p.dataset.window,
    text: p.textContent,
  }));
  assert.equal(caption.window, figures.t0 + ".." + figures.t1);
  assert.match(caption.text, /^Shows the window /);
  for (const metric of ["peak", "allocated", "leaked"]) {
    const callers = await page.evaluate((m) => window.memusageReport.callers(m, "line"), metric);
    for (const f of ["main.c", "lib/pieces.c"]) {
      const file = path.join(tree, f);
      const shown = await page.evaluate((name) => window.memusageReport.source(name), file);
      for (const l of shown.lines) {
        const row = callers.rows.find((r) => r.key.endsWith("(" + file + ":" + l.line + ")"));
        assert.equal(l.self[metric], row ? row.self : 0, metric + " self of " + f + ":" + l.line);
        assert.equal(l.inclusive[metric], row ? row.inclusive : 0, metric + " of " + l.line);
      }
    }
  }
  // The whole run again: the text report's figures.
  await page.evaluate(() => window.memusageReport.resetWindow());
  const back = await page.$eval("#source-window", (p) => p.dataset.window);
  assert.equal(back, "whole");
});

test("the source view of the bundled example, screenshot for docs/report.md", async (t) => {
  const scratch = scratchDirectory(t);
  const html = path.join(scratch, "word_census.html");
  const example = builtFile("example", "word_census");
  run(builtFile("bin", "memusage"), ["--color=never", "--html=" + html, example], {
    cwd: sourceDir,
  });
  const opened = await openReport(html, { width: 1280, height: 800 });
  t.after(() => opened.close());
  const p = opened.page;
  await p.waitForFunction(() => window.memusageReport.ready);
  // The file holding the most bytes at the peak, opened at its line that holds the most.
  const chosen = await p.evaluate(() => {
    const data = window.memusageReport.data;
    let best = null;
    for (const s of data.sources.filter((x) => x.lines)) {
      const shown = window.memusageReport.source(s.file);
      for (const l of shown.lines)
        if (!best || l.self.peak > best.bytes)
          best = { file: s.file, line: l.line, bytes: l.self.peak };
    }
    return best;
  });
  assert.ok(chosen && chosen.bytes > 0, "no line of the example holds bytes at the peak");
  await p.evaluate((c) => window.memusageReport.source(c.file, c.line), chosen);
  const out = process.env.MEMUSAGE_SCREENSHOT_SOURCE
    ? path.resolve(process.env.MEMUSAGE_SCREENSHOT_SOURCE)
    : path.join(scratch, "report-source.png");
  // The view's top at the window's top, as the link leaves it.
  await p.evaluate(() => {
    document.getElementById("source-view").scrollIntoView();
    const row = document.querySelector("#source-body tr.source-target");
    const box = row.closest(".source-scroll");
    box.scrollTop = row.offsetTop - box.clientHeight / 3;
  });
  await p.screenshot({ path: out });
  const png = readFileSync(out);
  assert.equal(png.readUInt32BE(16), 1280);
  assert.equal(png.readUInt32BE(20), 800);
  const widths = await p.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    window: document.documentElement.clientWidth,
  }));
  assert.ok(widths.page <= widths.window, "the page is wider than its window");
  assert.deepEqual(opened.errors, []);
  assert.deepEqual(opened.requests, []);
});
