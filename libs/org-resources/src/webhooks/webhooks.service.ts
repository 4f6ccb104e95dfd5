import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  DuplicateKeyError,
  NewWebhook,
  openWebhookUrl,
  OrgId,
  randomAlphanumeric,
  Repositories,
  resealWebhookUrl,
  sealWebhookUrl,
  SecretCipher,
  SecretDecryptionError,
  WebhookDeliveryEntity,
  WebhookEntity,
  webhookUrlHashes,
} from '@svc/domain';
import {
  AddJobOptions,
  createEvent,
  DEFAULT_PUBLISH_TIMEOUT_MS,
  EVENT_BUS,
  EVENT_SOURCES,
  EventBus,
  EventType,
  GatewayEvent,
  parseGatewayEvent,
  QUEUES,
  WebhookDeliveryJob,
  webhookDeliveryJobOptions,
} from '@svc/events';
import { APP_CONFIG, AppConfig, ConflictError, HostResolver, LOGGER, Logger, OrgApiError, OUTBOUND_RESOLVER, outboundResolver, raceTimeout } from '@svc/platform';
import { REPOSITORIES, SECRET_CIPHER } from '@svc/runtime';
import { orgErrors } from '../common/org-errors';
import { collection, Collection } from '../common/pagination';
import { PerKeySerializer } from '../common/per-key-serializer';
import type { CreateWebhookDto, TestDeliveryDto, UpdateWebhookDto, WebhookDto } from './dto/webhook.dto';
import { canonicalEventTypes } from './event-types';
import { checkReceiverUrl } from './outbound-url';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** `url`: the webhook's receiver URL in clear (`openWebhookUrl`), shown in full to its organization. */
export function toWebhookDto(webhook: WebhookEntity, url: string): WebhookDto {
  return {
    id: webhook._id,
    url,
    events: webhook.events,
    status: webhook.status,
    created_at: webhook.created_at.toISOString(),
    updated_at: webhook.updated_at.toISOString(),
    description: webhook.description,
    consecutive_failures: webhook.consecutive_failures,
    disabled_reason: webhook.disabled_reason,
    last_delivery_at: iso(webhook.last_delivery_at),
  };
}

export function toDeliveryDto(delivery: WebhookDeliveryEntity) {
  return {
    id: delivery._id,
    webhook_id: delivery.webhook_id,
    event_id: delivery.event_id,
    event_type: delivery.event_type,
    status: delivery.status,
    status_code: delivery.status_code,
    latency_ms: delivery.latency_ms,
    retry_count: delivery.retry_count,
    error: delivery.error,
    dead_letter: delivery.dead_letter,
    created_at: delivery.created_at.toISOString(),
    last_attempt_at: iso(delivery.last_attempt_at),
    next_attempt_at: iso(delivery.next_attempt_at),
    delivered_at: iso(delivery.delivered_at),
  };
}

export type DeliveryDto = ReturnType<typeof toDeliveryDto>;

export interface QueuedDelivery {
  status: 'queued';
  webhook_id: string;
  event_id: string;
  event_type: string;
  job_id: string;
  delivery_id?: string;
}

