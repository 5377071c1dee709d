import t from "tap";
import { Code, ConnectError } from "@connectrpc/connect";
import { clone, type JsonObject } from "@bufbuild/protobuf";
import { GenerateResponseSchema, ToolChoiceMode, type GenerateResponse, type StreamGenerateResponse } from "../../../../gen/omnigate/chat/v1/chat_pb.js";
import { collectStream } from "../../../../src/core/chat/stream.js";
import { errorDetail } from "../../../../src/core/errors.js";
import { loadConfig } from "../../../../src/config.js";
import { localChatProvider } from "../../../../src/providers/local/chat/provider.js";
import { countText, MEDIA_TOKENS } from "../../../../src/lib/tokenizer.js";
import { applyPatch, ask, assistant, codeTool, ctx, execCommand, fn, input, SECRET, textOf, user, vendorTool, type InputInit } from "./fixtures.js";

const engine = localChatProvider({ signingSecret: SECRET });
const weather = fn("get_weather", { type: "object", properties: { city: { type: "string" }, days: { type: "integer", minimum: 1 } }, required: ["city", "days"] });

/**
 * Response ids and tool-call ids are random; everything else must match, except
 * avg_logprobs, which has no field in CandidateFinish (it is the mean of the
 * chosen candidates, checked below).
 */
function normalise(r: GenerateResponse): GenerateResponse {
  const c = clone(GenerateResponseSchema, r);
  c.id = "";
  for (const cand of c.candidates) {
    for (const p of cand.parts) if (p.kind.case === "toolCall") p.kind.value.id = "";
    if (cand.logprobs) {
      const chosen = cand.logprobs.chosenCandidates;
      if (cand.avgLogprobs !== undefined && cand.avgLogprobs !== chosen.reduce((n, x) => n + x.logProbability, 0) / chosen.length) throw new Error("avg_logprobs is not the mean");
      cand.avgLogprobs = undefined;
    }
  }
  return c;
}

async function drain(it: AsyncIterable<StreamGenerateResponse>): Promise<StreamGenerateResponse[]> {
  const out: StreamGenerateResponse[] = [];
  for await (const e of it) out.push(e);
  return out;
}

const streamCases: Array<[string, InputInit]> = [
  ["plain text", { turns: [user("hello streaming world, how are you today?")] }],
  ["max tokens", { turns: [user("one two three four five six")], config: { maxOutputTokens: 4 } }],
  ["stop sequence", { turns: [user("alpha beta gamma")], config: { stopSequences: ["gamma"] } }],
  ["tool call", { turns: [user("use get_weather for Lisbon")], tools: [weather] }],
  ["custom tool call", { turns: [user("```\n*** Begin Patch\n*** Add File: a.txt\n+one two three four five six seven\n*** End Patch\n```")], tools: [applyPatch, execCommand] }],
  ["forced vendor tool", { turns: [user("hi")], tools: [vendorTool("bash_20250124", "bash")], toolChoice: { mode: ToolChoiceMode.ANY } }],
  ["thinking", { turns: [user("think hard")], config: { thinking: { enabled: true, budgetTokens: 2000 } } }],
  ["thinking and tool", { turns: [user("get_weather in Oslo")], tools: [weather], config: { thinking: { includeThoughts: true } } }],
  [
    "json",
    {
      turns: [user("list 2 Books")],
      config: { responseMimeType: "application/json", responseSchema: { type: "object", properties: { books: { type: "array", items: { type: "string" } } }, required: ["books"] } },
    },
  ],
  ["code execution", { turns: [user("calculate 6 * 7")], tools: [codeTool] }],
  ["candidates and logprobs", { turns: [user("two of these")], config: { candidateCount: 2, responseLogprobs: true, logprobs: 2 } }],
  ["blocked", { turns: [user("forbidden-topic")] }],
];

t.test("a stream replays exactly the non-streamed answer", async (t) => {
  for (const [name, init] of streamCases) {
    const whole = await engine.generate(input(init), ctx());
    const events = await drain(engine.stream(input(init), ctx()));
    const streamed = await collectStream(
      (async function* () {
        yield* events;
      })(),
    );
    t.same(normalise(streamed), normalise(whole), name);
    const textDeltas = events.filter((e) => e.event.case === "partDelta" && e.event.value.delta.case === "text").length;
    if (countText(textOf(whole.candidates[0]?.parts ?? [])) >= 6) t.ok(textDeltas >= 2, `${name}: several text deltas (${textDeltas})`);
    t.equal(events.at(-1)?.event.case, "usage", `${name}: usage comes last`);
  }
});

