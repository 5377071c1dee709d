// OpenAI Chat Completions as this provider speaks it upstream (OpenAI itself
// and compatible servers: vLLM, Ollama, DeepSeek, OpenRouter, ...). Responses
// are read defensively; compatible servers differ in what they include.

export type ContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string; detail?: string } }
  | { type: "input_audio"; input_audio: { data: string; format: string } }
  | { type: "file"; file: { file_data?: string; filename?: string } };

export type ToolCall = { id: string; type: "function"; function: { name: string; arguments: string } } | { id: string; type: "custom"; custom: { name: string; input: string } };

export type Message =
  | { role: "system" | "developer"; content: string | ContentPart[] }
  | { role: "user"; content: string | ContentPart[]; name?: string }
  | { role: "assistant"; content: string | ContentPart[] | null; tool_calls?: ToolCall[]; reasoning_content?: string }
  | { role: "tool"; tool_call_id: string; content: string };

export type Tool =
  | { type: "function"; function: { name: string; description?: string; parameters?: unknown; strict?: boolean } }
  /** Free-text input; format {type: "text"} or {type: "grammar", grammar: {syntax, definition}}. */
  | { type: "custom"; custom: { name: string; description?: string; format?: Record<string, unknown> } };

export type ToolChoice = "auto" | "none" | "required" | { type: "function"; function: { name: string } } | { type: "custom"; custom: { name: string } };

export interface ChatRequest {
  model: string;
  messages: Message[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop?: string[];
  seed?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  n?: number;
  logprobs?: boolean;
  top_logprobs?: number;
  tools?: Tool[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: { type: "json_object" } | { type: "json_schema"; json_schema: { name: string; schema: unknown; strict?: boolean } };
  reasoning_effort?: string;
  stream?: boolean;
  stream_options?: { include_usage: boolean };
  user?: string;
  [extra: string]: unknown;
}

// ---------------------------------------------------------------- responses

export interface ResponseToolCall {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string | Record<string, unknown> };
  /** A custom tool's call: free-form input. */
  custom?: { name?: string; input?: string };
  [k: string]: unknown;
}

export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes?: number[] | null;
  top_logprobs?: { token: string; logprob: number }[];
}

export interface ResponseMessage {
  role?: string;
  content?: string | null;
  refusal?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: ResponseToolCall[] | null;
  /** Web search citations (url_citation). */
  annotations?: unknown[] | null;
  [k: string]: unknown;
}

export interface Choice {
  index?: number;
  message?: ResponseMessage;
  delta?: ResponseMessage;
  finish_reason?: string | null;
  /** vLLM: the stop string (or token id) that ended the answer. */
  stop_reason?: string | number | null;
  logprobs?: { content?: TokenLogprob[] | null } | null;
}

export interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number | null; audio_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  /** DeepSeek's cache counters. */
  prompt_cache_hit_tokens?: number;
  prompt_cache_miss_tokens?: number;
}

export interface ChatResponse {
  id?: string;
  object?: string;
  created?: number;
  model?: string;
  choices?: Choice[];
  usage?: Usage | null;
  system_fingerprint?: string | null;
  service_tier?: string | null;
  error?: { message?: string; type?: string; code?: string | number | null };
  [k: string]: unknown;
}
