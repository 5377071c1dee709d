// EmbeddingService through the real pipeline: what it refuses before routing,
// NotFound for a model nothing serves, retry and fallover across routes, the
// usage it reports (counted when the provider reports none) and the usage
// record and charge the meter makes of it.
import t from "tap";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { EmbeddingService, EmbedResponseSchema, type EmbedRequest } from "../../../gen/omnigate/embedding/v1/embedding_pb.js";
import { configSchema } from "../../../src/config.js";
import { embeddingRouting, type EmbeddingRouting } from "../../../src/core/embedding/embedding-routing.js";
import { embeddingService } from "../../../src/core/embedding/embedding-service.js";
import { MAX_INPUTS } from "../../../src/core/embedding/validate.js";
import { coreError, errorDetail } from "../../../src/core/errors.js";
import type { EmbeddingProvider } from "../../../src/core/ports.js";
import { countText } from "../../../src/lib/tokenizer.js";
import { serve } from "../call/harness.js";
import { usageRows } from "../tenancy/fakes.js";

const upstream = { ...configSchema.parse({}).upstream, retries: 1, maxAttempts: 4, backoffMs: 1, maxBackoffMs: 2 };

/** A provider answering each input with [index + 1, calls], usage 7 unless told otherwise; `fail` decides per call. */
function fake(kind: string, fail?: (n: number) => ConnectError | undefined, usage: bigint | null = 7n) {
  const seen: { job: EmbedRequest; upstreamModel: string }[] = [];
  const p: EmbeddingProvider = {
    kind,
    async embed(job, ctx) {
      seen.push({ job, upstreamModel: ctx.upstreamModel });
      const err = fail?.(seen.length);
      if (err) throw err;
      return create(EmbedResponseSchema, { embeddings: job.inputs.map((_, i) => ({ values: [i + 1, seen.length] })), ...(usage !== null ? { usage: { inputTokens: usage } } : {}) });
    },
  };
  return { provider: p, seen };
}

const channel = (name: string, models: string[], provider: EmbeddingProvider, extra: Record<string, unknown> = {}) => ({
  config: configSchema.parse({ channels: [{ name, provider: "openai", baseUrl: "http://x/v1", models, ...extra }] }).channels[0]!,
  provider,
});

function client(routing: EmbeddingRouting, opts: Parameters<typeof serve>[2] = {}) {
  return serve(EmbeddingService, embeddingService({ routing }), opts);
}

const text = (value: string) => ({ content: { case: "text" as const, value } });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a failure");
    },
    (e: unknown) => {
      const err = ConnectError.from(e);
      const d = errorDetail(err);
      return { code: Code[err.code], reason: d?.reason, field: d?.field, channel: d?.metadata.channel, message: err.rawMessage };
    },
  );

t.test("refused before routing: no model, no inputs, too many, empty ones, bad dimensions", async (t) => {
  const local = fake("local");
  const c = client(embeddingRouting({ channels: [], local: { provider: local.provider, globs: ["*"] }, upstream }));
  t.match(await failure(c.embed({ model: "", inputs: [text("a")] })), { code: "InvalidArgument", field: "model" });
  t.match(await failure(c.embed({ model: "m", inputs: [] })), { code: "InvalidArgument", field: "inputs", reason: "missing_required_parameter" });
  const many = Array.from({ length: MAX_INPUTS + 1 }, () => text("x"));
  t.match(await failure(c.embed({ model: "m", inputs: many })), { code: "InvalidArgument", field: "inputs", reason: "too_many_inputs" });
  t.match(await failure(c.embed({ model: "m", inputs: [text("a"), text("")] })), { code: "InvalidArgument", field: "inputs[1]", reason: "empty_input" });
  t.match(await failure(c.embed({ model: "m", inputs: [{ content: { case: "tokens", value: { ids: [] } } }] })), { field: "inputs[0]", reason: "empty_input" });
  t.match(await failure(c.embed({ model: "m", inputs: [{ content: { case: "tokens", value: { ids: [1, -2] } } }] })), { field: "inputs[0]", reason: "invalid_value" });
  t.match(await failure(c.embed({ model: "m", inputs: [{}] })), { field: "inputs[0]", reason: "empty_input" });
  t.match(await failure(c.embed({ model: "m", inputs: [text("a")], dimensions: 0 })), { code: "InvalidArgument", field: "dimensions", reason: "integer_below_min_value" });
  t.match(await failure(c.embed({ model: "m", inputs: [text("a")], dimensions: -4 })), { field: "dimensions" });
  t.match(await failure(c.embed({ model: "m", inputs: [text("a")], dimensions: 1_000_000 })), { field: "dimensions", reason: "integer_above_max_value" });
  t.equal(local.seen.length, 0, "the provider was never called");
  const ok = await c.embed({ model: "m", inputs: Array.from({ length: MAX_INPUTS }, () => text("x")), dimensions: 1 });
  t.equal(ok.embeddings.length, MAX_INPUTS, `${MAX_INPUTS} inputs are fine`);
});

t.test("a model nothing serves is NotFound", async (t) => {
  const c = client(embeddingRouting({ channels: [], local: { provider: fake("local").provider, globs: ["text-embedding-*"] }, upstream }));
  t.match(await failure(c.embed({ model: "claude-sonnet-4-6", inputs: [text("a")] })), { code: "NotFound", reason: "model_not_found" });
});

