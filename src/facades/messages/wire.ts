// The Messages wire format (POST /v1/messages and /v1/messages/count_tokens):
// zod shapes of what clients send, and TypeScript shapes of what we answer.
// Rules follow spec 4.3 / 2.5; error texts come from ./issues.ts.
//
// Forward-compatible: what the gateway translates is checked strictly (the
// blocks, tools and settings it knows), and what it does not know passes: a
// block, tool, tool_choice or thinking type it has never seen, an enum value
// newer than it, a field it does not name. Those reach an Anthropic channel
// as sent and are left out (or refused, for tools) elsewhere (./translate.ts,
// docs/translation.md).
import { z } from "zod";
import { sparse } from "../shared/sparse-object.js";

// ---------------------------------------------------------------- request blocks

// type "ephemeral" and ttl "5m" / "1h" today; newer values pass to Anthropic (others ignore cache_control).
const cacheControl = z.object({ type: z.string().min(1), ttl: z.string().min(1).optional() }).nullish();

const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;
const base64Data = z.string().min(1).regex(BASE64, { error: "Input should be a valid base64 string" });

export const IMAGE_MEDIA_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"] as const;

const jsonObject = z.record(z.string(), z.unknown());

/** Counts travel as int32 inside; larger values are refused here, not overflowed there. */
const INT32_MAX = 2_147_483_647;

export const textBlock = z.looseObject({
  type: z.literal("text"),
  text: z.string().min(1).max(5_000_000),
  citations: z.array(jsonObject).nullish(),
  cache_control: cacheControl,
});

/** A file uploaded to /v1/files, named by its id. */
const fileSource = z.object({ type: z.literal("file"), file_id: z.string().min(1).max(256) });

const imageSource = z.discriminatedUnion("type", [
  z.object({ type: z.literal("base64"), media_type: z.enum(IMAGE_MEDIA_TYPES), data: base64Data }),
  z.object({ type: z.literal("url"), url: z.url() }),
  fileSource,
]);

export const imageBlock = z.looseObject({ type: z.literal("image"), source: imageSource, cache_control: cacheControl });

/** A custom content document: the client's own text (and image) blocks, which Anthropic cites block by block. */
const contentDocumentSource = z.object({
  type: z.literal("content"),
  content: z.union([z.string(), z.array(z.discriminatedUnion("type", [textBlock, imageBlock]))]),
});

const documentSource = z.discriminatedUnion("type", [
  z.object({ type: z.literal("base64"), media_type: z.literal("application/pdf"), data: base64Data }),
  z.object({ type: z.literal("text"), media_type: z.literal("text/plain"), data: z.string() }),
  z.object({ type: z.literal("url"), url: z.url() }),
  contentDocumentSource,
  fileSource,
]);

export const documentBlock = z.looseObject({
  type: z.literal("document"),
  source: documentSource,
  title: z.string().max(500).nullish(),
  context: z.string().nullish(),
  citations: z.object({ enabled: z.boolean().optional() }).nullish(),
  cache_control: cacheControl,
});

export const toolUseBlock = z.looseObject({
  type: z.literal("tool_use"),
  id: z.string().min(1),
  name: z.string().min(1),
  input: jsonObject,
  cache_control: cacheControl,
});

/** Search results a client found itself (RAG), to be cited like documents. */
export const searchResultBlock = z.looseObject({
  type: z.literal("search_result"),
  source: z.string(),
  title: z.string(),
  content: z.array(textBlock),
  citations: z.object({ enabled: z.boolean().optional() }).nullish(),
  cache_control: cacheControl,
});

/** In a tool search's tool result: a deferred tool the model may now call. */
export const toolReferenceBlock = z.looseObject({ type: z.literal("tool_reference"), tool_name: z.string().min(1), cache_control: cacheControl });

/** In a browser toolset member's result: the browser's tabs after the call, and what changed during it. */
export const browserStateBlock = z.looseObject({
  type: z.literal("browser_state"),
  tabs: z.array(jsonObject),
  state_changes: z.array(jsonObject).nullish(),
  cache_control: cacheControl,
});

