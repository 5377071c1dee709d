// Responses object -> neutral GenerateResponse: table tests of the output
// items, usage, finish reasons and a failed response.
import t from "tap";
import { Code, ConnectError } from "@connectrpc/connect";
import { FinishReason, WebSearchStatus } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { errorDetail } from "../../../src/core/errors.js";
import { fromVendorResponse } from "../../../src/providers/openai-responses/response.js";
import type * as wire from "../../../src/providers/openai-responses/wire.js";
import { ENCRYPTED, wholeResponse } from "./fixtures.js";

const ctx = { model: "client-model", channel: "resp", newId: () => "call_new" };
const from = (r: object) => fromVendorResponse(r as wire.Response, ctx);
const only = (output: object[], extra: object = {}) => from({ id: "resp_1", status: "completed", output, ...extra });

t.test("reasoning, cited text and a function call; usage with cached and reasoning tokens", async (t) => {
  const r = from(wholeResponse);
  t.same([r.id, r.model, r.modelVersion, r.channel], ["resp_0a", "client-model", "gpt-5-codex-2025-09-15", "resp"]);
  const [thinking, text, call] = r.candidates[0]!.parts;
  t.same(thinking!.kind.case === "thinking" && thinking!.kind.value.text, "**Checking the weather**\n\nParis needs a lookup.");
  t.same([thinking!.signature?.issuer, thinking!.signature?.value], ["openai", ENCRYPTED]);
  t.same(text!.kind.case === "text" && [text!.kind.value.text, text!.kind.value.citations], [
    "Let me check Paris.",
    [{ type: "web_search_result_location", url: "https://paris.example/", title: "Paris", cited_text: "Paris" }],
  ]);
  t.same(call!.kind.case === "toolCall" && [call!.kind.value.id, call!.kind.value.name, call!.kind.value.arguments], ["call_w1", "get_weather", { city: "Paris" }]);
  t.equal(r.candidates[0]!.finishReason, FinishReason.TOOL_USE);
  t.same([r.usage?.inputTokens, r.usage?.cacheReadTokens, r.usage?.outputTokens, r.usage?.thinkingTokens], [100n, 20n, 60n, 32n]);
  t.same(r.vendorExtras, { openai: { service_tier: "default" } });
});

const table: [string, object[], object, (string | undefined)[], FinishReason, string][] = [
  ["plain text", [{ type: "message", content: [{ type: "output_text", text: "hi", annotations: [] }] }], {}, ["text"], FinishReason.STOP, ""],
  ["a lone refusal", [{ type: "message", content: [{ type: "refusal", refusal: "no" }] }], {}, ["text"], FinishReason.SAFETY, "refusal"],
  ["a custom tool's call", [{ type: "custom_tool_call", call_id: "call_c", name: "apply_patch", input: "patch" }], {}, ["toolCall"], FinishReason.TOOL_USE, ""],
  [
    "cut at max_output_tokens",
    [{ type: "message", content: [{ type: "output_text", text: "hal" }] }],
    { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } },
    ["text"],
    FinishReason.MAX_TOKENS,
    "",
  ],
  ["filtered", [], { status: "incomplete", incomplete_details: { reason: "content_filter" } }, [], FinishReason.SAFETY, "content_filter"],
  ["reasoning with nothing in it is left out", [{ type: "reasoning", summary: [] }], {}, [], FinishReason.STOP, ""],
  ["raw reasoning text (open-weight servers)", [{ type: "reasoning", summary: [], content: [{ type: "reasoning_text", text: "think" }] }], {}, ["thinking"], FinishReason.STOP, ""],
  ["a web search call", [{ id: "ws_1", type: "web_search_call", status: "completed", action: { type: "search", query: "q" } }], {}, ["webSearchCall"], FinishReason.STOP, ""],
  ["a hosted tool's call, whole", [{ id: "ci_1", type: "code_interpreter_call", status: "completed", code: "1+1" }], {}, [undefined], FinishReason.STOP, ""],
];
for (const [name, output, extra, kinds, finish, vendor] of table) {
  t.test(name, async (t) => {
    const c = only(output, extra).candidates[0]!;
    t.same(
      c.parts.map((p) => p.kind.case),
      kinds,
    );
    t.same([FinishReason[c.finishReason], c.vendorFinishReason], [FinishReason[finish], vendor]);
  });
}

t.test("refusals stand in for OpenAI's; a web search call and hosted items carry the whole item", async (t) => {
  const search = { id: "ws_1", type: "web_search_call", status: "completed", action: { type: "search", query: "q", sources: [{ type: "url", url: "https://s.example/", title: "S" }] } };
  const hosted = { id: "ci_1", type: "code_interpreter_call", status: "completed", code: "1+1" };
  const [refusal, ws, ci] = only([{ type: "message", content: [{ type: "refusal", refusal: "no" }] }, search, hosted]).candidates[0]!.parts;
  t.same([refusal!.kind.case === "text" && refusal!.kind.value.text, refusal!.vendorExtras], ["no", { openai: { type: "refusal", refusal: "no" } }]);
  t.same(ws!.kind.case === "webSearchCall" && [ws!.kind.value.id, ws!.kind.value.queries, ws!.kind.value.sources.map((s) => [s.url, s.title]), ws!.kind.value.status], [
    "ws_1",
    ["q"],
    [["https://s.example/", "S"]],
    WebSearchStatus.COMPLETED,
  ]);
  t.same(ws!.vendorExtras.openai, search);
  t.same(ci!.vendorExtras.openai, hosted);
});

t.test("annotations other than url citations stay OpenAI's; logprobs", async (t) => {
  const fileCite = { type: "file_citation", index: 0, file_id: "file_1", filename: "a.pdf" };
  const r = only([
    { type: "message", content: [{ type: "output_text", text: "ab", annotations: [fileCite], logprobs: [{ token: "ab", logprob: -0.5, top_logprobs: [{ token: "ab", logprob: -0.5 }] }] }] },
  ]);
  const p = r.candidates[0]!.parts[0]!;
  t.same([p.kind.case === "text" && p.kind.value.citations, p.vendorExtras], [[], { openai: { annotations: [fileCite] } }]);
  t.same(
    r.candidates[0]!.logprobs?.chosenCandidates.map((c) => [c.token, c.logProbability]),
    [["ab", -0.5]],
  );
});

t.test("a failed response is its error", async (t) => {
  try {
    only([], { status: "failed", error: { code: "rate_limit_exceeded", message: "slow" } });
    t.fail("expected a ConnectError");
  } catch (e) {
    t.ok(e instanceof ConnectError);
    t.same([Code[(e as ConnectError).code], errorDetail(e as ConnectError)?.reason], ["ResourceExhausted", "rate_limited"]);
  }
});

t.test("a call a server sent without call_id or id gets a new id", async (t) => {
  const p = only([{ type: "function_call", name: "f", arguments: "{}" }]).candidates[0]!.parts[0]!;
  t.equal(p.kind.case === "toolCall" && p.kind.value.id, "call_new");
});
