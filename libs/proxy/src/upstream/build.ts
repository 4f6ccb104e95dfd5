import { ProviderDefinition, ProviderFormat } from '../providers/types';
import { buildAnthropicChatRequest } from './anthropic';
import { buildGeminiRequest } from './gemini';
import { buildOpenAIChatRequest } from './openai';
import { UpstreamInput, PreparedUpstreamRequest } from './types';

/**
 * How a format-A chat-completions request (generic or provider-scoped route) reaches each format,
 * as data: A/D natively; B through the vendor's OpenAI-compatible endpoint (the answer is format A);
 * C translated both ways. `answerFormat`: the wire format of the provider's answer.
 */
export const CHAT_ADAPTERS: Readonly<
  Record<ProviderFormat, { build: (input: UpstreamInput) => PreparedUpstreamRequest; translatedResponse: boolean; answerFormat: ProviderFormat }>
> = {
  openai: { build: buildOpenAIChatRequest, translatedResponse: false, answerFormat: 'openai' },
  anthropic: { build: buildAnthropicChatRequest, translatedResponse: false, answerFormat: 'openai' },
  gemini: { build: buildGeminiRequest, translatedResponse: true, answerFormat: 'gemini' },
};

/** The upstream request for a format-A chat-completions body routed to `input.provider`. */
export function buildChatCompletionsRequest(input: UpstreamInput): PreparedUpstreamRequest {
  return CHAT_ADAPTERS[input.provider.format].build(input);
}

/**
 * The wire format of the provider's answer to a chat-completions request (what its usage, stream
 * events and errors are read as): format A from a B provider's OpenAI-compatible endpoint.
 */
export function chatAnswerFormat(provider: ProviderDefinition): ProviderFormat {
  return CHAT_ADAPTERS[provider.format].answerFormat;
}

/** Whether the upstream answer to a chat-completions request must be translated to format A (provider C). */
export function needsResponseTranslation(provider: ProviderDefinition): boolean {
  return CHAT_ADAPTERS[provider.format].translatedResponse;
}
