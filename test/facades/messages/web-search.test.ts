// Web search on the Messages wire: the web_search server tool (any version)
// as the neutral tool, Anthropic's own search blocks as they came, another
// vendor's search drawn as server_tool_use + web_search_tool_result (whole
// and streamed), and those drawn blocks, sent back, as a search no upstream
// gets.
import t from "tap";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { FinishReason, GenerateResponseSchema, WebSearchStatus, type Part } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { responseToEvents } from "../../../src/core/chat/stream.js";
import { MessagesStreamTranslator } from "../../../src/facades/messages/sse.js";
import { fromCoreMessage, toCoreChatInput } from "../../../src/facades/messages/translate.js";
import * as wire from "../../../src/facades/messages/wire.js";

const ctx = { betas: [], requestId: "req_1" };
const ask = { role: "user", content: "search" };
const toolOf = (tool: object) => toCoreChatInput(wire.messagesRequest.parse({ model: "claude-x", max_tokens: 10, tools: [tool], messages: [ask] }), ctx).input.tools[0]!;

const TOOLS: [name: string, tool: object, value: object, extras: object | undefined, cache: boolean][] = [
  ["the plain tool", { type: "web_search_20250305", name: "web_search" }, {}, { type: "web_search_20250305" }, false],
  [
    "every neutral setting; the version and Anthropic's own fields in the extras",
    {
      type: "web_search_20260209",
      name: "web_search",
      max_uses: 5,
      allowed_domains: ["a.example"],
      blocked_domains: ["b.example"],
      user_location: { type: "approximate", city: "Paris", region: null, country: "FR", timezone: "Europe/Paris" },
      allowed_callers: ["direct"],
      defer_loading: true,
      cache_control: { type: "ephemeral" },
    },
    { maxUses: 5, allowedDomains: ["a.example"], blockedDomains: ["b.example"], userLocation: { city: "Paris", region: "", country: "FR", timezone: "Europe/Paris" } },
    { type: "web_search_20260209", allowed_callers: ["direct"], defer_loading: true },
    true,
  ],
  [
    "settings the neutral tool cannot hold stay as sent, for Anthropic",
    { type: "web_search_20250305", name: "web_search", max_uses: "2", blocked_domains: null, user_location: { type: "exact", city: "Paris" } },
    {},
    { type: "web_search_20250305", max_uses: "2", blocked_domains: null, user_location: { type: "exact", city: "Paris" } },
    false,
  ],
];

t.test("toCore: web_search_* is the neutral web search", async (t) => {
  for (const [name, tool, value, extras, cache] of TOOLS) {
    const got = toolOf(tool);
    const k = got.kind;
    t.equal(k.case, "webSearch", name);
    if (k.case !== "webSearch") continue;
    const l = k.value.userLocation;
    t.same(
      {
        maxUses: k.value.maxUses,
        allowedDomains: k.value.allowedDomains,
        blockedDomains: k.value.blockedDomains,
        ...(l ? { userLocation: { city: l.city, region: l.region, country: l.country, timezone: l.timezone } } : {}),
      },
      { maxUses: 0, allowedDomains: [], blockedDomains: [], ...value },
      `${name}: settings`,
    );
    t.same(got.vendorExtras.anthropic, extras, `${name}: extras`);
    t.equal(got.cacheControl?.type, cache ? "ephemeral" : undefined, `${name}: cache control`);
  }
  t.equal(toolOf({ type: "web_fetch_20250910", name: "web_fetch" }).kind.case, "vendor", "web fetch stays Anthropic's own");
});

const use = { type: "server_tool_use", id: "srvtoolu_01A", name: "web_search", input: { query: "omnigate" } };
const result = {
  type: "web_search_tool_result",
  tool_use_id: "srvtoolu_01A",
  content: [{ type: "web_search_result", url: "https://example.com/", title: "Example", encrypted_content: "EqgfCioIARgB", page_age: null }],
};

type PartInit = MessageInitShape<typeof GenerateResponseSchema>["candidates"] extends (infer C)[] | undefined ? (C extends { parts?: (infer P)[] } ? P : never) : never;
const answer = (parts: PartInit[]) =>
  create(GenerateResponseSchema, { id: "msg_1", model: "claude-x", candidates: [{ index: 0, parts, finishReason: FinishReason.STOP }], usage: { inputTokens: 3n, outputTokens: 2n } });
const search = (value: object, vendorExtras = {}): PartInit => ({ kind: { case: "webSearchCall", value } as never, vendorExtras });
const text = (s: string): PartInit => ({ kind: { case: "text", value: { text: s } } });

