/**
 * The parts of Gemini's generate-content API (v1beta) the translation reads and writes.
 * https://ai.google.dev/api/generate-content
 */

export interface GeminiFunctionCall {
  id?: string;
  name: string;
  args?: Record<string, unknown>;
}

export interface GeminiPart {
  text?: string;
  /** A thought summary part (thinking models); not part of the answer. */
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType?: string; fileUri: string };
  functionCall?: GeminiFunctionCall;
  functionResponse?: { id?: string; name: string; response: Record<string, unknown> };
}

export interface GeminiContent {
  role?: 'user' | 'model';
  parts: GeminiPart[];
}

export interface GeminiGenerationConfig {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  candidateCount?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  seed?: number;
  responseMimeType?: string;
  responseJsonSchema?: unknown;
  responseLogprobs?: boolean;
  /** Top candidates per decoding step (0 to 20); only with `responseLogprobs`. */
  logprobs?: number;
  thinkingConfig?: GeminiThinkingConfig;
}

/**
 * Gemini 2.5 takes a token budget (0 turns thinking off where the model allows it, -1 lets the model
 * decide); Gemini 3 a level. `includeThoughts` asks for thought summaries (`thought: true` parts).
 */
export interface GeminiThinkingConfig {
  thinkingBudget?: number;
  thinkingLevel?: 'MINIMAL' | 'LOW' | 'MEDIUM' | 'HIGH';
  includeThoughts?: boolean;
}

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  parametersJsonSchema?: unknown;
}

export interface GeminiGenerateContentRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: GeminiPart[] };
  generationConfig?: GeminiGenerationConfig;
  /** A context cache's name (`cachedContents/...`) whose content prefixes this request. */
  cachedContent?: string;
  tools?: { functionDeclarations: GeminiFunctionDeclaration[] }[];
  toolConfig?: { functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] } };
}

export interface GeminiUsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  totalTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  /** The prompt's tokens by modality (`TEXT`, `IMAGE`, `VIDEO`, `AUDIO`, `DOCUMENT`), cached ones included. */
  promptTokensDetails?: GeminiModalityTokenCount[];
  /** The cached part of the prompt by modality. */
  cacheTokensDetails?: GeminiModalityTokenCount[];
}

export interface GeminiModalityTokenCount {
  modality?: string;
  tokenCount?: number;
}

export interface GeminiLogprobsCandidate {
  token?: string;
  tokenId?: number;
  logProbability?: number;
}

/** Per decoding step: the chosen token and (with `logprobs` n) the n most likely ones. */
export interface GeminiLogprobsResult {
  chosenCandidates?: GeminiLogprobsCandidate[];
  topCandidates?: { candidates?: GeminiLogprobsCandidate[] }[];
  logProbabilitySum?: number;
}

export interface GeminiCandidate {
  content?: { role?: string; parts?: GeminiPart[] };
  finishReason?: string;
  index?: number;
  logprobsResult?: GeminiLogprobsResult;
  avgLogprobs?: number;
}

export interface GeminiGenerateContentResponse {
  candidates?: GeminiCandidate[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: GeminiUsageMetadata;
  modelVersion?: string;
  responseId?: string;
}

/** `{error: {code, message, status, details}}` (Google API error model). */
export interface GeminiErrorBody {
  error?: { code?: number; message?: string; status?: string; details?: { reason?: string; '@type'?: string }[] };
}

/** Format-A shapes the translation produces. */
export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; audio_tokens?: number };
  completion_tokens_details?: { reasoning_tokens: number };
}

export interface OpenAITokenLogprob {
  token: string;
  logprob: number;
  bytes: number[] | null;
}

/** A choice's `logprobs` when the client asked for them. */
export interface OpenAIChoiceLogprobs {
  content: (OpenAITokenLogprob & { top_logprobs: OpenAITokenLogprob[] })[];
  refusal: null;
}

export type OpenAIFinishReason = 'stop' | 'length' | 'content_filter' | 'tool_calls';

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: { role: 'assistant'; content: string | null; tool_calls?: OpenAIToolCall[]; refusal: null };
    finish_reason: OpenAIFinishReason | null;
    /** Gemini's own `finishReason` (or the prompt's `blockReason`), which format A's values lose. */
    native_finish_reason?: string;
    logprobs: OpenAIChoiceLogprobs | null;
  }[];
  usage?: OpenAIUsage;
}

export interface ChatCompletionChunkDelta {
  role?: 'assistant';
  content?: string;
  tool_calls?: (OpenAIToolCall & { index: number })[];
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: ChatCompletionChunkDelta; finish_reason: OpenAIFinishReason | null; native_finish_reason?: string; logprobs: OpenAIChoiceLogprobs | null }[];
  usage?: OpenAIUsage | null;
}
