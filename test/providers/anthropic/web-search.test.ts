// Web search on Anthropic: the neutral tool as the web_search server tool,
// tool choices that force it, searches in history (Anthropic's own blocks
// back as they came, another vendor's left out), and the server_tool_use +
// web_search_tool_result pair as one WebSearchCall, whole and streamed.
import t from "tap";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { ChatInputSchema, Role, ToolChoiceMode, WebSearchStatus, type Part, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { toVendorRequest } from "../../../src/providers/anthropic/request.js";
import { fromVendorResponse } from "../../../src/providers/anthropic/response.js";
import { AnthropicStreamTranslator } from "../../../src/providers/anthropic/stream.js";
import { messageAsEvents } from "../../../src/providers/anthropic/client.js";
import { collectStream } from "../../../src/core/chat/stream.js";
import { guardStream } from "../../../src/core/chat/stream-guard.js";
import type * as wire from "../../../src/providers/anthropic/wire.js";

type Init = MessageInitShape<typeof ChatInputSchema>;
const request = (init: Init) => toVendorRequest(create(ChatInputSchema, { model: "claude-x", turns: [user("search")], ...init }), "claude-up", { stream: false }).body;
const user = (text: string) => ({ role: Role.USER, parts: [{ kind: { case: "text" as const, value: { text } } }] });
const fn = { kind: { case: "function" as const, value: { name: "f" } } };

const TOOLS: [name: string, tool: Init["tools"], want: unknown][] = [
  ["the plain tool", [{ kind: { case: "webSearch", value: {} } }], [{ type: "web_search_20250305", name: "web_search" }]],
  [
    "every setting Anthropic has; the context size it has not is left out",
    [
      {
        kind: {
          case: "webSearch",
          value: { maxUses: 3, allowedDomains: ["a.example"], blockedDomains: ["b.example"], userLocation: { city: "Paris", country: "FR", timezone: "Europe/Paris" }, contextSize: "high" },
        },
        cacheControl: { type: "ephemeral" },
      },
    ],
    [
      {
        type: "web_search_20250305",
        name: "web_search",
        max_uses: 3,
        allowed_domains: ["a.example"],
        blocked_domains: ["b.example"],
        user_location: { type: "approximate", city: "Paris", country: "FR", timezone: "Europe/Paris" },
        cache_control: { type: "ephemeral" },
      },
    ],
  ],
  [
    "a Messages client's own version and fields, as sent",
    [{ kind: { case: "webSearch", value: { maxUses: 1 } }, vendorExtras: { anthropic: { type: "web_search_20260209", allowed_callers: ["direct"], defer_loading: true } } }],
    [{ type: "web_search_20260209", name: "web_search", max_uses: 1, allowed_callers: ["direct"], defer_loading: true }],
  ],
];

for (const [name, tools, want] of TOOLS) t.same(request({ tools }).tools, want, name);

t.test("tool choices name the search web_search", async (t) => {
  const tools = [{ kind: { case: "webSearch" as const, value: {} } }, fn];
  t.same(request({ tools, toolChoice: { mode: ToolChoiceMode.ANY, allowedNames: ["web_search"] } }).tool_choice, { type: "tool", name: "web_search" }, "forced: Anthropic can");
  const some = request({ tools, toolChoice: { mode: ToolChoiceMode.ANY, allowedNames: ["web_search", "f"] } });
  t.same(some.tool_choice, { type: "any" });
  t.same(
    some.tools?.map((x) => x.name),
    ["web_search", "f"],
  );
});

const use = { type: "server_tool_use", id: "srvtoolu_01A", name: "web_search", input: { query: "omnigate" } };
const result = {
  type: "web_search_tool_result",
  tool_use_id: "srvtoolu_01A",
  content: [{ type: "web_search_result", url: "https://example.com/", title: "Example", encrypted_content: "EqgfCioIARgB", page_age: null }],
};
const cited = { type: "web_search_result_location", url: "https://example.com/", title: "Example", cited_text: "omnigate is a gateway", encrypted_index: "Eo8BCioIAhgB" };
const own: Part["vendorExtras"] = { anthropic: { blocks: [use, result] } };

t.test("searches in history: Anthropic's own blocks as they came, another vendor's left out", async (t) => {
  const search = (vendorExtras: Part["vendorExtras"]) => ({
    kind: { case: "webSearchCall" as const, value: { id: "x", queries: ["omnigate"], sources: [{ url: "https://example.com/", title: "Example" }], status: WebSearchStatus.COMPLETED } },
    vendorExtras,
  });
  const text = (citations: object[]) => ({ kind: { case: "text" as const, value: { text: "omnigate is a gateway", citations: citations as never[] } } });
  const body = request({
    turns: [
      user("search"),
      { role: Role.ASSISTANT, parts: [search(own), text([cited])] },
      user("and?"),
      { role: Role.ASSISTANT, parts: [search({ gemini: { groundingMetadata: {} } })] },
      user("more"),
    ],
  });
  t.same(body.messages[1]!.content, [use, result, { type: "text", text: "omnigate is a gateway", citations: [cited] }], "Anthropic's search and citations go back whole");
  t.same(
    body.messages.map((m) => m.role),
    ["user", "assistant", "user"],
    "a turn with only another vendor's search is left out (the user turns around it merge)",
  );
  const foreign = request({
    turns: [
      user("q"),
      {
        role: Role.ASSISTANT,
        parts: [
          search({}),
          text([
            { ...cited, encrypted_index: undefined },
            { type: "char_location", cited_text: "x", document_index: 0 },
          ]),
        ],
      },
    ],
  });
  t.same(
    foreign.messages[1]!.content,
    [{ type: "text", text: "omnigate is a gateway", citations: [{ type: "char_location", cited_text: "x", document_index: 0 }] }],
    "another vendor's search and its citations are left out, the text stays",
  );
  const uncited = request({ turns: [user("q"), { role: Role.ASSISTANT, parts: [text([{ ...cited, encrypted_index: undefined }])] }] });
  t.same(uncited.messages[1]!.content, [{ type: "text", text: "omnigate is a gateway" }], "no citations left: none sent");
});

/** An answer with these blocks. */
const message = (content: object[], stop = "end_turn"): wire.MessageResponse => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-up",
  content: content as wire.ResponseBlock[],
  stop_reason: stop,
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 5, server_tool_use: { web_search_requests: 1 } },
});

