// Neutral ChatInput -> Anthropic Messages request. Pure.
//
// Signatures and redacted thinking travel only back to their issuer: thinking
// blocks are sent when Anthropic signed them and dropped otherwise (another
// vendor's thoughts cannot be verified here). Features Anthropic lacks are
// refused with the neutral field path (unsupported()); see docs/translation.md.
// Custom tools (free-text input) are emulated: shared/custom-tools.ts. The
// neutral web search is Anthropic's web_search server tool: web-search.ts.
// What a Messages client sent that the neutral model does not carry
// (vendor_extras.anthropic on the input, its turns, parts and tools) is put
// back as it was sent.
import type { JsonObject } from "@bufbuild/protobuf";
import { HarmBlockThreshold, Modality, Role, ToolChoiceMode, type CacheControl, type ChatInput, type Part, type Tool } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { jsonOutputOf, type JsonOutput } from "../shared/json-output.js";
import { enforceableSafetyIndex, IMAGE_TYPES, refuseForeignExtras, mediaBase64, mediaText, safeToolId } from "../shared/parts.js";
import { unsupported } from "../shared/http-errors.js";
import { isWholeBlock, opaqueBlock, overlayFields } from "../../core/json-fields.js";
import { callArguments } from "../../core/chat/tool-calls.js";
import { customToolNames, emulatedDescription, emulatedParameters } from "../shared/custom-tools.js";
import { ownCitations, webSearchBlocks, webSearchTool } from "./web-search.js";
import type * as wire from "./wire.js";

export const VENDOR = "anthropic";
/** Anthropic requires max_tokens; used when the client set none. */
export const DEFAULT_MAX_TOKENS = 8192;
const MIN_BUDGET = 1024;
export interface AnthropicPlan {
  json: JsonOutput;
  /** Names of the emulated custom tools: their calls come back with free-text input. */
  customTools: ReadonlySet<string>;
}

export interface AnthropicRequestOut {
  body: wire.MessagesRequest;
  /** anthropic-beta values. */
  betas: string[];
  plan: AnthropicPlan;
}

const refuse = (field: string, what: string) => unsupported(VENDOR, field, what);
/** Safety thresholds that ask for nothing another vendor would have to add. */
const PASSABLE_SAFETY = [HarmBlockThreshold.UNSPECIFIED, HarmBlockThreshold.BLOCK_NONE, HarmBlockThreshold.OFF];

function cacheControl(cc: CacheControl | undefined): { cache_control?: wire.CacheControl } {
  if (!cc || !cc.type) return {};
  return { cache_control: { type: cc.type, ...(cc.ttl ? { ttl: cc.ttl } : {}) } };
}

const extras = (p: { vendorExtras: Record<string, JsonObject> }) => p.vendorExtras[VENDOR] ?? {};

function mediaBlock(p: Part, field: string): wire.RequestBlock {
  if (p.kind.case !== "media") throw new Error("not media");
  const m = p.kind.value;
  const mime = m.mimeType.toLowerCase();
  const cc = cacheControl(p.cacheControl);
  const uri = m.source.case === "uri" ? m.source.value : undefined;
  if (IMAGE_TYPES.has(mime) || (uri && !mime)) {
    const source: wire.ImageSource = uri ? { type: "url", url: uri } : { type: "base64", media_type: mime, data: mediaBase64(m) };
    return { ...extras(p), type: "image", source, ...cc };
  }
  if (mime === "application/pdf" || mime === "text/plain") {
    const source: wire.DocumentSource = uri
      ? { type: "url", url: uri }
      : mime === "text/plain"
        ? { type: "text", media_type: "text/plain", data: mediaText(m) }
        : { type: "base64", media_type: mime, data: mediaBase64(m) };
    return {
      ...extras(p),
      type: "document",
      source,
      ...(m.name ? { title: m.name } : {}),
      ...(m.context ? { context: m.context } : {}),
      ...(m.citations ? { citations: { enabled: true } } : {}),
      ...cc,
    };
  }
  throw refuse(`${field}.media`, `${m.mimeType || "untyped"} media`);
}

