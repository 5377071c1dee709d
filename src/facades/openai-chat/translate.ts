// Pure translation of a validated Chat Completions request into the neutral
// ChatInput. No I/O, no clock.
//
// What the neutral model cannot say rides in vendor_extras.openai, so that an
// OpenAI channel gets the request as it was sent: unknown fields of the
// request (prediction, modalities, metadata, service_tier, ...), of a message
// (on its turn), of a content part, tool call or tool message (on its part),
// of a tool; content parts, tool calls and tools of a type the gateway does
// not know, whole; and under their own names the settings whose value the
// gateway could not map (a newer tool_choice, reasoning_effort "none" or a
// newer effort, json_schema's name and strict). Other vendors leave them out,
// and refuse the tools (docs/translation.md, section 0).
import type { JsonObject } from "@bufbuild/protobuf";
import { opaquePart, unknownFields } from "../../core/json-fields.js";
import { create } from "../../core/proto/create.js";
import {
  ChatInputSchema,
  PartSchema,
  Role,
  ToolChoiceMode,
  ToolChoiceSchema,
  TurnSchema,
  type ChatInput,
  type GenerationConfig,
  type Part,
  type ToolChoice,
  type Turn,
} from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { contentPart, extrasOf, NO_EXTRAS, refusal, text, TEXT_PART_FIELDS, VENDOR } from "./contents.js";
import { legacyChoice, legacyTool, toCoreTool, toCoreToolChoice, webSearchTool } from "./tools.js";
import * as wire from "./wire.js";

/** The format name keys are scoped by (core/tenancy/scope.ts) and the neutral source_format. */
export const SOURCE_FORMAT = "openai-chat";

export interface ToCoreContext {
  requestId: string;
}

export interface CoreRequest {
  input: ChatInput;
  /** Maps a neutral field path from a core error ("turns[1].parts[0].media") to the client's ("messages[2].content[0]"). */
  clientField: (neutral: string) => string;
  /** The request used the legacy functions API: the answer carries function_call. */
  legacyFunctions: boolean;
}

// ---------------------------------------------------------------- messages

type Origin = string;

interface Built {
  system: Part[];
  systemOrigins: Origin[];
  turns: Turn[];
  origins: Origin[][];
  turnOrigins: Origin[];
}

const TOOL_CALL_FIELDS = new Set(["id", "type", "function"]);
const FUNCTION_FIELDS = new Set(["name", "arguments"]);

/** Tool-call arguments as an object; what is not a JSON object keeps its text for OpenAI (as `function.arguments` in the extras). */
function argumentsOf(json: string): { args: JsonObject; raw?: string } {
  if (!json.trim()) return { args: {} };
  try {
    const v: unknown = JSON.parse(json);
    if (v && typeof v === "object" && !Array.isArray(v)) return { args: v as JsonObject };
    return { args: { value: v as JsonObject[string] }, raw: json };
  } catch {
    return { args: {}, raw: json };
  }
}

const CUSTOM_CALL_FIELDS = new Set(["id", "type", "custom"]);
const CUSTOM_FIELDS = new Set(["name", "input"]);

function toolCallPart(tc: wire.ToolCall, names: Map<string, string>): Part {
  if (tc.type === "custom") {
    // A custom tool's call: its free-text input.
    const cc = tc as wire.CustomToolCall;
    names.set(cc.id, cc.custom.name);
    return create(PartSchema, {
      kind: { case: "toolCall", value: { id: cc.id, name: cc.custom.name, input: cc.custom.input } },
      ...extrasOf(cc, CUSTOM_CALL_FIELDS, "custom", CUSTOM_FIELDS),
    });
  }
  if (tc.type !== "function") {
    // A call of a newer kind: whole, for OpenAI.
    const inner = (tc as Record<string, unknown>)[tc.type] as { name?: unknown } | undefined;
    if (typeof inner?.name === "string") names.set(tc.id, inner.name);
    return opaquePart(VENDOR, tc);
  }
  const fc = tc as wire.FunctionCall;
  names.set(fc.id, fc.function.name);
  const { args, raw } = argumentsOf(fc.function.arguments);
  const extras = extrasOf(fc, TOOL_CALL_FIELDS, "function", FUNCTION_FIELDS);
  if (raw !== undefined) {
    const x = { ...(extras.vendorExtras?.[VENDOR] ?? {}) };
    x.function = { ...((x.function as JsonObject | undefined) ?? {}), arguments: raw };
    return create(PartSchema, { kind: { case: "toolCall", value: { id: fc.id, name: fc.function.name, arguments: args } }, vendorExtras: { [VENDOR]: x } });
  }
  return create(PartSchema, { kind: { case: "toolCall", value: { id: fc.id, name: fc.function.name, arguments: args } }, ...extras });
}

