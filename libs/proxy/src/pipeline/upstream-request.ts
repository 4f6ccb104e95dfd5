import type { ProxyRequest } from '../http/proxy-io';
import type { Route } from '../providers';
import {
  buildAnthropicMessagesRequest,
  buildChatCompletionsRequest,
  buildOpenAIEmbeddingsRequest,
  buildPassthroughRequest,
  PreparedUpstreamRequest,
  UpstreamInput,
} from '../upstream';
import type { ProxyCall } from './proxy.service';

/** Where a governed request goes: its route, the provider's base URL in force and the provider key resolved for it. */
export interface UpstreamTarget {
  route: Route;
  baseUrl: string;
  apiKey: string | undefined;
}

/** The upstream request of a proxy call: the route kind's builder over the client's headers, body and, for the catch-all, method, path and query. */
export function upstreamRequestFor(call: ProxyCall, request: ProxyRequest, target: UpstreamTarget, body: unknown, rawBody: Buffer): PreparedUpstreamRequest {
  const { route } = target;
  const input: UpstreamInput = {
    provider: route.provider,
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    clientHeaders: request.headers,
    body,
    rawBody: rawBody.length ? rawBody : undefined,
    upstreamModel: route.upstreamModel,
  };
  switch (call.kind) {
    case 'chat':
      return buildChatCompletionsRequest(input);
    case 'messages':
      return buildAnthropicMessagesRequest(input);
    case 'embeddings':
      return buildOpenAIEmbeddingsRequest(input);
    default: {
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : undefined;
      return buildPassthroughRequest({ ...input, method: request.method, path: call.path ?? '', query });
    }
  }
}
