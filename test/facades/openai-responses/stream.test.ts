// The Responses stream translator (neutral events -> B.6 events) and its
// writer: the exact event sequence for text, reasoning with text and two
// calls, a custom call and a compaction; sequence numbers; added items with
// their empty arrays; response.failed for a failure after the 200; and a
// property: the final Response equals the unary one for the same answer, and
// the openai SDK's accumulator rebuilds its output from the events.
import t from "tap";
import { PassThrough } from "node:stream";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import OpenAI from "openai";
import { accumulateResponse } from "openai/lib/responses/ResponseAccumulator";
import { FinishReason, GenerateResponseSchema, StreamGenerateResponseSchema, WebSearchStatus, type Part } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { responseToEvents } from "../../../src/core/chat/stream.js";
import { coreError } from "../../../src/core/errors.js";
import { failureOf } from "../../../src/facades/openai-responses/failure.js";
import { itemId } from "../../../src/facades/openai-responses/ids.js";
import type { ResponseMeta } from "../../../src/facades/openai-responses/meta.js";
import { openParts, sealer } from "../../../src/facades/openai-responses/seal.js";
import { writeResponsesStream } from "../../../src/facades/openai-responses/sse.js";
import { ResponsesStreamTranslator, type Frame, type ResponseEvent, type StreamOptions } from "../../../src/facades/openai-responses/stream.js";
import { fromCoreResponse } from "../../../src/facades/openai-responses/translate-response.js";
import { rng } from "../../helpers/rng.js";

type EvInit = MessageInitShape<typeof StreamGenerateResponseSchema>["event"];
const ev = (event: EvInit) => create(StreamGenerateResponseSchema, { event });
const seal = sealer("test secret");
const meta = (over: Partial<ResponseMeta> = {}): ResponseMeta => ({
  id: "resp_1",
  createdAt: 1700000000,
  model: "gpt-client",
  echo: {},
  includeEncrypted: false,
  sealer: seal,
  toolNames: new Map(),
  ...over,
});
const id = (p: Parameters<typeof itemId>[0], i: number) => itemId(p, "resp_1", i);

const start = ev({ case: "start", value: { id: "up_1", model: "m", modelVersion: "v1", channel: "local", usage: { inputTokens: 5n } } });
const partStart = (index: number, part: any) => ev({ case: "partStart", value: { candidateIndex: 0, index, part } });
const delta = (index: number, d: any) => ev({ case: "partDelta", value: { candidateIndex: 0, index, delta: d } });
const stop = (index: number) => ev({ case: "partStop", value: { candidateIndex: 0, index } });
const finish = (finishReason = FinishReason.STOP) => ev({ case: "finish", value: { candidateIndex: 0, finishReason } });
const usage = ev({ case: "usage", value: { inputTokens: 5n, outputTokens: 7n, cacheReadTokens: 2n, thinkingTokens: 3n } });

function run(events: ReturnType<typeof ev>[], m = meta(), o: StreamOptions = {}, end = true): { tr: ResponsesStreamTranslator; frames: Frame[]; data: any[]; text: string } {
  const tr = new ResponsesStreamTranslator(m, o);
  const frames: Frame[] = [];
  for (const e of events) frames.push(...tr.push(e));
  if (end) frames.push(...tr.end());
  const text = frames.map((f) => tr.frameText(f)).join("");
  // As a client reads the text: each event's data line.
  const data = text
    .split("\n\n")
    .filter((b) => b.includes("data: "))
    .map((b) => JSON.parse(b.slice(b.indexOf("data: ") + 6)));
  return { tr, frames, data, text };
}

const types = (data: ResponseEvent[]) => data.map((d) => d.type);

