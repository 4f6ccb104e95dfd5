import { Inject, Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  clientIp,
  GatewayKeyAuthenticator,
  KeyRefusedError,
  missingGatewayKey,
  parseCredentials,
  Principal,
  repeatedAuthorization,
  RequestCredentials,
  resolveProviderKey,
  runnerSessionOf,
} from '@svc/auth';
import { defaultPriceOptions, GOVERNANCE, GovernanceDecision, GovernanceService, PriceOptions, warmUpTokenizers } from '@svc/governance';
import { accessLogEnabled, APP_CONFIG, AppConfig, claimAccessLog, createOutboundAgent, HostResolver, LOGGER, Logger, OUTBOUND_RESOLVER, outboundResolver, pathOf, toErrorResponse } from '@svc/platform';
import { BreakerRegistry } from '../breaker/breaker-registry';
import type { ProxyReply, ProxyRequest } from '../http/proxy-io';
import { GatewayMetrics } from '../metrics/gateway-metrics';
import { checkProviderEnvironment, ProviderDefinition, providerRegistry, resolveBaseUrl, resolveRoute } from '../providers';
import { chatAnswerFormat, clientWantsStreamUsage, needsResponseTranslation } from '../upstream';
import { ClientAbortedError, UpstreamClient } from '../transport/upstream-client';
import { ConsumedApproval } from './approval-release';
import { parseProxyBody, readBody } from './body-reader';
import { IdempotencyGate, storable } from './idempotency';
import { ModelAliasResolver } from './model-aliases';
import { OrgProviderRegistry } from './org-registry';
import { ProviderKeySources } from './provider-keys';
import { agentName, checkFields, formatOf, hitlBypassRequested, noRetryHelps, ProxyKind, readFields, runnerHeaders, unservedRoute } from './proxy-input';
import { checkKeyAccess, principalOfRefusedKey, readProxyCredentials } from './key-refusals';
import { notForwarded, unknownProvider } from './route-refusals';
import { exchange } from './upstream-exchange';
import { upstreamRequestFor } from './upstream-request';
import { UsageRecorder } from './usage-recorder';
import { accessLine, chargeOf, FinishState, recordedProvider, UNRESOLVED, usageRecord } from './usage-record';

export interface ProxyCall {
  kind: ProxyKind;
  /** `{provider}` of a provider-scoped route. */
  endpointProvider?: string;
  /** The `{path}` of the D catch-all. */
  path?: string;
}

/** What authentication reads of a request. */
export interface CredentialSource {
  headers: ProxyRequest['headers'];
  query: ProxyRequest['query'];
  remoteAddress: string | undefined;
}