@Injectable()
export class WebhooksService {
  /** Creates of one organization, one at a time in this process (the cap's count, then insert). */
  private readonly creates = new PerKeySerializer();

  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(SECRET_CIPHER) private readonly cipher: SecretCipher,
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Optional() @Inject(OUTBOUND_RESOLVER) private readonly resolve: HostResolver = outboundResolver(config),
  ) {}

  async create(orgId: OrgId, input: CreateWebhookDto): Promise<WebhookDto> {
    await this.assertBelowCap(orgId); // an organization at the cap is refused before any DNS lookup
    const events = canonicalEventTypes(input.events);
    const url = await checkReceiverUrl(input.url, this.config, this.resolve);
    const generated = input.secret ? undefined : `whsec_${randomAlphanumeric(40)}`;
    const secret = input.secret ?? (generated as string);
    const webhook = await this.creates.run(orgId, () =>
      this.insertCapped(orgId, url, { ...sealWebhookUrl(this.cipher, orgId, url), events, secret: this.cipher.encrypt(orgId, secret), description: input.description ?? null }),
    );
    return { ...toWebhookDto(webhook, url), ...(generated ? { secret: generated } : {}) };
  }

  /**
   * WEBHOOK_MAX_PER_ORG (docs/decisions-services.md "Webhook cap"): run one at a time per organization in
   * this process, so the count and the insert cannot interleave with another create here. Another
   * replica's create can still pass the count at the same time: the count after inserting decides,
   * and a create that then sees more than the cap takes its own webhook back, so the cap is never
   * exceeded (two replicas racing for the last place may both be refused).
   */
  private async insertCapped(orgId: OrgId, url: string, input: NewWebhook): Promise<WebhookEntity> {
    await this.assertBelowCap(orgId);
    await this.assertNoWebhookFor(orgId, url);
    let webhook: WebhookEntity;
    try {
      webhook = await this.repositories.webhooks.create(orgId, input);
    } catch (error) {
      if (error instanceof DuplicateKeyError) throw await this.duplicate(orgId, url);
      throw error;
    }
    if ((await this.repositories.webhooks.count(orgId)) > this.config.WEBHOOK_MAX_PER_ORG) {
      await this.repositories.webhooks.deleteById(orgId, webhook._id);
      throw webhookLimitReached(this.config.WEBHOOK_MAX_PER_ORG);
    }
    return webhook;
  }

  /** 409 `WEBHOOK_LIMIT_REACHED` when the organization has WEBHOOK_MAX_PER_ORG webhooks (any status). */
  private async assertBelowCap(orgId: OrgId): Promise<void> {
    if ((await this.repositories.webhooks.count(orgId)) >= this.config.WEBHOOK_MAX_PER_ORG) throw webhookLimitReached(this.config.WEBHOOK_MAX_PER_ORG);
  }

  async list(orgId: OrgId, page: { offset: number; limit: number }): Promise<Collection<WebhookDto>> {
    return collection(await this.repositories.webhooks.list(orgId, page), page, (webhook) => this.dto(orgId, webhook));
  }

  async get(orgId: OrgId, id: string): Promise<WebhookDto> {
    return this.dto(orgId, await this.find(orgId, id));
  }

  /** PUT and PATCH alike: only the fields sent change. */
  async update(orgId: OrgId, id: string, input: UpdateWebhookDto): Promise<WebhookDto> {
    const current = await this.find(orgId, id);
    const patch: Partial<WebhookEntity> = {};
    if (input.events !== undefined) patch.events = canonicalEventTypes(input.events);
    const url = input.url === undefined ? undefined : await checkReceiverUrl(input.url, this.config, this.resolve);
    if (url !== undefined) {
      await this.assertNoWebhookFor(orgId, url, id);
      Object.assign(patch, sealWebhookUrl(this.cipher, orgId, url));
    }
    if (input.secret !== undefined) patch.secret = this.cipher.encrypt(orgId, input.secret);
    if (input.description !== undefined) patch.description = input.description;
    let updated: WebhookEntity | null = current;
    if (Object.keys(patch).length) {
      try {
        updated = await this.repositories.webhooks.updateById(orgId, id, patch);
      } catch (error) {
        if (error instanceof DuplicateKeyError && url !== undefined) throw await this.duplicate(orgId, url, id);
        throw error;
      }
    }
    // A URL stored in clear (before URLs were sealed) or under a previous master key is sealed again on the
    // webhook's next write (docs/webhooks-outbound.md "Receiver URLs at rest").
    if (updated && (typeof updated.url === 'string' || this.cipher.needsReencryption(updated.url))) {
      await resealWebhookUrl(this.repositories.webhooks, this.cipher, updated, this.logger);
      updated = (await this.repositories.webhooks.findById(orgId, id)) ?? updated;
    }
    // Only a change of state acts: `status: active` on an active webhook keeps its failure count
    // (clients that send the whole object back would otherwise never reach the automatic disable).
    if (input.status === 'active' && updated?.status !== 'active') {
      updated = (await this.repositories.webhooks.enable(orgId, id)) ?? (await this.repositories.webhooks.findById(orgId, id));
    }
    if (input.status === 'disabled' && updated?.status === 'active') {
      updated = (await this.repositories.webhooks.disable(orgId, id, 'disabled by a user')) ?? (await this.repositories.webhooks.findById(orgId, id));
    }
    if (!updated) throw orgErrors.notFound('Webhook', id);
    return this.dto(orgId, updated);
  }

  async remove(orgId: OrgId, id: string): Promise<void> {
    if (!(await this.repositories.webhooks.deleteById(orgId, id))) throw orgErrors.notFound('Webhook', id);
    await this.repositories.webhookDeliveries.deleteByWebhook(orgId, id);
  }

  async deliveries(orgId: OrgId, id: string, page: { offset: number; limit: number }): Promise<Collection<DeliveryDto>> {
    await this.find(orgId, id);
    return collection(await this.repositories.webhookDeliveries.listByWebhook(orgId, id, page), page, toDeliveryDto);
  }

  /** Puts a dead letter back on the `webhook-delivery` queue; the dispatcher records the new attempts on it. */
  async retryDeadLetter(orgId: OrgId, webhookId: string, deliveryId: string): Promise<QueuedDelivery> {
    assertActive(await this.find(orgId, webhookId), 'retrying');
    const existing = await this.repositories.webhookDeliveries.findById(orgId, deliveryId);
    if (!existing || existing.webhook_id !== webhookId) throw orgErrors.notFound('Delivery', deliveryId);
    if (!existing.dead_letter) throw orgErrors.conflict('NOT_A_DEAD_LETTER', 'Only dead-lettered deliveries can be retried');
    const event = parseGatewayEvent(existing.payload);
    if (!event) throw orgErrors.conflict('PAYLOAD_UNREADABLE', 'The stored payload of this delivery is not a valid event');
    const options = webhookDeliveryJobOptions(event.id, webhookId, this.config.WEBHOOK_RETRY_BASE_MS);
    // A fresh job id: the original job may still be retained by the queue, which would ignore the add.
    // The record keeps it, so the retry sweep puts the job back if Redis loses it before it runs.
    const retryJobId = `${options.jobId}.retry-${Date.now().toString(36)}`;
    const requeued = await this.repositories.webhookDeliveries.requeueDeadLetter(orgId, webhookId, deliveryId, retryJobId);
    if (!requeued) throw orgErrors.conflict('NOT_A_DEAD_LETTER', 'Only dead-lettered deliveries can be retried');
    let jobId: string;
    try {
      jobId = await this.enqueue({ event, webhookId, attempt: 1, retryOfDeliveryId: deliveryId }, { ...options, jobId: retryJobId });
    } catch (error) {
      // Not queued: it stays a dead letter, to be retried once the queue is back.
      await this.repositories.webhookDeliveries.markDeadLetter(orgId, deliveryId);
      throw error;
    }
    return { status: 'queued', webhook_id: webhookId, event_id: event.id, event_type: event.type, job_id: jobId, delivery_id: deliveryId };
  }

  /** Enqueues a test event for one registered webhook of the organization (never an arbitrary URL). */
  async testDelivery(orgId: OrgId, input: TestDeliveryDto): Promise<QueuedDelivery> {
    if (!input.webhook_id && !input.url) throw orgErrors.validation('Give webhook_id or the url of a registered webhook', 'webhook_id');
    let webhook: WebhookEntity | null = null;
    if (input.webhook_id) webhook = await this.find(orgId, input.webhook_id);
    else {
      webhook = await this.findByUrl(orgId, normalizeUrl(input.url as string));
      if (!webhook) throw orgErrors.notFound('Webhook with this URL');
    }
    if (input.url && input.webhook_id && normalizeUrl(input.url) !== this.openUrl(orgId, webhook)) {
      throw orgErrors.validation('url does not match the webhook', 'url');
    }
    assertActive(webhook, 'sending a test delivery');
    const type: EventType = input.event_type ? canonicalEventTypes([input.event_type], 'event_type')[0] : (webhook.events[0] as EventType);
    const data = input.payload ?? { test: true, message: 'Test delivery from the organization API', timestamp: new Date().toISOString() };
    const event = createEvent(type, orgId, data as never, EVENT_SOURCES.orgApi) as GatewayEvent;
    const jobId = await this.enqueue({ event, webhookId: webhook._id, attempt: 1 }, webhookDeliveryJobOptions(event.id, webhook._id, this.config.WEBHOOK_RETRY_BASE_MS));
    return { status: 'queued', webhook_id: webhook._id, event_id: event.id, event_type: event.type, job_id: jobId };
  }

  /**
   * Adds a `webhook-delivery` job within DEFAULT_PUBLISH_TIMEOUT_MS: with the queue's Redis down the
   * add would wait for it to come back, and the request with it. 503 `SERVICE_UNAVAILABLE` then; an
   * add that timed out may still land once Redis is back (its commands wait in the client).
   */
  private async enqueue(job: WebhookDeliveryJob, options: AddJobOptions): Promise<string> {
    const add = this.bus.queue(QUEUES.webhookDelivery).add(job.event.type, job, options);
    try {
      return await raceTimeout(add, DEFAULT_PUBLISH_TIMEOUT_MS, () => {
        throw new Error(`no answer from the queue within ${DEFAULT_PUBLISH_TIMEOUT_MS} ms`);
      });
    } catch (err) {
      add.catch(() => undefined);
      this.logger.warn({ err, org_id: job.event.orgid, webhook_id: job.webhookId, event_id: job.event.id }, 'could not queue a webhook delivery');
      throw new OrgApiError(503, 'SERVICE_UNAVAILABLE', 'The delivery queue is unavailable and did not take the delivery; try again shortly');
    }
  }

  private async find(orgId: OrgId, id: string): Promise<WebhookEntity> {
    const webhook = await this.repositories.webhooks.findById(orgId, id);
    if (!webhook) throw orgErrors.notFound('Webhook', id);
    return webhook;
  }

  private dto(orgId: OrgId, webhook: WebhookEntity): WebhookDto {
    return toWebhookDto(webhook, this.openUrl(orgId, webhook));
  }

  /**
   * The webhook's URL in clear, or `''` when its seal does not open (the key that sealed it is no
   * longer configured): the webhook stays listed, readable and updatable, so a new `url` can seal it
   * again, rather than one such document making every list of the organization a 500
   * (docs/webhooks-outbound.md "Receiver URLs at rest").
   */
  private openUrl(orgId: OrgId, webhook: WebhookEntity): string {
    try {
      return openWebhookUrl(this.cipher, orgId, webhook);
    } catch (err) {
      if (!(err instanceof SecretDecryptionError)) throw err;
      this.logger.warn({ org_id: orgId, webhook_id: webhook._id, err }, 'webhook URL cannot be decrypted; answered as an empty url');
      return '';
    }
  }

  /** The org's webhook for a normalized URL: sealed (its `url_hash` under any configured key) or stored in clear. */
  private findByUrl(orgId: OrgId, url: string, exceptId?: string): Promise<WebhookEntity | null> {
    return this.repositories.webhooks.findByUrl(orgId, url, webhookUrlHashes(this.cipher, orgId, url), exceptId);
  }

  /**
   * 409 `webhook_endpoint_duplicate` when another webhook of the org has the URL. Checked before
   * writing: the unique index `org_url_hash_unique` sees only hashes under the same key, not a
   * document stored in clear or hashed under the previous master key.
   */
  private async assertNoWebhookFor(orgId: OrgId, url: string, exceptId?: string): Promise<void> {
    const existing = await this.findByUrl(orgId, url, exceptId);
    if (existing) throw this.conflict(existing._id);
  }

  private async duplicate(orgId: OrgId, url: string, exceptId?: string): Promise<ConflictError> {
    return this.conflict((await this.findByUrl(orgId, url, exceptId))?._id ?? null);
  }

  private conflict(conflictingId: string | null): ConflictError {
    return new ConflictError('webhook_endpoint_duplicate', 'A webhook for this URL already exists', {
      resource_type: 'webhook',
      conflicting_id: conflictingId,
    });
  }
}

/** 409 `WEBHOOK_LIMIT_REACHED`: the organization has `WEBHOOK_MAX_PER_ORG` webhooks (any status) already. */
function webhookLimitReached(limit: number) {
  return orgErrors.conflict('WEBHOOK_LIMIT_REACHED', `An organization can register at most ${limit} webhooks; delete one before registering another`, { limit });
}

/** 409 `WEBHOOK_DISABLED`: nothing is queued for a disabled webhook (the dispatcher would drop it). */
function assertActive(webhook: WebhookEntity, action: string): void {
  if (webhook.status !== 'active') {
    throw orgErrors.conflict('WEBHOOK_DISABLED', `The webhook is disabled; re-enable it (status: active) before ${action}`, { webhook_id: webhook._id });
  }
}

function normalizeUrl(url: string): string {
  try {
    return new URL(url.trim()).href;
  } catch {
    return url.trim();
  }
}
