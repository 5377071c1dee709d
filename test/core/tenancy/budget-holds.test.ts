// Budgets hold whatever the request leaves out and whatever the upstream
// answers: images and videos are priced after their model's defaults apply, a
// key with a budget is checked even for a call priced at 0, and a chat call
// can never be charged past what it reserved.
import t from "tap";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { AdminService } from "../../../gen/omnigate/admin/v1/admin_pb.js";
import { ChatService, Role } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { ErrorDetailSchema } from "../../../gen/omnigate/common/v1/common_pb.js";
import { VideoService } from "../../../gen/omnigate/video/v1/video_pb.js";
import type { PriceTable } from "../../../src/core/tenancy/prices.js";
import { startFakeUpstream } from "../../fixtures/fake-upstream.js";
import { ADMIN_KEY, ONE_ATTEMPT, startServer, testChannel, type TestServer } from "../../helpers/app.js";

const bearer = (k: string) => ({ headers: { authorization: `Bearer ${k}` } });
const prices = (p: Partial<PriceTable>): PriceTable => ({ chat: [], images: [], imageBot: {}, video: [], ...p });

function admin(server: TestServer) {
  return createClient(AdminService, createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" }));
}
async function newKey(server: TestServer, budget: number) {
  const res = await admin(server).createKey({ key: { name: "budgeted", budget } }, bearer(ADMIN_KEY));
  return { id: res.key!.id, secret: res.secret };
}
const spentOf = async (server: TestServer, id: string) => (await admin(server).getKey({ id }, bearer(ADMIN_KEY))).key!.spent;

async function post(server: TestServer, path: string, key: string, body: unknown) {
  const res = await fetch(server.baseUrl + path, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}

t.test("images: a price keyed on size holds for requests that leave the size out", async (t) => {
  const server = await startServer({ config: { prices: prices({ images: [{ model: "dall-e-2", size: "1024x1024", perImage: 1 }] }) } });
  t.teardown(() => server.close());
  const k = await newKey(server, 10);
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => post(server, "/v1/images/generations", k.secret, { model: "dall-e-2", prompt: `cat ${i}`, response_format: "b64_json" })));
  t.equal(results.filter((r) => r.status === 200).length, 10, "the budget's worth was served");
  t.ok(
    results.filter((r) => r.status !== 200).every((r) => r.status === 403 && r.body.error.code === "budget_exhausted"),
    "the rest were refused as over budget",
  );
  t.equal(await spentOf(server, k.id), 10, "spent equals the budget");
});

t.test("images: a price keyed on quality charges the default quality", async (t) => {
  const server = await startServer({ config: { prices: prices({ images: [{ model: "dall-e-2", quality: "standard", perImage: 1 }] }) } });
  t.teardown(() => server.close());
  const k = await newKey(server, 10);
  const results = await Promise.all(
    Array.from({ length: 100 }, (_, i) => post(server, "/v1/images/generations", k.secret, { model: "dall-e-2", prompt: `dog ${i}`, size: "256x256", response_format: "b64_json" })),
  );
  t.equal(results.filter((r) => r.status === 200).length, 10);
  t.equal(await spentOf(server, k.id), 10, "every image served was charged");
});

t.test("images: an 'auto' size reserves the dearest size the model makes, and the default model is priced", async (t) => {
  const server = await startServer({
    config: {
      prices: prices({
        images: [
          { model: "gpt-image-1", size: "1536x1024", perImage: 5 },
          { model: "gpt-image-1", perImage: 2 },
          { model: "IMG_MODEL_A", perImage: 3 },
        ],
      }),
    },
  });
  t.teardown(() => server.close());
  const k = await newKey(server, 6);
  const first = await post(server, "/v1/images/generations", k.secret, { model: "gpt-image-1", prompt: "a boat", quality: "low", response_format: "b64_json" });
  t.equal(first.status, 200);
  t.equal(await spentOf(server, k.id), 2, "settled at the size made (1024x1024)");
  const second = await post(server, "/v1/images/generations", k.secret, { model: "gpt-image-1", prompt: "a boat", quality: "low", response_format: "b64_json" });
  t.not(second.status, 200, "4 left is less than the 5 an 'auto' size may cost");
  const unnamed = await post(server, "/v1/images/generations", k.secret, { prompt: "a boat", size: "256x256", response_format: "b64_json" });
  t.equal(unnamed.status, 200, "no model: the default profile");
  t.equal(await spentOf(server, k.id), 5, "and its price");
});

