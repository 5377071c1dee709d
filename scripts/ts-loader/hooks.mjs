// Module hooks that run this project's TypeScript in Node: esbuild strips the
// types of each .ts file as it loads (no type check: `npm run typecheck` does
// that), with an inline source map holding the source, so stack traces and
// coverage point at the .ts lines. An import of "./x.js" from TypeScript
// means "./x.ts", as under the NodeNext resolution tsconfig.json names.
//
// Each test process would transform the same few hundred files again, so a
// file's output is kept in CACHE_DIR under a hash of its path, its source and
// the transform's options (scripts/tap-build.mjs empties it when it grows large).
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { transform, version } from "esbuild";

export const CACHE_DIR = fileURLToPath(new URL("../../node_modules/.cache/omnigate-ts/", import.meta.url));

const TS = /\.(ts|tsx|mts)$/;
const tsconfigRaw = { compilerOptions: { target: "ES2022", verbatimModuleSyntax: true, useDefineForClassFields: true, jsx: "react-jsx" } };

export async function resolve(specifier, context, next) {
  const parent = context.parentURL;
  if (parent && TS.test(parent) && specifier.endsWith(".js") && (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("file:"))) {
    const url = new URL(specifier, parent);
    for (const ext of [".ts", ".tsx"]) {
      const ts = new URL(url.href.slice(0, -3) + ext);
      if (existsSync(ts)) return { url: ts.href, format: "module", shortCircuit: true };
    }
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!TS.test(url) || !url.startsWith("file:") || url.includes("/node_modules/")) return next(url, context);
  const path = fileURLToPath(url);
  const source = await readFile(path, "utf8");
  const options = { loader: url.endsWith("x") ? "tsx" : "ts", format: "esm", target: "node20", sourcemap: "inline", sourcefile: path, tsconfigRaw };
  const cached = CACHE_DIR + createHash("sha256").update(version).update(JSON.stringify(options)).update("\0").update(source).digest("hex") + ".js";
  const hit = await readFile(cached, "utf8").catch(() => undefined);
  if (hit !== undefined) return { format: "module", source: hit, shortCircuit: true };
  const out = await transform(source, options);
  await store(cached, out.code).catch(() => undefined);
  return { format: "module", source: out.code, shortCircuit: true };
}

/** Writes a cache entry whole or not at all (test processes run side by side). */
async function store(file, code) {
  await mkdir(CACHE_DIR, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, code);
  await rename(tmp, file);
}