/**
 * Blocks of Anthropic's server tools in an earlier answer, sent back with the
 * conversation: carried to an Anthropic upstream as they are, left out for
 * the others (like another vendor's thinking).
 */
export const SERVER_BLOCK_TYPES = [
  "server_tool_use",
  "web_search_tool_result",
  "web_fetch_tool_result",
  "code_execution_tool_result",
  "bash_code_execution_tool_result",
  "text_editor_code_execution_tool_result",
  "tool_search_tool_result",
  "container_upload",
] as const;

/** Every block type the gateway knows, wherever it may stand. */
export const KNOWN_BLOCK_TYPES: ReadonlySet<string> = new Set([
  "text",
  "image",
  "document",
  "search_result",
  "tool_use",
  "tool_result",
  "thinking",
  "redacted_thinking",
  "tool_reference",
  "browser_state",
  ...SERVER_BLOCK_TYPES,
]);

/**
 * A block of a type the gateway does not know (newer than it): passed whole to
 * Anthropic, left out for other vendors. abort: a known type ends this branch,
 * so a malformed known block is reported as that block's error.
 */
export const futureBlock = z.looseObject({ type: z.string().refine((t) => !KNOWN_BLOCK_TYPES.has(t), { abort: true, error: "a block type the gateway knows" }) });
export type FutureBlock = z.infer<typeof futureBlock>;
/** Whether a block is of a type the gateway does not know (see futureBlock). */
export const isFutureBlock = (b: { type: string }): boolean => !KNOWN_BLOCK_TYPES.has(b.type);

const knownToolResultContent = z.discriminatedUnion("type", [textBlock, imageBlock, documentBlock, searchResultBlock, toolReferenceBlock, browserStateBlock]);
const toolResultContent = z.union([knownToolResultContent, futureBlock]);

export const toolResultBlock = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(toolResultContent)]).optional(),
  is_error: z.boolean().optional(),
  cache_control: cacheControl,
});

export const thinkingBlock = z.looseObject({ type: z.literal("thinking"), thinking: z.string(), signature: z.string(), cache_control: cacheControl });
export const redactedThinkingBlock = z.looseObject({ type: z.literal("redacted_thinking"), data: z.string().min(1), cache_control: cacheControl });

export const serverBlock = z.looseObject({ type: z.enum(SERVER_BLOCK_TYPES), cache_control: cacheControl });

const knownContentBlock = z.discriminatedUnion("type", [textBlock, imageBlock, documentBlock, searchResultBlock, toolUseBlock, toolResultBlock, thinkingBlock, redactedThinkingBlock, serverBlock]);
export const contentBlock = z.union([knownContentBlock, futureBlock]);

/** Roles of a message; "system" is a system message at its place in the conversation (a beta of Anthropic's). */
export const ROLES = ["user", "assistant", "system"] as const;

export const message = z.looseObject({
  role: z.enum(ROLES),
  content: z.union([z.string(), z.array(contentBlock)]),
});

/** The fields of a message the neutral turn names; the rest ride with the turn, for Anthropic. */
export const MESSAGE_FIELDS = new Set(["role", "content"]);

// ---------------------------------------------------------------- tools

const inputSchema = z.looseObject({ type: z.literal("object") });

export const customTool = z.looseObject({
  type: z.literal("custom").optional(),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
  description: z.string().optional(),
  input_schema: inputSchema,
  cache_control: cacheControl,
});

/** Anthropic-defined tools: computer, bash and text editor, any dated version. */
export const computerTool = z.looseObject({
  type: z.string().regex(/^computer_\d{8}$/),
  name: z.literal("computer"),
  display_width_px: z.number().int().min(1),
  display_height_px: z.number().int().min(1),
  display_number: z.number().int().min(0).nullish(),
  cache_control: cacheControl,
});
export const bashTool = z.looseObject({ type: z.string().regex(/^bash_\d{8}$/), name: z.literal("bash"), cache_control: cacheControl });
export const textEditorTool = z.looseObject({
  type: z.string().regex(/^text_editor_\d{8}$/),
  name: z.enum(["str_replace_editor", "str_replace_based_edit_tool"]),
  cache_control: cacheControl,
});

