// The OpenAI Responses wire format (POST /v1/responses): zod shapes of what
// clients send. Error texts come from ./issues.ts; the Response object and its
// stream events are written by ./translate-response.ts and ./stream.ts.
//
// Forward-compatible: only what the gateway translates is checked, and
// strictly (message roles and content parts, tool calls and their outputs,
// tools, tool_choice, text.format, the settings it maps). Everything else
// passes: a field it does not name (Codex's client_metadata, ids and statuses
// on items), an input item, content part, tool or tool_choice of a type it
// does not know. ./translate.ts says what becomes of each.
import { z } from "zod";
import { sparse } from "../shared/sparse-object.js";

const jsonObject = z.record(z.string(), z.unknown());
/** Counts travel as int32 inside; larger values are refused here, not overflowed there. */
const INT32_MAX = 2_147_483_647;

/** A branch for values of a type the gateway does not know; a known type ends it (abort), so its own branch reports the error. */
const futureOf = (known: ReadonlySet<string>, what: string) => z.looseObject({ type: z.string().refine((t) => !known.has(t), { abort: true, error: `a ${what} type the gateway knows` }) });

// ---------------------------------------------------------------- content parts

export const inputText = z.looseObject({ type: z.literal("input_text"), text: z.string() });
export const outputText = z.looseObject({ type: z.literal("output_text"), text: z.string() });
export const refusalPart = z.looseObject({ type: z.literal("refusal"), refusal: z.string() });
export const inputImage = z
  .looseObject({ type: z.literal("input_image"), image_url: z.string().min(1).nullish(), file_id: z.string().min(1).max(256).nullish(), detail: z.string().nullish() })
  .refine((p) => p.image_url != null || p.file_id != null, { error: "one of image_url or file_id is required" });
export const inputFile = z
  .looseObject({
    type: z.literal("input_file"),
    file_id: z.string().min(1).max(256).nullish(),
    file_data: z.string().min(1).nullish(),
    file_url: z.string().min(1).nullish(),
    filename: z.string().nullish(),
  })
  .refine((p) => p.file_id != null || p.file_data != null || p.file_url != null, { error: "one of file_id, file_data or file_url is required" });

export const KNOWN_PART_TYPES: ReadonlySet<string> = new Set(["input_text", "output_text", "refusal", "input_image", "input_file"]);
/** A content part of a type the gateway does not know (input_audio, newer ones): left out. */
const futurePart = futureOf(KNOWN_PART_TYPES, "content part");
export const contentPart = z.union([z.discriminatedUnion("type", [inputText, outputText, refusalPart, inputImage, inputFile]), futurePart]);

export type InputText = z.infer<typeof inputText>;
export type OutputText = z.infer<typeof outputText>;
export type RefusalPart = z.infer<typeof refusalPart>;
export type InputImage = z.infer<typeof inputImage>;
export type InputFile = z.infer<typeof inputFile>;
export type KnownPart = InputText | OutputText | RefusalPart | InputImage | InputFile;
export type ContentPart = z.infer<typeof contentPart>;
export const isKnownPart = (p: { type: string }): p is KnownPart => KNOWN_PART_TYPES.has(p.type);

/** A tool output: text, or content parts. */
const toolOutput = z.union([z.string(), z.array(contentPart)]);

// ---------------------------------------------------------------- tools

const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export const functionTool = z.looseObject({
  type: z.literal("function"),
  name: z.string().regex(FUNCTION_NAME),
  description: z.string().nullish(),
  parameters: jsonObject.nullish(),
  strict: z.boolean().nullish(),
});
export const customTool = z.looseObject({ type: z.literal("custom"), name: z.string().regex(FUNCTION_NAME), description: z.string().nullish(), format: jsonObject.nullish() });
export const MEMBER_TOOL_TYPES: ReadonlySet<string> = new Set(["function", "custom"]);
/** What a namespace holds: function and custom tools (a newer kind is left out). */
export const memberTool = z.union([z.discriminatedUnion("type", [functionTool, customTool]), futureOf(MEMBER_TOOL_TYPES, "tool")]);
export const namespaceTool = z.looseObject({ type: z.literal("namespace"), name: z.string().regex(FUNCTION_NAME), description: z.string().nullish(), tools: z.array(memberTool) });

