// Pure translation of a validated Responses request into the neutral
// ChatInput, and the ResponseMeta its answer is written with. No I/O, no clock.
//
// Items become turns: `instructions` and the leading system and developer
// messages are the system instruction (later ones system turns in place);
// assistant messages, reasoning and tool calls that follow each other are one
// assistant turn; the outputs that follow are one user turn of results, in the
// order of their calls (linked by call_id). Reasoning whose encrypted_content
// the gateway sealed comes back as the parts it held (thinking with its
// signature); anyone else's blob (OpenAI's "gAAAA…"), or none, is left out;
// a blob of ours that does not open is refused (invalid_encrypted_content).
// A web_search_call item sent back is left out (the message after it holds
// what the search gave).
//
// vendor_extras.openai carries, for an OpenAI channel, the settings Chat
// Completions has and the neutral model does not (verbosity, a json_schema's
// name and strictness, prompt_cache_key, service_tier, a tool_choice the
// neutral one cannot say), in Chat Completions' shape: that channel speaks
// Chat Completions. vendor_extras["openai-responses"] carries, as sent, every
// field this translation does not read (truncation, metadata, prompt,
// context_management, client_metadata, a field newer than the gateway) and
// the unread members of `text`, `reasoning` and `include`: a Responses
// upstream gets them; every other upstream leaves them out, except a stored
// `prompt`, which none can stand in for (providers/shared/parts.ts).
import { isResponsesItem } from "../../wire/openai/hosted.js";
import { RESPONSES_EXTRAS } from "../../wire/openai/extras.js";
import type { JsonObject } from "@bufbuild/protobuf";
import { invalidArgument } from "../../core/errors.js";
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
import { bad, contentOf, text, VENDOR } from "./contents.js";
import type { ResponseMeta, ToolName } from "./meta.js";
import { openParts, SEAL_PREFIX, type Sealer } from "./seal.js";
import { addTools, emptyTools, hasWebSearchTool, neutralName, toCoreToolChoice, type ToolsOut } from "./tools.js";
import * as wire from "./wire.js";

/** The format name keys are scoped by (core/tenancy/scope.ts) and the neutral source_format. */
export const SOURCE_FORMAT = "openai-responses";

/** What replaces a compaction_trigger: the model is asked for the summary the compaction item will hold. */
export const HANDOFF_PROMPT =
  "You are performing a context checkpoint compaction. Write a handoff summary of the conversation so far for another model that will resume the task: " +
  "the goal and constraints, what has been done and found, the current state of files and tools, and the next steps. Answer with the summary only.";

/** Put before a compaction item's summary when it comes back. */
export const SUMMARY_PREFIX = "The conversation before this point was compacted. This summary of it was written for you to continue from:\n\n";

export interface ToCoreContext {
  requestId: string;
  /** Opens the blobs of reasoning and compaction items. */
  sealer: Sealer;
}

export interface CoreRequest {
  input: ChatInput;
  /** Maps a neutral field path from a core error ("turns[1].parts[0].media") to the client's ("input[2].content[0]"). */
  clientField: (neutral: string) => string;
  /** Neutral tool name -> the client's tool. */
  toolNames: Map<string, ToolName>;
  /** The input ended with a compaction_trigger. */
  compact: boolean;
  /** include[] holds "reasoning.encrypted_content". */
  includeEncrypted: boolean;
}

// ---------------------------------------------------------------- items

interface Built {
  system: Part[];
  systemOrigins: string[];
  turns: Turn[];
  /** The client's path of each part of each turn. */
  origins: string[][];
  turnOrigins: string[];
  compact: boolean;
}

/** Tool-call arguments as an object; what is not a JSON object keeps its text for OpenAI (in Chat's shape). */
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

interface Call {
  name: string;
  /** Where it stands among all calls: results are put in this order. */
  seq: number;
  custom: boolean;
  answered: boolean;
}

