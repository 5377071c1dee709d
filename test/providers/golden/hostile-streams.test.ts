// Hostile upstream streams, end to end without the network: recorded OpenAI,
// Anthropic, Gemini and Responses streams, mutated at random (values of other
// types, events dropped, repeated or cut short), go through the provider's
// stream translator and the core's stream guard, and every event the guard
// passes goes through the four chat facades' stream translators into the text
// they send. A stream may fail (the guard or a translator refuses it, as the
// client then sees in its format); no facade may throw on what it is given.
import t from "tap";
import { readFileSync } from "node:fs";
import type { StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { asConnectError } from "../../../src/core/errors.js";
import { StreamGuardState } from "../../../src/core/chat/stream-guard.js";
import type { StreamTranslator } from "../../../src/lib/stream-translator.js";
import { OpenAIStreamTranslator } from "../../../src/providers/openai/stream.js";
import { AnthropicStreamTranslator } from "../../../src/providers/anthropic/stream.js";
import { GeminiStreamTranslator } from "../../../src/providers/gemini/stream.js";
import { ResponsesStreamTranslator as ResponsesUpstream } from "../../../src/providers/openai-responses/stream.js";
import { ChatStreamTranslator } from "../../../src/facades/openai-chat/stream.js";
import { frameText as messagesFrame, MessagesStreamTranslator } from "../../../src/facades/messages/sse.js";
import { GenerateContentStreamTranslator } from "../../../src/facades/generate-content/stream.js";
import { ResponsesStreamTranslator } from "../../../src/facades/openai-responses/stream.js";
import { sealer } from "../../../src/facades/openai-responses/seal.js";
import { mutate, rng } from "./mutate.js";
import { streamEvents } from "../openai-responses/fixtures.js";

type Ev = StreamGenerateResponse;

/** The JSON data of each event of a recorded SSE file ([DONE] left out). */
function sseData(p: string): unknown[] {
  const text = readFileSync(new URL(`../../fixtures/${p}`, import.meta.url), "utf8").replace(/\r\n/g, "\n");
  const out: unknown[] = [];
  for (const block of text.split(/\n\n+/)) {
    const data = block
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).trim())
      .join("\n");
    if (data && data !== "[DONE]") out.push(JSON.parse(data));
  }
  return out;
}

let ids = 0;
const newId = () => `id_${++ids}`;
const VENDORS: [string, unknown[][], () => StreamTranslator<never, Ev>][] = [
  ["openai", [sseData("openai/stream-reasoning-tools.sse"), sseData("openai/stream-text.sse")], () => new OpenAIStreamTranslator({ model: "m", channel: "c", newId, stops: [] })],
  ["anthropic", [sseData("anthropic/stream-thinking.sse"), sseData("anthropic/stream-tool-use.sse")], () => new AnthropicStreamTranslator({ model: "m", channel: "c" })],
  ["gemini", [sseData("gemini/stream-thinking-tools.sse"), sseData("gemini/stream-trailing-signature.sse")], () => new GeminiStreamTranslator({ model: "m", channel: "c", newId })],
  ["openai responses", [streamEvents.map((e, i) => ({ ...e, sequence_number: i }))], () => new ResponsesUpstream({ model: "m", channel: "c", newId })],
];

/** Some events mutated; now and then one dropped, one repeated, or the stream cut. */
function mutateStream(events: unknown[], r: () => number): unknown[] {
  let out = events.map((e) => (r() < 0.25 ? mutate(e, r, 0.2) : e));
  if (r() < 0.1) out.splice(Math.floor(r() * out.length), 1);
  if (r() < 0.1) {
    const i = Math.floor(r() * out.length);
    out.splice(i, 0, out[i]);
  }
  if (r() < 0.05) out = out.slice(0, Math.floor(r() * out.length));
  return out;
}

interface FacadeStream {
  name: string;
  push(e: Ev): string[];
  end(): string[];
  fail(err: unknown): string[];
}