/** The id a legacy function_call gets (the functions API has none); its function message answers the latest unanswered call of that name. */
const legacyId = (mi: number) => `call_fn_${mi}`;

function contentOf(content: string | wire.UserPart[], mi: number): { parts: Part[]; origins: Origin[] } {
  if (typeof content === "string") return content ? { parts: [text(content)], origins: [`messages[${mi}].content`] } : { parts: [], origins: [] };
  return { parts: content.map((p, ci) => contentPart(p, `messages[${mi}].content[${ci}]`)), origins: content.map((_, ci) => `messages[${mi}].content[${ci}]`) };
}

function toCoreMessages(messages: wire.Message[]): Built {
  const b: Built = { system: [], systemOrigins: [], turns: [], origins: [], turnOrigins: [] };
  const names = new Map<string, string>();
  /** Legacy calls not yet answered, by function name. */
  const pendingLegacy = new Map<string, string[]>();
  let leading = true;
  /** The user turn tool results gather in while tool messages follow each other. */
  let results: Turn | undefined;
  const push = (turn: Turn, origins: Origin[], at: Origin) => {
    b.turns.push(turn);
    b.origins.push(origins);
    b.turnOrigins.push(at);
  };
  messages.forEach((m, mi) => {
    const at = `messages[${mi}]`;
    if (m.role !== "tool" && m.role !== "function") results = undefined;
    switch (m.role) {
      case "system":
      case "developer": {
        const { parts, origins } = contentOf(m.content, mi);
        // The message's own fields (developer, name, newer ones): on its first part for the system instruction, on its turn later on.
        const own = unknownFields(m, wire.MESSAGE_FIELDS);
        const fields: JsonObject | undefined = m.role === "developer" ? { role: "developer", ...own } : own;
        if (leading) {
          if (fields) {
            if (!parts.length) parts.push(text(""));
            const first = parts[0]!;
            first.vendorExtras[VENDOR] = { ...(first.vendorExtras[VENDOR] ?? {}), message: fields };
          }
          b.system.push(...parts);
          b.systemOrigins.push(...(origins.length ? origins : [at]));
        } else {
          push(create(TurnSchema, { role: Role.SYSTEM, parts, ...(fields ? { vendorExtras: { [VENDOR]: fields } } : {}) }), origins, at);
        }
        return;
      }
      case "user": {
        leading = false;
        const { parts, origins } = contentOf(m.content, mi);
        push(create(TurnSchema, { role: Role.USER, parts, ...extrasOf(m, wire.MESSAGE_FIELDS) }), origins, at);
        return;
      }
      case "assistant": {
        leading = false;
        const parts: Part[] = [];
        const origins: Origin[] = [];
        const c = m.content;
        if (typeof c === "string") {
          if (c) {
            parts.push(text(c));
            origins.push(`${at}.content`);
          }
        } else if (c) {
          c.forEach((p, ci) => {
            origins.push(`${at}.content[${ci}]`);
            if (wire.isFuturePart(p)) parts.push(opaquePart(VENDOR, p));
            else if (p.type === "refusal") parts.push(refusal((p as wire.RefusalPart).refusal, p as wire.RefusalPart));
            else parts.push(text((p as wire.TextPart).text, extrasOf(p, TEXT_PART_FIELDS)));
          });
        }
        if (m.refusal) {
          parts.push(refusal(m.refusal));
          origins.push(`${at}.refusal`);
        }
        (m.tool_calls ?? []).forEach((tc, ti) => {
          parts.push(toolCallPart(tc, names));
          origins.push(`${at}.tool_calls[${ti}]`);
        });
        if (m.function_call) {
          const id = legacyId(mi);
          const { args } = argumentsOf(m.function_call.arguments);
          names.set(id, m.function_call.name);
          pendingLegacy.set(m.function_call.name, [...(pendingLegacy.get(m.function_call.name) ?? []), id]);
          parts.push(create(PartSchema, { kind: { case: "toolCall", value: { id, name: m.function_call.name, arguments: args } } }));
          origins.push(`${at}.function_call`);
        }
        push(create(TurnSchema, { role: Role.ASSISTANT, parts, ...extrasOf(m, wire.ASSISTANT_FIELDS) }), origins, at);
        return;
      }
      case "tool":
      case "function": {
        leading = false;
        let callId: string;
        let fnName: string;
        let content: Part[];
        let extras = NO_EXTRAS;
        if (m.role === "tool") {
          callId = m.tool_call_id;
          fnName = names.get(callId) ?? "";
          content = contentOf(m.content, mi).parts;
          extras = extrasOf(m, wire.TOOL_MESSAGE_FIELDS);
        } else {
          fnName = m.name;
          callId = pendingLegacy.get(m.name)?.shift() ?? legacyId(mi);
          content = m.content ? [text(m.content)] : [];
        }
        const part = create(PartSchema, { kind: { case: "toolResult", value: { callId, name: fnName, content } }, ...extras });
        if (!results) {
          results = create(TurnSchema, { role: Role.USER, parts: [] });
          push(results, [], at);
        }
        results.parts.push(part);
        b.origins.at(-1)!.push(at);
        return;
      }
    }
  });
  return b;
}

