import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { OrgId, Repositories } from '@svc/domain';
import { REPOSITORIES } from '@svc/runtime';
import { BillingAmounts, BillingLine, BillingSummary } from './dto/billing.dto';
import { allocateMicros, exactMicros, fromMicros } from './micros';

interface GroupRow {
  _id: { provider: string; model: string; key_id: string | null; agent: string | null };
  requests: number;
  blocked: number;
  input_tokens: number;
  output_tokens: number;
  cost: number;
}

/** A UTC calendar month: `YYYY-MM` and its [from, to) range. Years are as written (`0050` is not 1950). */
export function monthRange(month: string | undefined, now = new Date()): { month: string; from: Date; to: Date } {
  const [year, index] = month ? [Number(month.slice(0, 4)), Number(month.slice(5, 7)) - 1] : [now.getUTCFullYear(), now.getUTCMonth()];
  // `Date.UTC` reads the years 0–99 as 1900–1999: set the year on its own.
  const utc = (monthIndex: number) => new Date(new Date(0).setUTCFullYear(year, monthIndex, 1));
  const from = utc(index);
  return { month: `${String(year).padStart(4, '0')}-${String(index + 1).padStart(2, '0')}`, from, to: utc(index + 1) };
}

/** A line or group before its cost is shown: `cost` is the records' exact sum (USD). */
type Exact<T> = T & { cost: number };

/** Counts of a line or group, summed; the cost summed exactly (rounded once, by `withMicros`). */
class Accumulator {
  cost = 0;
  requests = 0;
  blocked = 0;
  input_tokens = 0;
  output_tokens = 0;

  add(line: BillingAmounts): this {
    this.cost += line.cost;
    this.requests += line.requests;
    this.blocked += line.blocked;
    this.input_tokens += line.input_tokens;
    this.output_tokens += line.output_tokens;
    return this;
  }

  amounts(): BillingAmounts {
    return { cost: this.cost, requests: this.requests, blocked: this.blocked, input_tokens: this.input_tokens, output_tokens: this.output_tokens };
  }
}

/**
 * Rows shown in whole micro-dollars that add up to `totalMicros` exactly, each within a micro-dollar
 * of its records' sum (`allocateMicros`), costliest first; `tieKeys[i]` orders rows of equal figures.
 */
function withMicros<T extends BillingAmounts>(rows: readonly T[], tieKeys: readonly string[], totalMicros?: number): T[] {
  const shown = allocateMicros(rows.map((row) => row.cost), totalMicros);
  return rows
    .map((row, i) => ({ row: { ...row, cost: fromMicros(shown[i]) }, micros: shown[i], tie: tieKeys[i] }))
    .sort((a, b) => b.micros - a.micros || b.row.requests - a.row.requests || a.tie.localeCompare(b.tie))
    .map(({ row }) => row);
}

/** The lines summed per group, shown like the lines (`withMicros`), adding up to the summary's total. */
function groupBy<K extends Record<string, string | null>>(lines: Exact<BillingLine>[], totalMicros: number, keyOf: (line: BillingLine) => K): (BillingAmounts & K)[] {
  const groups = new Map<string, { key: K; sum: Accumulator }>();
  for (const line of lines) {
    const key = keyOf(line);
    const id = JSON.stringify(key);
    let group = groups.get(id);
    if (!group) groups.set(id, (group = { key, sum: new Accumulator() }));
    group.sum.add(line);
  }
  const entries = [...groups.entries()];
  return withMicros(
    entries.map(([, { key, sum }]) => ({ ...key, ...sum.amounts() })),
    entries.map(([id]) => id),
    totalMicros,
  );
}

/** The monthly bill of an organization, from its usage records (costs as the proxy recorded them). */
@Injectable()
export class BillingService {
  constructor(@Inject(REPOSITORIES) private readonly repositories: Repositories) {}

  /** One line per provider, model, key and agent, costliest first, in micro-dollars adding up to the month's total. */
  async lines(orgId: OrgId, range: { month: string; from: Date; to: Date }): Promise<BillingLine[]> {
    const lines = await this.exactLines(orgId, range);
    return withMicros(lines, lines.map((line) => `${line.provider}/${line.model}`));
  }

  /** The lines with their records' exact cost sums. */
  private async exactLines(orgId: OrgId, range: { month: string; from: Date; to: Date }): Promise<Exact<BillingLine>[]> {
    const rows = await this.repositories.usage.aggregateUsage<GroupRow>(orgId, [
      { $match: { created_at: { $gte: range.from, $lt: range.to } } },
      {
        $group: {
          _id: { provider: '$provider', model: '$model', key_id: '$key_id', agent: '$agent' },
          requests: { $sum: 1 },
          blocked: { $sum: { $cond: [{ $eq: [{ $ifNull: ['$blocked_by', null] }, null] }, 0, 1] } },
          input_tokens: { $sum: '$input_tokens' },
          output_tokens: { $sum: '$output_tokens' },
          cost: { $sum: '$cost' },
        },
      },
    ]);
    const names = await this.keyNames(orgId, rows.map((row) => row._id.key_id));
    const lines = rows.map(
      (row): BillingLine => ({
        month: range.month,
        provider: row._id.provider,
        model: row._id.model,
        key_id: row._id.key_id ?? null,
        key_name: row._id.key_id ? (names.get(row._id.key_id) ?? null) : null,
        agent: row._id.agent ?? null,
        requests: row.requests,
        blocked: row.blocked,
        input_tokens: row.input_tokens,
        output_tokens: row.output_tokens,
        cost: row.cost,
      }),
    );
    return lines;
  }

  async summary(principal: Principal, month: string | undefined): Promise<BillingSummary> {
    const range = monthRange(month);
    const lines = await this.exactLines(principal.orgId, range);
    const sum = lines.reduce((total, line) => total.add(line), new Accumulator()).amounts();
    const totalMicros = Math.round(exactMicros(sum.cost));
    const total = { ...sum, cost: fromMicros(totalMicros) };
    return {
      month: range.month,
      from: range.from.toISOString(),
      to: range.to.toISOString(),
      currency: 'USD',
      total_cost: total.cost,
      ...total,
      by_provider: groupBy(lines, totalMicros, (line) => ({ provider: line.provider })),
      by_model: groupBy(lines, totalMicros, (line) => ({ provider: line.provider, model: line.model })),
      by_key: groupBy(lines, totalMicros, (line) => ({ key_id: line.key_id, key_name: line.key_name })),
      by_agent: groupBy(lines, totalMicros, (line) => ({ agent: line.agent })),
    };
  }

  private async keyNames(orgId: OrgId, ids: (string | null)[]): Promise<Map<string, string>> {
    const unique = [...new Set(ids.filter((id): id is string => typeof id === 'string'))];
    const keys = await Promise.all(unique.map((id) => this.repositories.apiKeys.findById(orgId, id)));
    return new Map(keys.filter((key) => key !== null).map((key) => [key._id, key.name]));
  }
}
