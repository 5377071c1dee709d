// The neutral embedding core: checks the request, resolves the model to its
// routes (an upstream channel or the local engine) and calls them with the
// chat retry policy: a retryable failure (unavailable, rate limited, timed
// out) is retried and falls over to the next route, as does an upstream that
// refuses the gateway's key or does not know the model (routing/retry.ts).
// The pipeline settles the call's usage.
import { EmbeddingService, EmbeddingUsageSchema, EmbedResponseSchema, type EmbedRequest, type EmbedResponse } from "../../../gen/omnigate/embedding/v1/embedding_pb.js";
import type { Call } from "../call/call.js";
import type { ServiceImpl } from "../call/service.js";
import { asConnectError, Code, coreError, notFound, tagChannel } from "../errors.js";
import { checkedAnswer } from "../proto/shape.js";
import { promiseOf } from "../iter.js";
import { create } from "../proto/create.js";
import { unaryWithFallback } from "../routing/retry.js";
import { countEmbedInputs } from "./count.js";
import type { EmbeddingRoute, EmbeddingRouting } from "./embedding-routing.js";
import { checkEmbedRequest } from "./validate.js";

export interface EmbeddingServiceDeps {
  routing: EmbeddingRouting;
}

/** An answer that does not hold one vector per input is the provider's fault. */
function checkAnswer(req: EmbedRequest, res: EmbedResponse): void {
  checkedAnswer(EmbedResponseSchema, res);
  if (res.embeddings.length !== req.inputs.length || res.embeddings.some((e) => e.values.length === 0)) {
    throw coreError(Code.Internal, "the embedding provider answered with the wrong number of vectors", { reason: "upstream_protocol_error" });
  }
}

export function embeddingService(deps: EmbeddingServiceDeps): ServiceImpl<typeof EmbeddingService> {
  const embed = (req: EmbedRequest, call: Call): Promise<EmbedResponse> => {
    checkEmbedRequest(req);
    const routes = deps.routing.resolve(req.model);
    if (!routes.length) throw notFound(`model ${req.model} is not served by this gateway`, "model_not_found");
    let r = routes[0]!;
    return unaryWithFallback<EmbedResponse, EmbeddingRoute>(deps.routing, routes, call.signal, (x) => {
      r = x;
      return x.provider.embed(req, { signal: call.signal, requestId: call.requestId, upstreamModel: x.upstreamModel }).then((res) => {
        checkAnswer(req, res);
        return res;
      });
    }).then(
      (res) => {
        res.model = req.model;
        res.channel ||= r.channel;
        // Gemini reports no usage: the gateway's tokenizer counts it.
        res.usage ??= create(EmbeddingUsageSchema, { inputTokens: BigInt(countEmbedInputs(req.inputs)) });
        return res;
      },
      (err: unknown) => Promise.reject(tagChannel(asConnectError(err), r.channel)),
    );
  };
  return { embed: (req, call) => promiseOf(() => embed(req, call)) };
}
