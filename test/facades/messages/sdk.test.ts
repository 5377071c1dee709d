// POST /v1/messages and count_tokens through both official SDK generations,
// against a real gateway on the local engine.
import t from "tap";
import type Anthropic from "@anthropic-ai/sdk";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";
import { MODEL, PNG_1X1, SDKS, TIME_TOOL, WEATHER_TOOL, tamper, textOf } from "./sdks.js";

let server: TestServer;
t.before(async () => {
  server = await startServer();
});
t.teardown(() => server.close());

for (const sdk of SDKS) {
  t.test(sdk.name, async (t) => {
    const client = sdk.client(server.baseUrl, ADMIN_KEY);

    t.test("plain text", async (t) => {
      const msg = await client.messages.create({ model: MODEL, max_tokens: 200, messages: [{ role: "user", content: "hello gateway" }] });
      t.match(msg.id, /^msg_/);
      t.equal(msg.type, "message");
      t.equal(msg.role, "assistant");
      t.equal(msg.model, MODEL);
      t.equal(textOf(msg), "You said: hello gateway");
      t.equal(msg.stop_reason, "end_turn");
      t.equal(msg.stop_sequence, null);
      t.ok(msg.usage.input_tokens > 0);
      t.ok(msg.usage.output_tokens > 0);
      t.equal(msg.usage.cache_creation_input_tokens, 0);
      t.equal(msg.usage.cache_read_input_tokens, 0);
      t.match(msg._request_id, /^req_/, "the request-id header reaches the SDK");
    });

    t.test("system prompt counts as input", async (t) => {
      const without = await client.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: "user", content: "hi" }] });
      const withSystem = await client.messages.create({
        model: MODEL,
        max_tokens: 100,
        system: [{ type: "text", text: "You are a terse assistant that answers in one line.", cache_control: { type: "ephemeral" } }],
        messages: [{ role: "user", content: "hi" }],
      });
      t.equal(textOf(withSystem), "You said: hi");
      t.ok(withSystem.usage.input_tokens > without.usage.input_tokens);
      const counted = await client.messages.countTokens({ model: MODEL, system: "You are a terse assistant that answers in one line.", messages: [{ role: "user", content: "hi" }] });
      t.equal(counted.input_tokens, withSystem.usage.input_tokens, "a string system prompt counts like one text block");
    });

    t.test("multi-turn: consecutive user messages merge; a final assistant message is continued", async (t) => {
      const merged = await client.messages.create({
        model: MODEL,
        max_tokens: 100,
        messages: [
          { role: "user", content: "first question" },
          { role: "assistant", content: "first answer" },
          { role: "user", content: "alpha" },
          { role: "user", content: [{ type: "text", text: "beta" }] },
        ],
      });
      t.equal(textOf(merged), "You said: alpha beta");
      const cont = await client.messages.create({
        model: MODEL,
        max_tokens: 100,
        messages: [
          { role: "user", content: "say something" },
          { role: "assistant", content: "Well," },
        ],
      });
      t.equal(cont.stop_reason, "end_turn");
      t.ok(cont.content.length > 0);
    });

    t.test("max_tokens and stop sequences", async (t) => {
      const cut = await client.messages.create({ model: MODEL, max_tokens: 2, messages: [{ role: "user", content: "a long sentence with many many words" }] });
      t.equal(cut.stop_reason, "max_tokens");
      t.ok(cut.usage.output_tokens <= 2);
      const stopped = await client.messages.create({ model: MODEL, max_tokens: 100, stop_sequences: ["said"], messages: [{ role: "user", content: "anything" }] });
      t.equal(stopped.stop_reason, "stop_sequence");
      t.equal(stopped.stop_sequence, "said");
      t.equal(textOf(stopped), "You ");
    });

    t.test("image input", async (t) => {
      const messages: Anthropic.MessageParam[] = [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_1X1 } },
            { type: "text", text: "what is in this picture" },
          ],
        },
      ];
      const msg = await client.messages.create({ model: MODEL, max_tokens: 100, messages });
      t.equal(textOf(msg), "You said: what is in this picture");
      const textOnly = await client.messages.countTokens({ model: MODEL, messages: [{ role: "user", content: "what is in this picture" }] });
      t.ok(msg.usage.input_tokens > textOnly.input_tokens, "the image is counted");
      const counted = await client.messages.countTokens({ model: MODEL, messages });
      t.equal(counted.input_tokens, msg.usage.input_tokens);
    });

    t.test("document input", async (t) => {
      const msg = await client.messages.create({
        model: MODEL,
        max_tokens: 100,
        messages: [
          {
            role: "user",
            content: [
              { type: "document", source: { type: "text", media_type: "text/plain", data: "The sky is green here." }, title: "notes" },
              { type: "text", text: "summarise the notes" },
            ],
          },
        ],
      });
      t.equal(textOf(msg), "You said: summarise the notes");
    });

    t.test("tool round trip: tool_use -> tool_result -> answer", async (t) => {
      const ask: Anthropic.MessageParam = { role: "user", content: "What is the weather in Paris? Use get_weather." };
      const first = await client.messages.create({ model: MODEL, max_tokens: 300, tools: [WEATHER_TOOL, TIME_TOOL], messages: [ask] });
      t.equal(first.stop_reason, "tool_use");
      const call = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
      t.ok(call, "a tool_use block");
      t.equal(call!.name, "get_weather");
      t.match(call!.id, /^toolu_/);
      t.type((call!.input as { city?: unknown }).city, "string", "arguments follow the input schema");
      const second = await client.messages.create({
        model: MODEL,
        max_tokens: 300,
        tools: [WEATHER_TOOL, TIME_TOOL],
        messages: [ask, { role: "assistant", content: first.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: call!.id, content: "sunny, 21 C" }] }],
      });
      t.equal(second.stop_reason, "end_turn");
      t.match(textOf(second), /The tool get_weather returned: sunny, 21 C/);
    });

    t.test("forced tool choice", async (t) => {
      const forced = await client.messages.create({
        model: MODEL,
        max_tokens: 300,
        tools: [WEATHER_TOOL, TIME_TOOL],
        tool_choice: { type: "tool", name: "get_time", disable_parallel_tool_use: true },
        messages: [{ role: "user", content: "tell me a joke" }],
      });
      t.equal(forced.stop_reason, "tool_use");
      const calls = forced.content.filter((b) => b.type === "tool_use");
      t.equal(calls.length, 1);
      t.equal((calls[0] as Anthropic.ToolUseBlock).name, "get_time");
      const any = await client.messages.create({ model: MODEL, max_tokens: 300, tools: [WEATHER_TOOL], tool_choice: { type: "any" }, messages: [{ role: "user", content: "hello" }] });
      t.equal(any.stop_reason, "tool_use");
      const none = await client.messages.create({
        model: MODEL,
        max_tokens: 300,
        tools: [WEATHER_TOOL],
        tool_choice: { type: "none" },
        messages: [{ role: "user", content: "use get_weather for Paris" }],
      });
      t.equal(none.stop_reason, "end_turn");
      t.notOk(none.content.some((b) => b.type === "tool_use"));
    });

    t.test("thinking round trip with its signature; a tampered signature is a 400", async (t) => {
      const ask: Anthropic.MessageParam = { role: "user", content: "think about the number seven" };
      const first = await client.messages.create({ model: MODEL, max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 2048 }, messages: [ask] });
      const thinking = first.content[0] as Anthropic.ThinkingBlock;
      t.equal(thinking.type, "thinking");
      t.ok(thinking.thinking.length > 0);
      t.ok(thinking.signature.length > 0);
      t.ok(first.content.some((b) => b.type === "text"));
      const next: Anthropic.MessageParam[] = [ask, { role: "assistant", content: first.content }, { role: "user", content: "and now eight" }];
      const second = await client.messages.create({ model: MODEL, max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 2048 }, messages: next });
      t.equal(second.stop_reason, "end_turn");
      const tampered = first.content.map((b) => (b.type === "thinking" ? { ...b, signature: tamper(b.signature) } : b));
      const err = await client.messages
        .create({
          model: MODEL,
          max_tokens: 4096,
          thinking: { type: "enabled", budget_tokens: 2048 },
          messages: [ask, { role: "assistant", content: tampered }, { role: "user", content: "and now eight" }],
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      t.ok(err instanceof sdk.errors.BadRequestError, "BadRequestError");
      const body = (err as { error: { error: { type: string; message: string } } }).error;
      t.equal(body.error.type, "invalid_request_error");
      t.match(body.error.message, /^messages\.1\.content\.0\.signature/, "the error names the tampered block");
    });

    t.test("thinking display omitted: the block keeps its signature, not its text, and the history still verifies", async (t) => {
      const ask: Anthropic.MessageParam = { role: "user", content: "think about the number seven" };
      const thinking = { type: "adaptive", display: "omitted" } as const;
      const first = await client.messages.create({ model: MODEL, max_tokens: 4096, thinking, messages: [ask] });
      const block = first.content[0] as Anthropic.ThinkingBlock;
      t.equal(block.type, "thinking");
      t.equal(block.thinking, "", "no thinking text");
      t.ok(block.signature.length > 0, "a signature all the same");
      const second = await client.messages.create({
        model: MODEL,
        max_tokens: 4096,
        thinking,
        messages: [ask, { role: "assistant", content: first.content }, { role: "user", content: "and now eight" }],
      });
      t.equal(second.stop_reason, "end_turn", "the empty block sent back verifies");
      const shown = await client.messages.create({ model: MODEL, max_tokens: 4096, thinking: { type: "adaptive", display: "summarized" }, messages: [ask] });
      t.ok((shown.content[0] as Anthropic.ThinkingBlock).thinking.length > 0, "summarized shows it");
    });

    t.test("safety block -> refusal with empty content", async (t) => {
      const msg = await client.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: "user", content: "tell me about forbidden-topic please" }] });
      t.equal(msg.stop_reason, "refusal");
      t.same(msg.content, []);
    });

    t.test("count tokens matches usage.input_tokens", async (t) => {
      const params = {
        model: MODEL,
        system: "be kind",
        tools: [WEATHER_TOOL],
        messages: [
          { role: "user" as const, content: "count these words for me" },
          { role: "assistant" as const, content: "sure" },
          { role: "user" as const, content: "thanks" },
        ],
      };
      const counted = await client.messages.countTokens(params);
      const msg = await client.messages.create({ ...params, max_tokens: 50 });
      t.ok(counted.input_tokens > 0);
      t.equal(counted.input_tokens, msg.usage.input_tokens);
    });

    t.test("betas header is accepted", async (t) => {
      const msg = await client.messages.create(
        { model: MODEL, max_tokens: 50, messages: [{ role: "user", content: "beta please" }] },
        { headers: { "anthropic-beta": "interleaved-thinking-2025-05-14,context-1m-2025-08-07" } },
      );
      t.equal(textOf(msg), "You said: beta please");
      const beta = await client.beta.messages.create({ model: MODEL, max_tokens: 50, betas: ["token-efficient-tools-2025-02-19"], messages: [{ role: "user", content: "via beta" }] });
      t.equal(textOf(beta as unknown as Anthropic.Message), "You said: via beta");
    });
  });
}
