// npm start: scripts/build-server.mjs transpiles src/ and gen/ into
// dist/server/<hash>/ (hash, reuse, concurrent builds, pruning) and
// scripts/start.mjs runs the build in its own process. Small fake trees in
// temp dirs stand in for the repository; the last tests use the real one.
import t, { type Test } from "tap";
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildServer, pruneBuilds, ROOT, sourceFiles, sourceHash, stopEsbuild } from "../../scripts/build-server.mjs";
import { packageRoot } from "../../src/server/console.js";
import { startCommand } from "../helpers/process.js";

t.teardown(stopEsbuild);

const MAIN = `import { greet } from "../lib/greet.js";
import { Answer } from "../../gen/demo/v1/answer_pb.js";

interface Ready { url: string; text: string; answer: number }
const ready: Ready = { url: import.meta.url, text: greet("world"), answer: Answer.YES };
process.stdout.write(JSON.stringify(ready) + "\\n");
process.on("SIGTERM", () => {
  process.stdout.write("stopping\\n");
  process.exit(0);
});
setInterval(() => undefined, 1000);
`;

/** A repository in miniature: package.json ("type": "module"), src/ and gen/ in TypeScript, node_modules linked to the real one. */
function fakeTree(t: Test): string {
  const root = mkdtempSync(path.join(tmpdir(), "omnigate-start-"));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  write("package.json", JSON.stringify({ name: "fake", private: true, type: "module" }));
  write("tsconfig.json", JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext" } }));
  write("src/server/main.ts", MAIN);
  write("src/lib/greet.ts", `export function greet(name: string): string {\n  return \`hello \${name}\`;\n}\n`);
  write("src/lib/types.d.ts", `export type Unused = string;\n`);
  write("gen/demo/v1/answer_pb.ts", `export enum Answer {\n  NO = 0,\n  YES = 42,\n}\n`);
  symlinkSync(path.join(ROOT, "node_modules"), path.join(root, "node_modules"));
  return root;
}

const outRoot = (root: string) => path.join(root, "dist", "server");
const entries = (root: string) => readdirSync(outRoot(root)).sort();

/** Runs a node script in `root` with tap's coverage switched off (the outputs are not the project's files). */
function node(root: string, args: string[]): { proc: ChildProcess; out: () => string; err: () => string; exited: Promise<number | null> } {
  const { NODE_V8_COVERAGE: _coverage, ...env } = process.env;
  env._TAPJS_PROCESSINFO_COVERAGE_ = "0";
  const proc = spawn(process.execPath, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  proc.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  return { proc, out: () => out, err: () => err, exited };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Pids of the live processes whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  const kids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(ppid) === pid && state !== "Z") kids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return kids;
}

t.test("the hash covers each source file's path, size and mtime, and tsconfig.json", async (t) => {
  const root = fakeTree(t);
  t.same(sourceFiles(root), ["gen/demo/v1/answer_pb.ts", "src/lib/greet.ts", "src/server/main.ts"], "every .ts file but declarations, sorted");
  const h0 = sourceHash(root);
  t.match(h0, /^[0-9a-f]{16}$/);
  t.equal(sourceHash(root), h0, "stable while nothing changes");

  const greet = path.join(root, "src/lib/greet.ts");
  const { atime, mtime } = statSync(greet);
  utimesSync(greet, atime, new Date(mtime.getTime() + 5000));
  const h1 = sourceHash(root);
  t.not(h1, h0, "a newer mtime, same content");

  writeFileSync(greet, readFileSync(greet, "utf8") + "// more\n");
  utimesSync(greet, atime, new Date(mtime.getTime() + 5000));
  const h2 = sourceHash(root);
  t.not(h2, h1, "another size, same mtime");

  writeFileSync(path.join(root, "src/lib/notes.md"), "not a source");
  writeFileSync(path.join(root, "src/lib/more.d.ts"), "export type X = 1;\n");
  t.equal(sourceHash(root), h2, "other files and declarations do not count");

  writeFileSync(path.join(root, "gen/demo/v1/extra_pb.ts"), "export const X = 1;\n");
  const h3 = sourceHash(root);
  t.not(h3, h2, "a new file in gen/");

  renameSync(path.join(root, "gen/demo/v1/extra_pb.ts"), path.join(root, "gen/demo/v1/other_pb.ts"));
  const h4 = sourceHash(root);
  t.not(h4, h3, "a renamed file (same size and mtime)");

  writeFileSync(path.join(root, "tsconfig.json"), JSON.stringify({ compilerOptions: { target: "ES2020" } }));
  t.not(sourceHash(root), h4, "tsconfig.json changed");
});

t.test("a build transpiles file for file into dist/server/<hash>; a fresh one is reused", async (t) => {
  const root = fakeTree(t);
  const logs: string[] = [];
  const b1 = await buildServer({ root, log: (m) => logs.push(m) });
  t.equal(b1.built, true);
  t.equal(b1.hash, sourceHash(root));
  t.equal(b1.dir, path.join(outRoot(root), b1.hash));
  t.equal(b1.files, 3);
  t.match(logs, [new RegExp(`^server built into dist/server/${b1.hash} \\(3 files\\) in \\d+ ms$`)]);
  t.same(entries(root), [b1.hash], "no temp dir left");
  const main = readFileSync(path.join(b1.dir, "src/server/main.js"), "utf8");
  t.match(main, 'import { greet } from "../lib/greet.js";', "imports kept, not bundled");
  t.notMatch(main, /interface|: Ready/, "types stripped");
  t.ok(existsSync(path.join(b1.dir, "gen/demo/v1/answer_pb.js")), "gen/ keeps its place beside src/");
  t.notOk(existsSync(path.join(b1.dir, "src/server/main.js.map")), "no source maps");

  const marker = path.join(b1.dir, "marker");
  writeFileSync(marker, "");
  const mainMtime = statSync(path.join(b1.dir, "src/server/main.js")).mtimeMs;
  const b2 = await buildServer({ root, log: (m) => logs.push(m) });
  t.same({ built: b2.built, raced: b2.raced, dir: b2.dir }, { built: false, raced: false, dir: b1.dir }, "reused");
  t.ok(existsSync(marker), "the build was left as it was");
  t.equal(statSync(path.join(b1.dir, "src/server/main.js")).mtimeMs, mainMtime);
  t.equal(logs.length, 1, "nothing logged when reused");

  writeFileSync(path.join(root, "src/lib/greet.ts"), `export const greet = (name: string): string => \`hi \${name}\`;\n`);
  const b3 = await buildServer({ root });
  t.equal(b3.built, true, "a changed source builds again");
  t.not(b3.hash, b1.hash);
  t.match(readFileSync(path.join(b3.dir, "src/lib/greet.js"), "utf8"), "hi ");
  t.same(entries(root), [b1.hash, b3.hash].sort(), "the previous build is kept");

  rmSync(path.join(root, "src"), { recursive: true });
  rmSync(path.join(root, "gen"), { recursive: true });
  await t.rejects(buildServer({ root }), /no \.ts files under/, "nothing to build is an error, not an empty build");
});

t.test("concurrent builds of one tree: one renames its build into place, the others use it", async (t) => {
  const root = fakeTree(t);
  const builds = await Promise.all([buildServer({ root }), buildServer({ root }), buildServer({ root })]);
  t.equal(builds.filter((b) => b.built).length, 1, "one built");
  t.equal(builds.filter((b) => b.raced).length, 2, "two lost the race");
  t.same(new Set(builds.map((b) => b.dir)).size, 1, "all use the same dir");
  t.same(entries(root), [builds[0]!.hash], "one output dir, no temp dirs");
  t.ok(existsSync(path.join(builds[0]!.dir, "src/server/main.js")));

  // The same across processes, as when several gateways start at once.
  const other = fakeTree(t);
  const runs = [0, 1, 2].map(() => node(other, [path.join(ROOT, "scripts/build-server.mjs"), "--root", other]));
  const codes = await Promise.all(runs.map((r) => r.exited));
  t.same(codes, [0, 0, 0], runs.map((r) => r.err()).join(""));
  t.same(entries(other), [sourceHash(other)], "one output dir, no temp dirs");
  t.ok(runs.some((r) => /server built into/.test(r.out())));
});

t.test("builds beyond the kept count are pruned, never the one in use", async (t) => {
  const root = fakeTree(t);
  const greet = path.join(root, "src/lib/greet.ts");
  const hashes: string[] = [];
  for (let i = 0; i < 4; i++) {
    writeFileSync(greet, `export const greet = (name: string): string => "v${i} " + name;\n`);
    utimesSync(greet, new Date(), new Date(Date.now() + i * 1000));
    const b = await buildServer({ root, keep: 3 });
    t.equal(b.built, true);
    // Distinct mtimes, oldest first, whatever the file system's clock resolution.
    utimesSync(b.dir, new Date(), new Date(Date.now() - (10 - i) * 1000));
    hashes.push(b.hash);
  }
  t.same(entries(root), hashes.slice(1).sort(), "the oldest of four went");

  // The build in use is the oldest by mtime (as after a revert): it stays, and reuse marks it recent.
  utimesSync(path.join(outRoot(root), hashes[3]!), new Date(0), new Date(0));
  const b = await buildServer({ root, keep: 2 });
  t.same({ built: b.built, hash: b.hash }, { built: false, hash: hashes[3] });
  t.same(entries(root), [hashes[2], hashes[3]].sort(), "the most recent other build stays with it");
  t.ok(Date.now() - statSync(b.dir).mtimeMs < 60_000, "reuse touched it");

  // Temp and removed builds a crashed process left are cleared once stale.
  const staleTmp = path.join(outRoot(root), ".tmp-x-1-aa");
  const freshTmp = path.join(outRoot(root), ".tmp-y-2-bb");
  mkdirSync(path.join(staleTmp, "src"), { recursive: true });
  mkdirSync(freshTmp);
  utimesSync(staleTmp, new Date(0), new Date(0));
  t.same(pruneBuilds(outRoot(root), hashes[3]!, 1), [hashes[2]]);
  t.same(entries(root), [path.basename(freshTmp), hashes[3]].sort(), "a stale temp dir went, one maybe still building stayed");
  t.same(pruneBuilds(path.join(root, "missing"), "x"), [], "no output dir: nothing to do");
});

t.test("start.mjs builds, stops esbuild and runs the build's main in its own process", async (t) => {
  const root = fakeTree(t);
  mkdirSync(path.join(root, "scripts"));
  for (const f of ["start.mjs", "build-server.mjs"]) copyFileSync(path.join(ROOT, "scripts", f), path.join(root, "scripts", f));

  const start = async (expectBuild: boolean) => {
    const g = node(root, ["scripts/start.mjs"]);
    const line = await new Promise<string>((resolve, reject) => {
      g.proc.stdout!.on("data", () => g.out().includes("\n") && resolve(g.out().split("\n")[0]!));
      void g.exited.then((code) => reject(new Error(`exited ${code}: ${g.err()}`)));
    });
    const ready = JSON.parse(line) as { url: string; text: string; answer: number };
    const hash = sourceHash(root);
    t.same(ready, { url: `file://${path.join(root, "dist/server", hash, "src/server/main.js")}`, text: "hello world", answer: 42 }, "main ran from the build");
    t.equal(/server built into/.test(g.err()), expectBuild, expectBuild ? "built on the first start" : "reused on the second");
    let kids = childrenOf(g.proc.pid!);
    for (let i = 0; i < 40 && kids.length; i++) {
      await sleep(50);
      kids = childrenOf(g.proc.pid!);
    }
    t.same(kids, [], "no esbuild service process left beside it");
    g.proc.kill("SIGTERM");
    t.equal(await g.exited, 0, "SIGTERM reached main's handler");
    t.match(g.out(), /stopping\n$/);
  };
  await start(true);
  await start(false);

  writeFileSync(path.join(root, "src/lib/greet.ts"), "export const greet = (name: string) => ;\n");
  const bad = node(root, ["scripts/start.mjs"]);
  t.equal(await bad.exited, 1, "a build error stops the start");
  t.match(bad.err(), /ERROR\] Unexpected ";"[\s\S]*src\/lib\/greet\.ts:1:\d+/, "esbuild's error names the file and line");
  t.match(bad.err(), /omnigate: could not build the server: esbuild failed/);
  t.same(
    entries(root).filter((n) => n.startsWith(".")),
    [],
    "no temp dir left",
  );
  t.notOk(existsSync(path.join(outRoot(root), sourceHash(root))), "nothing built for the broken tree");
});

