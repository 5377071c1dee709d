// The built-in local chat engine: a deterministic simulator of a chat model
// that serves every model name while no upstream channel is configured. It is
// a tool for development and CI (it needs no keys and no network), not a
// model: the same input always gives the same content (ids are random).
//
// Behaviours (see plan.ts, which decides the whole answer up front):
// - What it reads: the user's own words in the request, the last user turn
//   with such words and no tool results; the context blocks agent clients
//   add to user turns (`<system-reminder>`, `<session_context>`, `<context>`
//   and kin, prompt.ts) and tool output are not read.
// - Text: answers `You said: <the user's words>`; honours max_output_tokens
//   (finish MAX_TOKENS) and stop_sequences (finish STOP_SEQUENCE); otherwise
//   finish STOP. Output tokens are never 0.
// - Tools: with tool_choice ANY (the first of allowed_names when given), or
//   when the user asks for a tool by name and the mode is not NONE, it calls
//   the tool(s). A name like an identifier (get_weather, ToolSearch) counts
//   as a whole word in any case; an everyday word (Read, lookup) as a tool
//   in any case ("use Bash", "the Bash tool"), else only as declared and,
//   when capitalised, not where a sentence starts. A call is a ToolCall
//   `toolu_<hex>` whose arguments validate against the tool's JSON Schema:
//   the required properties, filled from the prompt where natural (a `city`
//   takes a capitalised place name, a number property a number the user
//   wrote, an enum the value the prompt mentions, a `command` what follows
//   "run:"), and an optional one only where the user's words give it (name
//   it, name one of its values, or hold a value of its kind); finish
//   TOOL_USE. disable_parallel gives one call at most. Codex's shell tools
//   get the command only (exec_command {cmd}, shell {command: ["bash",
//   "-lc", cmd]}). Vendor tools get sensible inputs (bash {command},
//   computer {action: "screenshot"}, text editor {command: "view", path}).
//   Custom tools (free-text input) are also called when a fenced block in the
//   user's words fits their grammar (apply_patch: "*** Begin Patch" ... "***
//   End Patch"), with that block verbatim as input; else their input is the
//   first fenced block, a sample of a regex grammar, or a short text
//   (custom-input.ts). Once tool results for the request are
//   in (in a user turn after it), it answers them in text, `The tool <name>
//   returned: <result>`, and calls nothing again, whatever tool_choice says.
//   The engine has no web search: a declared one is left out (Codex declares
//   it every turn), and a tool_choice that forces it is refused
//   (InvalidArgument, unsupported_by_upstream, field tool_choice).
// - Thinking: when thinking is enabled, has a budget, or include_thoughts is
//   set (and enabled is not false), the first part is a Thinking part
//   ("Let me think about ..."), capped by budget_tokens (and by half of
//   max_output_tokens; empty with thinking display "omitted"), signed {issuer: "local", value: base64
//   HMAC-SHA256(secret, text)}; following text and tool-call parts are signed
//   too (signing.ts). Thinking tokens count in output_tokens and
//   thinking_tokens. Every input part with a "local" signature must verify,
//   else InvalidArgument (reason invalid_signature, field
//   turns[i].parts[j].signature). Redacted thinking is accepted and ignored.
// - JSON: response_mime_type application/json gives JSON that validates
//   against response_schema ({"answer": ...} without one); text/x.enum gives
//   one of the schema's enum values.
// - Safety: a config.local.blocklist word in the last user text gives no
//   candidates and prompt_feedback SAFETY (DANGEROUS_CONTENT HIGH, blocked);
//   answered candidates carry NEGLIGIBLE safety ratings.
// - Code execution: with a code_execution tool and a prompt asking to
//   calculate/run code, it emits ExecutableCode `print(<expr>)` (PYTHON), the
//   CodeExecutionResult (evaluated safely, Python semantics) and a text part.
// - candidate_count n gives n candidates; response_logprobs / logprobs give
//   chosen (and top-N) token log probabilities. seed changes nothing.
// - Streaming replays the very same answer as events: several deltas per
//   text, tool arguments as JSON fragments, usage at the end; chunkDelayMs
//   spaces the deltas and a client abort stops the stream.
// - count_tokens(input).input_tokens == usage.input_tokens of the answer; each
//   media part costs MEDIA_TOKENS.
// Fault directives (config.local.faultInjection, default true), in the last
// user text:
//   #fault:rate_limit  ResourceExhausted, reason rate_limited, retry after 1 s
//   #fault:overloaded  Unavailable, reason overloaded
//   #fault:internal    Internal, reason internal
//   #fault:timeout     DeadlineExceeded, reason deadline_exceeded
//   #fault:permission  PermissionDenied, reason permission_denied
//   #fault:midstream   streams fail with Unavailable (overloaded) after the
//                      first text delta; whole answers fail like overloaded
import { create } from "../../../core/proto/create.js";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { GenerateResponseSchema, type ChatInput, type GenerateResponse } from "../../../../gen/omnigate/chat/v1/chat_pb.js";
import type { LocalConfig } from "../../../config.js";
import { responseToEvents } from "../../../core/chat/stream.js";
import type { ChatProvider } from "../../../core/ports.js";
import { planChat, type ChatPlan, type PlanOptions } from "./plan.js";
import { splitTokens } from "../../../lib/tokenizer.js";
import { countTokensResponse } from "../../shared/token-usage.js";
import { unsupported } from "../../shared/http-errors.js";
import { HOSTED_TOOLS } from "../../../wire/openai/hosted.js";
import { forcesWebSearch } from "../../../core/chat/web-search.js";
import { RESPONSES_EXTRAS } from "../../../wire/openai/extras.js";