t.test("a text stream: the exact sequence", async (t) => {
  const { data, text, tr } = run(
    [
      start,
      partStart(0, { kind: { case: "text", value: {} } }),
      delta(0, { case: "text", value: "Hel" }),
      delta(0, { case: "text", value: "" }),
      delta(0, { case: "text", value: "lo" }),
      stop(0),
      finish(),
      usage,
    ],
    meta(),
    { now: () => 1700000009500 },
  );
  t.same(types(data), [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.delta",
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.completed",
  ]);
  t.same(
    data.map((d) => d.sequence_number),
    data.map((_, i) => i),
    "sequence numbers count from 0",
  );
  for (const d of data.slice(0, 2)) t.match(d.response, { id: "resp_1", object: "response", status: "in_progress", output: [], usage: null, model: "gpt-client", tools: [] });
  const msg = id("msg", 0);
  t.same(data[2], { type: "response.output_item.added", sequence_number: 2, output_index: 0, item: { id: msg, type: "message", status: "in_progress", content: [], role: "assistant" } });
  t.same(data[3], { type: "response.content_part.added", sequence_number: 3, item_id: msg, output_index: 0, content_index: 0, part: { type: "output_text", text: "", annotations: [], logprobs: [] } });
  t.same(data[4], { type: "response.output_text.delta", sequence_number: 4, item_id: msg, output_index: 0, content_index: 0, delta: "Hel", logprobs: [] });
  t.same(data[6], { type: "response.output_text.done", sequence_number: 6, item_id: msg, output_index: 0, content_index: 0, text: "Hello", logprobs: [] });
  t.same(data[7], {
    type: "response.content_part.done",
    sequence_number: 7,
    item_id: msg,
    output_index: 0,
    content_index: 0,
    part: { type: "output_text", text: "Hello", annotations: [], logprobs: [] },
  });
  const item = { id: msg, type: "message", status: "completed", content: [{ type: "output_text", text: "Hello", annotations: [], logprobs: [] }], role: "assistant" };
  t.same(data[8], { type: "response.output_item.done", sequence_number: 8, output_index: 0, item });
  t.match(data[9].response, {
    id: "resp_1",
    status: "completed",
    completed_at: 1700000009,
    error: null,
    incomplete_details: null,
    output: [item],
    usage: { input_tokens: 7, input_tokens_details: { cached_tokens: 2, cache_write_tokens: 0 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 3 }, total_tokens: 14 },
  });
  t.same(tr.final(), data[9].response, "final() is the terminal Response");
  t.ok(text.startsWith('event: response.created\ndata: {"type":"response.created","sequence_number":0,'), "an event line, then the data");
  t.match(text, /event: response\.completed\ndata: \{.*\}\n\n$/);
  t.notMatch(text, /\[DONE\]/);
});