function textBlock(p: Part): wire.RequestBlock {
  if (p.kind.case !== "text") throw new Error("not text");
  const t = p.kind.value;
  // Field by field: a conditional spread costs a temporary object and a copy,
  // and every text part of every request comes through here.
  const x = p.vendorExtras[VENDOR];
  // A whole Anthropic block the text stands in for (a search result, a tool reference): sent as it came.
  if (x && isWholeBlock(x)) return x as wire.RequestBlock;
  const b: wire.RequestBlock = x ? { ...x, type: "text", text: t.text } : { type: "text", text: t.text };
  if (t.citations.length) {
    const own = ownCitations(t.citations);
    if (own.length) b.citations = own;
  }
  if (p.cacheControl?.type) b.cache_control = cacheControl(p.cacheControl).cache_control;
  return b;
}

/** The neutral field path of a part, for errors only (built when one is raised, not for every part). */
const partField = (ti: number, pi: number) => `turns[${ti}].parts[${pi}]`;

/** One neutral part (part `pi` of turn `ti`) -> blocks (none when it is dropped on purpose). */
function toBlocks(p: Part, ti: number, pi: number): wire.RequestBlock[] {
  const k = p.kind;
  switch (k.case) {
    case "text":
      return k.value.text === "" && !p.cacheControl ? [] : [textBlock(p)];
    case "media":
      return [mediaBlock(p, partField(ti, pi))];
    case "toolCall":
      return [{ ...extras(p), type: "tool_use", id: safeToolId(k.value.id), name: k.value.name, input: callArguments(k.value), ...cacheControl(p.cacheControl) }];
    case "toolResult": {
      const r = k.value;
      const content: wire.RequestBlock[] = r.content.flatMap((c, i) => {
        if (c.kind.case === "text") return [textBlock(c)];
        if (c.kind.case === "media") return [mediaBlock(c, `${partField(ti, pi)}.tool_result.content[${i}]`)];
        // A block of a type the gateway does not know, as the client sent it.
        const x = opaqueBlock(c, VENDOR);
        return x ? [x as wire.RequestBlock] : [];
      });
      if (!content.length && r.structured) content.push({ type: "text", text: JSON.stringify(r.structured) });
      return [
        {
          ...extras(p),
          type: "tool_result",
          tool_use_id: safeToolId(r.callId),
          ...(content.length ? { content } : {}),
          ...(r.isError ? { is_error: true } : {}),
          ...cacheControl(p.cacheControl),
        },
      ];
    }
    case "thinking":
      // Only Anthropic can verify its thinking; others' thoughts are dropped on purpose.
      if (p.signature?.issuer !== VENDOR || !p.signature.value) return [];
      return [{ ...extras(p), type: "thinking", thinking: k.value.text, signature: p.signature.value }];
    case "redactedThinking":
      if (k.value.issuer !== VENDOR) return [];
      return [{ ...extras(p), type: "redacted_thinking", data: k.value.data }];
    case "executableCode":
      // Emulated: code another vendor ran is shown as a fenced block.
      return [{ type: "text", text: "```" + (k.value.language || "python").toLowerCase() + "\n" + k.value.code + "\n```" }];
    case "codeExecutionResult":
      return [{ type: "text", text: "Code execution output:\n```\n" + k.value.output + "\n```" }];
    case "webSearchCall":
      // Anthropic's own search goes back whole; another vendor's has nothing Anthropic can take.
      return webSearchBlocks(p);
    default: {
      // A block with no neutral kind that came from Anthropic (a server tool's use or result): sent back as it was.
      const x = opaqueBlock(p, VENDOR);
      return x ? [x as wire.RequestBlock] : [];
    }
  }
}

const isToolResult = (b: wire.RequestBlock) => b.type === "tool_result";

