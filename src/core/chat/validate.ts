// Meaning checks the core makes on every chat input, whoever sent it. Shape is
// checked by each facade (and by protobuf decoding for RPC callers).
import type { ChatInput } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { invalidArgument } from "../errors.js";

export function checkChatInput(input: ChatInput | undefined, opts: { requireTurns: boolean }): ChatInput {
  if (!input) throw invalidArgument("input is required", "input");
  if (!input.model) throw invalidArgument("model is required", "model");
  if (input.model.length > 256) throw invalidArgument("model must be at most 256 characters", "model");
  if (opts.requireTurns && input.turns.length === 0 && !input.cachedContent) throw invalidArgument("at least one turn is required", "turns");
  const c = input.config;
  if (c) {
    if (c.maxOutputTokens !== undefined && c.maxOutputTokens < 1) throw invalidArgument("max_output_tokens must be at least 1", "config.max_output_tokens");
    if (c.temperature !== undefined && !(c.temperature >= 0 && c.temperature <= 2)) throw invalidArgument("temperature must be between 0 and 2", "config.temperature");
    if (c.topP !== undefined && !(c.topP >= 0 && c.topP <= 1)) throw invalidArgument("top_p must be between 0 and 1", "config.top_p");
    if (c.topK !== undefined && c.topK < 1) throw invalidArgument("top_k must be at least 1", "config.top_k");
    if (c.candidateCount !== undefined && (c.candidateCount < 1 || c.candidateCount > 8)) throw invalidArgument("candidate_count must be between 1 and 8", "config.candidate_count");
  }
  input.tools.forEach((t, i) => {
    if (t.kind.case !== "custom") return;
    const { name, format } = t.kind.value;
    if (!name) throw invalidArgument("a custom tool needs a name", `tools[${i}].custom.name`);
    // Emulating a grammar elsewhere needs its text; newer format types pass to the upstreams that know them.
    if (format?.type === "grammar" && typeof format.definition !== "string") throw invalidArgument("a grammar format needs a definition", `tools[${i}].custom.format.definition`);
  });
  return input;
}