/** Anthropic's server tools (and memory): web search, web fetch, code execution, tool search, any dated version. */
export const serverTool = z.looseObject({
  // abort: a type this branch does not take ends the branch, so a union of
  // failing branches is reported as one (the other tools' types are literals
  // or checks that fail alongside a literal name).
  type: z.string().regex(/^(?:(?:web_search|web_fetch|code_execution|memory)_\d{8}|tool_search_tool_(?:bm25|regex)(?:_\d{8})?)$/, { abort: true }),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
  cache_control: cacheControl,
});

/**
 * Anthropic's toolsets (computer, browser; any dated version): one entry
 * offers a family of member tools, each set up in `configs` under the member's
 * name; the entry has no name of its own, and the members' tool_use blocks
 * carry `toolset_name`.
 */
export const toolsetTool = z.looseObject({
  type: z.string().regex(/^(?:computer|browser)_toolset_\d{8}$/, { abort: true }),
  configs: z.record(z.string(), jsonObject.nullable()).nullish(),
  cache_control: cacheControl,
});

/** The tool types the gateway knows (a custom tool may leave its type out). */
const KNOWN_TOOL_TYPE = /^(?:custom|(?:computer|bash|text_editor|web_search|web_fetch|code_execution|memory)_\d{8}|tool_search_tool_(?:bm25|regex)(?:_\d{8})?|(?:computer|browser)_toolset_\d{8})$/;

/** A tool of a type the gateway does not know: to Anthropic as sent; other vendors refuse it (it cannot be emulated). */
export const futureTool = z.looseObject({
  type: z.string().refine((t) => !KNOWN_TOOL_TYPE.test(t), { abort: true, error: "a tool type the gateway knows" }),
  name: z.string().min(1).optional(),
});

export const tool = z.union([customTool, computerTool, bashTool, textEditorTool, serverTool, toolsetTool, futureTool]);

/** Whether a tool is of a type the gateway does not know (see futureTool). */
export const isFutureTool = (t: { type?: string | undefined }): boolean => t.type !== undefined && !KNOWN_TOOL_TYPE.test(t.type);

/** The fields of a custom tool the neutral function tool names; the rest ride with it, for Anthropic. */
export const CUSTOM_TOOL_FIELDS = new Set(["type", "name", "description", "input_schema", "cache_control"]);

const disableParallel = z.boolean().optional();
export const TOOL_CHOICE_TYPES: ReadonlySet<string> = new Set(["auto", "any", "tool", "none"]);
export const toolChoice = z.union([
  z.discriminatedUnion("type", [
    z.looseObject({ type: z.literal("auto"), disable_parallel_tool_use: disableParallel }),
    z.looseObject({ type: z.literal("any"), disable_parallel_tool_use: disableParallel }),
    z.looseObject({ type: z.literal("tool"), name: z.string().min(1), disable_parallel_tool_use: disableParallel }),
    z.looseObject({ type: z.literal("none") }),
  ]),
  // A newer choice: to Anthropic as sent, left out elsewhere (the upstream's default, auto).
  z.looseObject({ type: z.string().refine((t) => !TOOL_CHOICE_TYPES.has(t), { abort: true, error: "a tool_choice type the gateway knows" }) }),
]);

// ---------------------------------------------------------------- settings

