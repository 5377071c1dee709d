// Streamed image calls are priced, reserved and settled like unary ones: a key
// with a small budget cannot overdraw it with concurrent streams, an 'auto'
// size reserves the dearest size and is charged the size made, a stream that
// fails before its result costs nothing, and a remote Connect caller of
// StreamGenerateImages meets the same meter.
import t from "tap";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { AdminService } from "../../../gen/omnigate/admin/v1/admin_pb.js";
import { ImageService } from "../../../gen/omnigate/image/v1/image_pb.js";
import type { PriceTable } from "../../../src/core/tenancy/prices.js";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";
import { startFakeUpstream, UPSTREAM_KEY } from "../../providers/openai-images/fake-upstream.js";

const bearer = (k: string) => ({ headers: { authorization: `Bearer ${k}` } });
const prices = (p: Partial<PriceTable>): PriceTable => ({ chat: [], images: [], imageBot: {}, video: [], ...p });
const admin = (server: TestServer) => createClient(AdminService, createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" }));

async function newKey(server: TestServer, budget: number) {
  const res = await admin(server).createKey({ key: { name: "budgeted", budget } }, bearer(ADMIN_KEY));
  return { id: res.key!.id, secret: res.secret };
}
const spentOf = async (server: TestServer, id: string) => (await admin(server).getKey({ id }, bearer(ADMIN_KEY))).key!.spent;

/** A streamed generation over raw HTTP: its status, and its SSE events (or JSON error body). */
async function stream(server: TestServer, key: string, body: Record<string, unknown>) {
  const res = await fetch(server.baseUrl + "/v1/images/generations", {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ stream: true, ...body }),
  });
  const text = await res.text();
  if (!res.headers.get("content-type")?.startsWith("text/event-stream")) return { status: res.status, events: [] as string[], error: JSON.parse(text).error as { code: string } };
  const events: EventSourceMessage[] = [];
  createParser({ onEvent: (e) => events.push(e) }).feed(text);
  return { status: res.status, events: events.map((e) => e.event ?? ""), error: undefined };
}

t.test("a key with a budget of 3 gets 3 streamed images out of 8 concurrent streams, and pays 3", async (t) => {
  const server = await startServer({ config: { prices: prices({ images: [{ model: "gpt-image-1", perImage: 1 }] }) } });
  t.teardown(() => server.close());
  const k = await newKey(server, 3);
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) => stream(server, k.secret, { model: "gpt-image-1", prompt: `boat ${i}`, size: "1024x1024", quality: "low", partial_images: 1 })));
  const served = results.filter((r) => r.status === 200);
  t.equal(served.length, 3, "the budget's worth was served");
  for (const r of served) t.same(r.events, ["image_generation.partial_image", "image_generation.completed"]);
  t.ok(
    results.filter((r) => r.status !== 200).every((r) => r.status === 403 && r.error?.code === "budget_exhausted"),
    "the rest were refused before their stream began",
  );
  t.equal(await spentOf(server, k.id), 3, "spent equals the budget");
});

t.test("an 'auto' size reserves the dearest size and is charged the size made; a remote caller is metered alike", async (t) => {
  const server = await startServer({
    config: {
      prices: prices({
        images: [
          { model: "gpt-image-1", size: "1536x1024", perImage: 5 },
          { model: "gpt-image-1", perImage: 2 },
        ],
      }),
    },
  });
  t.teardown(() => server.close());
  const k = await newKey(server, 8);
  const first = await stream(server, k.secret, { model: "gpt-image-1", prompt: "a boat", quality: "low" });
  t.equal(first.status, 200);
  t.equal(await spentOf(server, k.id), 2, "settled at the size made (1024x1024)");

  const images = createClient(ImageService, createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" }));
  const kinds: string[] = [];
  for await (const m of images.streamGenerateImages({ prompt: "a boat", options: { model: "gpt-image-1", quality: "low" }, partialImages: 2 }, bearer(k.secret))) kinds.push(m.event.case ?? "");
  t.same(kinds, ["partialImage", "partialImage", "batch"]);
  t.equal(await spentOf(server, k.id), 4, "the Connect stream paid its image too");

  const third = await stream(server, k.secret, { model: "gpt-image-1", prompt: "a boat", quality: "low" });
  t.equal(third.status, 403, "4 left is less than the 5 an 'auto' size may cost");
  t.equal(await spentOf(server, k.id), 4);
});

t.test("a stream that fails before its result is refunded", async (t) => {
  const fake = await startFakeUpstream();
  t.teardown(() => fake.close());
  const server = await startServer({
    config: {
      prices: prices({ images: [{ model: "*", perImage: 1 }] }),
      images: { aliases: { "gpt-image-1": "IMG_MODEL_C", "stream-error": "IMG_MODEL_C" }, urlTtlMs: 3_600_000, sweepIntervalMs: 60_000 },
      channels: [{ name: "up", provider: "openai", baseUrl: fake.url + "/v1", apiKey: UPSTREAM_KEY, models: ["stream-error"], modelMap: {}, priority: 0, weight: 1, enabled: true }],
    } as never,
  });
  t.teardown(() => server.close());
  const k = await newKey(server, 1);
  const broken = await stream(server, k.secret, { model: "stream-error", prompt: "x", size: "1024x1024", partial_images: 1 });
  t.equal(broken.status, 200);
  t.same(broken.events, ["image_generation.partial_image", "error"], "a preview, then the failure");
  t.equal(await spentOf(server, k.id), 0, "nothing charged");
  const ok = await stream(server, k.secret, { model: "gpt-image-1", prompt: "x", size: "1024x1024", quality: "low" });
  t.same(ok.events, ["image_generation.completed"], "the whole budget is still there");
  t.equal(await spentOf(server, k.id), 1);
  const rows = (await server.deps.storage.usage.query({ keyId: k.id })).rows;
  t.same(rows.map((r) => r.status).sort(), ["error:14", "ok"], "one failed call (Unavailable), one served");
});
