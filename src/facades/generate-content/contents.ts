// generate-content Contents -> neutral turns (pure). Consecutive Contents of one
// role become one turn (the SDK's chat history keeps each streamed chunk as its
// own Content), adjacent thought fragments become one Thinking part, and thought
// signatures go back where the neutral model keeps them. Every neutral part
// remembers where it came from, so errors the core raises about a part name
// the wire field the client sent. A part's (or a content's) fields the
// neutral part does not name, and a part of a kind newer than the gateway
// (whole), ride in vendor_extras.gemini, for Gemini alone.
import { gatewayFileId } from "./files.js";
import { type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import { create } from "../../core/proto/create.js";
import { CodeOutcome, PartSchema, Role, TurnSchema, type Part, type Turn } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { invalidArgument } from "../../core/errors.js";
import { unknownFields } from "../../core/json-fields.js";
import { GEMINI, decodeThoughtSignature } from "./thought-signature.js";
import type * as wire from "./wire.js";

export const DATA_FIELDS = ["text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode", "codeExecutionResult"] as const;
/** The fields of a part the neutral part names; others (videoMetadata, mediaResolution, newer ones) ride with it for Gemini. */
const PART_FIELDS: ReadonlySet<string> = new Set([...DATA_FIELDS, "thought", "thoughtSignature"]);
const CONTENT_FIELDS: ReadonlySet<string> = new Set(["role", "parts"]);
/** The fields of each data object the neutral kinds name (fileData is read in: its extras have no place). */
const DATA_OBJECT_FIELDS: Partial<Record<(typeof DATA_FIELDS)[number], ReadonlySet<string>>> = {
  inlineData: new Set(["mimeType", "data"]),
  functionCall: new Set(["id", "name", "args"]),
  functionResponse: new Set(["id", "name", "response", "parts"]),
  executableCode: new Set(["language", "code"]),
  codeExecutionResult: new Set(["outcome", "output"]),
};
const OUTCOMES: Record<string, CodeOutcome> = {
  OUTCOME_UNSPECIFIED: CodeOutcome.UNSPECIFIED,
  OUTCOME_OK: CodeOutcome.OK,
  OUTCOME_FAILED: CodeOutcome.FAILED,
  OUTCOME_DEADLINE_EXCEEDED: CodeOutcome.DEADLINE_EXCEEDED,
};
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const MIME = /^[\w.+-]+\/[\w.+-]+$/;

const ROLES: Record<string, Role> = { user: Role.USER, model: Role.ASSISTANT, function: Role.USER, tool: Role.USER };

/**
 * Where a neutral part came from: `${at}[c].parts[p]`, and the part whose
 * thoughtSignature gave its signature, `${at}[sc].parts[sp]`. Indexes, not
 * paths: a path is built only when an error names one (originField).
 */
export interface Origin {
  at: string;
  c: number;
  p: number;
  sc: number;
  sp: number;
}

const partPath = (at: string, c: number, p: number) => `${at}[${c}].parts[${p}]`;

export interface Turns {
  turns: Turn[];
  /** origins[turn][part]. */
  origins: Origin[][];
}

const part = (kind: MessageInitShape<typeof PartSchema>["kind"]) => create(PartSchema, { kind });

function mediaOf(b: { mimeType: string; data: string }, field: string): Part {
  if (!MIME.test(b.mimeType)) throw invalidArgument(`${field}.mimeType: ${JSON.stringify(b.mimeType)} is not a MIME type`, `${field}.mimeType`);
  const data = b.data.replace(/\s+/g, "");
  if (!data) throw invalidArgument(`${field}.data: inline data must not be empty`, `${field}.data`);
  if (!BASE64.test(data)) throw invalidArgument(`${field}.data: invalid base64 data`, `${field}.data`);
  return part({ case: "media", value: { mimeType: b.mimeType, source: { case: "data", value: new Uint8Array(Buffer.from(data, "base64")) } } });
}

/**
 * A part's fields only Gemini reads, as the client sent them: the part's own
 * (a media part's videoMetadata), those inside its data object, and a newer
 * code outcome. Undefined when there are none.
 */
function partExtras(p: wire.Part, kind: (typeof DATA_FIELDS)[number] | undefined): JsonObject | undefined {
  let x = unknownFields(p, PART_FIELDS);
  const known = kind && DATA_OBJECT_FIELDS[kind];
  if (known) {
    const data = p[kind] as JsonObject;
    let d = unknownFields(data, known);
    if (kind === "codeExecutionResult" && OUTCOMES[data.outcome as string] === undefined) (d ??= {}).outcome = data.outcome!;
    if (d) (x ??= {})[kind] = d;
  }
  return x;
}

/** Tool call ids: Gemini's are optional, the neutral model pairs calls and results by id. */
class CallIds {
  private pending: { id: string; name: string; used: boolean }[] = [];
  private fresh = true;
  /** A new model turn starts a new set of calls. */
  newTurn(): void {
    this.fresh = true;
  }
  call(id: string | undefined, name: string, fallback: string): string {
    if (this.fresh) this.pending = [];
    this.fresh = false;
    const callId = id || fallback;
    this.pending.push({ id: callId, name, used: false });
    return callId;
  }
  result(id: string | undefined, name: string, fallback: string): string {
    if (id) return id;
    const p = this.pending.find((c) => !c.used && c.name === name);
    if (!p) return fallback;
    p.used = true;
    return p.id;
  }
}

/** A text part, or a thought when it says so. */
const textOrThought = (p: wire.Part): Part => (p.thought ? part({ case: "thinking", value: { text: p.text! } }) : part({ case: "text", value: { text: p.text! } }));

function dataPart(p: wire.Part, f: string, kind: (typeof DATA_FIELDS)[number] | undefined, ids: CallIds): Part {
  switch (kind) {
    case undefined:
      return part({ case: "text", value: { text: "" } });
    case "text":
      return textOrThought(p);
    case "inlineData":
      return mediaOf(p.inlineData!, `${f}.inlineData`);
    case "fileData": {
      // One of this gateway's files (files.upload): the core reads it in before routing.
      const id = gatewayFileId(p.fileData!.fileUri);
      if (id) return part({ case: "media", value: { mimeType: "", source: { case: "fileId", value: id } } });
      throw invalidArgument(
        `${f}.fileData: fileUri must name a file uploaded to this gateway (files.upload); send other files base64-encoded in inlineData`,
        `${f}.fileData`,
        "file_data_not_supported",
      );
    }
    case "functionCall": {
      const c = p.functionCall!;
      const id = ids.call(c.id, c.name, `call_${f.replace(/\D+/g, "_").replace(/^_|_$/g, "")}`);
      return part({ case: "toolCall", value: { id, name: c.name, arguments: (c.args ?? {}) as JsonObject } });
    }
    case "functionResponse": {
      const r = p.functionResponse!;
      const keys = Object.keys(r.response);
      return part({
        case: "toolResult",
        value: {
          callId: ids.result(r.id, r.name, `call_${r.name}`),
          name: r.name,
          structured: r.response as JsonObject,
          isError: keys.length === 1 && keys[0] === "error",
          content: (r.parts ?? []).flatMap((x, i) => (x.inlineData ? [mediaOf(x.inlineData, `${f}.functionResponse.parts[${i}].inlineData`)] : [])),
        },
      });
    }
    case "executableCode":
      return part({ case: "executableCode", value: { language: p.executableCode!.language ?? "PYTHON", code: p.executableCode!.code } });
    case "codeExecutionResult":
      // A newer outcome is unspecified here (and goes to Gemini as sent: partExtras).
      return part({ case: "codeExecutionResult", value: { outcome: OUTCOMES[p.codeExecutionResult!.outcome] ?? CodeOutcome.UNSPECIFIED, output: p.codeExecutionResult!.output ?? "" } });
  }
}

const isEmptyText = (p: Part) => p.kind.case === "text" && p.kind.value.text === "";

/** The data field a part sets, or undefined; more than one is an error. */
function dataKind(p: wire.Part, at: string, ci: number, pi: number): (typeof DATA_FIELDS)[number] | undefined {
  let kind: (typeof DATA_FIELDS)[number] | undefined;
  for (const k of DATA_FIELDS) {
    if (p[k] === undefined) continue;
    if (kind !== undefined) {
      const f = partPath(at, ci, pi);
      const kinds = DATA_FIELDS.filter((x) => p[x] !== undefined);
      throw invalidArgument(`${f}: a part sets exactly one of ${DATA_FIELDS.join(", ")}; this one sets ${kinds.join(" and ")}`, f);
    }
    kind = k;
  }
  return kind;
}

/** Appends the parts of `${at}[ci]` to a turn. */
function addParts(c: wire.Content, at: string, ci: number, ids: CallIds, out: Part[], origins: Origin[]): void {
  for (let pi = 0; pi < c.parts.length; pi++) {
    const p = c.parts[pi]!;
    const kind = dataKind(p, at, ci, pi);
    const extras = partExtras(p, kind);
    if (!p.thoughtSignature && kind === "text" && !extras) {
      // The common case: a text or thought part, no signature to place, no path to build.
      if (p.thought) {
        const prev = out[out.length - 1];
        if (prev?.kind.case === "thinking" && !prev.signature) {
          // Streamed thought fragments are one thought.
          prev.kind.value.text += p.text!;
          continue;
        }
      }
      out.push(textOrThought(p));
      origins.push({ at, c: ci, p: pi, sc: ci, sp: pi });
      continue;
    }
    if (extras && kind === undefined) {
      // A part of a kind newer than the gateway: whole, for Gemini alone (its signature with it).
      out.push(create(PartSchema, { vendorExtras: { [GEMINI]: p as JsonObject } }));
      origins.push({ at, c: ci, p: pi, sc: ci, sp: pi });
      continue;
    }
    const f = partPath(at, ci, pi);
    if (kind === undefined && !p.thoughtSignature) throw invalidArgument(`${f}: a part must set one of ${DATA_FIELDS.join(", ")}`, f);
    if (p.thought && kind !== "text") throw invalidArgument(`${f}.thought: only text parts can be thoughts`, `${f}.thought`);
    const sig = p.thoughtSignature ? decodeThoughtSignature(p.thoughtSignature, `${f}.thoughtSignature`) : undefined;
    const np = dataPart(p, f, kind, ids);
    if (extras) np.vendorExtras = { [GEMINI]: extras };
    const last = out.length - 1;
    const prev = out[last];
    const openThought = prev?.kind.case === "thinking" && !prev.signature ? prev : undefined;
    const push = (x: Part) => {
      out.push(x);
      origins.push({ at, c: ci, p: pi, sc: ci, sp: pi });
    };
    /** The open thought's signature came from this part. */
    const signedHere = () => {
      origins[last]!.sc = ci;
      origins[last]!.sp = pi;
    };
    if (!sig) {
      // Not text (text without a signature took the path above): nothing to merge.
      push(np);
      continue;
    }
    if (sig.kind === "thought") {
      // A hidden thought, carried in the signature.
      if (openThought?.kind.case === "thinking" && openThought.kind.value.text === sig.text) {
        openThought.signature = sig.signature;
        signedHere();
      } else push(create(PartSchema, { kind: { case: "thinking", value: { text: sig.text } }, signature: sig.signature }));
      if (!isEmptyText(np)) push(np);
      continue;
    }
    if (np.kind.case === "thinking" && openThought?.kind.case === "thinking") {
      // Streamed thought fragments are one thought; the signature closes it.
      openThought.kind.value.text += np.kind.value.text;
      openThought.signature = sig.signature;
      signedHere();
      continue;
    }
    if (np.kind.case !== "thinking" && sig.signature.issuer !== GEMINI && openThought) {
      // The thinking's signature rides on the part after the thoughts.
      openThought.signature = sig.signature;
      signedHere();
      if (!isEmptyText(np)) push(np);
      continue;
    }
    np.signature = sig.signature;
    push(np);
  }
}

/** contents -> turns; `field` prefixes error fields. */
export function toCoreTurns(contents: wire.Content[], field = "contents"): Turns {
  const ids = new CallIds();
  const turns: Turn[] = [];
  const origins: Origin[][] = [];
  // A content with fields the turn does not name keeps them (for Gemini) in a turn of its own.
  let ownTurn = false;
  for (let ci = 0; ci < contents.length; ci++) {
    const c = contents[ci]!;
    const role = ROLES[c.role || "user"];
    if (role === undefined) throw invalidArgument(`${field}[${ci}].role: ${JSON.stringify(c.role)} is not a valid role; use user or model`, `${field}[${ci}].role`);
    if (c.parts.length === 0) throw invalidArgument(`${field}[${ci}].parts: must contain at least one part`, `${field}[${ci}].parts`);
    const extras = unknownFields(c, CONTENT_FIELDS);
    let turn = turns.at(-1);
    if (!turn || turn.role !== role || extras || ownTurn) {
      ownTurn = extras !== undefined;
      turn = create(TurnSchema, extras ? { role, vendorExtras: { [GEMINI]: extras } } : { role });
      turns.push(turn);
      origins.push([]);
      if (role === Role.ASSISTANT) ids.newTurn();
    }
    addParts(c, field, ci, ids, turn.parts, origins.at(-1)!);
  }
  return { turns, origins };
}

/**
 * The wire field of a neutral field about a part ("turns[1].parts[0].signature"
 * -> "contents[2].parts[1].thoughtSignature"), or undefined when it names none.
 */
export function originField(origins: Origin[][], field: string): string | undefined {
  const m = /^turns\[(\d+)\](?:\.parts\[(\d+)\])?(.*)$/.exec(field);
  if (!m) return undefined;
  const turn = origins[Number(m[1])];
  if (!turn?.length) return undefined;
  if (m[2] === undefined) return `${turn[0]!.at}[${turn[0]!.c}]${m[3]}`;
  const o = turn[Number(m[2])];
  if (!o) return undefined;
  if (m[3] === ".signature") return `${partPath(o.at, o.sc, o.sp)}.thoughtSignature`;
  // A named file's part: the core says source, this wire calls it fileData.
  if (m[3] === ".source") return `${partPath(o.at, o.c, o.p)}.fileData`;
  return partPath(o.at, o.c, o.p) + m[3];
}

export function toCoreSystem(c: wire.Content | undefined, field = "systemInstruction"): Part[] {
  if (!c) return [];
  return c.parts.map((p, i) => {
    const extras = unknownFields(p, PART_FIELDS);
    // A part of a kind newer than the gateway: whole, for Gemini alone.
    if (extras && DATA_FIELDS.every((k) => p[k] === undefined)) return create(PartSchema, { vendorExtras: { [GEMINI]: p as JsonObject } });
    if (p.text === undefined || DATA_FIELDS.some((k) => k !== "text" && p[k] !== undefined)) {
      throw invalidArgument(`${field}.parts[${i}]: a system instruction may only contain text`, `${field}.parts[${i}]`);
    }
    const t = part({ case: "text", value: { text: p.text } });
    if (extras) t.vendorExtras = { [GEMINI]: extras };
    return t;
  });
}