// ---------------------------------------------------------------- settings

type ConfigInit = Partial<Omit<GenerationConfig, "$typeName" | "$unknown">>;

function toCoreConfig(r: wire.ChatRequest, x: JsonObject): ConfigInit {
  const cfg: Record<string, unknown> = {};
  const max = r.max_completion_tokens ?? r.max_tokens;
  if (max != null) cfg.maxOutputTokens = max;
  if (r.temperature != null) cfg.temperature = r.temperature;
  if (r.top_p != null) cfg.topP = r.top_p;
  if (r.stop != null) {
    const stops = typeof r.stop === "string" ? [r.stop] : r.stop;
    if (stops.length) cfg.stopSequences = stops;
  }
  if (r.seed != null) cfg.seed = BigInt(r.seed);
  if (r.presence_penalty != null) cfg.presencePenalty = r.presence_penalty;
  if (r.frequency_penalty != null) cfg.frequencyPenalty = r.frequency_penalty;
  if (r.n != null) cfg.candidateCount = r.n;
  if (r.logprobs === true) {
    cfg.responseLogprobs = true;
    if (r.top_logprobs != null) cfg.logprobs = r.top_logprobs;
  } else if (r.top_logprobs != null) x.top_logprobs = r.top_logprobs; // OpenAI answers this itself
  const rf = r.response_format;
  if (rf?.type === "json_object") cfg.responseMimeType = "application/json";
  else if (rf?.type === "json_schema") {
    const js = (rf as { json_schema: { schema?: Record<string, unknown> } & Record<string, unknown> }).json_schema;
    cfg.responseMimeType = "application/json";
    if (js.schema) cfg.responseSchema = js.schema as JsonObject;
    // The schema's name, description and strictness: for OpenAI (others take the schema).
    const { schema: _s, ...rest } = js;
    const rx = unknownFields(rf, new Set(["type", "json_schema"]));
    if (Object.keys(rest).length || rx) x.response_format = { ...rx, json_schema: rest as JsonObject };
  } else if (rf && rf.type !== "text") x.response_format = rf as JsonObject; // a newer format: OpenAI's to read; plain text elsewhere
  const effort = r.reasoning_effort;
  if (effort === "none") {
    cfg.thinking = { enabled: false, includeThoughts: false };
    x.reasoning_effort = effort;
  } else if (effort && wire.EFFORTS.has(effort)) cfg.thinking = { enabled: true, effort, includeThoughts: true };
  else if (effort) x.reasoning_effort = effort;
  return cfg as ConfigInit;
}

const STREAM_OPTION_FIELDS = new Set(["include_usage"]);

// ---------------------------------------------------------------- field paths

