// The local engine decides the whole answer up front ("the plan"): candidates
// with their parts, finish reasons and ratings, usage, prompt feedback, or a
// fault. generate returns it and stream replays it, so both always agree, and
// token counts come from the same tokenizer as count_tokens. Pure apart from
// random tool-call ids.
import { create } from "../../../core/proto/create.js";
import type { ConnectError } from "@connectrpc/connect";
import { CandidateSchema, FinishReason, PartSchema, type Candidate, type ChatInput, type Part, type PromptFeedback, type Usage } from "../../../../gen/omnigate/chat/v1/chat_pb.js";
import { planCodeRun } from "./code-exec.js";
import { faultDirective, faultError } from "../faults.js";
import { limitText } from "./limits.js";
import { logprobsFor } from "./logprobs.js";
import { answerText, promptHints, userRequest, type PromptHints } from "./prompt.js";
import { blockedFeedback, blockedWord, negligibleRatings } from "./safety.js";
import { sampleSchema } from "./schema-sample.js";
import { signPart, verifyInputSignatures } from "./signing.js";
import { thinkingOn, thinkingText, type Intent } from "./thinking.js";
import { countPart } from "../../../lib/tokenizer.js";
import { answerToolResults, chooseTools, resultsSince, resultToolName, toolCallPart, toolName } from "./tools.js";
import { usageFor } from "../../shared/token-usage.js";

/** Thinking budget when thinking is on without one. */
export const DEFAULT_THINKING_BUDGET = 1024;

export interface PlanOptions {
  blocklist: readonly string[];
  signingSecret: string;
  faultInjection: boolean;
}

export interface ChatPlan {
  candidates: Candidate[];
  usage: Usage;
  promptFeedback?: PromptFeedback;
  /** The call fails with this before any output. */
  fault?: ConnectError;
  /** Streams fail with this after their first text delta; whole answers fail with it outright. */
  midstream?: ConnectError;
}

/** The body of an answer before thinking and limits: what to say or which tools to call. */
type Body =
  { intent: Intent; kind: "calls"; calls: () => Part[] } | { intent: Intent; kind: "code"; code: NonNullable<ReturnType<typeof planCodeRun>> } | { intent: Intent; kind: "text"; text: string };

function textAnswer(input: ChatInput, hints: PromptHints): Body {
  const mime = input.config?.responseMimeType.toLowerCase() ?? "";
  const schema = input.config?.responseSchema;
  if (mime === "application/json") {
    const value = schema && Object.keys(schema).length ? sampleSchema(schema, hints) : { answer: answerText(hints.text) };
    return { intent: { kind: "json" }, kind: "text", text: JSON.stringify(value) };
  }
  if (mime === "text/x.enum") {
    const values = Array.isArray(schema?.enum) ? schema.enum.filter((v) => typeof v === "string") : [];
    if (values.length) return { intent: { kind: "enum" }, kind: "text", text: String(sampleSchema({ enum: values }, hints)) };
  }
  return { intent: { kind: "text" }, kind: "text", text: answerText(hints.text) };
}

function decideBody(input: ChatInput, request: number, said: string, hints: PromptHints): Body {
  const results = resultsSince(input, request);
  if (results.length) {
    return { intent: { kind: "tool_results", names: results.map((r) => resultToolName(input, r)) }, kind: "text", text: answerToolResults(input, results) };
  }
  const tools = chooseTools(input, said);
  if (tools.length) {
    return { intent: { kind: "tool_calls", names: tools.map(toolName) }, kind: "calls", calls: () => tools.map((t) => toolCallPart(t, hints)) };
  }
  const code = planCodeRun(input, said);
  if (code) return { intent: { kind: "code", expression: code.expression || "a greeting" }, kind: "code", code };
  return textAnswer(input, hints);
}

function candidate(input: ChatInput, opts: PlanOptions, said: string, body: Body, index: number): Candidate {
  const cfg = input.config;
  const max = cfg?.maxOutputTokens;
  const parts: Part[] = [];
  const thinking = thinkingOn(input);
  if (thinking) {
    const budget = (cfg?.thinking?.budgetTokens ?? 0) > 0 ? cfg!.thinking!.budgetTokens! : DEFAULT_THINKING_BUDGET;
    const cap = max !== undefined ? Math.min(budget, Math.max(1, Math.floor(max / 2))) : budget;
    // display "omitted": the block comes back with its text left out and a signature (over the empty text), as upstream.
    const text = cfg?.thinking?.display === "omitted" ? "" : thinkingText(said, body.intent, cap);
    const part = create(PartSchema, { kind: { case: "thinking", value: { text } } });
    part.signature = signPart(opts.signingSecret, part);
    parts.push(part);
  }
  let finish = FinishReason.STOP;
  let stopSequence = "";
  let text = body.kind === "text" ? body.text : body.kind === "code" ? body.code.summary : "";
  if (body.kind === "calls") {
    parts.push(...body.calls());
    finish = FinishReason.TOOL_USE;
    text = "";
  } else if (body.kind === "code") {
    parts.push(
      create(PartSchema, { kind: { case: "executableCode", value: { language: "PYTHON", code: body.code.code } } }),
      create(PartSchema, { kind: { case: "codeExecutionResult", value: { outcome: body.code.outcome, output: body.code.output } } }),
    );
  }
  if (body.kind !== "calls") {
    // Thinking and executed code count against max_output_tokens, as upstream.
    const used = parts.reduce((n, p) => n + countPart(p), 0);
    const limited = limitText(text, max === undefined ? undefined : Math.max(0, max - used), cfg?.stopSequences ?? []);
    finish = limited.finish;
    stopSequence = limited.stopSequence;
    if (limited.text) parts.push(create(PartSchema, { kind: { case: "text", value: { text: limited.text } } }));
  }
  if (thinking) for (const p of parts) if (p.kind.case === "toolCall" || p.kind.case === "text") p.signature = signPart(opts.signingSecret, p);
  const c = create(CandidateSchema, { index, parts, finishReason: finish, stopSequence, safetyRatings: negligibleRatings() });
  if (cfg?.responseLogprobs || (cfg?.logprobs ?? 0) > 0) {
    const lp = logprobsFor(parts, cfg?.logprobs);
    if (lp) {
      c.logprobs = lp.result;
      c.avgLogprobs = lp.avg;
    }
  }
  return c;
}

export function planChat(input: ChatInput, opts: PlanOptions): ChatPlan {
  const badSignature = verifyInputSignatures(input, opts.signingSecret);
  if (badSignature) return { candidates: [], usage: usageFor(input, [], false), fault: badSignature };
  // The user's own words in the turn answered; client-added context and tool output are not read.
  const { index: request, said } = userRequest(input);
  const fault = opts.faultInjection ? faultDirective(said) : undefined;
  if (fault && fault !== "midstream") return { candidates: [], usage: usageFor(input, [], false), fault: faultError(fault) };
  if (blockedWord(said, opts.blocklist)) return { candidates: [], usage: usageFor(input, [], false), promptFeedback: blockedFeedback() };
  const hints = promptHints(said);
  const body = decideBody(input, request, said, hints);
  const n = Math.max(1, input.config?.candidateCount ?? 1);
  const candidates = Array.from({ length: n }, (_, i) => candidate(input, opts, said, body, i));
  return {
    candidates,
    usage: usageFor(
      input,
      candidates.flatMap((c) => c.parts),
    ),
    ...(fault === "midstream" ? { midstream: faultError("midstream") } : {}),
  };
}
