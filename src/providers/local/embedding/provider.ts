// The built-in local embedding engine: deterministic unit vectors (vectors.ts)
// of the model's size or the requested one, with no keys and no network. It
// imitates the models' rules (models.ts): ada-002 takes no `dimensions`, no
// model makes vectors longer than its own, an OpenAI model refuses an input
// over its token limit where a Gemini model cuts it, and one request holds at
// most MAX_REQUEST_TOKENS. Usage is the gateway tokenizer's count of what was
// embedded. `#fault:<kind>` in a text fails the call as an upstream would
// (faults.ts), when fault injection is on.
import { create } from "../../../core/proto/create.js";
import { EmbedResponseSchema, type EmbedInput } from "../../../../gen/omnigate/embedding/v1/embedding_pb.js";
import { Code, coreError } from "../../../core/errors.js";
import type { EmbeddingProvider } from "../../../core/ports.js";
import { countText, splitTokens } from "../../../lib/tokenizer.js";
import { faultDirective, faultError } from "../faults.js";
import { localEmbeddingModel, MAX_REQUEST_TOKENS, type LocalEmbeddingModel } from "./models.js";
import { modelSeed, textVector, tokenVector } from "./vectors.js";

export interface LocalEmbeddingOptions {
  /** Whether `#fault:<kind>` directives fail the call (default true). */
  faultInjection?: boolean;
}

const invalid = (field: string, message: string, code = "invalid_value") => coreError(Code.InvalidArgument, message, { field, reason: code, metadata: { code } });

/** The vector size to make: the requested one within the model's rules, or the model's own. */
function sizeOf(model: LocalEmbeddingModel, dimensions: number | undefined): number {
  if (dimensions === undefined) return model.dimensions;
  if (!model.shortenable) return dimensionsRefused(model);
  if (dimensions > model.dimensions) throw invalid("dimensions", `dimensions: ${model.id} makes vectors of at most ${model.dimensions} dimensions, got ${dimensions}`);
  return dimensions;
}

function dimensionsRefused(model: LocalEmbeddingModel): never {
  throw invalid("dimensions", `This model (${model.id}) does not support specifying dimensions.`, "unsupported_parameter");
}

/** An input as embedded: its text or ids cut to the model's limit (or refused past it), and its tokens. */
function prepare(model: LocalEmbeddingModel, input: EmbedInput, i: number): { input: EmbedInput; tokens: number } {
  const c = input.content;
  const tokens = c.case === "text" ? countText(c.value) : c.case === "tokens" ? c.value.ids.length : 0;
  if (tokens <= model.maxInputTokens) return { input, tokens };
  if (!model.truncates) {
    throw invalid(`inputs[${i}]`, `inputs[${i}]: ${model.id} takes at most ${model.maxInputTokens} tokens per input, got ${tokens}`, "context_length_exceeded");
  }
  const cut: EmbedInput["content"] =
    c.case === "text"
      ? { case: "text", value: splitTokens(c.value).slice(0, model.maxInputTokens).join("") }
      : { case: "tokens", value: { ...c.value!, ids: c.value!.ids.slice(0, model.maxInputTokens) } };
  return { input: { ...input, content: cut }, tokens: model.maxInputTokens };
}

export function localEmbeddingProvider(opts: LocalEmbeddingOptions = {}): EmbeddingProvider {
  const faults = opts.faultInjection ?? true;
  return {
    kind: "local",
    async embed(job, ctx) {
      if (faults) {
        for (const i of job.inputs) {
          const kind = i.content.case === "text" ? faultDirective(i.content.value) : undefined;
          if (kind) throw faultError(kind);
        }
      }
      const model = localEmbeddingModel(ctx.upstreamModel);
      const dims = sizeOf(model, job.dimensions);
      const prepared = job.inputs.map((input, i) => prepare(model, input, i));
      const total = prepared.reduce((n, p) => n + p.tokens, 0);
      if (total > MAX_REQUEST_TOKENS) throw invalid("inputs", `inputs: at most ${MAX_REQUEST_TOKENS} tokens in all inputs of one request, got ${total}`, "max_tokens_per_request");
      const seed = modelSeed(model.id);
      const embeddings = prepared.map(({ input }) => {
        const c = input.content;
        return { values: c.case === "tokens" ? tokenVector(c.value.ids, dims, seed) : textVector(c.case === "text" ? c.value : "", dims, seed, input.title) };
      });
      return create(EmbedResponseSchema, { embeddings, model: job.model, usage: { inputTokens: BigInt(total) }, channel: "local" });
    },
  };
}
