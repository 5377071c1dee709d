// Pure translation between the Messages wire format and the neutral chat model:
// toCore* turns a validated request into a ChatInput, fromCore* turns a
// GenerateResponse into a message. No I/O, no clock.
//
// What the neutral model cannot say rides in vendor_extras.anthropic, for an
// Anthropic channel to get as sent: unknown fields (of the request, a message,
// a block, a custom tool), blocks of unknown types (whole), and the settings
// whose value the gateway does not know (a newer thinking type or display,
// effort level, tool_choice type): those keep their own name in the request's
// extras and the neutral field gets the nearest known value, or none.
// Web search (the web_search server tool, a search in the answer): web-search.ts.
import { type JsonObject } from "@bufbuild/protobuf";
import { isWholeBlock, opaqueBlock, opaquePart, standInPart, unknownFields } from "../../core/json-fields.js";
import { create } from "../../core/proto/create.js";
import {
  ChatInputSchema,
  FinishReason,
  PartSchema,
  Role,
  ToolChoiceMode,
  ToolChoiceSchema,
  SignatureSchema,
  ToolSchema,
  TurnSchema,
  type ChatInput,
  type GenerateResponse,
  type GenerationConfig,
  type Part,
  type Tool,
  type ToolChoice,
  type Turn,
  type Usage,
} from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { decodeSignature, encodeSignature } from "../../core/chat/signature-codec.js";
import { callArguments } from "../../core/chat/tool-calls.js";
import { gatewaySearchPart, isGatewaySearchBlock, isWebSearchType, toCoreWebSearchTool, webSearchBlocks } from "./web-search.js";
import * as wire from "./wire.js";

export const VENDOR = "anthropic";

export interface ToCoreContext {
  /** anthropic-beta flags, already split. */
  betas: string[];
  requestId: string;
}

export interface CoreRequest {
  input: ChatInput;
  /** Maps a neutral field path from a core error ("turns[1].parts[0].signature") to the client's ("messages.2.content.0.signature"). */
  clientField: (neutral: string) => string;
}

type Origin = [message: number, block: number];

function cacheControlOf(cc: wire.CacheControl | undefined): Partial<{ cacheControl: { type: string; ttl: string } }> {
  return cc ? { cacheControl: { type: cc.type, ttl: cc.ttl ?? "" } } : {};
}

const NO_EXTRAS = Object.freeze({});

/** The fields each block type names on the wire (the rest go to vendor_extras). */
const TEXT_FIELDS = new Set(["type", "text", "citations", "cache_control"]);
const IMAGE_FIELDS = new Set(["type", "source", "cache_control"]);
const DOCUMENT_FIELDS = new Set(["type", "source", "title", "context", "citations", "cache_control"]);
const TOOL_USE_FIELDS = new Set(["type", "id", "name", "input", "cache_control"]);
const TOOL_RESULT_FIELDS = new Set(["type", "tool_use_id", "content", "is_error", "cache_control"]);
const THINKING_FIELDS = new Set(["type", "thinking", "signature", "cache_control"]);
const REDACTED_FIELDS = new Set(["type", "data", "cache_control"]);

/** Fields of a block the wire names but the neutral part does not; kept for a same-vendor round trip. */
function blockExtras(block: object, known: ReadonlySet<string>): Partial<{ vendorExtras: Record<string, JsonObject> }> {
  const extra = unknownFields(block, known);
  return extra ? { vendorExtras: { [VENDOR]: extra } } : NO_EXTRAS;
}

const base64Bytes = (data: string) => new Uint8Array(Buffer.from(data, "base64"));

function mediaPart(block: wire.ImageBlock | wire.DocumentBlock): Part {
  const src = block.source;
  if (src.type === "content") throw new Error("a content document is a stand-in, not media");
  const doc = block.type === "document" ? block : undefined;
  const meta = { name: doc?.title ?? "", context: doc?.context ?? "", citations: doc?.citations?.enabled ?? false };
  let media;
  if (src.type === "base64") media = { mimeType: src.media_type, source: { case: "data" as const, value: base64Bytes(src.data) }, ...meta };
  else if (src.type === "text") media = { mimeType: "text/plain", source: { case: "data" as const, value: new TextEncoder().encode(src.data) }, ...meta };
  // The core reads the file in (and sets its type) before any provider sees it.
  else if (src.type === "file") media = { mimeType: "", source: { case: "fileId" as const, value: src.file_id }, ...meta };
  else media = { mimeType: block.type === "document" ? "application/pdf" : "", source: { case: "uri" as const, value: src.url }, ...meta };
  const known = block.type === "document" ? DOCUMENT_FIELDS : IMAGE_FIELDS;
  return create(PartSchema, { kind: { case: "media", value: media }, ...cacheControlOf(block.cache_control), ...blockExtras(block, known) });
}

