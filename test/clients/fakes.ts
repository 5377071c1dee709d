// Scripted fake upstreams of each kind for the client suite: Anthropic
// Messages, Gemini generateContent / streamGenerateContent and an
// OpenAI-compatible Chat Completions server, all behind one gateway. Each
// fake reads a request into one vendor-neutral Ask (the last user text, the
// tools offered, a forced tool, the tool results linked to their calls by
// id, whether JSON was asked for), a Brain turns it into one Say (text or one
// tool call), and the fake answers in its own wire shape, whole or streamed
// as the request asks. Tests assert on the Asks (what reached the upstream)
// and on what the client got back.
import { startFakeUpstream, type FakeUpstream, type Recorded, type Reply } from "../fixtures/fake-upstream.js";
import { startServer, testChannel, type TestServer } from "../helpers/app.js";

export type Vendor = "anthropic" | "gemini" | "openai";
export const VENDORS: Vendor[] = ["anthropic", "gemini", "openai"];

/** What each fake is asked for: the gateway maps every client model name onto it (modelMap). */
export const UPSTREAM_MODEL: Record<Vendor, string> = { anthropic: "claude-sonnet-4-5-20250929", gemini: "gemini-2.5-pro", openai: "gpt-4.1" };
const SUFFIX: Record<Vendor, string> = { anthropic: "", gemini: "/v1beta", openai: "/v1" };

export interface ToolCallSeen {
  id?: string;
  name: string;
  args: unknown;
}

export interface ToolResultSeen {
  /** The id the result names (Anthropic tool_use_id, Gemini functionResponse.id, OpenAI tool_call_id). */
  id?: string;
  /** The name of the call in the history the result answers, found by its id; undefined when no call has that id. */
  name?: string;
  /** The result's text. */
  output: string;
}

/** A request as a fake reads it, the same for every vendor. */
export interface Ask {
  vendor: Vendor;
  model: string;
  stream: boolean;
  system: string;
  /** The last text part of the last user message that has text (tool-result-only turns are skipped). */
  lastUser: string;
  /** Names of the function tools offered. */
  tools: string[];
  /** The one tool the request forces, if any. */
  forced?: string;
  /** Tool calls in the history. */
  calls: ToolCallSeen[];
  /** Tool results in the request, in order. */
  results: ToolResultSeen[];
  /** Whether a JSON answer was asked for (a schema or JSON mode). */
  json: boolean;
  body: any;
}

export type Say = { text: string } | { call: { name: string; args: Record<string, unknown> } };
export type Brain = (ask: Ask) => Say;

export const GRACE = { name: "Grace Hopper", age: 85, tags: ["computer scientist", "rear admiral"] };
/** The arguments the default brain calls each tool with. */
const ARGS: Record<string, Record<string, unknown>> = { get_weather: { city: "Tokyo" }, weather: { city: "Tokyo" }, person: GRACE };

/** What the default brain answers plain text with. */
export const heard = (vendor: Vendor, prompt: string) => `${vendor} heard: ${prompt}`;
/** What the default brain answers a tool result with. */
export const read = (vendor: Vendor, tool: string, output: string) => `${vendor} read ${tool}: ${output}`;

/**
 * The default brain: a tool result is read back (naming the call it answers,
 * so an unlinked result shows); a forced tool, or an offered tool the prompt
 * names, is called; JSON is Grace Hopper; anything else is heard back.
 */
export const scripted: Brain = (ask) => {
  const r = ask.results.at(-1);
  if (r) return { text: read(ask.vendor, r.name ?? "an unlinked result", r.output) };
  const tool = ask.forced ?? ask.tools.find((n) => ask.lastUser.includes(n));
  if (tool) return { call: { name: tool, args: ARGS[tool] ?? {} } };
  if (ask.json) return { text: JSON.stringify(GRACE) };
  return { text: heard(ask.vendor, ask.lastUser) };
};

