// The Vercel AI SDK 7 (ai, @ai-sdk/anthropic, @ai-sdk/google, @ai-sdk/openai,
// pinned in test/clients/package.json) against the gateway's local engine,
// unchanged: text, streams, tools, objects, thinking, a system message inside
// the conversation, and images.
import t from "tap";
import type { LanguageModel } from "ai";
import sharp from "sharp";
import { ADMIN_KEY, startServer, type TestServer } from "../helpers/app.js";
import { installClients } from "./harness.js";

// The packages exist once the suite has installed them: imported after that.
await installClients();
const { createAnthropic } = await import("@ai-sdk/anthropic");
const { createGoogleGenerativeAI } = await import("@ai-sdk/google");
const { createOpenAI } = await import("@ai-sdk/openai");
const { generateImage, generateObject, generateText, stepCountIs, streamObject, streamText, tool } = await import("ai");
const { z } = await import("zod");

let server: TestServer;
t.before(async () => {
  server = await startServer();
});
t.teardown(() => server?.close());

const models = (): [string, LanguageModel, Record<string, Record<string, unknown>>][] => [
  ["anthropic", createAnthropic({ baseURL: `${server.baseUrl}/v1`, apiKey: ADMIN_KEY })("claude-sonnet-4-6"), { anthropic: { thinking: { type: "enabled", budgetTokens: 1024 } } }],
  ["google", createGoogleGenerativeAI({ baseURL: `${server.baseUrl}/v1beta`, apiKey: ADMIN_KEY })("gemini-2.5-flash"), { google: { thinkingConfig: { includeThoughts: true, thinkingBudget: 512 } } }],
];

const weather = tool({
  description: "Current weather for a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, temperature: 18 }),
});

t.test("text, streams, tools, objects and thinking through both chat providers", async (t) => {
  for (const [name, model, thinking] of models()) {
    const text = await generateText({ model, prompt: "Hello there" });
    t.equal(text.text, "You said: Hello there", `${name}: generateText`);
    t.ok(text.usage.inputTokens! > 0 && text.usage.outputTokens! > 0, `${name}: usage`);

    const stream = streamText({ model, prompt: "stream these words back" });
    let streamed = "";
    for await (const piece of stream.textStream) streamed += piece;
    t.equal(streamed, "You said: stream these words back", `${name}: streamText`);
    t.equal(await stream.finishReason, "stop", `${name}: the stream finishes`);

    const tools = await generateText({ model, prompt: "Use the weather tool for Paris", tools: { weather }, stopWhen: stepCountIs(3) });
    const call = tools.steps[0]!.toolCalls[0];
    t.equal(call?.toolName, "weather", `${name}: a tool call`);
    t.type((call?.input as { city?: unknown }).city, "string", `${name}: arguments that match the schema`);
    t.equal(tools.steps.length, 2, `${name}: the tool's result goes back and the model answers`);
    t.match(tools.text, /weather/, `${name}: the answer reads the result`);

    const schema = z.object({ name: z.string(), age: z.number().int(), tags: z.array(z.string()) });
    const object = await generateObject({ model, schema, prompt: "Describe a person" });
    t.ok(schema.safeParse(object.object).success, `${name}: generateObject validates`);
    const partial = streamObject({ model, schema, prompt: "Describe a person" });
    for await (const _ of partial.partialObjectStream);
    t.ok(schema.safeParse(await partial.object).success, `${name}: streamObject validates`);

    const thought = await generateText({ model, prompt: "Think, then answer", providerOptions: thinking as never });
    t.ok(thought.reasoningText && thought.reasoningText.length > 0, `${name}: reasoning comes back`);
    t.equal(thought.text, "You said: Think, then answer", `${name}: and the answer after it`);
    const again = await generateText({
      model,
      messages: [{ role: "user", content: "Think, then answer" }, ...thought.response.messages, { role: "user", content: "and again" }],
      providerOptions: thinking as never,
    });
    t.equal(again.text, "You said: and again", `${name}: the signed reasoning goes back and is accepted`);
  }
});

t.test("a system message inside the conversation (allowSystemInMessages)", async (t) => {
  // @ai-sdk/google refuses it itself, before any request: only the Anthropic provider sends one.
  for (const [name, model] of models().filter(([n]) => n === "anthropic")) {
    const res = await generateText({
      model,
      allowSystemInMessages: true,
      messages: [
        { role: "user", content: "first" },
        { role: "assistant", content: "You said: first" },
        { role: "system", content: "Answer briefly from now on." },
        { role: "user", content: "second" },
      ],
    });
    t.equal(res.text, "You said: second", `${name}: served`);
  }
});

t.test("images through @ai-sdk/openai", async (t) => {
  const openai = createOpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: ADMIN_KEY });
  for (const model of ["gpt-image-1", "gpt-image-1-mini", "dall-e-3", "dall-e-2"]) {
    const { images } = await generateImage({ model: openai.image(model), prompt: "a lighthouse at dusk", n: 1 });
    t.equal(images.length, 1, `${model}: one image`);
    const meta = await sharp(images[0]!.uint8Array).metadata();
    t.ok(meta.width! > 0 && meta.height! > 0, `${model}: a real image (${meta.format} ${meta.width}x${meta.height})`);
  }
});
