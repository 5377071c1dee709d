// Setup for the console's browser tests: the bundle (built once, when missing
// or stale), Debian's Chromium (installed with apt-get when missing), a
// headless browser with a fresh profile, and screenshots of failed tests.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import type { Test } from "tap";
import { ROOT } from "../helpers/process.js";

export const OUTPUT_DIR = path.join(ROOT, "test", "console", "output");

function node(script: string, ...args: string[]): string {
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts", script), ...args], { cwd: ROOT, encoding: "utf8", timeout: 300_000 });
  if (r.status !== 0) throw new Error(`${script} failed (exit ${r.status}): ${(r.stderr || r.stdout || String(r.error)).trim()}`);
  return r.stdout.trim();
}

/** Empties the screenshot directory, so that it holds only the failures of the latest run. */
export function resetOutput(): void {
  rmSync(OUTPUT_DIR, { recursive: true, force: true });
}

/** Builds dist/console unless it is up to date with console/ (a hash of the sources). */
export function ensureBundle(): void {
  node("build-console.mjs", "--if-stale");
}

/** The Chromium executable; scripts/ensure-chromium.mjs installs it when missing. */
export function ensureChromium(): string {
  return node("ensure-chromium.mjs").split("\n").at(-1)!;
}

export async function launchBrowser(): Promise<Browser> {
  // Playwright gives every launch a fresh temporary profile (--user-data-dir), removed on close.
  return chromium.launch({
    executablePath: ensureChromium(),
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    timeout: 30_000,
  });
}

/** What the page reported: console errors, uncaught exceptions, and every request URL with its Authorization header. */
export interface PageLog {
  errors: string[];
  requests: { url: string; authorization: string | undefined }[];
}

export async function newPage(browser: Browser, baseUrl: string): Promise<{ context: BrowserContext; page: Page; log: PageLog }> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1400, height: 1000 } });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const log: PageLog = { errors: [], requests: [] };
  page.on("console", (m) => {
    if (m.type() === "error") log.errors.push(m.text());
  });
  page.on("pageerror", (e) => log.errors.push(`uncaught: ${e.message}`));
  page.on("request", (r) => log.requests.push({ url: r.url(), authorization: r.headers()["authorization"] }));
  return { context, page, log };
}

/** Runs a browser test body; when it fails, saves a screenshot and the page's errors under test/console/output/. */
export async function withScreenshot(t: Test, page: Page, log: PageLog, body: () => Promise<void>): Promise<void> {
  const save = async () => {
    mkdirSync(OUTPUT_DIR, { recursive: true });
    const name = t.name.replace(/[^\w-]+/g, "-").slice(0, 80);
    const file = path.join(OUTPUT_DIR, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    writeFileSync(path.join(OUTPUT_DIR, `${name}.log`), [`url: ${page.url()}`, ...log.errors].join("\n"));
    t.comment(`screenshot: ${path.relative(ROOT, file)}`);
  };
  try {
    await body();
  } catch (err) {
    await save();
    throw err;
  }
  if (!t.passing()) await save();
}

/** Samples `read` every few milliseconds until `done` holds for a value (bounded); returns every distinct value seen. */
export async function sample<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 20_000): Promise<T[]> {
  const seen: T[] = [];
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (!seen.length || JSON.stringify(seen.at(-1)) !== JSON.stringify(v)) seen.push(v);
    if (done(v)) return seen;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms; values seen: ${JSON.stringify(seen)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
