// The Gemini embedding provider: one input through :embedContent, several
// through :batchEmbedContents in batches of MAX_BATCH (a few at a time),
// translated by embed.ts; the I/O in client.ts.
import type { EmbeddingProvider } from "../../core/ports.js";
import type { Upstream } from "../shared/http.js";
import { batchEmbedContents, embedContent } from "./client.js";
import { fromVendorEmbeddings, toVendorEmbedRequests } from "./embed.js";
import { MAX_BATCH, type BatchEmbedContentsResponse, type EmbedContentRequest } from "./embed-wire.js";

/** Batches in flight at once for one call. */
const PARALLEL_BATCHES = 4;

/** Runs `fn` over `items` with at most `limit` at once, results in order. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export function geminiEmbeddingProvider(up: Upstream): EmbeddingProvider {
  return {
    kind: "gemini",
    async embed(job, ctx) {
      const call = { signal: ctx.signal, requestId: ctx.requestId };
      const opts = { model: job.model, channel: up.channel, inputs: job.inputs.length };
      if (job.inputs.length === 1) {
        const [body] = toVendorEmbedRequests(job, ctx.upstreamModel, false);
        return embedContent(up, ctx.upstreamModel, body!, call, (r) => fromVendorEmbeddings([r.embedding], [r.usageMetadata?.promptTokenCount], opts));
      }
      const requests = toVendorEmbedRequests(job, ctx.upstreamModel, true);
      const batches: EmbedContentRequest[][] = [];
      for (let i = 0; i < requests.length; i += MAX_BATCH) batches.push(requests.slice(i, i + MAX_BATCH));
      const answers = await mapLimit(batches, PARALLEL_BATCHES, (b) => batchEmbedContents(up, ctx.upstreamModel, { requests: b }, call, (r: BatchEmbedContentsResponse) => r));
      return fromVendorEmbeddings(
        answers.flatMap((a, i) => (Array.isArray(a.embeddings) && a.embeddings.length === batches[i]!.length ? a.embeddings : new Array<undefined>(batches[i]!.length).fill(undefined))),
        answers.map((a) => a.usageMetadata?.promptTokenCount),
        opts,
      );
    },
  };
}
