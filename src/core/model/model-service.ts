import { create } from "../proto/create.js";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "../call/service.js";
import { Capability, ModelSchema, ModelService, type Model } from "../../../gen/omnigate/model/v1/model_pb.js";
import { invalidArgument, notFound } from "../errors.js";
import type { ModelCatalog, ModelEntry } from "./catalog.js";

export const MAX_PAGE_SIZE = 1000;

export function toModel(e: ModelEntry): Model {
  return create(ModelSchema, {
    id: e.id,
    displayName: e.displayName,
    description: e.description ?? "",
    ownedBy: e.ownedBy,
    createTime: timestampFromMs(e.createTime),
    capabilities: e.capabilities,
    inputTokenLimit: e.inputTokenLimit ?? 0,
    outputTokenLimit: e.outputTokenLimit ?? 0,
    thinking: e.thinking ?? false,
    provider: e.provider,
    channels: e.channels,
    embeddingDimensions: e.embeddingDimensions ?? 0,
  });
}

/** page_token is the decimal offset of the next page. */
function offsetOf(token: string): number {
  if (!token) return 0;
  if (!/^\d{1,9}$/.test(token)) throw invalidArgument("page_token is not a token this service issued", "page_token", "invalid_page_token");
  return Number(token);
}

export function modelService(catalog: ModelCatalog): ServiceImpl<typeof ModelService> {
  return {
    async listModels(req) {
      if (req.pageSize < 0) throw invalidArgument("page_size must not be negative", "page_size");
      const size = Math.min(req.pageSize || MAX_PAGE_SIZE, MAX_PAGE_SIZE);
      const wanted = req.capability === Capability.UNSPECIFIED ? req.anyCapability : [req.capability, ...req.anyCapability];
      const all = wanted.length ? catalog.list().filter((m) => wanted.some((c) => m.capabilities.includes(c))) : catalog.list();
      const start = offsetOf(req.pageToken);
      const page = all.slice(start, start + size);
      const next = start + size < all.length ? String(start + size) : "";
      return { models: page.map(toModel), nextPageToken: next };
    },
    async getModel(req) {
      const e = catalog.get(req.id.replace(/^models\//, ""));
      if (!e) throw notFound(`model ${req.id} not found`, "model_not_found");
      return { model: toModel(e) };
    },
  };
}