/** The parts a blob of ours holds; undefined for a blob that is not ours; a 400 for ours altered. */
function opened(sealer: Sealer, blob: string | null | undefined, item: { id?: string | null }, param: string): Part[] | undefined {
  if (!blob) return undefined;
  const parts = openParts(sealer, blob);
  if (parts) return parts;
  if (!blob.startsWith(SEAL_PREFIX)) return undefined;
  const id = item.id ? ` for item ${item.id}` : "";
  throw invalidArgument(`The encrypted content${id} could not be verified.`, param, "invalid_encrypted_content");
}

function toCoreItems(r: wire.ResponsesRequest, sealer: Sealer, tools: ToolsOut): Built {
  const b: Built = { system: [], systemOrigins: [], turns: [], origins: [], turnOrigins: [], compact: false };
  if (r.instructions) {
    b.system.push(text(r.instructions));
    b.systemOrigins.push("instructions");
  }
  const items: wire.InputItem[] = typeof r.input === "string" ? [{ role: "user", content: r.input }] : (r.input ?? []);
  const calls = new Map<string, Call>();
  let seq = 0;
  let leading = true;
  /** The assistant turn that reasoning, messages and calls gather in while they follow each other. */
  let assistant: Turn | undefined;
  /** The user turn of results while outputs follow each other, with each result's call order. */
  let results: { turn: Turn; order: number[] } | undefined;

  const closeResults = () => {
    if (!results) return;
    // Results in the order of their calls (parallel calls answered in another order).
    const { turn, order } = results;
    const origins = b.origins[b.turns.indexOf(turn)]!;
    const idx = order.map((_, i) => i).sort((x, y) => order[x]! - order[y]!);
    turn.parts = idx.map((i) => turn.parts[i]!);
    origins.splice(0, origins.length, ...idx.map((i) => origins[i]!));
    results = undefined;
  };
  const push = (role: Role, parts: Part[], origins: string[], at: string): Turn => {
    closeResults();
    assistant = undefined;
    leading = false;
    const turn = create(TurnSchema, { role, parts });
    b.turns.push(turn);
    b.origins.push(origins);
    b.turnOrigins.push(at);
    return turn;
  };
  /** Adds parts to the open assistant turn (opening one). */
  const toAssistant = (parts: Part[], origins: string[], at: string) => {
    if (!assistant) {
      const turn = push(Role.ASSISTANT, [], [], at);
      assistant = turn;
    }
    assistant.parts.push(...parts);
    b.origins[b.turns.length - 1]!.push(...origins);
  };
  const toolCall = (item: wire.FunctionCallItem | wire.CustomToolCallItem, at: string) => {
    const name = neutralName(tools.names, item.name, item.namespace);
    const custom = item.type === "custom_tool_call";
    calls.set(item.call_id, { name, seq: seq++, custom, answered: false });
    if (custom) return toAssistant([create(PartSchema, { kind: { case: "toolCall", value: { id: item.call_id, name, input: item.input } } })], [at], at);
    const { args, raw } = argumentsOf(item.arguments);
    // Arguments that are not a JSON object: as sent, for an OpenAI channel (in Chat's shape).
    const extras = raw !== undefined ? { vendorExtras: { [VENDOR]: { function: { arguments: raw } } } } : {};
    toAssistant([create(PartSchema, { kind: { case: "toolCall", value: { id: item.call_id, name, arguments: args } }, ...extras })], [at], at);
  };
  const toolResult = (item: wire.FunctionCallOutputItem | wire.CustomToolCallOutputItem, at: string) => {
    const call = calls.get(item.call_id);
    const what = item.type === "custom_tool_call_output" ? "custom tool call output" : "function call output";
    if (!call) throw bad(`No tool call found for ${what} with call_id ${item.call_id}.`, "input");
    call.answered = true;
    const { parts: content } = contentOf(item.output, `${at}.output`);
    const part = create(PartSchema, { kind: { case: "toolResult", value: { callId: item.call_id, name: call.name, content } } });
    if (!results) results = { turn: push(Role.USER, [], [], at), order: [] };
    results.turn.parts.push(part);
    results.order.push(call.seq);
    b.origins[b.turns.indexOf(results.turn)]!.push(at);
  };

  items.forEach((item, i) => {
    const at = `input[${i}]`;
    switch (wire.itemType(item)) {
      case "message": {
        const m = item as wire.MessageItem;
        const { parts, origins } = contentOf(m.content, `${at}.content`);
        if (m.role === "assistant") return void (parts.length && toAssistant(parts, origins, at));
        if (m.role === "user") return void (parts.length && push(Role.USER, parts, origins, at));
        // system, developer: the instruction while nothing else came before, a system turn in place after.
        if (leading) {
          b.system.push(...parts);
          b.systemOrigins.push(...origins);
        } else if (parts.length) push(Role.SYSTEM, parts, origins, at);
        return;
      }
      case "function_call":
      case "custom_tool_call":
        return toolCall(item as wire.FunctionCallItem, at);
      case "function_call_output":
      case "custom_tool_call_output":
        return toolResult(item as wire.FunctionCallOutputItem, at);
      case "reasoning": {
        const rs = item as wire.ReasoningItem;
        const parts = opened(sealer, rs.encrypted_content, rs, `${at}.encrypted_content`);
        if (parts?.length)
          toAssistant(
            parts,
            parts.map(() => at),
            at,
          );
        return;
      }
      case "compaction": {
        const c = item as wire.CompactionItem;
        const parts = opened(sealer, c.encrypted_content, c, `${at}.encrypted_content`);
        const summary = (parts ?? []).filter((p) => p.kind.case === "text");
        if (summary.length) push(Role.USER, [text(SUMMARY_PREFIX), ...summary], [at, ...summary.map(() => at)], at);
        return;
      }
      case "compaction_trigger":
        // Only as the last item, where Codex puts it; anywhere else it asks for nothing.
        if (i === items.length - 1) {
          b.compact = true;
          push(Role.USER, [text(HANDOFF_PROMPT)], [at], at);
        }
        return;
      case "additional_tools":
        return addTools(tools, (item as wire.AdditionalToolsItem).tools, `${at}.tools`);
      case "item_reference":
        // The store resolves references before translation (plugin.ts); one left is to nothing.
        throw bad(`Item with id '${(item as wire.ItemReference).id}' not found.`, `${at}.id`);
      case "web_search_call":
        // A search the upstream ran: its results are not this item's to give back (Anthropic's are encrypted), and the answer that used them follows.
        return;
      default:
        // A hosted tool's call or output (an OpenAI Responses channel's): whole, for such a channel; other upstreams leave it out. Newer kinds: left out.
        if (isResponsesItem(item as JsonObject)) toAssistant([create(PartSchema, { vendorExtras: { [VENDOR]: item as JsonObject } })], [at], at);
        return;
    }
  });
  closeResults();
  for (const [id, c] of calls) if (!c.answered) throw bad(`No tool output found for ${c.custom ? "custom tool call" : "function call"} ${id}.`, "input");
  return b;
}