/** Tool results lead their user message (the API requires it); blocks in order already are returned as they are. */
function toolResultsFirst(blocks: wire.RequestBlock[]): wire.RequestBlock[] {
  const firstOther = blocks.findIndex((b) => !isToolResult(b));
  if (firstOther < 0 || !blocks.some((b, i) => i > firstOther && isToolResult(b))) return blocks;
  return [...blocks.filter(isToolResult), ...blocks.filter((b) => !isToolResult(b))];
}

const roleOf = (r: Role): wire.RequestMessage["role"] => (r === Role.ASSISTANT ? "assistant" : r === Role.SYSTEM ? "system" : "user");

/**
 * Turns -> messages; consecutive messages of one role merge. A system turn is a
 * system message at its place (Anthropic takes those with a beta the client
 * names). A turn with a message's own fields (extras) stays a message of its own.
 */
function toMessages(input: ChatInput): wire.RequestMessage[] {
  const out: wire.RequestMessage[] = [];
  let ownMessage = false;
  input.turns.forEach((t, ti) => {
    const role = roleOf(t.role);
    let blocks = t.parts.length === 1 ? toBlocks(t.parts[0]!, ti, 0) : t.parts.flatMap((p, pi) => toBlocks(p, ti, pi));
    if (role === "user") blocks = toolResultsFirst(blocks);
    if (!blocks.length) return;
    const x = t.vendorExtras[VENDOR];
    const last = out.at(-1);
    if (last && last.role === role && !x && !ownMessage) {
      last.content.push(...blocks);
      if (role === "user") last.content = toolResultsFirst(last.content);
    } else out.push(x ? { ...x, role, content: blocks } : { role, content: blocks });
    ownMessage = x !== undefined;
  });
  return out;
}

function toTool(t: Tool, i: number): wire.RequestTool {
  const k = t.kind;
  const cc = cacheControl(t.cacheControl);
  switch (k.case) {
    case "function":
      return {
        ...t.vendorExtras[VENDOR],
        name: k.value.name,
        ...(k.value.description ? { description: k.value.description } : {}),
        input_schema: k.value.parameters ?? { type: "object", properties: {} },
        ...cc,
      };
    case "custom":
      // Emulated: a function tool with one string parameter, "input".
      return { ...t.vendorExtras[VENDOR], name: k.value.name, description: emulatedDescription(k.value), input_schema: emulatedParameters(k.value), ...cc };
    case "vendor":
      // Anthropic's own (a Messages client's, any type), or one typed like Anthropic's (dated).
      if (k.value.vendor ? k.value.vendor !== VENDOR : !/_\d{8}$|^tool_search_tool_(?:bm25|regex)$/.test(k.value.type)) throw refuse(`tools[${i}]`, `the ${k.value.type} tool`);
      // A toolset (computer_toolset_*, browser_toolset_*) has no name of its own.
      return { ...(k.value.config ?? {}), type: k.value.type, ...(k.value.name ? { name: k.value.name } : {}), ...cc } as wire.RequestTool;
    case "codeExecution":
      throw refuse(`tools[${i}].code_execution`, "the code execution tool");
    case "webSearch":
      return { ...webSearchTool(k.value, t.vendorExtras[VENDOR]), ...cc } as wire.RequestTool;
    default:
      throw refuse(`tools[${i}]`, "an empty tool");
  }
}

function toToolChoice(input: ChatInput, tools: wire.RequestTool[]): { tools: wire.RequestTool[]; choice?: wire.RequestToolChoice } {
  const tc = input.toolChoice;
  if (!tc || !tools.length) return { tools };
  const dp = tc.disableParallel ? { disable_parallel_tool_use: true } : {};
  switch (tc.mode) {
    case ToolChoiceMode.NONE:
      return { tools, choice: { type: "none" } };
    case ToolChoiceMode.ANY: {
      if (tc.allowedNames.length === 1) return { tools, choice: { type: "tool", name: tc.allowedNames[0]!, ...dp } };
      // Emulated: "one of these tools" = any tool among only those.
      const allowed = tc.allowedNames.length ? tools.filter((t) => tc.allowedNames.includes(t.name)) : tools;
      return { tools: allowed, choice: { type: "any", ...dp } };
    }
    case ToolChoiceMode.AUTO:
      return { tools, choice: { type: "auto", ...dp } };
    default:
      return tc.disableParallel ? { tools, choice: { type: "auto", ...dp } } : { tools };
  }
}

