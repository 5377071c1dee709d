// The OpenAI Responses API (POST {base}/responses) as this provider speaks it
// upstream: the request it builds, and just the parts of answers and stream
// events it reads. Answers are read defensively (compatible servers differ).

export type InputContent =
  { type: "input_text"; text: string } | { type: "input_image"; image_url: string; detail?: string } | { type: "input_file"; file_data?: string; file_url?: string; filename?: string };

export type OutputContent = { type: "output_text"; text: string; annotations: unknown[] } | { type: "refusal"; refusal: string };

export type InputItem =
  | { type: "message"; role: "user" | "system" | "developer"; content: InputContent[] }
  | { type: "message"; role: "assistant"; content: OutputContent[] }
  | { type: "function_call"; call_id: string; name: string; arguments: string }
  | { type: "function_call_output"; call_id: string; output: string | InputContent[] }
  | { type: "custom_tool_call"; call_id: string; name: string; input: string }
  | { type: "custom_tool_call_output"; call_id: string; output: string | InputContent[] }
  | { type: "reasoning"; summary: { type: "summary_text"; text: string }[]; encrypted_content: string }
  /** An item the gateway does not model (a hosted tool's call), as the upstream sent it. */
  | ({ type: string } & Record<string, unknown>);

export type Tool =
  | { type: "function"; name: string; description?: string; parameters: unknown; strict: boolean }
  | { type: "custom"; name: string; description?: string; format?: Record<string, unknown> }
  | ({ type: string } & Record<string, unknown>);

export type ToolChoice =
  | "auto"
  | "none"
  | "required"
  | { type: "function" | "custom"; name: string }
  | { type: "allowed_tools"; mode: "auto" | "required"; tools: Record<string, unknown>[] }
  | ({ type: string } & Record<string, unknown>);

export type TextFormat = { type: "text" } | { type: "json_object" } | { type: "json_schema"; name: string; schema: unknown; strict?: boolean; description?: string };

export interface ResponsesRequest {
  model: string;
  input: InputItem[];
  instructions?: string;
  tools?: Tool[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean;
  text?: { format?: TextFormat; verbosity?: string };
  reasoning?: { effort?: string; summary?: string };
  max_output_tokens?: number;
  temperature?: number;
  top_p?: number;
  top_logprobs?: number;
  store: false;
  include: string[];
  stream?: boolean;
  user?: string;
  prompt_cache_key?: string;
  [extra: string]: unknown;
}

/** POST {base}/responses/input_tokens: the request's input-side fields. */
export type InputTokensRequest = Pick<ResponsesRequest, "model" | "input" | "instructions" | "tools" | "tool_choice" | "parallel_tool_calls" | "text" | "reasoning">;

export interface InputTokensResponse {
  object?: string;
  input_tokens?: number;
}

// ---------------------------------------------------------------- answers

export interface Annotation {
  type?: string;
  url?: string;
  title?: string;
  start_index?: number;
  end_index?: number;
  [k: string]: unknown;
}

export interface TokenLogprob {
  token: string;
  logprob: number;
  top_logprobs?: { token: string; logprob: number }[];
}

export interface OutputContentPart {
  type?: string;
  text?: string;
  refusal?: string;
  annotations?: Annotation[] | null;
  logprobs?: TokenLogprob[] | null;
  [k: string]: unknown;
}

export interface OutputItem {
  type?: string;
  id?: string;
  status?: string;
  role?: string;
  content?: OutputContentPart[] | null;
  /** Function and custom tool calls. */
  call_id?: string;
  name?: string;
  arguments?: string;
  input?: string;
  /** Reasoning. */
  summary?: { type?: string; text?: string }[] | null;
  encrypted_content?: string | null;
  /** A web search call's action: {type: "search", query, queries, sources}. */
  action?: { type?: string; query?: string; queries?: string[]; sources?: { type?: string; url?: string; title?: string }[] } | null;
  [k: string]: unknown;
}

export interface Usage {
  input_tokens?: number;
  input_tokens_details?: { cached_tokens?: number | null } | null;
  output_tokens?: number;
  output_tokens_details?: { reasoning_tokens?: number | null } | null;
  total_tokens?: number;
}

export interface ErrorObject {
  code?: string | number | null;
  type?: string | null;
  message?: string | null;
  param?: string | null;
}

export interface Response {
  id?: string;
  object?: string;
  model?: string;
  status?: string;
  error?: ErrorObject | null;
  incomplete_details?: { reason?: string | null } | null;
  output?: OutputItem[] | null;
  usage?: Usage | null;
  service_tier?: string | null;
  [k: string]: unknown;
}

/** One event of a streamed answer (notes B.6): its `type` and whichever of these it carries. */
export interface StreamEvent {
  type?: string;
  sequence_number?: number;
  response?: Response;
  output_index?: number;
  content_index?: number;
  summary_index?: number;
  item_id?: string;
  item?: OutputItem;
  part?: OutputContentPart;
  delta?: string;
  text?: string;
  arguments?: string;
  input?: string;
  annotation?: Annotation;
  logprobs?: TokenLogprob[];
  /** The flat `error` event. */
  code?: string | number | null;
  message?: string | null;
  param?: string | null;
  [k: string]: unknown;
}
