// Property test: a Chat Completions request goes through the openai-chat
// facade to the neutral model and through this provider back to the very
// same request (vendor_extras carry what the neutral model does not name);
// an OpenAI answer goes through this provider and the facade back to the same
// completion, whole or streamed. Requests and answers are drawn from a seeded
// generator over the field space, in the form a round trip keeps (a stop list,
// not a string; tool arguments as compact JSON).
import t from "tap";
import { toCoreChatInput } from "../../../src/facades/openai-chat/translate.js";
import { fromCoreCompletion } from "../../../src/facades/openai-chat/translate-response.js";
import { ChatStreamTranslator } from "../../../src/facades/openai-chat/stream.js";
import * as fwire from "../../../src/facades/openai-chat/wire.js";
import { toVendorRequest } from "../../../src/providers/openai/request.js";
import { fromVendorResponse } from "../../../src/providers/openai/response.js";
import { OpenAIStreamTranslator } from "../../../src/providers/openai/stream.js";
import { guardStream } from "../../../src/core/chat/stream-guard.js";
import { rng } from "../../helpers/rng.js";

type R = () => number;
const pick = <T>(r: R, xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
const maybe = (r: R, p = 0.5) => r() < p;
const word = (r: R) => pick(r, ["alpha", "beta", "Paris", "ünïcødé ✓", "line\nbreak", "{json}"]);
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const ctx = { requestId: "req_rt" };

function userPart(r: R): Record<string, unknown> {
  switch (pick(r, ["text", "image", "image-url", "audio", "file", "future"])) {
    case "text":
      return { type: "text", text: word(r), ...(maybe(r, 0.2) ? { prompt_cache_breakpoint: true } : {}) };
    case "image":
      return { type: "image_url", image_url: { url: `data:${pick(r, ["image/png", "image/jpeg"])};base64,${PNG}`, ...(maybe(r) ? { detail: pick(r, ["low", "high", "auto", "original"]) } : {}) } };
    case "image-url":
      return { type: "image_url", image_url: { url: "https://example.com/cat.png" } };
    case "audio":
      return { type: "input_audio", input_audio: { data: "UklGRiQAAABXQVZF", format: pick(r, ["wav", "mp3"]) } };
    case "file":
      return { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0xLjQK", filename: `${word(r).replace(/\W/g, "x")}.pdf` } };
    default:
      return { type: "future_part", future_part: { n: Math.floor(r() * 10) } };
  }
}

const FN = (name: string) => ({ type: "function", function: { name, parameters: { type: "object", properties: { city: { type: "string" } } } } });

function request(r: R): Record<string, unknown> {
  const messages: Record<string, unknown>[] = [];
  if (maybe(r)) messages.push({ role: pick(r, ["system", "developer"]), content: word(r), ...(maybe(r, 0.3) ? { name: "ops" } : {}) });
  let calls = 0;
  const turns = 1 + Math.floor(r() * 5);
  for (let i = 0; i < turns; i++) {
    messages.push(
      maybe(r) ? { role: "user", content: word(r), ...(maybe(r, 0.2) ? { name: "alice" } : {}) } : { role: "user", content: Array.from({ length: 2 + Math.floor(r() * 3) }, () => userPart(r)) },
    );
    if (maybe(r, 0.2)) messages.push({ role: pick(r, ["system", "developer"]), content: word(r) });
    if (i === turns - 1 && maybe(r, 0.3)) break;
    const toolCalls = maybe(r, 0.4)
      ? Array.from({ length: 1 + Math.floor(r() * 2) }, () =>
          maybe(r, 0.8)
            ? { id: `call_${calls++}`, type: "function", function: { name: "get_weather", arguments: JSON.stringify({ city: word(r) }) } }
            : { id: `call_${calls++}`, type: "custom", custom: { name: "sql", input: `SELECT ${calls}` } },
        )
      : [];
    const content = maybe(r, 0.2)
      ? [
          { type: "text", text: word(r) },
          { type: "refusal", refusal: "I can't." },
        ]
      : toolCalls.length && maybe(r)
        ? null
        : word(r);
    messages.push({ role: "assistant", content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}), ...(maybe(r, 0.1) ? { audio: { id: "audio_1" } } : {}) });
    for (const c of toolCalls) messages.push({ role: "tool", tool_call_id: c.id, content: word(r) });
  }
  const body: Record<string, unknown> = { model: "client-model", messages };
  if (maybe(r)) {
    const tools: unknown[] = [FN("get_weather")];
    if (maybe(r, 0.3)) tools.push({ ...FN("get_time"), function: { ...FN("get_time").function, strict: true, description: "time" } });
    if (maybe(r, 0.3)) {
      const format = pick<unknown>(r, [undefined, { type: "text" }, { type: "grammar", grammar: { syntax: pick(r, ["lark", "regex"]), definition: "start: /SELECT .+/" } }]);
      tools.push({ type: "custom", custom: { name: "sql", ...(maybe(r) ? { description: "Run SQL" } : {}), ...(format ? { format } : {}) } });
    }
    body.tools = tools;
    if (maybe(r)) {
      body.tool_choice = pick<unknown>(r, [
        "auto",
        "none",
        "required",
        { type: "function", function: { name: "get_weather" } },
        { type: "custom", custom: { name: "sql" } },
        { type: "allowed_tools", allowed_tools: { mode: pick(r, ["auto", "required"]), tools: [{ type: "function", function: { name: "get_weather" } }] } },
      ]);
    }
    if (maybe(r, 0.3)) body.parallel_tool_calls = maybe(r);
  }
  if (maybe(r)) body.max_tokens = 1 + Math.floor(r() * 1000);
  if (maybe(r)) body.temperature = Math.round(r() * 200) / 100;
  if (maybe(r)) body.top_p = Math.round(r() * 100) / 100;
  if (maybe(r, 0.3)) body.stop = [word(r)];
  if (maybe(r, 0.3)) body.seed = Math.floor(r() * 1e6);
  if (maybe(r, 0.3)) body.presence_penalty = 0.5;
  if (maybe(r, 0.3)) body.frequency_penalty = -0.5;
  if (maybe(r, 0.2)) body.n = 2 + Math.floor(r() * 3);
  if (maybe(r, 0.2)) Object.assign(body, { logprobs: true, top_logprobs: Math.floor(r() * 5) });
  if (maybe(r, 0.3)) body.reasoning_effort = pick(r, ["minimal", "low", "medium", "high", "none", "ultra"]);
  if (maybe(r, 0.3)) body.user = "user-1";
  if (maybe(r, 0.3)) {
    body.response_format = pick<unknown>(r, [
      { type: "json_object" },
      { type: "json_schema", json_schema: { name: "thing", schema: { type: "object", properties: { a: { type: "string" } } }, strict: maybe(r) } },
      { type: "future_format", x: 1 },
    ]);
  }
  for (const [k, v] of Object.entries({
    service_tier: "flex",
    store: true,
    metadata: { a: "b" },
    prediction: { type: "content", content: "x" },
    modalities: ["text"],
    verbosity: "low",
    future_field: [1],
  })) {
    if (maybe(r, 0.2)) body[k] = v;
  }
  return body;
}

