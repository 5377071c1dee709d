// The OpenAI Chat Completions wire format (POST /v1/chat/completions): zod
// shapes of what clients send, TypeScript shapes of what we answer. Error
// texts come from ./issues.ts.
//
// Forward-compatible: what the gateway translates is checked strictly (the
// roles, the content parts, tool calls, tools and settings it maps), and what
// it does not know passes: a field it does not name, a content part, tool call
// or tool of a newer type, a newer tool_choice or response_format. Those reach
// an OpenAI channel as sent and are left out (or refused, for tools) elsewhere
// (./translate.ts, docs/translation.md section 0).
import { z } from "zod";
import { sparse } from "../shared/sparse-object.js";

const jsonObject = z.record(z.string(), z.unknown());
/** Counts travel as int32 inside; larger values are refused here, not overflowed there. */
const INT32_MAX = 2_147_483_647;
const count = z.number().int().min(1).max(INT32_MAX);

// ---------------------------------------------------------------- content parts

export const textPart = z.looseObject({ type: z.literal("text"), text: z.string() });
export const imageUrlPart = z.looseObject({
  type: z.literal("image_url"),
  image_url: z.looseObject({ url: z.string().min(1), detail: z.string().optional() }),
});
export const inputAudioPart = z.looseObject({
  type: z.literal("input_audio"),
  input_audio: z.looseObject({ data: z.string().min(1), format: z.string().min(1) }),
});
export const filePart = z.looseObject({
  type: z.literal("file"),
  file: z
    .looseObject({ file_data: z.string().min(1).optional(), file_id: z.string().min(1).max(256).optional(), filename: z.string().optional() })
    .refine((f) => f.file_data !== undefined || f.file_id !== undefined, { error: "one of file_data or file_id is required" }),
});
export const refusalPart = z.looseObject({ type: z.literal("refusal"), refusal: z.string() });

/** Every content part type the gateway knows, wherever it may stand. */
export const KNOWN_PART_TYPES: ReadonlySet<string> = new Set(["text", "image_url", "input_audio", "file", "refusal"]);

/**
 * A content part of a type the gateway does not know (newer than it): passed
 * whole to OpenAI, left out for other vendors. abort: a known type ends this
 * branch, so a known part in the wrong place is reported as such.
 */
export const futurePart = z.looseObject({ type: z.string().refine((t) => !KNOWN_PART_TYPES.has(t), { abort: true, error: "a content part type the gateway knows" }) });
export type FuturePart = z.infer<typeof futurePart>;
export const isFuturePart = (p: { type: string }): boolean => !KNOWN_PART_TYPES.has(p.type);

const userPart = z.union([z.discriminatedUnion("type", [textPart, imageUrlPart, inputAudioPart, filePart]), futurePart]);
const textOnlyPart = z.union([textPart, futurePart]);
const assistantPart = z.union([z.discriminatedUnion("type", [textPart, refusalPart]), futurePart]);

export type TextPart = z.infer<typeof textPart>;
export type ImageUrlPart = z.infer<typeof imageUrlPart>;
export type InputAudioPart = z.infer<typeof inputAudioPart>;
export type FilePart = z.infer<typeof filePart>;
export type RefusalPart = z.infer<typeof refusalPart>;
export type KnownUserPart = TextPart | ImageUrlPart | InputAudioPart | FilePart;
export type UserPart = z.infer<typeof userPart>;
export type AssistantPart = z.infer<typeof assistantPart>;

// ---------------------------------------------------------------- tool calls

export const functionCall = z.looseObject({
  id: z.string().min(1),
  type: z.literal("function"),
  function: z.looseObject({ name: z.string().min(1), arguments: z.string() }),
});
export const customToolCall = z.looseObject({
  id: z.string().min(1),
  type: z.literal("custom"),
  custom: z.looseObject({ name: z.string().min(1), input: z.string() }),
});
export const TOOL_CALL_TYPES: ReadonlySet<string> = new Set(["function", "custom"]);
const futureToolCall = z.looseObject({
  id: z.string().min(1),
  type: z.string().refine((t) => !TOOL_CALL_TYPES.has(t), { abort: true, error: "a tool call type the gateway knows" }),
});
export const toolCall = z.union([z.discriminatedUnion("type", [functionCall, customToolCall]), futureToolCall]);
export type ToolCall = z.infer<typeof toolCall>;
export type FunctionCall = z.infer<typeof functionCall>;
export type CustomToolCall = z.infer<typeof customToolCall>;

