// The built-in local chat engine: a deterministic simulator that serves every
// model name when no upstream is configured. A tool for development and CI.
import { create } from "@bufbuild/protobuf";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { CandidateSchema, CountTokensResponseSchema, GenerateResponseSchema, ModalityTokensSchema, Modality, type GenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import type { LocalConfig } from "../../config.js";
import { responseToEvents } from "../../core/chat/stream.js";
import type { ChatProvider } from "../types.js";
import { planChat } from "./chat-plan.js";
import { countInput, splitTokens } from "./tokenizer.js";

export const LOCAL_MODEL_VERSION = "omnigate-local-1";

/** Cuts text into deltas of about three tokens. */
function chunker(text: string): string[] {
  const toks = splitTokens(text);
  const out: string[] = [];
  for (let i = 0; i < toks.length; i += 3) out.push(toks.slice(i, i + 3).join(""));
  return out.length ? out : [text];
}

export function localChatProvider(cfg: LocalConfig): ChatProvider {
  const respond = (input: Parameters<ChatProvider["generate"]>[0]): GenerateResponse => {
    const plan = planChat(input, cfg);
    return create(GenerateResponseSchema, {
      id: "msg_" + randomBytes(12).toString("hex"),
      model: input.model,
      modelVersion: LOCAL_MODEL_VERSION,
      channel: "local",
      usage: plan.usage,
      ...(plan.promptFeedback ? { promptFeedback: plan.promptFeedback } : {}),
      candidates: plan.promptFeedback?.blockReason
        ? []
        : [create(CandidateSchema, { index: 0, parts: plan.parts, finishReason: plan.finishReason, stopSequence: plan.stopSequence })],
    });
  };
  return {
    kind: "local",
    async generate(input) {
      return respond(input);
    },
    async *stream(input, ctx) {
      const resp = respond(input);
      for (const e of responseToEvents(resp, chunker)) {
        if (ctx.signal.aborted) return;
        if (cfg.chunkDelayMs > 0 && e.event.case === "partDelta") await sleep(cfg.chunkDelayMs, undefined, { signal: ctx.signal }).catch(() => undefined);
        if (ctx.signal.aborted) return;
        yield e;
      }
    },
    async countTokens(input) {
      const c = countInput(input);
      return create(CountTokensResponseSchema, {
        inputTokens: BigInt(c.total),
        inputDetails: [
          create(ModalityTokensSchema, { modality: Modality.TEXT, tokenCount: BigInt(c.total - c.media) }),
          ...(c.media ? [create(ModalityTokensSchema, { modality: Modality.IMAGE, tokenCount: BigInt(c.media) })] : []),
        ],
      });
    },
  };
}
