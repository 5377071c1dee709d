// Property test: an Anthropic request goes through the messages facade to the
// neutral model and through this provider back to an Anthropic request with
// every documented field intact (vendor_extras carry what the neutral model
// does not name); and an Anthropic response goes through this provider and the
// facade back to the same message. Requests are drawn from a seeded generator
// over the field space, plus a table of hand-written cases.
import t from "tap";
import { toCoreChatInput, fromCoreMessage } from "../../../src/facades/messages/translate.js";
import * as mwire from "../../../src/facades/messages/wire.js";
import { toVendorRequest } from "../../../src/providers/anthropic/request.js";
import { fromVendorResponse } from "../../../src/providers/anthropic/response.js";
import { AnthropicStreamTranslator } from "../../../src/providers/anthropic/stream.js";
import { messageAsEvents } from "../../../src/providers/anthropic/client.js";
import { collectStream } from "../../../src/core/chat/stream.js";
import { guardStream } from "../../../src/core/chat/stream-guard.js";
import { fixture } from "../../fixtures/fake-upstream.js";
import { rng } from "../../helpers/rng.js";

type R = () => number;
const pick = <T>(r: R, xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
const maybe = (r: R, p = 0.5) => r() < p;
const cc = (r: R) => (maybe(r, 0.3) ? { cache_control: maybe(r) ? { type: "ephemeral" } : { type: "ephemeral", ttl: "1h" } } : {});
const word = (r: R) => pick(r, ["alpha", "beta", "gamma", "delta", "paris", "weather", "ünïcødé ✓", "line\nbreak"]);
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

function userBlock(r: R): any {
  switch (pick(r, ["text", "text", "image", "image-url", "pdf", "doc-text", "doc-url"])) {
    case "text":
      return {
        type: "text",
        text: word(r),
        ...cc(r),
        ...(maybe(r, 0.2) ? { citations: [{ type: "char_location", cited_text: "x", document_index: 0, start_char_index: 0, end_char_index: 1 }] } : {}),
      };
    case "image":
      return { type: "image", source: { type: "base64", media_type: pick(r, ["image/png", "image/jpeg", "image/gif", "image/webp"]), data: PNG }, ...cc(r) };
    case "image-url":
      return { type: "image", source: { type: "url", url: "https://example.com/cat.png" } };
    case "pdf":
      return {
        type: "document",
        source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQK" },
        ...(maybe(r) ? { title: "Report" } : {}),
        ...(maybe(r) ? { context: "Q3" } : {}),
        ...(maybe(r) ? { citations: { enabled: true } } : {}),
        ...cc(r),
      };
    case "doc-text":
      return { type: "document", source: { type: "text", media_type: "text/plain", data: word(r) }, ...(maybe(r) ? { title: "Notes" } : {}) };
    default:
      return { type: "document", source: { type: "url", url: "https://example.com/a.pdf" } };
  }
}

/** A conversation: user, then optional (assistant with thinking/tool use, user with results) rounds. */
function conversation(r: R): any[] {
  const msgs: any[] = [{ role: "user", content: maybe(r, 0.3) ? word(r) : Array.from({ length: 1 + Math.floor(r() * 3) }, () => userBlock(r)) }];
  const rounds = Math.floor(r() * 3);
  for (let i = 0; i < rounds; i++) {
    const id = `toolu_${i}${Math.floor(r() * 1e6)}`;
    const assistant: any[] = [];
    if (maybe(r, 0.7)) assistant.push({ type: "thinking", thinking: word(r), signature: `EqQB${Math.floor(r() * 1e9)}` });
    if (maybe(r, 0.3)) assistant.push({ type: "redacted_thinking", data: `EmwK${Math.floor(r() * 1e9)}` });
    if (maybe(r)) assistant.push({ type: "text", text: word(r) });
    assistant.push({ type: "tool_use", id, name: "get_weather", input: { city: word(r), days: Math.floor(r() * 5), nested: { ok: maybe(r) } }, ...cc(r) });
    msgs.push({ role: "assistant", content: assistant });
    const result: any = { type: "tool_result", tool_use_id: id, ...cc(r) };
    const shape = pick(r, ["string", "blocks", "image", "none"]);
    if (shape === "string") result.content = word(r);
    if (shape === "blocks") result.content = [{ type: "text", text: word(r) }];
    if (shape === "image")
      result.content = [
        { type: "text", text: "screenshot" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      ];
    if (maybe(r, 0.2)) result.is_error = true;
    msgs.push({ role: "user", content: [result, ...(maybe(r, 0.3) ? [{ type: "text", text: word(r) }] : [])] });
  }
  return msgs;
}

function request(r: R): any {
  const req: any = { model: pick(r, ["claude-sonnet-4-6", "claude-opus-4-1"]), max_tokens: 2048 + Math.floor(r() * 4096), messages: conversation(r) };
  if (maybe(r))
    req.system = maybe(r)
      ? "You are terse."
      : [
          { type: "text", text: "Rules." },
          { type: "text", text: "More rules.", cache_control: { type: "ephemeral" } },
        ];
  if (maybe(r, 0.3)) req.metadata = { user_id: "user-123" };
  if (maybe(r, 0.3)) req.stop_sequences = ["END", "STOP"];
  if (maybe(r, 0.4)) req.temperature = Math.round(r() * 100) / 100;
  if (maybe(r, 0.3)) req.top_p = 0.9;
  if (maybe(r, 0.3)) req.top_k = 40;
  const th = pick(r, ["none", "enabled", "disabled", "adaptive"]);
  const display = maybe(r, 0.4) ? { display: pick(r, ["summarized", "omitted"]) } : {};
  if (th === "enabled") req.thinking = { type: "enabled", budget_tokens: 1024, ...display };
  if (th === "disabled") req.thinking = { type: "disabled" };
  if (th === "adaptive") req.thinking = { type: "adaptive", ...display };
  const tools: any[] = [{ name: "get_weather", description: "Weather", input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, ...cc(r) }];
  if (maybe(r, 0.3)) tools.push({ type: "custom", name: "lookup", input_schema: { type: "object", properties: {} } });
  if (maybe(r, 0.3)) tools.push({ type: "computer_20241022", name: "computer", display_width_px: 1024, display_height_px: 768, display_number: 1 });
  if (maybe(r, 0.3)) tools.push({ type: "bash_20241022", name: "bash" });
  if (maybe(r, 0.3)) tools.push({ type: "text_editor_20241022", name: "str_replace_editor" });
  if (maybe(r, 0.8)) req.tools = tools;
  if (req.tools && maybe(r)) {
    const dp = maybe(r) ? { disable_parallel_tool_use: true } : {};
    req.tool_choice = pick(r, [{ type: "auto", ...dp }, { type: "any", ...dp }, { type: "tool", name: "get_weather", ...dp }, { type: "none" }]);
  }
  if (maybe(r, 0.2)) req.output_config = { format: { type: "json_schema", schema: { type: "object", properties: { a: { type: "string" } } } } };
  if (maybe(r, 0.2)) req.output_config = { ...(req.output_config ?? {}), effort: pick(r, ["low", "medium", "high", "xhigh", "max"]) };
  if (maybe(r, 0.3)) req.service_tier = "standard_only";
  if (maybe(r, 0.2)) req.container = "container_abc";
  if (maybe(r, 0.2)) req.messages[0].content = typeof req.messages[0].content === "string" ? req.messages[0].content : req.messages[0].content.map((b: any) => ({ ...b, future_field: 7 }));
  if (maybe(r, 0.5)) req.stream = true;
  return req;
}

/** The same request in one canonical spelling (what Anthropic treats as equal). */
function normalize(req: any): any {
  const blocks = (c: any) => (typeof c === "string" ? [{ type: "text", text: c }] : c.map(block));
  const block = (b: any): any => {
    if (b.type === "tool_result") {
      const out = { ...b };
      if (typeof out.content === "string") out.content = [{ type: "text", text: out.content }];
      if (Array.isArray(out.content) && out.content.length === 0) delete out.content;
      return out;
    }
    return b;
  };
  const out: any = { ...req, messages: req.messages.map((m: any) => ({ role: m.role, content: blocks(m.content) })) };
  if (typeof out.system === "string") out.system = [{ type: "text", text: out.system }];
  if (out.tools) out.tools = out.tools.map((t: any) => (t.type === "custom" ? (({ type: _t, ...rest }) => rest)(t) : t));
  if (out.tool_choice?.disable_parallel_tool_use === false) delete out.tool_choice.disable_parallel_tool_use;
  if (out.output_format) {
    out.output_config = { ...(out.output_config ?? {}), format: out.output_format };
    delete out.output_format;
  }
  return JSON.parse(JSON.stringify(out));
}

function roundTrip(req: any): any {
  const parsed = mwire.messagesRequest.parse(req);
  const { input } = toCoreChatInput(parsed, { betas: [], requestId: "r" });
  return toVendorRequest(input, req.model, { stream: !!req.stream }).body;
}

t.test("generated requests survive Anthropic -> neutral -> Anthropic", async (t) => {
  const r = rng(20251117);
  for (let i = 0; i < 300; i++) {
    const req = request(r);
    const back = roundTrip(req);
    if (!t.same(normalize(back), normalize(req), `case ${i}`)) {
      t.comment(JSON.stringify(req));
      break;
    }
  }
});

t.test("table cases", async (t) => {
  const cases: [string, any][] = [
    ["string content and system", { model: "m", max_tokens: 10, system: "be brief", messages: [{ role: "user", content: "hi" }] }],
    [
      "output_format (beta spelling) comes back as output_config.format",
      { model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }], output_format: { type: "json_schema", schema: { type: "object" } } },
    ],
    [
      "a final assistant message is continued",
      {
        model: "m",
        max_tokens: 10,
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: "Once upon" },
        ],
      },
    ],
    [
      "the web search tool (any version, every field) and a search in the history",
      {
        model: "m",
        max_tokens: 10,
        tools: [
          {
            type: "web_search_20260209",
            name: "web_search",
            max_uses: 2,
            allowed_domains: ["example.com"],
            user_location: { type: "approximate", city: "Paris", country: "FR" },
            allowed_callers: ["direct"],
            cache_control: { type: "ephemeral" },
          },
        ],
        tool_choice: { type: "tool", name: "web_search" },
        messages: [
          { role: "user", content: "search" },
          {
            role: "assistant",
            content: [
              { type: "server_tool_use", id: "srvtoolu_01", name: "web_search", input: { query: "q" } },
              {
                type: "web_search_tool_result",
                tool_use_id: "srvtoolu_01",
                content: [{ type: "web_search_result", url: "https://example.com/", title: "E", encrypted_content: "Eq", page_age: null }],
              },
              { type: "text", text: "Found.", citations: [{ type: "web_search_result_location", url: "https://example.com/", title: "E", cited_text: "x", encrypted_index: "Eo" }] },
            ],
          },
          { role: "user", content: "more" },
        ],
      },
    ],
    [
      "mcp servers and other unknown fields ride along",
      { model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }], mcp_servers: [{ type: "url", url: "https://mcp.example.com", name: "x" }], context_management: { edits: [] } },
    ],
  ];
  for (const [name, req] of cases) t.same(normalize(roundTrip(req)), normalize(req), name);
});