// ---------------------------------------------------------------------------------------------------
// Reading requests

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.flatMap((b: any) => (typeof b?.text === "string" && !b.thought ? [b.text] : [])).join("")
      : content === undefined || content === null
        ? ""
        : JSON.stringify(content);

/** The last text of a message content (a string, or the last part with text). */
const lastText = (content: unknown): string | undefined => {
  if (typeof content === "string") return content || undefined;
  if (!Array.isArray(content)) return undefined;
  const texts = content.flatMap((b: any) => (typeof b?.text === "string" && b.text && !b.thought && (b.type === undefined || b.type === "text") ? [b.text] : []));
  return texts.at(-1);
};

const lastUserOf = (messages: Array<{ role: string; content: unknown }>): string => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const t = messages[i]!.role === "user" ? lastText(messages[i]!.content) : undefined;
    if (t !== undefined) return t;
  }
  return "";
};

const linked = (calls: ToolCallSeen[], id: string | undefined) => (id === undefined ? undefined : calls.find((c) => c.id === id)?.name);

function anthropicAsk(req: Recorded): Ask {
  const b = req.body;
  const messages: Array<{ role: string; content: any }> = b.messages ?? [];
  const blocks = (role: string, type: string) => messages.flatMap((m) => (m.role === role && Array.isArray(m.content) ? m.content.filter((x: any) => x.type === type) : []));
  const calls = blocks("assistant", "tool_use").map((x: any) => ({ id: x.id, name: x.name, args: x.input }));
  return {
    vendor: "anthropic",
    model: b.model,
    stream: b.stream === true,
    system: textOf(b.system),
    lastUser: lastUserOf(messages),
    tools: (b.tools ?? []).map((x: any) => x.name),
    forced: b.tool_choice?.type === "tool" ? b.tool_choice.name : undefined,
    calls,
    results: blocks("user", "tool_result").map((x: any) => ({ id: x.tool_use_id, name: linked(calls, x.tool_use_id), output: textOf(x.content) })),
    json: !!b.output_config?.format,
    body: b,
  };
}

function geminiAsk(req: Recorded): Ask {
  const b = req.body;
  const contents: Array<{ role: string; parts: any[] }> = b.contents ?? [];
  const parts = (role: string, key: string) => contents.flatMap((c) => (c.role === role ? (c.parts ?? []).flatMap((p) => (p[key] ? [p[key]] : [])) : []));
  const calls = parts("model", "functionCall").map((f: any) => ({ id: f.id, name: f.name, args: f.args }));
  const fc = b.toolConfig?.functionCallingConfig;
  return {
    vendor: "gemini",
    model: /models\/([^:]+):/.exec(req.path)?.[1] ?? "",
    stream: req.path.endsWith(":streamGenerateContent"),
    system: textOf(b.systemInstruction?.parts),
    lastUser: lastUserOf(contents.map((c) => ({ role: c.role, content: c.parts }))),
    tools: (b.tools ?? []).flatMap((x: any) => (x.functionDeclarations ?? []).map((d: any) => d.name)),
    forced: fc?.mode === "ANY" && fc.allowedFunctionNames?.length === 1 ? fc.allowedFunctionNames[0] : undefined,
    calls,
    results: parts("user", "functionResponse").map((f: any) => {
      const name = linked(calls, f.id);
      const out = f.response?.output ?? f.response;
      // Linked only when the id names a call of the same name (Gemini matches results to calls by name too).
      return { id: f.id, name: name === f.name ? name : undefined, output: typeof out === "string" ? out : JSON.stringify(out) };
    }),
    json: b.generationConfig?.responseMimeType === "application/json",
    body: b,
  };
}

