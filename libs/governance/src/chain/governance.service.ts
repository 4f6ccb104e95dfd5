import { OnModuleDestroy } from '@nestjs/common';
import type { MasterKeys, Principal } from '@svc/auth';
import { verifyRunnerProof } from '@svc/auth';
import { asOrgId, Repositories } from '@svc/domain';
import type { EventPublisher } from '@svc/events';
import { AppConfig, InvalidationBus, Logger, Redis } from '@svc/platform';
import { ApprovalsService } from '../approvals/approvals.service';
import { GovernancePolicy } from '../data/policy';
import { CounterEpoch } from '../counters/counter-epoch';
import { FailoverCounterStore } from '../counters/failover-counter-store';
import { CounterKeys } from '../counters/keys';
import { MemoryCounterStore } from '../counters/memory-counter-store';
import { dayKey, fromMicros, MicroCarry, minuteOf } from '../counters/periods';
import { RedisCounterStore } from '../counters/redis-counter-store';
import { ExternalSafetyClassifier } from '../scanners/safety/external-classifier';
import { HttpSafetyClassifier } from '../stages/classifier-client';
import { PiiNerClient, PresidioNerClient } from '../stages/ner-client';
import { ChainRunner } from './chain-runner';
import { GovernanceDecision, GovernanceHealth, GovernanceInput, GovernanceService, RateLimitSnapshot, Reservation } from './contract';
import { ReservationDetail } from './counter-plan';
import { GovernanceEvents } from './governance-events';
import { periodSpend } from './period-spend';
import { parsePlanQuotas } from './plan-quotas-config';
import { defaultPriceOptions } from '../cost/price-lookup';
import { ProfileCache } from './profile-cache';

export type GovernanceRepositories = Pick<Repositories, 'organizations' | 'policies' | 'budgetNodes' | 'namedBudgets' | 'approvals' | 'runnerSessions' | 'apiKeys' | 'usage'>;

export type GovernanceConfig = Pick<
  AppConfig,
  'CONTENT_SAFETY_SCAN' | 'DLP_GUARDRAILS' | 'SECURITY_SCANNER' | 'PII_NER' | 'PII_NER_URL' | 'AI_CLASSIFIER_URL' | 'APPROVAL_TTL_HOURS'
> & { PLAN_DAILY_QUOTAS?: string; DEFAULT_MODEL_PRICE?: string; UPSTREAM_TOTAL_TIMEOUT_MS?: number };

export interface GovernanceDeps {
  /** The hot-path client, or null in the embedded mode. */
  redis: Redis | null;
  repositories: GovernanceRepositories;
  publisher: EventPublisher;
  invalidation: InvalidationBus | null;
  config: GovernanceConfig;
  logger: Logger;
  masterKeys: MasterKeys;
  /** The memory counters, shared by the surfaces of one process in the embedded mode (never with Redis). */
  memory?: MemoryCounterStore;
  /** Called once when the service closes (gives the shared memory counters back). */
  onClose?: () => void;
}

export interface GovernanceOptions {
  /** Prefix of every counter key (tests isolate themselves with it). Default `gov`. */
  keyPrefix?: string;
  /** Longest wait on Redis before counting in memory (default 50 ms). */
  redisTimeoutMs?: number;
  /** PING interval while degraded (default 1000 ms). */
  probeIntervalMs?: number;
  /** How often the marker of Redis' counters is read, to notice that Redis lost its data (default 5 s). */
  epochCheckMs?: number;
  /**
   * Reseed the spend counters from the usage records also when the marker is missing at the first
   * check (counter-epoch.ts `raise`). Off by default: on the embedded document store reading the
   * usage records would load them into the gateway's memory at every start.
   */
  reseedUnseen?: boolean;
  /** Policy cache TTL (default 5 s). */
  profileTtlMs?: number;
  /** Approval expiry sweep interval (default 60 s; 0 turns it off). */
  approvalSweepMs?: number;
  /** Override the NER and classifier clients built from the configuration. */
  ner?: PiiNerClient | null;
  classifier?: ExternalSafetyClassifier | null;
}

