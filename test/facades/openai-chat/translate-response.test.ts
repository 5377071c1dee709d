// Response translation, neutral -> chat.completion: content, tool calls,
// reasoning, refusals, finish reasons, usage with cache and reasoning tokens,
// logprobs, and what an OpenAI upstream answered beyond the neutral model.
import t from "tap";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { BlockReason, FinishReason, GenerateResponseSchema, Modality, UsageSchema } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { completionId, finishReasonOf, fingerprintOf, fromCoreCompletion, logprobsOf, usageOf } from "../../../src/facades/openai-chat/translate-response.js";

type Init = MessageInitShape<typeof GenerateResponseSchema>;
const resp = (init: Init) => create(GenerateResponseSchema, { id: "msg_1", model: "m", modelVersion: "v1", channel: "local", ...init });
const opts = { id: "chatcmpl-x", created: 1700000000, model: "gpt-client", legacyFunctions: false };
const text = (s: string) => ({ kind: { case: "text" as const, value: { text: s } } });

t.test("a text answer", async (t) => {
  const c = fromCoreCompletion(resp({ candidates: [{ index: 0, parts: [text("Hel"), text("lo")], finishReason: FinishReason.STOP }], usage: { inputTokens: 3n, outputTokens: 2n } }), opts);
  t.same(c, {
    id: "chatcmpl-x",
    object: "chat.completion",
    created: 1700000000,
    model: "gpt-client",
    choices: [{ index: 0, message: { role: "assistant", content: "Hello", refusal: null, annotations: [] }, logprobs: null, finish_reason: "stop" }],
    usage: {
      prompt_tokens: 3,
      completion_tokens: 2,
      total_tokens: 5,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    },
    system_fingerprint: fingerprintOf("local", "v1"),
  });
  t.match(c.system_fingerprint, /^fp_[0-9a-f]{10}$/);
  t.equal(fingerprintOf("local", "v1"), fingerprintOf("local", "v1"), "the same backend, the same fingerprint");
  t.not(fingerprintOf("local", "v1"), fingerprintOf("local", "v2"));
});

