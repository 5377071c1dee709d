// The wire-format facades the HTTP listener hosts. Each is a fastify plugin
// that keeps its parsers, hooks and error handler to itself.
import type { FastifyPluginAsync } from "fastify";
import type { FacadeOptions } from "../facades/shared/options.js";
import { messagesFacade } from "../facades/messages/plugin.js";
import { openaiModelsFacade } from "../facades/openai-models/plugin.js";
import { openaiImagesFacade } from "../facades/openai-images/plugin.js";
import { openaiChatFacade } from "../facades/openai-chat/plugin.js";
import { openaiResponsesFacade } from "../facades/openai-responses/plugin.js";
import { generateContentFacade } from "../facades/generate-content/plugin.js";
import { imageBotFacade } from "../facades/image-bot/plugin.js";
import { videoFacade } from "../facades/video/plugin.js";
import { openaiEmbeddingsFacade } from "../facades/openai-embeddings/plugin.js";

export interface Facade {
  name: string;
  plugin: FastifyPluginAsync<FacadeOptions>;
}

export const facades: Facade[] = [
  { name: "messages", plugin: messagesFacade },
  { name: "openai-models", plugin: openaiModelsFacade },
  { name: "openai-chat", plugin: openaiChatFacade },
  { name: "openai-responses", plugin: openaiResponsesFacade },
  { name: "openai-images", plugin: openaiImagesFacade },
  { name: "openai-embeddings", plugin: openaiEmbeddingsFacade },
  { name: "generate-content", plugin: generateContentFacade },
  { name: "image-bot", plugin: imageBotFacade },
  { name: "video", plugin: videoFacade },
];
