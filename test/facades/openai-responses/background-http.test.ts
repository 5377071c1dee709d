// background: true on /v1/responses in the assembled gateway, over HTTP: a
// queued answer polled to the same output a foreground call gives, a stream
// left midway and resumed by sequence number, cancel of a stalled generation
// (its upstream request aborted), previous_response_id on a finished one,
// another key's 404, store:false refused, and a restart on the same SQLite
// file taking the task over.
import t from "tap";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ADMIN_KEY, ONE_ATTEMPT, startServer, tempDir, testChannel, type TestServer } from "../../helpers/app.js";

/** A fake OpenAI Chat Completions upstream: streams "Hel", then waits for `release()` before "lo" and the end. */
function stallingUpstream() {
  const deferred = () => {
    let resolve = () => {};
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve };
  };
  let gate = deferred();
  const state = { requests: 0, aborted: 0, release: () => gate.resolve(), reset: () => (gate = deferred()) };
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "up", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    state.requests++;
    req.resume();
    res.on("close", () => {
      if (!res.writableFinished) state.aborted++;
    });
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(chunk({ role: "assistant", content: "Hel" }));
    void gate.promise.then(() => {
      if (res.destroyed) return;
      res.write(chunk({ content: "lo" }) + chunk({}, "stop"));
      res.end(
        `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "up", choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } })}\n\ndata: [DONE]\n\n`,
      );
    });
  });
  return { server, state };
}

const up = stallingUpstream();
let server: TestServer;
let otherKey = "";
let budgetKey = "";

/** One credit a token on the stalling upstream's models. */
const PRICES = { chat: [{ model: "stall-*", input: 1_000_000, output: 1_000_000 }] };

function config(port: number) {
  return { channels: [testChannel("stall", "openai", `http://127.0.0.1:${port}/v1`, ["stall-*"])], local: { chatModels: ["gpt-*"] }, upstream: ONE_ATTEMPT, prices: PRICES } as never;
}

t.before(async () => {
  await new Promise<void>((r) => up.server.listen(0, "127.0.0.1", r));
  server = await startServer({ config: config((up.server.address() as AddressInfo).port) });
  const res = await fetch(`${server.baseUrl}/omnigate.admin.v1.AdminService/CreateKey`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ key: { name: "other" } }),
  });
  otherKey = ((await res.json()) as { secret: string }).secret;
  const budgeted = await fetch(`${server.baseUrl}/omnigate.admin.v1.AdminService/CreateKey`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ key: { name: "budget", budget: 100_000 } }),
  });
  budgetKey = ((await budgeted.json()) as { secret: string }).secret;
});
t.teardown(async () => {
  up.state.release();
  await server?.close();
  up.server.closeAllConnections();
  up.server.close();
});

