// Neutral ChatInput -> OpenAI Chat Completions request. Pure.
//
// OpenAI-compatible servers carry no signatures: thinking and redacted thinking
// are not sent (dropped on purpose), code another vendor ran is shown as text,
// and features Chat Completions lacks are refused with the neutral field path.
// `official` is true for api.openai.com, which wants max_completion_tokens and
// rejects top_k; compatible servers take max_tokens and top_k.
// Custom tools (free-text input) and their calls are native here. Chat
// Completions has no search tool: a declared web search is left out (a Chat
// Completions client's web_search_options still go as sent), and a tool
// choice that forces it is refused.
// What a Chat Completions client sent that the neutral model does not carry
// (vendor_extras.openai on the input, its turns, parts and tools; content
// parts, tool calls and tools of types the gateway does not know, whole) is
// put back as it was sent.
import { createHash } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import { HarmBlockThreshold, Modality, Role, ToolChoiceMode, type ChatInput, type Part, type Tool } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { HOSTED_TOOLS, isResponsesItem } from "../../wire/openai/hosted.js";
import { isWholeBlock, overlayFields } from "../../core/json-fields.js";
import { jsonOutputOf, type JsonOutput } from "../shared/json-output.js";
import { enforceableSafetyIndex, IMAGE_TYPES, mediaBase64, mediaDataUrl, mediaText, refuseForeignExtras, toolResultText } from "../shared/parts.js";
import { unsupported } from "../shared/http-errors.js";
import { forcesWebSearch, hasWebSearch, WEB_SEARCH_NAME } from "../../core/chat/web-search.js";
import type * as wire from "./wire.js";

