// A Messages client that goes away mid-stream: the upstream request is
// aborted, the key's concurrency slot is released, and the call's usage is
// recorded as canceled.
import t from "tap";
import Anthropic from "@anthropic-ai/sdk";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { AdminService } from "../../../gen/omnigate/admin/v1/admin_pb.js";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";
import { sseChunks, startFakeUpstream } from "../../fixtures/fake-upstream.js";

/** One Anthropic channel serving "gateway-chat" from the fake upstream. */
const onlyChannel = (baseUrl: string) => ({ name: "only", provider: "anthropic" as const, baseUrl, apiKey: "k", models: ["gateway-chat"], modelMap: {}, priority: 0, weight: 1, enabled: true });

/** Starts a stream and leaves it at its first content block; resolves once the upstream request was aborted. */
async function leaveMidStream(c: Anthropic, up: { nextAbort(): Promise<unknown> }) {
  const aborted = up.nextAbort();
  const ac = new AbortController();
  const stream = await c.messages.create({ model: "gateway-chat", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }] }, { signal: ac.signal });
  await (async () => {
    for await (const e of stream) if (e.type === "content_block_start") ac.abort();
  })().catch(() => undefined);
  await aborted;
}

t.test("a client that disconnects mid-stream frees its slot and is recorded as canceled", async (t) => {
  let slow = true;
  const up = await startFakeUpstream(() => ({ chunks: sseChunks("anthropic/stream-tool-use.sse"), chunkDelayMs: slow ? 300 : 0 }));
  const server = await startServer({
    config: { channels: [onlyChannel(up.url)] },
  });
  t.teardown(async () => {
    await server.close();
    await up.close();
  });
  const admin = createClient(AdminService, createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" }));
  const key = await admin.createKey({ key: { name: "one-at-a-time", limits: { concurrentRequests: 1 } } }, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  const c = new Anthropic({ baseURL: server.baseUrl, apiKey: key.secret, maxRetries: 0 });

  await leaveMidStream(c, up);
  t.equal(up.aborted, 1, "the upstream request was aborted");

  slow = false;
  let rows: { status: string }[] = [];
  for (let i = 0; i < 200 && rows.length < 1; i++) {
    await new Promise((r) => setTimeout(r, 10));
    rows = (await server.deps.storage.usage.query({ keyId: key.key!.id })).rows;
  }
  t.same(
    rows.map((r) => r.status),
    ["canceled"],
    "the abandoned call is recorded as canceled",
  );
  const next = await c.messages.stream({ model: "gateway-chat", max_tokens: 100, messages: [{ role: "user", content: "again" }] }).finalMessage();
  t.equal(next.type, "message", "the key's one concurrency slot is free again");
});

t.test("a client that gives up on a non-streaming call aborts the upstream request", async (t) => {
  const up = await startFakeUpstream(() => ({
    json: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [{ type: "text", text: "late" }], stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 1 } },
    delayMs: 3000,
  }));
  const server = await startServer({
    config: { channels: [onlyChannel(up.url)] },
  });
  t.teardown(async () => {
    await server.close();
    await up.close();
  });
  const c = new Anthropic({ baseURL: server.baseUrl, apiKey: ADMIN_KEY, maxRetries: 0 });
  const aborted = up.nextAbort();
  const ac = new AbortController();
  const call = c.messages.create({ model: "gateway-chat", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }, { signal: ac.signal });
  setTimeout(() => ac.abort(), 200);
  await t.rejects(call);
  const started = Date.now();
  await aborted;
  t.ok(Date.now() - started < 2500, "the upstream request was aborted before the upstream answered");
  t.equal(up.aborted, 1);
});

/** The request loggers' warnings, kept instead of written (the server logs at warn). */
function captureWarnings(server: TestServer) {
  const warnings: string[] = [];
  const log = server.app.log;
  const child = log.child.bind(log);
  log.child = (bindings, opts) => {
    const c = child(bindings, opts);
    c.warn = ((...x: unknown[]) => void warnings.push(String(x.find((v) => typeof v === "string")))) as typeof c.warn;
    return c;
  };
  return warnings;
}

t.test("a stream the client left is not a warning; a stream the upstream broke after the 200 is", async (t) => {
  let breakIt = false;
  const up = await startFakeUpstream(() => ({ chunks: sseChunks("anthropic/stream-tool-use.sse"), chunkDelayMs: breakIt ? 0 : 200, ...(breakIt ? { breakAfter: 2 } : {}) }));
  const server = await startServer({ config: { channels: [onlyChannel(up.url)], logLevel: "warn" } });
  t.teardown(async () => {
    await server.close();
    await up.close();
  });
  const warnings = captureWarnings(server);
  const c = new Anthropic({ baseURL: server.baseUrl, apiKey: ADMIN_KEY, maxRetries: 0 });

  await leaveMidStream(c, up);
  await new Promise((r) => setTimeout(r, 100));
  t.same(warnings, [], "the client's own cancel logs no warning");

  breakIt = true;
  const broken = c.messages.stream({ model: "gateway-chat", max_tokens: 100, messages: [{ role: "user", content: "again" }] });
  await t.rejects(broken.finalMessage(), "the client sees the error frame");
  for (let i = 0; i < 100 && !warnings.length; i++) await new Promise((r) => setTimeout(r, 10));
  t.same(warnings, ["messages stream failed after the 200"], "an upstream that broke mid-stream is a warning");
});