const CONFIG_FIELDS: Record<string, string> = {
  "config.temperature": "temperature",
  "config.top_p": "top_p",
  "config.top_k": "top_k",
  "config.stop_sequences": "stop",
  "config.seed": "seed",
  "config.presence_penalty": "presence_penalty",
  "config.frequency_penalty": "frequency_penalty",
  "config.candidate_count": "n",
  "config.response_logprobs": "logprobs",
  "config.logprobs": "top_logprobs",
  "config.response_mime_type": "response_format",
  "config.response_schema": "response_format.json_schema.schema",
  "config.thinking": "reasoning_effort",
  "metadata.user_id": "user",
  input: "",
};

function fieldMapper(r: wire.ChatRequest, b: Built): (neutral: string) => string {
  const toolCount = r.tools?.length ?? 0;
  const functionCount = r.functions?.length ?? 0;
  const legacyChoiceUsed = r.tool_choice == null && r.function_call != null;
  return (neutral) => {
    if (neutral in CONFIG_FIELDS) return CONFIG_FIELDS[neutral]!;
    if (neutral === "config.max_output_tokens") return r.max_completion_tokens != null ? "max_completion_tokens" : "max_tokens";
    if (neutral === "tool_choice") return legacyChoiceUsed ? "function_call" : "tool_choice";
    const t = /^turns\[(\d+)\](?:\.parts\[(\d+)\])?(.*)$/.exec(neutral);
    if (t) {
      const ti = Number(t[1]);
      const at = t[2] !== undefined ? b.origins[ti]?.[Number(t[2])] : b.turnOrigins[ti];
      if (!at) return neutral;
      // "media" and "tool_result" are neutral names: the client's path ends at its part (or the tool message's content);
      // a file the core could not read in is the file id of a file part.
      const rest = (t[3] ?? "")
        .replace(/^\.tool_result(?=\.content|$)/, "")
        .replace(/\.media$/, "")
        .replace(/\.source$/, ".file.file_id");
      return at + rest;
    }
    const s = /^system\[(\d+)\](.*)$/.exec(neutral);
    if (s) return b.systemOrigins[Number(s[1])] ?? neutral;
    const tool = /^tools\[(\d+)\](.*)$/.exec(neutral);
    if (tool) {
      const i = Number(tool[1]);
      if (i >= toolCount + functionCount) return "web_search_options";
      return i < toolCount ? neutral : `functions[${i - toolCount}]${tool[2] ?? ""}`;
    }
    return neutral.replace(/^config\./, "");
  };
}

// ---------------------------------------------------------------- request

/** A validated Chat Completions request -> ChatInput. */
export function toCoreChatInput(r: wire.ChatRequest, ctx: ToCoreContext): CoreRequest {
  const b = toCoreMessages(r.messages);
  const x: JsonObject = unknownFields(r, wire.KNOWN_REQUEST_FIELDS) ?? {};
  const tools = (r.tools ?? []).map(toCoreTool);
  const legacy = !!r.functions?.length;
  if (r.functions) tools.push(...r.functions.map(legacyTool));
  const search = webSearchTool((r as Record<string, unknown>).web_search_options);
  if (search) tools.push(search);
  const fromTools = toCoreToolChoice(r.tool_choice);
  const { choice, asSent } = r.tool_choice != null ? fromTools : legacyChoice(r.function_call);
  if (asSent !== undefined) x.tool_choice = asSent;
  if (r.parallel_tool_calls === true) x.parallel_tool_calls = true;
  // The legacy API answers with one call.
  const disableParallel = r.parallel_tool_calls === false || legacy;
  let toolChoice: ToolChoice | undefined;
  if (choice || disableParallel) toolChoice = create(ToolChoiceSchema, { mode: choice?.mode ?? ToolChoiceMode.UNSPECIFIED, allowedNames: choice?.allowedNames ?? [], disableParallel });
  if (r.stream && r.stream_options) {
    const so = unknownFields(r.stream_options, STREAM_OPTION_FIELDS);
    if (so) x.stream_options = so;
  }
  const config = toCoreConfig(r, x);
  const input = create(ChatInputSchema, {
    model: r.model,
    system: b.system,
    turns: b.turns,
    tools,
    ...(toolChoice ? { toolChoice } : {}),
    config,
    metadata: { userId: r.user ?? "", sourceFormat: SOURCE_FORMAT, requestId: ctx.requestId },
    vendorExtras: Object.keys(x).length ? { [VENDOR]: x } : {},
  });
  return { input, clientField: fieldMapper(r, b), legacyFunctions: legacy };
}