export const VENDOR = "openai";
/** The source format of Chat Completions clients (the facade of this very wire). */
const CHAT_COMPLETIONS = "openai-chat";
const AUDIO: Record<string, string> = { "audio/wav": "wav", "audio/x-wav": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3" };

export interface OpenAIPlan {
  json: JsonOutput;
}

export interface OpenAIRequestOut {
  body: wire.ChatRequest;
  plan: OpenAIPlan;
}

const refuse = (field: string, what: string) => unsupported(VENDOR, field, what);
/** Safety thresholds that ask for nothing another vendor would have to add. */
const PASSABLE_SAFETY = [HarmBlockThreshold.UNSPECIFIED, HarmBlockThreshold.BLOCK_NONE, HarmBlockThreshold.OFF];

/** A tool-call id OpenAI accepts (at most 40 characters); the same id always maps the same way. */
export function openaiToolId(id: string): string {
  if (/^[A-Za-z0-9_-]{1,40}$/.test(id)) return id;
  return "call_" + createHash("sha256").update(id).digest("base64url").slice(0, 24).replace(/-/g, "_");
}

/** OpenAI's own fields on a part, turn or tool: a whole block (with a "type"), or fields beside the neutral kind. */
const ownOf = (x: { vendorExtras: Record<string, JsonObject> }): JsonObject | undefined => x.vendorExtras[VENDOR];

/** `built` with the client's own fields laid over it (they came with this very part, message or tool). */
function withOwn<T extends object>(built: T, own: JsonObject | undefined): T {
  if (own) overlayFields(built as Record<string, unknown>, own);
  return built;
}

/** A whole tool call a Chat Completions client sent (of a newer type): a part with no kind whose block has an id. */
const wholeToolCall = (p: Part): JsonObject | undefined => {
  const x = p.kind.case === undefined ? ownOf(p) : undefined;
  return x && isWholeBlock(x) && typeof x.id === "string" && !isResponsesItem(x) ? x : undefined;
};

function mediaContent(p: Part, field: string): wire.ContentPart {
  if (p.kind.case !== "media") throw new Error("not media");
  const m = p.kind.value;
  const mime = m.mimeType.toLowerCase();
  // An image by URL may come without a type (a Messages url source, a Chat Completions https image_url).
  if (IMAGE_TYPES.has(mime) || (m.source.case === "uri" && (!mime || mime.startsWith("image/")))) return { type: "image_url", image_url: { url: mediaDataUrl(m) } };
  if (mime.startsWith("audio/") && m.source.case === "data") return { type: "input_audio", input_audio: { data: mediaBase64(m), format: AUDIO[mime] ?? mime.slice(6) } };
  if (mime === "application/pdf" && m.source.case === "data") return { type: "file", file: { file_data: mediaDataUrl(m), filename: m.name || "document.pdf" } };
  if (mime === "text/plain" && m.source.case === "data") return { type: "text", text: (m.name ? `${m.name}:\n` : "") + mediaText(m) };
  throw refuse(`${field}.media`, `${m.mimeType || "untyped"} media`);
}

function userContent(p: Part, field: string): wire.ContentPart[] {
  const k = p.kind;
  const own = ownOf(p);
  // A content part the gateway does not know (or stands in for), as the client sent it.
  // A hosted tool's Responses item has no form here.
  if (own && isWholeBlock(own)) return (k.case === undefined || k.case === "text") && !isResponsesItem(own) ? [own as wire.ContentPart] : [];
  if (k.case === "text") return k.value.text || own ? [withOwn({ type: "text", text: k.value.text }, own)] : [];
  if (k.case !== "media") return [];
  return [withOwn(mediaContent(p, field), own)];
}

/** Content that is one plain text part is sent as a string. */
const contentValue = (content: wire.ContentPart[]): string | wire.ContentPart[] =>
  content.length === 1 && content[0]!.type === "text" && Object.keys(content[0]!).length === 2 ? content[0]!.text : content;

function codeText(p: Part): string | undefined {
  const k = p.kind;
  if (k.case === "executableCode") return "```" + (k.value.language || "python").toLowerCase() + "\n" + k.value.code + "\n```";
  if (k.case === "codeExecutionResult") return "Code execution output:\n```\n" + k.value.output + "\n```";
  return undefined;
}

function userMessages(parts: Part[], ti: number, own: JsonObject | undefined): wire.Message[] {
  const tools: wire.Message[] = [];
  const content: wire.ContentPart[] = [];
  parts.forEach((p, pi) => {
    const field = `turns[${ti}].parts[${pi}]`;
    const k = p.kind;
    if (k.case === "toolResult") {
      const r = k.value;
      let text = toolResultText(r.content);
      if (!text && r.structured) text = JSON.stringify(r.structured);
      tools.push(withOwn({ role: "tool", tool_call_id: openaiToolId(r.callId), content: r.isError ? `Error: ${text}` : text }, ownOf(p)));
      // Emulated: media a tool returned follows as user content (tool messages carry text only).
      r.content.forEach((c, ci) => {
        if (c.kind.case === "media") content.push({ type: "text", text: `(returned by tool ${r.name || r.callId})` }, ...userContent(c, `${field}.tool_result.content[${ci}]`));
      });
      return;
    }
    const code = codeText(p);
    if (code) content.push({ type: "text", text: code });
    else content.push(...userContent(p, field));
  });
  const out = [...tools];
  if (content.length) out.push(withOwn({ role: "user", content: contentValue(content) }, own));
  return out;
}

function assistantMessage(parts: Part[], ti: number, own: JsonObject | undefined): wire.Message | undefined {
  const content: wire.ContentPart[] = [];
  const calls: wire.ToolCall[] = [];
  // Plain text is sent as a string; a part the client sent with fields of its own (a refusal, a newer part) makes it a list.
  let plain = true;
  parts.forEach((p, pi) => {
    const k = p.kind;
    const x = ownOf(p);
    const whole = wholeToolCall(p);
    if (whole) calls.push(whole as unknown as wire.ToolCall);
    else if (k.case === "text") {
      if (x) plain = false;
      content.push(x && isWholeBlock(x) ? (x as wire.ContentPart) : withOwn({ type: "text", text: k.value.text }, x));
    } else if (k.case === "toolCall" && k.value.input !== undefined) {
      calls.push(withOwn({ id: openaiToolId(k.value.id), type: "custom", custom: { name: k.value.name, input: k.value.input } }, x));
    } else if (k.case === "toolCall") {
      calls.push(withOwn({ id: openaiToolId(k.value.id), type: "function", function: { name: k.value.name, arguments: JSON.stringify(k.value.arguments ?? {}) } }, x));
    } else if (k.case === "media") throw refuse(`turns[${ti}].parts[${pi}].media`, "media in an assistant turn");
    else if (k.case === undefined && x && isWholeBlock(x) && !isResponsesItem(x)) {
      plain = false;
      content.push(x as wire.ContentPart);
    } else {
      const code = codeText(p);
      if (code) content.push({ type: "text", text: code });
    }
  });
  const text = plain ? content.map((c) => (c as { text: string }).text).join("") : "";
  if (!text && !calls.length && (plain || !content.length) && !own) return undefined;
  const m: wire.Message = { role: "assistant", content: plain ? text || null : content, ...(calls.length ? { tool_calls: calls } : {}) };
  return withOwn(m, own);
}

/**
 * A system turn (a system message in the middle of the conversation): a system
 * message at its place. A Chat Completions client's own message fields (a
 * developer role, a name) and parts with fields of their own come back as sent.
 */
function systemMessage(parts: Part[], ti: number, own: JsonObject | undefined): wire.Message | undefined {
  const texts: string[] = [];
  const content: wire.ContentPart[] = [];
  parts.forEach((p, pi) => {
    const k = p.kind;
    const x = ownOf(p);
    if (k.case === "text") {
      if (k.value.text) texts.push(k.value.text);
      if (x && !isWholeBlock(x)) content.push(withOwn({ type: "text", text: k.value.text }, x));
      else if (k.value.text) content.push({ type: "text", text: k.value.text });
    } else if (k.case === "media") throw refuse(`turns[${ti}].parts[${pi}].media`, "media in a system message");
    else if (k.case === undefined && x && isWholeBlock(x)) content.push(x as wire.ContentPart);
  });
  if (!content.length && !own) return undefined;
  const plain = content.every((c) => c.type === "text" && Object.keys(c).length === 2);
  return withOwn({ role: "system", content: plain ? texts.join("\n\n") : content }, own) as wire.Message;
}

/**
 * The system instruction as system messages: one, its texts joined by a blank
 * line, unless a Chat Completions client sent it as several (its first part of
 * each carries the message's own fields, `message`: a developer role, a name).
 */
function systemMessages(parts: Part[], extra: string[]): wire.Message[] {
  const out: wire.Message[] = [];
  let texts: string[] = [];
  let content: wire.ContentPart[] = [];
  let fields: JsonObject | undefined;
  const flush = () => {
    if (!content.length && !fields) return;
    const plain = content.every((c) => c.type === "text" && Object.keys(c).length === 2);
    out.push(withOwn({ role: "system", content: plain ? texts.join("\n\n") : content }, fields) as wire.Message);
    texts = [];
    content = [];
    fields = undefined;
  };
  for (const p of parts) {
    const x = ownOf(p);
    const message = x && !isWholeBlock(x) ? (x.message as JsonObject | undefined) : undefined;
    if (message) {
      flush();
      fields = message;
    }
    if (p.kind.case === "text") {
      const t = p.kind.value.text;
      let own: JsonObject | undefined;
      if (x && !isWholeBlock(x)) {
        const { message: _m, ...rest } = x;
        if (Object.keys(rest).length) own = rest;
      }
      if (t) texts.push(t);
      if (own) content.push(withOwn({ type: "text", text: t }, own));
      else if (t) content.push({ type: "text", text: t });
    } else if (p.kind.case === undefined && x && isWholeBlock(x)) content.push(x as wire.ContentPart);
  }
  for (const t of extra) {
    texts.push(t);
    content.push({ type: "text", text: t });
  }
  flush();
  return out;
}

/** A neutral custom tool format as Chat Completions has it: a grammar's syntax and definition nested under `grammar`. */
function customFormat(f: JsonObject): Record<string, unknown> {
  if (f.type !== "grammar") return f;
  const { type, ...grammar } = f;
  return { type, grammar };
}

function toTool(t: Tool, i: number): wire.Tool {
  const k = t.kind;
  if (k.case === "function") {
    const tool: wire.Tool = {
      type: "function",
      function: { name: k.value.name, ...(k.value.description ? { description: k.value.description } : {}), parameters: k.value.parameters ?? { type: "object", properties: {} } },
    };
    // A Chat Completions client's own fields of the tool (strict, newer ones).
    return withOwn(tool, ownOf(t));
  }
  if (k.case === "custom") {
    const c = k.value;
    const tool: wire.Tool = {
      type: "custom",
      custom: { name: c.name, ...(c.description ? { description: c.description } : {}), ...(c.format ? { format: customFormat(c.format) } : {}) },
    };
    return withOwn(tool, ownOf(t));
  }
  if (k.case === "codeExecution") throw refuse(`tools[${i}].code_execution`, "the code execution tool");
  // A Chat Completions client's tool of a type the gateway does not know: as it was sent.
  // OpenAI's hosted tools run on the Responses API only (an api: responses channel).
  if (k.case === "vendor" && k.value.vendor === VENDOR && HOSTED_TOOLS.has(k.value.type)) throw refuse(`tools[${i}]`, `the ${k.value.type} tool`);
  if (k.case === "vendor" && k.value.vendor === VENDOR) return { ...(k.value.config ?? {}), type: k.value.type } as unknown as wire.Tool;
  if (k.case === "vendor") throw refuse(`tools[${i}]`, `the ${k.value.type} tool`);
  throw refuse(`tools[${i}]`, "an empty tool");
}

/** The name a tool is chosen by (a custom tool has it under `custom`). */
const toolName = (t: wire.Tool): string | undefined => (t as unknown as Record<string, { name?: string } | undefined>)[t.type]?.name;

function checkUnsupported(input: ChatInput, official: boolean): void {
  const bad = enforceableSafetyIndex(input.safetySettings, PASSABLE_SAFETY);
  if (bad >= 0) throw refuse(`safety_settings[${bad}]`, "a blocking safety threshold");
  const c = input.config;
  if (c) {
    if (c.enableEnhancedCivicAnswers) throw refuse("config.enable_enhanced_civic_answers", "enhanced civic answers");
    if (c.responseModalities.some((m) => m !== Modality.TEXT && m !== Modality.UNSPECIFIED)) throw refuse("config.response_modalities", "non-text output");
    if (c.speechConfig) throw refuse("config.speech_config", "speech output");
    if (official && c.topK !== undefined) throw refuse("config.top_k", "top_k");
  }
  if (forcesWebSearch(input)) throw refuse("tool_choice", "a tool choice that forces web search");
  refuseForeignExtras(input.vendorExtras, VENDOR);
}

/**
 * An explicit effort as OpenAI's reasoning_effort. Budgets are not turned into
 * efforts: non-reasoning models reject reasoning_effort, and Anthropic clients
 * send a budget whenever thinking is on; reasoning models use their default.
 * api.openai.com takes "xhigh" and "max"; OpenAI-compatible servers commonly
 * stop at "high", so for them the two are clamped to it.
 */
export function reasoningEffort(input: ChatInput, official = false): string | undefined {
  const th = input.config?.thinking;
  if (!th || th.enabled === false || !th.effort) return undefined;
  return !official && (th.effort === "max" || th.effort === "xhigh") ? "high" : th.effort;
}

export function toVendorRequest(input: ChatInput, upstreamModel: string, opts: { stream: boolean; official: boolean }): OpenAIRequestOut {
  checkUnsupported(input, opts.official);
  const c = input.config;
  const json = jsonOutputOf(c);
  // json_object mode requires the word "JSON" in the messages (a Chat Completions client put it there itself).
  const jsonLine = json.kind === "any" && input.metadata?.sourceFormat !== CHAT_COMPLETIONS ? ["Respond with a valid JSON object."] : [];
  const messages: wire.Message[] = systemMessages(input.system, jsonLine);
  input.turns.forEach((t, ti) => {
    const own = ownOf(t);
    if (t.role === Role.ASSISTANT || t.role === Role.SYSTEM) {
      const m = t.role === Role.ASSISTANT ? assistantMessage(t.parts, ti, own) : systemMessage(t.parts, ti, own);
      if (m) messages.push(m);
    } else messages.push(...userMessages(t.parts, ti, own));
  });
  const ve = input.vendorExtras[VENDOR];
  const body: wire.ChatRequest = { model: upstreamModel, messages };
  if (c?.maxOutputTokens !== undefined) body[opts.official ? "max_completion_tokens" : "max_tokens"] = c.maxOutputTokens;
  if (c?.temperature !== undefined) body.temperature = c.temperature;
  if (c?.topP !== undefined) body.top_p = c.topP;
  if (c?.topK !== undefined) body.top_k = c.topK;
  if (c?.stopSequences.length) body.stop = c.stopSequences;
  if (c?.seed !== undefined) body.seed = Number(c.seed);
  if (c?.presencePenalty !== undefined) body.presence_penalty = c.presencePenalty;
  if (c?.frequencyPenalty !== undefined) body.frequency_penalty = c.frequencyPenalty;
  if (c?.candidateCount !== undefined && c.candidateCount > 1) body.n = c.candidateCount;
  if (c?.responseLogprobs) {
    body.logprobs = true;
    if (c.logprobs !== undefined) body.top_logprobs = c.logprobs;
  }
  const effort = reasoningEffort(input, opts.official);
  if (effort) body.reasoning_effort = effort;
  let tools = input.tools.flatMap((t, i) => (t.kind.case === "webSearch" ? [] : [toTool(t, i)]));
  const tc = input.toolChoice;
  // A tool_choice the client sent that the neutral choice cannot say (a custom tool's, allowed_tools, a newer one) goes as sent.
  const sentChoice = ve?.tool_choice;
  if (tools.length && tc && sentChoice !== undefined) {
    if (tc.disableParallel) body.parallel_tool_calls = false;
  } else if (tools.length && tc) {
    if (tc.mode === ToolChoiceMode.NONE) body.tool_choice = "none";
    else if (tc.mode === ToolChoiceMode.AUTO) body.tool_choice = "auto";
    else if (tc.mode === ToolChoiceMode.ANY) {
      // The search, left out, is no tool to choose.
      const allowedNames = hasWebSearch(input) ? tc.allowedNames.filter((n) => n !== WEB_SEARCH_NAME) : tc.allowedNames;
      const one = allowedNames.length === 1 ? allowedNames[0]! : undefined;
      const custom = one !== undefined && input.tools.some((t) => t.kind.case === "custom" && t.kind.value.name === one);
      if (one !== undefined) body.tool_choice = custom ? { type: "custom", custom: { name: one } } : { type: "function", function: { name: one } };
      else {
        // Emulated: "one of these tools" = required, among only those.
        if (allowedNames.length) tools = tools.filter((x) => allowedNames.includes(toolName(x) ?? ""));
        body.tool_choice = "required";
      }
    }
    if (tc.disableParallel) body.parallel_tool_calls = false;
  }
  if (tools.length) body.tools = tools;
  if (json.kind === "any") body.response_format = { type: "json_object" };
  if (json.kind === "schema") body.response_format = { type: "json_schema", json_schema: { name: "response", schema: json.schema, strict: false } };
  if (input.metadata?.userId) body.user = input.metadata.userId;
  if (opts.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  // The client's own fields (unknown ones; values the neutral model could not carry) over the body; its tool_choice replaces ours.
  if (ve) {
    const { tool_choice: choice, ...rest } = ve;
    overlayFields(body, rest);
    if (choice !== undefined && tools.length) body.tool_choice = choice as wire.ToolChoice;
  }
  return { body, plan: { json } };
}