/** The legacy single call of the functions API. */
const legacyCall = z.looseObject({ name: z.string().min(1), arguments: z.string() });

// ---------------------------------------------------------------- messages

const name = z.string().optional();
export const systemMessage = z.looseObject({ role: z.literal("system"), content: z.union([z.string(), z.array(textOnlyPart)]), name });
export const developerMessage = z.looseObject({ role: z.literal("developer"), content: z.union([z.string(), z.array(textOnlyPart)]), name });
export const userMessage = z.looseObject({ role: z.literal("user"), content: z.union([z.string(), z.array(userPart)]), name });
export const assistantMessage = z.looseObject({
  role: z.literal("assistant"),
  content: z.union([z.string(), z.array(assistantPart)]).nullish(),
  refusal: z.string().nullish(),
  tool_calls: z.array(toolCall).nullish(),
  function_call: legacyCall.nullish(),
  name,
});
export const toolMessage = z.looseObject({ role: z.literal("tool"), tool_call_id: z.string(), content: z.union([z.string(), z.array(textOnlyPart)]) });
export const functionMessage = z.looseObject({ role: z.literal("function"), name: z.string().min(1), content: z.string().nullable() });

/** The roles OpenAI names in its error for an unknown one, in its order. */
export const ROLES = ["system", "assistant", "user", "function", "tool", "developer"] as const;

export const message = z.discriminatedUnion("role", [systemMessage, developerMessage, userMessage, assistantMessage, toolMessage, functionMessage]);
export type Message = z.infer<typeof message>;
export type AssistantMessage = z.infer<typeof assistantMessage>;

/** The fields of each message the neutral model names; the rest ride with the turn (or part), for OpenAI. */
export const MESSAGE_FIELDS = new Set(["role", "content"]);
export const ASSISTANT_FIELDS = new Set(["role", "content", "refusal", "tool_calls", "function_call"]);
export const TOOL_MESSAGE_FIELDS = new Set(["role", "tool_call_id", "content"]);

// ---------------------------------------------------------------- tools

const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export const functionTool = z.looseObject({
  type: z.literal("function"),
  function: z.looseObject({
    name: z.string().regex(FUNCTION_NAME),
    description: z.string().optional(),
    parameters: jsonObject.optional(),
    strict: z.boolean().nullish(),
  }),
});
export const customTool = z.looseObject({
  type: z.literal("custom"),
  custom: z.looseObject({ name: z.string().min(1), description: z.string().optional(), format: jsonObject.optional() }),
});
export const TOOL_TYPES: ReadonlySet<string> = new Set(["function", "custom"]);
const futureTool = z.looseObject({ type: z.string().refine((t) => !TOOL_TYPES.has(t), { abort: true, error: "a tool type the gateway knows" }) });
export const tool = z.union([z.discriminatedUnion("type", [functionTool, customTool]), futureTool]);
export type Tool = z.infer<typeof tool>;
export type FunctionTool = z.infer<typeof functionTool>;
export type CustomTool = z.infer<typeof customTool>;

/** The legacy functions API: a function declaration as the `functions` array has it. */
export const legacyFunction = z.looseObject({ name: z.string().regex(FUNCTION_NAME), description: z.string().optional(), parameters: jsonObject.optional() });
export type LegacyFunction = z.infer<typeof legacyFunction>;

const namedFunction = z.looseObject({ name: z.string().min(1) });
export const toolChoice = z.union([
  // "none", "auto", "required"; a newer mode rides to OpenAI as sent.
  z.string().min(1),
  z.discriminatedUnion("type", [
    z.looseObject({ type: z.literal("function"), function: namedFunction }),
    z.looseObject({ type: z.literal("custom"), custom: namedFunction }),
    z.looseObject({
      type: z.literal("allowed_tools"),
      allowed_tools: z.looseObject({ mode: z.string().min(1), tools: z.array(jsonObject) }),
    }),
  ]),
  z.looseObject({ type: z.string().refine((t) => !["function", "custom", "allowed_tools"].includes(t), { abort: true, error: "a tool_choice type the gateway knows" }) }),
]);
export type ToolChoice = z.infer<typeof toolChoice>;

const legacyFunctionCall = z.union([z.string().min(1), namedFunction]);
export type LegacyFunctionCall = z.infer<typeof legacyFunctionCall>;

// ---------------------------------------------------------------- settings

