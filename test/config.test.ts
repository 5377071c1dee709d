import t from "tap";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { defaultGrpcMaxSessions, defaultMaxConnections, loadConfig, openFileLimit, publicBaseUrl } from "../src/config.js";
import { tempDir } from "./helpers/app.js";

t.test("defaults", async (t) => {
  const c = loadConfig({});
  t.equal(c.port, 8080);
  t.equal(c.grpcPort, 8081);
  t.equal(c.host, "127.0.0.1");
  t.equal(c.dataDir, path.resolve("./data"));
  t.equal(c.logLevel, "info");
  t.equal(c.coalesceWrites, true);
  t.equal(c.gcMetrics, false);
  t.equal(publicBaseUrl(c), "http://127.0.0.1:8080");
});

t.test("environment variables", async (t) => {
  const c = loadConfig({
    OMNIGATE_PORT: "9000",
    OMNIGATE_GRPC_PORT: "9001",
    OMNIGATE_HOST: "0.0.0.0",
    OMNIGATE_PUBLIC_URL: "https://gw.example.com/",
    OMNIGATE_LOG_LEVEL: "warn",
    OMNIGATE_DEV: "1",
    OMNIGATE_LOCAL_BLOCKLIST: "a, b",
  });
  t.equal(c.port, 9000);
  t.equal(c.grpcPort, 9001);
  t.equal(c.dev, true);
  t.same(c.local.blocklist, ["a", "b"]);
  t.equal(loadConfig({ OMNIGATE_COALESCE_WRITES: "0" }).coalesceWrites, false);
  t.equal(loadConfig({ OMNIGATE_GC_METRICS: "1" }).gcMetrics, true);
  t.equal(publicBaseUrl(c), "https://gw.example.com");
  t.equal(publicBaseUrl(loadConfig({ OMNIGATE_HOST: "0.0.0.0" }), 1234), "http://127.0.0.1:1234");
});

const bad: [string, Record<string, string>, RegExp][] = [
  ["port not a number", { OMNIGATE_PORT: "abc" }, /OMNIGATE_PORT \("abc"\)/],
  ["port out of range", { OMNIGATE_PORT: "70000" }, /OMNIGATE_PORT \("70000"\): expected a port between 0 and 65535/],
  ["log level", { OMNIGATE_LOG_LEVEL: "loud" }, /OMNIGATE_LOG_LEVEL \("loud"\)/],
  ["public url", { OMNIGATE_PUBLIC_URL: "not a url" }, /OMNIGATE_PUBLIC_URL/],
  ["bootstrap key too short", { OMNIGATE_BOOTSTRAP_KEY: "short" }, /OMNIGATE_BOOTSTRAP_KEY .*at least 8/],
  ["dev flag", { OMNIGATE_DEV: "maybe" }, /OMNIGATE_DEV/],
  ["write coalescing flag", { OMNIGATE_COALESCE_WRITES: "sometimes" }, /OMNIGATE_COALESCE_WRITES/],
];
for (const [name, env, re] of bad) {
  t.test(`a bad value names the setting: ${name}`, async (t) => {
    t.throws(() => loadConfig(env), { name: "ConfigError", message: re });
  });
}

t.test("a config file (JSON and YAML), with env winning", async (t) => {
  const dir = tempDir();
  const json = path.join(dir, "c.json");
  writeFileSync(json, JSON.stringify({ port: 7000, logLevel: "debug", local: { blocklist: ["zzz"] } }));
  const c = loadConfig({ OMNIGATE_CONFIG: json, OMNIGATE_PORT: "7001" });
  t.equal(c.port, 7001);
  t.equal(c.logLevel, "debug");
  t.same(c.local.blocklist, ["zzz"]);
  const yaml = path.join(dir, "c.yaml");
  writeFileSync(yaml, "grpcPort: 7100\nhost: 0.0.0.0\n");
  t.equal(loadConfig({ OMNIGATE_CONFIG: yaml }).grpcPort, 7100);
});

t.test("a bad config file names the file and the setting", async (t) => {
  const dir = tempDir();
  const f = path.join(dir, "c.json");
  writeFileSync(f, JSON.stringify({ port: "x", local: { blocklist: [1] } }));
  t.throws(() => loadConfig({ OMNIGATE_CONFIG: f }), { name: "ConfigError", message: /c\.json: port: .*local\.blocklist\[0\]/ });
  writeFileSync(f, "{nope");
  t.throws(() => loadConfig({ OMNIGATE_CONFIG: f }), /is not valid JSON/);
  writeFileSync(f, JSON.stringify({ unknownSetting: 1 }));
  t.throws(() => loadConfig({ OMNIGATE_CONFIG: f }), /unknownSetting/);
  t.throws(() => loadConfig({ OMNIGATE_CONFIG: path.join(dir, "missing.json") }), /OMNIGATE_CONFIG: cannot read .*ENOENT/);
});