/**
 * The governance chain behind the GOVERNANCE token: `evaluate` before the upstream call (at most
 * one Redis round trip), `settle` after it, plus what health, the admin API and the approval
 * polling route need. See docs/governance.md.
 */
export class ChainGovernanceService implements GovernanceService, OnModuleDestroy {
  readonly approvals: ApprovalsService;
  readonly keys: CounterKeys;
  private readonly counters: FailoverCounterStore;
  /** Notices that Redis lost the counters and reseeds their spend (null without Redis). */
  private readonly epoch: CounterEpoch | null;
  private readonly profiles: ProfileCache;
  private readonly events: GovernanceEvents;
  private readonly runner: ChainRunner;
  private readonly sessions = new Map<string, { value: Awaited<ReturnType<Repositories['runnerSessions']['findById']>>; expiresAt: number }>();
  private readonly sweeper: NodeJS.Timeout | null;
  private readonly ownsMemory: boolean;
  private readonly memory: MemoryCounterStore;
  /** Sub-micro-dollar remainders of settled costs, per organization. */
  private readonly carry = new MicroCarry();
  private closed = false;

  constructor(
    private readonly deps: GovernanceDeps,
    options: GovernanceOptions = {},
  ) {
    const { config, logger } = deps;
    this.keys = new CounterKeys(options.keyPrefix);
    this.ownsMemory = !deps.memory;
    this.memory = deps.memory ?? new MemoryCounterStore();
    const redis = deps.redis;
    const primary = redis
      ? { store: new RedisCounterStore(redis), isReady: () => redis.status === 'ready', ping: () => redis.ping() }
      : null;
    // With Redis the memory store is the fallback (cleared when Redis returns); without, the store.
    this.counters = new FailoverCounterStore(primary, this.memory, logger, {
      timeoutMs: options.redisTimeoutMs,
      probeIntervalMs: options.probeIntervalMs,
      onRecovered: () => this.epoch?.trigger(),
    });
    this.epoch = redis
      ? new CounterEpoch(redis, this.keys, (now) => periodSpend(deps.repositories, this.keys, now), logger, () => !this.counters.degraded, {
          checkIntervalMs: options.epochCheckMs,
          reseedUnseen: options.reseedUnseen ?? false,
        })
      : null;
    this.epoch?.start();
    this.profiles = new ProfileCache(deps.repositories, deps.invalidation, { ttlMs: options.profileTtlMs });
    this.events = new GovernanceEvents(deps.publisher, logger);
    this.approvals = new ApprovalsService(deps.repositories.approvals, {
      ttlHours: config.APPROVAL_TTL_HOURS,
      keys: deps.repositories.apiKeys,
      // A request that consumed an approval is in flight at most its upstream deadline and a margin.
      inFlightMs: config.UPSTREAM_TOTAL_TIMEOUT_MS === undefined ? undefined : config.UPSTREAM_TOTAL_TIMEOUT_MS + 60_000,
    });
    if (config.PII_NER && !config.PII_NER_URL && options.ner === undefined) logger.warn('PII_NER is on but PII_NER_URL is not set: NER is off');
    const ner = options.ner !== undefined ? options.ner : config.PII_NER && config.PII_NER_URL ? new PresidioNerClient(config.PII_NER_URL) : null;
    const classifier = options.classifier !== undefined ? options.classifier : config.AI_CLASSIFIER_URL ? new HttpSafetyClassifier(config.AI_CLASSIFIER_URL) : null;
    this.runner = new ChainRunner({
      keys: this.keys,
      counters: this.counters,
      approvals: this.approvals,
      logger,
      quotas: parsePlanQuotas(config.PLAN_DAILY_QUOTAS),
      flags: {
        contentSafety: config.CONTENT_SAFETY_SCAN || config.DLP_GUARDRAILS,
        securityScanner: config.SECURITY_SCANNER || config.DLP_GUARDRAILS,
        prices: defaultPriceOptions(config.DEFAULT_MODEL_PRICE),
      },
      ner,
      classifier,
      verifyProof: (runnerId, sessionId, proof) => verifyRunnerProof(deps.masterKeys, proof, { runnerId, sessionId }) !== null,
      findSession: (ctx, sessionId) => this.findSession(ctx.orgId, sessionId),
      release: (reservation) => void this.settle(reservation, 0).catch((err: unknown) => logger.warn({ err }, 'could not release a reservation')),
    });
    const sweepMs = options.approvalSweepMs ?? 60_000;
    this.sweeper = sweepMs > 0 ? setInterval(() => void this.sweepApprovals(), sweepMs) : null;
    this.sweeper?.unref();
  }

