// Rebuilds tap's Test class when .taprc's plugin list differs from the one it
// was built with (as after `npm ci`, .taprc dropping @tapjs/typescript). tap
// rebuilds by itself too, but its runner keeps the plugins it started with
// and hands their loaders to that run's test processes; building first makes
// the first run after an install like every other. It also empties the
// TypeScript loader's cache (scripts/ts-loader) past MAX_CACHED entries,
// several times the files the suite loads, so old edits' outputs go.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { TapConfig } from "@tapjs/config";
import { signature } from "@tapjs/test";
import { CACHE_DIR } from "./ts-loader/hooks.mjs";

const MAX_CACHED = 5000;
if (existsSync(CACHE_DIR) && readdirSync(CACHE_DIR).length > MAX_CACHED) rmSync(CACHE_DIR, { recursive: true, force: true });

const config = await TapConfig.load();
if (config.pluginSignature !== signature) {
  const tap = createRequire(import.meta.url).resolve("tap/package.json");
  const r = spawnSync(process.execPath, [path.join(path.dirname(tap), "dist/esm/run.mjs"), "build"], { stdio: "inherit" });
  process.exit(r.status ?? 1);
}