function textPart(block: wire.TextBlock): Part {
  return create(PartSchema, {
    kind: { case: "text", value: { text: block.text, citations: (block.citations ?? []) as JsonObject[] } },
    ...cacheControlOf(block.cache_control),
    ...blockExtras(block, TEXT_FIELDS),
  });
}

/**
 * A block other vendors have no kind for but can read as text (a search
 * result: its title, source and text; a tool reference: the tool's name):
 * Anthropic gets the block as it came (it cites into a search result).
 */
function standIn(b: wire.SearchResultBlock | wire.ToolReferenceBlock | wire.BrowserStateBlock): Part {
  return standInPart(VENDOR, b, standInText(b));
}

function standInText(b: wire.SearchResultBlock | wire.ToolReferenceBlock | wire.BrowserStateBlock): string {
  switch (b.type) {
    case "search_result":
      return `Search result: ${b.title}\nSource: ${b.source}\n\n${b.content.map((c) => c.text).join("\n\n")}`;
    case "tool_reference":
      return `Tool reference: ${b.tool_name}`;
    case "browser_state":
      return `Browser state: ${JSON.stringify(b.state_changes ? { tabs: b.tabs, state_changes: b.state_changes } : { tabs: b.tabs })}`;
  }
}

/**
 * A custom content document (source type "content"): Anthropic gets the block
 * as it came, so it can cite the document block by block; other vendors read
 * its text blocks as one text, under the title and context when there are any.
 * The images of such a document have no place in a text and only reach
 * Anthropic (README, Translation).
 */
function contentDocument(b: wire.DocumentBlock & { source: { type: "content" } }): Part {
  const c = b.source.content;
  const body = typeof c === "string" ? c : c.flatMap((x) => (x.type === "text" ? [x.text] : [])).join("\n\n");
  const head = (b.title ? `Document: ${b.title}\n` : "") + (b.context ? `Context: ${b.context}\n` : "");
  return standInPart(VENDOR, b, head ? `${head}\n${body}` : body);
}

const isContentDocument = (b: wire.ImageBlock | wire.DocumentBlock): b is wire.DocumentBlock & { source: { type: "content" } } => b.source.type === "content";

/** An image or document block -> a neutral part. */
const mediaOrDocument = (b: wire.ImageBlock | wire.DocumentBlock): Part => (isContentDocument(b) ? contentDocument(b) : mediaPart(b));

function toolResultParts(content: string | wire.ToolResultContent[] | undefined): Part[] {
  if (content === undefined) return [];
  if (typeof content === "string") return content ? [create(PartSchema, { kind: { case: "text", value: { text: content } } })] : [];
  return content.map((block) => {
    // A block of a type newer than the gateway: whole, for Anthropic only.
    if (wire.isFutureBlock(block)) return opaquePart(VENDOR, block);
    const b = block as wire.KnownToolResultContent;
    switch (b.type) {
      case "text":
        return textPart(b);
      case "search_result":
      case "tool_reference":
      case "browser_state":
        return standIn(b);
      default:
        return mediaOrDocument(b);
    }
  });
}

/** One content block -> one neutral part. `toolNames` maps tool_use ids seen so far to tool names. */
export function toCorePart(b: wire.ContentBlock, toolNames: Map<string, string>): Part {
  // A block of a type newer than the gateway: whole, for Anthropic only (as a server tool's block).
  if (wire.isFutureBlock(b)) return opaquePart(VENDOR, b);
  const block = b as wire.KnownBlock;
  const cc = cacheControlOf(block.cache_control);
  switch (block.type) {
    case "text":
      return textPart(block);
    case "image":
    case "document":
      return mediaOrDocument(block);
    case "search_result":
      return standIn(block);
    case "tool_use":
      toolNames.set(block.id, block.name);
      return create(PartSchema, {
        kind: { case: "toolCall", value: { id: block.id, name: block.name, arguments: block.input as JsonObject } },
        ...cc,
        ...blockExtras(block, TOOL_USE_FIELDS),
      });
    case "tool_result":
      return create(PartSchema, {
        kind: {
          case: "toolResult",
          value: { callId: block.tool_use_id, name: toolNames.get(block.tool_use_id) ?? "", content: toolResultParts(block.content), isError: block.is_error ?? false },
        },
        ...cc,
        ...blockExtras(block, TOOL_RESULT_FIELDS),
      });
    case "thinking":
      return create(PartSchema, {
        kind: { case: "thinking", value: { text: block.thinking } },
        ...(block.signature ? { signature: decodeSignature(block.signature, VENDOR) } : {}),
        ...cc,
        ...blockExtras(block, THINKING_FIELDS),
      });
    case "redacted_thinking": {
      const s = decodeSignature(block.data, VENDOR);
      return create(PartSchema, { kind: { case: "redactedThinking", value: { data: s.value, issuer: s.issuer } }, ...cc, ...blockExtras(block, REDACTED_FIELDS) });
    }
    default:
      // Half of another vendor's search the gateway drew: nothing an upstream can take.
      if (isGatewaySearchBlock(block)) return gatewaySearchPart(block as unknown as Record<string, unknown>);
      // A server tool's block: no neutral kind, the whole block for Anthropic (as answers carry them).
      return opaquePart(VENDOR, block);
  }
}

