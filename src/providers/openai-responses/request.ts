// Neutral ChatInput -> OpenAI Responses request. Pure.
//
// The gateway keeps no upstream state: every request is `store: false` and
// asks for `reasoning.encrypted_content`, and the whole conversation goes as
// input items. Thinking signed by OpenAI (its encrypted_content) goes back as
// a reasoning item; other vendors' thinking is dropped on purpose. Items the
// neutral model has no kind for (hosted tools' calls) come back as they came.
// What the facades put in vendor_extras.openai is in Chat Completions' shape
// (an OpenAI channel speaks Chat by default): the fields Responses also has are
// laid over the body in Responses' shape, the others are left out.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { HarmBlockThreshold, Modality, Role, ToolChoiceMode, type ChatInput, type Media, type Part, type Tool, type WebSearchTool } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { isResponsesItem } from "../../wire/openai/hosted.js";
import { isWholeBlock, overlayFields } from "../../core/json-fields.js";
import { hasWebSearch, WEB_SEARCH_NAME } from "../../core/chat/web-search.js";
import { jsonOutputOf, type JsonOutput } from "../shared/json-output.js";
import { enforceableSafetyIndex, IMAGE_TYPES, mediaDataUrl, mediaText, refuseForeignExtras, safeToolId, toolResultText } from "../shared/parts.js";
import { unsupported } from "../shared/http-errors.js";
import { approximateLocation } from "../shared/user-location.js";
import { RESPONSES_EXTRAS } from "../../wire/openai/extras.js";
import type * as wire from "./wire.js";

export const VENDOR = "openai";
/** Always asked for: reasoning comes back sealed by OpenAI, to be sent back next turn. */
export const ENCRYPTED = "reasoning.encrypted_content";
const LOGPROBS = "message.output_text.logprobs";
const SEARCH_SOURCES = "web_search_call.action.sources";
/** Source formats whose clients put the word JSON in the messages themselves when they ask for json_object. */
const OPENAI_FORMATS = new Set(["openai-chat", "openai-responses"]);
/** The least max_output_tokens the Responses API takes. */
const MIN_OUTPUT_TOKENS = 16;
const PASSABLE_SAFETY = [HarmBlockThreshold.UNSPECIFIED, HarmBlockThreshold.BLOCK_NONE, HarmBlockThreshold.OFF];

/** Tool types the Responses API runs or knows: a vendor tool of one of these (and of no other vendor) goes as it is. */
export const RESPONSES_TOOL_TYPES: ReadonlySet<string> = new Set([
  "web_search",
  "web_search_preview",
  "web_search_2025_08_26",
  "web_search_preview_2025_03_11",
  "file_search",
  "code_interpreter",
  "image_generation",
  "mcp",
  "computer",
  "computer_use_preview",
  "local_shell",
  "shell",
  "apply_patch",
  "tool_search",
  "namespace",
]);

/** Request fields of Responses a Chat-shaped vendor_extras.openai may carry under the same name. */
const PASSED_FIELDS = new Set([
  "parallel_tool_calls",
  "prompt_cache_key",
  "prompt_cache_retention",
  "service_tier",
  "metadata",
  "safety_identifier",
  "user",
  "top_logprobs",
  "max_tool_calls",
  "truncation",
  "prompt",
  "context_management",
  "text",
  "reasoning",
]);

export interface ResponsesPlan {
  json: JsonOutput;
}

export interface ResponsesRequestOut {
  body: wire.ResponsesRequest;
  plan: ResponsesPlan;
}

