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
  for (const f of ["messages", "gemini", "responses", "images", "imagebot", "video"]) keys[`limited-${f}`] = await createKey({ limits: { requestsPerMinute: 1 } });
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
  const call = (apiKey: string, model = "claude-sonnet-4-6") => client(apiKey).messages.create({ model, max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
  const none = await raw("/v1/messages", {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }),
  });
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
  const none = await raw("/v1beta/models/gemini-2.5-flash:generateContent", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }] }),
  });
  t.equal(none.status, 401);
  t.match(await none.json(), { error: { code: 401, status: "UNAUTHENTICATED" } });
  t.equal(await statusOf(call("sk-og-wrong")), 400, "a wrong key: Google's 400 API_KEY_INVALID");
  t.equal(await statusOf(call(keys.wrongScope!)), 403);
  const poor = await raw(`/v1beta/models/priced-gemini:generateContent?key=${keys.poor}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }] }),
  });
  t.equal(poor.status, 403);
  t.match(await poor.json(), { error: { status: "PERMISSION_DENIED" } });
  await call(keys["limited-gemini"]!);
  t.equal(await statusOf(call(keys["limited-gemini"]!)), 429);
});

t.test("openai-responses (/v1/responses)", async (t) => {
  const client = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
  const call = (apiKey: string, model = "gpt-5.5") => client(apiKey).responses.create({ model, input: "hi", store: false });
  const none = await raw("/v1/responses", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", input: "hi" }) });
  t.equal(none.status, 401);
  t.match(await none.json(), { error: { type: "invalid_request_error", code: "invalid_api_key" } });
  await rejectsWith(t, call("sk-og-wrong"), OpenAI.AuthenticationError, "AuthenticationError");
  await rejectsWith(t, call(keys.wrongScope!), OpenAI.PermissionDeniedError, "PermissionDeniedError");
  await rejectsWith(t, call(keys.poor!, "priced-gpt"), OpenAI.PermissionDeniedError, "PermissionDeniedError");
  await call(keys["limited-responses"]!);
  const err = await call(keys["limited-responses"]!).catch((e: unknown) => e);
  t.type(err, OpenAI.RateLimitError);
  t.ok(Number((err as InstanceType<typeof OpenAI.RateLimitError>).headers?.get("retry-after")) >= 1, "retry-after header");
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

t.test("image-bot (/ib)", async (t) => {
  const own = { scope: await createKey({ formats: ["messages"] }), poor: await createKey({ budget: 0.5 }), limited: keys["limited-imagebot"]! };
  const submit = (key: string | null) =>
    raw("/ib/submit/imagine", { method: "POST", headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: JSON.stringify({ prompt: "a red fox" }) });
  const answer = async (key: string | null) => {
    const res = await submit(key);
    return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as { code: number; description: string; result: unknown } };
  };
  const none = await answer(null);
  t.equal(none.status, 401);
  t.match(none.body, { code: Number, description: String, result: null });
  const wrong = await answer("sk-og-wrong");
  t.equal(wrong.status, 401);
  t.match(wrong.body, { code: 21, description: String, result: null });
  const scoped = await answer(own.scope);
  t.equal(scoped.status, 403, "a key scoped to another format");
  t.match(scoped.body, { code: 21, description: /image-bot/, result: null });
  const poor = await answer(own.poor);
  t.equal(poor.status, 403, "budget used up");
  t.match(poor.body, { code: 25, description: /insufficient balance/, result: null });
  const first = await answer(own.limited);
  t.equal(first.status, 200);
  t.equal(first.body.code, 1, "the first submit is accepted");
  const limited = await answer(own.limited);
  t.equal(limited.status, 429);
  t.match(limited.body, { code: 23, description: /rate limit/, result: null });
  t.ok(Number(limited.retryAfter) >= 1, "retry-after header");
});

t.test("video (/v1/videos and /v1/video/generations)", async (t) => {
  const own = {
    scope: await createKey({ formats: ["images"] }),
    poor: await createKey({ budget: 0.5 }),
    limited: keys["limited-video"]!,
    limited2: await createKey({ limits: { requestsPerMinute: 1 } }),
  };
  const client = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
  const call = (apiKey: string, model = "local-video") =>
    client(apiKey).videos.create({ model: model as OpenAI.Videos.VideoModel, prompt: "a calico cat", seconds: "1" as OpenAI.Videos.VideoSeconds, size: "160x90" as OpenAI.Videos.VideoSize });
  const none = await raw("/v1/videos", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ prompt: "x" }) });
  t.equal(none.status, 401);
  t.match(await none.json(), { error: { type: "authentication_error", code: "invalid_api_key" } });
  await rejectsWith(t, call("sk-og-wrong"), OpenAI.AuthenticationError, "AuthenticationError");
  await rejectsWith(t, call(own.scope), OpenAI.PermissionDeniedError, "PermissionDeniedError (scope)");
  await rejectsWith(t, call(own.poor, "priced-video"), OpenAI.PermissionDeniedError, "PermissionDeniedError (budget)");
  const made = await call(own.limited);
  t.equal(made.seconds, "1");
  const err = await call(own.limited).catch((e: unknown) => e);
  t.type(err, OpenAI.RateLimitError);
  t.ok(Number((err as InstanceType<typeof OpenAI.RateLimitError>).headers?.get("retry-after")) >= 1, "retry-after header");

  // The same cases on /v1/video/generations, in spec 7.6's flat body.
  const gen = async (key: string | null, model = "local-video") => {
    const res = await raw("/v1/video/generations", {
      method: "POST",
      headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({ model, prompt: "a calico cat", duration: 1, size: "160x90" }),
    });
    return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as Record<string, unknown> };
  };
  const g = {
    none: await gen(null),
    wrong: await gen("sk-og-wrong"),
    scope: await gen(own.scope),
    poor: await gen(own.poor, "priced-video"),
    ok: await gen(own.limited2),
    limited: await gen(own.limited2),
  };
  t.match(g.none, { status: 401, body: { code: "invalid_api_key", type: "authentication_error", message: String, param: "" } });
  t.match(g.wrong, { status: 401, body: { code: "invalid_api_key", type: "authentication_error" } });
  t.match(g.scope, { status: 403, body: { code: "format_not_allowed", type: "permission_error" } });
  t.match(g.poor, { status: 403, body: { code: "budget_exhausted", type: "permission_error" } });
  t.match(g.ok, { status: 200, body: { status: "processing" } });
  t.match(g.limited, { status: 429, body: { type: "rate_limit_error", message: /rate limit/ } });
  t.ok(Number(g.limited.retryAfter) >= 1, "retry-after header");
  for (const r of Object.values(g)) if (r.status !== 200) t.same(Object.keys(r.body).sort(), ["code", "message", "param", "type"], `spec 7.6 body for ${r.status}`);
});