  async evaluate(input: GovernanceInput): Promise<GovernanceDecision> {
    const profile = await this.profiles.get(input.principal);
    const { decision, events } = await this.runner.run(input, profile);
    this.events.publish(profile.orgId, events, input.now);
    return decision;
  }

  async settle(reservation: Reservation, actualCostUsd: number): Promise<void> {
    // A flag on the reservation, not a WeakSet of them: a weak collection with an entry per request
    // made every young-generation collection process its entries (3 % of the gateway's CPU).
    if (reservation.settled) return;
    reservation.settled = true;
    const detail = reservation.detail as unknown as ReservationDetail;
    const actualMicros = this.carry.take(reservation.orgId, actualCostUsd);
    const result = await this.counters.settle(detail.store, { ...detail.settle, actualMicros });
    if (!result.applied) return;
    // Most settles fire no threshold and touch no session: nothing more to do.
    if (!result.fired.some((fired) => fired.length > 0) && !(actualMicros > 0 && detail.targets.some((target) => target.kind === 'session'))) return;
    const now = new Date();
    const timestamp = now.toISOString();
    detail.targets.forEach((target, index) => {
      const spent = fromMicros(result.spentMicros[index] ?? 0);
      if (target.kind === 'session') {
        if (actualMicros > 0) {
          void this.deps.repositories.runnerSessions
            .addSpend(asOrgId(reservation.orgId), target.sessionId, fromMicros(actualMicros))
            .catch((err: unknown) => this.deps.logger.warn({ err, session_id: target.sessionId }, 'could not record session spend'));
        }
        return;
      }
      const fired = result.fired[index] ?? [];
      if (target.kind === 'node') {
        const { node } = target;
        this.events.publish(
          reservation.orgId,
          fired.map((threshold_pct) => ({
            type: 'budget_hierarchy_alert' as const,
            data: { node_id: node._id, name: node.name, level: node.level, budget_limit: node.budget_limit, spent, threshold_pct, reset_period: node.reset_period, timestamp },
          })),
          now,
        );
        return;
      }
      const utilization = target.budget > 0 ? Math.round((spent / target.budget) * 10_000) / 100 : 0;
      this.events.publish(
        reservation.orgId,
        fired.map((threshold_pct) => ({
          type: 'budget.warning' as const,
          data: { budget_type: target.kind, threshold_pct, spent, budget: target.budget, utilization_pct: utilization, timestamp },
        })),
        now,
      );
    });
  }

  health(): GovernanceHealth {
    return { degraded: this.counters.degraded };
  }

  async busiestOrgs(limit: number): Promise<RateLimitSnapshot[]> {
    const rows = await this.counters.busiest(this.keys.busiest(minuteOf(Date.now())), limit);
    return Promise.all(
      rows.map(async ({ orgId, count }) => {
        const rpm = await this.profiles.getById(orgId).then(
          (profile) => profile.policy.rpm_limit,
          () => 0,
        );
        return { org_id: orgId, current_rpm: count, rpm_limit: rpm };
      }),
    );
  }

