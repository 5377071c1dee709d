// Response translation, neutral -> Responses API Response: the echoed request
// fields and their defaults, message, reasoning (with and without
// encrypted_content), function and custom tool calls, namespaces, refusals,
// annotations, web searches, incomplete answers, usage details and compaction.
import t from "tap";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { BlockReason, FinishReason, GenerateResponseSchema, WebSearchStatus, type Part } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { itemId } from "../../../src/facades/openai-responses/ids.js";
import type { ResponseMeta } from "../../../src/facades/openai-responses/meta.js";
import { openParts, sealer } from "../../../src/facades/openai-responses/seal.js";
import { fromCoreResponse, usageOf } from "../../../src/facades/openai-responses/translate-response.js";

type Init = MessageInitShape<typeof GenerateResponseSchema>;
type PartInit = NonNullable<NonNullable<Init["candidates"]>[number]["parts"]>[number];
const resp = (init: Init) => create(GenerateResponseSchema, { id: "msg_up", model: "m", modelVersion: "v1", channel: "local", ...init });
const answer = (parts: PartInit[], finishReason = FinishReason.STOP, more: object = {}) => resp({ candidates: [{ index: 0, parts, finishReason }], ...more } as Init);
const text = (s: string): PartInit => ({ kind: { case: "text", value: { text: s } } });
const thinking = (s: string, sig?: string): PartInit => ({ kind: { case: "thinking", value: { text: s } }, ...(sig ? { signature: { issuer: "anthropic", value: sig } } : {}) });
const call = (id: string, name: string, args?: Record<string, unknown>): PartInit => ({ kind: { case: "toolCall", value: { id, name, ...(args ? { arguments: args as never } : {}) } } });
const custom = (id: string, name: string, input: string): PartInit => ({ kind: { case: "toolCall", value: { id, name, input } } });

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

t.test("a text answer: the whole Response with OpenAI's defaults", async (t) => {
  const r = fromCoreResponse(answer([text("Hel"), text("lo")]), meta(), 1700000005);
  t.same(r, {
    id: "resp_1",
    object: "response",
    created_at: 1700000000,
    status: "completed",
    background: false,
    completed_at: 1700000005,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    max_tool_calls: null,
    model: "gpt-client",
    output: [{ id: id("msg", 0), type: "message", status: "completed", content: [{ type: "output_text", text: "Hello", annotations: [], logprobs: [] }], role: "assistant" }],
    parallel_tool_calls: true,
    previous_response_id: null,
    prompt_cache_key: null,
    reasoning: { effort: null, summary: null },
    safety_identifier: null,
    service_tier: "default",
    store: true,
    temperature: 1,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: "auto",
    tools: [],
    top_logprobs: 0,
    top_p: 1,
    truncation: "disabled",
    usage: { input_tokens: 0, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 },
    user: null,
    metadata: {},
  });
  t.equal(itemId("msg", "resp_" + "ab".repeat(24), 10), "msg_" + "ab".repeat(24) + "0a", "the response's random part and the index");
  t.not(id("msg", 0), id("msg", 1), "another index, another id");
  t.not(id("msg", 0), id("fc", 0), "another kind, another id");
  t.not(id("msg", 0), itemId("msg", "resp_2", 0), "another response, other item ids");
  t.equal(fromCoreResponse(answer([text("x")]), meta()).completed_at, null, "no clock, no completed_at");
});

t.test("echoed request fields", async (t) => {
  const tools = [{ type: "function", name: "f", parameters: {}, strict: false }];
  const r = fromCoreResponse(
    answer([text("x")]),
    meta({
      echo: {
        instructions: "Be brief.",
        tools,
        tool_choice: "required",
        parallel_tool_calls: false,
        reasoning: { effort: "high" },
        text: { format: { type: "json_object" } },
        store: false,
        temperature: 0.2,
        top_p: null,
        max_output_tokens: 100,
        service_tier: "auto",
        metadata: { a: "b" },
        prompt_cache_retention: "24h",
        input: "not echoed",
        stream: true,
      },
    }),
  );
  t.match(r, {
    instructions: "Be brief.",
    tools,
    tool_choice: "required",
    parallel_tool_calls: false,
    reasoning: { effort: "high", summary: null },
    text: { format: { type: "json_object" }, verbosity: "medium" },
    store: false,
    temperature: 0.2,
    top_p: 1,
    max_output_tokens: 100,
    service_tier: "default",
    metadata: { a: "b" },
    prompt_cache_retention: "24h",
  });
  t.notOk("input" in r || "stream" in r, "request-only fields stay out");
  t.equal(fromCoreResponse(answer([text("x")]), meta({ echo: { service_tier: "flex" } })).service_tier, "flex");
});

