// Fields of the current Anthropic SDK as each kind of upstream receives them:
// thinking display and modes, the newer effort levels, server tools and their
// blocks. Anthropic gets the client's own fields; Gemini and OpenAI-compatible
// servers get their nearest equivalent, or a refusal in the Messages format.
import t from "tap";
import Anthropic from "@anthropic-ai/sdk";
import type { ChannelConfig } from "../../../src/config.js";
import { ADMIN_KEY, ONE_ATTEMPT, startServer, testChannel } from "../../helpers/app.js";
import { fixture, startFakeUpstream } from "../../fixtures/fake-upstream.js";

/** One event of an Anthropic stream, as the upstream writes it. */
const sse = (event: string, data: object) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const chan = (name: string, provider: ChannelConfig["provider"], baseUrl: string, model: string) => testChannel(name, provider, baseUrl, [model]);

/** A gateway with an Anthropic (claude-x), an OpenAI-compatible (gpt-x) and a Gemini (gemini-x) channel, each a fake upstream, and an Anthropic client of it. */
async function threeUpstreams(t: { teardown(fn: () => unknown): void }, anthropicAnswer: Parameters<typeof startFakeUpstream>[0] = () => ({ json: fixture("anthropic/message-text.json") })) {
  const anthropic = await startFakeUpstream(anthropicAnswer);
  const openai = await startFakeUpstream(() => ({ json: fixture("openai/chat-text.json") }));
  const gemini = await startFakeUpstream(() => ({ json: fixture("gemini/text.json") }));
  const server = await startServer({
    config: {
      upstream: ONE_ATTEMPT,
      channels: [chan("a", "anthropic", anthropic.url, "claude-x"), chan("o", "openai", `${openai.url}/v1`, "gpt-x"), chan("g", "gemini", gemini.url, "gemini-x")],
    },
  });
  t.teardown(async () => {
    await server.close();
    await Promise.all([anthropic.close(), openai.close(), gemini.close()]);
  });
  return { anthropic, openai, gemini, c: new Anthropic({ baseURL: server.baseUrl, apiKey: ADMIN_KEY, maxRetries: 0 }) };
}

t.test("thinking.display and output_config.effort reach each upstream in its own terms", async (t) => {
  const { anthropic, openai, gemini, c } = await threeUpstreams(t);
  const ask = (model: string) =>
    c.messages.create({
      model,
      max_tokens: 4096,
      thinking: { type: "adaptive", display: "omitted" },
      output_config: { effort: "xhigh" },
      messages: [{ role: "user", content: "Hi" }],
    });

  const a = await ask("claude-x");
  t.equal(a.type, "message");
  const ab = anthropic.requests[0]!.body;
  t.same(ab.thinking, { type: "adaptive", display: "omitted" }, "Anthropic gets the client's display");
  t.same(ab.output_config, { effort: "xhigh" }, "and its effort level");

  await c.messages.create({ model: "claude-x", max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 2048, display: "summarized" }, messages: [{ role: "user", content: "Hi" }] });
  t.same(anthropic.requests[1]!.body.thinking, { type: "enabled", budget_tokens: 2048, display: "summarized" });

  await ask("gpt-x");
  t.equal(openai.requests[0]!.body.reasoning_effort, "high", "an OpenAI-compatible server gets high for xhigh");
  t.notOk("display" in openai.requests[0]!.body);

  await ask("gemini-x");
  const tc = gemini.requests[0]!.body.generationConfig?.thinkingConfig;
  t.equal(tc?.thinkingLevel, "HIGH", "Gemini's levels stop at HIGH");
  t.notOk(tc?.includeThoughts, "omitted thoughts are not asked for");

  // A newer display is served (future-fields.test.ts); one that is not a string is refused.
  const bad = await c.messages.create({ model: "claude-x", max_tokens: 4096, thinking: { type: "adaptive", display: 3 as unknown as "omitted" }, messages: [{ role: "user", content: "Hi" }] }).then(
    () => undefined,
    (e: unknown) => e as InstanceType<typeof Anthropic.APIError>,
  );
  t.equal(bad?.status, 400);
  t.match((bad?.error as { error?: { type?: string; message?: string } })?.error, { type: "invalid_request_error", message: /^thinking\.display: / });
  t.equal(anthropic.requests.length, 2, "a bad display never reaches the upstream");
});