t.test("reasoning, text and two calls: items in order, output_index counts items", async (t) => {
  const toolNames = new Map([["ns__b", { type: "function" as const, name: "b", namespace: "ns" }]]);
  const { data } = run(
    [
      start,
      partStart(0, { kind: { case: "thinking", value: {} } }),
      delta(0, { case: "thinking", value: "Think" }),
      delta(0, { case: "thinking", value: "ing." }),
      delta(0, { case: "signature", value: { issuer: "anthropic", value: "sig-1" } }),
      stop(0),
      partStart(1, { kind: { case: "text", value: {} } }),
      delta(1, { case: "text", value: "Checking." }),
      stop(1),
      partStart(2, { kind: { case: "toolCall", value: { id: "call_a", name: "a" } } }),
      delta(2, { case: "argumentsJson", value: '{"x":' }),
      delta(2, { case: "argumentsJson", value: "1}" }),
      stop(2),
      partStart(3, { kind: { case: "toolCall", value: { id: "call_b", name: "ns__b" } } }),
      stop(3),
      finish(FinishReason.TOOL_USE),
      usage,
    ],
    meta({ includeEncrypted: true, toolNames }),
  );
  t.same(types(data), [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.reasoning_summary_part.added",
    "response.reasoning_summary_text.delta",
    "response.reasoning_summary_text.delta",
    "response.reasoning_summary_text.done",
    "response.reasoning_summary_part.done",
    "response.output_item.done",
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.output_item.added",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
    "response.output_item.done",
    "response.output_item.added",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
    "response.output_item.done",
    "response.completed",
  ]);
  const rs = id("rs", 0);
  t.same(data[2], { type: "response.output_item.added", sequence_number: 2, output_index: 0, item: { id: rs, type: "reasoning", summary: [] } });
  t.same(data[3], { type: "response.reasoning_summary_part.added", sequence_number: 3, item_id: rs, output_index: 0, summary_index: 0, part: { type: "summary_text", text: "" } });
  t.same(data[4], { type: "response.reasoning_summary_text.delta", sequence_number: 4, item_id: rs, output_index: 0, summary_index: 0, delta: "Think" });
  t.same(data[6], { type: "response.reasoning_summary_text.done", sequence_number: 6, item_id: rs, output_index: 0, summary_index: 0, text: "Thinking." });
  t.same(data[7].part, { type: "summary_text", text: "Thinking." });
  const reasoning = data[8].item as any;
  t.same(Object.keys(reasoning), ["id", "type", "summary", "encrypted_content"]);
  const sealed = openParts(seal, reasoning.encrypted_content)!;
  t.same([sealed[0]!.kind.case, (sealed[0]!.kind.value as { text: string }).text, sealed[0]!.signature?.value], ["thinking", "Thinking.", "sig-1"], "the thought and its signature, sealed");
  t.equal(data[9].output_index, 1);
  const fc = id("fc", 2);
  t.same(data[15], {
    type: "response.output_item.added",
    sequence_number: 15,
    output_index: 2,
    item: { id: fc, type: "function_call", status: "in_progress", arguments: "", call_id: "call_a", name: "a" },
  });
  t.same(data[16], { type: "response.function_call_arguments.delta", sequence_number: 16, item_id: fc, output_index: 2, delta: '{"x":' });
  t.same(data[18], { type: "response.function_call_arguments.done", sequence_number: 18, item_id: fc, output_index: 2, name: "a", arguments: '{"x":1}' });
  t.same(data[19].item, { id: fc, type: "function_call", status: "completed", arguments: '{"x":1}', call_id: "call_a", name: "a" });
  t.same(data[20].item, { id: id("fc", 3), type: "function_call", status: "in_progress", arguments: "", call_id: "call_b", name: "b", namespace: "ns" });
  t.equal(data[21].delta, "{}", "a call without arguments gets {}");
  t.same(
    (data.at(-1)!.response as any).output.map((i: any) => [i.type, i.id]),
    [
      ["reasoning", rs],
      ["message", id("msg", 1)],
      ["function_call", fc],
      ["function_call", id("fc", 3)],
    ],
  );
});

t.test("a custom tool call streams its input", async (t) => {
  const { data } = run([
    start,
    partStart(0, { kind: { case: "toolCall", value: { id: "call_p", name: "apply_patch", input: "" } } }),
    delta(0, { case: "input", value: "*** Begin Patch\n" }),
    delta(0, { case: "input", value: "*** End Patch" }),
    stop(0),
    finish(FinishReason.TOOL_USE),
  ]);
  const ctc = id("ctc", 0);
  t.same(types(data).slice(2), [
    "response.output_item.added",
    "response.custom_tool_call_input.delta",
    "response.custom_tool_call_input.delta",
    "response.custom_tool_call_input.done",
    "response.output_item.done",
    "response.completed",
  ]);
  t.same(data[2].item, { id: ctc, type: "custom_tool_call", status: "in_progress", call_id: "call_p", name: "apply_patch", input: "" });
  t.same(data[3], { type: "response.custom_tool_call_input.delta", sequence_number: 3, item_id: ctc, output_index: 0, delta: "*** Begin Patch\n" });
  t.same(data[5], { type: "response.custom_tool_call_input.done", sequence_number: 5, item_id: ctc, output_index: 0, input: "*** Begin Patch\n*** End Patch" });
  t.same(data[6].item, { id: ctc, type: "custom_tool_call", status: "completed", call_id: "call_p", name: "apply_patch", input: "*** Begin Patch\n*** End Patch" });
});