t.test("the answer: model, channel, the upstream model sent, one vector per input in order", async (t) => {
  const a = fake("openai");
  const c = client(embeddingRouting({ channels: [channel("oa", [], a.provider, { modelMap: { small: "text-embedding-3-small" } })], upstream }));
  const res = await c.embed({ model: "small", inputs: [text("a"), text("b")], dimensions: 2 });
  t.equal(res.model, "small");
  t.equal(res.channel, "oa");
  t.same(
    res.embeddings.map((e) => e.values),
    [
      [1, 1],
      [2, 1],
    ],
  );
  t.equal(res.usage?.inputTokens, 7n, "the provider's usage");
  t.equal(a.seen[0]!.upstreamModel, "text-embedding-3-small", "the channel's modelMap applies");
  t.equal(a.seen[0]!.job.dimensions, 2);
});

t.test("usage the provider does not report is counted with the gateway's tokenizer", async (t) => {
  const g = fake("gemini", undefined, null);
  const c = client(embeddingRouting({ channels: [channel("g", ["e"], g.provider)], upstream }));
  const res = await c.embed({ model: "e", inputs: [text("hello there, wide world"), { content: { case: "tokens", value: { ids: [1, 2, 3, 4, 5] } } }] });
  t.equal(res.usage?.inputTokens, BigInt(countText("hello there, wide world") + 5));
  t.not(res.usage?.inputTokens, 7n, "not a number the fake would have made up");
});

t.test("an unavailable route is retried, then the next one serves; the failure cools it", async (t) => {
  const down = fake("openai", () => coreError(Code.Unavailable, "the openai upstream is overloaded", { reason: "overloaded" }));
  const up = fake("openai");
  const routing = embeddingRouting({ channels: [channel("first", ["m"], down.provider, { priority: 1 }), channel("second", ["m"], up.provider)], upstream });
  const res = await client(routing).embed({ model: "m", inputs: [text("a")] });
  t.equal(res.channel, "second", "served by the second channel");
  t.equal(down.seen.length, 2, "the first was tried twice (one retry)");
  t.equal(up.seen.length, 1);
});

t.test("an upstream that does not know the model falls over at once; the local engine is the last route", async (t) => {
  const missing = fake("openai", () => coreError(Code.NotFound, "the openai upstream does not serve this model", { reason: "upstream_model_not_found" }));
  const local = fake("local");
  const routing = embeddingRouting({ channels: [channel("oa", ["m"], missing.provider)], local: { provider: local.provider, globs: ["m"] }, upstream });
  const res = await client(routing).embed({ model: "m", inputs: [text("a")] });
  t.equal(res.channel, "local");
  t.equal(missing.seen.length, 1, "not retried");
});

t.test("a request the upstream refuses is not tried elsewhere; the error names the channel", async (t) => {
  const bad = fake("openai", () => coreError(Code.InvalidArgument, "the openai upstream rejected the request as invalid", { reason: "upstream_invalid_request" }));
  const other = fake("openai");
  const routing = embeddingRouting({ channels: [channel("a", ["m"], bad.provider, { priority: 1 }), channel("b", ["m"], other.provider)], upstream });
  t.match(await failure(client(routing).embed({ model: "m", inputs: [text("a")] })), { code: "InvalidArgument", reason: "upstream_invalid_request", channel: "a" });
  t.equal(other.seen.length, 0);
});

t.test("every route down: the last failure, naming its channel", async (t) => {
  const down = () => fake("openai", () => coreError(Code.Unavailable, "the openai upstream failed", { reason: "upstream_error" }));
  const routing = embeddingRouting({ channels: [channel("a", ["m"], down().provider, { priority: 1 }), channel("b", ["m"], down().provider)], upstream: { ...upstream, retries: 0 } });
  t.match(await failure(client(routing).embed({ model: "m", inputs: [text("a")] })), { code: "Unavailable", channel: "b" });
});

t.test("an answer without one vector per input is the provider's fault", async (t) => {
  const short: EmbeddingProvider = { kind: "openai", embed: async () => create(EmbedResponseSchema, { embeddings: [{ values: [1] }] }) };
  const c = client(embeddingRouting({ channels: [channel("a", ["m"], short)], upstream }));
  t.match(await failure(c.embed({ model: "m", inputs: [text("a"), text("b")] })), { code: "Internal", reason: "upstream_protocol_error", channel: "a" });
});

t.test("an answer the neutral model cannot hold (a vector of strings) is the provider's fault", async (t) => {
  const strings: EmbeddingProvider = { kind: "openai", embed: async () => create(EmbedResponseSchema, { embeddings: [{ values: ["0.1"] as never }] }) };
  const c = client(embeddingRouting({ channels: [channel("a", ["m"], strings)], upstream }));
  t.match(await failure(c.embed({ model: "m", inputs: [text("a")] })), { code: "Internal", reason: "upstream_protocol_error", channel: "a" });
});

t.test("settled like chat input: the usage record, and the charge at the chat price of the input tokens", async (t) => {
  const usage = usageRows();
  const a = fake("openai", undefined, 2_000_000n);
  const c = client(embeddingRouting({ channels: [channel("oa", ["text-embedding-*"], a.provider)], upstream }), {
    usage: usage.store,
    prices: { chat: [{ model: "text-embedding-*", input: 0.02, output: 5, request: 0.001 }], images: [], imageBot: {}, video: [] },
  });
  await c.embed({ model: "text-embedding-3-small", inputs: [text("hello world")] }, { format: "embeddings" });
  t.match(usage.rows[0], { format: "embeddings", model: "text-embedding-3-small", channel: "oa", inputTokens: 2_000_000, outputTokens: 0, status: "ok" });
  t.ok(Math.abs(usage.rows[0]!.credits - (0.04 + 0.001)) < 1e-9, `2M tokens at 0.02 a million, plus the request price (${usage.rows[0]!.credits})`);
  await failure(c.embed({ model: "text-embedding-3-small", inputs: [text("")] }, { format: "embeddings" }));
  t.match(usage.rows[1], { model: "text-embedding-3-small", status: `error:${Code.InvalidArgument}`, credits: 0 }, "a refused call is recorded, free");
});
