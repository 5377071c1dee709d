// The Anthropic Messages API as this provider speaks it upstream: request
// bodies it builds and the response/stream shapes it reads. Responses are read
// defensively (any field may be missing), so these are TypeScript shapes, not
// validators.

export type CacheControl = { type: string; ttl?: string };

export type ImageSource = { type: "base64"; media_type: string; data: string } | { type: "url"; url: string };
export type DocumentSource = { type: "base64"; media_type: string; data: string } | { type: "text"; media_type: "text/plain"; data: string } | { type: "url"; url: string };

export type RequestBlock =
  | { type: "text"; text: string; citations?: unknown[]; cache_control?: CacheControl; [k: string]: unknown }
  | { type: "image"; source: ImageSource; cache_control?: CacheControl; [k: string]: unknown }
  | { type: "document"; source: DocumentSource; title?: string; context?: string; citations?: { enabled: boolean }; cache_control?: CacheControl; [k: string]: unknown }
  | { type: "tool_use"; id: string; name: string; input: unknown; cache_control?: CacheControl; [k: string]: unknown }
  | { type: "tool_result"; tool_use_id: string; content?: string | RequestBlock[]; is_error?: boolean; cache_control?: CacheControl; [k: string]: unknown }
  | { type: "thinking"; thinking: string; signature: string; [k: string]: unknown }
  | { type: "redacted_thinking"; data: string; [k: string]: unknown };

export interface RequestMessage {
  /** "system": a system message in the conversation (with the beta the client named). */
  role: "user" | "assistant" | "system";
  content: RequestBlock[];
  [extra: string]: unknown;
}

export type RequestTool =
  { name: string; description?: string; input_schema: unknown; cache_control?: CacheControl } | ({ type: string; name: string; cache_control?: CacheControl } & Record<string, unknown>);

export type RequestToolChoice = { type: "auto" | "any" | "none"; disable_parallel_tool_use?: boolean } | { type: "tool"; name: string; disable_parallel_tool_use?: boolean };

export type ThinkingDisplay = "summarized" | "omitted";

export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: RequestMessage[];
  system?: string | RequestBlock[];
  metadata?: { user_id: string };
  stop_sequences?: string[];
  stream?: boolean;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  thinking?: { type: "enabled"; budget_tokens: number; display?: ThinkingDisplay } | { type: "disabled" } | { type: "adaptive"; display?: ThinkingDisplay } | { type: "between_tools" };
  tools?: RequestTool[];
  tool_choice?: RequestToolChoice;
  output_config?: { format?: { type: "json_schema"; schema: unknown }; effort?: string };
  [extra: string]: unknown;
}

export type CountTokensRequest = Omit<MessagesRequest, "max_tokens" | "stream" | "stop_sequences" | "temperature" | "top_p" | "top_k" | "metadata">;

// ---------------------------------------------------------------- responses

export interface ResponseBlock {
  type: string;
  text?: string;
  citations?: unknown[] | null;
  id?: string;
  name?: string;
  input?: unknown;
  thinking?: string;
  signature?: string;
  data?: string;
  [k: string]: unknown;
}

export interface Usage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
  [k: string]: unknown;
}

export interface MessageResponse {
  id?: string;
  type?: string;
  role?: string;
  model?: string;
  content?: ResponseBlock[];
  stop_reason?: string | null;
  stop_sequence?: string | null;
  usage?: Usage;
  [k: string]: unknown;
}

export interface StreamEvent {
  type: string;
  message?: MessageResponse;
  index?: number;
  content_block?: ResponseBlock;
  delta?: {
    type?: string;
    text?: string;
    partial_json?: string;
    thinking?: string;
    signature?: string;
    citation?: unknown;
    stop_reason?: string | null;
    stop_sequence?: string | null;
    [k: string]: unknown;
  };
  usage?: Usage;
  error?: { type?: string; message?: string };
}

export interface ErrorBody {
  type?: string;
  error?: { type?: string; message?: string };
}