t.test("a refusal, annotations, an incomplete end", async (t) => {
  const { data } = run([
    start,
    partStart(0, { kind: { case: "text", value: { citations: [{ url: "https://a.example", title: "A" }] } } }),
    delta(0, { case: "text", value: "Cited" }),
    stop(0),
    partStart(1, { kind: { case: "text", value: {} }, vendorExtras: { openai: { type: "refusal", refusal: "" } } }),
    delta(1, { case: "text", value: "No." }),
    stop(1),
    finish(FinishReason.MAX_TOKENS),
  ]);
  t.same(types(data).slice(2), [
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.annotation.added",
    "response.output_text.done",
    "response.content_part.done",
    "response.content_part.added",
    "response.refusal.delta",
    "response.refusal.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.incomplete",
  ]);
  t.match(data[5], {
    item_id: id("msg", 0),
    output_index: 0,
    content_index: 0,
    annotation_index: 0,
    annotation: { type: "url_citation", start_index: 0, end_index: 5, url: "https://a.example", title: "A" },
  });
  t.same(data[8].part, { type: "refusal", refusal: "" });
  t.match(data[9], { content_index: 1, delta: "No." });
  t.match(data[10], { content_index: 1, refusal: "No." });
  t.equal((data[12].item as any).status, "incomplete");
  t.match(data[13].response, { status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, completed_at: null });
});

t.test("a web search: its item whole, with the three search events, closing the message before it", async (t) => {
  const search = {
    kind: { case: "webSearchCall", value: { id: "srvtoolu_1", queries: ["omnigate"], sources: [{ url: "https://example.com/", title: "Example" }], status: WebSearchStatus.COMPLETED } },
  };
  const { data, tr } = run([
    start,
    partStart(0, { kind: { case: "text", value: {} } }),
    delta(0, { case: "text", value: "Let me look." }),
    stop(0),
    partStart(1, search),
    stop(1),
    partStart(2, { kind: { case: "text", value: {} } }),
    delta(2, { case: "text", value: "Found." }),
    stop(2),
    finish(),
    usage,
  ]);
  const ws = id("ws", 1);
  const item = { id: ws, type: "web_search_call", status: "completed", action: { type: "search", query: "omnigate", sources: [{ type: "url", url: "https://example.com/" }] } };
  const at = types(data).indexOf("response.web_search_call.in_progress");
  t.same(
    data.slice(at - 2, at + 4).map((d) => [d.type, d.output_index, d.item_id ?? d.item?.id]),
    [
      ["response.output_item.done", 0, id("msg", 0)],
      ["response.output_item.added", 1, ws],
      ["response.web_search_call.in_progress", 1, ws],
      ["response.web_search_call.searching", 1, ws],
      ["response.web_search_call.completed", 1, ws],
      ["response.output_item.done", 1, ws],
    ],
    "the message before it closes first; the search's events in order",
  );
  t.same(data[at - 1].item, { id: ws, type: "web_search_call", status: "in_progress", action: { type: "search", query: "omnigate" } }, "added: in progress, with its action");
  t.same(data[at + 3].item, item, "done: the whole item");
  t.same(
    (tr.final() as any).output.map((o: any) => o.type),
    ["message", "web_search_call", "message"],
  );
  t.same((tr.final() as any).output[1], item);
  const failed = run([start, partStart(0, { kind: { case: "webSearchCall", value: { id: "x", queries: ["a", "b"], status: WebSearchStatus.FAILED } } }), stop(0), finish(), usage]);
  t.notOk(types(failed.data).includes("response.web_search_call.completed"), "a failed search has no completed event");
  t.same((failed.tr.final() as any).output, [{ id: id("ws", 0), type: "web_search_call", status: "failed", action: { type: "search", query: "a", queries: ["a", "b"] } }]);
});

t.test("compaction: only the compaction item, then the terminal event", async (t) => {
  const { data, tr } = run(
    [
      start,
      partStart(0, { kind: { case: "thinking", value: {} } }),
      delta(0, { case: "thinking", value: "hm" }),
      stop(0),
      partStart(1, { kind: { case: "text", value: {} } }),
      delta(1, { case: "text", value: "Sum" }),
      delta(1, { case: "text", value: "mary" }),
      stop(1),
      finish(),
      usage,
    ],
    meta({ compact: true }),
  );
  t.same(types(data), ["response.created", "response.in_progress", "response.output_item.added", "response.output_item.done", "response.completed"]);
  const item = data[3].item as any;
  t.match(item, { id: id("cmp", 0), type: "compaction", encrypted_content: /^og1\./ });
  t.same(
    openParts(seal, item.encrypted_content)!.map((p: Part) => (p.kind.value as { text: string }).text),
    ["Summary"],
  );
  t.same((tr.final() as any).output, [item], "exactly one output item");
});

