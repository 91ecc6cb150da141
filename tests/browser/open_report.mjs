// SPDX-License-Identifier: MIT
// Opens an HTML report in headless Chromium (Debian's, through puppeteer-core) and keeps what
// the page did that a report must not: requests other than the file itself, console errors
// and uncaught exceptions. The browser tests share it:
//   const report = await openReport("/tmp/run.html");
//   ... report.page (puppeteer's Page), report.requests, report.errors ...
//   await report.close();
// { colorScheme: "dark" } opens it as on a system that asks for dark pages.
import puppeteer from "puppeteer-core";
import { pathToFileURL } from "node:url";

export const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";

export async function openReport(
  file,
  { width = 1400, height = 1000, colorScheme = "light" } = {},
) {
  const browser = await puppeteer.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check"],
  });
  const page = await browser.newPage();
  await page.setViewport({ width, height });
  await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: colorScheme }]);
  const url = pathToFileURL(file).href;
  const requests = [];
  const errors = [];
  page.on("request", (request) => {
    // The file itself, whatever its fragment (a reload keeps the window there), is no request.
    if (request.url().split("#")[0] !== url) requests.push(request.url());
  });
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(String(error)));
  await page.goto(url, { waitUntil: "load" });
  await page.waitForFunction(() => window.memusageReport && window.memusageReport.ready, {
    timeout: 10000,
  });
  return { browser, page, requests, errors, close: () => browser.close() };
}
