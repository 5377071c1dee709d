// The Gemini generateContent API (v1beta) as this provider speaks it upstream.
// Responses are read defensively, so these are TypeScript shapes only.

export interface Part {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType?: string; fileUri: string };
  functionCall?: { id?: string; name: string; args?: Record<string, unknown> };
  functionResponse?: { id?: string; name: string; response: Record<string, unknown>; parts?: Part[] };
  executableCode?: { language: string; code: string };
  codeExecutionResult?: { outcome: string; output?: string };
  [k: string]: unknown;
}

export interface Content {
  role?: "user" | "model";
  parts: Part[];
}

export interface FunctionDeclaration {
  name: string;
  description?: string;
  parameters?: unknown;
  parametersJsonSchema?: unknown;
}

export type Tool = { functionDeclarations: FunctionDeclaration[] } | { codeExecution: Record<string, unknown> } | Record<string, unknown>;

export interface GenerationConfig {
  stopSequences?: string[];
  responseMimeType?: string;
  responseSchema?: unknown;
  responseJsonSchema?: unknown;
  responseModalities?: string[];
  candidateCount?: number;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  responseLogprobs?: boolean;
  logprobs?: number;
  enableEnhancedCivicAnswers?: boolean;
  speechConfig?: unknown;
  imageConfig?: unknown;
  thinkingConfig?: { includeThoughts?: boolean; thinkingBudget?: number; thinkingLevel?: string };
  mediaResolution?: string;
  [k: string]: unknown;
}

export interface GenerateContentRequest {
  contents: Content[];
  systemInstruction?: Content;
  tools?: Tool[];
  toolConfig?: { functionCallingConfig?: { mode?: string; allowedFunctionNames?: string[] }; [extra: string]: unknown };
  safetySettings?: { category: string; threshold: string }[];
  generationConfig?: GenerationConfig;
  [extra: string]: unknown;
}

// ---------------------------------------------------------------- responses

export interface SafetyRating {
  category?: string;
  probability?: string;
  blocked?: boolean;
}

export interface LogprobCandidate {
  token?: string;
  tokenId?: number;
  logProbability?: number;
}

export interface Candidate {
  content?: { parts?: Part[]; role?: string };
  finishReason?: string;
  finishMessage?: string;
  safetyRatings?: SafetyRating[];
  citationMetadata?: Record<string, unknown>;
  groundingMetadata?: Record<string, unknown>;
  avgLogprobs?: number;
  logprobsResult?: { topCandidates?: { candidates?: LogprobCandidate[] }[]; chosenCandidates?: LogprobCandidate[] };
  index?: number;
  [k: string]: unknown;
}

export interface ModalityCount {
  modality?: string;
  tokenCount?: number;
}

export interface UsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  totalTokenCount?: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
  toolUsePromptTokenCount?: number;
  promptTokensDetails?: ModalityCount[];
  candidatesTokensDetails?: ModalityCount[];
  cacheTokensDetails?: ModalityCount[];
  toolUsePromptTokensDetails?: ModalityCount[];
  [k: string]: unknown;
}

export interface GenerateContentResponse {
  candidates?: Candidate[];
  promptFeedback?: { blockReason?: string; safetyRatings?: SafetyRating[]; blockReasonMessage?: string };
  usageMetadata?: UsageMetadata;
  modelVersion?: string;
  responseId?: string;
  error?: { code?: number; message?: string; status?: string; details?: unknown[] };
  [k: string]: unknown;
}

export interface CountTokensResponse {
  totalTokens?: number;
  cachedContentTokenCount?: number;
  promptTokensDetails?: ModalityCount[];
}
