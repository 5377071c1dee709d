// What the answer side of the Responses facade needs to know about the
// request it answers: ids, the fields echoed in the Response object, and how
// neutral tool names map back to the client's tools.
// A background response keeps it as JSON (metaToJson) to be rendered later.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { Sealer } from "./seal.js";

/** A client tool as the neutral model names it: a namespaced tool is flattened to one name. */
export interface ToolName {
  type: "function" | "custom";
  /** The name the client declared (without its namespace). */
  name: string;
  namespace?: string;
}

export interface ResponseMeta {
  /** "resp_…", minted by the facade. */
  id: string;
  /** Unix seconds. */
  createdAt: number;
  /** The model as the client named it. */
  model: string;
  /**
   * The request fields a Response echoes (instructions, tools, tool_choice,
   * parallel_tool_calls, text, reasoning, store, metadata, temperature, top_p,
   * max_output_tokens, truncation, previous_response_id, background,
   * service_tier, prompt_cache_key, safety_identifier, user, top_logprobs), as sent.
   */
  echo: JsonObject;
  /** include[] holds "reasoning.encrypted_content": reasoning items carry a sealed blob. */
  includeEncrypted: boolean;
  sealer: Sealer;
  /** The input ended with a compaction_trigger: the answer's text becomes exactly one sealed `compaction` item. */
  compact?: boolean;
  /** Neutral tool name -> the client's tool, for every tool the request declared. */
  toolNames: ReadonlyMap<string, ToolName>;
}

/** A ResponseMeta as JSON (without its sealer): what a background response keeps to be rendered later. */
export function metaToJson(m: ResponseMeta): JsonObject {
  return {
    id: m.id,
    createdAt: m.createdAt,
    model: m.model,
    echo: m.echo,
    includeEncrypted: m.includeEncrypted,
    compact: m.compact ?? false,
    toolNames: [...m.toolNames].map(([k, v]) => [k, { ...v }] as JsonValue),
  };
}

/** The ResponseMeta metaToJson kept, with the facade's sealer. */
export function metaFromJson(j: JsonObject, sealer: Sealer): ResponseMeta {
  const names = Array.isArray(j.toolNames) ? (j.toolNames as [string, ToolName][]) : [];
  return {
    id: String(j.id ?? ""),
    createdAt: Number(j.createdAt ?? 0),
    model: String(j.model ?? ""),
    echo: (j.echo ?? {}) as JsonObject,
    includeEncrypted: j.includeEncrypted === true,
    sealer,
    ...(j.compact === true ? { compact: true } : {}),
    toolNames: new Map(names),
  };
}