t.test("reasoning: consecutive thoughts are one item; encrypted_content only when included", async (t) => {
  const parts = [thinking("Let me "), thinking("think.", "sig-1"), text("Answer")];
  const plain = fromCoreResponse(answer(parts), meta()).output as any[];
  t.same(plain, [
    {
      id: id("rs", 0),
      type: "reasoning",
      summary: [
        { type: "summary_text", text: "Let me " },
        { type: "summary_text", text: "think." },
      ],
    },
    { id: id("msg", 1), type: "message", status: "completed", content: [{ type: "output_text", text: "Answer", annotations: [], logprobs: [] }], role: "assistant" },
  ]);
  t.notOk("encrypted_content" in plain[0] || "content" in plain[0]);

  const sealed = fromCoreResponse(answer(parts), meta({ includeEncrypted: true })).output as any[];
  t.match(sealed[0].encrypted_content, /^og1\./);
  const back = openParts(seal, sealed[0].encrypted_content)!;
  t.same(
    back.map((p: Part) => [p.kind.case, (p.kind.value as { text: string }).text, p.signature?.value ?? ""]),
    [
      ["thinking", "Let me ", ""],
      ["thinking", "think.", "sig-1"],
    ],
    "the thoughts with their signature",
  );

  const redacted = fromCoreResponse(answer([{ kind: { case: "redactedThinking", value: { data: "opaque", issuer: "anthropic" } } }, thinking("")]), meta({ includeEncrypted: true })).output as any[];
  t.equal(redacted.length, 1);
  t.same(redacted[0].summary, [], "no thought text, no summary entry");
  t.same(
    openParts(seal, redacted[0].encrypted_content)!.map((p: Part) => p.kind.case),
    ["redactedThinking", "thinking"],
  );

  const split = fromCoreResponse(answer([thinking("a"), call("call_1", "f"), thinking("b"), text("t")]), meta()).output as any[];
  t.same(
    split.map((i) => i.type),
    ["reasoning", "function_call", "reasoning", "message"],
    "a call between thoughts splits them",
  );
  t.same(
    split.map((i) => i.id),
    [id("rs", 0), id("fc", 1), id("rs", 2), id("msg", 3)],
  );
});

t.test("parallel function calls, a namespace, a custom call", async (t) => {
  const toolNames = new Map([
    ["get_weather", { type: "function" as const, name: "get_weather" }],
    ["multi_agent_v1__spawn", { type: "function" as const, name: "spawn", namespace: "multi_agent_v1" }],
    ["apply_patch", { type: "custom" as const, name: "apply_patch" }],
  ]);
  const r = fromCoreResponse(
    answer(
      [
        text("Calling."),
        call("call_1", "get_weather", { city: "Paris" }),
        call("call_2", "multi_agent_v1__spawn"),
        custom("call_3", "apply_patch", "*** Begin Patch\n*** End Patch"),
        call("call_4", "unknown", { a: [1] }),
      ],
      FinishReason.TOOL_USE,
    ),
    meta({ toolNames }),
  );
  t.equal(r.status, "completed");
  t.same((r.output as any[]).slice(1), [
    { id: id("fc", 1), type: "function_call", status: "completed", arguments: '{"city":"Paris"}', call_id: "call_1", name: "get_weather" },
    { id: id("fc", 2), type: "function_call", status: "completed", arguments: "{}", call_id: "call_2", name: "spawn", namespace: "multi_agent_v1" },
    { id: id("ctc", 3), type: "custom_tool_call", status: "completed", call_id: "call_3", name: "apply_patch", input: "*** Begin Patch\n*** End Patch" },
    { id: id("fc", 4), type: "function_call", status: "completed", arguments: '{"a":[1]}', call_id: "call_4", name: "unknown" },
  ]);
});

