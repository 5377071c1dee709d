// /console serving without a browser: files with their cache headers, the
// single-page app fallback, real 404s for missing assets, the page shown
// while the bundle is missing, and building it at start (ensureConsoleBundle)
// never failing the start.
import t from "tap";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import Fastify from "fastify";
import { consoleRoute, ensureConsoleBundle } from "../../src/server/console.js";
import { tempDir } from "../helpers/app.js";

const INDEX = "<!doctype html><title>omnigate console</title><div id=root></div>";

async function appWith(dir: string) {
  const app = Fastify();
  await app.register(consoleRoute, { dir });
  app.get("/other", async () => ({ ok: true }));
  await app.ready();
  t.teardown(() => app.close());
  return app;
}

t.test("files, cache headers and the app fallback", async (t) => {
  const dir = tempDir("omnigate-console-");
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, "assets"));
  writeFileSync(path.join(dir, "index.html"), INDEX);
  writeFileSync(path.join(dir, "assets", "index-abc123.js"), "console.log(1)");
  writeFileSync(path.join(dir, "robots.txt"), "User-agent: *");
  writeFileSync(path.join(dir, ".hidden"), "secret");
  const app = await appWith(dir);

  for (const url of ["/console", "/console/", "/console/tasks", "/console/tasks/image-bot/1234", "/console/keys?x=1"]) {
    const res = await app.inject(url);
    t.equal(res.statusCode, 200, url);
    t.equal(res.body, INDEX, `${url} is the app page`);
    t.match(res.headers["content-type"], /^text\/html/);
    t.equal(res.headers["cache-control"], "no-cache", `${url}: revalidated every time`);
    t.match(res.headers["content-security-policy"], /default-src 'self'/);
    t.match(res.headers["content-security-policy"], /script-src 'self'(;|$)/, "no inline scripts");
    t.equal(res.headers["x-frame-options"], "DENY");
  }
  const head = await app.inject({ method: "HEAD", url: "/console/usage" });
  t.equal(head.statusCode, 200);

  const js = await app.inject("/console/assets/index-abc123.js");
  t.equal(js.statusCode, 200);
  t.equal(js.body, "console.log(1)");
  t.match(js.headers["content-type"], /javascript/);
  t.equal(js.headers["cache-control"], "public, max-age=31536000, immutable", "hashed assets are cached for good");
  t.ok(js.headers.etag);
  const again = await app.inject({ url: "/console/assets/index-abc123.js", headers: { "if-none-match": String(js.headers.etag) } });
  t.equal(again.statusCode, 304);

  const robots = await app.inject("/console/robots.txt");
  t.equal(robots.statusCode, 200);
  t.equal(robots.headers["cache-control"], "no-cache", "unhashed files are revalidated");

  for (const url of ["/console/assets/index-gone.js", "/console/assets/x", "/console/favicon.png", "/console/.hidden", "/console/../package.json"]) {
    const res = await app.inject(url);
    t.equal(res.statusCode, 404, `${url} is a 404`);
    t.notMatch(res.body, /omnigate console/, `${url} is not the app page`);
  }
  t.equal((await app.inject({ method: "POST", url: "/console/tasks" })).statusCode, 404, "only GET and HEAD get the page");
  t.same((await app.inject("/other")).json(), { ok: true }, "routes outside /console are untouched");
  t.equal((await app.inject("/consoles")).statusCode, 404);
});

t.test("a missing bundle: a page that says so, until it is built", async (t) => {
  const dir = tempDir("omnigate-console-");
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const app = await appWith(path.join(dir, "console"));
  const res = await app.inject("/console/tasks");
  t.equal(res.statusCode, 503);
  t.match(res.body, /npm run build/);
  t.equal(res.headers["cache-control"], "no-store");
  mkdirSync(path.join(dir, "console"));
  writeFileSync(path.join(dir, "console", "index.html"), INDEX);
  const later = await app.inject("/console/tasks");
  t.equal(later.statusCode, 200, "served once built, without a restart");
  t.equal(later.body, INDEX);
});

t.test("ensureConsoleBundle builds a missing bundle and never fails the start", async (t) => {
  const dir = tempDir("omnigate-console-");
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const out = path.join(dir, "console");
  const logs: { level: string; obj: unknown; msg?: string }[] = [];
  const log = {
    info: (obj: unknown, msg?: string) => void logs.push({ level: "info", obj, ...(msg ? { msg } : {}) }),
    warn: (obj: unknown, msg?: string) => void logs.push({ level: "warn", obj, ...(msg ? { msg } : {}) }),
  } as Parameters<typeof ensureConsoleBundle>[0];
  const script = (name: string, body: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, body);
    return file;
  };

  const noVite = script("no-vite.mjs", `process.stderr.write("build-console: vite is not installed\\n"); process.exit(3);`);
  t.equal(await ensureConsoleBundle(log, { dir: out, script: noVite }), false);
  t.match(logs.at(-1), { level: "warn", msg: /vite is not installed/, obj: { exitCode: 3, output: /vite is not installed/ } });

  const broken = script("broken.mjs", `process.exit(1);`);
  t.equal(await ensureConsoleBundle(log, { dir: out, script: broken }), false);
  t.match(logs.at(-1), { level: "warn", msg: /failed/ });

  const builds = script(
    "builds.mjs",
    `import { mkdirSync, writeFileSync } from "node:fs"; mkdirSync(${JSON.stringify(out)}, { recursive: true }); writeFileSync(${JSON.stringify(path.join(out, "index.html"))}, "x");`,
  );
  t.equal(await ensureConsoleBundle(log, { dir: out, script: builds }), true);
  t.match(logs.at(-1), { level: "info", msg: "admin console built" });

  const count = logs.length;
  t.equal(await ensureConsoleBundle(log, { dir: out, script: broken }), true, "a present bundle is not rebuilt");
  t.equal(logs.length, count);
});