export const responseFormat = z.union([
  z.discriminatedUnion("type", [
    z.looseObject({ type: z.literal("text") }),
    z.looseObject({ type: z.literal("json_object") }),
    z.looseObject({
      type: z.literal("json_schema"),
      json_schema: z.looseObject({ name: z.string().optional(), description: z.string().optional(), schema: jsonObject.optional(), strict: z.boolean().nullish() }),
    }),
  ]),
  z.looseObject({ type: z.string().refine((t) => !["text", "json_object", "json_schema"].includes(t), { abort: true, error: "a response_format type the gateway knows" }) }),
]);
export type ResponseFormat = z.infer<typeof responseFormat>;

/** reasoning_effort values the gateway maps to other vendors; "none" turns thinking off; a newer one goes to OpenAI as sent. */
export const EFFORTS: ReadonlySet<string> = new Set(["minimal", "low", "medium", "high", "xhigh", "max"]);

// ---------------------------------------------------------------- request

export const chatRequest = sparse(
  z.looseObject({
    model: z.string().min(1).max(256),
    messages: z.array(message).min(1),
    tools: z.array(tool).nullish(),
    tool_choice: toolChoice.nullish(),
    parallel_tool_calls: z.boolean().nullish(),
    functions: z.array(legacyFunction).nullish(),
    function_call: legacyFunctionCall.nullish(),
    response_format: responseFormat.nullish(),
    stream: z.boolean().nullish(),
    stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
    n: z.number().int().min(1).max(128).nullish(),
    stop: z.union([z.string(), z.array(z.string())]).nullish(),
    max_tokens: count.nullish(),
    max_completion_tokens: count.nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    presence_penalty: z.number().min(-2).max(2).nullish(),
    frequency_penalty: z.number().min(-2).max(2).nullish(),
    seed: z.number().int().nullish(),
    logprobs: z.boolean().nullish(),
    top_logprobs: z.number().int().min(0).max(20).nullish(),
    reasoning_effort: z.string().min(1).nullish(),
    user: z.string().nullish(),
  }),
);
export type ChatRequest = z.infer<typeof chatRequest>;

/** The request fields the neutral model names (or the facade handles); the rest ride in vendor_extras.openai. */
export const KNOWN_REQUEST_FIELDS: ReadonlySet<string> = new Set([
  "model",
  "messages",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "functions",
  "function_call",
  "response_format",
  "stream",
  "stream_options",
  "n",
  "stop",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  "presence_penalty",
  "frequency_penalty",
  "seed",
  "logprobs",
  "top_logprobs",
  "reasoning_effort",
  "user",
]);

// ---------------------------------------------------------------- responses

export interface ResponseToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A custom tool's call: its free-text input. */
export interface ResponseCustomToolCall {
  id: string;
  type: "custom";
  custom: { name: string; input: string };
}

export interface TopLogprob {
  token: string;
  logprob: number;
  bytes: number[] | null;
}

export interface TokenLogprob extends TopLogprob {
  top_logprobs: TopLogprob[];
}

export interface ChoiceLogprobs {
  content: TokenLogprob[] | null;
  refusal: TokenLogprob[] | null;
}

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "function_call";

export interface ResponseMessage {
  role: "assistant";
  content: string | null;
  refusal: string | null;
  annotations: unknown[];
  tool_calls?: (ResponseToolCall | ResponseCustomToolCall | Record<string, unknown>)[];
  function_call?: { name: string; arguments: string };
  reasoning_content?: string;
  [extra: string]: unknown;
}

export interface Choice {
  index: number;
  message: ResponseMessage;
  logprobs: ChoiceLogprobs | null;
  finish_reason: FinishReason;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; audio_tokens: number };
  completion_tokens_details: { reasoning_tokens: number; audio_tokens: number; accepted_prediction_tokens: number; rejected_prediction_tokens: number };
}

export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: Choice[];
  usage: Usage;
  service_tier?: string;
  system_fingerprint: string;
  [extra: string]: unknown;
}

export interface ChunkDelta {
  role?: "assistant";
  content?: string;
  refusal?: string;
  reasoning_content?: string;
  annotations?: unknown[];
  tool_calls?: Record<string, unknown>[];
  function_call?: { name?: string; arguments: string };
}

export interface ChunkChoice {
  index: number;
  delta: ChunkDelta;
  logprobs: ChoiceLogprobs | null;
  finish_reason: FinishReason | null;
}

/** A chunk's own part: what differs from chunk to chunk (id, created, model and the rest are the stream's). */
export interface ChunkBody {
  choices: ChunkChoice[];
  /** Present only when the client asked for stream_options.include_usage: null but on the last chunk. */
  usage?: Usage | null;
}
