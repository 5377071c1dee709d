// The Responses stream translator: a recorded-shape stream -> the neutral
// events (golden), text sent only in `.done` events, hosted items whole,
// finish reasons, and upstream failures as ConnectErrors.
import t from "tap";
import { Code, ConnectError } from "@connectrpc/connect";
import { FinishReason, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { collectStream } from "../../../src/core/chat/stream.js";
import { errorDetail } from "../../../src/core/errors.js";
import { ResponsesStreamTranslator } from "../../../src/providers/openai-responses/stream.js";
import type * as wire from "../../../src/providers/openai-responses/wire.js";
import { ENCRYPTED, streamEvents, usage, wholeResponse } from "./fixtures.js";

const ctx = { model: "client-model", channel: "resp", newId: () => "call_new" };
const run = (events: object[]) => {
  const tr = new ResponsesStreamTranslator(ctx);
  return [...events.flatMap((e) => tr.push(e as wire.StreamEvent)), ...tr.end()];
};

/** One line per neutral event. */
function line(e: StreamGenerateResponse): string {
  const k = e.event;
  switch (k.case) {
    case "start":
      return `start ${k.value.id} ${k.value.model} ${k.value.modelVersion} ${k.value.channel}`;
    case "partStart": {
      const p = k.value.part!;
      const pk = p.kind;
      const what = pk.case === "toolCall" ? `toolCall ${pk.value.id} ${pk.value.name}${pk.value.input !== undefined ? " custom" : ""}` : (pk.case ?? "none");
      const x = Object.keys(p.vendorExtras).length ? ` ${JSON.stringify(p.vendorExtras)}` : "";
      return `part_start ${k.value.index} ${what}${x}`;
    }
    case "partDelta": {
      const d = k.value.delta;
      const v = d.case === "signature" ? `${d.value.issuer}:${d.value.value}` : d.case === "citation" ? JSON.stringify(d.value) : JSON.stringify(d.value);
      return `delta ${k.value.index} ${d.case} ${v}`;
    }
    case "partStop":
      return `stop ${k.value.index}`;
    case "finish":
      return `finish ${FinishReason[k.value.finishReason]}${k.value.vendorFinishReason ? " " + k.value.vendorFinishReason : ""}`;
    case "usage":
      return `usage in=${k.value.inputTokens} cache=${k.value.cacheReadTokens} out=${k.value.outputTokens} think=${k.value.thinkingTokens}`;
    default:
      return String(k.case);
  }
}

t.test("golden: reasoning summaries, cited text, a function call and usage", async (t) => {
  t.same(run(streamEvents).map(line), [
    "start resp_0a client-model gpt-5-codex-2025-09-15 resp",
    "part_start 0 thinking",
    'delta 0 thinking "**Checking"',
    'delta 0 thinking " the weather**"',
    'delta 0 thinking "\\n\\nParis needs a lookup."',
    `delta 0 signature openai:${ENCRYPTED}`,
    "stop 0",
    "part_start 1 text",
    'delta 1 text "Let me check "',
    'delta 1 text "Paris."',
    'delta 1 citation {"type":"web_search_result_location","url":"https://paris.example/","title":"Paris","cited_text":"Paris"}',
    "stop 1",
    "part_start 2 toolCall call_w1 get_weather",
    'delta 2 argumentsJson "{\\"city\\":"',
    'delta 2 argumentsJson "\\"Paris\\"}"',
    "stop 2",
    "finish TOOL_USE",
    "usage in=100 cache=20 out=60 think=32",
  ]);
});

t.test("the stream and the whole answer collect to the same parts", async (t) => {
  const streamed = await collectStream(
    (async function* () {
      yield* run(streamEvents);
    })(),
  );
  const { fromVendorResponse } = await import("../../../src/providers/openai-responses/response.js");
  const whole = fromVendorResponse(wholeResponse, ctx);
  t.same(streamed.candidates[0]!.parts, whole.candidates[0]!.parts);
  t.equal(streamed.candidates[0]!.finishReason, whole.candidates[0]!.finishReason);
});

const head = [{ type: "response.created", response: { id: "resp_b", model: "m" } }];

t.test("text, arguments and reasoning sent only whole (no deltas) still arrive", async (t) => {
  const lines = run([
    ...head,
    { type: "response.output_item.added", output_index: 0, item: { type: "reasoning", summary: [] } },
    { type: "response.output_item.done", output_index: 0, item: { type: "reasoning", summary: [], encrypted_content: "enc-only" } },
    { type: "response.output_item.added", output_index: 1, item: { type: "message", content: [] } },
    { type: "response.output_item.done", output_index: 1, item: { type: "message", content: [{ type: "output_text", text: "whole text", annotations: [] }] } },
    { type: "response.output_item.added", output_index: 2, item: { type: "custom_tool_call", call_id: "call_c", name: "apply_patch", input: "" } },
    { type: "response.custom_tool_call_input.done", output_index: 2, input: "*** Begin Patch" },
    { type: "response.output_item.done", output_index: 2, item: { type: "custom_tool_call", call_id: "call_c", name: "apply_patch", input: "*** Begin Patch" } },
    { type: "response.completed", response: { status: "completed", usage } },
  ]).map(line);
  t.same(lines.slice(1), [
    "part_start 0 thinking",
    "delta 0 signature openai:enc-only",
    "stop 0",
    "part_start 1 text",
    'delta 1 text "whole text"',
    "stop 1",
    "part_start 2 toolCall call_c apply_patch custom",
    'delta 2 input "*** Begin Patch"',
    "stop 2",
    "finish TOOL_USE",
    "usage in=100 cache=20 out=60 think=32",
  ]);
});

t.test("a web search call and a hosted item arrive whole; other annotations on a part of their own", async (t) => {
  const search = { id: "ws_1", type: "web_search_call", status: "completed", action: { type: "search", query: "paris weather", sources: [{ type: "url", url: "https://w.example/" }] } };
  const image = { id: "ig_1", type: "image_generation_call", status: "completed", result: "aGk=" };
  const fileCite = { type: "file_citation", index: 3, file_id: "file_1", filename: "a.pdf" };
  const lines = run([
    ...head,
    { type: "response.output_item.added", output_index: 0, item: { ...search, status: "in_progress" } },
    { type: "response.web_search_call.searching", output_index: 0, item_id: "ws_1" },
    { type: "response.output_item.done", output_index: 0, item: search },
    { type: "response.output_item.done", output_index: 1, item: image },
    { type: "response.content_part.added", output_index: 2, content_index: 0, part: { type: "output_text" } },
    { type: "response.output_text.delta", output_index: 2, content_index: 0, delta: "see file" },
    { type: "response.output_text.annotation.added", output_index: 2, content_index: 0, annotation: fileCite },
    { type: "response.content_part.done", output_index: 2, content_index: 0 },
    { type: "response.output_item.done", output_index: 2, item: { type: "message", content: [{ type: "output_text", text: "see file" }] } },
    { type: "response.completed", response: { status: "completed" } },
  ]).map(line);
  t.same(lines.slice(1), [
    `part_start 0 webSearchCall ${JSON.stringify({ openai: search })}`,
    "stop 0",
    `part_start 1 none ${JSON.stringify({ openai: image })}`,
    "stop 1",
    "part_start 2 text",
    'delta 2 text "see file"',
    "stop 2",
    `part_start 3 text ${JSON.stringify({ openai: { annotations: [fileCite] } })}`,
    "stop 3",
    "finish STOP",
  ]);
});

t.test("finish reasons: incomplete for length and content filter, a lone refusal", async (t) => {
  const fin = (events: object[]) =>
    run([...head, ...events])
      .map(line)
      .filter((l) => l.startsWith("finish"));
  t.same(fin([{ type: "response.incomplete", response: { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } } }]), ["finish MAX_TOKENS"]);
  t.same(fin([{ type: "response.incomplete", response: { status: "incomplete", incomplete_details: { reason: "content_filter" } } }]), ["finish SAFETY content_filter"]);
  const refusal = [
    { type: "response.content_part.added", output_index: 0, content_index: 0, part: { type: "refusal", refusal: "" } },
    { type: "response.refusal.delta", output_index: 0, content_index: 0, delta: "I can't help with that." },
    { type: "response.completed", response: { status: "completed" } },
  ];
  t.same(fin(refusal), ["finish SAFETY refusal"]);
  const start = run([...head, ...refusal]).find((e) => e.event.case === "partStart")!;
  t.same(start.event.case === "partStart" && start.event.value.part?.vendorExtras, { openai: { type: "refusal", refusal: "" } }, "a refusal stands in for OpenAI's");
});