const refuse = (field: string, what: string) => unsupported(VENDOR, field, what);
const ownOf = (x: { vendorExtras: Record<string, JsonObject> }): JsonObject | undefined => x.vendorExtras[VENDOR];
const isObject = (v: JsonValue | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** A call id the Responses API takes (OpenAI's and Anthropic's pass as they are). */
export const responsesCallId = (id: string): string => safeToolId(id, "call_");

/** The whole Responses item a part carries (no kind, or a web search call OpenAI made). */
export function wholeItem(p: Part): JsonObject | undefined {
  if (p.kind.case !== undefined && p.kind.case !== "webSearchCall") return undefined;
  const x = ownOf(p);
  return x && isWholeBlock(x) && isResponsesItem(x) ? x : undefined;
}

// ---------------------------------------------------------------- content

function mediaContent(m: Media, own: JsonObject | undefined, field: string): wire.InputContent {
  const mime = m.mimeType.toLowerCase();
  if (IMAGE_TYPES.has(mime) || (m.source.case === "uri" && (!mime || mime.startsWith("image/")))) {
    const detail = isObject(own?.image_url) && typeof own.image_url.detail === "string" ? own.image_url.detail : "auto";
    return { type: "input_image", image_url: mediaDataUrl(m), detail };
  }
  if (mime === "application/pdf") {
    if (m.source.case === "uri") return { type: "input_file", file_url: m.source.value };
    return { type: "input_file", filename: m.name || "document.pdf", file_data: mediaDataUrl(m) };
  }
  if (mime.startsWith("text/") && m.source.case === "data") return { type: "input_text", text: (m.name ? `${m.name}:\n` : "") + mediaText(m) };
  throw refuse(`${field}.media`, `${m.mimeType || "untyped"} media`);
}

function codeText(p: Part): string | undefined {
  const k = p.kind;
  if (k.case === "executableCode") return "```" + (k.value.language || "python").toLowerCase() + "\n" + k.value.code + "\n```";
  if (k.case === "codeExecutionResult") return "Code execution output:\n```\n" + k.value.output + "\n```";
  return undefined;
}

/** A user or system part as input content; nothing for parts this wire has no content for. */
function inputContent(p: Part, field: string): wire.InputContent[] {
  const k = p.kind;
  if (k.case === "text") return k.value.text ? [{ type: "input_text", text: k.value.text }] : [];
  if (k.case === "media") return [mediaContent(k.value, ownOf(p), field)];
  const code = codeText(p);
  return code ? [{ type: "input_text", text: code }] : [];
}

function toolOutput(p: Part, field: string): string | wire.InputContent[] {
  if (p.kind.case !== "toolResult") throw new Error("not a tool result");
  const r = p.kind.value;
  let text = toolResultText(r.content);
  if (!text && r.structured) text = JSON.stringify(r.structured);
  if (r.isError) text = `Error: ${text}`;
  const media = r.content.flatMap((c, ci) => (c.kind.case === "media" ? [mediaContent(c.kind.value, ownOf(c), `${field}.tool_result.content[${ci}]`)] : []));
  // Images and files a tool returned go inside its output (Responses takes content parts there).
  return media.length ? [...(text ? [{ type: "input_text" as const, text }] : []), ...media] : text;
}

// ---------------------------------------------------------------- turns

function userItems(parts: Part[], ti: number, custom: ReadonlySet<string>): wire.InputItem[] {
  const out: wire.InputItem[] = [];
  let content: wire.InputContent[] = [];
  const flush = () => {
    if (content.length) out.push({ type: "message", role: "user", content });
    content = [];
  };
  parts.forEach((p, pi) => {
    const field = `turns[${ti}].parts[${pi}]`;
    const whole = wholeItem(p);
    if (whole) {
      flush();
      out.push(whole as wire.InputItem);
    } else if (p.kind.case === "toolResult") {
      flush();
      const call_id = responsesCallId(p.kind.value.callId);
      const output = toolOutput(p, field);
      out.push(custom.has(p.kind.value.callId) ? { type: "custom_tool_call_output", call_id, output } : { type: "function_call_output", call_id, output });
    } else content.push(...inputContent(p, field));
  });
  flush();
  return out;
}

/** A thinking part OpenAI signed: its reasoning item (the summary it showed, the encrypted reasoning). */
function reasoningItem(p: Part): wire.InputItem | undefined {
  const sig = p.signature;
  if (p.kind.case !== "thinking" || sig?.issuer !== VENDOR || !sig.value) return undefined;
  const text = p.kind.value.text;
  return { type: "reasoning", summary: text ? [{ type: "summary_text", text }] : [], encrypted_content: sig.value };
}

function assistantItems(parts: Part[], ti: number): wire.InputItem[] {
  const out: wire.InputItem[] = [];
  let content: wire.OutputContent[] = [];
  const flush = () => {
    if (content.length) out.push({ type: "message", role: "assistant", content });
    content = [];
  };
  parts.forEach((p, pi) => {
    const k = p.kind;
    const x = ownOf(p);
    const whole = wholeItem(p);
    if (whole) {
      flush();
      out.push(whole as wire.InputItem);
    } else if (k.case === "text") {
      // A refusal OpenAI gave comes back as one; another vendor's stand-in block is its text.
      if (x?.type === "refusal" && typeof x.refusal === "string") content.push({ type: "refusal", refusal: x.refusal });
      else if (k.value.text) content.push({ type: "output_text", text: k.value.text, annotations: [] });
    } else if (k.case === "toolCall") {
      flush();
      const call_id = responsesCallId(k.value.id);
      if (k.value.input !== undefined) out.push({ type: "custom_tool_call", call_id, name: k.value.name, input: k.value.input });
      else {
        // Arguments that are no JSON object, as the client sent them (Chat's shape of the extras).
        const raw = isObject(x?.function) && typeof x.function.arguments === "string" ? x.function.arguments : undefined;
        out.push({ type: "function_call", call_id, name: k.value.name, arguments: raw ?? JSON.stringify(k.value.arguments ?? {}) });
      }
    } else if (k.case === "thinking") {
      const r = reasoningItem(p);
      if (r) {
        flush();
        out.push(r);
      }
    } else if (k.case === "media") throw refuse(`turns[${ti}].parts[${pi}].media`, "media in an assistant turn");
    else {
      const code = codeText(p);
      if (code) content.push({ type: "output_text", text: code, annotations: [] });
    }
  });
  flush();
  return out;
}

function systemItem(parts: Part[], ti: number, own: JsonObject | undefined): wire.InputItem | undefined {
  const content = parts.flatMap((p, pi) => {
    if (p.kind.case === "media") throw refuse(`turns[${ti}].parts[${pi}].media`, "media in a system message");
    return inputContent(p, `turns[${ti}].parts[${pi}]`);
  });
  if (!content.length) return undefined;
  return { type: "message", role: own?.role === "developer" ? "developer" : "system", content };
}

/** Ids of the custom tools' calls in the conversation: their results are custom_tool_call_output items. */
function customCallIds(input: ChatInput): Set<string> {
  const out = new Set<string>();
  for (const t of input.turns) for (const p of t.parts) if (p.kind.case === "toolCall" && p.kind.value.input !== undefined) out.add(p.kind.value.id);
  return out;
}

// ---------------------------------------------------------------- tools

/** The neutral web search as Responses' web_search tool (its use limit has no place here: left out). */
export function webSearchTool(w: WebSearchTool): wire.Tool {
  const t: Record<string, unknown> = { type: "web_search" };
  if (w.allowedDomains.length) t.filters = { allowed_domains: w.allowedDomains };
  const location = approximateLocation(w.userLocation);
  if (location) t.user_location = location;
  if (w.contextSize) t.search_context_size = w.contextSize;
  return t as wire.Tool;
}

/** A tool's own fields from Chat-shaped extras (`{function: {strict}}`), made flat. */
function ownToolFields(own: JsonObject | undefined, key: string): JsonObject | undefined {
  const nested = own?.[key];
  return isObject(nested) ? nested : undefined;
}

function toTool(t: Tool, i: number): wire.Tool {
  const k = t.kind;
  if (k.case === "function") {
    const f = k.value;
    // Responses makes function tools strict unless told otherwise, and strict refuses most schemas: false unless the client said.
    const tool: Record<string, unknown> = {
      type: "function",
      name: f.name,
      ...(f.description ? { description: f.description } : {}),
      parameters: f.parameters ?? { type: "object", properties: {} },
      strict: false,
    };
    const own = ownToolFields(ownOf(t), "function");
    if (own) overlayFields(tool, own);
    return tool as wire.Tool;
  }
  if (k.case === "custom") {
    const c = k.value;
    const tool: Record<string, unknown> = { type: "custom", name: c.name, ...(c.description ? { description: c.description } : {}), ...(c.format ? { format: c.format } : {}) };
    const own = ownToolFields(ownOf(t), "custom");
    if (own) overlayFields(tool, own);
    return tool as wire.Tool;
  }
  if (k.case === "webSearch") return webSearchTool(k.value);
  if (k.case === "vendor" && (k.value.vendor === VENDOR || (!k.value.vendor && RESPONSES_TOOL_TYPES.has(k.value.type)))) return { ...(k.value.config ?? {}), type: k.value.type };
  if (k.case === "codeExecution") throw refuse(`tools[${i}].code_execution`, "the code execution tool");
  if (k.case === "vendor") throw refuse(`tools[${i}]`, `the ${k.value.type} tool`);
  throw refuse(`tools[${i}]`, "an empty tool");
}

/** The tool an allowed name chooses, as Responses names tools in tool_choice. */
function chosenTool(input: ChatInput, name: string): Record<string, unknown> {
  if (name === WEB_SEARCH_NAME && hasWebSearch(input)) return { type: "web_search" };
  const custom = input.tools.some((t) => t.kind.case === "custom" && t.kind.value.name === name);
  return { type: custom ? "custom" : "function", name };
}

function toolChoice(input: ChatInput): wire.ToolChoice | undefined {
  const tc = input.toolChoice;
  if (!tc) return undefined;
  if (tc.mode === ToolChoiceMode.NONE) return "none";
  if (tc.mode === ToolChoiceMode.AUTO) return "auto";
  if (tc.mode !== ToolChoiceMode.ANY) return undefined;
  const names = tc.allowedNames;
  if (!names.length) return "required";
  const chosen = names.map((n) => chosenTool(input, n));
  if (chosen.length === 1 && chosen[0]!.type !== "web_search") return chosen[0] as wire.ToolChoice;
  return { type: "allowed_tools", mode: "required", tools: chosen };
}

/** A Chat-shaped choice or tool reference (`{type, <type>: {...}}`) made flat, as Responses has it; recursive for allowed_tools. */
export function flatChoice(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(flatChoice);
  if (!isObject(v) || typeof v.type !== "string") return v;
  const nested = v[v.type];
  if (!isObject(nested)) return v;
  const { [v.type]: _n, ...rest } = v;
  const flat: JsonObject = { ...rest, type: v.type };
  for (const [key, value] of Object.entries(nested)) flat[key] = key === "tools" ? flatChoice(value) : value;
  return flat;
}

// ---------------------------------------------------------------- settings

function checkUnsupported(input: ChatInput): void {
  const bad = enforceableSafetyIndex(input.safetySettings, PASSABLE_SAFETY);
  if (bad >= 0) throw refuse(`safety_settings[${bad}]`, "a blocking safety threshold");
  const c = input.config;
  if (c) {
    if (c.enableEnhancedCivicAnswers) throw refuse("config.enable_enhanced_civic_answers", "enhanced civic answers");
    if (c.responseModalities.some((m) => m !== Modality.TEXT && m !== Modality.UNSPECIFIED)) throw refuse("config.response_modalities", "non-text output");
    if (c.speechConfig) throw refuse("config.speech_config", "speech output");
    if (c.topK !== undefined) throw refuse("config.top_k", "top_k");
    if (c.stopSequences.length) throw refuse("config.stop_sequences", "stop sequences");
    if (c.seed !== undefined) throw refuse("config.seed", "a seed");
    if (c.presencePenalty !== undefined) throw refuse("config.presence_penalty", "a presence penalty");
    if (c.frequencyPenalty !== undefined) throw refuse("config.frequency_penalty", "a frequency penalty");
    if (c.candidateCount !== undefined && c.candidateCount > 1) throw refuse("config.candidate_count", "several candidates");
  }
  if (input.vendorExtras[VENDOR]?.logit_bias !== undefined) throw refuse("logit_bias", "logit_bias");
  input.system.forEach((p, i) => {
    if (p.kind.case === "media") throw refuse(`system[${i}].media`, "media in the system instruction");
  });
  refuseForeignExtras(input.vendorExtras, VENDOR, [RESPONSES_EXTRAS]);
}

/** The reasoning setting: an explicit effort ("max" is Responses' "xhigh"), and a summary when the client shows thoughts. */
function reasoningOf(input: ChatInput): wire.ResponsesRequest["reasoning"] {
  const th = input.config?.thinking;
  if (!th || th.enabled === false) return undefined;
  const r: { effort?: string; summary?: string } = {};
  if (th.effort) r.effort = th.effort === "max" ? "xhigh" : th.effort;
  if (th.includeThoughts) r.summary = "auto";
  return Object.keys(r).length ? r : undefined;
}

/** A Chat-shaped vendor_extras.openai laid over the body: the fields Responses has, in its shape. */
function overlayExtras(body: wire.ResponsesRequest, x: JsonObject, stream: boolean, hasTools: boolean): void {
  const passed: JsonObject = {};
  for (const k of Object.keys(x)) if (PASSED_FIELDS.has(k)) passed[k] = x[k]!;
  if (stream && isObject(x.stream_options)) passed.stream_options = x.stream_options;
  if (typeof x.reasoning_effort === "string") passed.reasoning = { ...(isObject(passed.reasoning) ? passed.reasoning : {}), effort: x.reasoning_effort };
  if (typeof x.verbosity === "string") passed.text = { ...(isObject(passed.text) ? passed.text : {}), verbosity: x.verbosity };
  // A json_schema's name, description and strictness (Chat nests them under json_schema).
  const rf = x.response_format;
  if (isObject(rf) && rf.type === "json_schema" && isObject(rf.json_schema) && body.text?.format?.type === "json_schema") {
    const { schema: _s, ...fields } = rf.json_schema;
    passed.text = { ...(isObject(passed.text) ? passed.text : {}), format: fields };
  }
  overlayFields(body, passed);
  const include = x.include;
  if (Array.isArray(include)) for (const v of include) if (typeof v === "string" && !body.include.includes(v)) body.include.push(v);
  if (x.tool_choice !== undefined && hasTools) body.tool_choice = flatChoice(x.tool_choice) as wire.ToolChoice;
}

/** Fields the gateway sets itself whatever a client sent: what it asks for, how, and that nothing is stored upstream. */
const OWN_FIELDS = new Set(["model", "input", "store", "stream", "include"]);

/** A Responses client's unread fields laid over the body, as sent; its include values added to the gateway's. */
function overlaySent(body: wire.ResponsesRequest, sent: JsonObject): void {
  const rest: JsonObject = {};
  for (const k of Object.keys(sent)) if (!OWN_FIELDS.has(k)) rest[k] = sent[k]!;
  overlayFields(body, rest);
  if (Array.isArray(sent.include)) for (const v of sent.include) if (typeof v === "string" && !body.include.includes(v)) body.include.push(v);
}

export function toVendorRequest(input: ChatInput, upstreamModel: string, opts: { stream: boolean }): ResponsesRequestOut {
  checkUnsupported(input);
  const c = input.config;
  const json = jsonOutputOf(c);
  const instructions = input.system.flatMap((p) => (p.kind.case === "text" && p.kind.value.text ? [p.kind.value.text] : []));
  // json_object wants the word JSON in the input (OpenAI clients wrote it themselves).
  if (json.kind === "any" && !OPENAI_FORMATS.has(input.metadata?.sourceFormat ?? "")) instructions.push("Respond with a valid JSON object.");
  const custom = customCallIds(input);
  const items: wire.InputItem[] = [];
  input.turns.forEach((t, ti) => {
    if (t.role === Role.ASSISTANT) items.push(...assistantItems(t.parts, ti));
    else if (t.role === Role.SYSTEM) {
      const m = systemItem(t.parts, ti, ownOf(t));
      if (m) items.push(m);
    } else items.push(...userItems(t.parts, ti, custom));
  });
  const body: wire.ResponsesRequest = { model: upstreamModel, input: items, store: false, include: [ENCRYPTED] };
  if (instructions.length) body.instructions = instructions.join("\n\n");
  // Emulated: the Responses API takes no fewer than 16 (a client's 1-token probe would be a 400).
  if (c?.maxOutputTokens !== undefined) body.max_output_tokens = Math.max(MIN_OUTPUT_TOKENS, c.maxOutputTokens);
  if (c?.temperature !== undefined) body.temperature = c.temperature;
  if (c?.topP !== undefined) body.top_p = c.topP;
  if (c?.responseLogprobs) {
    body.include.push(LOGPROBS);
    if (c.logprobs !== undefined) body.top_logprobs = c.logprobs;
  }
  const reasoning = reasoningOf(input);
  if (reasoning) body.reasoning = reasoning;
  const tools = input.tools.map(toTool);
  if (tools.length) {
    body.tools = tools;
    const choice = toolChoice(input);
    if (choice !== undefined) body.tool_choice = choice;
    if (input.toolChoice?.disableParallel) body.parallel_tool_calls = false;
  }
  if (hasWebSearch(input)) body.include.push(SEARCH_SOURCES);
  if (json.kind === "any") body.text = { format: { type: "json_object" } };
  if (json.kind === "schema") body.text = { format: { type: "json_schema", name: "response", schema: json.schema, strict: false } };
  if (input.metadata?.userId) body.user = input.metadata.userId;
  if (input.metadata?.affinityKey) body.prompt_cache_key = input.metadata.affinityKey;
  if (opts.stream) body.stream = true;
  const x = ownOf(input);
  if (x) overlayExtras(body, x, opts.stream, tools.length > 0);
  const sent = input.vendorExtras[RESPONSES_EXTRAS];
  if (sent) overlaySent(body, sent);
  return { body, plan: { json } };
}

/** The input_tokens request: the same input, tools and settings, none of the sampling or output fields. */
export function toVendorCountRequest(input: ChatInput, upstreamModel: string): wire.InputTokensRequest {
  const { body } = toVendorRequest(input, upstreamModel, { stream: false });
  const out: wire.InputTokensRequest = { model: body.model, input: body.input };
  for (const k of ["instructions", "tools", "tool_choice", "parallel_tool_calls", "text", "reasoning"] as const) if (body[k] !== undefined) (out as Record<string, unknown>)[k] = body[k];
  return out;
}
