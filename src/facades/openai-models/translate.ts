// Pure mapping of neutral models to the OpenAI model object
// ({id, object: "model", created, owned_by}) and list.
import type { Model } from "../../../gen/omnigate/model/v1/model_pb.js";

export interface OpenAIModel {
  id: string;
  object: "model";
  /** Unix seconds. */
  created: number;
  owned_by: string;
}

export interface OpenAIModelList {
  object: "list";
  data: OpenAIModel[];
}

export function fromCoreModel(m: Model): OpenAIModel {
  return { id: m.id, object: "model", created: Number(m.createTime?.seconds ?? 0n), owned_by: m.ownedBy || "omnigate" };
}

export function fromCoreModels(models: Model[]): OpenAIModelList {
  return { object: "list", data: models.map(fromCoreModel) };
}