t.test("server tools: the tool, its blocks in the answer and the same blocks sent back reach Anthropic as they are", async (t) => {
  const serverUse = { type: "server_tool_use", id: "srvtoolu_01", name: "web_search", input: { query: "omnigate" } };
  const serverResult = {
    type: "web_search_tool_result",
    tool_use_id: "srvtoolu_01",
    content: [{ type: "web_search_result", url: "https://example.com/", title: "Example", encrypted_content: "EqgfCioIARgB", page_age: null }],
  };
  const answer = {
    id: "msg_01Search",
    type: "message",
    role: "assistant",
    model: "claude-x",
    content: [serverUse, serverResult, { type: "text", text: "Found it." }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 20, output_tokens: 9, server_tool_use: { web_search_requests: 1 } },
  };
  const chunks = [
    sse("message_start", { type: "message_start", message: { ...answer, content: [], stop_reason: null, usage: { input_tokens: 20, output_tokens: 1 } } }),
    sse("content_block_start", { type: "content_block_start", index: 0, content_block: { ...serverUse, input: {} } }),
    sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"query": "omni' } }),
    sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: 'gate"}' } }),
    sse("content_block_stop", { type: "content_block_stop", index: 0 }),
    sse("content_block_start", { type: "content_block_start", index: 1, content_block: serverResult }),
    sse("content_block_stop", { type: "content_block_stop", index: 1 }),
    sse("content_block_start", { type: "content_block_start", index: 2, content_block: { type: "text", text: "" } }),
    sse("content_block_delta", { type: "content_block_delta", index: 2, delta: { type: "text_delta", text: "Found it." } }),
    sse("content_block_stop", { type: "content_block_stop", index: 2 }),
    sse("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 9 } }),
    sse("message_stop", { type: "message_stop" }),
  ];
  let streamed = false;
  const anthropic = await startFakeUpstream(() => (streamed ? { headers: { "content-type": "text/event-stream" }, chunks } : { json: answer }));
  const openai = await startFakeUpstream(() => ({ json: fixture("openai/chat-text.json") }));
  const server = await startServer({
    config: {
      upstream: ONE_ATTEMPT,
      channels: [chan("a", "anthropic", anthropic.url, "claude-x"), chan("o", "openai", `${openai.url}/v1`, "gpt-x")],
    },
  });
  t.teardown(async () => {
    await server.close();
    await Promise.all([anthropic.close(), openai.close()]);
  });
  const c = new Anthropic({ baseURL: server.baseUrl, apiKey: ADMIN_KEY, maxRetries: 0 });
  const webSearch = { type: "web_search_20250305" as const, name: "web_search" as const, max_uses: 2, allowed_domains: ["example.com"] };
  const ask = { role: "user" as const, content: "Search for omnigate" };

  const first = await c.messages.create({ model: "claude-x", max_tokens: 1024, tools: [webSearch], thinking: { type: "between_tools" }, messages: [ask] });
  t.same(anthropic.requests[0]!.body.tools, [webSearch], "the server tool goes out as sent");
  t.same(anthropic.requests[0]!.body.thinking, { type: "between_tools" });
  t.same(
    first.content.map((b) => b.type),
    ["server_tool_use", "web_search_tool_result", "text"],
    "the answer keeps the server tool's blocks",
  );
  t.same(first.content[1], serverResult);

  await c.messages.create({ model: "claude-x", max_tokens: 1024, tools: [webSearch], messages: [ask, { role: "assistant", content: first.content }, { role: "user", content: "And more?" }] });
  const replayed = anthropic.requests[1]!.body.messages[1].content;
  t.same(replayed.slice(0, 2), [serverUse, serverResult], "the blocks sent back reach Anthropic unchanged");

  streamed = true;
  const final = await c.messages.stream({ model: "claude-x", max_tokens: 1024, tools: [webSearch], messages: [ask] }).finalMessage();
  t.same(
    final.content.map((b) => b.type),
    ["server_tool_use", "web_search_tool_result", "text"],
    "streamed: the same blocks",
  );
  t.same(final.content[0], serverUse, "the server tool's input, sent in deltas upstream, arrives whole");
  t.same(final.content[1], serverResult);
  t.match(final.content[2], { type: "text", text: "Found it." });
  streamed = false;

  const declared = await c.messages.create({ model: "gpt-x", max_tokens: 1024, tools: [webSearch], messages: [ask] });
  t.equal(declared.type, "message", "an OpenAI-compatible upstream has no web search: a declared one is left out");
  t.equal(openai.requests[0]!.body.tools, undefined);
  const refused = await c.messages.create({ model: "gpt-x", max_tokens: 1024, tools: [webSearch], tool_choice: { type: "tool", name: "web_search" }, messages: [ask] }).then(
    () => undefined,
    (e: unknown) => e as InstanceType<typeof Anthropic.APIError>,
  );
  t.equal(refused?.status, 400, "one the tool choice forces is refused in the Messages format");
  t.equal((refused?.error as { error?: { type?: string } })?.error?.type, "invalid_request_error");
  t.equal(openai.requests.length, 1);

  const other = await c.messages.create({ model: "gpt-x", max_tokens: 1024, messages: [ask, { role: "assistant", content: first.content }, { role: "user", content: "And more?" }] });
  t.equal(other.type, "message", "history with server blocks still goes to another vendor");
  const sent = JSON.stringify(openai.requests[1]!.body.messages);
  t.notMatch(sent, /srvtoolu_01|encrypted_content/, "without Anthropic's server blocks");
  t.match(sent, /Found it\./, "but with the text of that turn");
});

