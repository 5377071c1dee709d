// GET /v1/models in the Anthropic shape: pure mapping of neutral models to
// ModelInfo, and the limit / after_id / before_id paging the SDK drives.
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { Capability, type Model } from "../../../gen/omnigate/model/v1/model_pb.js";
import type { ModelInfo, ModelList } from "./wire.js";

export const DEFAULT_PAGE_LIMIT = 20;

export function isChatModel(m: Model): boolean {
  return m.capabilities.includes(Capability.CHAT);
}

/** RFC 3339 without fractional seconds, as the real API prints it. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function toModelInfo(m: Model): ModelInfo {
  return {
    type: "model",
    id: m.id,
    display_name: m.displayName || m.id,
    created_at: rfc3339(m.createTime ? timestampMs(m.createTime) : 0),
    ...(m.inputTokenLimit ? { max_input_tokens: m.inputTokenLimit } : {}),
    ...(m.outputTokenLimit ? { max_tokens: m.outputTokenLimit } : {}),
  };
}

export interface PageQuery {
  limit?: number | undefined;
  after_id?: string | undefined;
  before_id?: string | undefined;
}

export class UnknownCursorError extends Error {
  override name = "UnknownCursorError";
  constructor(
    readonly field: "after_id" | "before_id",
    id: string,
  ) {
    super(`${field}: no model with id ${id}`);
  }
}

/** One page of `all` (in listing order). Throws UnknownCursorError for a cursor that names no model. */
export function pageModels(all: ModelInfo[], q: PageQuery): ModelList {
  const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
  const indexOf = (field: "after_id" | "before_id", id: string) => {
    const i = all.findIndex((m) => m.id === id);
    if (i < 0) throw new UnknownCursorError(field, id);
    return i;
  };
  let data: ModelInfo[];
  let hasMore: boolean;
  if (q.before_id !== undefined) {
    const end = indexOf("before_id", q.before_id);
    const start = Math.max(0, end - limit);
    data = all.slice(start, end);
    hasMore = start > 0;
  } else {
    const start = q.after_id !== undefined ? indexOf("after_id", q.after_id) + 1 : 0;
    data = all.slice(start, start + limit);
    hasMore = start + limit < all.length;
  }
  return { data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}
