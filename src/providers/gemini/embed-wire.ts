// Gemini's embedding wire: models/{model}:embedContent (one content) and
// :batchEmbedContents (up to MAX_BATCH requests), as the gateway sends and reads them.
export interface EmbedContentRequest {
  /** "models/{model}"; required inside a batch. */
  model?: string;
  content: { parts: { text: string }[] };
  taskType?: string;
  title?: string;
  outputDimensionality?: number;
  [extra: string]: unknown;
}

export interface ContentEmbedding {
  values?: number[];
}

export interface EmbedContentResponse {
  embedding?: ContentEmbedding;
  usageMetadata?: { promptTokenCount?: number };
}

export interface BatchEmbedContentsRequest {
  requests: EmbedContentRequest[];
}

export interface BatchEmbedContentsResponse {
  embeddings?: ContentEmbedding[];
  usageMetadata?: { promptTokenCount?: number };
}

/** Most requests in one batchEmbedContents call (Google's limit). */
export const MAX_BATCH = 100;