function openaiAsk(req: Recorded): Ask {
  const b = req.body;
  const messages: Array<{ role: string; content: any; tool_calls?: any[]; tool_call_id?: string }> = b.messages ?? [];
  const calls = messages.flatMap((m) => (m.tool_calls ?? []).map((c: any) => ({ id: c.id, name: c.function?.name, args: JSON.parse(c.function?.arguments || "{}") })));
  return {
    vendor: "openai",
    model: b.model,
    stream: b.stream === true,
    system: messages
      .filter((m) => m.role === "system" || m.role === "developer")
      .map((m) => textOf(m.content))
      .join("\n"),
    lastUser: lastUserOf(messages),
    tools: (b.tools ?? []).flatMap((x: any) => (x.type === "function" ? [x.function.name] : [])),
    forced: b.tool_choice?.function?.name,
    calls,
    results: messages.filter((m) => m.role === "tool").map((m) => ({ id: m.tool_call_id, name: linked(calls, m.tool_call_id), output: textOf(m.content) })),
    json: /^json_(schema|object)$/.test(b.response_format?.type ?? ""),
    body: b,
  };
}

/** A recorded request as a fake of `vendor` reads it. */
export function askOf(vendor: Vendor, req: Recorded): Ask {
  return vendor === "anthropic" ? anthropicAsk(req) : vendor === "gemini" ? geminiAsk(req) : openaiAsk(req);
}

/** Whether the request asked for JSON held to a schema, in the vendor's terms. */
export function schemaAsked(ask: Ask | undefined): boolean {
  const b = ask?.body;
  if (ask?.vendor === "anthropic") return b.output_config?.format?.type === "json_schema" && !!b.output_config.format.schema;
  if (ask?.vendor === "gemini") return b.generationConfig?.responseMimeType === "application/json" && !!(b.generationConfig.responseSchema ?? b.generationConfig.responseJsonSchema);
  return ask?.body.response_format?.type === "json_schema" && !!b.response_format.json_schema?.schema;
}

/** Whether a call id a client got is the one the fake gave (Gemini gives none: then any id the gateway made). */
export function fakeCallId(vendor: Vendor, id: string | undefined): boolean {
  return (vendor === "anthropic" ? /^toolu_fake_\d+$/ : vendor === "openai" ? /^call_fake_\d+$/ : /^\S{8,}$/).test(id ?? "");
}

/** The JSON schema of the parameters of an offered tool, wherever the vendor puts it. */
export function toolParameters(ask: Ask, name: string): any {
  const b = ask.body;
  if (ask.vendor === "anthropic") return b.tools?.find((x: any) => x.name === name)?.input_schema;
  if (ask.vendor === "openai") return b.tools?.find((x: any) => x.function?.name === name)?.function.parameters;
  const d = (b.tools ?? []).flatMap((x: any) => x.functionDeclarations ?? []).find((x: any) => x.name === name);
  return d?.parameters ?? d?.parametersJsonSchema;
}

// ---------------------------------------------------------------------------------------------------
// Answering