const seal = sealer("hostile-streams");
function facades(): FacadeStream[] {
  const chat = new ChatStreamTranslator({ freshId: "chatcmpl-x", created: 1, model: "m", legacyFunctions: false, includeUsage: true });
  const messages = new MessagesStreamTranslator({ requestId: "req_1", fallbackId: "msg_x", model: "m" });
  const content = new GenerateContentStreamTranslator({ includeThoughts: true });
  const responses = new ResponsesStreamTranslator({ id: "resp_1", createdAt: 1, model: "m", echo: {}, includeEncrypted: true, sealer: seal, toolNames: new Map() }, { now: () => 0 });
  return [
    {
      name: "chat completions",
      push: (e) => chat.push(e).map((f) => chat.frameText(f)),
      end: () => chat.end().map((f) => chat.frameText(f)),
      fail: (err) => chat.fail(err).map((f) => chat.frameText(f)),
    },
    { name: "messages", push: (e) => messages.push(e).map(messagesFrame), end: () => messages.end().map(messagesFrame), fail: (err) => messages.fail(err).map(messagesFrame) },
    {
      name: "generate-content",
      push: (e) => content.push(e).map((c) => JSON.stringify(c)),
      end: () => content.end().map((c) => JSON.stringify(c)),
      fail: () => content.flush().map((c) => JSON.stringify(c)),
    },
    {
      name: "responses",
      push: (e) => responses.push(e).map((f) => responses.frameText(f)),
      end: () => responses.end().map((f) => responses.frameText(f)),
      fail: (err) => responses.fail(err).map((f) => responses.frameText(f)),
    },
  ];
}

/**
 * One stream through provider, guard and facades, as the call path runs it:
 * a non-object event or a translator's or the guard's exception fails the
 * stream (closing what can be closed first). Returns how it ended, and what
 * any facade threw.
 */
function run(translator: StreamTranslator<never, Ev>, events: unknown[]): { failed: boolean; thrown: string[] } {
  const guard = new StreamGuardState();
  const fs = facades();
  const thrown: string[] = [];
  const each = (f: FacadeStream, what: () => string[]) => {
    try {
      what();
    } catch (err) {
      thrown.push(`${f.name}: ${String(err)}`);
    }
  };
  const deliver = (evs: Ev[]) => evs.forEach((e) => fs.forEach((f) => each(f, () => f.push(e))));
  try {
    for (const raw of events) {
      if (raw === null || typeof raw !== "object") throw new Error("non-JSON stream event");
      for (const e of translator.push(raw as never)) deliver(guard.accept(e));
    }
    for (const e of translator.end()) deliver(guard.accept(e));
    deliver(guard.finish());
  } catch (err) {
    deliver(guard.onFailure());
    fs.forEach((f) => each(f, () => f.fail(asConnectError(err))));
    return { failed: true, thrown };
  }
  fs.forEach((f) => each(f, () => f.end()));
  return { failed: false, thrown };
}

const ROUNDS = 300;

for (const [vendor, seeds, make] of VENDORS) {
  t.test(`${vendor}: a mutated stream reaches every facade as frames or as its error`, async (t) => {
    const whole = run(make(), seeds[0]!);
    t.same(whole, { failed: false, thrown: [] }, "the recorded stream itself completes");
    const count = { completed: 0, failed: 0 };
    const thrown: string[] = [];
    seeds.forEach((seed, s) => {
      const r = rng(7919 * (s + 1) + vendor.length);
      for (let i = 0; i < ROUNDS; i++) {
        const events = mutateStream(seed, r);
        const res = run(make(), events);
        count[res.failed ? "failed" : "completed"]++;
        for (const x of res.thrown) thrown.push(`${x} for ${JSON.stringify(events).slice(0, 300)}`);
      }
    });
    t.same(thrown.slice(0, 3), [], "no facade throws");
    t.ok(count.completed > (ROUNDS * seeds.length) / 10 && count.failed > 0, `both endings happen (${JSON.stringify(count)})`);
  });
}
