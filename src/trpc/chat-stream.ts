// chat.stream: the core's streamed answer as a tRPC subscription (SSE), one
// event per text or thinking delta, so a browser can show it token by token.
import { create } from "../core/proto/create.js";
import { ChatInputSchema, FinishReason, Role, type ChatInput } from "../../gen/omnigate/chat/v1/chat_pb.js";
import type { TrpcContext } from "./context.js";
import { toTrpcError } from "./errors.js";
import type { ChatGenerateInput } from "./chat-input.js";

export function toChatInput(input: ChatGenerateInput): ChatInput {
  return create(ChatInputSchema, {
    model: input.model,
    system: input.system ? [{ kind: { case: "text", value: { text: input.system } } }] : [],
    turns: input.messages.map((m) => ({ role: m.role === "user" ? Role.USER : Role.ASSISTANT, parts: [{ kind: { case: "text" as const, value: { text: m.content } } }] })),
    config: {
      ...(input.maxTokens !== undefined ? { maxOutputTokens: input.maxTokens } : {}),
      ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
      stopSequences: input.stopSequences ?? [],
    },
  });
}

export const finishName = (r: FinishReason | undefined): string => (r === undefined ? "unspecified" : (FinishReason[r] ?? "unspecified").toLowerCase());

export type ChatStreamEvent =
  | { type: "start"; id: string; model: string; channel: string }
  | { type: "text"; text: string }
  | { type: "thinking"; text: string }
  | { type: "usage"; inputTokens: number; outputTokens: number }
  | { type: "finish"; finishReason: string }
  /** The call failed (before or after some text): the last event. Not a tRPC error, which the client would retry by calling the model again. */
  | { type: "error"; code: string; message: string };

export async function* chatStream(ctx: TrpcContext, input: ChatGenerateInput, signal: AbortSignal | undefined): AsyncGenerator<ChatStreamEvent> {
  const call = signal ? { ...ctx.call, signal: AbortSignal.any([signal, ctx.call.signal]) } : ctx.call;
  try {
    for await (const res of ctx.clients.chat.streamGenerate({ input: toChatInput(input) }, call)) {
      const e = res.event;
      switch (e.case) {
        case "start":
          yield { type: "start", id: e.value.id, model: e.value.model, channel: e.value.channel };
          break;
        case "partDelta":
          if (e.value.delta.case === "text") yield { type: "text", text: e.value.delta.value };
          else if (e.value.delta.case === "thinking") yield { type: "thinking", text: e.value.delta.value };
          break;
        case "usage":
          yield { type: "usage", inputTokens: Number(e.value.inputTokens), outputTokens: Number(e.value.outputTokens) };
          break;
        case "finish":
          if (e.value.candidateIndex === 0) yield { type: "finish", finishReason: finishName(e.value.finishReason) };
          break;
        default:
          break;
      }
    }
  } catch (err) {
    if (signal?.aborted) return;
    const e = toTrpcError(err);
    yield { type: "error", code: e.code, message: e.message };
  }
}