export const TOOL_TYPES: ReadonlySet<string> = new Set(["function", "custom", "namespace"]);
/** Hosted tools (web_search, tool_search, file_search, mcp, ...) and newer kinds: ./tools.ts decides, by type. */
const otherTool = futureOf(TOOL_TYPES, "tool");
export const tool = z.union([z.discriminatedUnion("type", [functionTool, customTool, namespaceTool]), otherTool]);

export type FunctionTool = z.infer<typeof functionTool>;
export type CustomTool = z.infer<typeof customTool>;
export type NamespaceTool = z.infer<typeof namespaceTool>;
export type MemberTool = z.infer<typeof memberTool>;
export type Tool = z.infer<typeof tool>;

export const CHOICE_TYPES: ReadonlySet<string> = new Set(["function", "custom", "allowed_tools"]);
export const toolChoice = z.union([
  // "none", "auto", "required"; a newer mode is left out.
  z.string().min(1),
  z.discriminatedUnion("type", [
    z.looseObject({ type: z.literal("function"), name: z.string().min(1), namespace: z.string().nullish() }),
    z.looseObject({ type: z.literal("custom"), name: z.string().min(1), namespace: z.string().nullish() }),
    z.looseObject({ type: z.literal("allowed_tools"), mode: z.string().min(1), tools: z.array(jsonObject) }),
  ]),
  // A hosted tool's ({type:"web_search_preview"}, mcp, apply_patch, shell) or a newer form.
  futureOf(CHOICE_TYPES, "tool_choice"),
]);
export type ToolChoice = z.infer<typeof toolChoice>;

// ---------------------------------------------------------------- input items

/** The roles OpenAI names in its error for an unknown one, in its order. */
export const ROLES = ["assistant", "system", "developer", "user"] as const;

/** A message: `type` may be left out (the AI SDK does); `content` null is empty (echoed items). */
export const messageItem = z.looseObject({
  type: z.literal("message").optional(),
  role: z.enum(ROLES),
  content: z.union([z.string(), z.array(contentPart)]).nullable(),
});
export const functionCallItem = z.looseObject({
  type: z.literal("function_call"),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  namespace: z.string().nullish(),
});
export const functionCallOutputItem = z.looseObject({ type: z.literal("function_call_output"), call_id: z.string().min(1), output: toolOutput });
export const customToolCallItem = z.looseObject({
  type: z.literal("custom_tool_call"),
  call_id: z.string().min(1),
  name: z.string().min(1),
  input: z.string(),
  namespace: z.string().nullish(),
});
export const customToolCallOutputItem = z.looseObject({ type: z.literal("custom_tool_call_output"), call_id: z.string().min(1), output: toolOutput });
/** Reasoning: only its blob is read (its summary is the model's, shown to the client; the blob holds what the model needs back). */
export const reasoningItem = z.looseObject({ type: z.literal("reasoning"), id: z.string().nullish(), encrypted_content: z.string().nullish() });
export const compactionItem = z.looseObject({ type: z.literal("compaction"), id: z.string().nullish(), encrypted_content: z.string().nullish() });
export const compactionTriggerItem = z.looseObject({ type: z.literal("compaction_trigger") });
export const additionalToolsItem = z.looseObject({ type: z.literal("additional_tools"), tools: z.array(tool) });
export const itemReference = z.looseObject({ type: z.literal("item_reference"), id: z.string().min(1) });

