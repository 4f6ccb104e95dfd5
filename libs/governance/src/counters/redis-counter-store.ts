import type { Redis } from '@svc/platform';
import { ADMIT_LUA, SETTLE_LUA } from './lua';
import { ADMIT_CODES, AdmitPlan, AdmitResult, CounterStore, RateStatus, SettlePlan, SettleResult } from './types';

type ScriptArg = string | number;

/** The commands `defineCommand` adds to the client (EVALSHA, falling back to EVAL after a restart). */
interface GovernanceCommands {
  svcGovAdmit(numberOfKeys: number, ...args: ScriptArg[]): Promise<unknown[]>;
  svcGovSettle(numberOfKeys: number, ...args: ScriptArg[]): Promise<unknown[]>;
}

const num = (value: unknown): number => {
  const parsed = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(parsed) ? parsed : 0;
};

/** Keys then arguments of the admit script (see ADMIT_LUA for the layout: the numbers go as one string). */
export function admitScriptArgs(plan: AdmitPlan): { keys: string[]; args: ScriptArg[] } {
  const keys = [plan.quota.key, plan.rpm.key, plan.rpm.keysKey, plan.rpm.busyKey, plan.day.key, plan.month.key, plan.budgetsKey];
  for (const node of plan.nodes) keys.push(node.key);
  if (plan.session) keys.push(plan.session.key);
  const numbers: number[] = [
    plan.level,
    plan.quota.limit ?? -1,
    plan.quota.ttlSeconds,
    plan.rpm.limit,
    plan.rpm.ttlSeconds,
    plan.estimateMicros,
    plan.autoStopMicros ?? -1,
    plan.budgetsTtlSeconds,
    plan.nodes.length,
    plan.session ? 1 : 0,
  ];
  pushAccumulator(numbers, plan.day);
  pushAccumulator(numbers, plan.month);
  for (const node of plan.nodes) pushAccumulator(numbers, node);
  if (plan.session) pushAccumulator(numbers, plan.session);
  return { keys, args: [numbers.join(','), plan.orgId, plan.rpm.keyField] };
}

function pushAccumulator(numbers: number[], acc: { limitMicros: number; ttlSeconds: number; seedMicros: number }): void {
  numbers.push(acc.limitMicros, acc.ttlSeconds, acc.seedMicros);
}

export function parseAdmitReply(reply: unknown[]): AdmitResult {
  const code = ADMIT_CODES[num(reply[0])];
  if (!code) throw new Error(`unexpected admit reply ${JSON.stringify(reply)}`);
  return {
    code,
    rpmCount: num(reply[1]),
    quotaUsed: num(reply[2]),
    daySpentMicros: num(reply[3]),
    dayReservedMicros: num(reply[4]),
    monthSpentMicros: num(reply[5]),
    monthReservedMicros: num(reply[6]),
    deniedIndex: num(reply[7]),
    deniedUsedMicros: num(reply[8]),
  };
}

/**
 * Settles wait this long to go out together: they are off the request path, and a batch is one
 * script call (SETTLE_LUA settles many) instead of a command and a socket write each.
 */
export const SETTLE_BATCH_MS = 2;
/** At most this many settles per script call (a bound on one call's size and its time in Redis). */
export const SETTLE_BATCH_MAX = 64;

interface PendingSettle {
  plan: SettlePlan;
  resolve: (result: SettleResult) => void;
  reject: (error: unknown) => void;
}

/** Keys then arguments of the settle script for a batch (see SETTLE_LUA for the layout: two arguments per settle). */
export function settleScriptArgs(plans: readonly SettlePlan[]): { keys: string[]; args: ScriptArg[] } {
  const keys: string[] = [];
  const args: ScriptArg[] = [plans.length];
  for (const plan of plans) {
    keys.push(plan.markerKey, plan.todayKey);
    const numbers: number[] = [plan.markerTtlSeconds, plan.reservedMicros, plan.actualMicros, plan.todayTtlSeconds, plan.targets.length];
    const thresholds: string[] = [];
    for (const target of plan.targets) {
      keys.push(target.key, target.warnKey);
      numbers.push(target.ttlSeconds, target.limitMicros);
      thresholds.push(target.thresholds.join(','));
    }
    args.push(numbers.join(','), thresholds.join('|'));
  }
  return { keys, args };
}

