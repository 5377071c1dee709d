// Stored responses in the assembled gateway: the service is bound in
// buildCore (reached here over Connect, as a remote core caller would), the
// tables are migrated, the retention comes from the config, and the sweeper
// is part of the app's deps.
import t from "tap";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { StoredResponseService } from "../../gen/omnigate/response/v1/response_pb.js";
import { ConfigError, loadConfig } from "../../src/config.js";
import { ADMIN_KEY, startServer, tempDir, type TestServer } from "../helpers/app.js";

let server: TestServer;
t.before(async () => {
  server = await startServer({ config: { responses: { retentionDays: 2, maxBytes: 4096, background: { concurrency: 4, queueSize: 100, timeoutMs: 60_000 } } } });
});
t.teardown(() => server?.close());

t.test("the core serves StoredResponseService", async (t) => {
  const client = createClient(StoredResponseService, createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" }));
  const headers = { authorization: `Bearer ${ADMIN_KEY}` };
  const saved = await client.saveResponse(
    { id: "resp_wired", model: "m", status: "completed", response: { id: "resp_wired", ok: true }, input: [{ role: "user", content: "hi" }], output: [] },
    { headers },
  );
  t.equal(timestampMs(saved.response!.expireTime!) - timestampMs(saved.response!.createTime!), 2 * 86_400_000, "responses.retentionDays");
  t.same((await client.getResponse({ id: "resp_wired" }, { headers })).response?.response, { id: "resp_wired", ok: true });
  t.equal((await client.getContext({ id: "resp_wired" }, { headers })).items.length, 1);
  await t.rejects(
    client.saveResponse({ id: "resp_big", model: "m", status: "completed", response: { text: "x".repeat(5000) }, input: [], output: [] }, { headers }),
    /at most 4096 bytes/,
    "responses.maxBytes",
  );
  const http = await fetch(`${server.baseUrl}/v1/responses/resp_wired/input_items`, { headers });
  t.equal(http.status, 200, "the facade serves the stored-response routes");
  t.match(await http.json(), { object: "list", data: [{ role: "user", content: "hi", id: /^msg_/ }], has_more: false });
  t.ok((await server.deps.storage.migrations()).includes(6), "migration 6");
  t.equal(await server.deps.responseSweeper.runOnce(), 0, "the sweeper runs");
});

t.test("config: defaults and the environment", async (t) => {
  t.same(loadConfig({}).responses, { retentionDays: 30, maxBytes: 32 * 1024 * 1024, background: { concurrency: 64, queueSize: 10_000, timeoutMs: 3_600_000 } });
  const file = (doc: unknown) => {
    const f = path.join(tempDir(), "omnigate.json");
    writeFileSync(f, JSON.stringify(doc));
    return { OMNIGATE_CONFIG: f };
  };
  t.same(loadConfig(file({ responses: { background: { concurrency: 2 } } })).responses.background, { concurrency: 2, queueSize: 10_000, timeoutMs: 3_600_000 });
  t.throws(() => loadConfig(file({ responses: { background: { queueSize: 0 } } })), /responses\.background\.queueSize/);
  t.equal(loadConfig({ OMNIGATE_RESPONSE_RETENTION_DAYS: "7" }).responses.retentionDays, 7);
  t.throws(() => loadConfig({ OMNIGATE_RESPONSE_RETENTION_DAYS: "0" }), ConfigError);
});