t.test("property: request -> facade -> provider gives the request back", async (t) => {
  const r = rng(391);
  for (let i = 0; i < 400; i++) {
    const sent = request(r);
    const { input } = toCoreChatInput(fwire.chatRequest.parse(sent), ctx);
    const { body } = toVendorRequest(input, "upstream-model", { stream: false, official: false });
    t.same(body, { ...sent, model: "upstream-model" }, `case ${i}`);
  }
});

// ---------------------------------------------------------------- answers

const utf8 = (s: string) => [...Buffer.from(s)];

function answer(r: R): any {
  const n = 1 + Math.floor(r() * 2);
  const choices = Array.from({ length: n }, (_, index) => {
    const calls = maybe(r, 0.4)
      ? Array.from({ length: 1 + Math.floor(r() * 2) }, (_, c) =>
          maybe(r, 0.8)
            ? { id: `call_${index}_${c}`, type: "function", function: { name: "get_weather", arguments: JSON.stringify({ city: word(r) }) } }
            : { id: `call_${index}_${c}`, type: "custom", custom: { name: "sql", input: "SELECT 1" } },
        )
      : [];
    const refused = !calls.length && maybe(r, 0.15);
    const message: Record<string, unknown> = {
      role: "assistant",
      content: refused ? null : calls.length && maybe(r) ? null : word(r),
      refusal: refused ? "I can't help with that." : null,
      annotations: maybe(r, 0.2) ? [{ type: "url_citation", url_citation: { start_index: 0, end_index: 1, url: "https://x", title: "x" } }] : [],
    };
    if (calls.length) message.tool_calls = calls;
    if (maybe(r, 0.2)) message.reasoning_content = word(r);
    if (maybe(r, 0.1)) message.audio = { id: "audio_1", data: "UklG", expires_at: 1, transcript: "t" };
    const tokens = Array.from({ length: 1 + Math.floor(r() * 3) }, () => word(r));
    const logprobs = maybe(r, 0.3)
      ? {
          content: tokens.map((token) => ({ token, logprob: -r(), bytes: utf8(token), top_logprobs: [{ token, logprob: -0.5, bytes: utf8(token) }] })),
          refusal: null,
        }
      : null;
    const finish = calls.length ? "tool_calls" : refused ? "stop" : pick(r, ["stop", "length", "content_filter"]);
    return { index, message, logprobs, finish_reason: finish };
  });
  const prompt = 10 + Math.floor(r() * 1000);
  const cached = Math.floor(r() * prompt);
  const completion = 1 + Math.floor(r() * 100);
  return {
    id: `chatcmpl-${Math.floor(r() * 1e9)}`,
    object: "chat.completion",
    created: 1741570283,
    model: "upstream-model-2026",
    choices,
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: Math.floor(r() * completion), audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    },
    ...(maybe(r) ? { service_tier: "default" } : {}),
    system_fingerprint: "fp_abc",
  };
}