function toCoreTool(t: wire.Tool): Tool {
  // A tool of a type newer than the gateway keeps even its cache_control as sent (in its config).
  const future = wire.isFutureTool(t);
  const cc = future ? NO_EXTRAS : cacheControlOf((t as { cache_control?: wire.CacheControl }).cache_control);
  if (t.type === undefined || t.type === "custom") {
    const ct = t as wire.CustomTool;
    return create(ToolSchema, {
      kind: { case: "function", value: { name: ct.name, description: ct.description ?? "", parameters: ct.input_schema as JsonObject } },
      ...cc,
      // strict, defer_loading, input_examples...: for Anthropic.
      ...blockExtras(ct, wire.CUSTOM_TOOL_FIELDS),
    });
  }
  if (isWebSearchType(t.type)) return toCoreWebSearchTool(t as Record<string, unknown>, cc);
  const config: JsonObject = {};
  for (const [k, v] of Object.entries(t)) if (k !== "type" && k !== "name" && (future || k !== "cache_control") && v !== undefined) config[k] = v as JsonObject[string];
  // A toolset has no name of its own (its members are named in `configs`).
  return create(ToolSchema, { kind: { case: "vendor", value: { type: t.type, name: typeof t.name === "string" ? t.name : "", config, vendor: VENDOR } }, ...cc });
}

const TOOL_CHOICE_MODES = { auto: ToolChoiceMode.AUTO, any: ToolChoiceMode.ANY, tool: ToolChoiceMode.ANY, none: ToolChoiceMode.NONE } as const;

/** A tool_choice of a known type (a newer type has no neutral form: it rides in the extras). */
function toCoreToolChoice(tc: wire.ToolChoice | undefined): ToolChoice | undefined {
  if (!tc || !wire.TOOL_CHOICE_TYPES.has(tc.type)) return undefined;
  const k = tc as { type: keyof typeof TOOL_CHOICE_MODES; name?: string; disable_parallel_tool_use?: boolean | undefined };
  return create(ToolChoiceSchema, {
    mode: TOOL_CHOICE_MODES[k.type],
    allowedNames: k.type === "tool" ? [k.name!] : [],
    disableParallel: k.type === "none" ? false : (k.disable_parallel_tool_use ?? false),
  });
}

type ConfigInit = Partial<Omit<GenerationConfig, "$typeName" | "$unknown">>;

function toCoreConfig(req: wire.MessagesRequest | wire.CountTokensRequest): ConfigInit {
  const r = req as Partial<wire.MessagesRequest> & wire.CountTokensRequest;
  const cfg: Record<string, unknown> = {};
  if (r.max_tokens !== undefined) cfg.maxOutputTokens = r.max_tokens;
  if (r.temperature !== undefined) cfg.temperature = r.temperature;
  if (r.top_p !== undefined) cfg.topP = r.top_p;
  if (r.top_k !== undefined) cfg.topK = r.top_k;
  if (r.stop_sequences?.length) cfg.stopSequences = r.stop_sequences;
  // Only values the gateway knows reach the neutral model; newer ones ride in the extras (requestExtras).
  const th = r.thinking as { type: string; budget_tokens?: number; display?: string | null } | undefined;
  const sentEffort = r.output_config?.effort;
  const effort = sentEffort && wire.EFFORTS.has(sentEffort) ? sentEffort : "";
  const display = th?.display && wire.THINKING_DISPLAYS.has(th.display) ? th.display : "";
  if (th?.type === "enabled") cfg.thinking = { enabled: true, budgetTokens: th.budget_tokens, includeThoughts: display !== "omitted", effort, display };
  else if (th?.type === "adaptive") cfg.thinking = { enabled: true, includeThoughts: display !== "omitted", effort, display };
  else if (th?.type === "disabled") cfg.thinking = { enabled: false, includeThoughts: false, effort };
  else if (th?.type === "between_tools") cfg.thinking = { enabled: true, includeThoughts: true, effort, mode: th.type };
  else if (effort) cfg.thinking = { includeThoughts: false, effort };
  const sentFormat = r.output_config?.format;
  const format = (sentFormat?.type === "json_schema" ? (sentFormat as { schema: JsonObject }) : undefined) ?? r.output_format;
  if (format) {
    cfg.responseMimeType = "application/json";
    cfg.responseSchema = format.schema as JsonObject;
  }
  return cfg as ConfigInit;
}