t.test("incomplete answers, filters and refusals", async (t) => {
  const cut = fromCoreResponse(answer([text("Once upon")], FinishReason.MAX_TOKENS), meta());
  t.match(cut, { status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, completed_at: null });
  t.equal((cut.output as any[])[0].status, "incomplete", "the message that was cut short");
  t.match(fromCoreResponse(answer([text("x")], FinishReason.CONTEXT_WINDOW_EXCEEDED), meta()), { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });

  const filtered = fromCoreResponse(answer([], FinishReason.SAFETY), meta());
  t.match(filtered, { status: "incomplete", incomplete_details: { reason: "content_filter" }, output: [] });

  const blocked = fromCoreResponse(resp({ candidates: [], promptFeedback: { blockReason: BlockReason.SAFETY } }), meta());
  t.match(blocked, { status: "incomplete", incomplete_details: { reason: "content_filter" }, output: [] });

  const refusal: PartInit = { kind: { case: "text", value: { text: "I can't help with that." } }, vendorExtras: { openai: { type: "refusal", refusal: "I can't help with that." } } };
  const refused = fromCoreResponse(resp({ candidates: [{ index: 0, parts: [refusal], finishReason: FinishReason.SAFETY, vendorFinishReason: "refusal" }] }), meta());
  t.match(refused, { status: "completed", incomplete_details: null });
  t.same((refused.output as any[])[0].content, [{ type: "refusal", refusal: "I can't help with that." }]);

  const mixed = fromCoreResponse(answer([text("A"), refusal, text("B")]), meta());
  t.same(
    (mixed.output as any[])[0].content.map((c: any) => c.type),
    ["output_text", "refusal", "output_text"],
  );
  t.equal((mixed.output as any[]).length, 1, "one message");

  t.same((fromCoreResponse(answer([text(""), call("c", "f"), text("")]), meta()).output as any[]).length, 1, "empty texts make no message");
});

t.test("annotations: citations with a url, an OpenAI upstream's url_citations; code as fenced text", async (t) => {
  const cited: PartInit = {
    kind: {
      case: "text",
      value: {
        text: "Paris",
        citations: [
          { type: "web_search_result_location", url: "https://a.example", title: "A", cited_text: "…" },
          { type: "char_location", document_index: 0 },
        ],
      },
    },
  };
  const fromOpenAI: PartInit = {
    kind: { case: "text", value: { text: "" } },
    vendorExtras: { openai: { annotations: [{ type: "url_citation", url_citation: { url: "https://b.example", title: "B", start_index: 0, end_index: 3 } }] } },
  };
  const r = fromCoreResponse(answer([text("The capital is "), cited, text("."), fromOpenAI, { kind: { case: "executableCode", value: { language: "PYTHON", code: "print(1)" } } }]), meta());
  t.same((r.output as any[])[0].content, [
    {
      type: "output_text",
      text: "The capital is Paris.```python\nprint(1)\n```",
      annotations: [
        { type: "url_citation", start_index: 15, end_index: 20, title: "A", url: "https://a.example" },
        { type: "url_citation", start_index: 0, end_index: 3, url: "https://b.example", title: "B" },
      ],
      logprobs: [],
    },
  ]);
});

t.test("an image the model made", async (t) => {
  const r = fromCoreResponse(answer([text("Here."), { kind: { case: "media", value: { mimeType: "image/png", source: { case: "data", value: new Uint8Array([1, 2, 3]) } } } }]), meta());
  t.same((r.output as any[])[1], { id: id("ig", 1), type: "image_generation_call", status: "completed", result: "AQID" });
});

