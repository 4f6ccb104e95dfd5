import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, AppConfig, bodyLoggingEnabled, GatewayError, LOGGER, Logger, pathOf, tapRequestBody, toErrorResponse } from '@svc/platform';
import { ProxyCall, ProxyService } from '../pipeline/proxy.service';
import { GATEWAY_ROUTE_SEGMENTS, providerRegistry } from '../providers';
import { hijackReply, proxyRequestOf } from './proxy-io';

type Params = Record<string, string | undefined>;

/**
 * The proxy routes by their registered pattern (ProxyController declares them, with their
 * OpenAPI documentation). `provider` and `*` are the route parameters.
 */
const CALLS: Readonly<Record<string, (params: Params) => ProxyCall>> = {
  '/v1/chat/completions': () => ({ kind: 'chat' }),
  '/v1/embeddings': () => ({ kind: 'embeddings' }),
  '/v1/messages': () => ({ kind: 'messages', endpointProvider: 'anthropic' }),
  '/v1/:provider/chat/completions': (p) => ({ kind: 'chat', endpointProvider: p.provider }),
  '/v1/:provider/embeddings': (p) => ({ kind: 'embeddings', endpointProvider: p.provider }),
  '/v1/:provider/messages': (p) => ({ kind: 'messages', endpointProvider: p.provider }),
  '/v1/:provider/v1/messages': (p) => ({ kind: 'messages', endpointProvider: p.provider }),
  '/v1/:provider/*': (p) => ({ kind: 'passthrough', endpointProvider: p.provider, path: p['*'] ?? '' }),
};

/** The gateway's routes of two or more segments under `/v1`, with their one method (for a 405's `Allow`). */
const OWN_ROUTES: readonly { pattern: RegExp; method: string }[] = [
  { pattern: /^\/v1\/chat\/completions$/, method: 'POST' },
  { pattern: /^\/v1\/providers\/health$/, method: 'GET' },
  { pattern: /^\/v1\/health\/detailed$/, method: 'GET' },
  { pattern: /^\/v1\/approvals\/[^/]+\/status$/, method: 'GET' },
];

/**
 * The refusal of a request the catch-all matched under one of the gateway's own segments: 405 with
 * `Allow` for a route of the gateway called with another method, else 404. No key is needed to
 * learn that a route does not exist.
 */
export function noSuchRoute(method: string, url: string): GatewayError {
  const path = pathOf(url);
  if (COUNT_TOKENS.test(path)) return countTokensNotOffered(method, path);
  const own = OWN_ROUTES.find((route) => route.pattern.test(path));
  if (own) {
    return new GatewayError(
      405,
      { message: `${method} is not allowed on ${path}; use ${own.method}`, type: 'invalid_request_error', code: 'method_not_allowed' },
      { Allow: own.method },
    );
  }
  return new GatewayError(404, {
    message: `No route ${method} ${path}. The gateway's routes are listed at /docs; the catch-all /v1/{provider}/{path} is for format-A compatible (D) providers`,
    type: 'not_found_error',
    code: 'not_found',
  });
}

/** The B API's token-counting path below each B base (`/v1`, `/v1/{provider_b}`, `/v1/{provider_b}/v1`). */
const COUNT_TOKENS = /\/messages\/count_tokens\/?$/;

/**
 * 404 for the Anthropic SDK's `messages.countTokens()`: the gateway forwards only requests that
 * pass its governance chain (a count would send the prompt upstream past the PII and safety
 * stages), and the route is not in its list (docs/gateway.md).
 */
function countTokensNotOffered(method: string, path: string): GatewayError {
  return new GatewayError(404, {
    message: `No route ${method} ${path}: the gateway does not offer token counting (messages/count_tokens). A message's usage.input_tokens gives the count of a request it served.`,
    type: 'not_found_error',
    code: 'not_found',
    remediation: "Read usage.input_tokens of the answer, or call the provider's own API for a count before sending.",
  });
}

/**
 * A catch-all call the gateway answers itself, before authentication (no key is needed to learn
 * that a route does not exist): one under a gateway route segment, or token counting under a
 * built-in B provider's base.
 */
function answeredWithoutKey(call: ProxyCall): boolean {
  if (call.kind !== 'passthrough') return false;
  const provider = call.endpointProvider?.toLowerCase() ?? '';
  if (GATEWAY_ROUTE_SEGMENTS.has(provider)) return true;
  return providerRegistry.get(provider)?.format === 'anthropic' && COUNT_TOKENS.test(`/${call.path ?? ''}`);
}

/** The proxy call a matched route stands for, or undefined for every other route. */
export function proxyCallFor(request: Pick<FastifyRequest, 'routeOptions' | 'params'>): ProxyCall | undefined {
  const pattern = request.routeOptions.url;
  const build = pattern === undefined ? undefined : CALLS[pattern];
  return build?.(request.params as Params);
}

/**
 * The proxy's hot path. Once Fastify has matched a proxy route, an `onRequest` hook hands the raw
 * request and response to the pipeline, which reads the body itself (with the organization's size
 * limit) and writes the answer itself. Body parsing, validation pipes, interceptors and reply
 * serialization, which a proxy does not need, are skipped: they cost more than the governance
 * chain. Every other route (health, models, docs, admin) goes through Nest as usual.
 */
@Injectable()
export class ProxyRoutes implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly proxy: ProxyService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify || typeof fastify.addHook !== 'function') return;
    // LOG_BODIES at debug level: the body is logged (credentials redacted) as the pipeline reads it.
    const logBodies = bodyLoggingEnabled(this.config, this.logger);
    fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
      const call = proxyCallFor(request);
      if (!call) {
        done();
        return;
      }
      // Not calling done(): the lifecycle stops here and the pipeline owns the exchange.
      if (answeredWithoutKey(call)) {
        const answer = hijackReply(reply);
        const response = toErrorResponse(noSuchRoute(request.method, request.url), 'gateway', String(request.id));
        answer.header('X-SVC-Request-ID', String(request.id)).setHeaders(response.headers).sendJson(response.status, response.body);
        return;
      }
      const body = logBodies ? tapRequestBody(request.raw, request, this.logger) : undefined;
      void this.proxy.handle(call, proxyRequestOf(request, body), hijackReply(reply));
    });
  }
}