export const ITEM_TYPES: ReadonlySet<string> = new Set([
  "message",
  "function_call",
  "function_call_output",
  "custom_tool_call",
  "custom_tool_call_output",
  "reasoning",
  "compaction",
  "compaction_trigger",
  "additional_tools",
  "item_reference",
]);
const typedItem = z.discriminatedUnion("type", [
  functionCallItem,
  functionCallOutputItem,
  customToolCallItem,
  customToolCallOutputItem,
  reasoningItem,
  compactionItem,
  compactionTriggerItem,
  additionalToolsItem,
  itemReference,
]);
/** An item of a type the gateway does not know (hosted tools' calls and outputs, newer kinds): left out. */
const futureItem = z.looseObject({
  type: z.string().refine((t) => !ITEM_TYPES.has(t), { abort: true, error: "an input item type the gateway knows" }),
});
export const inputItem = z.union([messageItem, typedItem, futureItem]);

export type MessageItem = z.infer<typeof messageItem>;
export type FunctionCallItem = z.infer<typeof functionCallItem>;
export type FunctionCallOutputItem = z.infer<typeof functionCallOutputItem>;
export type CustomToolCallItem = z.infer<typeof customToolCallItem>;
export type CustomToolCallOutputItem = z.infer<typeof customToolCallOutputItem>;
export type ReasoningItem = z.infer<typeof reasoningItem>;
export type CompactionItem = z.infer<typeof compactionItem>;
export type AdditionalToolsItem = z.infer<typeof additionalToolsItem>;
export type ItemReference = z.infer<typeof itemReference>;
export type InputItem = z.infer<typeof inputItem>;

/** The item's kind: a message may come without `type`. */
export const itemType = (item: InputItem): string => (typeof item.type === "string" ? item.type : "message");

// ---------------------------------------------------------------- settings

export const FORMAT_TYPES: ReadonlySet<string> = new Set(["text", "json_object", "json_schema"]);
export const jsonSchemaFormat = z.looseObject({
  type: z.literal("json_schema"),
  name: z.string().min(1).max(64),
  schema: jsonObject,
  description: z.string().nullish(),
  strict: z.boolean().nullish(),
});
export const textFormat = z.union([
  z.discriminatedUnion("type", [z.looseObject({ type: z.literal("text") }), z.looseObject({ type: z.literal("json_object") }), jsonSchemaFormat]),
  futureOf(FORMAT_TYPES, "text.format"),
]);
export type TextFormat = z.infer<typeof textFormat>;
export type JsonSchemaFormat = z.infer<typeof jsonSchemaFormat>;

/** reasoning.effort values the gateway maps to other vendors; "none" turns thinking off; a newer one goes to OpenAI as sent. */
export const EFFORTS: ReadonlySet<string> = new Set(["minimal", "low", "medium", "high", "xhigh", "max"]);

// ---------------------------------------------------------------- request

export const responsesRequest = sparse(
  z.looseObject({
    model: z.string().min(1).max(256),
    input: z.union([z.string(), z.array(inputItem)]).optional(),
    instructions: z.string().nullish(),
    tools: z.array(tool).nullish(),
    tool_choice: toolChoice.nullish(),
    parallel_tool_calls: z.boolean().nullish(),
    text: z.looseObject({ format: textFormat.nullish(), verbosity: z.string().nullish() }).nullish(),
    reasoning: z.looseObject({ effort: z.string().min(1).nullish(), summary: z.string().nullish() }).nullish(),
    include: z.array(z.string()).nullish(),
    stream: z.boolean().nullish(),
    store: z.boolean().nullish(),
    background: z.boolean().nullish(),
    previous_response_id: z.string().min(1).nullish(),
    conversation: z.union([z.string().min(1), z.looseObject({ id: z.string().min(1) })]).nullish(),
    prompt: jsonObject.nullish(),
    max_output_tokens: z.number().int().min(16).max(INT32_MAX).nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    top_logprobs: z.number().int().min(0).max(20).nullish(),
    metadata: jsonObject.nullish(),
    user: z.string().nullish(),
    safety_identifier: z.string().nullish(),
    prompt_cache_key: z.string().nullish(),
    prompt_cache_retention: z.string().nullish(),
    service_tier: z.string().nullish(),
  }),
);
export type ResponsesRequest = z.infer<typeof responsesRequest>;
