// Capability interfaces every provider implements. The core depends on these,
// never on a concrete vendor.
import type { ChatInput, CountTokensResponse, GenerateResponse, StreamGenerateResponse } from "../../gen/omnigate/chat/v1/chat_pb.js";

export interface CallContext {
  signal: AbortSignal;
  requestId: string;
  /** The model name to send upstream (after the channel's modelMap). */
  upstreamModel: string;
}

export interface ChatProvider {
  /** Provider kind: "local", "openai", "anthropic", "gemini". */
  readonly kind: string;
  generate(input: ChatInput, ctx: CallContext): Promise<GenerateResponse>;
  /** Events in the order documented on StreamGenerateResponse; failures throw ConnectError. */
  stream(input: ChatInput, ctx: CallContext): AsyncIterable<StreamGenerateResponse>;
  countTokens(input: ChatInput, ctx: CallContext): Promise<CountTokensResponse>;
}
