// Golden tests: the official GenAI SDKs (2.x on /v1beta, 3.x on /v1) hold a
// multi-turn, tool-using, thinking conversation through the gateway with each
// upstream kind, streamed and not. The scripted upstreams check what reaches them.
import t from "tap";
import type { Content, GenerateContentResponse, Part } from "@google/genai";
import { ADMIN_KEY } from "../../helpers/app.js";
import { SDKS, type GenAI } from "../../facades/generate-content/sdks.js";
import { ANSWER, ANTHROPIC_SIG_1, ANTHROPIC_TOOL_ID, GEMINI_SIG_1, GREETING, OPENAI_TOOL_ID, THOUGHT_1, THOUGHT_2 } from "../../fixtures/scripted.js";
import { checks, routedTo, VENDORS, type Check, type Routed } from "../../fixtures/routed.js";

const MODEL = "gemini-2.5-flash";
const TOOLS = [{ functionDeclarations: [{ name: "get_weather", description: "Current weather", parameters: { type: "OBJECT", properties: { city: { type: "STRING" } }, required: ["city"] } }] }];
const CONFIG = { tools: TOOLS, thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } } as never;

/** One answer's content: whole, or every streamed chunk's parts in order (text pieces merged). */
async function ask(ai: GenAI, stream: boolean, contents: Content[], config: unknown): Promise<{ content: Content; last: GenerateContentResponse }> {
  if (!stream) {
    const r = await ai.models.generateContent({ model: MODEL, contents, config: config as never });
    return { content: r.candidates![0]!.content!, last: r };
  }
  const parts: Part[] = [];
  let last: GenerateContentResponse | undefined;
  for await (const chunk of await ai.models.generateContentStream({ model: MODEL, contents, config: config as never })) {
    last = chunk;
    for (const p of chunk.candidates?.[0]?.content?.parts ?? []) {
      const prev = parts.at(-1);
      if (prev && p.text !== undefined && prev.text !== undefined && !!p.thought === !!prev.thought && !prev.thoughtSignature && !p.functionCall) {
        prev.text += p.text;
        if (p.thoughtSignature) prev.thoughtSignature = p.thoughtSignature;
      } else parts.push({ ...p });
    }
  }
  return { content: { role: "model", parts: parts.filter((p) => p.text !== "" || p.thoughtSignature) }, last: last! };
}

function checkSecondRequest(up: Routed, body: any): Check[] {
  const t = checks();
  if (up.vendor === "anthropic") {
    t.same(
      body.messages[1].content,
      [
        { type: "thinking", thinking: THOUGHT_1, signature: ANTHROPIC_SIG_1 },
        { type: "tool_use", id: ANTHROPIC_TOOL_ID, name: "get_weather", input: { city: "Paris" } },
      ],
      "Anthropic's thinking signature made the round trip through a Gemini client",
    );
    t.same(body.messages[2].content[0].tool_use_id, ANTHROPIC_TOOL_ID);
    t.match(body.messages[2].content[0].content, [{ type: "text", text: /sunny/ }]);
  } else if (up.vendor === "openai") {
    t.same(body.messages[1], { role: "assistant", content: null, tool_calls: [{ id: OPENAI_TOOL_ID, type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] });
    t.equal(body.messages[2].role, "tool");
    t.equal(body.messages[2].tool_call_id, OPENAI_TOOL_ID);
    t.match(body.messages[2].content, /sunny/);
  } else {
    const call = body.contents[1].parts.find((p: any) => p.functionCall);
    t.equal(call.thoughtSignature, GEMINI_SIG_1);
    t.same(body.contents[2].parts[0].functionResponse.response, { output: "sunny, 21C" });
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
          const ai = sdk.client(up.server.baseUrl, ADMIN_KEY);
          const hello = await ask(ai, stream, [{ role: "user", parts: [{ text: "Hi!" }] }], {});
          t.same(hello.content.parts!.map((p) => p.text).join(""), GREETING);
          t.equal(hello.last.candidates![0]!.finishReason, "STOP");
          t.ok((hello.last.usageMetadata?.promptTokenCount ?? 0) > 0, "usage present");

          const question: Content = { role: "user", parts: [{ text: "What is the weather in Paris?" }] };
          const first = await ask(ai, stream, [question], CONFIG);
          const parts = first.content.parts!;
          const thought = parts.find((p) => p.thought);
          const call = parts.find((p) => p.functionCall);
          t.equal(thought?.text, THOUGHT_1);
          t.same([call?.functionCall?.name, call?.functionCall?.args], ["get_weather", { city: "Paris" }]);
          if (vendor === "openai") t.notOk(call?.thoughtSignature, "OpenAI-compatible reasoning is unsigned");
          else t.ok(call?.thoughtSignature, "the step's signature rides on the function call");
          if (vendor === "gemini") t.equal(call?.thoughtSignature, GEMINI_SIG_1, "raw when Gemini issued it");
          t.equal(first.last.candidates![0]!.finishReason, "STOP");

          const second = await ask(
            ai,
            stream,
            [question, first.content, { role: "user", parts: [{ functionResponse: { id: call!.functionCall!.id, name: "get_weather", response: { output: "sunny, 21C" } } }] }],
            CONFIG,
          );
          for (const [found, wanted, message] of checkSecondRequest(up, up.fake.requests.at(-1)!.body)) t.same(found, wanted, message ?? "upstream request");
          const text = second.content
            .parts!.filter((p) => !p.thought)
            .map((p) => p.text ?? "")
            .join("");
          t.equal(text, ANSWER);
          t.equal(second.content.parts!.find((p) => p.thought)?.text, THOUGHT_2);
          t.equal(second.last.candidates![0]!.finishReason, "STOP");
        });
      }
    }
    t.test("countTokens and models.get", async (t) => {
      const ai = SDKS[0]!.client(up.server.baseUrl, ADMIN_KEY);
      const count = await ai.models.countTokens({ model: MODEL, contents: [{ role: "user", parts: [{ text: "How many tokens is this?" }] }] });
      t.ok((count.totalTokens ?? 0) > 0);
      if (vendor !== "openai") t.equal(count.totalTokens, 42, "counted by the upstream");
      const m = await ai.models.get({ model: MODEL });
      t.equal(m.name, `models/${MODEL}`);
      const missing = await ai.models.generateContent({ model: "not-configured", contents: "x" }).then(
        () => undefined,
        (e: unknown) => e as { status: number; message: string },
      );
      t.equal(missing?.status, 404);
      t.match(missing?.message, /NOT_FOUND/);
    });
  });
}