const sse = (event: string | undefined, data: unknown) => `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;
/** A text in pieces: word by word (at least two pieces when it has two characters). */
const pieces = (s: string): string[] => {
  const words = s.split(/(?<= )/);
  return words.length > 1 ? words : s.length > 1 ? [s.slice(0, s.length >> 1), s.slice(s.length >> 1)] : [s];
};

function anthropicReply(ask: Ask, say: Say, n: number): Reply {
  const block = "text" in say ? { type: "text", text: say.text } : { type: "tool_use", id: `toolu_fake_${n}`, name: say.call.name, input: say.call.args };
  const stop = block.type === "tool_use" ? "tool_use" : "end_turn";
  const usage = { input_tokens: 120, output_tokens: 30, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = { id: `msg_fake_${n}`, type: "message", role: "assistant", model: ask.model, content: [block], stop_reason: stop, stop_sequence: null, usage };
  if (!ask.stream) return { json: message };
  const deltas =
    "text" in say ? pieces(say.text).map((text) => ({ type: "text_delta", text })) : pieces(JSON.stringify(say.call.args)).map((partial_json) => ({ type: "input_json_delta", partial_json }));
  return {
    chunks: [
      sse("message_start", { type: "message_start", message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }),
      sse("content_block_start", { type: "content_block_start", index: 0, content_block: "text" in say ? { type: "text", text: "" } : { ...block, input: {} } }),
      ...deltas.map((delta) => sse("content_block_delta", { type: "content_block_delta", index: 0, delta })),
      sse("content_block_stop", { type: "content_block_stop", index: 0 }),
      sse("message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 30 } }),
      sse("message_stop", { type: "message_stop" }),
    ],
  };
}

function geminiReply(ask: Ask, say: Say): Reply {
  const usage = { promptTokenCount: 120, candidatesTokenCount: 30, totalTokenCount: 150 };
  // Gemini gives its calls no id: the gateway makes one.
  const parts = "text" in say ? pieces(say.text).map((text) => ({ text })) : [{ functionCall: { name: say.call.name, args: say.call.args } }];
  const answer = (ps: unknown[], last: boolean) => ({
    candidates: [{ content: { parts: ps, role: "model" }, index: 0, ...(last ? { finishReason: "STOP" } : {}) }],
    usageMetadata: last ? usage : { promptTokenCount: 120, totalTokenCount: 120 },
    modelVersion: ask.model,
    responseId: "resp-fake",
  });
  if (!ask.stream) return { json: answer("text" in say ? [{ text: say.text }] : parts, true) };
  return { chunks: parts.map((p, i) => `data: ${JSON.stringify(answer([p], i === parts.length - 1))}\r\n\r\n`) };
}

function openaiReply(ask: Ask, say: Say, n: number): Reply {
  const calls = "call" in say ? [{ id: `call_fake_${n}`, type: "function", function: { name: say.call.name, arguments: JSON.stringify(say.call.args) } }] : undefined;
  const finish = calls ? "tool_calls" : "stop";
  const usage = { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 };
  const head = { id: `chatcmpl-fake-${n}`, created: 1, model: ask.model };
  if (!ask.stream) {
    const message = { role: "assistant", content: "text" in say ? say.text : null, ...(calls ? { tool_calls: calls } : {}) };
    return { json: { ...head, object: "chat.completion", choices: [{ index: 0, message, finish_reason: finish }], usage } };
  }
  const chunk = (delta: unknown, finish_reason: string | null = null) => sse(undefined, { ...head, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason }] });
  const out = [chunk({ role: "assistant", content: "" })];
  if ("text" in say) for (const p of pieces(say.text)) out.push(chunk({ content: p }));
  for (const [index, c] of (calls ?? []).entries()) {
    const [first, ...rest] = pieces(c.function.arguments);
    out.push(chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.function.name, arguments: first } }] }));
    for (const p of rest) out.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
  }
  out.push(chunk({}, finish));
  if (ask.body.stream_options?.include_usage) out.push(sse(undefined, { ...head, object: "chat.completion.chunk", choices: [], usage }));
  out.push("data: [DONE]\n\n");
  return { chunks: out };
}

/** A fake upstream's handler: each request read, thought about and answered in `vendor`'s shape. */
export function fakeHandler(vendor: Vendor, brain: Brain = scripted): (req: Recorded, n: number) => Reply {
  return (req, n) => {
    if (req.path.endsWith("/count_tokens")) return { json: { input_tokens: 42 } };
    if (req.path.endsWith(":countTokens")) return { json: { totalTokens: 42 } };
    const ask = askOf(vendor, req);
    const say = brain(ask);
    return vendor === "anthropic" ? anthropicReply(ask, say, n) : vendor === "gemini" ? geminiReply(ask, say) : openaiReply(ask, say, n);
  };
}

// ---------------------------------------------------------------------------------------------------
// A gateway routed to them

/** A gateway in front of fake upstreams, and what each fake was asked. */
interface FakeGateway<V extends string, A> {
  server: TestServer;
  /** The gateway's base URL. */
  url: string;
  fakes: Partial<Record<V, FakeUpstream>>;
  /** The requests `vendor`'s fake got, as it read them. */
  asks(vendor: V): A[];
  /** What `run` returns, and the requests `vendor`'s fake got while it ran. */
  during<T>(vendor: V, run: () => Promise<T>): Promise<[T, A[]]>;
  close(): Promise<void>;
}

function fakeGateway<V extends string, A>(server: TestServer, fakes: Partial<Record<V, FakeUpstream>>, asks: (v: V) => A[]): FakeGateway<V, A> {
  return {
    server,
    url: server.baseUrl,
    fakes,
    asks,
    async during(v, run) {
      const from = asks(v).length;
      const out = await run();
      return [out, asks(v).slice(from)];
    },
    async close() {
      await server.close();
      await Promise.all(Object.values<FakeUpstream | undefined>(fakes).map((f) => f?.close()));
    },
  };
}

/** Chat fakes: their asks leave token counts out. */
export type FakeUpstreams = FakeGateway<Vendor, Ask>;

/** One gateway with a channel per vendor named in `models`, serving those client model names from that vendor's fake, all mapped onto UPSTREAM_MODEL. */
export async function startFakeUpstreams(models: Partial<Record<Vendor, string[]>>, brain: Brain = scripted): Promise<FakeUpstreams> {
  const vendors = Object.keys(models) as Vendor[];
  const fakes: Partial<Record<Vendor, FakeUpstream>> = {};
  for (const v of vendors) fakes[v] = await startFakeUpstream(fakeHandler(v, brain));
  const channels = vendors.map((v) => ({
    ...testChannel(`${v}-fake`, v, fakes[v]!.url + SUFFIX[v], models[v]!),
    modelMap: Object.fromEntries(models[v]!.map((m) => [m, UPSTREAM_MODEL[v]])),
  }));
  const server = await startServer({ config: { channels } as never });
  return fakeGateway(server, fakes, (v: Vendor) => (fakes[v]?.requests ?? []).filter((r) => !/count_?tokens$/i.test(r.path)).map((r) => askOf(v, r)));
}

// ---------------------------------------------------------------------------------------------------
// Embeddings
//
// Fake embedding upstreams of each kind that serves them: an OpenAI-compatible
// POST {base}/embeddings and Gemini's models/{model}:embedContent and
// :batchEmbedContents. Each answers an input with fakeVector(vendor, input,
// size), size being the dimensions (outputDimensionality) asked for or
// EMBEDDING_DEFAULT_SIZE, in values float32 holds exactly (base64 round-trips
// bit for bit). The OpenAI fake lists its vectors last first (each with its
// index), in base64 when asked, and reports fakeEmbeddingTokens; the Gemini
// fake reports no usage (as Gemini's API does) unless told to. Both refuse
// what the real ones refuse: a wrong key, a model they do not serve, an empty
// input; Gemini also a batch over 100 requests or one naming another model.

export type EmbeddingVendor = "gemini" | "openai";

/** What each embedding fake serves: the gateway maps every client model name onto it (modelMap). */
export const EMBEDDING_UPSTREAM_MODEL: Record<EmbeddingVendor, string> = { openai: "fake-embedder-v2", gemini: "gemini-embedding-001" };
/** The vector size each fake makes when none is asked for. */
export const EMBEDDING_DEFAULT_SIZE: Record<EmbeddingVendor, number> = { openai: 12, gemini: 10 };
/** Most requests in one Gemini batchEmbedContents call. */
export const GEMINI_MAX_BATCH = 100;

/** The vector a fake makes of one input (a text, or an OpenAI token array): multiples of 1/64 in [-8, 8), exact in float32. */
export function fakeVector(vendor: EmbeddingVendor, input: string | number[], size: number): number[] {
  let h = 2166136261;
  for (const ch of `${vendor}:${typeof input === "string" ? input : `[${input.join(",")}]`}`) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619) >>> 0;
  return Array.from({ length: size }, (_, j) => (((h >>> (j % 24)) + 37 * j) % 1024) / 64 - 8);
}

/** The tokens a fake reports for its inputs: 3 per input plus its length (characters or token ids). */
export const fakeEmbeddingTokens = (inputs: Array<string | number[]>): number => inputs.reduce<number>((n, x) => n + 3 + x.length, 0);

/** An embedding request as a fake reads it, the same for both vendors. */
export interface EmbeddingAsk {
  vendor: EmbeddingVendor;
  /** "embeddings" (OpenAI), "embedContent" or "batchEmbedContents" (Gemini). */
  method: string;
  /** The upstream model named: OpenAI's body.model, Gemini's path. */
  model: string;
  /** The inputs, in order (OpenAI's single string or token array as a list of one). */
  inputs: Array<string | number[]>;
  /** The vector size each input asked for (OpenAI's dimensions, Gemini's outputDimensionality), in order. */
  dimensions: Array<number | undefined>;
  /** The key it came with (OpenAI's bearer token, Gemini's x-goog-api-key). */
  key: string | undefined;
  body: any;
}

const bearer = (h: unknown) => (typeof h === "string" ? h.replace(/^Bearer\s+/i, "") : undefined);

/** OpenAI's input in list form: a string or one token array is a list of one. */
function openaiInputs(input: unknown): Array<string | number[]> {
  if (typeof input === "string") return [input];
  if (!Array.isArray(input)) return [];
  if (input.length && input.every((x) => typeof x === "number")) return [input as number[]];
  return input as Array<string | number[]>;
}

/** A recorded request as an embedding fake of `vendor` reads it. */
export function embeddingAskOf(vendor: EmbeddingVendor, req: Recorded): EmbeddingAsk {
  const b = req.body ?? {};
  if (vendor === "openai") {
    const inputs = openaiInputs(b.input);
    return { vendor, method: "embeddings", model: b.model, inputs, dimensions: inputs.map(() => b.dimensions), key: bearer(req.headers.authorization), body: b };
  }
  const m = /\/models\/([^:/]+):(\w+)$/.exec(req.path);
  const requests: any[] = m?.[2] === "batchEmbedContents" ? (b.requests ?? []) : [b];
  const text = (r: any) => (r?.content?.parts ?? []).map((p: any) => p?.text ?? "").join("");
  return {
    vendor,
    method: m?.[2] ?? "",
    model: decodeURIComponent(m?.[1] ?? ""),
    inputs: requests.map(text),
    dimensions: requests.map((r) => r?.outputDimensionality),
    key: req.headers["x-goog-api-key"] as string | undefined,
    body: b,
  };
}

export interface EmbeddingFakeOptions {
  /** The key the fake takes (the channel's). */
  key: string;
  /** Gemini only: report usageMetadata.promptTokenCount (fakeEmbeddingTokens of the request's texts). */
  usage?: boolean;
}

const openaiError = (status: number, message: string, code: string | null, param: string | null = null): Reply => ({
  status,
  json: { error: { message, type: "invalid_request_error", param, code } },
});
const geminiError = (code: number, status: string, message: string): Reply => ({ status: code, json: { error: { code, message, status } } });

/** An embedding fake's handler. */
export function fakeEmbeddingHandler(vendor: EmbeddingVendor, opts: EmbeddingFakeOptions): (req: Recorded) => Reply {
  const served = EMBEDDING_UPSTREAM_MODEL[vendor];
  if (vendor === "openai") {
    return (req) => {
      const ask = embeddingAskOf(vendor, req);
      if (ask.key !== opts.key) return openaiError(401, "Incorrect API key provided.", "invalid_api_key");
      if (req.method !== "POST" || !req.path.endsWith("/embeddings")) return openaiError(404, `Unknown request URL: ${req.method} ${req.path}`, "unknown_url");
      if (ask.model !== served) return openaiError(404, `The model \`${ask.model}\` does not exist or you do not have access to it.`, "model_not_found");
      if (!ask.inputs.length || ask.inputs.some((x) => !x.length)) return openaiError(400, "'input' : input must be a non-empty string or array", null, "input");
      const size = ask.body.dimensions ?? EMBEDDING_DEFAULT_SIZE.openai;
      const base64 = ask.body.encoding_format === "base64";
      const data = ask.inputs.map((x, index) => {
        const v = fakeVector(vendor, x, size);
        return { object: "embedding", index, embedding: base64 ? Buffer.from(new Float32Array(v).buffer).toString("base64") : v };
      });
      const tokens = fakeEmbeddingTokens(ask.inputs);
      return { json: { object: "list", data: data.reverse(), model: served, usage: { prompt_tokens: tokens, total_tokens: tokens } } };
    };
  }
  return (req) => {
    const ask = embeddingAskOf(vendor, req);
    if (ask.key !== opts.key) return geminiError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.");
    if (req.method !== "POST" || !/^(embedContent|batchEmbedContents)$/.test(ask.method)) return geminiError(404, "NOT_FOUND", `Unknown request URL: ${req.method} ${req.path}`);
    if (ask.model !== served) return geminiError(404, "NOT_FOUND", `models/${ask.model} is not found for API version v1beta, or is not supported for embedContent.`);
    const batch = ask.method === "batchEmbedContents";
    if (batch && ask.inputs.length > GEMINI_MAX_BATCH) return geminiError(400, "INVALID_ARGUMENT", `* BatchEmbedContentsRequest.requests: at most ${GEMINI_MAX_BATCH} requests can be in one batch`);
    if (batch && (ask.body.requests as any[]).some((r) => r?.model !== `models/${served}`))
      return geminiError(400, "INVALID_ARGUMENT", "Model names should be the same in the batch and in each request.");
    if (!ask.inputs.length || ask.inputs.some((x) => !x.length)) return geminiError(400, "INVALID_ARGUMENT", "* EmbedContentRequest.content: contents must not be empty");
    const embeddings = ask.inputs.map((x, i) => ({ values: fakeVector(vendor, x, ask.dimensions[i] ?? EMBEDDING_DEFAULT_SIZE.gemini) }));
    const usage = opts.usage ? { usageMetadata: { promptTokenCount: fakeEmbeddingTokens(ask.inputs) } } : {};
    return { json: batch ? { embeddings, ...usage } : { embedding: embeddings[0], ...usage } };
  };
}

