// The OpenAI-compatible embedding provider (POST {base}/embeddings: OpenAI,
// vLLM, Ollama, ...): neutral <-> wire through embed-request.ts and
// embed-response.ts, the I/O in client.ts.
import { promiseOf } from "../../core/iter.js";
import type { EmbeddingProvider } from "../../core/ports.js";
import type { Upstream } from "../shared/http.js";
import { isOfficialOpenAI, postEmbeddings } from "./client.js";
import { toVendorEmbedRequest } from "./embed-request.js";
import { fromVendorEmbedResponse } from "./embed-response.js";

export function openaiEmbeddingProvider(up: Upstream): EmbeddingProvider {
  const official = isOfficialOpenAI(up);
  return {
    kind: "openai",
    embed(job, ctx) {
      return promiseOf(() => {
        const body = toVendorEmbedRequest(job, ctx.upstreamModel, { official });
        return postEmbeddings(up, body, { signal: ctx.signal, requestId: ctx.requestId }, (r) => fromVendorEmbedResponse(r, { model: job.model, channel: up.channel, inputs: job.inputs.length }));
      });
    },
  };
}