t.test("a key whose budget is used up gets nothing, even what is priced at 0", async (t) => {
  const server = await startServer({ config: { prices: prices({ images: [{ model: "dall-e-2", perImage: 1 }] }) } });
  t.teardown(() => server.close());
  const k = await newKey(server, 1);
  t.equal((await post(server, "/v1/images/generations", k.secret, { model: "dall-e-2", prompt: "a", size: "256x256", response_format: "b64_json" })).status, 200);
  const free = await post(server, "/v1/images/generations", k.secret, { model: "dall-e-3", prompt: "a", response_format: "b64_json" });
  t.equal(free.status, 403, "an unpriced image");
  t.match(free.body.error, { code: "budget_exhausted" });
  const chat = createClient(ChatService, createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" }));
  const input = { model: "local-chat", turns: [{ role: Role.USER, parts: [{ kind: { case: "text" as const, value: { text: "hi" } } }] }] };
  const err = await chat.generate({ input }, bearer(k.secret)).catch((e: unknown) => ConnectError.from(e));
  t.equal((err as ConnectError).code, Code.PermissionDenied, "an unpriced chat model");
  t.equal((err as ConnectError).findDetails(ErrorDetailSchema)[0]?.reason, "budget_exhausted");
  const unlimited = await newKey(server, 0);
  t.ok((await chat.generate({ input }, bearer(unlimited.secret))).candidates.length, "a key without a budget is not checked");
});

t.test("videos: a request without model or duration is priced at the defaults", async (t) => {
  const server = await startServer({ config: { prices: prices({ video: [{ model: "sora-2", perSecond: 1 }] }) } });
  t.teardown(() => server.close());
  const k = await newKey(server, 10);
  const videos = createClient(VideoService, createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "1.1" }));
  const results = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      videos.createVideo({ prompt: `a wave ${i}` }, bearer(k.secret)).then(
        (r) => r.video?.duration,
        (e: unknown) => ConnectError.from(e).code,
      ),
    ),
  );
  t.same(
    results.filter((r) => r === 4),
    [4, 4],
    "two 4-second videos fit a budget of 10",
  );
  t.equal(results.filter((r) => r === Code.PermissionDenied).length, 4, "the rest are over budget");
  t.equal(await spentOf(server, k.id), 8);
});

t.test("chat: 200 concurrent calls without an output limit against an upstream that ignores it", async (t) => {
  // The upstream answers 9,000 output tokens whatever it is asked for.
  const gemini = await startFakeUpstream(() => ({
    json: {
      candidates: [{ content: { role: "model", parts: [{ text: "long" }] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 9000, totalTokenCount: 9004 },
    },
  }));
  const server = await startServer({
    config: {
      upstream: ONE_ATTEMPT,
      channels: [testChannel("g", "gemini", gemini.url, ["gemini-x"])],
      prices: prices({ chat: [{ model: "gemini-x", input: 0, output: 1_000_000, request: 0 }] }),
    },
  });
  t.teardown(async () => {
    await server.close();
    await gemini.close();
  });
  const k = await newKey(server, 50_000);
  const call = (i: number) =>
    fetch(`${server.baseUrl}/v1beta/models/gemini-x:generateContent`, {
      method: "POST",
      headers: { "x-goog-api-key": k.secret, "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: `question ${i}` }] }] }),
    }).then((r) => r.status);
  const statuses = await Promise.all(Array.from({ length: 200 }, (_, i) => call(i)));
  const served = statuses.filter((s) => s === 200).length;
  t.equal(served, 12, "as many calls as 4,096-token reservations fit in the budget");
  t.ok(
    statuses.every((s) => s === 200 || s === 403),
    "the rest are refused as over budget",
  );
  const spent = await spentOf(server, k.id);
  t.ok(spent <= 50_000, `spent ${spent} stays within the budget`);
  t.equal(spent, 12 * 4096, "each call is charged what it reserved, not the 9,000 reported");
  t.ok(
    gemini.requests.every((r) => r.body.generationConfig?.maxOutputTokens === 4096),
    "the upstream was asked for no more than the reservation",
  );

  const free = await newKey(server, 0);
  gemini.requests.length = 0;
  await fetch(`${server.baseUrl}/v1beta/models/gemini-x:generateContent`, {
    method: "POST",
    headers: { "x-goog-api-key": free.secret, "content-type": "application/json" },
    body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "no budget" }] }] }),
  });
  t.equal(gemini.requests[0]!.body.generationConfig?.maxOutputTokens, undefined, "a key without a budget keeps the upstream's default limit");
});