t.test("tool calls, reasoning, code, candidates in order", async (t) => {
  const c = fromCoreCompletion(
    resp({
      candidates: [
        {
          index: 1,
          parts: [text("second")],
          finishReason: FinishReason.MAX_TOKENS,
        },
        {
          index: 0,
          parts: [
            { kind: { case: "thinking", value: { text: "Let me " } } },
            { kind: { case: "thinking", value: { text: "think." } }, signature: { issuer: "anthropic", value: "sig" } },
            { kind: { case: "toolCall", value: { id: "call_1", name: "get_weather", arguments: { city: "Paris" } } } },
            { kind: { case: "toolCall", value: { id: "toolu_2", name: "get_time" } } },
            { kind: { case: "executableCode", value: { language: "PYTHON", code: "print(1)" } } },
          ],
          finishReason: FinishReason.STOP,
        },
      ],
    }),
    opts,
  );
  t.same(
    c.choices.map((x) => x.index),
    [0, 1],
  );
  const m = c.choices[0]!.message;
  t.equal(m.reasoning_content, "Let me think.", "thinking text as reasoning_content");
  t.same(m.tool_calls, [
    { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
    { id: "toolu_2", type: "function", function: { name: "get_time", arguments: "{}" } },
  ]);
  t.equal(m.content, "```python\nprint(1)\n```");
  t.equal(c.choices[0]!.finish_reason, "tool_calls", "a stop with calls is tool_calls");
  t.equal(c.choices[1]!.finish_reason, "length");
  const only = fromCoreCompletion(
    resp({ candidates: [{ index: 0, parts: [{ kind: { case: "toolCall", value: { id: "c", name: "f", arguments: {} } } }], finishReason: FinishReason.TOOL_USE }] }),
    opts,
  );
  t.equal(only.choices[0]!.message.content, null, "content is null beside calls alone");
  const legacy = fromCoreCompletion(
    resp({ candidates: [{ index: 0, parts: [{ kind: { case: "toolCall", value: { id: "c", name: "f", arguments: { a: 1 } } } }], finishReason: FinishReason.TOOL_USE }] }),
    {
      ...opts,
      legacyFunctions: true,
    },
  );
  t.same(legacy.choices[0]!.message.function_call, { name: "f", arguments: '{"a":1}' }, "the functions API: function_call");
  t.notOk("tool_calls" in legacy.choices[0]!.message);
  t.equal(legacy.choices[0]!.finish_reason, "function_call");
});

t.test("a custom tool's call: type custom with its input", async (t) => {
  const c = fromCoreCompletion(
    resp({
      candidates: [
        {
          index: 0,
          parts: [
            { kind: { case: "toolCall", value: { id: "call_p", name: "apply_patch", input: "*** Begin Patch\n*** End Patch" } } },
            { kind: { case: "toolCall", value: { id: "call_e", name: "exec_command", arguments: { cmd: "ls" } } } },
            { kind: { case: "toolCall", value: { id: "call_n", name: "note", input: "" } } },
          ],
          finishReason: FinishReason.TOOL_USE,
        },
      ],
    }),
    opts,
  );
  t.same(c.choices[0]!.message.tool_calls, [
    { id: "call_p", type: "custom", custom: { name: "apply_patch", input: "*** Begin Patch\n*** End Patch" } },
    { id: "call_e", type: "function", function: { name: "exec_command", arguments: '{"cmd":"ls"}' } },
    { id: "call_n", type: "custom", custom: { name: "note", input: "" } },
  ]);
  t.equal(c.choices[0]!.message.content, null);
  t.equal(c.choices[0]!.finish_reason, "tool_calls");
});

t.test("what an OpenAI upstream answered beyond the neutral model comes back", async (t) => {
  const annotation = { type: "url_citation", url_citation: { start_index: 0, end_index: 5, url: "https://example.com", title: "Ex" } };
  const c = fromCoreCompletion(
    resp({
      vendorExtras: { openai: { system_fingerprint: "fp_up", service_tier: "default", prompt_filter_results: [] } },
      candidates: [
        {
          index: 0,
          parts: [
            { kind: { case: "text", value: { text: "Hello" } }, vendorExtras: { openai: { annotations: [annotation], audio: { id: "a1" } } } },
            { kind: { case: "text", value: { text: "" } }, vendorExtras: { openai: { annotations: [annotation] } } },
            { vendorExtras: { openai: { id: "call_c", type: "custom", custom: { name: "sql", input: "SELECT 1" } } } },
            { vendorExtras: { anthropic: { type: "server_tool_use", id: "srv_1" } } },
          ],
          finishReason: FinishReason.TOOL_USE,
        },
      ],
    }),
    { ...opts, serviceTier: "flex" },
  );
  const m = c.choices[0]!.message;
  t.same(m.annotations, [annotation, annotation], "annotations gathered from the text parts");
  t.same(m.audio, { id: "a1" }, "other message fields as they came");
  t.equal(m.content, "Hello");
  t.same(m.tool_calls, [{ id: "call_c", type: "custom", custom: { name: "sql", input: "SELECT 1" } }], "a custom tool's call whole; another vendor's block left out");
  t.equal(c.system_fingerprint, "fp_up");
  t.equal(c.service_tier, "default", "the upstream's tier over the request's");
  t.same(c.prompt_filter_results, [], "newer response fields as they came");
  t.equal(fromCoreCompletion(resp({ candidates: [] }), { ...opts, serviceTier: "flex" }).service_tier, "flex", "the request's tier echoed when the upstream named none");
  t.notOk("service_tier" in fromCoreCompletion(resp({ candidates: [] }), opts));
});

t.test("refusals and filtered answers", async (t) => {
  const refused = fromCoreCompletion(
    resp({
      candidates: [
        {
          index: 0,
          parts: [{ kind: { case: "text", value: { text: "I can't help with that." } }, vendorExtras: { openai: { type: "refusal", refusal: "I can't help with that." } } }],
          finishReason: FinishReason.SAFETY,
          vendorFinishReason: "refusal",
        },
      ],
    }),
    opts,
  );
  t.same(refused.choices[0]!.message, { role: "assistant", content: null, refusal: "I can't help with that.", annotations: [] }, "OpenAI's refusal in its own field");
  t.equal(refused.choices[0]!.finish_reason, "stop");
  const claude = fromCoreCompletion(resp({ candidates: [{ index: 0, parts: [text("Partial")], finishReason: FinishReason.SAFETY, vendorFinishReason: "refusal" }] }), opts);
  t.equal(claude.choices[0]!.finish_reason, "content_filter", "another vendor's refusal is a filtered answer");
  t.equal(claude.choices[0]!.message.content, "Partial");
  const blocked = fromCoreCompletion(resp({ candidates: [], promptFeedback: { blockReason: BlockReason.SAFETY } }), opts);
  t.same(
    blocked.choices,
    [{ index: 0, message: { role: "assistant", content: null, refusal: null, annotations: [] }, logprobs: null, finish_reason: "content_filter" }],
    "a blocked prompt: one filtered choice",
  );
  const filtered: [FinishReason, string][] = [
    [FinishReason.RECITATION, "content_filter"],
    [FinishReason.PROHIBITED_CONTENT, "content_filter"],
    [FinishReason.CONTEXT_WINDOW_EXCEEDED, "length"],
    [FinishReason.STOP_SEQUENCE, "stop"],
    [FinishReason.PAUSE_TURN, "stop"],
    [FinishReason.UNSPECIFIED, "stop"],
  ];
  for (const [f, want] of filtered) t.equal(finishReasonOf({ finishReason: f, vendorFinishReason: "" }, { hasToolCall: false, refused: false, legacyFunctions: false }), want, FinishReason[f]);
});

t.test("usage: cached prompt tokens count in the prompt, reasoning in the completion", async (t) => {
  const u = usageOf(
    create(UsageSchema, {
      inputTokens: 100n,
      cacheReadTokens: 1000n,
      cacheWriteTokens: 50n,
      outputTokens: 40n,
      thinkingTokens: 30n,
      inputDetails: [
        { modality: Modality.TEXT, tokenCount: 90n },
        { modality: Modality.AUDIO, tokenCount: 10n },
      ],
    }),
  );
  t.same(u, {
    prompt_tokens: 1150,
    completion_tokens: 40,
    total_tokens: 1190,
    prompt_tokens_details: { cached_tokens: 1000, audio_tokens: 10 },
    completion_tokens_details: { reasoning_tokens: 30, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  });
  t.equal(usageOf(undefined).total_tokens, 0);
});

t.test("logprobs with their bytes", async (t) => {
  t.equal(logprobsOf(undefined), null);
  const lp = logprobsOf(
    create(GenerateResponseSchema, {
      candidates: [
        {
          logprobs: {
            chosenCandidates: [{ token: "é", logProbability: -0.5 }],
            topCandidates: [
              {
                candidates: [
                  { token: "é", logProbability: -0.5 },
                  { token: "e", logProbability: -1 },
                ],
              },
            ],
          },
        },
      ],
    }).candidates[0]!.logprobs,
  );
  t.same(lp, {
    content: [
      {
        token: "é",
        logprob: -0.5,
        bytes: [195, 169],
        top_logprobs: [
          { token: "é", logprob: -0.5, bytes: [195, 169] },
          { token: "e", logprob: -1, bytes: [101] },
        ],
      },
    ],
    refusal: null,
  });
});

t.test("completion ids", async (t) => {
  t.equal(completionId("chatcmpl-up", "chatcmpl-ours"), "chatcmpl-up", "an upstream completion id is kept");
  t.equal(completionId("msg_01", "chatcmpl-ours"), "chatcmpl-ours");
  t.equal(completionId("", "chatcmpl-ours"), "chatcmpl-ours");
});

t.test("another vendor's citations with a url become url_citation annotations over the text they cite", async (t) => {
  const cite = { type: "web_search_result_location", url: "https://example.com/a", title: "A", cited_text: "sky" };
  const c = fromCoreCompletion(
    resp({
      candidates: [
        {
          index: 0,
          parts: [text("Look: "), { kind: { case: "text", value: { text: "the sky is blue", citations: [cite, { type: "char_location", document_index: 0 }] } } }, text(".")],
          finishReason: FinishReason.STOP,
        },
      ],
    }),
    opts,
  );
  const m = c.choices[0]!.message;
  t.equal(m.content, "Look: the sky is blue.");
  t.same(m.annotations, [{ type: "url_citation", url_citation: { start_index: 6, end_index: 21, title: "A", url: "https://example.com/a" } }], "a document location has no url: left out");
  t.equal(m.content!.slice(6, 21), "the sky is blue");
});

t.test("a hosted tool's Responses item is no tool call; a Chat client's own whole call is", async (t) => {
  const hosted = { vendorExtras: { openai: { id: "ci_1", type: "code_interpreter_call", code: "print(4)" } } };
  const future = { vendorExtras: { openai: { id: "call_9", type: "future", future: { x: 1 } } } };
  const out = fromCoreCompletion(resp({ candidates: [{ index: 0, parts: [hosted, future, text("4")], finishReason: FinishReason.STOP }] } as Init), opts);
  const message = (out.choices[0] as { message: { tool_calls?: unknown[]; content: string } }).message;
  t.same(message.tool_calls, [{ id: "call_9", type: "future", future: { x: 1 } }]);
  t.equal(message.content, "4");
});