t.test("search results and tool references: Anthropic gets the blocks as they are, other vendors read them as text", async (t) => {
  const { anthropic, openai, gemini, c } = await threeUpstreams(t, (r) => ({ json: r.path.endsWith("/count_tokens") ? { input_tokens: 57 } : fixture("anthropic/message-text.json") }));
  const result: Anthropic.SearchResultBlockParam = {
    type: "search_result",
    source: "https://docs.example.com/rates",
    title: "Rate limits",
    content: [
      { type: "text", text: "Each key may send 50 requests a minute." },
      { type: "text", text: "Bursts above that get a 429." },
    ],
    citations: { enabled: true },
    cache_control: { type: "ephemeral" },
  };
  const lookup: Anthropic.ToolUseBlockParam = { type: "tool_use", id: "toolu_01", name: "tool_search", input: { query: "weather" } };
  const messages: Anthropic.MessageParam[] = [
    { role: "user", content: [result, { type: "text", text: "What are the limits?" }] },
    { role: "assistant", content: [lookup] },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_01",
          content: [
            { type: "tool_reference", tool_name: "get_weather" },
            { ...result, title: "Weather tools" },
          ],
        },
      ],
    },
  ];
  const tools: Anthropic.Tool[] = [{ name: "tool_search", description: "finds tools", input_schema: { type: "object", properties: { query: { type: "string" } } } }];

  const a = await c.messages.create({ model: "claude-x", max_tokens: 1024, tools, messages });
  t.equal(a.type, "message");
  const sent = anthropic.requests[0]!.body.messages as { content: unknown[] }[];
  t.same(sent[0]!.content[0], result, "a search result reaches Anthropic as it came, citations and cache_control included");
  t.same(
    sent[2]!.content[0],
    {
      type: "tool_result",
      tool_use_id: "toolu_01",
      content: [
        { type: "tool_reference", tool_name: "get_weather" },
        { ...result, title: "Weather tools" },
      ],
    },
    "so do the blocks of a tool result",
  );

  const count = await c.messages.countTokens({ model: "claude-x", tools, messages });
  t.equal(count.input_tokens, 57, "count_tokens takes them too");
  t.same((anthropic.requests[1]!.body.messages as { content: unknown[] }[])[0]!.content[0], result, "and sends them on as they came");

  await c.messages.create({ model: "gpt-x", max_tokens: 1024, tools, messages });
  const o = openai.requests[0]!.body.messages as { role: string; content: unknown }[];
  const userText = JSON.stringify(o[0]!.content);
  t.match(
    userText,
    /Search result: Rate limits\\nSource: https:\/\/docs\.example\.com\/rates\\n\\nEach key may send 50 requests a minute\.\\n\\nBursts above that get a 429\./,
    "an OpenAI-compatible upstream reads the search result as text",
  );
  t.notMatch(userText, /search_result|cache_control/, "not as an Anthropic block");
  const toolMsg = o.find((m) => m.role === "tool");
  t.match(JSON.stringify(toolMsg?.content), /Tool reference: get_weather.*Search result: Weather tools/, "and the tool result's blocks as text");

  await c.messages.create({ model: "gemini-x", max_tokens: 1024, tools, messages });
  const g = JSON.stringify(gemini.requests[0]!.body.contents);
  t.match(g, /Search result: Rate limits/, "Gemini reads it as text too");
  t.match(g, /Tool reference: get_weather/);
  t.notMatch(g, /search_result/);

  const bad = await c.messages
    .create({
      model: "claude-x",
      max_tokens: 1024,
      messages: [{ role: "user", content: [{ type: "search_result", source: "s", title: "t", content: "not blocks" } as unknown as Anthropic.SearchResultBlockParam] }],
    })
    .then(
      () => undefined,
      (e: unknown) => e as InstanceType<typeof Anthropic.APIError>,
    );
  t.equal(bad?.status, 400, "a malformed search result is refused in the Messages format");
  t.match((bad?.error as { error?: { type?: string; message?: string } })?.error, { type: "invalid_request_error", message: "messages.0.content.0.content: Input should be a valid list" });
  t.equal(anthropic.requests.length, 2, "and never reaches the upstream");
});

