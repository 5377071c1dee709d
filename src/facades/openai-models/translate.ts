// Pure mapping of neutral models to the OpenAI model object
// ({id, object: "model", created, owned_by}) and list. Each model also says
// what it does (`capabilities`: "chat", "embedding", "image", "image-bot",
// "video") and, for embedding models, its vector size: extra fields the
// OpenAI SDKs pass through untouched.
import { Capability, type Model } from "../../../gen/omnigate/model/v1/model_pb.js";

export interface OpenAIModel {
  id: string;
  object: "model";
  /** Unix seconds. */
  created: number;
  owned_by: string;
  capabilities: string[];
  /** The default vector size of an embedding model. */
  embedding_dimensions?: number;
}

export interface OpenAIModelList {
  object: "list";
  data: OpenAIModel[];
}

const CAPABILITY: Record<Capability, string> = {
  [Capability.UNSPECIFIED]: "",
  [Capability.CHAT]: "chat",
  [Capability.IMAGE]: "image",
  [Capability.IMAGE_BOT]: "image-bot",
  [Capability.VIDEO]: "video",
  [Capability.EMBEDDING]: "embedding",
};

export function fromCoreModel(m: Model): OpenAIModel {
  const out: OpenAIModel = {
    id: m.id,
    object: "model",
    created: Number(m.createTime?.seconds ?? 0n),
    owned_by: m.ownedBy || "omnigate",
    capabilities: m.capabilities.map((c) => CAPABILITY[c] ?? "").filter(Boolean),
  };
  if (m.embeddingDimensions > 0) out.embedding_dimensions = m.embeddingDimensions;
  return out;
}

export function fromCoreModels(models: Model[]): OpenAIModelList {
  return { object: "list", data: models.map(fromCoreModel) };
}
