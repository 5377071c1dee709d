// The HTTP edge of POST /v1/responses on a small app (the facade alone, the
// local engine behind a stand-in chat client): the key before the body,
// OpenAI's 400, 404 and 429 shapes, a unary answer, a stream in the B.6
// order, sealed reasoning carried over a tool call, and the fields the
// gateway does not serve yet.
import t from "tap";
import Fastify, { type FastifyInstance } from "fastify";
import type { ChatInput, ChatService } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { Principal, CallInit } from "../../../src/core/call/call.js";
import type { CoreClient } from "../../../src/core/call/service.js";
import type { CoreClients } from "../../../src/core/routes.js";
import type { Authenticator } from "../../../src/core/auth/authenticator.js";
import { Code, coreError } from "../../../src/core/errors.js";
import { openaiResponsesFacade } from "../../../src/facades/openai-responses/plugin.js";
import type { FacadeDeps } from "../../../src/facades/shared/options.js";
import { localChatProvider } from "../../../src/providers/local/chat/provider.js";

const KEY = "sk-test-responses";
const principal: Principal = { keyId: "k1", name: "t", admin: true, formats: [], models: [], limits: {} as never, budget: 0 };
const auth: Authenticator = {
  verify: async (s) => (s === KEY ? principal : undefined),
  cached: (s) => (s === KEY ? principal : null),
  invalidate: () => undefined,
};

/** What the stand-in chat client was last called with. */
const seen: { input?: ChatInput; call?: CallInit } = {};
const local = localChatProvider({ signingSecret: "local-secret" });
const check = (input: ChatInput | undefined, call: CallInit): ChatInput => {
  seen.input = input;
  seen.call = call;
  if (input!.model === "no-such-model") throw coreError(Code.NotFound, "model not found", { reason: "model_not_found", field: "model" });
  return input!;
};
const ctx = (call: CallInit) => ({ signal: call.signal, requestId: call.requestId, upstreamModel: "local" });
const chat = {
  generate: async (req, call) => local.generate(check(req.input as ChatInput, call), ctx(call)),
  streamGenerate: (req, call) => ({
    async *[Symbol.asyncIterator]() {
      yield* local.stream(check(req.input as ChatInput, call), ctx(call));
    },
  }),
} as Partial<CoreClient<typeof ChatService>> as CoreClient<typeof ChatService>;

/** A store that keeps nothing: saves succeed, and no previous response exists. */
const saved: string[] = [];
const responses = {
  saveResponse: async (req: { id: string }) => {
    saved.push(req.id);
    return {};
  },
  getContext: async (req: { id: string }) => {
    throw coreError(Code.NotFound, `Response with id '${req.id}' not found.`, { reason: "response_not_found", field: "id" });
  },
};

let app: FastifyInstance;
t.before(async () => {
  app = Fastify();
  const deps: FacadeDeps = {
    core: { clients: { chat, responses } as unknown as CoreClients },
    auth,
    config: { bodyLimitBytes: 1 << 20, fileMaxBytes: 1 << 20, publicUrl: undefined } as FacadeDeps["config"],
    sealSecret: "seal-secret",
    now: () => 1_764_000_000_000,
  };
  await app.register(openaiResponsesFacade, { deps, openaiUnknownUrl: () => ({ status: 404, body: {} }) });
  await app.ready();
});
t.teardown(() => app.close());