export const LOCAL_MODEL_VERSION = "omnigate-local-1";

/** Cuts text into deltas of about three tokens. */
export function chunker(text: string): string[] {
  const toks = splitTokens(text);
  const out: string[] = [];
  for (let i = 0; i < toks.length; i += 3) out.push(toks.slice(i, i + 3).join(""));
  return out.length ? out : [text];
}

export type LocalChatOptions = Partial<Pick<LocalConfig, "blocklist" | "chunkDelayMs" | "signingSecret" | "faultInjection">>;

export function localChatProvider(cfg: LocalChatOptions = {}): ChatProvider {
  const opts: PlanOptions = {
    blocklist: cfg.blocklist ?? ["forbidden-topic"],
    faultInjection: cfg.faultInjection ?? true,
    // Without a configured secret, signatures hold for this process only.
    signingSecret: cfg.signingSecret || randomBytes(32).toString("hex"),
  };
  const chunkDelayMs = cfg.chunkDelayMs ?? 0;

  const respond = (input: ChatInput): { resp: GenerateResponse; plan: ChatPlan } => {
    if (forcesWebSearch(input)) throw unsupported("local", "tool_choice", "a tool choice that forces web search");
    // OpenAI's hosted tools run on OpenAI's side only: the engine cannot stand in for them.
    const hosted = input.tools.findIndex((t) => t.kind.case === "vendor" && t.kind.value.vendor === "openai" && HOSTED_TOOLS.has(t.kind.value.type));
    if (hosted >= 0) throw unsupported("local", `tools[${hosted}]`, `the ${(input.tools[hosted]!.kind.value as { type: string }).type} tool`);
    // A prompt stored with OpenAI: its template is on OpenAI's side only.
    if (input.vendorExtras[RESPONSES_EXTRAS]?.prompt !== undefined) throw unsupported("local", "prompt", "a prompt stored with OpenAI");
    const plan = planChat(input, opts);
    if (plan.fault) throw plan.fault;
    const resp = create(GenerateResponseSchema, {
      id: "msg_" + randomBytes(12).toString("hex"),
      model: input.model,
      modelVersion: LOCAL_MODEL_VERSION,
      channel: "local",
      usage: plan.usage,
      candidates: plan.candidates,
      ...(plan.promptFeedback ? { promptFeedback: plan.promptFeedback } : {}),
    });
    return { resp, plan };
  };

  return {
    kind: "local",
    async generate(input) {
      const { resp, plan } = respond(input);
      if (plan.midstream) throw plan.midstream;
      return resp;
    },
    async *stream(input, ctx) {
      const { resp, plan } = respond(input);
      for (const e of responseToEvents(resp, chunker)) {
        if (ctx.signal.aborted) return;
        // A midstream fault with no text to stream fails before the finish.
        if (plan.midstream && e.event.case === "finish") throw plan.midstream;
        if (chunkDelayMs > 0 && e.event.case === "partDelta") await sleep(chunkDelayMs, undefined, { signal: ctx.signal }).catch(() => undefined);
        if (ctx.signal.aborted) return;
        yield e;
        if (plan.midstream && e.event.case === "partDelta" && e.event.value.delta.case === "text") throw plan.midstream;
      }
    },
    async countTokens(input) {
      return countTokensResponse(input);
    },
  };
}
