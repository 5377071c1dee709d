// The embedding models the local engine imitates: the size of their vectors,
// whether `dimensions` may shorten them, and how long an input may be. A name
// it does not list gets the defaults of its family (Gemini-named: 768, else
// 1,536).
export interface LocalEmbeddingModel {
  id: string;
  /** Default vector size. */
  dimensions: number;
  /** Whether a smaller size may be asked for (ada-002 cannot). */
  shortenable: boolean;
  /** Most tokens in one input. */
  maxInputTokens: number;
  /** Longer inputs are cut to maxInputTokens (Gemini) rather than refused (OpenAI). */
  truncates: boolean;
  ownedBy: string;
}

export const LOCAL_EMBEDDING_MODELS: readonly LocalEmbeddingModel[] = [
  { id: "text-embedding-3-small", dimensions: 1536, shortenable: true, maxInputTokens: 8192, truncates: false, ownedBy: "openai" },
  { id: "text-embedding-3-large", dimensions: 3072, shortenable: true, maxInputTokens: 8192, truncates: false, ownedBy: "openai" },
  { id: "text-embedding-ada-002", dimensions: 1536, shortenable: false, maxInputTokens: 8192, truncates: false, ownedBy: "openai" },
  { id: "gemini-embedding-001", dimensions: 3072, shortenable: true, maxInputTokens: 2048, truncates: true, ownedBy: "google" },
  { id: "text-embedding-004", dimensions: 768, shortenable: true, maxInputTokens: 2048, truncates: true, ownedBy: "google" },
];

/** Gemini's embedding names ("gemini-embedding-*", "embedding-001", "text-embedding-00N", "text-multilingual-embedding-*"). */
const GEMINI_NAMES = /^(models\/)?(gemini-|embedding-\d|text-embedding-\d|text-multilingual-)/;

/** Most tokens in all inputs of one request (OpenAI's limit; the engine keeps every request this small). */
export const MAX_REQUEST_TOKENS = 300_000;

export function localEmbeddingModel(name: string): LocalEmbeddingModel {
  const id = name.replace(/^models\//, "");
  const known = LOCAL_EMBEDDING_MODELS.find((m) => m.id === id);
  if (known) return known;
  return GEMINI_NAMES.test(id)
    ? { id, dimensions: 768, shortenable: true, maxInputTokens: 2048, truncates: true, ownedBy: "google" }
    : { id, dimensions: 1536, shortenable: true, maxInputTokens: 8192, truncates: false, ownedBy: "omnigate-local" };
}