t.test("npm start runs scripts/start.mjs, and the build finds the repository root", async (t) => {
  // The young generation and V8's helper threads are sized on the command line (neither can change once node runs; src/server/v8-flags.ts sets the rest).
  t.same(startCommand(), ["node", "--max-semi-space-size=16", "--v8-pool-size=2", "scripts/start.mjs"], "what spawnGateway and the bench run");
  const b = await buildServer();
  t.ok(existsSync(path.join(b.dir, "src/server/main.js")));
  const probe = node(ROOT, [
    "--input-type=module",
    "-e",
    `const c = await import(${JSON.stringify(path.join(b.dir, "src/server/console.js"))});
     const m = await import(${JSON.stringify(path.join(b.dir, "src/core/video/media.js"))});
     console.log(JSON.stringify({ root: c.ROOT_DIR, dist: c.CONSOLE_DIST, ffmpeg: m.mediaBinaries().ffmpeg }));`,
  ]);
  t.equal(await probe.exited, 0, probe.err());
  const got = JSON.parse(probe.out()) as { root: string; dist: string; ffmpeg: string };
  t.equal(got.root, ROOT, "console.ts walks up to package.json from dist/server/<hash>/src/server");
  t.equal(got.dist, path.join(ROOT, "dist", "console"));
  t.ok(got.ffmpeg.startsWith(path.join(ROOT, "node_modules")) && existsSync(got.ffmpeg), "media.ts's createRequire still finds node_modules");

  t.equal(packageRoot(path.join(ROOT, "src", "server")), ROOT);
  const root = path.parse(ROOT).root;
  if (!existsSync(path.join(root, "package.json"))) t.throws(() => packageRoot(root), /no package\.json at or above/);
});

// Node 20 before 20.19 cannot require() an ES module, so no CommonJS package
// of the runtime tree may (package.json's overrides keep two from it).
t.test("the built server loads where require() cannot load an ES module", async (t) => {
  const b = await buildServer();
  const lazy = ["src/storage/postgres/pg-storage.js", "src/core/auth/redis-signal.js", "src/core/tasks/redis-bus.js", "src/core/tenancy/redis-limiter.js"];
  const oldNode = node(ROOT, [
    "--no-experimental-require-module",
    "--input-type=module",
    "-e",
    `import { createRequire } from "node:module";
     for (const f of ${JSON.stringify(["src/server/app.js", ...lazy])}) await import(${JSON.stringify(b.dir + "/")} + f);
     await import("sharp");
     const require = createRequire(${JSON.stringify(path.join(ROOT, "package.json"))});
     for (const p of ["re2js", "yaml", "mime-types", "prom-client"]) require(p);
     await (await import("fastify")).default().inject("/");
     console.log("loaded");`,
  ]);
  t.equal(await oldNode.exited, 0, oldNode.err());
  t.equal(oldNode.out().trim(), "loaded", "the server's modules load without require(esm)");
});
