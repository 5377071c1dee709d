// The chat procedures' input: a short, typed conversation for the console's playground.
import { z } from "zod";

export const chatGenerateInput = z.object({
  model: z.string().min(1).max(256),
  system: z.string().optional(),
  messages: z.array(z.object({ role: z.enum(["user", "assistant"]), content: z.string().min(1) })).min(1),
  maxTokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  stopSequences: z.array(z.string().min(1)).max(5).optional(),
});

export type ChatGenerateInput = z.infer<typeof chatGenerateInput>;
