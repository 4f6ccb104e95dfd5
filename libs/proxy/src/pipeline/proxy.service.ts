import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { clientIp, GatewayKeyAuthenticator, hasScope, missingGatewayKey, parseCredentials, Principal, resolveProviderKey } from '@svc/auth';
import { costOf, GOVERNANCE, GovernanceService, warmUpTokenizers } from '@svc/governance';
import { APP_CONFIG, AppConfig, createOutboundAgent, GatewayError, LOGGER, Logger } from '@svc/platform';
import { BreakerRegistry } from '../breaker/breaker-registry';
import { GatewayMetrics } from '../metrics/gateway-metrics';
import { ProviderDefinition, providerRegistry, resolveBaseUrl, resolveRoute, Route } from '../providers';
import {
  buildAnthropicMessagesRequest,
  buildChatCompletionsRequest,
  buildOpenAIEmbeddingsRequest,
  buildPassthroughRequest,
  clientWantsStreamUsage,
  needsResponseTranslation,
  PreparedUpstreamRequest,
  TokenUsage,
  UpstreamInput,
} from '../upstream';
import { ClientAbortedError, UpstreamClient } from '../transport/upstream-client';
import { parseJsonObject, readBody } from './body-reader';
import { IdempotencyGate } from './idempotency';
import { ModelAliasResolver } from './model-aliases';
import { OrgProviderRegistry } from './org-registry';
import { ProviderKeySources } from './provider-keys';
import { agentName, ProxyKind, readFields, runnerHeaders, unsupportedEndpoint } from './proxy-input';
import { exchange } from './upstream-exchange';
import { UsageRecorder } from './usage-recorder';
import { FinishState, usageRecord } from './usage-record';

export interface ProxyCall {
  kind: ProxyKind;
  /** `{provider}` of a provider-scoped route. */
  endpointProvider?: string;
  /** The `{path}` of the D catch-all. */
  path?: string;
}

/** One proxied request end to end: authenticate, read, route, govern, call upstream, meter. */
@Injectable()
export class ProxyService implements OnModuleDestroy {
  readonly client: UpstreamClient;
  /**
   * For organizations' own provider targets: their addresses are user-configured, so the resolved
   * address is checked at connect time (private ranges refused unless OUTBOUND_ALLOW_PRIVATE_NETWORKS),
   * which also defeats DNS rebinding after the check at registration.
   */
  readonly targetClient: UpstreamClient;

  constructor(
    private readonly authenticator: GatewayKeyAuthenticator,
    @Inject(GOVERNANCE) private readonly governance: GovernanceService,
    private readonly keys: ProviderKeySources,
    private readonly aliases: ModelAliasResolver,
    private readonly providers: OrgProviderRegistry,
    private readonly idempotency: IdempotencyGate,
    private readonly breakers: BreakerRegistry,
    private readonly metrics: GatewayMetrics,
    private readonly usage: UsageRecorder,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    const deadlines = {
      connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
      firstByteTimeoutMs: config.UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
      totalTimeoutMs: config.UPSTREAM_TOTAL_TIMEOUT_MS,
    };
    this.client = new UpstreamClient(deadlines);
    this.targetClient = new UpstreamClient(
      deadlines,
      createOutboundAgent({ allowPrivate: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS, connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS }),
    );
    // The tokenizers load their encodings lazily; loading them now keeps that off the first request.
    warmUpTokenizers();
  }

  /** The registry of the caller's organization: built-ins plus its provider targets. */
  registry(principal: Principal) {
    return this.providers.registry(principal.orgId);
  }

  /** A provider of the caller's organization (built-in or one of its targets) by id or alias; 404 otherwise. */
  async provider(principal: Principal, id: string): Promise<ProviderDefinition> {
    const definition = (await this.providers.registry(principal.orgId)).get(id.toLowerCase());
    if (!definition) {
      throw new GatewayError(404, {
        message: `Unknown provider '${id}'. GET /v1/models lists the providers and their models.`,
        type: 'not_found_error',
        code: 'unknown_provider',
        param: 'provider',
      });
    }
    return definition;
  }