/** A documented Message in canonical form (what a client reads). */
const canon = (m: any) =>
  JSON.parse(
    JSON.stringify({
      id: m.id,
      type: m.type,
      role: m.role,
      model: m.model,
      content: m.content.map((b: any) => (b.type === "text" && !b.citations?.length ? { type: "text", text: b.text } : b)),
      stop_reason: m.stop_reason,
      stop_sequence: m.stop_sequence ?? null,
      usage: {
        input_tokens: m.usage.input_tokens,
        output_tokens: m.usage.output_tokens,
        cache_creation_input_tokens: m.usage.cache_creation_input_tokens ?? 0,
        cache_read_input_tokens: m.usage.cache_read_input_tokens ?? 0,
      },
    }),
  );

const RESPONSES: [string, any][] = [
  ["text", fixture("anthropic/message-text.json")],
  ["thinking, redacted thinking, tool use", fixture("anthropic/message-thinking-tool.json")],
  [
    "citations and a stop sequence",
    {
      id: "msg_c",
      type: "message",
      role: "assistant",
      model: "claude-x",
      content: [{ type: "text", text: "Quoted.", citations: [{ type: "char_location", cited_text: "Quoted", document_index: 0, document_title: "Doc", start_char_index: 0, end_char_index: 6 }] }],
      stop_reason: "stop_sequence",
      stop_sequence: "END",
      usage: { input_tokens: 5, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
  ],
  [
    "a web search, its result and the cited answer (one neutral search, its blocks as they came)",
    {
      id: "msg_w",
      type: "message",
      role: "assistant",
      model: "claude-x",
      content: [
        { type: "server_tool_use", id: "srvtoolu_01", name: "web_search", input: { query: "omnigate" }, caller: { type: "direct" } },
        {
          type: "web_search_tool_result",
          tool_use_id: "srvtoolu_01",
          caller: { type: "direct" },
          content: [{ type: "web_search_result", url: "https://example.com/", title: "Example", encrypted_content: "EqgfCioIARgB", page_age: "2 days ago" }],
        },
        {
          type: "text",
          text: "A gateway.",
          citations: [{ type: "web_search_result_location", url: "https://example.com/", title: "Example", cited_text: "a gateway", encrypted_index: "Eo8BCioI" }],
        },
      ],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 5, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
  ],
  [
    "a failed web search, and one paused before its result",
    {
      id: "msg_f",
      type: "message",
      role: "assistant",
      model: "claude-x",
      content: [
        { type: "server_tool_use", id: "srvtoolu_02", name: "web_search", input: { query: "a" } },
        { type: "web_search_tool_result", tool_use_id: "srvtoolu_02", content: { type: "web_search_tool_result_error", error_code: "too_many_requests" } },
        { type: "text", text: "Again." },
        { type: "server_tool_use", id: "srvtoolu_03", name: "web_search", input: { query: "b" } },
      ],
      stop_reason: "pause_turn",
      stop_sequence: null,
      usage: { input_tokens: 5, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
  ],
  ...(["max_tokens", "pause_turn", "refusal", "model_context_window_exceeded"] as const).map((stop): [string, any] => [
    `stop_reason ${stop}`,
    {
      id: "msg_s",
      type: "message",
      role: "assistant",
      model: "claude-x",
      content: [{ type: "text", text: "x" }],
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    },
  ]),
];

t.test("responses survive Anthropic -> neutral -> Anthropic, whole and streamed", async (t) => {
  for (const [name, m] of RESPONSES) {
    const neutral = fromVendorResponse(m, { model: m.model, channel: "c" });
    const back = fromCoreMessage(neutral, { id: "fallback", model: "fallback" });
    const want = canon(m);
    if (want.stop_reason === "refusal") delete (back as any).stop_details;
    t.same(canon(back), want, `${name} (whole)`);
    const tr = new AnthropicStreamTranslator({ model: m.model, channel: "c" });
    const streamed = await collectStream(
      guardStream(
        (async function* () {
          for (const e of messageAsEvents(m)) yield* tr.push(e);
        })(),
      ),
    );
    t.same(canon(fromCoreMessage(streamed, { id: "fallback", model: "fallback" })), want, `${name} (streamed)`);
  }
  const extra = fromVendorResponse(fixture("anthropic/message-thinking-tool.json"), { model: "m", channel: "c" });
  t.same(extra.vendorExtras.anthropic, { usage: { service_tier: "standard" } }, "fields the neutral model does not name are kept in vendor_extras");
  const withContainer = fromVendorResponse(
    { ...fixture("anthropic/message-text.json"), container: { id: "c1", expires_at: "2026-01-01T00:00:00Z" }, stop_details: null },
    { model: "m", channel: "c" },
  );
  t.same(withContainer.vendorExtras.anthropic, { container: { id: "c1", expires_at: "2026-01-01T00:00:00Z" }, usage: { service_tier: "standard" } });
});
