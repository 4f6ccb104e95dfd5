import { invalidRequest } from '@svc/platform';
import { withStreamUsage } from './openai';
import { baseUrlOf, finalizeRequest, joinUrl, requireJsonObject, withUpstreamModel } from './request';
import { UpstreamInput, PreparedUpstreamRequest } from './types';

/**
 * Format-B paths below the host root. `chat` is the vendor's own OpenAI-compatible endpoint, used
 * when a format-A request (generic `/v1/chat/completions`) routes to a B model.
 */
export const ANTHROPIC_PATHS = {
  messages: 'v1/messages',
  countTokens: 'v1/messages/count_tokens',
  chat: 'v1/chat/completions',
} as const;

function requireAnthropic(input: UpstreamInput): void {
  if (input.provider.format !== 'anthropic') {
    throw invalidRequest(`Provider '${input.provider.id}' does not speak the messages format`, 'model', 'provider_mismatch');
  }
}

/**
 * `POST {root}/v1/messages`: the client's body with the upstream model, `x-api-key` and
 * `anthropic-version: 2023-06-01` (a client-sent version is replaced); `anthropic-beta` is forwarded.
 * Usage always arrives in `message_start`/`message_delta`, so nothing is injected.
 */
export function buildAnthropicMessagesRequest(input: UpstreamInput, path: string = ANTHROPIC_PATHS.messages): PreparedUpstreamRequest {
  requireAnthropic(input);
  const body = withUpstreamModel(requireJsonObject(input.body), input.upstreamModel);
  return finalizeRequest({
    provider: input.provider,
    url: joinUrl(baseUrlOf(input), path),
    method: 'POST',
    apiKey: input.apiKey,
    clientHeaders: input.clientHeaders,
    body: { json: body },
    stream: body.stream === true,
  });
}

/** A format-A body for a B model, sent to the vendor's OpenAI-compatible chat endpoint. */
export function buildAnthropicChatRequest(input: UpstreamInput): PreparedUpstreamRequest {
  requireAnthropic(input);
  const body = withStreamUsage(withUpstreamModel(requireJsonObject(input.body), input.upstreamModel), input.provider);
  return finalizeRequest({
    provider: input.provider,
    url: joinUrl(baseUrlOf(input), ANTHROPIC_PATHS.chat),
    method: 'POST',
    apiKey: input.apiKey,
    clientHeaders: input.clientHeaders,
    body: { json: body },
    stream: body.stream === true,
  });
}