t.test("usage: cached input counts as input; reasoning tokens as output", async (t) => {
  t.same(usageOf({ inputTokens: 60n, cacheReadTokens: 40n, cacheWriteTokens: 5n, outputTokens: 20n, thinkingTokens: 8n } as never), {
    input_tokens: 105,
    input_tokens_details: { cached_tokens: 40, cache_write_tokens: 5 },
    output_tokens: 20,
    output_tokens_details: { reasoning_tokens: 8 },
    total_tokens: 125,
  });
  t.same(fromCoreResponse(answer([text("x")], FinishReason.STOP, { usage: { inputTokens: 3n, outputTokens: 2n } }), meta()).usage, {
    input_tokens: 3,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: 2,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 5,
  });
});

t.test("compaction: exactly one sealed compaction item holding the answer's text", async (t) => {
  const r = fromCoreResponse(
    answer([thinking("hmm", "sig"), text("Summary: "), call("c", "f"), text("done.")], FinishReason.STOP, { usage: { inputTokens: 9n, outputTokens: 4n } }),
    meta({ compact: true }),
  );
  const out = r.output as any[];
  t.equal(out.length, 1);
  t.same(Object.keys(out[0]), ["id", "type", "encrypted_content"]);
  t.match(out[0], { id: id("cmp", 0), type: "compaction", encrypted_content: /^og1\./ });
  const parts = openParts(seal, out[0].encrypted_content)!;
  t.same(
    parts.map((p: Part) => [p.kind.case, (p.kind.value as { text: string }).text]),
    [["text", "Summary: done."]],
  );
  t.match(r, { status: "completed", usage: { input_tokens: 9, output_tokens: 4 } });
});

t.test("web searches: a web_search_call item each, in their place", async (t) => {
  const search = (value: object): PartInit => ({ kind: { case: "webSearchCall", value } as never });
  const r = fromCoreResponse(
    answer([
      search({ id: "srvtoolu_1", queries: ["omnigate"], sources: [{ url: "https://example.com/", title: "Example" }], status: WebSearchStatus.COMPLETED }),
      { kind: { case: "text", value: { text: "A gateway.", citations: [{ type: "web_search_result_location", url: "https://example.com/", title: "Example", cited_text: "gateway" }] } } },
      search({ id: "g1", queries: ["a", "b"], status: WebSearchStatus.UNSPECIFIED }),
      search({ id: "x", queries: [], status: WebSearchStatus.FAILED, errorCode: "max_uses_exceeded" }),
      search({ id: "p", queries: ["later"], status: WebSearchStatus.IN_PROGRESS }),
    ]),
    meta(),
  );
  t.same(r.output, [
    { id: id("ws", 0), type: "web_search_call", status: "completed", action: { type: "search", query: "omnigate", sources: [{ type: "url", url: "https://example.com/" }] } },
    {
      id: id("msg", 1),
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: "A gateway.", annotations: [{ type: "url_citation", start_index: 0, end_index: 10, title: "Example", url: "https://example.com/" }], logprobs: [] }],
    },
    { id: id("ws", 2), type: "web_search_call", status: "completed", action: { type: "search", query: "a", queries: ["a", "b"] } },
    { id: id("ws", 3), type: "web_search_call", status: "failed", action: { type: "search", query: "" } },
    { id: id("ws", 4), type: "web_search_call", status: "in_progress", action: { type: "search", query: "later" } },
  ]);
  t.match(id("ws", 0), /^ws_/);
});

t.test("a hosted tool's item an OpenAI Responses channel made: whole, in its place", async (t) => {
  const item = { id: "ci_1", type: "code_interpreter_call", status: "completed", code: "print(4)", container_id: "c", outputs: null };
  const r = fromCoreResponse(answer([{ vendorExtras: { openai: item } }, text("4")]), meta(), 1);
  const out = r.output as Array<Record<string, unknown>>;
  t.same(out[0], item);
  t.match(out[1], { type: "message", content: [{ text: "4" }] });
  const chatBlock = fromCoreResponse(answer([{ vendorExtras: { openai: { type: "future_part", x: 1 } } }, text("4")]), meta(), 1);
  t.equal((chatBlock.output as unknown[]).length, 1, "another whole block (a Chat content part) is not an item");
});
