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

/** Keys then arguments of the admit script for a batch (see ADMIT_LUA for the layout: three arguments per admit). */
export function admitScriptArgs(plans: readonly AdmitPlan[]): { keys: string[]; args: ScriptArg[] } {
  const keys: string[] = [];
  const args: ScriptArg[] = [plans.length];
  for (const plan of plans) {
    keys.push(plan.quota.key, plan.rpm.key, plan.rpm.keysKey, plan.rpm.busyKey, plan.day.key, plan.month.key, plan.budgetsKey);
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
    args.push(numbers.join(','), plan.orgId, plan.rpm.keyField);
  }
  return { keys, args };
}

function pushAccumulator(numbers: number[], acc: { limitMicros: number; ttlSeconds: number; seedMicros: number }): void {
  numbers.push(acc.limitMicros, acc.ttlSeconds, acc.seedMicros);
}

export function parseAdmitReply(reply: unknown): AdmitResult {
  if (!Array.isArray(reply)) throw new Error(`unexpected admit reply ${JSON.stringify(reply)}`);
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
/** At most this many settles, or admits, per script call (a bound on one call's size and its time in Redis). */
export const SETTLE_BATCH_MAX = 64;
export const ADMIT_BATCH_MAX = SETTLE_BATCH_MAX;

interface Pending<Plan, Result> {
  plan: Plan;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/**
 * Calls of one batch script: plans queue until `schedule` fires, then go out as one call per `max`
 * plans, each plan getting its own entry of the reply (a plan whose entry is an error is rejected
 * with it, alone). A call that fails as a whole rejects every plan in it.
 */
class ScriptBatch<Plan, Result> {
  private pending: Pending<Plan, Result>[] = [];
  private cancel: (() => void) | null = null;

  constructor(
    private readonly options: {
      call: (keys: string[], args: ScriptArg[]) => Promise<unknown[]>;
      args: (plans: readonly Plan[]) => { keys: string[]; args: ScriptArg[] };
      parse: (reply: unknown) => Result;
      max: number;
      /** Arranges for `flush` to run once; returns how to call that off. */
      schedule: (flush: () => void) => () => void;
    },
  ) {}

  add(plan: Plan): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.pending.push({ plan, resolve, reject });
      this.cancel ??= this.options.schedule(() => this.flush());
    });
  }

  /** Sends what is queued now (also on close, so no caller is left waiting). */
  flush(): void {
    this.cancel?.();
    this.cancel = null;
    const pending = this.pending;
    this.pending = [];
    for (let start = 0; start < pending.length; start += this.options.max) void this.send(pending.slice(start, start + this.options.max));
  }

  private async send(batch: Pending<Plan, Result>[]): Promise<void> {
    let replies: unknown[];
    try {
      const { keys, args } = this.options.args(batch.map((pending) => pending.plan));
      replies = await this.options.call(keys, args);
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    for (let i = 0; i < batch.length; i++) {
      const reply = replies[i];
      try {
        // An entry that is an error: Redis refused that plan alone (the scripts run each under pcall).
        if (reply instanceof Error) throw reply;
        batch[i].resolve(this.options.parse(reply));
      } catch (error) {
        batch[i].reject(error);
      }
    }
  }
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
 * Counters in Redis. Admits go out in the turn of the event loop that issued them: those issued
 * together (requests read in the same turn) are one EVALSHA, each admitted in turn, and a lone admit
 * (a quiet gateway) leaves as soon as the turn's I/O callbacks are done. Settles, off the request
 * path, wait SETTLE_BATCH_MS to gather. The client does not auto-pipeline (see createRedis): its
 * batches end with each I/O callback, where ours span the whole turn.
 */
export class RedisCounterStore implements CounterStore {
  readonly kind = 'redis' as const;
  private readonly admits: ScriptBatch<AdmitPlan, AdmitResult>;
  private readonly settles: ScriptBatch<SettlePlan, SettleResult>;

  constructor(private readonly redis: Redis) {
    redis.defineCommand('svcGovAdmit', { lua: ADMIT_LUA });
    redis.defineCommand('svcGovSettle', { lua: SETTLE_LUA });
    const commands = redis as unknown as GovernanceCommands;
    this.admits = new ScriptBatch({
      call: (keys, args) => commands.svcGovAdmit(keys.length, ...keys, ...args),
      args: admitScriptArgs,
      parse: parseAdmitReply,
      max: ADMIT_BATCH_MAX,
      schedule: (flush) => {
        const immediate = setImmediate(flush);
        return () => clearImmediate(immediate);
      },
    });
    this.settles = new ScriptBatch({
      call: (keys, args) => commands.svcGovSettle(keys.length, ...keys, ...args),
      args: settleScriptArgs,
      parse: parseSettleReply,
      max: SETTLE_BATCH_MAX,
      schedule: (flush) => {
        const timer = setTimeout(flush, SETTLE_BATCH_MS);
        return () => clearTimeout(timer);
      },
    });
  }

  admit(plan: AdmitPlan): Promise<AdmitResult> {
    return this.admits.add(plan);
  }

  settle(plan: SettlePlan): Promise<SettleResult> {
    return this.settles.add(plan);
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

  /** Sends the admits and settles still waiting for their batch; the client belongs to the runtime. */
  async close(): Promise<void> {
    this.admits.flush();
    this.settles.flush();
  }
}
