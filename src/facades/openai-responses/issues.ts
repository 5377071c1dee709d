// zod issues -> OpenAI's 400 for /v1/responses (shared/openai-issues.ts), with
// this endpoint's integer fields; an unknown item names its `type`.
import type { z } from "zod";
import { describeIssues as describe, type Issue, type IssueRules } from "../shared/openai-issues.js";

export type { Issue } from "../shared/openai-issues.js";

const RULES: IssueRules = {
  integers: new Set(["max_output_tokens", "top_logprobs", "max_tool_calls"]),
  discriminator: "type",
};

export const describeIssues = (issues: z.core.$ZodIssue[], body: unknown): Issue => describe(issues, body, RULES);
