import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, AppConfig, bodyLoggingEnabled, LOGGER, Logger, tapRequestBody } from '@svc/platform';
import { ProxyCall, ProxyService } from '../pipeline/proxy.service';
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
      const body = logBodies ? tapRequestBody(request.raw, request, this.logger) : undefined;
      void this.proxy.handle(call, proxyRequestOf(request, body), hijackReply(reply));
    });
  }
}