// display: "omitted" returns thinking blocks with their text left out (the
// signature kept); the default depends on the model. The gateway maps
// "summarized" and "omitted"; a newer display goes to Anthropic as sent.
export const THINKING_DISPLAYS: ReadonlySet<string> = new Set(["summarized", "omitted"]);
const thinkingDisplay = z.string().nullish();
export const THINKING_TYPES: ReadonlySet<string> = new Set(["enabled", "disabled", "adaptive", "between_tools"]);
export const thinkingConfig = z.union([
  z.discriminatedUnion("type", [
    z.looseObject({ type: z.literal("enabled"), budget_tokens: z.number().int().min(1024).max(INT32_MAX), display: thinkingDisplay }),
    z.looseObject({ type: z.literal("disabled") }),
    z.looseObject({ type: z.literal("adaptive"), display: thinkingDisplay }),
    z.looseObject({ type: z.literal("between_tools") }),
  ]),
  // A newer mode: to Anthropic as sent, left out elsewhere (no thinking setting).
  z.looseObject({ type: z.string().refine((t) => !THINKING_TYPES.has(t), { abort: true, error: "a thinking type the gateway knows" }) }),
]);

const jsonSchemaFormat = z.looseObject({ type: z.literal("json_schema"), schema: jsonObject });

/** Effort levels the gateway maps to other vendors; a newer one goes to Anthropic as sent. */
export const EFFORTS: ReadonlySet<string> = new Set(["low", "medium", "high", "xhigh", "max"]);

export const outputConfig = z.looseObject({
  format: z.union([jsonSchemaFormat, z.looseObject({ type: z.string().refine((t) => t !== "json_schema", { abort: true }) })]).nullish(),
  effort: z.string().min(1).nullish(),
});

const system = z.union([z.string(), z.array(z.union([textBlock, futureBlock]))]);

// ---------------------------------------------------------------- requests

const common = {
  model: z.string().min(1).max(256),
  messages: z.array(message).min(1),
  system: system.optional(),
  thinking: thinkingConfig.optional(),
  tools: z.array(tool).optional(),
  tool_choice: toolChoice.optional(),
  output_config: outputConfig.optional(),
  output_format: jsonSchemaFormat.nullish(),
};

type Ctx = z.core.$RefinementCtx<{
  messages: z.infer<typeof message>[];
  tools?: z.infer<typeof tool>[] | undefined;
  tool_choice?: z.infer<typeof toolChoice> | undefined;
}>;

/** Rules that span fields; each issue names the field like the real API does (a newer tool_choice is Anthropic's to check). */
function crossChecks(req: { messages: z.infer<typeof message>[]; tools?: z.infer<typeof tool>[] | undefined; tool_choice?: z.infer<typeof toolChoice> | undefined }, ctx: Ctx): void {
  const last = req.messages.length - 1;
  req.messages.forEach((m, i) => {
    const empty = typeof m.content === "string" ? m.content.length === 0 : m.content.length === 0;
    if (empty && !(i === last && m.role === "assistant")) {
      ctx.addIssue({ code: "custom", path: ["messages", i], message: "all messages must have non-empty content except for the optional final assistant message" });
    }
  });
  const final = req.messages[last];
  if (final?.role === "assistant") {
    const text = typeof final.content === "string" ? final.content : final.content.map((b) => (b.type === "text" ? (b as TextBlock).text : "")).join("");
    const endsWithText = typeof final.content === "string" || final.content.at(-1)?.type === "text";
    if (endsWithText && /\s$/.test(text)) ctx.addIssue({ code: "custom", path: ["messages"], message: "final assistant content cannot end with trailing whitespace" });
  }
  const names = new Set<string>();
  (req.tools ?? []).forEach((t, i) => {
    // A toolset has no name of its own (its members' names are Anthropic's to check).
    if (typeof t.name !== "string") return;
    if (names.has(t.name)) ctx.addIssue({ code: "custom", path: ["tools", i, "name"], message: "Tool names must be unique." });
    names.add(t.name);
  });
  const tc = req.tool_choice;
  if (tc && (tc.type === "any" || tc.type === "tool") && !req.tools?.length) {
    ctx.addIssue({ code: "custom", path: ["tool_choice"], message: "tool_choice may only be specified while providing tools" });
  }
  const named = tc?.type === "tool" ? (tc as { name: string }).name : undefined;
  if (named !== undefined && names.size > 0 && !names.has(named)) {
    ctx.addIssue({ code: "custom", path: ["tool_choice", "name"], message: `Tool '${named}' not found in tools` });
  }
}

