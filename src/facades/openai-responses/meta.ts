// What the answer side of the Responses facade needs to know about the
// request it answers: ids, the fields echoed in the Response object, and how
// neutral tool names map back to the client's tools.
import type { JsonObject } from "@bufbuild/protobuf";
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
