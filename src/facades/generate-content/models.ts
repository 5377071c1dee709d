// Neutral Model -> Gemini's Model resource (GET models, GET models/{model}). Pure.
import type { JsonObject } from "@bufbuild/protobuf";
import { Capability, type Model } from "../../../gen/omnigate/model/v1/model_pb.js";

export const SUPPORTED_METHODS = ["generateContent", "streamGenerateContent", "countTokens", "createCachedContent"];
export const EMBEDDING_METHODS = ["embedContent", "batchEmbedContents"];
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 1000;

export function fromCoreModel(m: Model): JsonObject {
  return {
    name: `models/${m.id}`,
    baseModelId: m.id,
    version: "001",
    displayName: m.displayName || m.id,
    description: m.description || `${m.displayName || m.id}, served by omnigate`,
    inputTokenLimit: m.inputTokenLimit || 1_048_576,
    outputTokenLimit: m.outputTokenLimit || 65_536,
    supportedGenerationMethods: m.capabilities.includes(Capability.CHAT) ? SUPPORTED_METHODS : EMBEDDING_METHODS,
    temperature: 1,
    maxTemperature: 2,
    topP: 0.95,
    topK: 64,
    thinking: m.thinking,
  };
}

/** The model id of a (decoded) path segment or name such as "gemini-2.5-flash" or "models/gemini-2.5-flash". */
export function modelId(segment: string): string {
  return segment.replace(/^models\//, "");
}