t.test("task leases: instance id, lease and claim poll from env and file, with bounds", async (t) => {
  const d = loadConfig({});
  t.match(d.tasks, { instanceId: "", leaseMs: 15_000, claimPollMs: 1000 });
  const c = loadConfig({ OMNIGATE_INSTANCE_ID: "gw-2", OMNIGATE_TASK_LEASE_MS: "2500", OMNIGATE_TASK_POLL_MS: "200" });
  t.match(c.tasks, { instanceId: "gw-2", leaseMs: 2500, claimPollMs: 200 });
  const file = path.join(tempDir(), "c.json");
  writeFileSync(file, JSON.stringify({ tasks: { leaseMs: 3000, claimPollMs: 100 } }));
  t.match(loadConfig({ OMNIGATE_CONFIG: file }).tasks, { leaseMs: 3000, claimPollMs: 100, instanceId: "" });
  t.throws(() => loadConfig({ OMNIGATE_TASK_LEASE_MS: "100" }), { name: "ConfigError", message: /OMNIGATE_TASK_LEASE_MS .*at least 300/ });
  t.throws(() => loadConfig({ OMNIGATE_TASK_POLL_MS: "0" }), { name: "ConfigError", message: /OMNIGATE_TASK_POLL_MS .*at least 10/ });
  t.throws(() => loadConfig({ OMNIGATE_INSTANCE_ID: "a b" }), { name: "ConfigError", message: /OMNIGATE_INSTANCE_ID/ });
});

t.test("connection caps and timeouts: defaults, environment, file", async (t) => {
  const d = loadConfig({});
  t.same([d.headersTimeoutMs, d.requestTimeoutMs, d.keepAliveTimeoutMs, d.grpcIdleTimeoutMs], [30_000, 300_000, 72_000, 72_000]);
  t.same([d.maxConnections, d.grpcMaxSessions], [defaultMaxConnections(), defaultGrpcMaxSessions()], "the caps follow the open-file limit");
  const e = loadConfig({
    OMNIGATE_MAX_CONNECTIONS: "500",
    OMNIGATE_HEADERS_TIMEOUT_MS: "1000",
    OMNIGATE_REQUEST_TIMEOUT_MS: "0",
    OMNIGATE_KEEP_ALIVE_TIMEOUT_MS: "5000",
    OMNIGATE_GRPC_MAX_SESSIONS: "50",
    OMNIGATE_GRPC_IDLE_TIMEOUT_MS: "0",
  });
  t.same([e.maxConnections, e.headersTimeoutMs, e.requestTimeoutMs, e.keepAliveTimeoutMs, e.grpcMaxSessions, e.grpcIdleTimeoutMs], [500, 1000, 0, 5000, 50, 0]);
  const f = path.join(tempDir(), "c.json");
  writeFileSync(f, JSON.stringify({ maxConnections: 64, grpcMaxSessions: 8, requestTimeoutMs: 60_000 }));
  t.match(loadConfig({ OMNIGATE_CONFIG: f }), { maxConnections: 64, grpcMaxSessions: 8, requestTimeoutMs: 60_000 });
  t.throws(() => loadConfig({ OMNIGATE_MAX_CONNECTIONS: "0" }), /OMNIGATE_MAX_CONNECTIONS \("0"\): expected at least 1/);
  t.throws(() => loadConfig({ OMNIGATE_KEEP_ALIVE_TIMEOUT_MS: "0" }), /OMNIGATE_KEEP_ALIVE_TIMEOUT_MS/, "fastify takes 0 as its own default");

  const limits = (soft: string) => `Limit                     Soft Limit           Hard Limit           Units     \nMax open files            ${soft}                20000                files     \n`;
  t.equal(
    openFileLimit(() => limits("20000")),
    20_000,
  );
  t.equal(
    openFileLimit(() => limits("unlimited")),
    undefined,
  );
  t.equal(
    openFileLimit(() => {
      throw new Error("ENOENT");
    }),
    undefined,
    "no /proc (macOS)",
  );
  t.same(
    [20_000, 1024, 1_048_576, 1, undefined].map((n) => defaultMaxConnections(n)),
    [10_000, 512, 10_000, 1, 10_000],
  );
  t.same(
    [20_000, 1024, 1_048_576, 1, undefined].map((n) => defaultGrpcMaxSessions(n)),
    [1_000, 51, 1_000, 1, 1_000],
  );
});

t.test("an openai channel's api: chat by default, responses on request, only on openai channels", async (t) => {
  const channels = (extra: object) => JSON.stringify([{ name: "a", provider: "openai", baseUrl: "http://up.example/v1", models: ["gpt-5*"], ...extra }]);
  t.equal(loadConfig({ OMNIGATE_CHANNELS: channels({}) }).channels[0]!.api, undefined);
  t.equal(loadConfig({ OMNIGATE_CHANNELS: channels({ api: "responses" }) }).channels[0]!.api, "responses");
  t.equal(loadConfig({ OMNIGATE_CHANNELS: channels({ api: "chat" }) }).channels[0]!.api, "chat");
  t.throws(() => loadConfig({ OMNIGATE_CHANNELS: channels({ api: "graphql" }) }), { name: "ConfigError", message: /channels\.0\.api/ });
  t.throws(() => loadConfig({ OMNIGATE_CHANNELS: channels({ provider: "gemini", api: "responses" }) }), { name: "ConfigError", message: /channels\.0\.api: only an openai channel/ });
});
