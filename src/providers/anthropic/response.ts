// Anthropic Messages response -> neutral GenerateResponse. Pure.
// Signatures become {issuer: "anthropic"}; fields the neutral model does not
// name ride in vendor_extras["anthropic"] so a same-vendor round trip keeps them.
// A tool_use of an emulated custom tool is a call with free-text input. A web
// search's two blocks are one WebSearchCall (web-search.ts).
import { type JsonObject } from "@bufbuild/protobuf";
import { opaquePart, unknownFields, vendorExtrasOf } from "../../core/json-fields.js";
import { create } from "../../core/proto/create.js";
import { CandidateSchema, FinishReason, GenerateResponseSchema, PartSchema, UsageSchema, type GenerateResponse, type Part, type Usage } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { customInputOf } from "../shared/custom-tools.js";
import { argsObject } from "../shared/parts.js";
import { VENDOR } from "./request.js";
import { isResultOf, isWebSearchUse, webSearchPart } from "./web-search.js";
import type * as wire from "./wire.js";

const STOP: Record<string, FinishReason> = {
  end_turn: FinishReason.STOP,
  max_tokens: FinishReason.MAX_TOKENS,
  stop_sequence: FinishReason.STOP_SEQUENCE,
  tool_use: FinishReason.TOOL_USE,
  pause_turn: FinishReason.PAUSE_TURN,
  refusal: FinishReason.SAFETY,
  model_context_window_exceeded: FinishReason.CONTEXT_WINDOW_EXCEEDED,
};

export function finishOf(stop: string | null | undefined): { finishReason: FinishReason; vendorFinishReason: string } {
  if (!stop) return { finishReason: FinishReason.UNSPECIFIED, vendorFinishReason: "" };
  const f = STOP[stop];
  return { finishReason: f ?? FinishReason.OTHER, vendorFinishReason: f === undefined || stop === "refusal" ? stop : "" };
}

const n = (v: number | null | undefined) => BigInt(Math.max(0, Math.trunc(v ?? 0)));

const USAGE_FIELDS = new Set(["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens_details"]);

/** Anthropic usage -> neutral (input_tokens already excludes cache reads and writes). */
export function usageOf(u: wire.Usage | undefined): Usage {
  return create(UsageSchema, {
    inputTokens: n(u?.input_tokens),
    outputTokens: n(u?.output_tokens),
    cacheReadTokens: n(u?.cache_read_input_tokens),
    cacheWriteTokens: n(u?.cache_creation_input_tokens),
    thinkingTokens: n(u?.output_tokens_details?.thinking_tokens),
  });
}

/** Usage fields the neutral Usage does not name (service_tier, server_tool_use, ...). */
export function usageExtras(u: wire.Usage | undefined): JsonObject | undefined {
  if (!u) return undefined;
  return unknownFields(u, USAGE_FIELDS, false);
}

const extrasOf = (block: wire.ResponseBlock, known: ReadonlySet<string>) => vendorExtrasOf(VENDOR, block, known);

const TEXT_FIELDS = new Set(["type", "text", "citations"]);
const THINKING_FIELDS = new Set(["type", "thinking", "signature"]);
const REDACTED_FIELDS = new Set(["type", "data"]);
const TOOL_USE_FIELDS = new Set(["type", "id", "name", "input"]);

const NO_CUSTOM: ReadonlySet<string> = new Set();

/**
 * One content block -> a neutral part; blocks the neutral model has no kind
 * for keep their JSON in vendor_extras. A tool_use named in `custom` is a
 * custom tool's call.
 */
export function partOf(b: wire.ResponseBlock, custom: ReadonlySet<string> = NO_CUSTOM): Part {
  switch (b.type) {
    case "text":
      return create(PartSchema, {
        kind: { case: "text", value: { text: b.text ?? "", citations: (b.citations ?? []) as JsonObject[] } },
        vendorExtras: extrasOf(b, TEXT_FIELDS),
      });
    case "thinking":
      return create(PartSchema, {
        kind: { case: "thinking", value: { text: b.thinking ?? "" } },
        ...(b.signature ? { signature: { issuer: VENDOR, value: b.signature } } : {}),
        vendorExtras: extrasOf(b, THINKING_FIELDS),
      });
    case "redacted_thinking":
      return create(PartSchema, { kind: { case: "redactedThinking", value: { data: b.data ?? "", issuer: VENDOR } }, vendorExtras: extrasOf(b, REDACTED_FIELDS) });
    case "tool_use": {
      const args = typeof b.input === "string" ? argsObject(b.input) : ((b.input ?? {}) as JsonObject);
      const call = custom.has(b.name ?? "") ? { input: customInputOf(args) } : { arguments: args };
      return create(PartSchema, { kind: { case: "toolCall", value: { id: b.id ?? "", name: b.name ?? "", ...call } }, vendorExtras: extrasOf(b, TOOL_USE_FIELDS) });
    }
    default:
      return opaquePart(VENDOR, b);
  }
}

const MESSAGE_FIELDS = new Set(["id", "type", "role", "model", "content", "stop_reason", "stop_sequence", "usage"]);

/** Message-level fields the neutral response does not name (container, stop_details, ...), plus usage extras. */
export function messageExtras(m: wire.MessageResponse): Record<string, JsonObject> {
  let out = unknownFields(m, MESSAGE_FIELDS, true);
  const ue = usageExtras(m.usage);
  if (ue) (out ??= {}).usage = ue;
  return out ? { [VENDOR]: out } : {};
}

/** Content blocks -> parts: a web search's server_tool_use and the result right after it are one part. */
export function partsOf(blocks: wire.ResponseBlock[], custom?: ReadonlySet<string>): Part[] {
  const out: Part[] = [];
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i]!;
    if (!isWebSearchUse(b)) {
      out.push(partOf(b, custom));
      continue;
    }
    const result = isResultOf(blocks[i + 1], b) ? blocks[++i] : undefined;
    out.push(webSearchPart(b, result));
  }
  return out;
}

export function fromVendorResponse(m: wire.MessageResponse, ctx: { model: string; channel: string; customTools?: ReadonlySet<string> }): GenerateResponse {
  const parts = partsOf(m.content ?? [], ctx.customTools);
  const fin = finishOf(m.stop_reason);
  return create(GenerateResponseSchema, {
    id: m.id ?? "",
    model: ctx.model,
    modelVersion: m.model ?? "",
    channel: ctx.channel,
    usage: usageOf(m.usage),
    vendorExtras: messageExtras(m),
    candidates: [
      create(CandidateSchema, {
        index: 0,
        parts,
        finishReason: fin.finishReason === FinishReason.UNSPECIFIED ? FinishReason.STOP : fin.finishReason,
        vendorFinishReason: fin.vendorFinishReason,
        stopSequence: m.stop_sequence ?? "",
      }),
    ],
  });
}