async function post(body: unknown, headers: Record<string, string> = {}) {
  const res = await app.inject({
    method: "POST",
    url: "/v1/responses",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", ...headers },
    payload: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.statusCode, headers: res.headers, text: res.payload, json: () => JSON.parse(res.payload) as any };
}

/** The events of an SSE body: each `event:` line's name and its data. */
function events(text: string): { event: string; data: any }[] {
  return text
    .split("\n\n")
    .filter((f) => f.startsWith("event:"))
    .map((f) => {
      const [head, data] = f.split("\n");
      return { event: head!.slice("event: ".length), data: JSON.parse(data!.slice("data: ".length)) };
    });
}

t.test("the key is checked before the body", async (t) => {
  const wrong = await post("{not json", { authorization: "Bearer sk-wrong" });
  t.equal(wrong.status, 401);
  t.same(wrong.json(), {
    error: { message: "Incorrect API key provided. You can find your API key in the gateway's admin console.", type: "invalid_request_error", param: null, code: "invalid_api_key" },
  });
  const none = await post({ model: "m", input: "hi" }, { authorization: "" });
  t.equal(none.status, 401);
  t.match(none.json().error, { message: /^You didn't provide an API key/, code: "invalid_api_key" });
  t.ok(none.headers["x-request-id"], "x-request-id, as OpenAI sends it");
});

t.test("bodies that are not JSON objects", async (t) => {
  for (const [what, body, headers] of [
    ["invalid JSON", "{oops", {}],
    ["an array", "[1]", {}],
    ["text/plain", JSON.stringify({ model: "m", input: "x" }), { "content-type": "text/plain" }],
  ] as const) {
    const r = await post(body, headers);
    t.equal(r.status, 400, what);
    t.match(r.json(), { error: { message: /^We could not parse the JSON body of your request/, type: "invalid_request_error", param: null, code: null } }, what);
  }
});

t.test("validation errors name the field as OpenAI does", async (t) => {
  const cases: [unknown, Record<string, unknown>][] = [
    [{ input: "x" }, { message: "Missing required parameter: 'model'.", param: "model", code: "missing_required_parameter" }],
    [
      { model: "m", input: [{ role: "tool", content: "x" }] },
      { message: "Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and 'user'.", param: "input[0].role", code: "invalid_value" },
    ],
    [
      { model: "m", input: [{ type: "function_call", name: "f", arguments: "{}" }] },
      { message: "Missing required parameter: 'input[0].call_id'.", param: "input[0].call_id" },
    ],
    [
      { model: "m", input: [{ role: "user", content: [{ type: "input_text" }] }] },
      { param: "input[0].content[0].text", code: "missing_required_parameter" },
    ],
    [
      { model: "m", input: "x", max_output_tokens: 5 },
      { message: "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 5 instead.", param: "max_output_tokens" },
    ],
    [
      { model: "m", input: "x", tools: [{ type: "function", name: "has space" }] },
      { param: "tools[0].name", code: "invalid_value" },
    ],
    [
      { model: "m", input: "x", text: { format: { type: "json_schema", schema: {} } } },
      { message: "Missing required parameter: 'text.format.name'.", param: "text.format.name" },
    ],
    [
      {
        model: "m",
        input: [
          { role: "user", content: "x" },
          { type: "function_call_output", call_id: "call_1", output: "ok" },
        ],
      },
      { message: "No tool call found for function call output with call_id call_1.", param: "input" },
    ],
    [
      { model: "m", input: "x", tools: [{ type: "file_search", vector_store_ids: ["vs_1"] }] },
      { message: /the file_search tool is not supported when the model is served by a local upstream/, param: "tools[0]", code: "unsupported_parameter" },
    ],
    [
      { model: "m", input: "x", background: true, store: false },
      { message: "Background mode requires store=true.", param: "store" },
    ],
    [{ model: "m", input: "x", conversation: "conv_1" }, { param: "conversation" }],
    [
      { model: "m", input: [{ type: "reasoning", summary: [], encrypted_content: "og1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }] },
      { param: "input[0].encrypted_content", code: "invalid_encrypted_content" },
    ],
  ];
  for (const [body, want] of cases) {
    const r = await post(body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.match(r.json().error, { type: "invalid_request_error", ...want }, JSON.stringify(body));
  }
});

t.test("core errors: an unknown model is a 404, a rate limit a 429 with retry-after", async (t) => {
  const nf = await post({ model: "no-such-model", input: "hi" });
  t.equal(nf.status, 404);
  t.same(nf.json(), { error: { message: "The model `no-such-model` does not exist or you do not have access to it.", type: "invalid_request_error", param: null, code: "model_not_found" } });
  const rl = await post({ model: "m", input: "hi #fault:rate_limit" });
  t.equal(rl.status, 429);
  t.equal(rl.headers["retry-after"], "1");
  t.match(rl.json().error, { type: "requests", code: "rate_limit_exceeded" });
  const down = await post({ model: "m", input: "hi #fault:overloaded", stream: true });
  t.equal(down.status, 503, "a stream's early failure keeps its status");
  t.match(down.json().error, { type: "server_error" });
  const prev = await post({ model: "m", input: "hi", previous_response_id: "resp_unknown" });
  t.equal(prev.status, 404);
  t.same(prev.json(), { error: { message: "Previous response with id 'resp_unknown' not found.", type: "invalid_request_error", param: "previous_response_id", code: "previous_response_not_found" } });
});

t.test("a unary answer from the local engine, with Codex's fields and headers", async (t) => {
  const r = await post(
    {
      model: "gpt-5.5",
      instructions: "be brief",
      input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "Say hello" }], id: "msg_1" }, { type: "brand_new_item" }],
      store: false,
      client_metadata: { x: 1 },
      prompt_cache_key: "thread-1",
      tools: [
        { type: "web_search", external_web_access: true },
        { type: "tool_search", execution: "client" },
      ],
    },
    { "x-codex-turn-state": "ts-1" },
  );
  t.equal(r.status, 200, r.text);
  t.equal(r.headers["x-codex-turn-state"], "ts-1", "the turn state comes back");
  t.ok(r.headers["x-request-id"]);
  const body = r.json();
  t.match(body, { object: "response", status: "completed", model: "gpt-5.5", instructions: "be brief", store: false, created_at: 1_764_000_000, error: null });
  t.match(body.id, /^resp_[0-9a-f]{48}$/);
  t.equal(body.output.at(-1).type, "message");
  t.match(body.output.at(-1).content[0], { type: "output_text", text: /\S/ });
  t.match(body.usage, { input_tokens: Number, output_tokens: Number, total_tokens: Number, input_tokens_details: { cached_tokens: 0 } });
  t.equal(seen.call?.format, "openai-responses", "keys are scoped by this format");
  t.same(
    seen.input?.tools.map((x) => x.kind.case),
    ["webSearch"],
    "web_search is the neutral web search (the local engine leaves it out); tool_search is left out",
  );
});

t.test("a streamed answer: the B.6 events in order, numbered from 0", async (t) => {
  const r = await post({ model: "m", input: "Say hello", stream: true });
  t.equal(r.status, 200);
  t.match(r.headers["content-type"], /^text\/event-stream/);
  const ev = events(r.text);
  const names = ev.map((e) => e.event);
  t.same(names.slice(0, 5), ["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added", "response.output_text.delta"]);
  t.same(names.slice(-4), ["response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"]);
  t.same(
    ev.map((e) => e.data.sequence_number),
    ev.map((_, i) => i),
  );
  t.ok(
    ev.every((e) => e.data.type === e.event),
    "each event's data names its type",
  );
  const done = ev.at(-1)!.data.response;
  t.match(done, { status: "completed", output: [{ type: "message", status: "completed" }], usage: { total_tokens: Number } });
  const mid = events((await post({ model: "m", input: "Say hello #fault:midstream", stream: true })).text);
  t.equal(mid.at(-1)!.event, "response.failed", "a failure after the 200 is response.failed");
  t.match(mid.at(-1)!.data.response, { status: "failed", error: { code: "server_error" } });
});

t.test("sealed reasoning carried over a tool call, back to the same engine", async (t) => {
  const tools = [{ type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false }];
  const first = await post({ model: "m", input: "Use get_weather for Paris", tools, reasoning: { effort: "medium" }, include: ["reasoning.encrypted_content"], store: false });
  t.equal(first.status, 200, first.text);
  const out = first.json().output as any[];
  const rs = out.find((i) => i.type === "reasoning");
  const fc = out.find((i) => i.type === "function_call");
  t.ok(rs, "a reasoning item");
  t.match(rs.encrypted_content, /^og1\./, "its parts sealed");
  t.match(fc, { type: "function_call", name: "get_weather", call_id: String });
  const input = [{ role: "user", content: "Use get_weather for Paris" }, ...out, { type: "function_call_output", call_id: fc.call_id, output: '{"temp":21}' }];
  const second = await post({ model: "m", input, tools, reasoning: { effort: "medium" }, include: ["reasoning.encrypted_content"], store: false });
  t.equal(second.status, 200, second.text);
  t.match(
    seen.input?.turns[1]?.parts.map((p) => p.kind.case),
    ["thinking", "toolCall"],
    "the thinking went back, signed",
  );
  const altered = input.map((i) => (i === rs ? { ...rs, encrypted_content: rs.encrypted_content.slice(0, -2) + "xx" } : i));
  const bad = await post({ model: "m", input: altered, tools });
  t.equal(bad.status, 400);
  t.match(bad.json().error, { code: "invalid_encrypted_content" });
});
