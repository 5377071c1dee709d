// Golden tests: the official Anthropic SDKs (1.x and 0.x) hold a multi-turn,
// tool-using, thinking conversation through the gateway with each upstream
// kind, streamed and not. The scripted upstreams check what reaches them.
import t from "tap";
import type Anthropic from "@anthropic-ai/sdk";
import { ADMIN_KEY } from "../../helpers/app.js";
import { SDKS, WEATHER_TOOL, textOf } from "../../facades/messages/sdks.js";
import { ANSWER, ANTHROPIC_SIG_1, ANTHROPIC_TOOL_ID, GEMINI_SIG_1, GREETING, OPENAI_TOOL_ID, THOUGHT_1, THOUGHT_2 } from "../../fixtures/scripted.js";
import { checks, routedTo, VENDORS, type Check, type Routed } from "../../fixtures/routed.js";

type Msg = Anthropic.Message;
const wrapped = (issuer: string, value: string) => Buffer.from(`omnigate:${issuer}:${value}`, "utf8").toString("base64");

/** The signature an Anthropic client sees on the first thinking block, per upstream. */
const FIRST_SIGNATURE = { anthropic: ANTHROPIC_SIG_1, openai: "", gemini: wrapped("gemini", GEMINI_SIG_1) };

async function ask(client: Anthropic, stream: boolean, params: Anthropic.MessageCreateParamsNonStreaming): Promise<Msg> {
  return stream ? client.messages.stream(params).finalMessage() : client.messages.create(params);
}

/** What the upstream received on the second turn proves the tool call, its id and the signature made the round trip. */
function checkSecondRequest(up: Routed, body: any): Check[] {
  const t = checks();
  if (up.vendor === "anthropic") {
    t.equal(body.model, "claude-sonnet-4-5-20250929", "modelMap applied");
    t.same(body.messages[1].content, [
      { type: "thinking", thinking: THOUGHT_1, signature: ANTHROPIC_SIG_1 },
      { type: "tool_use", id: ANTHROPIC_TOOL_ID, name: "get_weather", input: { city: "Paris" } },
    ]);
    t.same(body.messages[2].content[0], { type: "tool_result", tool_use_id: ANTHROPIC_TOOL_ID, content: [{ type: "text", text: "sunny, 21C" }] });
  } else if (up.vendor === "openai") {
    t.equal(body.model, "gpt-4.1");
    t.same(body.messages.slice(1), [
      { role: "assistant", content: null, tool_calls: [{ id: OPENAI_TOOL_ID, type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
      { role: "tool", tool_call_id: OPENAI_TOOL_ID, content: "sunny, 21C" },
    ]);
  } else {
    const model = body.contents[1];
    t.equal(model.role, "model");
    const call = model.parts.find((p: any) => p.functionCall);
    t.equal(call.thoughtSignature, GEMINI_SIG_1, "Gemini's signature is back on its function call");
    t.same(call.functionCall.args, { city: "Paris" });
    t.same(body.contents[2].parts[0].functionResponse.response, { output: "sunny, 21C" });
    t.equal(body.contents[2].parts[0].functionResponse.name, "get_weather");
    t.equal(body.contents[2].parts[0].functionResponse.id, call.functionCall.id);
  }
  return t.list;
}

for (const vendor of VENDORS) {
  t.test(`upstream ${vendor}`, async (t) => {
    const up = await routedTo(vendor);
    t.teardown(() => up.close());
    for (const sdk of SDKS) {
      for (const stream of [false, true]) {
        t.test(`${sdk.name}${stream ? " streaming" : ""}`, async (t) => {
          const client = sdk.client(up.server.baseUrl, ADMIN_KEY);
          const plain = await ask(client, stream, { model: "gateway-chat", max_tokens: 256, messages: [{ role: "user", content: "Hi!" }] });
          t.equal(textOf(plain), GREETING);
          t.equal(plain.stop_reason, "end_turn");
          t.equal(plain.model, "gateway-chat");
          t.ok(plain.usage.input_tokens + (plain.usage.cache_read_input_tokens ?? 0) > 0, "usage present");

          const base = { model: "gateway-chat", max_tokens: 4096, thinking: { type: "enabled" as const, budget_tokens: 1024 }, tools: [WEATHER_TOOL] };
          const question = { role: "user" as const, content: "What is the weather in Paris?" };
          const first = await ask(client, stream, { ...base, messages: [question] });
          t.same(
            first.content.map((b) => b.type),
            ["thinking", "tool_use"],
          );
          const thinking = first.content[0] as Anthropic.ThinkingBlock;
          const call = first.content[1] as Anthropic.ToolUseBlock;
          t.equal(thinking.thinking, THOUGHT_1);
          t.equal(thinking.signature, FIRST_SIGNATURE[vendor]);
          t.same([call.name, call.input], ["get_weather", { city: "Paris" }]);
          t.match(call.id, /^[A-Za-z0-9_-]+$/);
          t.equal(first.stop_reason, "tool_use");

          const second = await ask(client, stream, {
            ...base,
            messages: [
              question,
              { role: "assistant", content: first.content as Anthropic.ContentBlockParam[] },
              { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "sunny, 21C" }] },
            ],
          });
          for (const [found, wanted, message] of checkSecondRequest(up, up.fake.requests.at(-1)!.body)) t.same(found, wanted, message ?? "upstream request");
          t.same(
            second.content.map((b) => b.type),
            ["thinking", "text"],
          );
          t.equal((second.content[0] as Anthropic.ThinkingBlock).thinking, THOUGHT_2);
          t.equal(textOf(second), ANSWER);
          t.equal(second.stop_reason, "end_turn");
          t.ok(second.usage.output_tokens > 0);
        });
      }
    }
    t.test("count_tokens and the model listing", async (t) => {
      const client = SDKS[0]!.client(up.server.baseUrl, ADMIN_KEY);
      const count = await client.messages.countTokens({ model: "gateway-chat", messages: [{ role: "user", content: "How many tokens is this?" }] });
      t.ok(count.input_tokens > 0);
      if (vendor !== "openai") t.equal(count.input_tokens, 42, "counted by the upstream");
      const models = await client.models.list();
      t.same(models.data.map((m) => m.id).sort(), ["gateway-chat", "gemini-2.5-flash"].sort(), "the configured models are listed");
      const missing = await client.messages.create({ model: "not-configured", max_tokens: 10, messages: [{ role: "user", content: "x" }] }).then(
        () => undefined,
        (e: unknown) => e as { status: number; error: { error: { type: string } } },
      );
      t.equal(missing?.status, 404);
      t.equal(missing?.error.error.type, "not_found_error");
    });
  });
}
