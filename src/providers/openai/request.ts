// Neutral ChatInput -> OpenAI Chat Completions request. Pure.
//
// OpenAI-compatible servers carry no signatures: thinking and redacted thinking
// are not sent (dropped on purpose), code another vendor ran is shown as text,
// and features Chat Completions lacks are refused with the neutral field path.
// `official` is true for api.openai.com, which wants max_completion_tokens and
// rejects top_k; compatible servers take max_tokens and top_k.
import { createHash } from "node:crypto";
import { HarmBlockThreshold, Modality, Role, ToolChoiceMode, type ChatInput, type Part, type Tool } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { jsonOutputOf, type JsonOutput } from "../shared/json-output.js";
import { enforceableSafetyIndex, IMAGE_TYPES, mediaBase64, mediaDataUrl, mediaText, refuseForeignExtras, toolResultText } from "../shared/parts.js";
import { unsupported } from "../shared/http-errors.js";
import type * as wire from "./wire.js";

export const VENDOR = "openai";
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

function userContent(p: Part, field: string): wire.ContentPart[] {
  const k = p.kind;
  if (k.case === "text") return k.value.text ? [{ type: "text", text: k.value.text }] : [];
  if (k.case !== "media") return [];
  const m = k.value;
  const mime = m.mimeType.toLowerCase();
  if (IMAGE_TYPES.has(mime) || (m.source.case === "uri" && mime.startsWith("image/"))) return [{ type: "image_url", image_url: { url: mediaDataUrl(m) } }];
  if (AUDIO[mime] && m.source.case === "data") return [{ type: "input_audio", input_audio: { data: mediaBase64(m), format: AUDIO[mime]! } }];
  if (mime === "application/pdf" && m.source.case === "data") return [{ type: "file", file: { file_data: mediaDataUrl(m), filename: m.name || "document.pdf" } }];
  if (mime === "text/plain" && m.source.case === "data") return [{ type: "text", text: (m.name ? `${m.name}:\n` : "") + mediaText(m) }];
  throw refuse(`${field}.media`, `${m.mimeType || "untyped"} media`);
}

function codeText(p: Part): string | undefined {
  const k = p.kind;
  if (k.case === "executableCode") return "```" + (k.value.language || "python").toLowerCase() + "\n" + k.value.code + "\n```";
  if (k.case === "codeExecutionResult") return "Code execution output:\n```\n" + k.value.output + "\n```";
  return undefined;
}

function userMessages(parts: Part[], ti: number): wire.Message[] {
  const tools: wire.Message[] = [];
  const content: wire.ContentPart[] = [];
  parts.forEach((p, pi) => {
    const field = `turns[${ti}].parts[${pi}]`;
    const k = p.kind;
    if (k.case === "toolResult") {
      const r = k.value;
      let text = toolResultText(r.content);
      if (!text && r.structured) text = JSON.stringify(r.structured);
      tools.push({ role: "tool", tool_call_id: openaiToolId(r.callId), content: r.isError ? `Error: ${text}` : text });
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
  if (content.length) out.push({ role: "user", content: content.length === 1 && content[0]!.type === "text" ? content[0]!.text : content });
  return out;
}

function assistantMessage(parts: Part[], ti: number): wire.Message | undefined {
  const texts: string[] = [];
  const calls: wire.ToolCall[] = [];
  parts.forEach((p, pi) => {
    const k = p.kind;
    if (k.case === "text") texts.push(k.value.text);
    else if (k.case === "toolCall") calls.push({ id: openaiToolId(k.value.id), type: "function", function: { name: k.value.name, arguments: JSON.stringify(k.value.arguments ?? {}) } });
    else if (k.case === "media") throw refuse(`turns[${ti}].parts[${pi}].media`, "media in an assistant turn");
    else {
      const code = codeText(p);
      if (code) texts.push(code);
    }
  });
  const text = texts.join("");
  if (!text && !calls.length) return undefined;
  return { role: "assistant", content: text || null, ...(calls.length ? { tool_calls: calls } : {}) };
}

/** A system turn (a system message in the middle of the conversation): a system message at its place. */
function systemMessage(parts: Part[], ti: number): wire.Message | undefined {
  const texts: string[] = [];
  parts.forEach((p, pi) => {
    const k = p.kind;
    if (k.case === "text") {
      if (k.value.text) texts.push(k.value.text);
    } else if (k.case === "media") throw refuse(`turns[${ti}].parts[${pi}].media`, "media in a system message");
  });
  return texts.length ? { role: "system", content: texts.join("\n\n") } : undefined;
}

function toTool(t: Tool, i: number): wire.Tool {
  const k = t.kind;
  if (k.case === "function") {
    return {
      type: "function",
      function: { name: k.value.name, ...(k.value.description ? { description: k.value.description } : {}), parameters: k.value.parameters ?? { type: "object", properties: {} } },
    };
  }
  if (k.case === "codeExecution") throw refuse(`tools[${i}].code_execution`, "the code execution tool");
  if (k.case === "vendor") throw refuse(`tools[${i}]`, `the ${k.value.type} tool`);
  throw refuse(`tools[${i}]`, "an empty tool");
}

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
  const messages: wire.Message[] = [];
  const system = input.system.flatMap((p) => (p.kind.case === "text" && p.kind.value.text ? [p.kind.value.text] : []));
  // json_object mode requires the word "JSON" in the messages.
  if (json.kind === "any") system.push("Respond with a valid JSON object.");
  if (system.length) messages.push({ role: "system", content: system.join("\n\n") });
  input.turns.forEach((t, ti) => {
    if (t.role === Role.ASSISTANT || t.role === Role.SYSTEM) {
      const m = t.role === Role.ASSISTANT ? assistantMessage(t.parts, ti) : systemMessage(t.parts, ti);
      if (m) messages.push(m);
    } else messages.push(...userMessages(t.parts, ti));
  });
  const ve = input.vendorExtras[VENDOR];
  const body: wire.ChatRequest = ve ? { ...ve, model: upstreamModel, messages } : { model: upstreamModel, messages };
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
  let tools = input.tools.map(toTool);
  const tc = input.toolChoice;
  if (tools.length && tc) {
    if (tc.mode === ToolChoiceMode.NONE) body.tool_choice = "none";
    else if (tc.mode === ToolChoiceMode.AUTO) body.tool_choice = "auto";
    else if (tc.mode === ToolChoiceMode.ANY) {
      if (tc.allowedNames.length === 1) body.tool_choice = { type: "function", function: { name: tc.allowedNames[0]! } };
      else {
        // Emulated: "one of these tools" = required, among only those.
        if (tc.allowedNames.length) tools = tools.filter((x) => tc.allowedNames.includes(x.function.name));
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
  return { body, plan: { json } };
}