export function parseSettleReply(reply: unknown): SettleResult {
  if (!Array.isArray(reply) || num(reply[0]) !== 1) return { applied: false, spentMicros: [], fired: [] };
  const spent = (reply[1] as unknown[]).map(num);
  const fired = (reply[2] as unknown[]).map((csv) =>
    String(csv)
      .split(',')
      .filter((t) => t.length > 0)
      .map(Number),
  );
  return { applied: true, spentMicros: spent, fired };
}

/**
 * Counters in Redis: one EVALSHA per request before the upstream call, and one for the settles of
 * each batch. The client does not auto-pipeline (see createRedis): an admit leaves at once, alone.
 */
export class RedisCounterStore implements CounterStore {
  readonly kind = 'redis' as const;
  private readonly commands: GovernanceCommands;
  private settles: PendingSettle[] = [];
  private settleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly redis: Redis) {
    redis.defineCommand('svcGovAdmit', { lua: ADMIT_LUA });
    redis.defineCommand('svcGovSettle', { lua: SETTLE_LUA });
    this.commands = redis as unknown as GovernanceCommands;
  }

  async admit(plan: AdmitPlan): Promise<AdmitResult> {
    const { keys, args } = admitScriptArgs(plan);
    return parseAdmitReply(await this.commands.svcGovAdmit(keys.length, ...keys, ...args));
  }

  settle(plan: SettlePlan): Promise<SettleResult> {
    return new Promise((resolve, reject) => {
      this.settles.push({ plan, resolve, reject });
      this.settleTimer ??= setTimeout(() => this.flushSettles(), SETTLE_BATCH_MS);
    });
  }

  private flushSettles(): void {
    this.settleTimer = null;
    const pending = this.settles;
    this.settles = [];
    for (let start = 0; start < pending.length; start += SETTLE_BATCH_MAX) void this.settleBatch(pending.slice(start, start + SETTLE_BATCH_MAX));
  }

  private async settleBatch(batch: PendingSettle[]): Promise<void> {
    const { keys, args } = settleScriptArgs(batch.map((pending) => pending.plan));
    let replies: unknown[];
    try {
      replies = await this.commands.svcGovSettle(keys.length, ...keys, ...args);
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    batch.forEach((pending, i) => pending.resolve(parseSettleReply(replies[i])));
  }

  async rateStatus(rpmKey: string, keysKey: string): Promise<RateStatus> {
    const [count, perKey] = await Promise.all([this.redis.get(rpmKey), this.redis.hgetall(keysKey)]);
    const keys: Record<string, number> = {};
    for (const [field, value] of Object.entries(perKey)) keys[field] = num(value);
    return { count: num(count), keys };
  }

  async busiest(busyKey: string, limit: number): Promise<{ orgId: string; count: number }[]> {
    const flat = await this.redis.zrevrange(busyKey, 0, Math.max(0, limit - 1), 'WITHSCORES');
    const out: { orgId: string; count: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) out.push({ orgId: flat[i], count: num(flat[i + 1]) });
    return out;
  }

  async today(todayKey: string, budgetsKey: string): Promise<{ spentMicros: number; budgetsMicros: number }> {
    const [spent, budgets] = await Promise.all([this.redis.get(todayKey), this.redis.hvals(budgetsKey)]);
    return { spentMicros: num(spent), budgetsMicros: budgets.reduce((sum, value) => sum + num(value), 0) };
  }

  /** Sends the settles still waiting for their batch; the client belongs to the runtime. */
  async close(): Promise<void> {
    if (this.settleTimer) clearTimeout(this.settleTimer);
    this.flushSettles();
  }
}
