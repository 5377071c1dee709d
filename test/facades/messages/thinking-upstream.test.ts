// Thinking display and the newer effort levels, sent by the official Anthropic
// SDK, as each kind of upstream receives them: Anthropic gets the client's own
// fields, Gemini and OpenAI-compatible servers get their nearest levels.
import t from "tap";
import Anthropic from "@anthropic-ai/sdk";
import type { ChannelConfig } from "../../../src/config.js";
import { ADMIN_KEY, startServer } from "../../helpers/app.js";
import { fixture, startFakeUpstream } from "../../fixtures/fake-upstream.js";

const chan = (name: string, provider: ChannelConfig["provider"], baseUrl: string, model: string): ChannelConfig => ({
  name,
  provider,
  baseUrl,
  apiKey: `key-${name}`,
  models: [model],
  modelMap: {},
  priority: 0,
  weight: 1,
  enabled: true,
});

t.test("thinking.display and output_config.effort reach each upstream in its own terms", async (t) => {
  const anthropic = await startFakeUpstream(() => ({ json: fixture("anthropic/message-text.json") }));
  const openai = await startFakeUpstream(() => ({ json: fixture("openai/chat-text.json") }));
  const gemini = await startFakeUpstream(() => ({ json: fixture("gemini/text.json") }));
  const server = await startServer({
    config: {
      upstream: { connectTimeoutMs: 1000, firstByteTimeoutMs: 5000, chunkTimeoutMs: 5000, retries: 0, maxAttempts: 1, backoffMs: 1, maxBackoffMs: 10, cooldownMs: 60_000, cooldownAfterFailures: 2, connections: 4 },
      channels: [chan("a", "anthropic", anthropic.url, "claude-x"), chan("o", "openai", `${openai.url}/v1`, "gpt-x"), chan("g", "gemini", gemini.url, "gemini-x")],
    },
  });
  t.teardown(async () => {
    await server.close();
    await Promise.all([anthropic.close(), openai.close(), gemini.close()]);
  });
  const c = new Anthropic({ baseURL: server.baseUrl, apiKey: ADMIN_KEY, maxRetries: 0 });
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

  const bad = await c.messages
    .create({ model: "claude-x", max_tokens: 4096, thinking: { type: "adaptive", display: "hidden" as "omitted" }, messages: [{ role: "user", content: "Hi" }] })
    .then(() => undefined, (e: unknown) => e as InstanceType<typeof Anthropic.APIError>);
  t.equal(bad?.status, 400);
  t.match((bad?.error as { error?: { type?: string; message?: string } })?.error, { type: "invalid_request_error", message: /^thinking\.display: / });
  t.equal(anthropic.requests.length, 2, "a bad display never reaches the upstream");
});
