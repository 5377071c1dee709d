// What a newer Claude Code or SDK sends that the gateway does not model (a
// system message inside the conversation, a newer thinking display, block,
// tool, effort, tool_choice, field or beta), sent through the official SDK:
// an Anthropic upstream gets it exactly as sent, an OpenAI-compatible and a
// Gemini upstream get it dropped or emulated by the rules of
// docs/translation.md (a newer tool: refused), the local engine answers.
// And credentials come first: a wrong key is a 401 whatever the body holds.
import t, { type Test } from "tap";
import Anthropic from "@anthropic-ai/sdk";
import type { ChannelConfig } from "../../../src/config.js";
import { ADMIN_KEY, ONE_ATTEMPT, startServer, testChannel } from "../../helpers/app.js";
import { fixture, startFakeUpstream, type FakeUpstream, type Recorded } from "../../fixtures/fake-upstream.js";

type Body = Record<string, any>;
type Check = (t: Test, req: Recorded) => void;

interface Row {
  name: string;
  /** The request's fields over the base request. */
  body: Body;
  betas?: string[];
  anthropic: Check;
  openai: Check | "refused";
  gemini: Check | "refused";
}

const hi = { role: "user", content: "Hi" };
const ft = { type: "future_tool_20270101", name: "ft", future_setting: { a: 1 } };
const fn = { name: "get_weather", description: "Weather", input_schema: { type: "object", properties: { city: { type: "string" } } } };
const systemMessage = { role: "system", content: [{ type: "text", text: "Be terse from now on." }] };
const conversation = [hi, { role: "assistant", content: "Hello." }, systemMessage, { role: "user", content: "Go on" }];