const drawnUse = { type: "server_tool_use", id: "srvtoolu_gw_call_1", name: "web_search", input: { query: "omnigate gateway", queries: ["omnigate gateway", "omnigate ai"] } };
const drawnResult = {
  type: "web_search_tool_result",
  tool_use_id: "srvtoolu_gw_call_1",
  content: [{ type: "web_search_result", url: "https://example.com/", title: "Example", encrypted_content: "", page_age: null }],
};

const ANSWERS: [name: string, parts: PartInit[], content: object[]][] = [
  [
    "Anthropic's own search: its blocks as they came",
    [search({ id: "srvtoolu_01A", queries: ["omnigate"] }, { anthropic: { blocks: [use, result] } }), text("Found.")],
    [use, result, { type: "text", text: "Found." }],
  ],
  [
    "another vendor's search, drawn in the same two blocks",
    [
      search(
        { id: "call_1", queries: ["omnigate gateway", "omnigate ai"], sources: [{ url: "https://example.com/", title: "Example" }], status: WebSearchStatus.COMPLETED },
        { gemini: { groundingMetadata: {} } },
      ),
      text("Found."),
    ],
    [drawnUse, drawnResult, { type: "text", text: "Found." }],
  ],
  [
    "a failed one: an error result",
    [search({ id: "x-1", queries: ["q"], status: WebSearchStatus.FAILED, errorCode: "too_many_requests" })],
    [
      { type: "server_tool_use", id: "srvtoolu_gw_x1", name: "web_search", input: { query: "q" } },
      { type: "web_search_tool_result", tool_use_id: "srvtoolu_gw_x1", content: { type: "web_search_tool_result_error", error_code: "too_many_requests" } },
    ],
  ],
  [
    "one in progress: the use alone",
    [search({ id: "p", queries: ["q"], status: WebSearchStatus.IN_PROGRESS })],
    [{ type: "server_tool_use", id: "srvtoolu_gw_p", name: "web_search", input: { query: "q" } }],
  ],
];

/** The message a stream's frames build, as the SDK accumulates it. */
function streamed(parts: PartInit[]): object[] {
  const sm = new MessagesStreamTranslator({ requestId: "r", fallbackId: "msg_fb", model: "claude-x" });
  const frames = [...responseToEvents(answer(parts))].flatMap((e) => sm.push(e)).concat(sm.end());
  const content: Record<string, unknown>[] = [];
  for (const f of frames) {
    const d = f.data as { index: number; content_block?: Record<string, unknown>; delta?: { type: string; text?: string } };
    if (f.event === "content_block_start") {
      t.equal(d.index, content.length, "block indexes count up");
      content.push({ ...d.content_block });
    }
    if (f.event === "content_block_delta" && d.delta?.type === "text_delta") content[d.index]!.text = String(content[d.index]!.text) + d.delta.text;
  }
  return content;
}

t.test("fromCore: searches as server_tool_use + web_search_tool_result, whole and streamed", async (t) => {
  for (const [name, parts, content] of ANSWERS) {
    const m = fromCoreMessage(answer(parts), { id: "fb", model: "claude-x" });
    t.same(m.content, content, name);
    t.equal(m.stop_reason, "end_turn", `${name}: a search is no tool use of the client's`);
    t.same(streamed(parts), content, `${name} (streamed)`);
  }
});

t.test("toCore: blocks the gateway drew, sent back, are a search no upstream gets; Anthropic's own stay whole", async (t) => {
  const { input } = toCoreChatInput(
    wire.messagesRequest.parse({
      model: "claude-x",
      max_tokens: 10,
      messages: [ask, { role: "assistant", content: [drawnUse, drawnResult, use, result, { type: "text", text: "Found." }] }, { role: "user", content: "more" }],
    }),
    ctx,
  );
  const parts: Part[] = input.turns[1]!.parts;
  t.same(
    parts.map((p) => p.kind.case ?? "whole"),
    ["webSearchCall", "webSearchCall", "whole", "whole", "text"],
  );
  t.same(
    parts.slice(0, 2).map((p) => p.vendorExtras),
    [{}, {}],
    "nothing of Anthropic's on the drawn ones",
  );
  t.match(parts[0]!.kind.value, { id: "call_1", queries: ["omnigate gateway"], status: WebSearchStatus.IN_PROGRESS });
  t.match(parts[1]!.kind.value, { id: "call_1", sources: [{ url: "https://example.com/", title: "Example" }], status: WebSearchStatus.COMPLETED });
  t.same(
    parts.slice(2, 4).map((p) => p.vendorExtras.anthropic),
    [use, result],
    "Anthropic's own: whole blocks, as before",
  );
});