async function call(base: string, method: string, path: string, body?: unknown, key = ADMIN_KEY) {
  const res = await fetch(`${base}/v1/responses${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith("{") ? (JSON.parse(text) as any) : text };
}

async function until(base: string, id: string, done: (r: any) => boolean, key = ADMIN_KEY): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const r = await call(base, "GET", `/${id}`, undefined, key);
    if (done(r.body)) return r.body;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`response ${id} did not get there`);
}

const finished = (r: any) => !["queued", "in_progress"].includes(r.status);

/** Parses SSE text into events. */
function events(text: string): any[] {
  return text
    .split("\n\n")
    .map((block) => block.split("\n").find((l) => l.startsWith("data: ")))
    .filter((l): l is string => !!l)
    .map((l) => JSON.parse(l.slice(6)));
}

/** An output without the ids that name its response. */
const shape = (output: any[]) => output.map(({ id: _id, ...rest }: any) => rest);

t.test("unary: queued at once, polled to completed with the output a foreground call gives", async (t) => {
  const body = { model: "gpt-5", input: "Say something about otters." };
  const queued = await call(server.baseUrl, "POST", "", { ...body, background: true });
  t.equal(queued.status, 200);
  t.match(queued.body, { object: "response", status: "queued", background: true, output: [], usage: null });
  const done = await until(server.baseUrl, queued.body.id, finished);
  const fore = await call(server.baseUrl, "POST", "", body);
  t.equal(done.status, "completed");
  t.equal(done.background, true);
  t.ok(done.output.length > 0 && done.output.at(-1).content[0].text.length > 0, "it has an answer");
  t.same(shape(done.output), shape(fore.body.output), "the same output as a foreground call");
  t.same(done.usage, fore.body.usage);
  t.same((await call(server.baseUrl, "GET", `/${done.id}`)).body, done, "saved finished: read again alike");
  // Metered like a foreground call of the format, under the response's id.
  for (let i = 0; i < 50; i++) {
    const { rows } = await server.deps.storage.usage.query({ format: "openai-responses", limit: 1000 });
    const rec = rows.find((r) => r.requestId === done.id);
    if (rec) {
      t.match(rec, { model: "gpt-5", status: "ok", inputTokens: done.usage.input_tokens, outputTokens: done.usage.output_tokens });
      break;
    }
    if (i === 49) t.fail("no usage record of the background call");
    await new Promise((r) => setTimeout(r, 20));
  }
  const items = await call(server.baseUrl, "GET", `/${done.id}/input_items`);
  t.match(items.body.data, [{ type: "message", role: "user", content: [{ type: "input_text", text: body.input }] }]);

  const next = await call(server.baseUrl, "POST", "", { model: "gpt-5", previous_response_id: done.id, input: "And again?" });
  t.equal(next.status, 200, "previous_response_id continues a finished background response");
  const ctx = await call(server.baseUrl, "POST", "/input_tokens", { model: "gpt-5", previous_response_id: done.id, input: "x" });
  t.ok(ctx.body.input_tokens > 10, "its context holds the first turn");

  t.equal((await call(server.baseUrl, "GET", `/${done.id}`, undefined, otherKey)).status, 404, "another key's is a 404");
  t.equal((await call(server.baseUrl, "POST", `/${done.id}/cancel`, {}, otherKey)).status, 404);
  t.equal((await call(server.baseUrl, "GET", `/${done.id}?stream=true`, undefined, otherKey)).status, 404);
  const again = await call(server.baseUrl, "POST", `/${done.id}/cancel`, {});
  t.equal(again.status, 400, "a completed response cannot be cancelled, as OpenAI answers");
  t.same(again.body, { error: { message: "Cannot cancel a completed response.", type: "invalid_request_error", param: null, code: null } });
  t.same((await call(server.baseUrl, "GET", `/${done.id}`)).body, done, "and it stays as it was");

  const unknown = await call(server.baseUrl, "POST", "", { model: "nope-1", input: "x", background: true });
  t.equal(unknown.status, 404, "a model nothing serves is refused at once");
  t.match(unknown.body.error, { code: "model_not_found", message: "The model `nope-1` does not exist or you do not have access to it." });

  const refused = await call(server.baseUrl, "POST", "", { ...body, background: true, store: false });
  t.equal(refused.status, 400);
  t.match(refused.body.error, { param: "store", type: "invalid_request_error" });
  const fg = await call(server.baseUrl, "GET", `/${fore.body.id}?stream=true`);
  t.equal(fg.status, 400, "a foreground response cannot be streamed again");
  t.equal((await call(server.baseUrl, "POST", `/${fore.body.id}/cancel`, {})).status, 400);
});

t.test("previous_response_id on a background response that finished unread renders and saves it first", async (t) => {
  const first = await call(server.baseUrl, "POST", "", { model: "gpt-5", input: "Name a colour.", background: true });
  const id = first.body.id;
  for (let i = 0; i < 200 && (await server.deps.tasks.runner.get(id))?.run.status !== "SUCCESS"; i++) await new Promise((r) => setTimeout(r, 10));
  const next = await call(server.baseUrl, "POST", "", { model: "gpt-5", previous_response_id: id, input: "And another one." });
  t.equal(next.status, 200);
  t.equal(next.body.previous_response_id, id);
  const got = await call(server.baseUrl, "GET", `/${id}`);
  t.equal(got.body.status, "completed", "the follow-up saved it finished");
  t.ok(got.body.output.length > 0);
  const alone = await call(server.baseUrl, "POST", "", { model: "gpt-5", input: "And another one.", store: false });
  t.ok(next.body.usage.input_tokens > alone.body.usage.input_tokens, "the follow-up's input holds the first turn");
});

t.test("streamed: the client leaves midway, the generation goes on, a resumed stream continues the numbering", async (t) => {
  up.state.reset();
  const ac = new AbortController();
  const res = await fetch(`${server.baseUrl}/v1/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "stall-1", input: "Hi", background: true, stream: true }),
    signal: ac.signal,
  });
  t.equal(res.status, 200);
  const reader = res.body!.getReader();
  let text = "";
  while (!text.includes("response.output_text.delta")) text += new TextDecoder().decode((await reader.read()).value);
  ac.abort();
  const seen = events(text.slice(0, text.lastIndexOf("\n\n") + 2));
  t.match(
    seen.map((e) => e.type),
    ["response.created", "response.queued", "response.in_progress", "response.output_item.added", "response.content_part.added", "response.output_text.delta"],
  );
  t.same(
    seen.map((e) => e.sequence_number),
    seen.map((_, i) => i),
  );
  t.match(seen[0].response, { status: "queued", background: true });
  const id = seen[0].response.id;
  t.equal((await call(server.baseUrl, "GET", `/${id}`)).body.status, "in_progress", "it runs on without the client");

  up.state.release();
  const last = seen.at(-1).sequence_number;
  const resumed = await call(server.baseUrl, "GET", `/${id}?stream=true&starting_after=${last}`);
  t.equal(resumed.status, 200);
  const rest = events(resumed.body);
  t.same(
    rest.map((e) => e.sequence_number),
    rest.map((_, i) => last + 1 + i),
    "numbered on from where the client left",
  );
  t.equal(rest.at(-1).type, "response.completed");
  const final = rest.at(-1).response;
  t.match(final.output[0].content[0], { type: "output_text", text: "Hello" });
  t.same((await call(server.baseUrl, "GET", `/${id}`)).body, final, "GET gives the streamed final Response");

  const whole = events((await call(server.baseUrl, "GET", `/${id}?stream=true`)).body);
  t.same(whole.slice(0, seen.length), seen, "a replay from the start gives the same events");
  t.equal(whole.length, seen.length + rest.length);
});