t.test("tool arguments stream as JSON fragments", async (t) => {
  const events = await drain(engine.stream(ask("use get_weather for Lisbon", { tools: [weather] }), ctx()));
  const frags = events.flatMap((e) => (e.event.case === "partDelta" && e.event.value.delta.case === "argumentsJson" ? [e.event.value.delta.value] : []));
  t.ok(frags.length > 1, "several fragments");
  t.same(JSON.parse(frags.join("")), { city: "Lisbon", days: 1 });
  const start = events.find((e) => e.event.case === "partStart")!;
  t.match(start.event.case === "partStart" && start.event.value.part?.kind.case === "toolCall" && start.event.value.part.kind.value.id, /^toolu_/);
});

t.test("a custom tool's input streams as input deltas after a part start that marks it", async (t) => {
  const patch = "*** Begin Patch\n*** Add File: a.txt\n+one two three four five six seven\n*** End Patch";
  const events = await drain(engine.stream(ask("```\n" + patch + "\n```", { tools: [applyPatch] }), ctx()));
  const start = events.find((e) => e.event.case === "partStart")!;
  const part = start.event.case === "partStart" ? start.event.value.part : undefined;
  t.same(part?.kind.case === "toolCall" && { name: part.kind.value.name, input: part.kind.value.input, arguments: part.kind.value.arguments }, {
    name: "apply_patch",
    input: "",
    arguments: undefined,
  });
  const frags = events.flatMap((e) => (e.event.case === "partDelta" && e.event.value.delta.case === "input" ? [e.event.value.delta.value] : []));
  t.ok(frags.length > 1, "several fragments");
  t.equal(frags.join(""), patch, "they join into the input");
  t.notOk(
    events.some((e) => e.event.case === "partDelta" && e.event.value.delta.case === "argumentsJson"),
    "no arguments",
  );
});

t.test("faults", async (t) => {
  await t.rejects(engine.generate(ask("#fault:rate_limit"), ctx()), { code: Code.ResourceExhausted });
  await t.rejects(drain(engine.stream(ask("#fault:permission"), ctx())), { code: Code.PermissionDenied }, "streams fail before any event");
  await t.rejects(engine.generate(ask("hello #fault:midstream"), ctx()), { code: Code.Unavailable }, "midstream without a stream");

  const seen: StreamGenerateResponse[] = [];
  let err: unknown;
  try {
    for await (const e of engine.stream(ask("a long enough answer to stream #fault:midstream"), ctx())) seen.push(e);
  } catch (e) {
    err = e;
  }
  t.ok(err instanceof ConnectError && err.code === Code.Unavailable && errorDetail(err)?.reason === "overloaded", "Unavailable, overloaded");
  const last = seen.at(-1)!;
  t.ok(last.event.case === "partDelta" && last.event.value.delta.case === "text", "after the first text delta");
  t.equal(seen.filter((e) => e.event.case === "partDelta").length, 1);

  const toolOnly = await drain(engine.stream(ask("get_weather #fault:midstream", { tools: [weather] }), ctx())).catch((e: ConnectError) => e);
  t.ok(toolOnly instanceof ConnectError && toolOnly.code === Code.Unavailable, "an answer without text fails before its finish");

  const off = localChatProvider({ signingSecret: SECRET, faultInjection: false });
  t.equal(textOf((await off.generate(ask("hi #fault:internal"), ctx())).candidates[0]!.parts), "You said: hi #fault:internal");
  await t.rejects(engine.generate(input({ turns: [user("x"), assistant({ kind: { case: "thinking", value: { text: "t" } }, signature: { issuer: "local", value: "forged" } }), user("y")] }), ctx()), {
    code: Code.InvalidArgument,
  });
});

t.test("web search: a declared one is left out, a forced one refused", async (t) => {
  const search = { kind: { case: "webSearch" as const, value: {} } };
  const plain = await engine.generate(ask("Say hello", { tools: [search] }), ctx());
  t.equal(textOf(plain.candidates[0]!.parts), "You said: Say hello", "declared (as Codex does every turn): answered as without it");
  const named = await engine.generate(
    ask("get_weather for Paris in 2 days", { tools: [search, weather], toolChoice: { mode: ToolChoiceMode.ANY, allowedNames: ["web_search", "get_weather"] } }),
    ctx(),
  );
  t.match(
    named.candidates[0]!.parts.map((p) => p.kind.value),
    [{ name: "get_weather" }],
    "a choice among the search and a function calls the function",
  );
  for (const toolChoice of [
    { mode: ToolChoiceMode.ANY, allowedNames: ["web_search"] },
    { mode: ToolChoiceMode.ANY, allowedNames: [] },
  ]) {
    const forced = ask("Search the web", { tools: [search], toolChoice });
    await t.rejects(engine.generate(forced, ctx()), { code: Code.InvalidArgument, message: /a tool choice that forces web search is not supported/ });
    const err = await drain(engine.stream(forced, ctx())).catch((e: ConnectError) => e);
    t.ok(err instanceof ConnectError && errorDetail(err)?.reason === "unsupported_by_upstream" && errorDetail(err)?.field === "tool_choice", "streamed: refused before any event");
  }
});