// ---------------------------------------------------------------- settings

type ConfigInit = Partial<Omit<GenerationConfig, "$typeName" | "$unknown">>;

const LOGPROBS = "message.output_text.logprobs";
const ENCRYPTED = "reasoning.encrypted_content";

function toCoreConfig(r: wire.ResponsesRequest, x: JsonObject, includeEncrypted: boolean): ConfigInit {
  const cfg: Record<string, unknown> = {};
  if (r.max_output_tokens != null) cfg.maxOutputTokens = r.max_output_tokens;
  if (r.temperature != null) cfg.temperature = r.temperature;
  if (r.top_p != null) cfg.topP = r.top_p;
  if (r.include?.includes(LOGPROBS)) {
    cfg.responseLogprobs = true;
    if (r.top_logprobs != null) cfg.logprobs = r.top_logprobs;
  }
  const f = r.text?.format;
  if (f?.type === "json_object") cfg.responseMimeType = "application/json";
  else if (f?.type === "json_schema") {
    const { type: _t, schema, ...rest } = f as wire.JsonSchemaFormat;
    cfg.responseMimeType = "application/json";
    cfg.responseSchema = schema as JsonObject;
    // The schema's name, description and strictness: for an OpenAI channel, where Chat Completions has them.
    x.response_format = { type: "json_schema", json_schema: rest as JsonObject };
  }
  if (r.text?.verbosity) x.verbosity = r.text.verbosity;
  const effort = r.reasoning?.effort;
  const summary = r.reasoning?.summary;
  // Thoughts come back when the client shows their summary, or carries them over in sealed reasoning.
  const includeThoughts = (!!summary && summary !== "none") || includeEncrypted;
  if (effort === "none") {
    cfg.thinking = { enabled: false, includeThoughts: false };
    x.reasoning_effort = effort;
  } else if (effort && wire.EFFORTS.has(effort)) cfg.thinking = { enabled: true, effort, includeThoughts };
  else {
    if (effort) x.reasoning_effort = effort;
    if (includeThoughts && r.reasoning) cfg.thinking = { includeThoughts };
  }
  return cfg as ConfigInit;
}

