import { Inject, Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { DiscoveredModelEntity, DiscoveryRunEntity, openTargetHeaders, ProviderTargetEntity, Repositories, SecretCipher, SecretDecryptionError, targetDiscoveryUrls } from '@svc/domain';
import {
  APP_CONFIG,
  AppConfig,
  createOutboundAgent,
  GatewayError,
  HostResolver,
  InvalidationBus,
  LOGGER,
  Logger,
  notFound,
  OUTBOUND_RESOLVER,
  OutboundBlockedError,
  outboundResolver,
} from '@svc/platform';
import { INVALIDATION_BUS, REPOSITORIES, SECRET_CIPHER } from '@svc/runtime';
import type { Agent } from 'undici';
import { invalidCursor, urlNotAllowed } from '../../common/admin-errors';
import { CatalogPage, DiscoveredModelView, DiscoveryResult, DiscoveryRunView, HistoryPage, TargetCatalog } from '../dto/provider-target.views';
import { ProviderTargetsService } from '../provider-targets.service';
import { DiscoveryError, fetchModelList } from './model-list-fetch';

/** The catalog's `next_cursor`: the id of the last discovered model of the page. */
const CATALOG_CURSOR = /^mdl_[A-Za-z0-9]{1,64}$/;

export function toModelView(model: DiscoveredModelEntity): DiscoveredModelView {
  return {
    id: model._id,
    target_id: model.target_id,
    provider_id: model.provider_id,
    model_id: model.model_id,
    routable_id: `${model.provider_id}/${model.model_id}`,
    owned_by: model.owned_by,
    context_window: model.context_window,
    discovered_at: model.discovered_at.toISOString(),
    last_seen_at: model.last_seen_at.toISOString(),
  };
}

export function toRunView(run: DiscoveryRunEntity): DiscoveryRunView {
  return {
    id: run._id,
    target_id: run.target_id,
    provider_id: run.provider_id,
    status: run.status,
    model_count: run.model_count,
    added: run.added,
    removed: run.removed,
    error: run.error,
    triggered_by: run.triggered_by,
    started_at: run.started_at.toISOString(),
    finished_at: run.finished_at.toISOString(),
    duration_ms: run.duration_ms,
  };
}

/**
 * Model discovery on a provider target with DECISIONS.md's outbound safety: the URL and every
 * address its host resolves to are checked, the connection is checked again at connect time (DNS
 * rebinding), redirects are not followed, and a deadline (DISCOVERY_TIMEOUT_MS) and a size cap
 * (DISCOVERY_MAX_RESPONSE_BYTES) apply. Every run, failed or not, is kept in the history.
 *
 * The host is resolved by `outboundResolver` both times (c-ares on the event loop, cut at the
 * deadline): getaddrinfo would hold one of libuv's four pool threads for as long as the target's
 * name servers stay silent, and a few such targets would stall every other lookup of the process.
 */
@Injectable()
export class DiscoveryService implements OnModuleDestroy {
  private readonly agent: Agent;

  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(SECRET_CIPHER) private readonly cipher: SecretCipher,
    @Inject(INVALIDATION_BUS) private readonly invalidation: InvalidationBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly targets: ProviderTargetsService,
    @Optional() @Inject(OUTBOUND_RESOLVER) private readonly resolve: HostResolver = outboundResolver(config),
  ) {
    // The lookup at connect time is cut at the connect deadline, within the exchange's.
    this.agent = createOutboundAgent({
      allowPrivate: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS,
      connectTimeoutMs: Math.min(5_000, config.DISCOVERY_TIMEOUT_MS),
      resolve,
    });
  }

  async discover(principal: Principal, targetId: string): Promise<DiscoveryResult> {
    const orgId = principal.orgId;
    const target = await this.targets.load(orgId, targetId);
    const startedAt = new Date();
    const run = { target_id: target._id, provider_id: target.provider_id, triggered_by: principal.userId ?? principal.keyId, started_at: startedAt };
    let fetched: Awaited<ReturnType<typeof fetchModelList>>;
    try {
      fetched = await fetchModelList(target.kind ?? 'openai_compatible', targetDiscoveryUrls(target), this.headersOf(target), {
        allowPrivate: this.config.OUTBOUND_ALLOW_PRIVATE_NETWORKS,
        timeoutMs: this.config.DISCOVERY_TIMEOUT_MS,
        maxBytes: this.config.DISCOVERY_MAX_RESPONSE_BYTES,
        dispatcher: this.agent,
        resolve: this.resolve,
      });
    } catch (error) {
      const failure = this.failure(error);
      const finishedAt = new Date();
      await this.repositories.discoveryRuns.record(orgId, { ...run, status: 'failed', model_count: 0, added: 0, removed: 0, error: failure.message, finished_at: finishedAt });
      await this.repositories.providerTargets.recordDiscovery(orgId, target._id, 'failed', finishedAt);
      this.logger.warn({ org_id: orgId, target_id: target._id, reason: failure.message }, 'model discovery failed');
      throw failure;
    }
    const finishedAt = new Date();
    const { url, models } = fetched;
    const counts = await this.repositories.discoveredModels.replaceForTarget(orgId, { id: target._id, provider_id: target.provider_id }, models, finishedAt);
    const recorded = await this.repositories.discoveryRuns.record(orgId, {
      ...run,
      status: 'succeeded',
      model_count: counts.total,
      added: counts.added,
      removed: counts.removed,
      error: null,
      finished_at: finishedAt,
    });
    await this.repositories.providerTargets.recordDiscovery(orgId, target._id, 'succeeded', finishedAt);
    await this.invalidation.publish('provider-target', orgId);
    const ids = models.map((model) => model.model_id).sort();
    return {
      run_id: recorded._id,
      target_id: target._id,
      provider_id: target.provider_id,
      status: 'succeeded',
      source_url: url,
      models: ids,
      routable_models: ids.map((id) => `${target.provider_id}/${id}`),
      added: counts.added,
      removed: counts.removed,
      total: counts.total,
      duration_ms: recorded.duration_ms,
    };
  }

  async catalogOfTarget(principal: Principal, targetId: string): Promise<TargetCatalog> {
    const target = await this.targets.load(principal.orgId, targetId);
    const models = await this.repositories.discoveredModels.listByTarget(principal.orgId, target._id);
    return { target_id: target._id, provider_id: target.provider_id, items: models.map(toModelView), total: models.length };
  }

  /** The organization's discovered models; a `provider_id` that is not one of its targets is 404. */
  async catalog(principal: Principal, query: { provider_id?: string; limit?: number; cursor?: string }): Promise<CatalogPage> {
    const orgId = principal.orgId;
    if (query.cursor !== undefined && !CATALOG_CURSOR.test(query.cursor)) throw invalidCursor();
    const limit = query.limit ?? 200;
    const providerId = query.provider_id?.trim().toLowerCase();
    if (providerId !== undefined && !(await this.repositories.providerTargets.findByProviderId(orgId, providerId))) {
      throw notFound('Provider target', 'provider_id');
    }
    const models = this.repositories.discoveredModels;
    const [page, total] = await Promise.all([
      models.catalog(orgId, { provider_id: providerId, limit, cursor: query.cursor }),
      models.count(orgId, providerId === undefined ? {} : { provider_id: providerId }),
    ]);
    return { items: page.items.map(toModelView), total, next_cursor: page.next_cursor, limit };
  }

  /**
   * Discovery runs, newest first. A `target_id` must be one of the organization's targets (404
   * otherwise), or a deleted one whose runs are still in its history.
   */
  async history(principal: Principal, limit: number, targetId?: string): Promise<HistoryPage> {
    const orgId = principal.orgId;
    const runs = this.repositories.discoveryRuns;
    const [items, total] = await Promise.all([runs.listRecent(orgId, limit, targetId), runs.count(orgId, targetId === undefined ? {} : { target_id: targetId })]);
    if (targetId !== undefined && total === 0) await this.targets.load(orgId, targetId);
    return { items: items.map(toRunView), total, limit };
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close();
  }

  /** The target's headers (sealed ones opened), then ours; its key (decrypted here, never logged) as a bearer token. */
  private headersOf(target: ProviderTargetEntity): Record<string, string> {
    const stored = openTargetHeaders(this.cipher, target, (header, err) =>
      this.logger.error({ err, org_id: target.org_id, target_id: target._id, header }, 'a sealed header of a provider target could not be decrypted; sent without it'),
    );
    const headers: Record<string, string> = { ...stored, accept: 'application/json', 'user-agent': 'svc-gateway-model-discovery' };
    if (target.api_key) headers['authorization'] = `Bearer ${this.cipher.decrypt(target.org_id, target.api_key)}`;
    return headers;
  }

  /** The error the caller sees: 400 `url_not_allowed` for a refused destination, 502 `discovery_failed` otherwise. */
  private failure(error: unknown): GatewayError {
    if (error instanceof OutboundBlockedError) return urlNotAllowed(error, 'base_url');
    if (!(error instanceof DiscoveryError) && !(error instanceof SecretDecryptionError)) throw error;
    const message = error instanceof DiscoveryError ? error.message : 'the stored key of the target cannot be decrypted; store it again';
    return new GatewayError(502, {
      message: `Model discovery failed: ${message}`,
      type: 'api_error',
      code: 'discovery_failed',
      param: error instanceof DiscoveryError ? error.failure : 'api_key',
      remediation:
        error instanceof DiscoveryError && error.failure === 'lookup_timeout'
          ? 'The name servers of the base_url host did not answer within DISCOVERY_TIMEOUT_MS; check its DNS, or try again later.'
          : 'Check that the target is up and that base_url points at its API (GET /v1/models, or /api/tags for Ollama).',
    });
  }
}