const vctx = { model: "client-model", channel: "o", newId: () => "call_new", stops: [] };

t.test("property: an OpenAI answer -> provider -> facade gives the answer back", async (t) => {
  const r = rng(17);
  for (let i = 0; i < 300; i++) {
    const a = answer(r);
    const resp = fromVendorResponse(a, vctx);
    const out = fromCoreCompletion(resp, { id: resp.id, created: a.created, model: a.model, legacyFunctions: false });
    t.same(out, a, `case ${i}`);
  }
});

/** The chunks OpenAI streams for an answer: role, then text, refusal, reasoning, calls in fragments, annotations, finish; the usage last. */
function chunksOf(a: any, r: R): any[] {
  const head = { id: a.id, object: "chat.completion.chunk", created: a.created, model: a.model, system_fingerprint: a.system_fingerprint };
  const out: any[] = [];
  for (const c of a.choices) {
    const m = c.message;
    const chunk = (delta: unknown, extra: Record<string, unknown> = {}) => out.push({ ...head, choices: [{ index: c.index, delta, logprobs: null, finish_reason: null, ...extra }] });
    chunk({ role: "assistant", content: "" });
    if (m.reasoning_content) chunk({ reasoning_content: m.reasoning_content });
    const pieces = (s: string) => (s.length > 3 && maybe(r) ? [s.slice(0, 3), s.slice(3)] : [s]);
    if (m.content) for (const p of pieces(m.content)) chunk({ content: p });
    if (m.refusal) for (const p of pieces(m.refusal)) chunk({ refusal: p });
    if (m.annotations.length) chunk({ annotations: m.annotations });
    (m.tool_calls ?? []).forEach((tc: any, index: number) => {
      if (tc.type === "custom") {
        // As OpenAI streams a custom tool's call: type and name first, then the input in fragments.
        const [head, ...rest] = pieces(tc.custom.input);
        const first = maybe(r) ? head! : "";
        chunk({ tool_calls: [{ index, id: tc.id, type: "custom", custom: { name: tc.custom.name, input: first } }] });
        for (const p of first ? rest : [head!, ...rest]) chunk({ tool_calls: [{ index, custom: { input: p } }] });
        return;
      }
      chunk({ tool_calls: [{ index, id: tc.id, type: "function", function: { name: tc.function.name, arguments: "" } }] });
      for (const p of pieces(tc.function.arguments)) chunk({ tool_calls: [{ index, function: { arguments: p } }] });
    });
    chunk({}, { finish_reason: c.finish_reason, logprobs: c.logprobs });
  }
  out.push({ ...head, choices: [], usage: a.usage });
  return out;
}

