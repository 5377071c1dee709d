// Gemini's :embedContent and :batchEmbedContents <-> the neutral
// EmbedRequest / EmbedResponse. Pure.
//
// A content's text parts are one input (joined by newlines); other parts
// cannot be embedded (400 naming the part). outputDimensionality is
// `dimensions`, taskType the task type, title the input's title. A batch is
// one core call: its requests must name the path's model (or none) and share
// one taskType and outputDimensionality (400 naming the first that differs);
// a title is per request. Fields the gateway does not model (of the request,
// or of a batch's first request) go to the "gemini" vendor extras, so a
// Gemini channel gets them as sent.
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { durationMs } from "@bufbuild/protobuf/wkt";
import type { EmbedInputSchema, EmbedRequestSchema, EmbedResponse } from "../../../gen/omnigate/embedding/v1/embedding_pb.js";
import { coreError, errorDetail, invalidArgument } from "../../core/errors.js";
import { modelId } from "./models.js";
import * as wire from "./wire.js";

type Input = MessageInitShape<typeof EmbedInputSchema>;
type Request = MessageInitShape<typeof EmbedRequestSchema>;

/** One request's input; `at` is its field path ("content" or "requests[2].content"). */
function inputOf(r: wire.EmbedContentRequest, at: string): Input {
  const texts: string[] = [];
  r.content.parts.forEach((p, j) => {
    if (typeof p.text !== "string" || Object.keys(p).some((k) => k !== "text")) throw invalidArgument(`${at}.parts[${j}]: only text parts can be embedded`, `${at}.parts[${j}]`);
    texts.push(p.text);
  });
  return { content: { case: "text", value: texts.join("\n") }, title: r.title ?? "" };
}

function extrasOf(r: wire.EmbedContentRequest): Record<string, JsonObject> {
  const extras: JsonObject = {};
  for (const [k, v] of Object.entries(r)) if (!wire.MODELLED_EMBED_FIELDS.has(k)) extras[k] = v as JsonObject[string];
  return Object.keys(extras).length ? { gemini: extras } : {};
}

export function toCoreEmbed(body: wire.EmbedContentRequest, model: string): Request {
  return {
    model,
    inputs: [inputOf(body, "content")],
    ...(body.outputDimensionality !== undefined ? { dimensions: body.outputDimensionality } : {}),
    taskType: body.taskType ?? "",
    vendorExtras: extrasOf(body),
  };
}

export function toCoreBatchEmbed(body: wire.BatchEmbedContentsRequest, model: string): Request {
  const first = body.requests[0];
  body.requests.forEach((r, i) => {
    if (r.model !== undefined && modelId(r.model) !== model) throw invalidArgument(`requests[${i}].model: must be the model of the path, models/${model}`, `requests[${i}].model`);
    if (r.taskType !== first?.taskType) throw invalidArgument(`requests[${i}].taskType: every request of a batch must have the same taskType on this gateway`, `requests[${i}].taskType`);
    if (r.outputDimensionality !== first?.outputDimensionality) {
      throw invalidArgument(`requests[${i}].outputDimensionality: every request of a batch must have the same outputDimensionality on this gateway`, `requests[${i}].outputDimensionality`);
    }
  });
  return {
    model,
    inputs: body.requests.map((r, i) => inputOf(r, `requests[${i}].content`)),
    ...(first?.outputDimensionality !== undefined ? { dimensions: first.outputDimensionality } : {}),
    taskType: first?.taskType ?? "",
    vendorExtras: first ? extrasOf(first) : {},
  };
}

export function fromCoreEmbed(res: EmbedResponse): { embedding: { values: number[] } } {
  return { embedding: { values: res.embeddings[0]?.values ?? [] } };
}

export function fromCoreBatchEmbed(res: EmbedResponse): { embeddings: { values: number[] }[] } {
  return { embeddings: res.embeddings.map((e) => ({ values: e.values })) };
}

/** A core field in this wire's words: inputs[2] -> requests[2].content (content alone), dimensions -> outputDimensionality. */
export function embedField(field: string, batch: boolean): string {
  if (field === "dimensions") return batch ? "requests[0].outputDimensionality" : "outputDimensionality";
  if (field === "task_type") return batch ? "requests[0].taskType" : "taskType";
  if (field === "inputs") return batch ? "requests" : "content";
  const m = /^inputs\[(\d+)\](.*)$/.exec(field);
  if (m) return batch ? `requests[${m[1]}].content${m[2]}` : `content${m[2]}`;
  return field;
}

/** A core error about a field of the request, pointed at the wire field (errors.ts renders it). */
export function embedErrorAt(err: unknown, batch: boolean): unknown {
  if (!(err instanceof ConnectError)) return err;
  const d = errorDetail(err);
  if (!d?.field) return err;
  const field = embedField(d.field, batch);
  if (field === d.field) return err;
  const message = err.rawMessage.startsWith(`${d.field}: `) ? `${field}: ${err.rawMessage.slice(d.field.length + 2)}` : err.rawMessage;
  return coreError(err.code, message, { reason: d.reason, field, metadata: { ...d.metadata }, ...(d.retryAfter ? { retryAfterMs: durationMs(d.retryAfter) } : {}) });
}
