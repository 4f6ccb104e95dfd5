export { startMockProvider, DEFAULT_MAX_RECORDS } from './server';
export { countTokens, mockReply, splitChunks, embedText, DEFAULT_MODELS, REPLY_PREFIX, REPLY_SOURCE_CHARS } from './content';
export { DEFAULT_EMBEDDING_DIMENSIONS } from './openai';
export { MOCK_BINARY_BYTES } from './binary';
export { GEMINI_EMBEDDING_DIMENSIONS, GEMINI_IMPLICIT_CACHE_MIN_TOKENS, GEMINI_THOUGHT_TOKENS } from './gemini';
export { anthropicError, googleError, openaiError, errorBody } from './errors';
export { MIN_CACHEABLE_TOKENS } from './anthropic-content';
export type {
  AbortBehavior,
  BehaviorMatch,
  CountedBehavior,
  FailureBehavior,
  GeminiRequestSummary,
  MockBehavior,
  MockConfig,
  MockProvider,
  MockProviderOptions,
  RecordedRequest,
  RouteKind,
  StreamErrorBehavior,
  WireFormat,
} from './types';