/** Whether the final assistant turn in a tool loop has a thinking block Anthropic can verify. */
function lastAssistantHasThinking(messages: wire.RequestMessage[]): boolean {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    const usesTools = m.content.some((b) => b.type === "tool_use");
    if (!usesTools) return true;
    return m.content[0]?.type === "thinking" || m.content[0]?.type === "redacted_thinking";
  }
  return true;
}

/** Whether the last assistant turn of the conversation came from elsewhere: it had thinking that is not Anthropic's, or the client is not a Messages client. */
function foreignLastStep(input: ChatInput): boolean {
  const last = [...input.turns].reverse().find((t) => t.role === Role.ASSISTANT);
  if (!last) return false;
  const foreignThinking = last.parts.some(
    (p) => (p.kind.case === "thinking" && (p.signature?.issuer !== VENDOR || !p.signature.value)) || (p.kind.case === "redactedThinking" && p.kind.value.issuer !== VENDOR),
  );
  return foreignThinking || input.metadata?.sourceFormat !== "messages";
}

function checkUnsupported(input: ChatInput): void {
  const bad = enforceableSafetyIndex(input.safetySettings, PASSABLE_SAFETY);
  if (bad >= 0) throw refuse(`safety_settings[${bad}]`, "a blocking safety threshold");
  const c = input.config;
  if (!c) return;
  if (c.candidateCount !== undefined && c.candidateCount > 1) throw refuse("config.candidate_count", "more than one candidate");
  if (c.responseModalities.some((m) => m !== Modality.TEXT && m !== Modality.UNSPECIFIED)) throw refuse("config.response_modalities", "non-text output");
  if (c.responseLogprobs || c.logprobs !== undefined) throw refuse("config.response_logprobs", "logprobs");
  if (c.presencePenalty !== undefined) throw refuse("config.presence_penalty", "presence_penalty");
  if (c.frequencyPenalty !== undefined) throw refuse("config.frequency_penalty", "frequency_penalty");
  if (c.speechConfig) throw refuse("config.speech_config", "speech output");
  if (c.seed !== undefined) throw refuse("config.seed", "seed");
  if (c.enableEnhancedCivicAnswers) throw refuse("config.enable_enhanced_civic_answers", "enhanced civic answers");
}

/** The thinking setting for Anthropic, and max_tokens raised to fit its budget. */
function thinkingOf(input: ChatInput, maxTokens: number): { thinking?: wire.MessagesRequest["thinking"]; maxTokens: number; effort?: string } {
  const th = input.config?.thinking;
  if (!th) return { maxTokens };
  const effort = th.effort ? { effort: th.effort === "minimal" ? "low" : th.effort } : {};
  if (th.enabled === false) return { thinking: { type: "disabled" }, maxTokens, ...effort };
  if (th.mode === "between_tools") return { thinking: { type: "between_tools" }, maxTokens, ...effort };
  // Sent only when the caller chose it: the default depends on the model.
  const display: { display?: wire.ThinkingDisplay } = th.display === "summarized" || th.display === "omitted" ? { display: th.display } : {};
  const budget = th.budgetTokens;
  if (budget === undefined || budget < 0) {
    if (th.enabled !== true) return { maxTokens, ...effort };
    // "Think as needed": adaptive for Messages clients, a budget otherwise.
    if (input.metadata?.sourceFormat === "messages") return { thinking: { type: "adaptive", ...display }, maxTokens, ...effort };
    const b = Math.max(MIN_BUDGET, Math.min(16_384, Math.floor(maxTokens / 2)));
    return { thinking: { type: "enabled", budget_tokens: b, ...display }, maxTokens: Math.max(maxTokens, b + MIN_BUDGET), ...effort };
  }
  if (budget === 0) return { thinking: { type: "disabled" }, maxTokens, ...effort };
  const b = Math.max(MIN_BUDGET, budget);
  return { thinking: { type: "enabled", budget_tokens: b, ...display }, maxTokens: b >= maxTokens ? b + maxTokens : maxTokens, ...effort };
}