t.test("no response.completed: the candidate is left unfinished (the guard reports truncation)", async (t) => {
  const lines = run([...head, { type: "response.output_text.delta", output_index: 0, content_index: 0, delta: "cut" }]).map(line);
  t.notOk(lines.some((l) => l.startsWith("finish")));
});

const failure = (events: object[]) => {
  try {
    run(events);
  } catch (e) {
    if (!(e instanceof ConnectError)) throw e;
    return [Code[e.code], errorDetail(e)?.reason];
  }
  throw new Error("expected a ConnectError");
};

t.test("response.failed and the flat error event end the stream with the mapped error", async (t) => {
  t.same(failure([...head, { type: "response.failed", response: { status: "failed", error: { code: "server_error", message: "boom" } } }]), ["Internal", "upstream_error"]);
  t.same(failure([...head, { type: "response.failed", response: { status: "failed", error: { code: "rate_limit_exceeded", message: "slow down" } } }]), ["ResourceExhausted", "rate_limited"]);
  t.same(failure([...head, { type: "error", code: "invalid_prompt", message: "flagged", param: null }]), ["InvalidArgument", "upstream_invalid_request"]);
  t.same(failure([{ type: "error", code: null, message: "overloaded" }]), ["Internal", "upstream_error"]);
});

t.test("a delta for a part after another began is a protocol error", async (t) => {
  t.same(
    failure([
      ...head,
      { type: "response.output_item.added", output_index: 0, item: { type: "function_call", call_id: "c1", name: "f" } },
      { type: "response.content_part.added", output_index: 1, content_index: 0, part: { type: "output_text" } },
      { type: "response.function_call_arguments.delta", output_index: 0, delta: "{}" },
    ]),
    ["Internal", "upstream_protocol_error"],
  );
});
