// Web search through /v1/responses with the openai SDK: Codex's web_search
// tool reaches a fake Anthropic upstream as web_search_20250305 and a fake
// Gemini upstream as googleSearch; their searches come back as web_search_call
// items, whole and streamed with their events. The local engine leaves a
// declared search out and refuses a forced one with OpenAI's 400.
import t, { type Test } from "tap";
import OpenAI from "openai";
import type { ChannelConfig } from "../../../src/config.js";
import { ADMIN_KEY, ONE_ATTEMPT, startServer, testChannel, type TestServer } from "../../helpers/app.js";
import { startFakeUpstream, type FakeUpstream } from "../../fixtures/fake-upstream.js";

const anthropicSse = (event: string, data: object) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const geminiSse = (data: object) => `data: ${JSON.stringify(data)}\r\n\r\n`;
const chan = (name: string, provider: ChannelConfig["provider"], url: string, model: string) => testChannel(name, provider, url, [model]);

// ---------------------------------------------------------------- Anthropic's answer

const use = { type: "server_tool_use", id: "srvtoolu_01A", name: "web_search", input: { query: "omnigate gateway" } };
const result = {
  type: "web_search_tool_result",
  tool_use_id: "srvtoolu_01A",
  content: [{ type: "web_search_result", url: "https://example.com/omnigate", title: "Omnigate", encrypted_content: "EqgfCioIARgB", page_age: null }],
};
const citation = { type: "web_search_result_location", url: "https://example.com/omnigate", title: "Omnigate", cited_text: "an AI gateway", encrypted_index: "Eo8BCioIAhgB" };
const message = {
  id: "msg_01Search",
  type: "message",
  role: "assistant",
  model: "claude-up",
  content: [use, result, { type: "text", text: "Omnigate is an AI gateway.", citations: [citation] }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 20, output_tokens: 9, server_tool_use: { web_search_requests: 1 } },
};
const messageEvents = [
  anthropicSse("message_start", { type: "message_start", message: { ...message, content: [], stop_reason: null, usage: { input_tokens: 20, output_tokens: 1 } } }),
  anthropicSse("content_block_start", { type: "content_block_start", index: 0, content_block: { ...use, input: {} } }),
  anthropicSse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"query": "omnigate' } }),
  anthropicSse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: ' gateway"}' } }),
  anthropicSse("content_block_stop", { type: "content_block_stop", index: 0 }),
  anthropicSse("content_block_start", { type: "content_block_start", index: 1, content_block: result }),
  anthropicSse("content_block_stop", { type: "content_block_stop", index: 1 }),
  anthropicSse("content_block_start", { type: "content_block_start", index: 2, content_block: { type: "text", text: "" } }),
  anthropicSse("content_block_delta", { type: "content_block_delta", index: 2, delta: { type: "citations_delta", citation } }),
  anthropicSse("content_block_delta", { type: "content_block_delta", index: 2, delta: { type: "text_delta", text: "Omnigate is an AI gateway." } }),
  anthropicSse("content_block_stop", { type: "content_block_stop", index: 2 }),
  anthropicSse("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 9 } }),
  anthropicSse("message_stop", { type: "message_stop" }),
];

// ---------------------------------------------------------------- Gemini's answer

const grounding = {
  webSearchQueries: ["omnigate gateway", "omnigate ai"],
  groundingChunks: [{ web: { uri: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/A", title: "example.com" } }],
  groundingSupports: [{ segment: { startIndex: 0, endIndex: 26, text: "Omnigate is an AI gateway." }, groundingChunkIndices: [0] }],
  searchEntryPoint: { renderedContent: "<div></div>" },
};
const geminiAnswer = {
  candidates: [{ content: { role: "model", parts: [{ text: "Omnigate is an AI gateway." }] }, finishReason: "STOP", index: 0, groundingMetadata: grounding }],
  usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 7, totalTokenCount: 15 },
  modelVersion: "gemini-up",
  responseId: "r-1",
};
const geminiChunks = [
  geminiSse({ candidates: [{ content: { role: "model", parts: [{ text: "Omnigate is " }] }, index: 0 }], modelVersion: "gemini-up", responseId: "r-1" }),
  geminiSse({ ...geminiAnswer, candidates: [{ ...geminiAnswer.candidates[0], content: { role: "model", parts: [{ text: "an AI gateway." }] } }] }),
];

// ---------------------------------------------------------------- the gateway

let server: TestServer;
let anthropic: FakeUpstream;
let gemini: FakeUpstream;

t.before(async () => {
  anthropic = await startFakeUpstream((r) => (r.body?.stream ? { chunks: messageEvents } : { json: message }));
  gemini = await startFakeUpstream((r) => (r.path.endsWith(":streamGenerateContent") ? { chunks: geminiChunks } : { json: geminiAnswer }));
  server = await startServer({
    config: {
      upstream: ONE_ATTEMPT,
      channels: [chan("a", "anthropic", anthropic.url, "claude-x"), chan("g", "gemini", gemini.url, "gemini-x")],
      local: { chatModels: ["local-x"] },
    } as never,
  });
});
t.teardown(async () => {
  await server?.close();
  await Promise.all([anthropic?.close(), gemini?.close()]);
});

const client = () => new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: ADMIN_KEY, maxRetries: 0 });