export interface FakeEmbeddingUpstreams extends FakeGateway<EmbeddingVendor, EmbeddingAsk> {
  /** Changes how `vendor`'s fake answers from now on (its key kept). */
  script(vendor: EmbeddingVendor, opts: Omit<EmbeddingFakeOptions, "key">): void;
}

/** One gateway with a channel per vendor named in `models`, serving those client model names from that vendor's embedding fake, all mapped onto EMBEDDING_UPSTREAM_MODEL. */
export async function startFakeEmbeddingUpstreams(models: Partial<Record<EmbeddingVendor, string[]>>): Promise<FakeEmbeddingUpstreams> {
  const vendors = Object.keys(models) as EmbeddingVendor[];
  const name = (v: EmbeddingVendor) => `${v}-embedding-fake`;
  const fakes: Partial<Record<EmbeddingVendor, FakeUpstream>> = {};
  for (const v of vendors) fakes[v] = await startFakeUpstream(fakeEmbeddingHandler(v, { key: `key-${name(v)}` }));
  const channels = vendors.map((v) => ({
    ...testChannel(name(v), v, fakes[v]!.url + SUFFIX[v], models[v]!),
    modelMap: Object.fromEntries(models[v]!.map((m) => [m, EMBEDDING_UPSTREAM_MODEL[v]])),
  }));
  const server = await startServer({ config: { channels } as never });
  return {
    ...fakeGateway(server, fakes, (v: EmbeddingVendor) => (fakes[v]?.requests ?? []).map((r) => embeddingAskOf(v, r))),
    script(v, opts) {
      fakes[v]!.setHandler(fakeEmbeddingHandler(v, { ...opts, key: `key-${name(v)}` }));
    },
  };
}
