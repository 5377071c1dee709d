// Module hooks that run this project's TypeScript in Node: esbuild strips the
// types of each .ts file as it loads (no type check: `npm run typecheck` does
// that), with an inline source map holding the source, so stack traces and
// coverage point at the .ts lines. An import of "./x.js" from TypeScript
// means "./x.ts", as under the NodeNext resolution tsconfig.json names.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { transform } from "esbuild";

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
  const out = await transform(source, {
    loader: url.endsWith("x") ? "tsx" : "ts",
    format: "esm",
    target: "node20",
    sourcemap: "inline",
    sourcefile: path,
    tsconfigRaw,
  });
  return { format: "module", source: out.code, shortCircuit: true };
}