t.test("cancel: a stalled generation stops, its upstream request is aborted, it reads cancelled, the key pays what it used", async (t) => {
  up.state.reset();
  const aborted = up.state.aborted;
  const queued = await call(server.baseUrl, "POST", "", { model: "stall-1", input: "Hi", background: true }, budgetKey);
  const id = queued.body.id;
  await until(server.baseUrl, id, (r) => r.status === "in_progress", budgetKey);
  const requests = up.state.requests;
  // The upstream has sent its first chunk when the stream is under way; wait for it to be read.
  await new Promise((r) => setTimeout(r, 50));
  const cancelled = await call(server.baseUrl, "POST", `/${id}/cancel`, {}, budgetKey);
  t.equal(cancelled.status, 200);
  t.match(cancelled.body, { id, status: "cancelled", background: true, error: null });
  t.match(cancelled.body.output, [{ type: "message", status: "incomplete", content: [{ text: "Hel" }] }], "with what it had produced");
  for (let i = 0; i < 100 && up.state.aborted === aborted; i++) await new Promise((r) => setTimeout(r, 10));
  t.equal(up.state.aborted, aborted + 1, "the upstream request was aborted");
  t.equal(up.state.requests, requests, "and not made again");
  t.same((await call(server.baseUrl, "GET", `/${id}`, undefined, budgetKey)).body, cancelled.body);
  const again = await call(server.baseUrl, "POST", `/${id}/cancel`, {}, budgetKey);
  t.same(again.body, cancelled.body, "a second cancel answers the same");
  const follow = await call(server.baseUrl, "POST", "", { model: "gpt-5", previous_response_id: id, input: "go on" }, budgetKey);
  t.equal(follow.status, 200, "a cancelled response can be continued");

  // The call settled as canceled: charged for what it used, the rest of its reservation (4096 output tokens) given back.
  let rec: any;
  for (let i = 0; i < 50 && !rec; i++) {
    rec = (await server.deps.storage.usage.query({ format: "openai-responses", limit: 1000 })).rows.find((r) => r.requestId === id);
    if (!rec) await new Promise((r) => setTimeout(r, 20));
  }
  t.match(rec, { model: "stall-1", status: "canceled" });
  t.ok(rec.credits > 0 && rec.credits < 100, `charged ${rec.credits} credits`);
  const keys = await server.deps.storage.keys.list();
  const spent = keys.find((k) => k.name === "budget")!.spent;
  t.ok(spent >= rec.credits && spent < 4096, `the key's spend (${spent}) holds no reservation`);
  up.state.release();
});