  async todayCost(): Promise<{ today_usd: number; daily_budget_usd: number }> {
    const day = dayKey(new Date());
    const { spentMicros, budgetsMicros } = await this.counters.today(this.keys.today(day), this.keys.budgets(day));
    return { today_usd: fromMicros(spentMicros), daily_budget_usd: fromMicros(budgetsMicros) };
  }

  async standingHeaders(principal: Principal, requestId: string): Promise<Record<string, string>> {
    const profile = await this.profiles.get(principal);
    const input: GovernanceInput = {
      requestId,
      principal,
      endpoint: 'chat',
      format: 'openai',
      provider: '',
      model: '',
      requestedModel: '',
      body: undefined,
      bodyBytes: 0,
      stream: false,
      agent: principal.keyName ?? 'unknown',
      runner: null,
      now: new Date(),
    };
    return this.runner.standingHeaders(input, profile);
  }

  async releaseApproval(orgId: string, approvalId: string, requestId: string): Promise<void> {
    await this.approvals.release(orgId, approvalId, requestId);
  }

  async keepApproval(orgId: string, approvalId: string, requestId: string): Promise<void> {
    await this.approvals.markUsed(orgId, approvalId, requestId);
  }

  async bodyLimit(principal: Principal): Promise<number> {
    return (await this.profiles.get(principal)).policy.max_body_bytes;
  }

  /** `GET /gateway/admin/rate-limits/status`: this minute's count of the organization and of each key. */
  async rateLimitStatus(orgId: string): Promise<{ org_id: string; rpm_limit: number; current_minute_count: number; keys: { key_id: string; requests_this_minute: number }[] }> {
    const minute = minuteOf(Date.now());
    const [profile, status] = await Promise.all([this.profiles.getById(orgId), this.counters.rateStatus(this.keys.rpm(orgId, minute), this.keys.rpmPerKey(orgId, minute))]);
    const keys = Object.entries(status.keys)
      .map(([key_id, requests_this_minute]) => ({ key_id, requests_this_minute }))
      .sort((a, b) => b.requests_this_minute - a.requests_this_minute || a.key_id.localeCompare(b.key_id));
    return { org_id: orgId, rpm_limit: profile.policy.rpm_limit, current_minute_count: status.count, keys };
  }

  /** The policy in force for an organization (tier defaults plus overrides), as the chain sees it. */
  async effectivePolicy(orgId: string): Promise<{ tier: string; policy: GovernancePolicy }> {
    const profile = await this.profiles.getById(orgId);
    return { tier: profile.tier, policy: profile.policy };
  }

  /** Drops an organization's cached policy in this process (the InvalidationBus does it everywhere). */
  invalidate(orgId: string): void {
    this.profiles.invalidate(orgId);
  }

  async onModuleDestroy(): Promise<void> {
    await this.close();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    this.epoch?.stop();
    this.profiles.close();
    await this.counters.close();
    if (this.ownsMemory) await this.memory.close();
    this.deps.onClose?.();
  }

  private async sweepApprovals(): Promise<void> {
    try {
      await this.approvals.expireOverdue();
    } catch (err) {
      this.deps.logger.warn({ err }, 'approval expiry sweep failed');
    }
  }

  private async findSession(orgId: string, sessionId: string) {
    const key = `${orgId}:${sessionId}`;
    const hit = this.sessions.get(key);
    const now = Date.now();
    const session = hit && hit.expiresAt > now ? hit.value : await this.deps.repositories.runnerSessions.findById(asOrgId(orgId), sessionId);
    if (!hit || hit.expiresAt <= now) {
      if (this.sessions.size > 10_000) this.sessions.delete(this.sessions.keys().next().value as string);
      this.sessions.set(key, { value: session, expiresAt: now + 5_000 });
    }
    return session ? { runnerId: session.runner_id, state: session.state, budgetUsd: session.budget_usd, spentUsd: session.spent_usd } : null;
  }
}