t.test("content documents: Anthropic gets the block as it came and cites it by block, other vendors read its text", async (t) => {
  const cited = {
    id: "msg_01",
    type: "message",
    role: "assistant",
    model: "claude-x",
    content: [
      {
        type: "text",
        text: "Refunds take 14 days.",
        citations: [{ type: "content_block_location", cited_text: "Refunds take 14 days.", document_index: 0, document_title: "Policy", start_block_index: 1, end_block_index: 2 }],
      },
    ],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 30, output_tokens: 6 },
  };
  const { anthropic, openai, gemini, c } = await threeUpstreams(t, () => ({ json: cited }));
  const policy: Anthropic.DocumentBlockParam = {
    type: "document",
    source: {
      type: "content",
      content: [
        { type: "text", text: "Orders ship in 2 days." },
        { type: "text", text: "Refunds take 14 days." },
      ],
    },
    title: "Policy",
    context: "Shop terms",
    citations: { enabled: true },
    cache_control: { type: "ephemeral" },
  };
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: [policy, { type: "text", text: "How long do refunds take?" }] }];

  const a = await c.messages.create({ model: "claude-x", max_tokens: 1024, messages });
  t.same((anthropic.requests[0]!.body.messages as { content: unknown[] }[])[0]!.content[0], policy, "the document reaches Anthropic as it came");
  const first = a.content[0];
  t.equal(first?.type, "text");
  t.same(first?.type === "text" ? first.citations : undefined, cited.content[0]!.citations, "and its block citations come back to the client");

  await c.messages.create({ model: "gpt-x", max_tokens: 1024, messages });
  const o = JSON.stringify(openai.requests[0]!.body.messages);
  t.match(o, /Document: Policy\\nContext: Shop terms\\n\\nOrders ship in 2 days\.\\n\\nRefunds take 14 days\./, "an OpenAI-compatible upstream reads it as text");
  t.notMatch(o, /"type":"document"|"content_block_location"|cache_control/, "not as an Anthropic block");

  await c.messages.create({ model: "gemini-x", max_tokens: 1024, messages });
  const g = JSON.stringify(gemini.requests[0]!.body.contents);
  t.match(g, /Document: Policy.*Refunds take 14 days\./, "Gemini reads it as text too");
  t.notMatch(g, /"type":"document"/);

  const bad = await c.messages
    .create({ model: "claude-x", max_tokens: 1024, messages: [{ role: "user", content: [{ type: "document", source: { type: "content", content: 5 } } as unknown as Anthropic.DocumentBlockParam] }] })
    .then(
      () => undefined,
      (e: unknown) => e as InstanceType<typeof Anthropic.APIError>,
    );
  t.equal(bad?.status, 400, "a malformed content document is refused in the Messages format");
  t.match((bad?.error as { error?: { type?: string; message?: string } })?.error, {
    type: "invalid_request_error",
    message: "messages.0.content.0.source.content: Input should be a valid string or a valid list",
  });
  t.equal(anthropic.requests.length, 1, "and never reaches the upstream");
});