const ROWS: Row[] = [
  {
    name: 'messages[i].role "system" with its beta',
    body: { messages: conversation },
    betas: ["mid-conversation-system-2026-04-07"],
    anthropic: (t, r) => {
      t.same(r.body.messages[2], systemMessage, "the system message at its place, as sent");
      t.same(
        r.body.messages.map((m: Body) => m.role),
        ["user", "assistant", "system", "user"],
      );
      t.match(r.headers["anthropic-beta"], /mid-conversation-system-2026-04-07/);
    },
    openai: (t, r) => {
      t.same(
        r.body.messages.map((m: Body) => m.role),
        ["user", "assistant", "system", "user"],
        "a system message at the same place",
      );
      t.same(r.body.messages[2], { role: "system", content: "Be terse from now on." });
      t.notOk(r.headers["anthropic-beta"]);
    },
    gemini: (t, r) => {
      t.same(
        r.body.contents.map((c: Body) => c.role),
        ["user", "model", "user", "user"],
        "a user turn at the same place",
      );
      t.same(r.body.contents[2], { role: "user", parts: [{ text: "<system_instruction>\nBe terse from now on.\n</system_instruction>" }] }, "its text marked as a system instruction");
      t.notOk(r.body.systemInstruction, "the system instruction stays for the top-level system");
    },
  },
  {
    name: 'thinking.display "updates" with its beta',
    body: { thinking: { type: "adaptive", display: "updates" } },
    betas: ["thinking-display-updates-2026-08-18"],
    anthropic: (t, r) => {
      t.same(r.body.thinking, { type: "adaptive", display: "updates" });
      t.match(r.headers["anthropic-beta"], /thinking-display-updates-2026-08-18/);
    },
    openai: (t, r) => t.notOk("reasoning_effort" in r.body || "thinking" in r.body || "display" in r.body, "thinking as needed: nothing to send"),
    gemini: (t, r) => t.same(r.body.generationConfig?.thinkingConfig, { includeThoughts: true, thinkingBudget: -1 }, "dynamic thinking, thoughts shown"),
  },
  {
    name: "a block of a newer type, in a message, a tool result and the system",
    body: {
      system: [
        { type: "text", text: "Sys" },
        { type: "future_block_2027", x: 1 },
      ],
      messages: [
        { role: "user", content: "Weather?" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Oslo" } }] },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_1",
              content: [
                { type: "text", text: "Sunny" },
                { type: "future_block_2027", y: 2 },
              ],
            },
            { type: "text", text: "And?" },
            { type: "future_block_2027", x: 1 },
          ],
        },
      ],
      tools: [fn],
    },
    anthropic: (t, r) => {
      t.same(r.body.system, [
        { type: "text", text: "Sys" },
        { type: "future_block_2027", x: 1 },
      ]);
      t.same(r.body.messages[2].content, [
        {
          type: "tool_result",
          tool_use_id: "toolu_1",
          content: [
            { type: "text", text: "Sunny" },
            { type: "future_block_2027", y: 2 },
          ],
        },
        { type: "text", text: "And?" },
        { type: "future_block_2027", x: 1 },
      ]);
    },
    openai: (t, r) => {
      t.same(r.body.messages[0], { role: "system", content: "Sys" }, "left out of the system");
      t.same(
        r.body.messages.slice(3),
        [
          { role: "tool", tool_call_id: "toolu_1", content: "Sunny" },
          { role: "user", content: "And?" },
        ],
        "and of the message and tool result",
      );
    },
    gemini: (t, r) => {
      t.same(r.body.systemInstruction, { parts: [{ text: "Sys" }] });
      t.same(r.body.contents[2].parts, [{ functionResponse: { id: "toolu_1", name: "get_weather", response: { output: "Sunny" } } }, { text: "And?" }]);
    },
  },
  {
    name: "a tool of a newer type",
    body: { tools: [ft, fn] },
    anthropic: (t, r) => t.same(r.body.tools, [ft, fn], "as sent"),
    openai: "refused",
    gemini: "refused",
  },
  {
    name: 'output_config.effort "ultra"',
    body: { output_config: { effort: "ultra" } },
    anthropic: (t, r) => t.same(r.body.output_config, { effort: "ultra" }),
    openai: (t, r) => t.notOk("reasoning_effort" in r.body, "no effort: the server's default"),
    gemini: (t, r) => t.notOk(r.body.generationConfig?.thinkingConfig, "no thinking level"),
  },
  {
    name: 'tool_choice {"type":"future"}',
    body: { tools: [fn], tool_choice: { type: "future" } },
    anthropic: (t, r) => {
      t.same(r.body.tool_choice, { type: "future" });
      t.same(r.body.tools, [fn]);
    },
    openai: (t, r) => {
      t.notOk("tool_choice" in r.body, "the server's default (auto)");
      t.equal(r.body.tools[0].function.name, "get_weather");
    },
    gemini: (t, r) => {
      t.notOk(r.body.toolConfig, "Gemini's default (AUTO)");
      t.equal(r.body.tools[0].functionDeclarations[0].name, "get_weather");
    },
  },
  {
    name: "unknown fields: top level, a message's, a block's, a custom tool's; newer thinking type, cache_control and format",
    body: {
      future_top_level: { a: [1, 2] },
      thinking: { type: "future_mode", depth: 3 },
      output_config: { format: { type: "regex", pattern: "a+" }, future_knob: true },
      metadata: { user_id: "u1", future_meta: "m" },
      messages: [{ role: "user", content: [{ type: "text", text: "Hi", future_field: 7, cache_control: { type: "persistent", ttl: "24h" } }], future_message_field: "x" }],
      tools: [{ ...fn, defer_loading: true, strict: true }],
    },
    anthropic: (t, r) => {
      t.same(r.body.future_top_level, { a: [1, 2] });
      t.same(r.body.thinking, { type: "future_mode", depth: 3 });
      t.same(r.body.output_config, { format: { type: "regex", pattern: "a+" }, future_knob: true });
      t.same(r.body.metadata, { user_id: "u1", future_meta: "m" });
      t.same(r.body.messages, [{ role: "user", content: [{ type: "text", text: "Hi", future_field: 7, cache_control: { type: "persistent", ttl: "24h" } }], future_message_field: "x" }]);
      t.same(r.body.tools, [{ ...fn, defer_loading: true, strict: true }]);
    },
    openai: (t, r) => {
      for (const k of ["future_top_level", "thinking", "output_config", "response_format", "metadata"]) t.notOk(k in r.body, `no ${k}`);
      t.equal(r.body.user, "u1");
      t.same(r.body.messages, [{ role: "user", content: "Hi" }]);
      t.same(r.body.tools, [{ type: "function", function: { name: "get_weather", description: "Weather", parameters: fn.input_schema } }]);
    },
    gemini: (t, r) => {
      t.same(Object.keys(r.body).sort(), ["contents", "generationConfig", "tools"]);
      t.same(r.body.contents, [{ role: "user", parts: [{ text: "Hi" }] }]);
      t.notOk(r.body.generationConfig.thinkingConfig || r.body.generationConfig.responseMimeType, "no thinking, no JSON mode");
      t.same(Object.keys(r.body.tools[0].functionDeclarations[0]).sort(), ["description", "name", "parameters"]);
    },
  },
  {
    name: "an unknown beta",
    body: {},
    betas: ["future-beta-2027-01-01"],
    anthropic: (t, r) => t.equal(r.headers["anthropic-beta"], "future-beta-2027-01-01"),
    openai: (t, r) => t.notOk(r.headers["anthropic-beta"]),
    gemini: (t, r) => t.notOk(r.headers["anthropic-beta"]),
  },
];

