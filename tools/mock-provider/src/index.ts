export { startMockProvider, DEFAULT_MAX_RECORDS } from './server';
export { countTokens, mockReply, splitChunks, embedText, DEFAULT_MODELS, REPLY_PREFIX, REPLY_SOURCE_CHARS } from './content';
export { DEFAULT_EMBEDDING_DIMENSIONS } from './openai';
export { MOCK_BINARY_BYTES } from './binary';
export { GEMINI_EMBEDDING_DIMENSIONS } from './gemini';
export { anthropicError, googleError, openaiError, errorBody } from './errors';
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
  WireFormat,
} from './types';
