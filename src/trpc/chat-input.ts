// The chat procedures' input: a short, typed conversation for the console's playground.
import { z } from "zod";
import { isWellFormed } from "../lib/unicode.js";

/** Text the neutral model can hold: no unpaired surrogate (lib/unicode.ts). */
const text = () => z.string().refine(isWellFormed, "holds an unpaired UTF-16 surrogate");

export const chatGenerateInput = z.object({
  model: text().min(1).max(256),
  system: text().optional(),
  messages: z.array(z.object({ role: z.enum(["user", "assistant"]), content: text().min(1) })).min(1),
  maxTokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  stopSequences: z.array(text().min(1)).max(5).optional(),
});

export type ChatGenerateInput = z.infer<typeof chatGenerateInput>;
