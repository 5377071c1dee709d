// What models the gateway offers, contributed by each domain (chat, images, ...).
import type { Capability } from "../../../gen/omnigate/model/v1/model_pb.js";

export interface ModelEntry {
  id: string;
  displayName: string;
  description?: string;
  ownedBy: string;
  /** Epoch milliseconds. */
  createTime: number;
  capabilities: Capability[];
  inputTokenLimit?: number;
  outputTokenLimit?: number;
  thinking?: boolean;
  /** Default vector size of an embedding model. */
  embeddingDimensions?: number;
  provider: string;
  channels: string[];
}

export interface ModelCatalog {
  list(): ModelEntry[];
  get(id: string): ModelEntry | undefined;
}

/** A catalog over a fixed list; later entries with the same id merge capabilities into the first. */
export function staticCatalog(entries: ModelEntry[]): ModelCatalog {
  const byId = new Map<string, ModelEntry>();
  for (const e of entries) {
    const prev = byId.get(e.id);
    if (prev) prev.capabilities = [...new Set([...prev.capabilities, ...e.capabilities])];
    else byId.set(e.id, { ...e, capabilities: [...e.capabilities] });
  }
  const list = [...byId.values()];
  return { list: () => list, get: (id) => byId.get(id) };
}

/** Friendly display name from a model id ("gemini-2.5-flash" -> "Gemini 2.5 Flash"). */
export function displayName(id: string): string {
  const words = id.split(/[-_]/).filter(Boolean);
  let out = "";
  words.forEach((w, i) => {
    const prevDigit = i > 0 && /^\d+$/.test(words[i - 1]!);
    out += i === 0 ? "" : prevDigit && /^\d+$/.test(w) ? "." : " ";
    out += w[0]!.toUpperCase() + w.slice(1);
  });
  return out;
}
