import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { maskPii } from '@svc/governance';
import { APP_CONFIG, AppConfig, bodyLoggingEnabled, LOGGER, Logger, pathOf, tapRequestBody, toErrorResponse } from '@svc/platform';
import { ProxyCall, ProxyService } from '../pipeline/proxy.service';
import { COUNT_TOKENS, noSuchRoute } from '../pipeline/route-refusals';
import { GATEWAY_ROUTE_SEGMENTS, providerRegistry } from '../providers';
import { hijackReply, proxyRequestOf } from './proxy-io';

type Params = Record<string, string | undefined>;

/**
 * The proxy routes by their registered pattern (ProxyController declares them, with their
 * OpenAPI documentation). `provider`, `model` and `*` are the route parameters. A builder answering
 * undefined leaves the request to its Nest route.
 */
const CALLS: Readonly<Record<string, (params: Params, url: string) => ProxyCall | undefined>> = {
  '/v1/chat/completions': () => ({ kind: 'chat' }),
  '/v1/embeddings': () => ({ kind: 'embeddings' }),
  '/v1/messages': () => ({ kind: 'messages', endpointProvider: 'anthropic' }),
  '/v1/:provider/chat/completions': (p) => ({ kind: 'chat', endpointProvider: p.provider }),
  '/v1/:provider/embeddings': (p) => ({ kind: 'embeddings', endpointProvider: p.provider }),
  '/v1/:provider/messages': (p) => ({ kind: 'messages', endpointProvider: p.provider }),
  '/v1/:provider/v1/messages': (p) => ({ kind: 'messages', endpointProvider: p.provider }),
  '/v1/:provider/*': (p, url) => ({ kind: 'passthrough', endpointProvider: p.provider, path: pathBelowProvider(url) }),
  // models.retrieve() below a provider base (the OpenAI SDK's path, and the Anthropic SDK's with its
  // /v1): the gateway's list entry (ModelsController) for a built-in A, B or C provider; below a D
  // provider's base the catch-all forwards it like any path.
  '/v1/:provider/models/:model': ownModelsOrForwarded,
  '/v1/:provider/v1/models/:model': ownModelsOrForwarded,
};

function ownModelsOrForwarded(p: Params, url: string): ProxyCall | undefined {
  return servesOwnModels(p.provider) ? undefined : { kind: 'passthrough', endpointProvider: p.provider, path: pathBelowProvider(url) };
}

/**
 * The catch-all's `{path}` as the client wrote it (`/v1/{provider}/` and the query cut off), not the
 * router's decoded parameter: `files/a%3Fb` stays one path segment upstream instead of becoming
 * `files/a` with a query `b` (`%23` a fragment, `%2F` a separator).
 */
function pathBelowProvider(url: string): string {
  const rest = pathOf(url).slice('/v1/'.length);
  const slash = rest.indexOf('/');
  return slash < 0 ? '' : rest.slice(slash + 1);
}

/** Patterns of the paths no route serves, answered before authentication (ProxyController.unrouted). */
const UNROUTED: ReadonlySet<string> = new Set(['/v1', '/v1/:provider']);

/** A built-in provider that is not format-A compatible (A, B, C): the catch-all does not forward below its base. */
function servesOwnModels(provider: string | undefined): boolean {
  const builtin = providerRegistry.get(provider?.toLowerCase() ?? '');
  return builtin !== undefined && builtin.label !== 'D';
}

/**
 * A call below `/v1/{provider}` the gateway answers itself, before authentication (no key is needed
 * to learn that a route does not exist): any under an empty segment or a gateway route segment (`/v1/admin/...`,
 * `/v1/chat/...`: never a provider's base, whatever an organization stored), or token counting
 * under a built-in B provider's base.
 */
function answeredWithoutKey(call: ProxyCall): boolean {
  const provider = call.endpointProvider?.toLowerCase();
  if (provider === undefined) return false;
  // An empty segment (`/v1//groq/files`, `/v1//chat/completions`) names no provider and no route.
  if (provider === '' || GATEWAY_ROUTE_SEGMENTS.has(provider)) return true;
  return call.kind === 'passthrough' && providerRegistry.get(provider)?.format === 'anthropic' && COUNT_TOKENS.test(`/${call.path ?? ''}`);
}

/** The proxy call a matched route stands for, or undefined for every other route. */
export function proxyCallFor(request: Pick<FastifyRequest, 'routeOptions' | 'params' | 'url'>): ProxyCall | undefined {
  const pattern = request.routeOptions.url;
  const build = pattern === undefined ? undefined : CALLS[pattern];
  return build?.(request.params as Params, request.url);
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
    // LOG_BODIES at debug level: the body is logged as the pipeline reads it, credentials redacted and
    // what the PII scan detects in prompts masked (`maskPii`, as every surface's logged bodies).
    const logBodies = bodyLoggingEnabled(this.config, this.logger);
    fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
      const call = proxyCallFor(request);
      const unrouted = !call && request.routeOptions.url !== undefined && UNROUTED.has(request.routeOptions.url);
      if (!call && !unrouted) {
        done();
        return;
      }
      // Not calling done(): the lifecycle stops here and the pipeline owns the exchange.
      if (!call || answeredWithoutKey(call)) {
        const answer = hijackReply(reply);
        const response = toErrorResponse(noSuchRoute(request.method, request.url), 'gateway', String(request.id));
        answer.header('X-SVC-Request-ID', String(request.id)).setHeaders(response.headers).sendJson(response.status, response.body);
        return;
      }
      const body = logBodies ? tapRequestBody(request.raw, request, this.logger, maskPii) : undefined;
      void this.proxy.handle(call, proxyRequestOf(request, body), hijackReply(reply));
    });
  }
}