// ---------------------------------------------------------------- field paths

const CONFIG_FIELDS: Record<string, string> = {
  "config.max_output_tokens": "max_output_tokens",
  "config.temperature": "temperature",
  "config.top_p": "top_p",
  "config.response_logprobs": "include",
  "config.logprobs": "top_logprobs",
  "config.response_mime_type": "text.format",
  "config.response_schema": "text.format.schema",
  "config.thinking": "reasoning.effort",
  tool_choice: "tool_choice",
  input: "input",
};

function fieldMapper(r: wire.ResponsesRequest, b: Built, tools: ToolsOut): (neutral: string) => string {
  return (neutral) => {
    if (neutral in CONFIG_FIELDS) return CONFIG_FIELDS[neutral]!;
    if (neutral === "metadata.user_id") return r.safety_identifier != null ? "safety_identifier" : "user";
    const t = /^turns\[(\d+)\](?:\.parts\[(\d+)\])?(.*)$/.exec(neutral);
    if (t) {
      const ti = Number(t[1]);
      const at = t[2] !== undefined ? b.origins[ti]?.[Number(t[2])] : b.turnOrigins[ti];
      if (!at) return neutral;
      // "media" and "tool_result" are neutral names: the client's path ends at its part (or the output's content).
      const rest = (t[3] ?? "")
        .replace(/^\.tool_result(?:\.content(?=\[)|$)/, ".output")
        .replace(/\.media$/, "")
        .replace(/\.source$/, ".file_id");
      return at + rest;
    }
    const s = /^system\[(\d+)\](.*)$/.exec(neutral);
    if (s) return b.systemOrigins[Number(s[1])] ?? neutral;
    const tool = /^tools\[(\d+)\](?:\.(?:function|custom))?(.*)$/.exec(neutral);
    if (tool) {
      const at = tools.origins[Number(tool[1])];
      return at ? at + (tool[2] ?? "") : neutral;
    }
    return neutral.replace(/^config\./, "");
  };
}

// ---------------------------------------------------------------- request

/** Top-level fields this translation reads (or the facade acts on): the rest go to a Responses upstream as sent. */
const READ_FIELDS = new Set([
  "model",
  "input",
  "instructions",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "text",
  "reasoning",
  "include",
  "stream",
  "stream_options",
  "store",
  "background",
  "previous_response_id",
  "conversation",
  "max_output_tokens",
  "temperature",
  "top_p",
  "top_logprobs",
  "user",
  "safety_identifier",
  "prompt_cache_key",
  "prompt_cache_retention",
  "service_tier",
]);
/** Members of `text` and `reasoning` the translation reads. */
const READ_MEMBERS: Record<string, ReadonlySet<string>> = { text: new Set(["format", "verbosity"]), reasoning: new Set(["effort", "summary"]) };
/** include values the translation acts on. */
const READ_INCLUDES = new Set([ENCRYPTED, LOGPROBS]);

/** What of `r` a Responses upstream gets as sent: the unread fields, members and include values. */
export function unreadFields(r: wire.ResponsesRequest): JsonObject | undefined {
  const out: JsonObject = {};
  const sent = r as Record<string, unknown>;
  for (const k of Object.keys(sent)) {
    const v = sent[k];
    if (v === null || v === undefined) continue;
    if (!READ_FIELDS.has(k)) out[k] = v as JsonObject[string];
    else if (READ_MEMBERS[k] && typeof v === "object" && !Array.isArray(v)) {
      const read = READ_MEMBERS[k];
      const rest: JsonObject = {};
      for (const [m, mv] of Object.entries(v as JsonObject)) if (!read.has(m) && mv !== null && mv !== undefined) rest[m] = mv;
      if (Object.keys(rest).length) out[k] = rest;
    }
  }
  const include = r.include?.filter((v) => !READ_INCLUDES.has(v));
  if (include?.length) out.include = include;
  return Object.keys(out).length ? out : undefined;
}

/** A validated Responses request -> ChatInput (with what its answer needs). */
export function toCoreChatInput(r: wire.ResponsesRequest, ctx: ToCoreContext): CoreRequest {
  if (r.input === undefined || (Array.isArray(r.input) && r.input.length === 0)) throw bad("Missing required parameter: 'input'.", "input");
  const tools = emptyTools();
  if (r.tools) addTools(tools, r.tools, "tools");
  const b = toCoreItems(r, ctx.sealer, tools);
  const x: JsonObject = {};
  const includeEncrypted = r.include?.includes(ENCRYPTED) ?? false;
  const { choice, asSent } = b.compact ? { choice: { mode: ToolChoiceMode.NONE, allowedNames: [] }, asSent: undefined } : toCoreToolChoice(r.tool_choice, tools.names, hasWebSearchTool(tools));
  if (asSent !== undefined) x.tool_choice = asSent;
  const disableParallel = r.parallel_tool_calls === false;
  let toolChoice: ToolChoice | undefined;
  if (choice || disableParallel) toolChoice = create(ToolChoiceSchema, { mode: choice?.mode ?? ToolChoiceMode.UNSPECIFIED, allowedNames: choice?.allowedNames ?? [], disableParallel });
  const config = toCoreConfig(r, x, includeEncrypted);
  // Chat Completions has these under the same names.
  for (const k of ["prompt_cache_key", "prompt_cache_retention", "service_tier"] as const) if (r[k] != null) x[k] = r[k];
  const input = create(ChatInputSchema, {
    model: r.model,
    system: b.system,
    turns: b.turns,
    tools: tools.tools,
    ...(toolChoice ? { toolChoice } : {}),
    config,
    metadata: { userId: r.safety_identifier ?? r.user ?? "", sourceFormat: SOURCE_FORMAT, requestId: ctx.requestId },
    vendorExtras: vendorExtrasOf(x, unreadFields(r)),
  });
  return { input, clientField: fieldMapper(r, b, tools), toolNames: tools.names, compact: b.compact, includeEncrypted };
}

function vendorExtrasOf(x: JsonObject, unread: JsonObject | undefined): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  if (Object.keys(x).length) out[VENDOR] = x;
  if (unread) out[RESPONSES_EXTRAS] = unread;
  return out;
}

