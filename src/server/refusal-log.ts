// A refused request (4xx) is logged with what its client was told: the
// error's type, message and field, read from the answer in whatever format's
// shape it has (Anthropic, Gemini, OpenAI, image-bot, Connect, tRPC). Never a
// key or a body: only those three fields, the message cut short.
import type { FastifyReply, FastifyRequest } from "fastify";

export interface Refusal {
  type?: string;
  message?: string;
  field?: string;
}

const MAX_MESSAGE = 500;
type Obj = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : typeof v === "number" ? String(v) : undefined);
const obj = (v: unknown): Obj | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined);

/** The field a Gemini error names, from its BadRequest details. */
function violationField(details: unknown): string | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    const v = obj(d)?.fieldViolations;
    if (Array.isArray(v)) return str(obj(v[0])?.field);
  }
  return undefined;
}

/** The type, message and field of an error answer's body, or undefined when it is no error body this knows. */
export function refusalOf(payload: unknown): Refusal | undefined {
  const text = typeof payload === "string" ? payload : Buffer.isBuffer(payload) ? payload.toString("utf8") : undefined;
  if (!text || text.length > 65_536) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  // tRPC batches answer an array of envelopes: the first one speaks for them.
  const top = obj(Array.isArray(body) ? body[0] : body);
  if (!top) return undefined;
  // tRPC wraps its error in "json" (superjson-style transformers' envelope).
  const outer = obj(top.error) ?? top;
  const e = obj(outer.json) ?? outer;
  const data = obj(e.data);
  const message = str(e.message) ?? str(e.description);
  const type = str(e.type) ?? str(e.status) ?? str(data?.code) ?? str(e.code);
  const field = str(e.param) ?? str(e.field) ?? violationField(e.details);
  if (message === undefined && type === undefined) return undefined;
  return {
    ...(type !== undefined ? { type } : {}),
    ...(message !== undefined ? { message: message.length > MAX_MESSAGE ? message.slice(0, MAX_MESSAGE) + "…" : message } : {}),
    ...(field !== undefined ? { field } : {}),
  };
}

/** An onSend hook: a 4xx answer is logged at info with its refusal; other answers pass untouched. */
export function logRefusals(req: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void): void {
  const status = reply.statusCode;
  if (status >= 400 && status < 500) req.log.info({ status, refusal: refusalOf(payload) }, "request refused");
  done(null, payload);
}