const failed = { type: "web_search_tool_result", tool_use_id: "srvtoolu_01A", content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" } };
const answerText = { type: "text", text: "omnigate is a gateway", citations: [cited] };

/** The search parts of an answer, as plain values. */
const searches = (parts: Part[]) =>
  parts.flatMap((p) =>
    p.kind.case === "webSearchCall"
      ? [
          {
            id: p.kind.value.id,
            queries: p.kind.value.queries,
            sources: p.kind.value.sources.map((s) => ({ url: s.url, title: s.title })),
            status: p.kind.value.status,
            errorCode: p.kind.value.errorCode,
            blocks: p.vendorExtras.anthropic?.blocks,
          },
        ]
      : [],
  );

const ANSWERS: [name: string, content: object[], stop: string, kinds: (string | undefined)[], search: object[]][] = [
  [
    "a search and its result are one part, before the cited text",
    [use, result, answerText],
    "end_turn",
    ["webSearchCall", "text"],
    [{ id: "srvtoolu_01A", queries: ["omnigate"], sources: [{ url: "https://example.com/", title: "Example" }], status: WebSearchStatus.COMPLETED, errorCode: "", blocks: [use, result] }],
  ],
  [
    "a failed search keeps its error code",
    [use, failed, { type: "text", text: "I could not search." }],
    "end_turn",
    ["webSearchCall", "text"],
    [{ id: "srvtoolu_01A", queries: ["omnigate"], sources: [], status: WebSearchStatus.FAILED, errorCode: "max_uses_exceeded", blocks: [use, failed] }],
  ],
  [
    "a paused turn: the search without a result is in progress",
    [{ type: "text", text: "Let me look." }, use],
    "pause_turn",
    ["text", "webSearchCall"],
    [{ id: "srvtoolu_01A", queries: ["omnigate"], sources: [], status: WebSearchStatus.IN_PROGRESS, errorCode: "", blocks: [use] }],
  ],
  [
    "a result that does not follow its search is a block of its own",
    [use, { type: "text", text: "between" }, result],
    "end_turn",
    ["webSearchCall", "text", undefined],
    [{ id: "srvtoolu_01A", queries: ["omnigate"], sources: [], status: WebSearchStatus.IN_PROGRESS, errorCode: "", blocks: [use] }],
  ],
  ["another server tool stays a whole block", [{ type: "server_tool_use", id: "srvtoolu_02", name: "web_fetch", input: { url: "https://example.com/" } }], "end_turn", [undefined], []],
];

async function streamed(m: wire.MessageResponse): Promise<Part[]> {
  const tr = new AnthropicStreamTranslator({ model: "claude-x", channel: "c" });
  const resp = await collectStream(
    guardStream(
      (async function* (): AsyncGenerator<StreamGenerateResponse> {
        for (const e of messageAsEvents(m)) yield* tr.push(e);
      })(),
    ),
  );
  return resp.candidates[0]!.parts;
}

t.test("answers: server_tool_use + web_search_tool_result -> one WebSearchCall, whole and streamed", async (t) => {
  for (const [name, content, stop, kinds, search] of ANSWERS) {
    const m = message(content, stop);
    const whole = fromVendorResponse(m, { model: "claude-x", channel: "c" }).candidates[0]!.parts;
    t.same(
      whole.map((p) => p.kind.case),
      kinds,
      `${name}: parts`,
    );
    t.same(searches(whole), search, `${name}: the search`);
    const parts = await streamed(m);
    t.same(
      parts.map((p) => p.kind.case),
      kinds,
      `${name}: streamed parts`,
    );
    t.same(searches(parts), search, `${name}: streamed search`);
  }
});

t.test("streamed: the search's input comes in deltas; the part waits for its result, and citations reach the text", async (t) => {
  const tr = new AnthropicStreamTranslator({ model: "claude-x", channel: "c" });
  const ev: wire.StreamEvent[] = [
    { type: "message_start", message: { ...message([]), content: [] } },
    { type: "content_block_start", index: 0, content_block: { ...use, input: {} } },
    { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"query": "omni' } },
    { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: 'gate"}' } },
    { type: "content_block_stop", index: 0 },
  ];
  const early = ev.flatMap((e) => tr.push(e));
  t.same(
    early.map((e) => e.event.case),
    ["start"],
    "nothing of the search before its result",
  );
  const rest = [
    { type: "content_block_start", index: 1, content_block: result },
    { type: "content_block_stop", index: 1 },
    { type: "content_block_start", index: 2, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 2, delta: { type: "citations_delta", citation: cited } },
    { type: "content_block_delta", index: 2, delta: { type: "text_delta", text: "omnigate is a gateway" } },
    { type: "content_block_stop", index: 2 },
  ].flatMap((e) => tr.push(e as wire.StreamEvent));
  const start = rest[0]!.event;
  t.equal(start.case, "partStart");
  if (start.case === "partStart") {
    t.equal(start.value.index, 0);
    t.match(start.value.part?.kind, { case: "webSearchCall", value: { id: "srvtoolu_01A", queries: ["omnigate"] } });
    t.same(start.value.part?.vendorExtras.anthropic, { blocks: [use, result] }, "both blocks, the input rebuilt from its deltas");
  }
  t.equal(rest[1]!.event.case, "partStop");
  t.match(
    rest.filter((e) => e.event.case === "partDelta").map((e) => e.event.value),
    [
      { index: 1, delta: { case: "citation" } },
      { index: 1, delta: { case: "text" } },
    ],
  );
});