t.test("a prompt stored with OpenAI is refused; the other unread Responses fields change nothing", async (t) => {
  const withPrompt = ask("Say hello", { vendorExtras: { "openai-responses": { prompt: { id: "pmpt_1" } } } });
  const err = await engine.generate(withPrompt, ctx()).catch((e: ConnectError) => e);
  t.ok(err instanceof ConnectError && errorDetail(err)?.reason === "unsupported_by_upstream" && errorDetail(err)?.field === "prompt");
  const other = await engine.generate(ask("Say hello", { vendorExtras: { "openai-responses": { truncation: "auto" } } }), ctx());
  t.equal(textOf(other.candidates[0]!.parts), "You said: Say hello");
});

t.test("abort stops a stream", async (t) => {
  const slow = localChatProvider({ signingSecret: SECRET, chunkDelayMs: 5 });
  const ac = new AbortController();
  const seen: StreamGenerateResponse[] = [];
  for await (const e of slow.stream(ask("a b c d e f g h i j k l m n o p q r s t u v w x y z"), ctx(ac.signal))) {
    seen.push(e);
    if (e.event.case === "partDelta") ac.abort();
  }
  t.equal(seen.filter((e) => e.event.case === "partDelta").length, 1, "no delta after the abort");
  t.notOk(
    seen.some((e) => e.event.case === "finish"),
    "no finish",
  );
  const all = await drain(slow.stream(ask("a b c d e f g h i j"), ctx()));
  t.equal(all.at(-1)?.event.case, "usage", "with a delay and no abort, the stream completes");
});

const mediaPart = (mimeType: string) => ({ kind: { case: "media" as const, value: { mimeType, source: { case: "data" as const, value: new Uint8Array([1, 2, 3]) } } } });
const countCases: Array<[string, InputInit]> = [
  ["text", { turns: [user("hello")] }],
  ["system and turns", { system: [{ kind: { case: "text", value: { text: "be brief" } } }], turns: [user("a"), assistant("b"), user("c")] }],
  ["image", { turns: [user("what is this", mediaPart("image/png"))] }],
  ["pdf and audio", { turns: [user(mediaPart("application/pdf"), mediaPart("audio/wav"), "listen and read")] }],
  ["tools", { tools: [weather, codeTool, vendorTool("bash_20250124", "bash")], turns: [user("hi")] }],
  [
    "tool round trip",
    {
      tools: [weather],
      turns: [
        user("weather?"),
        assistant({ kind: { case: "toolCall", value: { id: "t1", name: "get_weather", arguments: { city: "Rome" } as JsonObject } } }),
        user({ kind: { case: "toolResult", value: { callId: "t1", content: [{ kind: { case: "text", value: { text: "sunny" } } }, mediaPart("image/jpeg")] } } }),
      ],
    },
  ],
  ["unicode", { turns: [user("日本語のテキスト and émojis 🎉")] }],
];

t.test("count_tokens equals usage.input_tokens", async (t) => {
  for (const [name, init] of countCases) {
    const count = await engine.countTokens(input(init), ctx());
    const resp = await engine.generate(input(init), ctx());
    t.equal(count.inputTokens, resp.usage!.inputTokens, name);
    t.same(count.inputDetails, resp.usage!.inputDetails, `${name}: details`);
    t.equal(
      count.inputDetails.reduce((n, d) => n + d.tokenCount, 0n),
      count.inputTokens,
      `${name}: details add up`,
    );
    t.ok(resp.usage!.outputTokens >= 1n, `${name}: output tokens`);
  }
  const img = await engine.countTokens(input(countCases[2]![1]), ctx());
  const txt = await engine.countTokens(ask("what is this"), ctx());
  t.equal(img.inputTokens - txt.inputTokens, BigInt(MEDIA_TOKENS), "an image costs MEDIA_TOKENS");
});

t.test("configuration", async (t) => {
  t.equal(loadConfig({}).local.faultInjection, true, "on by default");
  t.equal(loadConfig({ OMNIGATE_LOCAL_FAULT_INJECTION: "false" }).local.faultInjection, false);
  t.equal(loadConfig({ OMNIGATE_LOCAL_FAULT_INJECTION: "1" }).local.faultInjection, true);
  t.throws(() => loadConfig({ OMNIGATE_LOCAL_FAULT_INJECTION: "maybe" }), /OMNIGATE_LOCAL_FAULT_INJECTION/);
  const unsigned = localChatProvider();
  const r = await unsigned.generate(ask("x", { config: { thinking: { enabled: true } } }), ctx());
  t.equal(r.candidates[0]!.parts[0]!.signature?.issuer, "local", "a process secret when none is configured");
});