/** Codex's request: a developer message, the prompt, its function and web search tools. */
const codexBody = (model: string) => ({
  model,
  input: [
    { type: "message" as const, role: "developer" as const, content: [{ type: "input_text" as const, text: "You are Codex." }] },
    { type: "message" as const, role: "user" as const, content: [{ type: "input_text" as const, text: "What is omnigate? Search the web." }] },
  ],
  tools: [
    { type: "function" as const, name: "exec_command", parameters: { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] }, strict: false },
    { type: "web_search", external_web_access: true, search_content_types: ["text", "image"] } as never,
  ],
  tool_choice: "auto" as const,
  store: false,
  include: ["reasoning.encrypted_content" as const],
});

const ANTHROPIC_ITEM = { type: "web_search_call", status: "completed", action: { type: "search", query: "omnigate gateway", sources: [{ type: "url", url: "https://example.com/omnigate" }] } };
const GEMINI_ITEM = {
  type: "web_search_call",
  status: "completed",
  action: {
    type: "search",
    query: "omnigate gateway",
    queries: ["omnigate gateway", "omnigate ai"],
    sources: [{ type: "url", url: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/A" }],
  },
};

/** The stream's events in order, and the final Response. */
async function streamed(body: object) {
  const types: string[] = [];
  const events: any[] = [];
  const stream = client().responses.stream(body as never);
  stream.on("event", (e) => {
    types.push(e.type);
    events.push(e);
  });
  const final = await stream.finalResponse();
  return { types, events, final };
}

/** Checks a streamed search item: added, in_progress, searching, completed, done, in that order, before the message. */
function checkSearchEvents(t: Test, events: any[], item: object): void {
  const mine = events.filter((e) => e.item_id?.startsWith("ws_") || e.item?.type === "web_search_call");
  t.same(
    mine.map((e) => e.type),
    ["response.output_item.added", "response.web_search_call.in_progress", "response.web_search_call.searching", "response.web_search_call.completed", "response.output_item.done"],
    "the search's events, in order",
  );
  t.match(mine[0].item, { type: "web_search_call", status: "in_progress", action: { type: "search" } });
  t.match(mine.at(-1).item, item, "output_item.done carries the whole item");
}

t.test("Anthropic: web_search goes up as web_search_20250305; the search comes back as a web_search_call item", async (t) => {
  const r = await client().responses.create(codexBody("claude-x"));
  const sent = anthropic.requests.at(-1)!.body;
  t.same(
    sent.tools.map((x: any) => x.type ?? "custom"),
    ["custom", "web_search_20250305"],
  );
  t.same(sent.tools[1], { type: "web_search_20250305", name: "web_search" }, "Codex's OpenAI-only fields are not sent");
  t.same(
    r.output.map((o) => o.type),
    ["web_search_call", "message"],
  );
  t.match(r.output[0], { ...ANTHROPIC_ITEM, id: /^ws_/ });
  t.match((r.output[1] as any).content[0], {
    type: "output_text",
    text: "Omnigate is an AI gateway.",
    annotations: [{ type: "url_citation", url: "https://example.com/omnigate", title: "Omnigate" }],
  });
  t.equal(r.output_text, "Omnigate is an AI gateway.");

  const s = await streamed({ ...codexBody("claude-x"), stream: true });
  t.equal(anthropic.requests.at(-1)!.body.stream, true);
  checkSearchEvents(t, s.events, ANTHROPIC_ITEM);
  t.ok(s.types.indexOf("response.web_search_call.completed") < s.types.indexOf("response.output_text.delta"), "the search comes before the answer's text");
  t.same(
    s.final.output.map((o) => o.type),
    ["web_search_call", "message"],
  );
  t.match(s.final.output[0], ANTHROPIC_ITEM);

  // Codex sends the item back with the next turn: left out, the conversation goes on.
  await client().responses.create({
    ...codexBody("claude-x"),
    input: [
      ...codexBody("claude-x").input,
      r.output[0] as never,
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Omnigate is an AI gateway.", annotations: [] }] } as never,
      { type: "message", role: "user", content: "More?" },
    ],
  });
  t.same(
    anthropic.requests.at(-1)!.body.messages.map((m: any) => m.role),
    ["user", "assistant", "user"],
  );

  const forced = await client().responses.create({ ...codexBody("claude-x"), tool_choice: { type: "web_search_preview" } });
  t.equal(forced.status, "completed");
  t.same(anthropic.requests.at(-1)!.body.tool_choice, { type: "tool", name: "web_search" }, "a forced search: Anthropic's tool choice");
});

t.test("Gemini: web_search goes up as googleSearch; grounding comes back as a web_search_call item", async (t) => {
  // A client with the search alone (Codex's every turn adds functions: see below).
  const body = { ...codexBody("gemini-x"), tools: [{ type: "web_search_preview" as const, search_context_size: "low" as const }] };
  const r = await client().responses.create(body);
  t.same(gemini.requests.at(-1)!.body.tools, [{ googleSearch: {} }]);
  t.equal(gemini.requests.at(-1)!.body.toolConfig, undefined, "no calling mode: Gemini refuses one without functions");
  t.same(
    r.output.map((o) => o.type),
    ["web_search_call", "message"],
  );
  t.match(r.output[0], { ...GEMINI_ITEM, id: /^ws_/ });
  t.match((r.output[1] as any).content[0].annotations, [
    { type: "url_citation", start_index: 0, end_index: 26, url: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/A", title: "example.com" },
  ]);

  const s = await streamed({ ...body, stream: true });
  t.match(gemini.requests.at(-1)!.path, /:streamGenerateContent$/);
  t.same(gemini.requests.at(-1)!.body.tools, [{ googleSearch: {} }]);
  checkSearchEvents(t, s.events, GEMINI_ITEM);
  t.same(
    s.final.output.map((o) => o.type),
    ["message", "web_search_call"],
    "streamed, the grounding comes after the text it grounds",
  );
  t.match((s.final.output[0] as any).content[0].annotations, [{ type: "url_citation", url: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/A" }]);

  const codex = await client().responses.create(codexBody("gemini-x"));
  t.equal(codex.status, "completed", "Codex's turn (functions and the search) keeps working");
  t.same(
    gemini.requests.at(-1)!.body.tools.map((x: object) => Object.keys(x)[0]),
    ["functionDeclarations"],
    "beside functions the search is left out (generateContent combines them only on newer models, with server-side tool history)",
  );
  await client().responses.create({ ...codexBody("gemini-x"), tool_choice: { type: "web_search" } as never });
  t.same(gemini.requests.at(-1)!.body.tools, [{ googleSearch: {} }], "a forced search goes alone");
});

t.test("the local engine: a declared web search is left out, a forced one is OpenAI's 400", async (t) => {
  const r = await client().responses.create(codexBody("local-x"));
  t.equal(r.status, "completed", "Codex's every turn keeps working");
  t.equal(r.output.at(-1)!.type, "message");
  t.notOk(
    r.output.some((o) => o.type === "web_search_call"),
    "no search",
  );
  const s = await streamed({ ...codexBody("local-x"), stream: true });
  t.equal(s.final.status, "completed");

  for (const stream of [false, true]) {
    const res = await fetch(`${server.baseUrl}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ ...codexBody("local-x"), tool_choice: { type: "web_search_preview" }, stream }),
    });
    t.equal(res.status, 400, `forced (stream: ${stream}): a 400`);
    const body = (await res.json()) as { error: Record<string, unknown> };
    t.match(
      body,
      { error: { type: "invalid_request_error", param: "tool_choice", code: "unsupported_parameter", message: /a tool choice that forces web search is not supported/ } },
      "in OpenAI's error shape",
    );
  }
  const sdk = await client()
    .responses.create({ ...codexBody("local-x"), tool_choice: "required", tools: [{ type: "web_search" }] })
    .catch((e: unknown) => e);
  t.ok(sdk instanceof OpenAI.BadRequestError, "required with only the search: the SDK's BadRequestError");
  t.equal((sdk as InstanceType<typeof OpenAI.BadRequestError>).param, "tool_choice");
});