export function toVendorRequest(input: ChatInput, upstreamModel: string, opts: { stream: boolean }): AnthropicRequestOut {
  checkUnsupported(input);
  refuseForeignExtras(input.vendorExtras, VENDOR);
  const c = input.config;
  const messages = toMessages(input);
  const tools = input.tools.map(toTool);
  const { tools: usedTools, choice } = toToolChoice(input, tools);
  const th = thinkingOf(input, c?.maxOutputTokens ?? DEFAULT_MAX_TOKENS);
  const json = jsonOutputOf(c);
  const system = input.system.flatMap((p) => {
    if (p.kind.case === "text") return [textBlock(p)];
    const x = opaqueBlock(p, VENDOR);
    return x ? [x as wire.RequestBlock] : [];
  });
  if (json.kind === "any") system.push({ type: "text", text: "Answer with a single valid JSON value and nothing else." });
  const ve = input.vendorExtras[VENDOR];
  const body: wire.MessagesRequest = { model: upstreamModel, max_tokens: th.maxTokens, messages };
  if (system.length) body.system = system.length === 1 && system[0]!.type === "text" && Object.keys(system[0]!).length === 2 ? (system[0]!.text as string) : system;
  if (input.metadata?.userId) body.metadata = { user_id: input.metadata.userId };
  if (c?.stopSequences.length) body.stop_sequences = c.stopSequences;
  if (opts.stream) body.stream = true;
  // Anthropic's temperature range is 0-1; higher values (0-2 elsewhere) are clamped.
  if (c?.temperature !== undefined) body.temperature = Math.min(1, c.temperature);
  if (c?.topP !== undefined) body.top_p = c.topP;
  if (c?.topK !== undefined) body.top_k = c.topK;
  // Thinking cannot start in the middle of a tool loop whose last step came
  // from another vendor (its thinking was dropped, or it had none to show):
  // that step is answered without thinking. A Messages client's own history
  // is sent as it is.
  if (th.thinking && (th.thinking.type === "disabled" || lastAssistantHasThinking(messages) || !foreignLastStep(input))) body.thinking = th.thinking;
  if (usedTools.length) body.tools = usedTools;
  if (choice) body.tool_choice = choice;
  const outputConfig: NonNullable<wire.MessagesRequest["output_config"]> = {};
  if (json.kind === "schema") outputConfig.format = { type: "json_schema", schema: json.schema };
  if (th.effort) outputConfig.effort = th.effort;
  if (Object.keys(outputConfig).length) body.output_config = outputConfig;
  if (ve) clientFields(body, ve);
  return { body, betas: input.metadata?.betas ?? [], plan: { json, customTools: customToolNames(input.tools) } };
}

const THINKING_TYPES = new Set(["enabled", "disabled", "adaptive", "between_tools"]);

/**
 * The Messages client's own fields over the body: unknown ones as sent, and
 * the settings whose values the neutral model could not carry (a newer
 * thinking display or type, effort, tool_choice type). A thinking setting of a
 * known type is laid only over thinking this request sends (thinking left out
 * mid tool loop stays out).
 */
function clientFields(body: wire.MessagesRequest, ve: JsonObject): void {
  const th = ve.thinking as JsonObject | undefined;
  if (th === undefined || body.thinking !== undefined || !THINKING_TYPES.has(th.type as string)) return overlayFields(body, ve);
  const { thinking: _known, ...rest } = ve;
  overlayFields(body, rest);
}

/** The count_tokens body for the same input. */
export function toVendorCountRequest(input: ChatInput, upstreamModel: string): wire.CountTokensRequest {
  const { body } = toVendorRequest(input, upstreamModel, { stream: false });
  const { max_tokens: _m, stream: _s, stop_sequences: _ss, temperature: _t, top_p: _p, top_k: _k, metadata: _md, ...rest } = body;
  return rest;
}