const THINKING_FIELDS_SENT = new Set(["type", "budget_tokens", "display"]);
const TOOL_CHOICE_FIELDS = new Set(["type", "name", "disable_parallel_tool_use"]);
const OUTPUT_CONFIG_FIELDS = new Set(["format", "effort"]);
const FORMAT_FIELDS = new Set(["type", "schema"]);
const METADATA_FIELDS = new Set(["user_id"]);

/**
 * What Anthropic should get beyond what the neutral model says: unknown
 * request fields, and under their own names the known settings whose value
 * the gateway could not map (all of thinking or tool_choice; the parts of
 * output_config and metadata it does not name). Cheap when there are none: a
 * key walk of the body and of the few settings it sets.
 */
function requestExtras(r: Partial<wire.MessagesRequest> & wire.CountTokensRequest): Record<string, JsonObject> {
  let x = unknownFields(r, wire.KNOWN_REQUEST_FIELDS);
  const th = r.thinking as JsonObject | undefined;
  if (th && (!wire.THINKING_TYPES.has(th.type as string) || (typeof th.display === "string" && !wire.THINKING_DISPLAYS.has(th.display)) || unknownFields(th, THINKING_FIELDS_SENT))) {
    (x ??= {}).thinking = th;
  }
  const tc = r.tool_choice as JsonObject | undefined;
  if (tc && (!wire.TOOL_CHOICE_TYPES.has(tc.type as string) || unknownFields(tc, TOOL_CHOICE_FIELDS))) (x ??= {}).tool_choice = tc;
  const oc = r.output_config as JsonObject | undefined;
  if (oc) {
    let o = unknownFields(oc, OUTPUT_CONFIG_FIELDS, true);
    if (typeof oc.effort === "string" && !wire.EFFORTS.has(oc.effort)) (o ??= {}).effort = oc.effort;
    const f = oc.format as JsonObject | null | undefined;
    // A newer format whole; a json_schema one's unknown fields only (the schema itself is mapped, and may be wrapped).
    const fx = f && (f.type === "json_schema" ? unknownFields(f, FORMAT_FIELDS) : f);
    if (fx) (o ??= {}).format = fx;
    if (o) (x ??= {}).output_config = o;
  }
  const md = r.metadata ? unknownFields(r.metadata, METADATA_FIELDS, true) : undefined;
  if (md) (x ??= {}).metadata = md;
  return x ? { [VENDOR]: x } : {};
}

const CONFIG_FIELDS: Record<string, string> = {
  "config.max_output_tokens": "max_tokens",
  "config.temperature": "temperature",
  "config.top_p": "top_p",
  "config.top_k": "top_k",
  "config.stop_sequences": "stop_sequences",
  "config.thinking": "thinking",
  "config.thinking.budget_tokens": "thinking.budget_tokens",
  "config.thinking.display": "thinking.display",
  "config.response_schema": "output_config.format.schema",
  turns: "messages",
  tool_choice: "tool_choice",
  input: "",
};

function fieldMapper(origins: Origin[][]): (neutral: string) => string {
  return (neutral) => {
    if (neutral in CONFIG_FIELDS) return CONFIG_FIELDS[neutral]!;
    const t = /^turns[.[](\d+)\]?(?:\.parts[.[](\d+)\]?)?(.*)$/.exec(neutral);
    if (t) {
      const turn = origins[Number(t[1])];
      const at = t[2] !== undefined ? turn?.[Number(t[2])] : turn?.[0];
      if (!at) return neutral;
      const rest = (t[3] ?? "").replace(/\[(\d+)\]/g, ".$1");
      return t[2] !== undefined ? `messages.${at[0]}.content.${at[1]}${rest}` : `messages.${at[0]}${rest}`;
    }
    const tool = /^tools[.[](\d+)\]?(.*)$/.exec(neutral);
    if (tool) return `tools.${tool[1]}${(tool[2] ?? "").replace(/\[(\d+)\]/g, ".$1")}`;
    return neutral.replace(/^config\./, "");
  };
}