t.test("toolsets: the computer and browser toolsets reach Anthropic as sent, a member's call comes back with its toolset_name, browser state goes back as it is", async (t) => {
  const call = { type: "tool_use", id: "toolu_01Nav", name: "navigate", input: { url: "https://shop.example.com/" }, toolset_name: "browser", caller: { type: "direct" } };
  const answer = {
    id: "msg_01Toolset",
    type: "message",
    role: "assistant",
    model: "claude-x",
    content: [{ type: "text", text: "Opening the shop." }, call],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 40, output_tokens: 12 },
  };
  const chunks = [
    sse("message_start", { type: "message_start", message: { ...answer, content: [], stop_reason: null, usage: { input_tokens: 40, output_tokens: 1 } } }),
    sse("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Opening the shop." } }),
    sse("content_block_stop", { type: "content_block_stop", index: 0 }),
    sse("content_block_start", { type: "content_block_start", index: 1, content_block: { ...call, input: {} } }),
    sse("content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"url": "https://shop.' } }),
    sse("content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: 'example.com/"}' } }),
    sse("content_block_stop", { type: "content_block_stop", index: 1 }),
    sse("message_delta", { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 12 } }),
    sse("message_stop", { type: "message_stop" }),
  ];
  let streamed = false;
  const { anthropic, openai, gemini, c } = await threeUpstreams(t, () => (streamed ? { headers: { "content-type": "text/event-stream" }, chunks } : { json: answer }));
  const tools: Anthropic.Messages.ToolUnion[] = [
    { type: "browser_toolset_20260801", configs: { navigate: { defer_loading: false } } },
    { type: "computer_toolset_20260801", cache_control: { type: "ephemeral" } },
  ];
  const ask: Anthropic.MessageParam = { role: "user", content: "Find the returns page" };

  const first = await c.messages.create({ model: "claude-x", max_tokens: 1024, tools, tool_choice: { type: "any" }, messages: [ask] });
  t.same(anthropic.requests[0]!.body.tools, tools, "the toolsets go out as sent, with no name added");
  t.same(anthropic.requests[0]!.body.tool_choice, { type: "any" });
  t.equal(first.stop_reason, "tool_use");
  t.same(first.content[1], call, "the member's call comes back with its toolset_name and caller");

  const state: Anthropic.Messages.BrowserStateBlockParam = {
    type: "browser_state",
    tabs: [{ tab_id: "t1", url: "https://shop.example.com/", title: "Shop", active: true }],
    state_changes: [{ type: "tab_opened", tab_id: "t1" }],
  };
  const result: Anthropic.ToolResultBlockParam = { type: "tool_result", tool_use_id: "toolu_01Nav", content: [{ type: "text", text: "Navigated." }, state] };
  const history: Anthropic.MessageParam[] = [ask, { role: "assistant", content: first.content }, { role: "user", content: [result] }];
  await c.messages.create({ model: "claude-x", max_tokens: 1024, tools, messages: history });
  const sent = anthropic.requests[1]!.body.messages as { content: unknown[] }[];
  t.same(sent[1]!.content[1], call, "the call sent back keeps its toolset_name");
  t.same(sent[2]!.content[0], result, "and the browser state reaches Anthropic as it came");

  streamed = true;
  const final = await c.messages.stream({ model: "claude-x", max_tokens: 1024, tools, messages: [ask] }).finalMessage();
  t.same(final.content[1], call, "streamed: the call, its input sent in deltas, arrives whole with its toolset_name");
  streamed = false;

  for (const [model, up] of [
    ["gpt-x", openai],
    ["gemini-x", gemini],
  ] as const) {
    const refused = await c.messages.create({ model, max_tokens: 1024, tools, messages: [ask] }).then(
      () => undefined,
      (e: unknown) => e as InstanceType<typeof Anthropic.APIError>,
    );
    t.equal(refused?.status, 400, `${model}: a toolset has no equivalent there, refused in the Messages format`);
    t.match((refused?.error as { error?: { type?: string; message?: string } })?.error, { type: "invalid_request_error", message: /tools\.0.*browser_toolset_20260801/ });
    t.equal(up.requests.length, 0);
  }

  await c.messages.create({ model: "gpt-x", max_tokens: 1024, messages: history });
  const o = JSON.stringify(openai.requests[0]!.body.messages);
  t.match(o, /Browser state: \{\\"tabs\\":\[\{\\"tab_id\\":\\"t1\\"/, "without the tools, a history with browser state reads as text on another vendor");
  t.notMatch(o, /"type":"browser_state"/);
});
