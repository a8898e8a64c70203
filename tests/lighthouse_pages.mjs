// Lighthouse on several pages in one Node process and one Chromium (tests/test_web_lighthouse_browser.py):
//   node tests/lighthouse_pages.mjs LIGHTHOUSE_HOME CHROMIUM CPU_SLOWDOWN URL OUT [URL OUT ...]
// Each page's JSON report goes to its OUT; a Node process and a browser started for every page cost as
// much again as the audits themselves.
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [home, chromePath, cpu, ...pairs] = process.argv.slice(2);
const modules = `${home}/node_modules`;
const lighthouse = (await import(pathToFileURL(`${modules}/lighthouse/core/index.js`).href)).default;
const launcher = await import(pathToFileURL(`${modules}/chrome-launcher/dist/index.js`).href);
const chrome = await launcher.launch({ chromePath, chromeFlags: ["--headless=new", "--no-sandbox"] });
try {
  for (let i = 0; i < pairs.length; i += 2) {
    const result = await lighthouse(pairs[i], {
      port: chrome.port, output: "json", logLevel: "error",
      onlyCategories: ["performance", "accessibility", "best-practices", "seo"],
      disableFullPageScreenshot: true, throttling: { cpuSlowdownMultiplier: Number(cpu) },
    });
    writeFileSync(pairs[i + 1], result.report);
  }
} finally {
  await chrome.kill();
}