/** The request fields a Response echoes, as sent. */
export const ECHOED_FIELDS = [
  "instructions",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "text",
  "reasoning",
  "store",
  "metadata",
  "temperature",
  "top_p",
  "max_output_tokens",
  "truncation",
  "previous_response_id",
  "background",
  "service_tier",
  "prompt_cache_key",
  "safety_identifier",
  "user",
  "top_logprobs",
  "max_tool_calls",
  "prompt_cache_retention",
  "prompt",
] as const;

/**
 * The ResponseMeta of the answer to `r`: the facade mints the id and the time.
 * A stored response's reasoning carries its sealed thinking whatever include
 * says: a follow-up by previous_response_id replays it to the upstream, which
 * needs the signatures.
 */
export function responseMeta(r: wire.ResponsesRequest, core: CoreRequest, m: { id: string; createdAt: number; sealer: Sealer }): ResponseMeta {
  const echo: JsonObject = {};
  const sent = r as Record<string, unknown>;
  for (const k of ECHOED_FIELDS) if (sent[k] !== undefined) echo[k] = sent[k] as JsonObject[string];
  return {
    id: m.id,
    createdAt: m.createdAt,
    model: r.model,
    echo,
    includeEncrypted: core.includeEncrypted || r.store !== false,
    sealer: m.sealer,
    ...(core.compact ? { compact: true } : {}),
    toolNames: core.toolNames,
  };
}
