// OpenAI's token logprobs ({token, logprob, top_logprobs}), as Chat
// Completions and the Responses API both give them -> the neutral result.
import { create } from "../../core/proto/create.js";
import { LogprobsResultSchema, type LogprobsResult } from "../../../gen/omnigate/chat/v1/chat_pb.js";

export interface OpenAITokenLogprob {
  token: string;
  logprob: number;
  top_logprobs?: { token: string; logprob: number }[] | null;
}

/** The neutral logprobs of the tokens; undefined when there are none. */
export function openaiLogprobs(tokens: readonly OpenAITokenLogprob[] | null | undefined): LogprobsResult | undefined {
  if (!tokens?.length) return undefined;
  return create(LogprobsResultSchema, {
    chosenCandidates: tokens.map((t) => ({ token: t.token, logProbability: t.logprob })),
    topCandidates: tokens.map((t) => ({ candidates: (t.top_logprobs ?? []).map((c) => ({ token: c.token, logProbability: c.logprob })) })),
  });
}