/** Folds facade chunks as the openai SDK's stream helper does (the fields this property compares). */
function fold(frames: any[]): any {
  const choices: any[] = [];
  let usage;
  for (const d of frames) {
    if (d.usage) usage = d.usage;
    for (const c of d.choices) {
      const ch = (choices[c.index] ??= { index: c.index, message: { annotations: [] }, logprobs: null, finish_reason: null });
      const m = ch.message;
      const delta = c.delta;
      if (delta.role) m.role = delta.role;
      if (delta.content) m.content = (m.content ?? "") + delta.content;
      if (delta.refusal) m.refusal = (m.refusal ?? "") + delta.refusal;
      if (delta.reasoning_content) m.reasoning_content = (m.reasoning_content ?? "") + delta.reasoning_content;
      if (delta.annotations) m.annotations.push(...delta.annotations);
      for (const tc of delta.tool_calls ?? []) {
        const calls = (m.tool_calls ??= []);
        if (!calls[tc.index]) {
          const { index: _i, ...first } = tc;
          calls[tc.index] = structuredClone(first);
        } else if (calls[tc.index].type === "custom") calls[tc.index].custom.input += tc.custom.input;
        else calls[tc.index].function.arguments += tc.function.arguments;
      }
      if (c.finish_reason) ch.finish_reason = c.finish_reason;
      if (c.logprobs) ch.logprobs = c.logprobs;
    }
  }
  for (const ch of choices) {
    ch.message.content ??= null;
    ch.message.refusal ??= null;
  }
  return { choices, usage };
}

t.test("property: an OpenAI stream -> provider -> guard -> facade stream folds to the answer", async (t) => {
  const r = rng(23);
  for (let i = 0; i < 200; i++) {
    const a = answer(r);
    const audio = a.choices.some((c: any) => c.message.audio);
    if (audio) continue; // audio streams in its own deltas, which the neutral stream does not carry
    const tr = new OpenAIStreamTranslator(vctx);
    const events = [...chunksOf(a, r).flatMap((c) => tr.push(c)), ...tr.end()];
    const facade = new ChatStreamTranslator({ freshId: "chatcmpl-x", created: 0, model: "client-model", legacyFunctions: false, includeUsage: true });
    const frames: any[] = [];
    const source = (async function* () {
      yield* events;
    })();
    for await (const e of guardStream(source)) frames.push(...facade.push(e));
    frames.push(...facade.end());
    const data = frames.filter((f) => typeof f === "object" && "chunk" in f).map((f) => JSON.parse(facade.chunkText(f.chunk)));
    t.ok(
      data.every((d) => d.id === a.id),
      `case ${i}: the upstream's id`,
    );
    const folded = fold(data);
    const want = a.choices.map((c: any) => {
      const { audio: _a, ...message } = c.message;
      return { ...c, message };
    });
    t.same(folded.choices, want, `case ${i}: choices`);
    t.same(folded.usage, a.usage, `case ${i}: usage`);
  }
});
