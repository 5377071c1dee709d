// OpenAI's embeddings wire (POST /v1/embeddings), as the gateway sends and
// reads it: the request it builds and the answer it accepts (vectors as float
// arrays or, with encoding_format "base64", little-endian float32 bytes).
export interface EmbeddingsRequest {
  model: string;
  input: string | string[] | number[] | number[][];
  encoding_format?: "float" | "base64";
  dimensions?: number;
  user?: string;
  [extra: string]: unknown;
}

export interface EmbeddingObject {
  object?: string;
  index?: number;
  embedding?: number[] | string;
}

export interface EmbeddingsResponse {
  object?: string;
  data?: EmbeddingObject[];
  model?: string;
  usage?: { prompt_tokens?: number; total_tokens?: number };
}
