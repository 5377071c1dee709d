// zod issues -> OpenAI's 400 for /v1/chat/completions (shared/openai-issues.ts),
// with this endpoint's integer fields and its roles in the order the API lists them.
import type { z } from "zod";
import { describeIssues as describe, type Issue, type IssueRules } from "../shared/openai-issues.js";

export type { Issue } from "../shared/openai-issues.js";

const RULES: IssueRules = {
  integers: new Set(["n", "max_tokens", "max_completion_tokens", "seed", "top_logprobs"]),
  discriminator: "",
  listed: { role: ["system", "assistant", "user", "function", "tool", "developer"] },
  missingModel: "you must provide a model parameter",
};

export const describeIssues = (issues: z.core.$ZodIssue[], body: unknown): Issue => describe(issues, body, RULES);