const ROLES = { user: Role.USER, assistant: Role.ASSISTANT, system: Role.SYSTEM } as const;

/**
 * Turns consecutive same-role messages into one turn each; a final assistant
 * message stays the last turn (it is continued). A system message is a system
 * turn at its place. A message with fields the turn does not name keeps them
 * (for Anthropic) in a turn of its own.
 */
function toCoreTurns(messages: wire.Message[]): { turns: Turn[]; origins: Origin[][] } {
  const turns: Turn[] = [];
  const origins: Origin[][] = [];
  const toolNames = new Map<string, string>();
  let ownTurn = false;
  messages.forEach((m, mi) => {
    const role = ROLES[m.role];
    const blocks: wire.ContentBlock[] = typeof m.content === "string" ? (m.content ? [{ type: "text", text: m.content }] : []) : m.content;
    const extras = unknownFields(m, wire.MESSAGE_FIELDS);
    let turn = turns.at(-1);
    if (!turn || turn.role !== role || extras || ownTurn) {
      ownTurn = extras !== undefined;
      turn = create(TurnSchema, extras ? { role, vendorExtras: { [VENDOR]: extras } } : { role });
      turns.push(turn);
      origins.push([]);
    }
    const o = origins.at(-1)!;
    blocks.forEach((b, bi) => {
      turn.parts.push(toCorePart(b, toolNames));
      o.push([mi, bi]);
    });
  });
  // A final assistant message with no content adds nothing to continue.
  if (turns.at(-1)?.parts.length === 0) {
    turns.pop();
    origins.pop();
  }
  return { turns, origins };
}

function systemParts(system: string | (wire.TextBlock | wire.FutureBlock)[] | undefined): Part[] {
  if (system === undefined) return [];
  if (typeof system === "string") return system ? [create(PartSchema, { kind: { case: "text", value: { text: system } } })] : [];
  return system.map((b) => (wire.isFutureBlock(b) ? opaquePart(VENDOR, b) : textPart(b as wire.TextBlock)));
}

/** A validated Messages (or count_tokens) request -> ChatInput. */
export function toCoreChatInput(req: wire.MessagesRequest | wire.CountTokensRequest, ctx: ToCoreContext): CoreRequest {
  const { turns, origins } = toCoreTurns(req.messages);
  const r = req as Partial<wire.MessagesRequest> & wire.CountTokensRequest;
  const toolChoice = toCoreToolChoice(req.tool_choice);
  const input = create(ChatInputSchema, {
    model: req.model,
    system: systemParts(req.system),
    turns,
    tools: (req.tools ?? []).map(toCoreTool),
    ...(toolChoice ? { toolChoice } : {}),
    config: toCoreConfig(req),
    metadata: { userId: r.metadata?.user_id ?? "", betas: ctx.betas, sourceFormat: "messages", requestId: ctx.requestId },
    vendorExtras: requestExtras(r),
  });
  return { input, clientField: fieldMapper(origins) };
}

// ---------------------------------------------------------------- responses

export function usageOf(u: Usage | undefined): wire.Usage {
  return {
    input_tokens: Number(u?.inputTokens ?? 0n),
    output_tokens: Number(u?.outputTokens ?? 0n),
    cache_creation_input_tokens: Number(u?.cacheWriteTokens ?? 0n),
    cache_read_input_tokens: Number(u?.cacheReadTokens ?? 0n),
  };
}

const REFUSALS = new Set([FinishReason.SAFETY, FinishReason.RECITATION, FinishReason.BLOCKLIST, FinishReason.PROHIBITED_CONTENT, FinishReason.SPII, FinishReason.IMAGE_SAFETY]);

/** Neutral finish -> stop_reason; never null. A tool call with a plain stop is tool_use. */
export function stopReasonOf(finish: FinishReason, hasToolCall: boolean): wire.StopReason {
  if (REFUSALS.has(finish)) return "refusal";
  switch (finish) {
    case FinishReason.MAX_TOKENS:
      return "max_tokens";
    case FinishReason.STOP_SEQUENCE:
      return "stop_sequence";
    case FinishReason.TOOL_USE:
      return "tool_use";
    case FinishReason.PAUSE_TURN:
      return "pause_turn";
    case FinishReason.CONTEXT_WINDOW_EXCEEDED:
      return "model_context_window_exceeded";
    default:
      return hasToolCall ? "tool_use" : "end_turn";
  }
}

