// JSON output towards upstreams whose structured-output feature needs an
// object at the root (OpenAI json_schema, Anthropic output_config.format): a
// schema with another root (an array, a string enum for text/x.enum) is
// wrapped as {"value": <schema>} on the way up, and the answer is unwrapped on
// the way back, for whole responses and streams alike. Pure.
import { type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { create } from "../../core/proto/create.js";
import { parseWellFormed } from "../../lib/unicode.js";
import { StreamGenerateResponseSchema, type GenerateResponse, type GenerationConfig, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";

export const WRAP_KEY = "value";

export type JsonOutput =
  | { kind: "none" }
  /** JSON without a schema. */
  | { kind: "any" }
  /** JSON with a schema; `wrapped` when the schema had to be wrapped; `raw` when the unwrapped string is the answer (text/x.enum). */
  | { kind: "schema"; schema: JsonObject; wrapped: boolean; raw: boolean };

export function jsonOutputOf(cfg: GenerationConfig | undefined): JsonOutput {
  const mime = cfg?.responseMimeType ?? "";
  if (mime !== "application/json" && mime !== "text/x.enum") return { kind: "none" };
  const schema = cfg?.responseSchema;
  if (!schema) return { kind: "any" };
  const raw = mime === "text/x.enum";
  if (!raw && schema.type === "object") return { kind: "schema", schema, wrapped: false, raw };
  return {
    kind: "schema",
    schema: { type: "object", properties: { [WRAP_KEY]: schema }, required: [WRAP_KEY], additionalProperties: false },
    wrapped: true,
    raw,
  };
}

/** The answer text for a wrapped JSON text; the text itself when it is not the wrapper. */
export function unwrapText(text: string, out: JsonOutput): string {
  if (out.kind !== "schema" || !out.wrapped) return text;
  let v: unknown;
  try {
    v = parseWellFormed(text);
  } catch {
    return text;
  }
  if (!v || typeof v !== "object" || Array.isArray(v) || !(WRAP_KEY in v)) return text;
  const inner = (v as Record<string, JsonValue>)[WRAP_KEY]!;
  return out.raw && typeof inner === "string" ? inner : JSON.stringify(inner);
}

/** Unwraps the text parts of a whole response in place. */
export function unwrapResponse(resp: GenerateResponse, out: JsonOutput): GenerateResponse {
  if (out.kind !== "schema" || !out.wrapped) return resp;
  for (const c of resp.candidates) for (const p of c.parts) if (p.kind.case === "text") p.kind.value.text = unwrapText(p.kind.value.text, out);
  return resp;
}

/** Unwraps a stream: text parts are held until they stop, then sent as one delta. A stream with nothing to unwrap passes as it is. */
export function unwrapStream(src: AsyncIterable<StreamGenerateResponse>, out: JsonOutput): AsyncIterable<StreamGenerateResponse> {
  return out.kind !== "schema" || !out.wrapped ? src : unwrapped(src, out);
}

async function* unwrapped(src: AsyncIterable<StreamGenerateResponse>, out: JsonOutput): AsyncGenerator<StreamGenerateResponse> {
  const held = new Map<string, string>();
  for await (const e of src) {
    const k = e.event;
    if (k.case === "partStart" && k.value.part?.kind.case === "text") held.set(`${k.value.candidateIndex}:${k.value.index}`, "");
    else if (k.case === "partDelta" && k.value.delta.case === "text") {
      const key = `${k.value.candidateIndex}:${k.value.index}`;
      if (held.has(key)) {
        held.set(key, held.get(key)! + k.value.delta.value);
        continue;
      }
    } else if (k.case === "partStop") {
      const key = `${k.value.candidateIndex}:${k.value.index}`;
      const text = held.get(key);
      if (text !== undefined) {
        held.delete(key);
        if (text) {
          yield create(StreamGenerateResponseSchema, {
            event: { case: "partDelta", value: { candidateIndex: k.value.candidateIndex, index: k.value.index, delta: { case: "text", value: unwrapText(text, out) } } },
          });
        }
      }
    }
    yield e;
  }
}