  /** Authenticates a gateway key from the request, requiring `scope`. Sets X-Gateway-Org and deprecation headers. */
  async authenticate(request: FastifyRequest, reply: FastifyReply, scope: string, readXApiKey = false): Promise<Principal> {
    const credentials = parseCredentials({ headers: request.headers, query: request.query as Record<string, unknown>, readXApiKey });
    if (!credentials.gatewayKey) throw missingGatewayKey();
    const ip = clientIp(request.socket.remoteAddress ?? request.ip, request.headers['x-forwarded-for'], this.config.TRUSTED_PROXIES);
    const principal = await this.authenticator.authenticate(credentials.gatewayKey, ip);
    reply.header('X-Gateway-Org', principal.orgId);
    if (principal.deprecation) {
      reply.header('X-SVC-Key-Deprecated', 'true');
      reply.header('X-SVC-Grace-Remaining-Hours', String(principal.deprecation.graceRemainingHours));
    }
    if (!hasScope(principal.scopes, scope)) {
      throw new GatewayError(403, {
        message: `This key lacks the scope ${scope}`,
        type: 'permission_error',
        code: 'insufficient_scope',
        remediation: `Create a key with the ${scope} scope (gateway_proxy is accepted as gateway:write).`,
      });
    }
    return principal;
  }

  async handle(initialCall: ProxyCall, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    let call = initialCall;
    const started = performance.now();
    const requestId = String(request.id);
    reply.header('X-SVC-Request-ID', requestId);
    const format = call.kind === 'messages' ? 'anthropic' : 'openai';
    const principal = await this.authenticate(request, reply, 'gateway:write', format === 'anthropic');
    const state: FinishState = {
      status: 500,
      stream: false,
      agent: principal.keyName ?? 'unknown',
    };
    let idempotencyKey: string | undefined;
    try {
      const registry = await this.providers.registry(principal.orgId);
      if (call.endpointProvider) {
        const endpoint = await this.provider(principal, call.endpointProvider);
        if (call.kind === 'passthrough' && endpoint.label !== 'D') {
          throw new GatewayError(404, {
            message: `No route ${request.method} ${request.url.split('?')[0]}; the catch-all is only for format-A compatible (D) providers`,
            type: 'not_found_error',
            code: 'not_found',
          });
        }
        call = { ...call, endpointProvider: endpoint.id };
      }
      state.agent = agentName(request.headers['x-svc-agent'], principal.keyName);
      const limit = await this.governance.bodyLimit(principal);
      const raw = await readBody(request.body as Readable | undefined, request.headers['content-length'], limit);
      const contentType = request.headers['content-type'];
      const json = call.kind !== 'passthrough' || (raw.length > 0 && /json/i.test(contentType ?? '')) ? parseJsonObject(raw, contentType) : undefined;
      const fields = readFields(call.kind, json, format);
      state.stream = fields.stream;
      state.bodyBytes = raw.length;
      const route = resolveRoute({ endpointProvider: call.endpointProvider, model: fields.model || (call.endpointProvider ?? ''), aliases: await this.aliases.aliases(principal.orgId), registry });
      state.route = route;
      if (call.kind === 'messages' && route.provider.format !== 'anthropic') throw unsupportedEndpoint(route.provider.id, 'the messages format');
      if (call.kind === 'embeddings' && !route.provider.embeddings) throw unsupportedEndpoint(route.provider.id, 'embeddings');

      if (call.kind === 'chat' && !fields.stream) {
        idempotencyKey = await this.idempotency.begin(principal, request.headers['idempotency-key'], raw, reply);
        if (idempotencyKey === IdempotencyGate.REPLAYED) {
          state.status = reply.statusCode;
          idempotencyKey = undefined;
          return;
        }
      }

      const runner = runnerHeaders(request.headers);
      state.runner = runner;
      const decision = await this.governance.evaluate({
        requestId,
        principal,
        endpoint: call.kind,
        format,
        provider: route.provider.id,
        model: route.upstreamModel,
        requestedModel: route.requestedModel,
        body: json,
        bodyBytes: raw.length,
        stream: fields.stream,
        agent: state.agent,
        runner,
        now: new Date(),
      });
      state.decision = decision;
      if (decision.outcome === 'BLOCK' && decision.error) {
        for (const [name, value] of Object.entries(decision.headers)) reply.header(name, value);
        if (decision.blockedBy) this.metrics.observeBlock(decision.blockedBy.code);
        throw decision.error;
      }
      if (decision.outcome === 'NEEDS_APPROVAL' && decision.approval) {
        for (const [name, value] of Object.entries(decision.headers)) reply.header(name, value);
        state.status = 202;
        await reply.status(202).send(decision.approval);
        return;
      }

      const credentials = parseCredentials({ headers: request.headers, query: request.query as Record<string, unknown>, readXApiKey: format === 'anthropic' });
      const providerKey = await resolveProviderKey({
        provider: route.provider.id,
        fromRequest: credentials.providerKeyFromRequest,
        storedSecret: async () => (await this.providers.targetKey(principal.orgId, route.provider.id)) ?? (await this.keys.storedSecret(principal.orgId, route.provider.id)),
        envKey: this.keys.environmentKey(route.provider.id),
        optional: !route.provider.requiresKey,
      });
      const upstream = this.buildUpstream(call, request, route, providerKey?.key, json ?? (raw.length ? raw : undefined));
      state.result = await exchange({
        provider: route.provider,
        request: upstream,
        breaker: this.breakers.for(route.provider.id),
        client: providerRegistry.get(route.provider.id) ? this.client : this.targetClient,
        reply,
        headers: decision.headers,
        translate: call.kind === 'chat' && needsResponseTranslation(route.provider),
        model: route.requestedModel,
        includeUsage: clientWantsStreamUsage(json),
      });
      state.status = state.result.aborted ? 499 : state.result.status;
      if (idempotencyKey && state.result.bufferedBody && state.status < 500) {
        await this.idempotency.complete(principal, idempotencyKey, state.status, state.result.bufferedBody);
        idempotencyKey = undefined;
      }
    } catch (error) {
      state.status = error instanceof GatewayError ? error.status : error instanceof ClientAbortedError ? 499 : 500;
      if (error instanceof ClientAbortedError) return;
      throw error;
    } finally {
      if (idempotencyKey) void this.idempotency.release(principal, idempotencyKey);
      this.finish(principal, requestId, call, state, started, request.url);
    }
  }