async function gateway(t: Test) {
  const anthropic = await startFakeUpstream(() => ({ json: fixture("anthropic/message-text.json") }));
  const openai = await startFakeUpstream(() => ({ json: fixture("openai/chat-text.json") }));
  const gemini = await startFakeUpstream(() => ({ json: fixture("gemini/text.json") }));
  const chan = (name: string, provider: ChannelConfig["provider"], url: string, model: string) => testChannel(name, provider, url, [model]);
  const server = await startServer({
    config: {
      upstream: ONE_ATTEMPT,
      channels: [chan("a", "anthropic", anthropic.url, "claude-x"), chan("o", "openai", `${openai.url}/v1`, "gpt-x"), chan("g", "gemini", gemini.url, "gemini-x")],
      local: { chatModels: ["local-x"] },
    } as never,
  });
  t.teardown(async () => {
    await server.close();
    await Promise.all([anthropic.close(), openai.close(), gemini.close()]);
  });
  return { server, upstreams: { "claude-x": anthropic, "gpt-x": openai, "gemini-x": gemini } as Record<string, FakeUpstream> };
}

t.test("newer fields, values, blocks, tools and betas through the Anthropic SDK", async (t) => {
  const { server, upstreams } = await gateway(t);
  const c = new Anthropic({ baseURL: server.baseUrl, apiKey: ADMIN_KEY, maxRetries: 0 });
  const send = (model: string, row: Row) =>
    c.messages.create({ model, max_tokens: 1024, messages: [hi], ...row.body } as never, row.betas ? { headers: { "anthropic-beta": row.betas.join(",") } } : {}) as Promise<Anthropic.Message>;

  for (const row of ROWS) {
    t.test(row.name, async (t) => {
      for (const [model, check] of [
        ["claude-x", row.anthropic],
        ["gpt-x", row.openai],
        ["gemini-x", row.gemini],
      ] as const) {
        const up = upstreams[model]!;
        const before = up.requests.length;
        if (check === "refused") {
          const err = await send(model, row).then(
            () => undefined,
            (e: unknown) => e as InstanceType<typeof Anthropic.APIError>,
          );
          t.equal(err?.status, 400, `${model}: refused in the Messages format`);
          t.match(
            (err?.error as { error?: { type?: string; message?: string } })?.error,
            { type: "invalid_request_error", message: /^tools\.0: the future_tool_20270101 tool is not supported/ },
            `${model}: naming the tool`,
          );
          t.equal(up.requests.length, before, `${model}: nothing reached the upstream`);
          continue;
        }
        const m = await send(model, row);
        t.equal(m.type, "message", `${model}: answered`);
        t.equal(up.requests.length, before + 1);
        check(t, up.requests.at(-1)!);
      }
      const local = await send("local-x", row);
      t.equal(local.type, "message", "the local engine answers");
    });
  }
});

t.test("a wrong key gets 401 before the body is looked at", async (t) => {
  const server = await startServer();
  t.teardown(() => server.close());
  const raw = (path: string, key: string, body: unknown, method = "POST") =>
    fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      ...(method === "POST" ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
    });
  const invalid = { model: "", max_tokens: "many", messages: [] };

  // A valid key the key cache has not seen yet (the asynchronous check), then a bad body: 400.
  const first = await raw("/v1/messages", ADMIN_KEY, invalid);
  t.equal(first.status, 400, "a valid key: the body's 400");
  t.match(await first.json(), { error: { type: "invalid_request_error" } });

  for (const attempt of ["a key the cache has not seen", "the same key, now cached as refused"]) {
    for (const [path, body] of [
      ["/v1/messages", invalid],
      ["/v1/messages", "{not json"],
      ["/v1/messages/count_tokens", { messages: "x" }],
    ] as const) {
      const r = await raw(path, "sk-og-wrong", body);
      t.equal(r.status, 401, `${attempt}: ${path} ${typeof body === "string" ? "bad JSON" : "bad body"}: 401`);
      t.same(await r.json(), { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" }, request_id: r.headers.get("request-id") }, "Anthropic's body");
    }
  }
  const models = await raw("/v1/models?limit=0", "sk-og-wrong", undefined, "GET");
  t.equal(models.status, 401, "models: the key before the query");

  const sdk = new Anthropic({ baseURL: server.baseUrl, apiKey: "sk-og-wrong", maxRetries: 0 });
  const err = await sdk.messages.create({ model: "m", max_tokens: 0, messages: [] }).catch((e: unknown) => e);
  t.type(err, Anthropic.AuthenticationError, "the SDK's AuthenticationError, not a BadRequestError");
});