t.test("failures after the 200 are response.failed with a code clients act on", async (t) => {
  const text = [start, partStart(0, { kind: { case: "text", value: {} } }), delta(0, { case: "text", value: "Hel" })];
  const limited = run(text, meta(), {}, false);
  const errors: unknown[] = [];
  const tr = new ResponsesStreamTranslator(meta(), { onError: (e) => errors.push(e) });
  for (const e of text) tr.push(e);
  const rate = coreError(Code.ResourceExhausted, "rate limit exceeded: requests", { reason: "rate_limited", retryAfterMs: 2000 });
  const failed = tr.fail(rate) as ResponseEvent[];
  t.equal(limited.data.length, 5);
  t.same(types(failed), ["response.failed"]);
  t.equal(failed[0]!.sequence_number, 5, "numbers go on");
  t.match(failed[0]!.response, {
    status: "failed",
    error: { code: "rate_limit_exceeded", message: "rate limit exceeded: requests. Please try again in 2s." },
    output: [{ type: "message", status: "incomplete", content: [{ type: "output_text", text: "Hel" }] }],
  });
  t.same(errors, [rate]);
  t.ok(tr.done);
  t.same(tr.end(), [], "nothing after the terminal event");
  t.same(tr.fail(new Error("again")), []);
  t.equal((tr.final() as any).status, "failed");

  // A failure before anything was sent still starts the stream, as the SDK helper needs.
  const early = new ResponsesStreamTranslator(meta());
  t.same(types(early.fail(new Error("boom")) as ResponseEvent[]), ["response.created", "response.in_progress", "response.failed"]);
  t.same((early.final() as any).error, { code: "server_error", message: "The server had an error while processing your request. Sorry about that!" }, "no internal text");
  t.same(types(new ResponsesStreamTranslator(meta()).end() as ResponseEvent[]), ["response.created", "response.in_progress", "response.failed"], "an end before the start is a failure");

  // An event out of order fails the stream; what was already made stays.
  const odd = run([ev({ case: "partStart", value: { candidateIndex: 0, index: 0, part: { kind: { case: "text", value: {} } } } })]);
  t.same(types(odd.data), ["response.created", "response.in_progress", "response.failed"]);
});

t.test("failureOf: the codes Codex acts on", async (t) => {
  t.same(failureOf(coreError(Code.ResourceExhausted, "slow down.", { reason: "rate_limited" })), { code: "rate_limit_exceeded", message: "slow down. Please try again in 1s." });
  t.match(failureOf(coreError(Code.InvalidArgument, "too long", { reason: "context_length_exceeded" })), { code: "context_length_exceeded" });
  t.match(failureOf(coreError(Code.InvalidArgument, "upstream said no", { reason: "upstream_invalid_request", metadata: { code: "context_length_exceeded" } })), { code: "context_length_exceeded" });
  t.same(failureOf(coreError(Code.InvalidArgument, "messages[0]: bad", { reason: "invalid_field" })), { code: "invalid_prompt", message: "messages[0]: bad" });
  t.same(failureOf(coreError(Code.PermissionDenied, "the API key's credit budget is used up", { reason: "budget_exhausted" })), {
    code: "insufficient_quota",
    message: "the API key's credit budget is used up",
  });
  t.same(failureOf(coreError(Code.Unavailable, "the openai upstream is overloaded", { reason: "overloaded" })), { code: "server_error", message: "the openai upstream is overloaded" });
  t.match(failureOf(new ConnectError("secret upstream text", Code.Internal)), { code: "server_error", message: /^The server had an error/ });
});

t.test("pings: an SSE comment, no event", async (t) => {
  const tr = new ResponsesStreamTranslator(meta());
  t.same(tr.push(ev({ case: "ping", value: {} })), ["ping"]);
  t.equal(tr.frameText("ping"), ": ping\n\n");
  t.equal(types(tr.push(start) as ResponseEvent[])[0], "response.created", "a ping before the start does not count as one");
});

// ---------------------------------------------------------------- property

type PartInit = NonNullable<NonNullable<MessageInitShape<typeof GenerateResponseSchema>["candidates"]>[number]["parts"]>[number];