  private buildUpstream(call: ProxyCall, request: FastifyRequest, route: Route, apiKey: string | undefined, body: unknown): PreparedUpstreamRequest {
    const input: UpstreamInput = {
      provider: route.provider,
      baseUrl: resolveBaseUrl(route.provider, this.config.providerBaseUrls),
      apiKey,
      clientHeaders: request.headers,
      body,
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

  /** Settles the reservation at the real cost and leaves a usage record and metrics, for every outcome. */
  private finish(principal: Principal, requestId: string, call: ProxyCall, state: FinishState, started: number, url: string): void {
    const usage = state.result?.usage;
    const model = state.route?.upstreamModel ?? 'unknown';
    const provider = state.route?.provider.id ?? call.endpointProvider ?? 'unknown';
    const cost = usage ? costOfUsage(model, usage) : 0;
    const decision = state.decision;
    if (decision?.reservation) {
      void this.governance.settle(decision.reservation, cost).catch((err: unknown) => this.logger.error({ err, request_id: requestId }, 'settle failed'));
    }
    const latencyMs = performance.now() - started;
    this.metrics.observeRequest(provider, model, state.status, latencyMs / 1000);
    this.metrics.observeCost(provider, cost);
    this.usage.record(
      usageRecord({ principal, requestId, provider, model, endpoint: url.split('?')[0], state, cost, latencyMs, usage }),
    );
  }

  async onModuleDestroy(): Promise<void> {
    this.breakers.shutdown();
    await Promise.all([this.client.close(), this.targetClient.close()]);
  }
}

function costOfUsage(model: string, usage: TokenUsage): number {
  const cached = usage.cachedInputTokens;
  return costOf(model, { input_tokens: Math.max(0, usage.inputTokens - cached), output_tokens: usage.outputTokens, cached_input_tokens: cached });
}