/** One proxied request end to end: authenticate, read, route, govern, call upstream, meter. */
@Injectable()
export class ProxyService implements OnModuleDestroy {
  readonly client: UpstreamClient;
  /**
   * For organizations' own provider targets: their addresses are user-configured, so the resolved
   * address is checked at connect time (private ranges refused unless OUTBOUND_ALLOW_PRIVATE_NETWORKS),
   * which also defeats DNS rebinding after the check at registration. Their host names are resolved
   * by `outboundResolver` (c-ares, cut at the connect deadline), never getaddrinfo, whose pool
   * threads a target's silent name servers would hold, stalling the process's other lookups.
   */
  readonly targetClient: UpstreamClient;
  private readonly prices: PriceOptions;
  /** ACCESS_LOG: the pipeline writes each request's line itself, with its tenant, provider, model and cost. */
  private readonly accessLog: boolean;

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
    @Optional() @Inject(OUTBOUND_RESOLVER) targetResolver: HostResolver = outboundResolver(config),
  ) {
    checkProviderEnvironment(config, logger);
    const deadlines = {
      connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
      firstByteTimeoutMs: config.UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
      totalTimeoutMs: config.UPSTREAM_TOTAL_TIMEOUT_MS,
    };
    this.client = new UpstreamClient(deadlines);
    this.targetClient = new UpstreamClient(
      deadlines,
      createOutboundAgent({ allowPrivate: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS, connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS, resolve: targetResolver }),
    );
    this.prices = defaultPriceOptions(config.DEFAULT_MODEL_PRICE);
    this.accessLog = accessLogEnabled(config, logger);
    // The tokenizers load their encodings lazily; loading the common one now keeps that off the first request.
    warmUpTokenizers();
  }

  /**
   * Authenticates a gateway key, requiring `scope` and no contradicting X-Org-ID. Sets X-Gateway-Org
   * (also for a key refused once identified: rotated, expired, outside its allowlist) and the
   * deprecation headers through `setHeader` before those checks, so a refusal carries them too.
   * `readXApiKey`: the credentials were read with `x-api-key` (B routes), which the 401 for none then names.
   */
  async authorize(
    source: CredentialSource,
    scope: string,
    setHeader: (name: string, value: string) => void,
    options: { credentials?: RequestCredentials; readXApiKey?: boolean } = {},
  ): Promise<Principal> {
    const credentials = options.credentials ?? parseCredentials({ headers: source.headers, query: source.query, readXApiKey: options.readXApiKey });
    if (!credentials.gatewayKey) throw missingGatewayKey({ readXApiKey: options.readXApiKey, headers: source.headers });
    const ip = clientIp(source.remoteAddress, source.headers['x-forwarded-for'], this.config.TRUSTED_PROXIES);
    let principal: Principal;
    try {
      principal = await this.authenticator.authenticate(credentials.gatewayKey, ip);
    } catch (error) {
      if (error instanceof KeyRefusedError) setHeader('X-Gateway-Org', error.key.orgId);
      throw error;
    }
    setHeader('X-Gateway-Org', principal.orgId);
    if (principal.deprecation) {
      setHeader('X-SVC-Key-Deprecated', 'true');
      setHeader('X-SVC-Grace-Remaining-Hours', String(principal.deprecation.graceRemainingHours));
    }
    checkKeyAccess(source.headers, principal, scope);
    return principal;
  }

  /**
   * `authorize` for the Nest-routed gateway endpoints (models, approval polling), whose answers all
   * carry their request id (the error filter sets it on refusals). `readXApiKey`: the key may come as `x-api-key`.
   */
  authenticate(request: FastifyRequest, reply: FastifyReply, scope: string, options: { readXApiKey?: boolean } = {}): Promise<Principal> {
    void reply.header('X-SVC-Request-ID', String(request.id));
    const query = request.query as Record<string, unknown>;
    const source = { headers: request.headers, query, remoteAddress: request.socket.remoteAddress ?? request.ip };
    const credentials = parseCredentials({ headers: request.headers, query, readXApiKey: options.readXApiKey, authorization: repeatedAuthorization(request.raw.rawHeaders) });
    return this.authorize(source, scope, (name, value) => void reply.header(name, value), { credentials, readXApiKey: options.readXApiKey });
  }

  /** Serves one proxy request; never throws (every failure is answered in the gateway's format). */
  async handle(call: ProxyCall, request: ProxyRequest, reply: ProxyReply): Promise<void> {
    const started = performance.now();
    reply.header('X-SVC-Request-ID', request.id);
    if (this.accessLog) claimAccessLog(reply.raw);
    const state: FinishState = { status: 500, stream: false, agent: 'unknown' };
    try {
      // Read once: the gateway key authenticates, the provider key (if any) goes upstream.
      const readXApiKey = formatOf(call.kind) === 'anthropic';
      const { credentials, providerKeyRefusal } = readProxyCredentials(request, readXApiKey);
      const principal = await this.authorize(request, 'gateway:write', (name, value) => void reply.header(name, value), { credentials, readXApiKey });
      state.principal = principal;
      state.agent = principal.keyName ?? 'unknown';
      if (providerKeyRefusal) throw providerKeyRefusal;
      await this.serve(call, request, reply, state, principal, credentials);
    } catch (error) {
      if (!state.decision && !reply.sent) await this.addStandingHeaders(error, request, reply, state);
      state.status = this.fail(error, request, reply, state);
      if (!state.route) state.provider = await this.pathProvider(call, state);
    } finally {
      this.finish(request, call, state, started);
    }
  }

  private async serve(call: ProxyCall, request: ProxyRequest, reply: ProxyReply, state: FinishState, principal: Principal, credentials: RequestCredentials): Promise<void> {
    const registry = await this.providers.registry(principal.orgId);
    if (call.endpointProvider) {
      const endpoint = registry.get(call.endpointProvider.toLowerCase());
      // The catch-all forwards only below a D provider's base; any other path is a route the gateway does not serve.
      if (call.kind === 'passthrough' && endpoint?.label !== 'D') throw notForwarded(request.method, request.url, call.endpointProvider, endpoint);
      if (!endpoint) throw unknownProvider(call.endpointProvider);
      // A route the provider does not serve is refused whatever the body (its size, JSON, fields).
      const unserved = unservedRoute(call.kind, endpoint);
      if (unserved) throw unserved;
      call = { ...call, endpointProvider: endpoint.id };
    }
    state.agent = agentName(request.headers['x-svc-agent'], principal.keyName);
    const runner = runnerHeaders(request.headers);
    const runnerToken = runnerSessionOf(principal);
    const limit = await this.governance.bodyLimit(principal);
    const body = await readBody(request.body, request.headers['content-length'], limit);
    state.bodyBytes = body.bytes;
    if (body.tooLarge) {
      // Stage 0.5 refuses it, after stage 0, with the headers of every refusal.
      reply.header('Connection', 'close');
      const target = { provider: call.endpointProvider ?? '', model: '', requested: '', body: undefined, stream: false, bodyIncomplete: !body.declared };
      state.decision = await this.evaluate(call, principal, request, state, target);
      return this.refuse(state.decision);
    }
    const raw = body.buffer;
    const contentType = request.headers['content-type'];
    const json = parseProxyBody(call.kind === 'passthrough', raw, contentType);
    const fields = readFields(call.kind, json);
    state.stream = fields.stream;
    const route = resolveRoute({ endpointProvider: call.endpointProvider, model: fields.model || (call.endpointProvider ?? ''), aliases: await this.aliases.aliases(principal.orgId), registry });
    const unserved = unservedRoute(call.kind, route.provider);
    if (!unserved) checkFields(call.kind, json, formatOf(call.kind));
    state.route = route;
    if (unserved) throw unserved;

    // A streamed request with a key is checked and holds the key while in flight (another body is
    // 409 reused, a duplicate in flight 409 in progress), but its answer is never stored: the key is
    // released when the stream ends (DECISIONS.md "Idempotency-Key").
    let idempotencyKey: string | undefined;
    if (call.kind === 'chat') {
      idempotencyKey = await this.idempotency.begin(principal, request.headers['idempotency-key'], raw, reply, () => this.standingHeaders(principal, request.id));
      if (idempotencyKey === IdempotencyGate.REPLAYED) {
        state.replayed = true;
        state.status = reply.raw.statusCode;
        return;
      }
    }
    // Only a request that consumed a HITL approval carries one (the common request allocates nothing).
    let approval: ConsumedApproval | undefined;
    try {
      const target = { provider: route.provider.id, model: route.upstreamModel, requested: route.requestedModel, body: json, stream: fields.stream };
      const decision = await this.evaluate(call, principal, request, state, target, runner, runnerToken);
      state.decision = decision;
      // Every response from here on carries the governance headers, whatever goes wrong later.
      reply.setHeaders(decision.headers);
      if (decision.outcome === 'BLOCK') return this.refuse(decision);
      if (decision.outcome === 'NEEDS_APPROVAL' && decision.approval) {
        state.status = 202;
        reply.sendJson(202, decision.approval);
        return;
      }
      if (decision.consumedApprovalId) approval = new ConsumedApproval(this.governance, principal.orgId, request.id, this.logger, decision.consumedApprovalId);
      const providerKey = await resolveProviderKey({
        provider: route.provider.id,
        fromRequest: credentials.providerKeyFromRequest,
        storedSecret: async () => (await this.providers.targetKey(principal.orgId, route.provider.id)) ?? (await this.keys.storedSecret(principal.orgId, route.provider.id)),
        envKey: this.keys.environmentKey(route.provider.id),
        optional: !route.provider.requiresKey,
      });
      const upstream = upstreamRequestFor(call, request, { route, baseUrl: resolveBaseUrl(route.provider, this.config.providerBaseUrls), apiKey: providerKey?.key }, json ?? (raw.length ? raw : undefined), raw);
      state.result = await exchange({
        provider: route.provider,
        format: call.kind === 'chat' ? chatAnswerFormat(route.provider) : route.provider.format,
        request: upstream,
        breaker: route.provider.dynamic ? this.breakers.forTarget(principal.orgId, route.provider.id) : this.breakers.for(route.provider.id),
        client: providerRegistry.get(route.provider.id) ? this.client : this.targetClient,
        reply,
        translate: call.kind === 'chat' && needsResponseTranslation(route.provider),
        model: route.requestedModel,
        includeUsage: clientWantsStreamUsage(json),
        keepBody: idempotencyKey !== undefined && !fields.stream,
        onLostAfterDispatch: () => void (state.dispatched = true),
        beforeRelay: approval?.beforeRelay,
      });
      state.status = state.result.aborted ? 499 : state.result.status;
      if (approval) await approval.settle(state.result);
      if (idempotencyKey && state.result.bufferedBody && storable(state.status)) {
        await this.idempotency.complete(principal, idempotencyKey, state.status, state.result.bufferedBody);
        idempotencyKey = undefined;
      }
    } catch (error) {
      // The client left after the request went upstream: the provider may have served it.
      if (error instanceof ClientAbortedError && state.dispatched) await approval?.keep();
      throw error;
    } finally {
      if (approval) await approval.release();
      if (idempotencyKey) void this.idempotency.release(principal, idempotencyKey);
    }
  }

  private evaluate(
    call: ProxyCall,
    principal: Principal,
    request: ProxyRequest,
    state: FinishState,
    target: { provider: string; model: string; requested: string; body: unknown; stream: boolean; bodyIncomplete?: boolean },
    runner: ReturnType<typeof runnerHeaders> = null,
    runnerToken: ReturnType<typeof runnerSessionOf> = null,
  ): Promise<GovernanceDecision> {
    return this.governance.evaluate({
      requestId: request.id,
      principal,
      endpoint: call.kind,
      format: formatOf(call.kind),
      provider: target.provider,
      model: target.model,
      requestedModel: target.requested,
      body: target.body,
      bodyBytes: state.bodyBytes ?? 0,
      bodyIncomplete: target.bodyIncomplete,
      stream: target.stream,
      agent: state.agent,
      runner,
      runnerToken,
      hitlBypass: hitlBypassRequested(request.headers['x-svc-hitl-bypass']),
      now: new Date(),
    });
  }

  private refuse(decision: GovernanceDecision): never {
    if (decision.blockedBy) this.metrics.observeBlock(decision.blockedBy.code);
    throw decision.error ?? new Error('governance refused without an error');
  }

  /**
   * A refusal before governance ran (the body, the route, the key's scope or allowlist) still
   * carries the headers of every response once the organization is known: the rate-limit window
   * and today's spend, read without counting (SPEC.md: rate-limit headers on every response).
   */
  private async addStandingHeaders(error: unknown, request: ProxyRequest, reply: ProxyReply, state: FinishState): Promise<void> {
    if (error instanceof ClientAbortedError) return;
    const principal = state.principal ?? (error instanceof KeyRefusedError ? principalOfRefusedKey(error.key) : undefined);
    if (!principal) return;
    reply.setHeaders(await this.standingHeaders(principal, request.id));
  }

  /** GovernanceService.standingHeaders, or none when they cannot be read: the answer goes out without them rather than not at all. */
  private standingHeaders(principal: Principal, requestId: string): Promise<Record<string, string>> {
    return this.governance.standingHeaders(principal, requestId).catch((err: unknown) => {
      this.logger.warn({ err, request_id: requestId }, 'could not read the rate-limit window for an answer');
      return {};
    });
  }

  /** Answers a failure in the gateway format (a started stream is only ended); returns the status to record. */
  private fail(error: unknown, request: ProxyRequest, reply: ProxyReply, state: FinishState): number {
    if (error instanceof KeyRefusedError) {
      // The key was identified (authorize named its organization): its record goes under that organization.
      state.refusedKey = error.key;
      if (state.agent === 'unknown') state.agent = error.key.keyName;
    }
    if (error instanceof ClientAbortedError) {
      if (!reply.raw.destroyed) reply.raw.destroy();
      return 499;
    }
    const response = toErrorResponse(error, 'gateway', request.id);
    if (response.errorId) {
      this.logger.error({ err: error, error_id: response.errorId, request_id: request.id, route: pathOf(request.url) }, 'proxy request failed');
    }
    if (reply.sent) {
      if (!reply.raw.writableEnded) reply.raw.end();
      return response.status;
    }
    reply.setHeaders(response.headers);
    if (noRetryHelps(error)) reply.header('x-should-retry', 'false');
    reply.sendJson(response.status, response.body);
    return response.status;
  }

  /**
   * The provider a request refused before routing names in its path, for its usage record: the
   * organization's registry entry (canonical id for an alias or another case), or undefined for a
   * segment that is no provider of the organization (`/v1/images/...`), which the record must not
   * present as one. Needs the organization (the caller's, or the refused key's).
   */
  private async pathProvider(call: ProxyCall, state: FinishState): Promise<ProviderDefinition | undefined> {
    const orgId = state.principal?.orgId ?? state.refusedKey?.orgId;
    if (!call.endpointProvider || !orgId) return undefined;
    try {
      return (await this.providers.registry(orgId)).get(call.endpointProvider.toLowerCase());
    } catch (err) {
      this.logger.warn({ err, org_id: orgId }, 'could not read the provider registry for a usage record');
      return undefined;
    }
  }

  /**
   * Settles the reservation at the request's charge and leaves metrics and, once the tenant is known,
   * a usage record: counters, record, access line and cost metric all take the one `chargeOf`.
   */
  private finish(request: ProxyRequest, call: ProxyCall, state: FinishState, started: number): void {
    const model = state.route?.upstreamModel ?? UNRESOLVED;
    const provider = recordedProvider(state);
    const charge = chargeOf(provider, model, state, this.prices);
    const cost = charge.cost;
    const reservation = state.decision?.reservation;
    if (reservation) {
      void this.governance.settle(reservation, cost).catch((err: unknown) => this.logger.error({ err, request_id: request.id }, 'settle failed'));
    }
    const latencyMs = performance.now() - started;
    // The metrics take the provider itself (not its id, which may be an organization's target);
    // unrouted, only a built-in named by the path counts as one.
    const routed = state.route?.provider ?? (call.endpointProvider ? providerRegistry.get(call.endpointProvider) : undefined);
    this.metrics.observeRequest(routed, state.route?.upstreamModel, state.status, latencyMs / 1000);
    if (cost > 0 && state.route) this.metrics.observeCost(state.route.provider, cost);
    if (charge.defaultPriced) this.metrics.observeUnpriced(routed, state.route?.upstreamModel);
    const record = usageRecord({ requestId: request.id, provider, model, endpoint: pathOf(request.url), state, charge, latencyMs });
    if (record) this.usage.record(record);
    if (this.accessLog) this.logger.info(accessLine(request, { provider, model, state, charge, latencyMs }), 'request');
  }

  async onModuleDestroy(): Promise<void> {
    this.breakers.shutdown();
    await Promise.all([this.client.close(), this.targetClient.close()]);
  }
}