t.test("a stream of a response that gets cancelled ends after its last event, with no terminal event", async (t) => {
  up.state.reset();
  const queued = await call(server.baseUrl, "POST", "", { model: "stall-2", input: "Hi", background: true });
  const id = queued.body.id;
  await until(server.baseUrl, id, (r) => r.status === "in_progress");
  const watching = fetch(`${server.baseUrl}/v1/responses/${id}?stream=true`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } }).then((r) => r.text());
  await new Promise((r) => setTimeout(r, 50));
  t.equal((await call(server.baseUrl, "POST", `/${id}/cancel`, {})).status, 200);
  const seen = events(await watching);
  t.match(seen.slice(0, 2), [{ type: "response.created" }, { type: "response.queued" }]);
  t.ok(
    seen.some((e) => e.type === "response.output_text.delta" && e.delta === "Hel"),
    "it had the text so far",
  );
  t.notOk(
    seen.some((e) => /^response\.(completed|failed|incomplete)$/.test(e.type)),
    "and no terminal event",
  );
  t.equal((await call(server.baseUrl, "GET", `/${id}`)).body.status, "cancelled");
  up.state.release();
});

t.test("responses.background: its concurrency and queue size are the configuration's; past them a create is a 429", async (t) => {
  up.state.reset();
  const small = await startServer({ config: { ...(config((up.server.address() as AddressInfo).port) as object), responses: { background: { concurrency: 1, queueSize: 1 } } } as never });
  t.teardown(() => small.close());
  const running = await call(small.baseUrl, "POST", "", { model: "stall-3", input: "Hi", background: true });
  await until(small.baseUrl, running.body.id, (r) => r.status === "in_progress");
  const waiting = await call(small.baseUrl, "POST", "", { model: "stall-3", input: "Hi", background: true });
  t.equal(waiting.status, 200);
  t.equal((await call(small.baseUrl, "GET", `/${waiting.body.id}`)).body.status, "queued", "the second waits for the one slot");
  const res = await fetch(`${small.baseUrl}/v1/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "stall-3", input: "Hi", background: true }),
  });
  t.equal(res.status, 429, "the third finds the line full");
  t.ok(Number(res.headers.get("retry-after")) > 0, "with retry-after");
  t.match(await res.json(), { error: { type: "requests", code: "rate_limit_exceeded" } });
  up.state.release();
  t.equal((await until(small.baseUrl, waiting.body.id, finished)).status, "completed", "the one that waited runs once the slot is free");
});

t.test("restart: a background response left running is taken over by the next start and completes", async (t) => {
  up.state.reset();
  const dir = tempDir();
  const port = (up.server.address() as AddressInfo).port;
  const first = await startServer({ dataDir: dir, keepDataDir: true, config: config(port) });
  const requests = up.state.requests;
  const queued = await call(first.baseUrl, "POST", "", { model: "stall-1", input: "Hi", background: true });
  const id = queued.body.id;
  await until(first.baseUrl, id, (r) => r.status === "in_progress");
  await first.close();
  t.equal(up.state.requests, requests + 1);
  up.state.release();

  const second = await startServer({ dataDir: dir, config: config(port) });
  t.teardown(() => second.close());
  const done = await until(second.baseUrl, id, finished);
  t.equal(done.status, "completed", "run again from the start by the new instance");
  t.equal(up.state.requests, requests + 2, "its upstream call was made again");
  t.match(done.output[0].content[0], { text: "Hello" });
});
