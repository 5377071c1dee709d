// The gateway process with OMNIGATE_DATABASE_URL: three processes starting at
// once on an empty schema print one admin key between them and all serve it;
// a bad or unreachable database stops startup (exit 2) with a message naming
// the setting, without hanging.
import t, { type Test } from "tap";
import { rmSync } from "node:fs";
import { tempDir } from "../helpers/app.js";
import { listModels, spawnGateway, type Gateway } from "../helpers/process.js";
import { PG_URL, pgSchema } from "../helpers/pg.js";

const KEY = /sk-og-[A-Za-z0-9_-]+/;

function spawn(t: Test, env: Record<string, string>): Gateway {
  const dataDir = tempDir();
  const g = spawnGateway({ OMNIGATE_DATA_DIR: dataDir, OMNIGATE_LOG_LEVEL: "info", ...env });
  t.teardown(async () => {
    if (g.proc.exitCode === null && g.proc.signalCode === null) g.proc.kill("SIGKILL");
    await g.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });
  return g;
}

t.test("three processes start together on one empty schema", async (t) => {
  const { url, schema } = await pgSchema(t);
  const env = { OMNIGATE_DATABASE_URL: url, OMNIGATE_DATABASE_SCHEMA: schema, OMNIGATE_DATABASE_POOL_SIZE: "3" };
  const gateways = [spawn(t, env), spawn(t, env), spawn(t, env)];
  const ports = await Promise.all(gateways.map((g) => g.ready));
  const printed = gateways.map((g) => g.stdout().match(KEY)?.[0]).filter((k): k is string => !!k);
  t.equal(printed.length, 1, "one admin key is created and printed, by one process");
  for (const p of ports) t.equal(await listModels(p.http, printed[0]!), 200, "every instance accepts it");
  for (const g of gateways) g.proc.kill("SIGTERM");
  t.same(await Promise.all(gateways.map((g) => g.exited)), [0, 0, 0], "each stops cleanly, its pool closed");
});

t.test("an unreachable database stops startup with exit code 2", async (t) => {
  const g = spawn(t, { OMNIGATE_DATABASE_URL: "postgres://postgres:pw-not-shown@127.0.0.1:1/test" });
  t.equal(await g.exited, 2);
  t.match(g.stderr(), /omnigate: OMNIGATE_DATABASE_URL: cannot connect to postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/test/);
  t.notMatch(g.stderr(), /pw-not-shown/);
});

t.test("a missing database stops startup with exit code 2", async (t) => {
  const g = spawn(t, { OMNIGATE_DATABASE_URL: PG_URL.replace(/\/[^/]*$/, "/og_no_such_database") });
  t.equal(await g.exited, 2);
  t.match(g.stderr(), /OMNIGATE_DATABASE_URL: .*og_no_such_database/);
});

t.test("a database URL of another kind is a configuration error", async (t) => {
  const g = spawn(t, { OMNIGATE_DATABASE_URL: "mysql://127.0.0.1/db", OMNIGATE_DATABASE_SCHEMA: "Not-Valid" });
  t.equal(await g.exited, 2);
  t.match(g.stderr(), /OMNIGATE_DATABASE_URL \("mysql:\/\/127\.0\.0\.1\/db"\): expected a postgres:\/\/ or postgresql:\/\/ URL/);
  t.match(g.stderr(), /OMNIGATE_DATABASE_SCHEMA \("Not-Valid"\): expected a lower-case identifier/);
});
