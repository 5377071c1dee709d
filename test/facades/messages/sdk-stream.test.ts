// Streaming through both SDK generations: messages.stream() / finalMessage()
// and raw `stream: true` iteration; the streamed answer equals the whole one.
import t from "tap";
import type Anthropic from "@anthropic-ai/sdk";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";
import { MODEL, SDKS, WEATHER_TOOL, textOf } from "./sdks.js";

let server: TestServer;
t.before(async () => {
  server = await startServer();
});
t.teardown(() => server.close());

for (const sdk of SDKS) {
  t.test(sdk.name, async (t) => {
    const client = sdk.client(server.baseUrl, ADMIN_KEY);

    t.test("messages.stream() + finalMessage() equals the non-streamed answer", async (t) => {
      const params = { model: MODEL, max_tokens: 300, messages: [{ role: "user" as const, content: "please stream this rather long sentence back to me in pieces" }] };
      const whole = await client.messages.create(params);
      const stream = client.messages.stream(params);
      const deltas: string[] = [];
      stream.on("text", (d) => deltas.push(d));
      const final = await stream.finalMessage();
      t.ok(deltas.length > 1, "several text deltas");
      t.equal(deltas.join(""), textOf(whole));
      t.same(final.content, whole.content);
      t.equal(final.stop_reason, "end_turn");
      t.same(final.usage, whole.usage);
      t.match(final.id, /^msg_/);
    });

    t.test("raw stream: true iteration has the documented order", async (t) => {
      const stream = await client.messages.create({ model: MODEL, max_tokens: 300, stream: true, messages: [{ role: "user", content: "count to three for me" }] });
      const types: string[] = [];
      const indexes: number[] = [];
      let text = "";
      let stop: string | null = null;
      let outputTokens = 0;
      for await (const ev of stream) {
        types.push(ev.type);
        if (ev.type === "content_block_start") indexes.push(ev.index);
        if (ev.type === "content_block_delta" && ev.delta.type === "text_delta") text += ev.delta.text;
        if (ev.type === "message_delta") {
          stop = ev.delta.stop_reason;
          outputTokens = ev.usage.output_tokens;
        }
      }
      t.equal(types[0], "message_start");
      t.equal(types.at(-1), "message_stop");
      t.equal(types.at(-2), "message_delta");
      t.same(indexes, [0]);
      t.equal(text, "You said: count to three for me");
      t.equal(stop, "end_turn");
      t.ok(outputTokens > 0);
    });

    t.test("streamed tool call: input_json deltas make the arguments", async (t) => {
      const params = { model: MODEL, max_tokens: 300, tools: [WEATHER_TOOL], tool_choice: { type: "any" as const }, messages: [{ role: "user" as const, content: "weather in Berlin" }] };
      const whole = await client.messages.create(params);
      const stream = client.messages.stream(params);
      const fragments: string[] = [];
      stream.on("inputJson", (partial) => fragments.push(partial));
      const final = await stream.finalMessage();
      t.equal(final.stop_reason, "tool_use");
      const call = final.content.find((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
      const wholeCall = whole.content.find((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
      t.same(call?.input, wholeCall?.input);
      t.equal(call?.name, "get_weather");
      t.ok(fragments.length >= 1);
    });

    t.test("streamed thinking: the signature arrives and round-trips", async (t) => {
      const ask: Anthropic.MessageParam = { role: "user", content: "think about streams" };
      const stream = client.messages.stream({ model: MODEL, max_tokens: 4096, thinking: { type: "enabled", budget_tokens: 1024 }, messages: [ask] });
      const final = await stream.finalMessage();
      const thinking = final.content[0] as Anthropic.ThinkingBlock;
      t.equal(thinking.type, "thinking");
      t.ok(thinking.thinking.length > 0);
      t.ok(thinking.signature.length > 0);
      const next = await client.messages.create({
        model: MODEL,
        max_tokens: 4096,
        thinking: { type: "enabled", budget_tokens: 1024 },
        messages: [ask, { role: "assistant", content: final.content }, { role: "user", content: "go on" }],
      });
      t.equal(next.stop_reason, "end_turn");
    });

    t.test("streamed refusal", async (t) => {
      const final = await client.messages.stream({ model: MODEL, max_tokens: 100, messages: [{ role: "user", content: "forbidden-topic" }] }).finalMessage();
      t.equal(final.stop_reason, "refusal");
      t.same(final.content, []);
    });

    t.test("mid-stream failure -> the SDK throws APIError", async (t) => {
      const raw = await client.messages.create({ model: MODEL, max_tokens: 300, stream: true, messages: [{ role: "user", content: "start talking then #fault:midstream please" }] });
      const seen: string[] = [];
      const err = await (async () => {
        for await (const ev of raw) seen.push(ev.type);
      })().then(
        () => undefined,
        (e: unknown) => e,
      );
      t.ok(err instanceof sdk.errors.APIError, "APIError");
      t.equal((err as { status?: number }).status, undefined, "no HTTP status: the 200 had gone out");
      t.equal((err as { error: { error: { type: string } } }).error.error.type, "overloaded_error");
      if (sdk.major === 1) t.equal((err as { type?: string }).type, "overloaded_error");
      t.equal(seen[0], "message_start");
      t.notOk(seen.includes("message_stop"));
      const viaHelper = await client.messages
        .stream({ model: MODEL, max_tokens: 300, messages: [{ role: "user", content: "again #fault:midstream" }] })
        .finalMessage()
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      t.ok(viaHelper instanceof sdk.errors.APIError, "finalMessage() rejects with APIError");
    });

    t.test("a failure before the first event keeps its HTTP status", async (t) => {
      const err = await client.messages.create({ model: MODEL, max_tokens: 300, stream: true, messages: [{ role: "user", content: "#fault:rate_limit" }] }).then(
        () => undefined,
        (e: unknown) => e,
      );
      t.ok(err instanceof sdk.errors.RateLimitError);
      t.equal((err as { status: number }).status, 429);
    });
  });
}