// sparse(): a request sets a few of its optional fields; only those are run.
export const messagesRequest = sparse(
  z
    .looseObject({
      ...common,
      max_tokens: z.number().int().min(1).max(INT32_MAX),
      metadata: z.looseObject({ user_id: z.string().max(256).nullish() }).nullish(),
      stop_sequences: z.array(z.string().min(1)).optional(),
      stream: z.boolean().optional(),
      temperature: z.number().min(0).max(1).optional(),
      top_p: z.number().min(0).max(1).optional(),
      top_k: z.number().int().min(1).max(INT32_MAX).optional(),
    })
    .superRefine((req, ctx) => {
      crossChecks(req, ctx);
      if (req.thinking?.type === "enabled" && (req.thinking as { budget_tokens: number }).budget_tokens >= req.max_tokens) {
        ctx.addIssue({ code: "custom", path: ["thinking", "budget_tokens"], message: "Input should be less than max_tokens" });
      }
    }),
);

export const countTokensRequest = sparse(z.looseObject(common).superRefine(crossChecks));

export type MessagesRequest = z.infer<typeof messagesRequest>;
export type CountTokensRequest = z.infer<typeof countTokensRequest>;
export type Message = z.infer<typeof message>;
export type ContentBlock = z.infer<typeof contentBlock>;
/** A block of a type the gateway knows (isFutureBlock tells the others apart). */
export type KnownBlock = z.infer<typeof knownContentBlock>;
export type TextBlock = z.infer<typeof textBlock>;
export type ImageBlock = z.infer<typeof imageBlock>;
export type DocumentBlock = z.infer<typeof documentBlock>;
export type SearchResultBlock = z.infer<typeof searchResultBlock>;
export type ToolReferenceBlock = z.infer<typeof toolReferenceBlock>;
export type BrowserStateBlock = z.infer<typeof browserStateBlock>;
export type ToolResultContent = z.infer<typeof toolResultContent>;
export type KnownToolResultContent = z.infer<typeof knownToolResultContent>;
export type CustomTool = z.infer<typeof customTool>;
export type Tool = z.infer<typeof tool>;
export type ToolChoice = z.infer<typeof toolChoice>;
export type ThinkingConfig = z.infer<typeof thinkingConfig>;
export type CacheControl = z.infer<typeof cacheControl>;

/** Top-level request fields the neutral model names; everything else travels in vendor_extras. */
export const KNOWN_REQUEST_FIELDS = new Set([
  "model",
  "max_tokens",
  "messages",
  "system",
  "metadata",
  "stop_sequences",
  "stream",
  "temperature",
  "top_p",
  "top_k",
  "thinking",
  "tools",
  "tool_choice",
  "output_config",
  "output_format",
]);

// ---------------------------------------------------------------- responses

export type StopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "pause_turn" | "refusal" | "model_context_window_exceeded";

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export type ResponseBlock =
  | { type: "text"; text: string; citations?: unknown[] }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string };

export interface MessageResponse {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: ResponseBlock[];
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  stop_details?: { type: "refusal"; category: string | null; explanation: string | null } | null;
  usage: Usage;
}

export type ErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "billing_error"
  | "permission_error"
  | "not_found_error"
  | "request_too_large"
  | "rate_limit_error"
  | "api_error"
  | "timeout_error"
  | "overloaded_error";

export interface ErrorBody {
  type: "error";
  /** details.error_code: the specific error, for the SDK's typed errors (FileExpiredError on "404 file_expired"). */
  error: { type: ErrorType; message: string; details?: { error_code: string } };
  request_id: string;
}

export interface ModelInfo {
  type: "model";
  id: string;
  display_name: string;
  created_at: string;
  max_input_tokens?: number;
  max_tokens?: number;
}

export interface ModelList {
  data: ModelInfo[];
  has_more: boolean;
  first_id: string | null;
  last_id: string | null;
}

export const listModelsQuery = z.looseObject({
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  after_id: z.string().min(1).optional(),
  before_id: z.string().min(1).optional(),
});