/** Renders a signature (thinking) or redacted data for this wire: raw when Anthropic issued it, wrapped otherwise. */
export function wireSignature(issuer: string, value: string): string {
  return encodeSignature(create(SignatureSchema, { issuer: issuer || VENDOR, value }), VENDOR);
}

/**
 * A tool call as a tool_use block. Fields an Anthropic upstream put beside the
 * call (`toolset_name` on a toolset member's call, `caller`) go back to the
 * client with it: they are this wire's own.
 */
/** A tool call as tool_use; a custom tool's call (free-text input) has input {"input": text}. */
function toolUseBlock(p: Part, c: { id: string; name: string; arguments?: JsonObject | undefined; input?: string | undefined }): wire.ResponseBlock {
  const b: Record<string, unknown> = { type: "tool_use", id: c.id, name: c.name, input: callArguments(c) };
  const x = p.vendorExtras[VENDOR];
  if (x && !isWholeBlock(x)) for (const key of Object.keys(x)) if (!(key in b)) b[key] = x[key];
  return b as wire.ResponseBlock;
}

/** One neutral part -> a response block; parts the wire cannot carry (media output) give undefined. */
export function fromCorePart(p: Part): wire.ResponseBlock | undefined {
  const k = p.kind;
  switch (k.case) {
    case "text":
      return k.value.citations.length ? { type: "text", text: k.value.text, citations: k.value.citations } : { type: "text", text: k.value.text };
    case "toolCall":
      return toolUseBlock(p, k.value);
    case "thinking":
      return { type: "thinking", thinking: k.value.text, signature: p.signature ? wireSignature(p.signature.issuer, p.signature.value) : "" };
    case "redactedThinking":
      return { type: "redacted_thinking", data: wireSignature(k.value.issuer, k.value.data) };
    case "executableCode":
      return { type: "text", text: "```" + k.value.language.toLowerCase() + "\n" + k.value.code + "\n```" };
    case "codeExecutionResult":
      return { type: "text", text: "```\n" + k.value.output + "\n```" };
    case "webSearchCall":
      // Two blocks: see fromCoreBlocks.
      return undefined;
    default:
      // A block Anthropic answered with that has no neutral kind (a server tool's use or result): as it came.
      return opaqueBlock(p, VENDOR) as wire.ResponseBlock | undefined;
  }
}

/** One neutral part -> its response blocks: a web search is two (web-search.ts), any other part what fromCorePart makes of it. */
export function fromCoreBlocks(p: Part): wire.ResponseBlock[] {
  if (p.kind.case === "webSearchCall") return webSearchBlocks(p, p.kind.value);
  const b = fromCorePart(p);
  return b ? [b] : [];
}

/** Whether the prompt was blocked before any answer (no candidate, a block reason). */
export function isBlocked(resp: Pick<GenerateResponse, "candidates" | "promptFeedback">): boolean {
  return resp.candidates.length === 0 && (resp.promptFeedback?.blockReason ?? 0) !== 0;
}

export function fromCoreMessage(resp: GenerateResponse, fallback: { id: string; model: string }): wire.MessageResponse {
  const cand = resp.candidates.find((c) => c.index === 0) ?? resp.candidates[0];
  const parts = cand?.parts ?? [];
  // Empty text parts (some upstreams end with one) are not blocks: text is 1+ characters.
  const content = parts.flatMap(fromCoreBlocks).filter((b) => !(b.type === "text" && b.text === ""));
  const blocked = isBlocked(resp);
  const stop = blocked
    ? "refusal"
    : stopReasonOf(
        cand?.finishReason ?? FinishReason.STOP,
        parts.some((p) => p.kind.case === "toolCall"),
      );
  const m: wire.MessageResponse = {
    id: resp.id || fallback.id,
    type: "message",
    role: "assistant",
    model: resp.model || fallback.model,
    content,
    stop_reason: stop,
    stop_sequence: cand?.stopSequence || null,
  } as wire.MessageResponse;
  if (stop === "refusal") m.stop_details = { type: "refusal", category: null, explanation: resp.promptFeedback?.blockMessage || cand?.finishMessage || null };
  m.usage = usageOf(resp.usage);
  return m;
}
