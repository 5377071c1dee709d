// Issue 8: every wire format x (no key, wrong key, wrong scope, budget used
// up, rate limited), answered in that format's own shape, with the official
// SDK's error class where one exists.
import t, { type Test } from "tap";

import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { ADMIN_KEY, startServer, type TestServer } from "../helpers/app.js";

let server: TestServer;
const keys: Record<string, string> = {};

async function createKey(key: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${server.baseUrl}/omnigate.admin.v1.AdminService/CreateKey`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ key: { name: "t", ...key } }),
  });
  const body = (await res.json()) as { secret: string };
  return body.secret;
}

t.before(async () => {
  server = await startServer({
    config: {
      prices: { chat: [{ model: "priced-*", input: 0, output: 0, request: 1 }], images: [{ model: "dall-e-2", perImage: 1 }], imageBot: { "*": 1 }, video: [{ model: "priced-video", perSecond: 1 }] },
    },
  });
  keys.wrongScope = await createKey({ formats: ["trpc"] });
  keys.poor = await createKey({ budget: 0.5 });
  for (const f of ["messages", "gemini", "images", "imagebot", "video"]) keys[`limited-${f}`] = await createKey({ limits: { requestsPerMinute: 1 } });
});
t.teardown(() => server?.close());

const raw = (path: string, init: RequestInit = {}) => fetch(server.baseUrl + path, init);

/** The SDK's own error class (instanceof, which tap's rejects does not check for these classes). */
async function rejectsWith(t: Test, p: Promise<unknown>, cls: abstract new (...a: never[]) => unknown, what: string) {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof cls, `${what}: ${cls.name}`, { found: err instanceof Error ? err.message : err });
}

t.test("messages (/v1/messages)", async (t) => {
  const client = (apiKey: string) => new Anthropic({ apiKey, baseURL: server.baseUrl, maxRetries: 0 });
  const call = (apiKey: string, model = "claude-sonnet-4-5") => client(apiKey).messages.create({ model, max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
  const none = await raw("/v1/messages", { method: "POST", headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" }, body: JSON.stringify({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }) });
  t.equal(none.status, 401);
  t.match(await none.json(), { type: "error", error: { type: "authentication_error" } });
  await rejectsWith(t, call("sk-og-wrong"), Anthropic.AuthenticationError, "AuthenticationError");
  await rejectsWith(t, call(keys.wrongScope!), Anthropic.PermissionDeniedError, "PermissionDeniedError");
  await rejectsWith(t, call(keys.poor!, "priced-claude"), Anthropic.PermissionDeniedError, "PermissionDeniedError");
  await call(keys["limited-messages"]!);
  const err = await call(keys["limited-messages"]!).catch((e: unknown) => e);
  t.type(err, Anthropic.RateLimitError);
  t.ok(Number((err as InstanceType<typeof Anthropic.RateLimitError>).headers?.get("retry-after")) >= 1, "retry-after header");
});

t.test("generate-content (/v1beta)", async (t) => {
  const call = (apiKey: string, model = "gemini-2.5-flash") => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: server.baseUrl } }).models.generateContent({ model, contents: "hi" });
  const statusOf = async (p: Promise<unknown>) => ((await p.catch((e: unknown) => e)) as { status?: number }).status;
  const none = await raw("/v1beta/models/gemini-2.5-flash:generateContent", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }] }) });
  t.equal(none.status, 401);
  t.match(await none.json(), { error: { code: 401, status: "UNAUTHENTICATED" } });
  t.equal(await statusOf(call("sk-og-wrong")), 401);
  t.equal(await statusOf(call(keys.wrongScope!)), 403);
  const poor = await raw(`/v1beta/models/priced-gemini:generateContent?key=${keys.poor}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }] }) });
  t.equal(poor.status, 403);
  t.match(await poor.json(), { error: { status: "PERMISSION_DENIED" } });
  await call(keys["limited-gemini"]!);
  t.equal(await statusOf(call(keys["limited-gemini"]!)), 429);
});

t.test("images (/v1/images)", async (t) => {
  const client = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
  const call = (apiKey: string, model = "dall-e-2") => client(apiKey).images.generate({ model, prompt: "a cat", size: "256x256", response_format: "b64_json" });
  const none = await raw("/v1/images/generations", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ prompt: "x" }) });
  t.equal(none.status, 401);
  t.match(await none.json(), { error: { message: String, type: String } });
  await rejectsWith(t, call("sk-og-wrong"), OpenAI.AuthenticationError, "AuthenticationError");
  await rejectsWith(t, call(keys.wrongScope!), OpenAI.PermissionDeniedError, "PermissionDeniedError");
  await rejectsWith(t, call(keys.poor!), OpenAI.PermissionDeniedError, "PermissionDeniedError");
  await call(keys["limited-images"]!);
  await rejectsWith(t, call(keys["limited-images"]!), OpenAI.RateLimitError, "RateLimitError");
});
