// The output items of a Response, built part by part from the neutral parts
// of one candidate. The unary answer feeds it whole parts and the stream
// feeds it part_start / part_delta / part_stop, so both render the same items;
// in a stream it also records the events each step implies (notes B.6).
//
// Grouping: consecutive thinking and redacted-thinking parts are one
// `reasoning` item (a summary entry per part with thought text; the parts
// sealed into encrypted_content when the client asked); consecutive text
// parts (code and its output as fenced text) are one `message` item, opened
// at its first text or annotation, whose consecutive non-refusal texts are one
// `output_text` and refusals a `refusal` part; each tool call, each image
// and each web search (a `web_search_call`, whole, with its three search
// events in a stream) is an item of its own. Parts of no such kind are left
// out without ending a group. Pure.
import { isResponsesItem } from "../../wire/openai/hosted.js";
import { clone, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { isWholeBlock } from "../../core/json-fields.js";
import { create } from "../../core/proto/create.js";
import { PartSchema, WebSearchStatus, type Part, type PartDelta, type WebSearchCall } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { itemId } from "./ids.js";
import type { ResponseMeta } from "./meta.js";
import { sealParts } from "./seal.js";

/** One server-sent event of a Responses stream. */
export type ResponseEvent = { type: string; sequence_number: number } & JsonObject;

type TextContent = { type: "output_text"; text: string; annotations: JsonObject[]; logprobs: JsonObject[] };
type RefusalContent = { type: "refusal"; refusal: string };
type SummaryText = { type: "summary_text"; text: string };
type MessageItem = { id: string; type: "message"; status: string; content: (TextContent | RefusalContent)[]; role: "assistant" };
type ReasoningItem = { id: string; type: "reasoning"; summary: SummaryText[]; encrypted_content?: string };
type CallItem = { id: string; type: "function_call" | "custom_tool_call"; status: string; arguments?: string; input?: string; call_id: string; name: string; namespace?: string };
export type OutputItem = MessageItem | ReasoningItem | CallItem | JsonObject;

/** Where a part goes in the output. */
export type Group = "reasoning" | "message" | "call" | "image" | "search" | "hosted" | "skip";

const VENDOR = "openai";

export function groupOf(p: Part): Group {
  switch (p.kind.case) {
    case "thinking":
    case "redactedThinking":
      return "reasoning";
    case "text":
    case "executableCode":
    case "codeExecutionResult":
      return "message";
    case "toolCall":
      return "call";
    case "webSearchCall":
      return "search";
    case "media":
      return p.kind.value.source.case === "data" && p.kind.value.mimeType.startsWith("image/") ? "image" : "skip";
    case undefined: {
      const x = p.vendorExtras[VENDOR];
      return x && isResponsesItem(x) && x.type !== "compaction" ? "hosted" : "skip";
    }
    default:
      return "skip";
  }
}

/** A text part standing in for a refusal OpenAI gave. */
export const isRefusal = (p: Part): boolean => p.kind.case === "text" && p.vendorExtras[VENDOR]?.type === "refusal";

/** The text a message part adds: code and its output as fenced blocks. */
export function partText(p: Part): string {
  const k = p.kind;
  if (k.case === "text") return k.value.text;
  if (k.case === "executableCode") return "```" + k.value.language.toLowerCase() + "\n" + k.value.code + "\n```";
  if (k.case === "codeExecutionResult") return "```\n" + k.value.output + "\n```";
  return "";
}

const isObject = (v: JsonValue | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The annotations of a text part whose text spans [start, end) of its
 * output_text: its citations with a url as url_citations over that span, and
 * annotations an OpenAI upstream sent (Chat's nested shape made flat).
 */
export function annotationsOf(citations: readonly JsonObject[], p: Part, start: number, end: number): JsonObject[] {
  const out: JsonObject[] = [];
  for (const c of citations) {
    if (typeof c.url === "string") out.push({ type: "url_citation", start_index: start, end_index: end, title: typeof c.title === "string" ? c.title : "", url: c.url });
  }
  const x = p.vendorExtras[VENDOR];
  if (x && !isWholeBlock(x) && Array.isArray(x.annotations)) {
    for (const a of x.annotations) {
      if (!isObject(a) || typeof a.type !== "string") continue;
      const nested = a[a.type];
      out.push(isObject(nested) ? { type: a.type, ...nested } : a);
    }
  }
  return out;
}

interface PartState {
  index: number;
  group: Group;
  stopped: boolean;
  /** The part as it started (text parts: its extras' annotations). */
  part: Part;
  refusal: boolean;
  citations: JsonObject[];
  /** Where the part's first text went in its output_text. */
  start?: number;
  /** Thinking: the part as it grows, to be sealed. */
  sealed?: Part;
  summary?: SummaryText;
  summaryIndex: number;
  /** Tool calls: the item, its output index and the arguments or input so far. */
  call?: { index: number; item: CallItem; text: string; custom: boolean };
}

type OpenGroup = { kind: "reasoning"; index: number; item: ReasoningItem; parts: Part[] } | { kind: "message"; index: number; item?: MessageItem; content?: TextContent | RefusalContent };

export class OutputAssembler {
  readonly output: OutputItem[] = [];
  /** A refusal part was seen (a refusal is an answer, not a filtered one). */
  refused = false;
  /** Where the stream's events go; undefined for a unary answer. */
  events: ResponseEvent[] | undefined;
  private seq = 0;
  private group: OpenGroup | undefined;
  private readonly parts = new Map<number, PartState>();
  private compactText = "";

  constructor(private readonly meta: ResponseMeta) {}

  /**
   * Records an event with the next sequence number (streams only: callers
   * skip building the fields of a unary answer's). `base` and `fields` are
   * spread after literal keys: an object that starts as a spread and then
   * gains keys is, in V8, promoted to the old generation.
   */
  emit(type: string, base: JsonObject, fields?: JsonObject): void {
    this.events?.push({ type, sequence_number: this.seq++, ...base, ...fields });
  }

  /** A part begins: a skeleton in a stream, the whole part in a unary answer. */
  start(index: number, p: Part): void {
    const g = groupOf(p);
    const st: PartState = { index, group: g, stopped: false, part: p, refusal: isRefusal(p), citations: p.kind.case === "text" ? [...p.kind.value.citations] : [], summaryIndex: -1 };
    this.parts.set(index, st);
    if (g === "skip") return;
    if (st.refusal) this.refused = true;
    if (this.meta.compact) {
      if (g === "message" && !st.refusal) this.compactText += partText(p);
      return;
    }
    if (g === "call" || g === "image" || g === "search" || g === "hosted" || g !== this.group?.kind) this.closeGroup(false);
    if (g === "reasoning") this.startThinking(st, p);
    else if (g === "message") this.text(st, partText(p));
    else if (g === "call" && p.kind.case === "toolCall") this.startCall(st, p.kind.value);
    else if (g === "image" && p.kind.case === "media" && p.kind.value.source.case === "data") this.image(Buffer.from(p.kind.value.source.value).toString("base64"));
    else if (g === "search" && p.kind.case === "webSearchCall") this.search(p.kind.value);
    else if (g === "hosted") this.hosted(p.vendorExtras[VENDOR]!);
  }

  delta(index: number, d: PartDelta["delta"]): void {
    const st = this.parts.get(index);
    if (!st || st.stopped || d.case === undefined) return;
    switch (d.case) {
      case "text":
        if (st.group !== "message") return;
        if (this.meta.compact) this.compactText += st.refusal ? "" : d.value;
        else this.text(st, d.value);
        return;
      case "thinking":
        if (st.sealed?.kind.case === "thinking" && !this.meta.compact) this.thought(st, d.value);
        return;
      case "argumentsJson":
        if (st.call && !st.call.custom) this.callText(st, d.value);
        return;
      case "input":
        if (st.call?.custom) this.callText(st, d.value);
        return;
      case "signature":
        if (st.sealed) st.sealed.signature = d.value;
        return;
      case "citation":
        if (st.group === "message") st.citations.push(d.value);
        return;
    }
  }

  /** A part ends: a thought's summary entry, a text's annotations, a call's item. */
  stop(index: number): void {
    const st = this.parts.get(index);
    if (!st || st.stopped) return;
    st.stopped = true;
    if (this.meta.compact) return;
    if (st.group === "reasoning") {
      if (this.group?.kind === "reasoning") this.endSummary(this.group, st);
    } else if (st.group === "message" && !st.refusal) this.annotate(st);
    else if (st.call) this.endCall(st);
  }

  /** The answer is over: the open item ends, as incomplete when the answer was cut short; open calls end. */
  close(incomplete: boolean): void {
    for (const st of this.parts.values()) if (st.call && !st.stopped) this.stop(st.index);
    this.closeGroup(incomplete);
  }

  /** A failure: items still open are marked incomplete (for the failed Response). */
  abandon(): void {
    if (this.group?.kind === "message" && this.group.item) this.group.item.status = "incomplete";
    for (const st of this.parts.values()) if (st.call && !st.stopped) st.call.item.status = "incomplete";
  }

  /** The one item of a compaction: the answer's text, sealed. */
  compaction(): JsonObject {
    const text = create(PartSchema, { kind: { case: "text", value: { text: this.compactText } } });
    return { id: itemId("cmp", this.meta.id, 0), type: "compaction", encrypted_content: sealParts(this.meta.sealer, [text]) };
  }

  // ------------------------------------------------------------ reasoning

  private startThinking(st: PartState, p: Part): void {
    let g = this.group;
    if (g?.kind !== "reasoning") {
      const index = this.output.length;
      const id = itemId("rs", this.meta.id, index);
      g = this.group = { kind: "reasoning", index, item: { id, type: "reasoning", summary: [] }, parts: [] };
      this.output.push(g.item);
      if (this.events) this.emit("response.output_item.added", { output_index: index, item: { id, type: "reasoning", summary: [] } });
    }
    const sealed = clone(PartSchema, p);
    g.parts.push(sealed);
    st.sealed = sealed;
    if (sealed.kind.case === "thinking") {
      const text = sealed.kind.value.text;
      sealed.kind.value.text = "";
      this.thought(st, text);
    }
  }

  private thought(st: PartState, d: string): void {
    const g = this.group;
    if (!d || g?.kind !== "reasoning" || st.sealed?.kind.case !== "thinking") return;
    st.sealed.kind.value.text += d;
    const base = { item_id: g.item.id, output_index: g.index };
    if (!st.summary) {
      st.summary = { type: "summary_text", text: "" };
      st.summaryIndex = g.item.summary.length;
      g.item.summary.push(st.summary);
      if (this.events) this.emit("response.reasoning_summary_part.added", base, { summary_index: st.summaryIndex, part: { type: "summary_text", text: "" } });
    }
    st.summary.text += d;
    if (this.events) this.emit("response.reasoning_summary_text.delta", base, { summary_index: st.summaryIndex, delta: d });
  }

  private endSummary(g: Extract<OpenGroup, { kind: "reasoning" }>, st: PartState): void {
    const s = st.summary;
    if (!s) return;
    st.summary = undefined;
    const base = { item_id: g.item.id, output_index: g.index, summary_index: st.summaryIndex };
    if (this.events) this.emit("response.reasoning_summary_text.done", base, { text: s.text });
    if (this.events) this.emit("response.reasoning_summary_part.done", base, { part: { type: "summary_text", text: s.text } });
  }

  // ------------------------------------------------------------ message

  /** The message's current content part of `type`, opening the message and the part as needed. */
  private content(type: "output_text" | "refusal"): { g: Extract<OpenGroup, { kind: "message" }>; c: TextContent | RefusalContent; ci: number } {
    const g = this.group as Extract<OpenGroup, { kind: "message" }>;
    if (!g.item) {
      g.index = this.output.length;
      const id = itemId("msg", this.meta.id, g.index);
      g.item = { id, type: "message", status: "in_progress", content: [], role: "assistant" };
      this.output.push(g.item);
      if (this.events) this.emit("response.output_item.added", { output_index: g.index, item: { id, type: "message", status: "in_progress", content: [], role: "assistant" } });
    }
    if (g.content?.type !== type) {
      this.endContent(g);
      const c: TextContent | RefusalContent = type === "output_text" ? { type, text: "", annotations: [], logprobs: [] } : { type, refusal: "" };
      g.content = c;
      g.item.content.push(c);
      const part: JsonObject = type === "output_text" ? { type, text: "", annotations: [], logprobs: [] } : { type, refusal: "" };
      if (this.events) this.emit("response.content_part.added", { item_id: g.item.id, output_index: g.index, content_index: g.item.content.length - 1, part });
    }
    return { g, c: g.content, ci: g.item.content.length - 1 };
  }

  private text(st: PartState, d: string): void {
    if (this.group?.kind !== "message") {
      this.closeGroup(false);
      this.group = { kind: "message", index: -1 };
    }
    if (!d) return;
    const { g, c, ci } = this.content(st.refusal ? "refusal" : "output_text");
    const base = { item_id: g.item!.id, output_index: g.index, content_index: ci };
    if (c.type === "refusal") {
      c.refusal += d;
      if (this.events) this.emit("response.refusal.delta", base, { delta: d });
    } else {
      st.start ??= c.text.length;
      c.text += d;
      if (this.events) this.emit("response.output_text.delta", base, { delta: d, logprobs: [] });
    }
  }

  private annotate(st: PartState): void {
    const g = this.group;
    if (g?.kind !== "message") return;
    const cur = g.content?.type === "output_text" ? g.content : undefined;
    const end = cur?.text.length ?? 0;
    const anns = annotationsOf(st.citations, st.part, st.start ?? end, end);
    if (!anns.length) return;
    const { c, ci } = this.content("output_text");
    for (const a of anns) {
      const annotations = (c as TextContent).annotations;
      annotations.push(a);
      if (this.events) this.emit("response.output_text.annotation.added", { item_id: g.item!.id, output_index: g.index, content_index: ci, annotation_index: annotations.length - 1, annotation: a });
    }
  }

  private endContent(g: Extract<OpenGroup, { kind: "message" }>): void {
    const c = g.content;
    if (!c || !g.item) return;
    g.content = undefined;
    if (!this.events) return;
    const base = { item_id: g.item.id, output_index: g.index, content_index: g.item.content.length - 1 };
    if (c.type === "output_text") this.emit("response.output_text.done", base, { text: c.text, logprobs: [] });
    else this.emit("response.refusal.done", base, { refusal: c.refusal });
    this.emit("response.content_part.done", base, { part: { ...c } });
  }

  private closeGroup(incomplete: boolean): void {
    const g = this.group;
    if (!g) return;
    this.group = undefined;
    if (g.kind === "reasoning") {
      for (const st of this.parts.values()) if (st.summary) this.endSummary(g, st);
      if (this.meta.includeEncrypted) g.item.encrypted_content = sealParts(this.meta.sealer, g.parts);
      if (this.events) this.emit("response.output_item.done", { output_index: g.index, item: g.item });
      return;
    }
    if (!g.item) return;
    this.endContent(g);
    g.item.status = incomplete ? "incomplete" : "completed";
    if (this.events) this.emit("response.output_item.done", { output_index: g.index, item: g.item });
  }

  // ------------------------------------------------------------ calls and images

  private startCall(st: PartState, k: { id: string; name: string; arguments?: JsonObject; input?: string }): void {
    const index = this.output.length;
    const custom = k.input !== undefined;
    const tn = this.meta.toolNames.get(k.name);
    const ns = tn?.namespace ? { namespace: tn.namespace } : {};
    const name = tn?.name ?? k.name;
    const item: CallItem = custom
      ? { id: itemId("ctc", this.meta.id, index), type: "custom_tool_call", status: "in_progress", call_id: k.id, name, ...ns, input: "" }
      : { id: itemId("fc", this.meta.id, index), type: "function_call", status: "in_progress", arguments: "", call_id: k.id, name, ...ns };
    this.output.push(item);
    if (this.events) this.emit("response.output_item.added", { output_index: index, item: { ...item } });
    st.call = { index, item, text: "", custom };
    this.callText(st, custom ? (k.input ?? "") : k.arguments ? JSON.stringify(k.arguments) : "");
  }

  private callText(st: PartState, d: string): void {
    const call = st.call!;
    if (!d) return;
    call.text += d;
    if (call.custom) call.item.input = call.text;
    else call.item.arguments = call.text;
    if (this.events) this.emit(call.custom ? "response.custom_tool_call_input.delta" : "response.function_call_arguments.delta", { item_id: call.item.id, output_index: call.index, delta: d });
  }

  private endCall(st: PartState): void {
    const call = st.call!;
    // A call without arguments has an empty object, as OpenAI's always do.
    if (!call.custom && !call.text) this.callText(st, "{}");
    call.item.status = "completed";
    if (!this.events) return;
    const base = { item_id: call.item.id, output_index: call.index };
    if (call.custom) this.emit("response.custom_tool_call_input.done", base, { input: call.text });
    else this.emit("response.function_call_arguments.done", base, { name: call.item.name, arguments: call.text });
    this.emit("response.output_item.done", { output_index: call.index, item: call.item });
  }

  /**
   * A web search the upstream ran: one web_search_call item, whole (the
   * search is over when its part comes), its first query as `query`, all of
   * them as `queries` when there are more, the pages as `sources`.
   */
  private search(w: WebSearchCall): void {
    const index = this.output.length;
    const id = itemId("ws", this.meta.id, index);
    const action: JsonObject = { type: "search", query: w.queries[0] ?? "" };
    if (w.queries.length > 1) action.queries = w.queries;
    const started: JsonObject = { id, type: "web_search_call", status: "in_progress", action: { ...action } };
    if (w.sources.length) action.sources = w.sources.map((s) => ({ type: "url", url: s.url }));
    const status = w.status === WebSearchStatus.FAILED ? "failed" : w.status === WebSearchStatus.IN_PROGRESS ? "in_progress" : "completed";
    const item: JsonObject = { id, type: "web_search_call", status, action };
    this.output.push(item);
    const base = { item_id: id, output_index: index };
    if (this.events) this.emit("response.output_item.added", { output_index: index, item: started });
    if (this.events) this.emit("response.web_search_call.in_progress", base);
    if (this.events) this.emit("response.web_search_call.searching", base);
    if (status === "completed") this.emit("response.web_search_call.completed", base);
    if (this.events) this.emit("response.output_item.done", { output_index: index, item });
  }

  /** An image the model made: one image_generation_call item, whole. */
  /** A hosted tool's item an OpenAI Responses channel made (code_interpreter_call, mcp_call, ...): as it came, whole. */
  private hosted(item: JsonObject): void {
    const index = this.output.length;
    this.output.push(item as OutputItem);
    if (this.events) this.emit("response.output_item.added", { output_index: index, item });
    if (this.events) this.emit("response.output_item.done", { output_index: index, item });
  }

  private image(base64: string): void {
    const index = this.output.length;
    const id = itemId("ig", this.meta.id, index);
    const item: JsonObject = { id, type: "image_generation_call", status: "completed", result: base64 };
    this.output.push(item);
    if (this.events) this.emit("response.output_item.added", { output_index: index, item: { id, type: "image_generation_call", status: "in_progress", result: null } });
    if (this.events) this.emit("response.output_item.done", { output_index: index, item });
  }
}
