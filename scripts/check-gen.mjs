// Fails when gen/ differs from what `buf generate` makes from proto/.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const tmp = mkdtempSync(path.join(tmpdir(), "omnigate-gen-"));
try {
  for (const f of ["proto", "buf.yaml", "buf.gen.yaml"]) cpSync(path.join(root, f), path.join(tmp, f), { recursive: true });
  const bin = path.join(root, "node_modules", ".bin");
  execFileSync(path.join(bin, "buf"), ["generate"], { cwd: tmp, env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` }, stdio: "inherit" });
  const list = (dir) =>
    readdirSync(dir)
      .flatMap((n) => (statSync(path.join(dir, n)).isDirectory() ? list(path.join(dir, n)).map((x) => path.join(n, x)) : [n]))
      .sort();
  const want = list(path.join(tmp, "gen"));
  const have = list(path.join(root, "gen"));
  const diff = [...new Set([...want, ...have])].filter((f) => !want.includes(f) || !have.includes(f) || !readFileSync(path.join(tmp, "gen", f)).equals(readFileSync(path.join(root, "gen", f))));
  if (diff.length) {
    console.error(`gen/ is stale; run \`npm run gen\` and commit. Differs: ${diff.join(", ")}`);
    process.exit(1);
  }
  console.log(`gen/ is fresh (${want.length} files)`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