function randomAnswer(r: () => number) {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  const words = ["alpha ", "beta", " gamma", "δ ", "\n", "{x}", '"q"', "emoji 🎉 "];
  const str = () => Array.from({ length: 1 + Math.floor(r() * 4) }, () => pick(words)).join("");
  const parts: PartInit[] = [];
  const n = Math.floor(r() * 7);
  for (let i = 0; i < n; i++) {
    const k = Math.floor(r() * 10);
    if (k < 3) parts.push({ kind: { case: "text", value: { text: r() < 0.15 ? "" : str(), citations: r() < 0.2 ? [{ url: "https://c.example/" + i, title: "C" }] : [] } } });
    else if (k === 3) parts.push({ kind: { case: "text", value: { text: str() } }, vendorExtras: { openai: { type: "refusal", refusal: "x" } } });
    else if (k < 6) parts.push({ kind: { case: "thinking", value: { text: r() < 0.2 ? "" : str() } }, ...(r() < 0.5 ? { signature: { issuer: "local", value: "s" + i } } : {}) });
    else if (k === 6) parts.push({ kind: { case: "toolCall", value: { id: "call_" + i, name: pick(["f", "ns__g"]), ...(r() < 0.7 ? { arguments: { q: str(), n: i } } : {}) } } });
    else if (k === 7) parts.push({ kind: { case: "toolCall", value: { id: "call_" + i, name: "patch", input: str() } } });
    else if (k === 8) parts.push({ kind: { case: "executableCode", value: { language: "PYTHON", code: str() } } });
    else {
      const queries = Array.from({ length: Math.floor(r() * 3) }, str);
      const status = pick([WebSearchStatus.COMPLETED, WebSearchStatus.FAILED, WebSearchStatus.IN_PROGRESS]);
      parts.push({ kind: { case: "webSearchCall", value: { id: "ws" + i, queries, sources: r() < 0.5 ? [{ url: "https://s.example/" + i, title: "S" }] : [], status } } });
    }
  }
  const finishReason = pick([FinishReason.STOP, FinishReason.STOP, FinishReason.TOOL_USE, FinishReason.MAX_TOKENS, FinishReason.SAFETY]);
  return create(GenerateResponseSchema, {
    id: "up",
    model: "m",
    candidates: [{ index: 0, parts, finishReason }],
    usage: { inputTokens: BigInt(Math.floor(r() * 100)), outputTokens: BigInt(Math.floor(r() * 50)), cacheReadTokens: BigInt(Math.floor(r() * 20)), thinkingTokens: 2n },
  });
}

/** encrypted_content opened (each sealing has its own IV), so equal answers compare equal. */
function opened(x: any): any {
  return JSON.parse(JSON.stringify(x), (k, v) => (k === "encrypted_content" && typeof v === "string" ? openParts(seal, v)!.map((p) => JSON.stringify(p)) : v));
}

t.test("property: the stream's final Response is the unary one, and the SDK rebuilds its output from the events", async (t) => {
  const r = rng(11);
  const toolNames = new Map([["ns__g", { type: "function" as const, name: "g", namespace: "ns" }]]);
  for (let i = 0; i < 150; i++) {
    const resp = randomAnswer(r);
    const m = meta({ includeEncrypted: r() < 0.5, compact: r() < 0.1, toolNames, echo: r() < 0.5 ? { store: false, reasoning: { effort: "low" } } : {} });
    const chunk = (s: string) => {
      const out: string[] = [];
      for (let j = 0; j < s.length;) {
        const n = 1 + Math.floor(r() * 5);
        out.push(s.slice(j, j + n));
        j += n;
      }
      return out.length ? out : [""];
    };
    const { data, tr } = run([...responseToEvents(resp, chunk)], m);
    const unary = fromCoreResponse(resp, m);
    const final = tr.final()!;
    if (!t.same(opened(final), opened(unary), `case ${i}: final = unary`)) {
      t.comment(JSON.stringify(resp.candidates[0]!.parts));
      break;
    }
    t.same(
      data.map((d) => d.sequence_number),
      data.map((_, j) => j),
    );
    // Every added item carries the arrays and status the strict clients need.
    for (const d of data) {
      if (d.type !== "response.output_item.added") continue;
      const item = d.item as any;
      if (item.type === "message") t.same([item.status, item.content], ["in_progress", []]);
      if (item.type === "reasoning") t.same(item.summary, []);
      if (item.type === "function_call") t.same([item.status, item.arguments], ["in_progress", ""]);
      if (item.type === "custom_tool_call") t.equal(item.input, "");
    }
    // The SDK's accumulator over every event before the terminal one gives the terminal output.
    let snap: any;
    for (const d of data.slice(0, -1)) snap = accumulateResponse(d as any, snap);
    t.same(opened(snap.output), opened((final as any).output), `case ${i}: SDK snapshot`);
    t.equal(types(data).filter((x) => /^response\.(completed|incomplete|failed)$/.test(x)).length, 1, "one terminal event");
  }
});

t.test("writeResponsesStream: event frames, a failure as response.failed, the end", async (t) => {
  async function* events() {
    yield start;
    yield partStart(0, { kind: { case: "text", value: {} } });
    yield delta(0, { case: "text", value: "Hi" });
    throw new ConnectError("the model is overloaded", Code.Unavailable);
  }
  const out = new PassThrough();
  let text = "";
  out.on("data", (b: Buffer) => (text += b.toString()));
  const tr = new ResponsesStreamTranslator(meta());
  await writeResponsesStream(events(), undefined, out, tr, 60_000);
  t.ok(out.writableEnded);
  const names = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
  t.same(names, ["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added", "response.output_text.delta", "response.failed"]);
  t.match(tr.final(), { status: "failed", error: { code: "server_error", message: "the model is overloaded" } });

  async function* ok() {
    yield* responseToEvents(create(GenerateResponseSchema, { candidates: [{ index: 0, parts: [{ kind: { case: "text", value: { text: "Yo" } } }], finishReason: FinishReason.STOP }] }));
  }
  const out2 = new PassThrough();
  let text2 = "";
  out2.on("data", (b: Buffer) => (text2 += b.toString()));
  await writeResponsesStream(ok(), undefined, out2, new ResponsesStreamTranslator(meta()), 60_000);
  t.match(text2, /event: response\.completed\ndata: \{"type":"response\.completed","sequence_number":8,.*\}\n\n$/);
});

t.test("the openai SDK's stream helper takes the events (no network: the frames are the fetch's body)", async (t) => {
  const resp = create(GenerateResponseSchema, {
    candidates: [
      {
        index: 0,
        parts: [
          { kind: { case: "thinking", value: { text: "Plan." } }, signature: { issuer: "local", value: "s" } },
          { kind: { case: "webSearchCall", value: { id: "srvtoolu_1", queries: ["a", "b"], sources: [{ url: "https://a.example", title: "A" }], status: WebSearchStatus.COMPLETED } } },
          { kind: { case: "text", value: { text: "Calling two tools.", citations: [{ url: "https://a.example", title: "A" }] } } },
          { kind: { case: "toolCall", value: { id: "call_1", name: "f", arguments: { a: 1 } } } },
          { kind: { case: "toolCall", value: { id: "call_2", name: "patch", input: "*** Begin Patch" } } },
        ],
        finishReason: FinishReason.TOOL_USE,
      },
    ],
    usage: { inputTokens: 10n, outputTokens: 5n },
  });
  const { text, tr } = run([...responseToEvents(resp, (s) => s.match(/.{1,3}/gs) ?? [""])], meta({ includeEncrypted: true }));
  const client = new OpenAI({ apiKey: "k", baseURL: "http://gateway.invalid/v1", fetch: async () => new Response(text, { headers: { "content-type": "text/event-stream" } }) });
  const seen: string[] = [];
  const stream = client.responses.stream({ model: "gpt-client", input: "hi" });
  stream.on("event", (e) => seen.push(e.type));
  const final = await stream.finalResponse();
  t.equal(seen.length, text.split("\n\n").length - 1, "every event reached the client");
  t.match(final.output, (tr.final() as any).output, "the final Response's output (plus the helper's parsed fields)");
  t.equal(final.output_text, "Calling two tools.");
  t.match(final.usage, { input_tokens: 10, output_tokens: 5, total_tokens: 15 });
});
