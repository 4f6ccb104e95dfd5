import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { OrgId, Repositories } from '@svc/domain';
import { REPOSITORIES } from '@svc/runtime';
import { BillingAmounts, BillingLine, BillingSummary } from './dto/billing.dto';

interface GroupRow {
  _id: { provider: string; model: string; key_id: string | null; agent: string | null };
  requests: number;
  blocked: number;
  input_tokens: number;
  output_tokens: number;
  cost: number;
}

/** A UTC calendar month: `YYYY-MM` and its [from, to) range. */
export function monthRange(month: string | undefined, now = new Date()): { month: string; from: Date; to: Date } {
  const [year, index] = month ? [Number(month.slice(0, 4)), Number(month.slice(5, 7)) - 1] : [now.getUTCFullYear(), now.getUTCMonth()];
  const from = new Date(Date.UTC(year, index, 1));
  return { month: from.toISOString().slice(0, 7), from, to: new Date(Date.UTC(year, index + 1, 1)) };
}

const toMicros = (usd: number) => Math.round(usd * 1_000_000);
const fromMicros = (micros: number) => micros / 1_000_000;

/** Sums amounts in integer micro-dollars, so every grouping adds up to the total exactly. */
class Accumulator {
  micros = 0;
  requests = 0;
  blocked = 0;
  input_tokens = 0;
  output_tokens = 0;

  add(line: BillingAmounts): this {
    this.micros += toMicros(line.cost);
    this.requests += line.requests;
    this.blocked += line.blocked;
    this.input_tokens += line.input_tokens;
    this.output_tokens += line.output_tokens;
    return this;
  }

  amounts(): BillingAmounts {
    return { cost: fromMicros(this.micros), requests: this.requests, blocked: this.blocked, input_tokens: this.input_tokens, output_tokens: this.output_tokens };
  }
}

function groupBy<K extends Record<string, string | null>>(lines: BillingLine[], keyOf: (line: BillingLine) => K): (BillingAmounts & K)[] {
  const groups = new Map<string, { key: K; sum: Accumulator }>();
  for (const line of lines) {
    const key = keyOf(line);
    const id = JSON.stringify(key);
    let group = groups.get(id);
    if (!group) groups.set(id, (group = { key, sum: new Accumulator() }));
    group.sum.add(line);
  }
  return [...groups.entries()]
    .sort(([idA, a], [idB, b]) => b.sum.micros - a.sum.micros || b.sum.requests - a.sum.requests || idA.localeCompare(idB))
    .map(([, { key, sum }]) => ({ ...key, ...sum.amounts() }));
}

/** The monthly bill of an organization, from its usage records (costs as the proxy recorded them). */
@Injectable()
export class BillingService {
  constructor(@Inject(REPOSITORIES) private readonly repositories: Repositories) {}

  /** One line per provider, model, key and agent, costliest first. */
  async lines(orgId: OrgId, range: { month: string; from: Date; to: Date }): Promise<BillingLine[]> {
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
        cost: fromMicros(toMicros(row.cost)),
      }),
    );
    return lines.sort((a, b) => b.cost - a.cost || b.requests - a.requests || `${a.provider}/${a.model}`.localeCompare(`${b.provider}/${b.model}`));
  }

  async summary(principal: Principal, month: string | undefined): Promise<BillingSummary> {
    const range = monthRange(month);
    const lines = await this.lines(principal.orgId, range);
    const total = lines.reduce((sum, line) => sum.add(line), new Accumulator()).amounts();
    return {
      month: range.month,
      from: range.from.toISOString(),
      to: range.to.toISOString(),
      currency: 'USD',
      total_cost: total.cost,
      ...total,
      by_provider: groupBy(lines, (line) => ({ provider: line.provider })),
      by_model: groupBy(lines, (line) => ({ provider: line.provider, model: line.model })),
      by_key: groupBy(lines, (line) => ({ key_id: line.key_id, key_name: line.key_name })),
      by_agent: groupBy(lines, (line) => ({ agent: line.agent })),
    };
  }

  private async keyNames(orgId: OrgId, ids: (string | null)[]): Promise<Map<string, string>> {
    const unique = [...new Set(ids.filter((id): id is string => typeof id === 'string'))];
    const keys = await Promise.all(unique.map((id) => this.repositories.apiKeys.findById(orgId, id)));
    return new Map(keys.filter((key) => key !== null).map((key) => [key._id, key.name]));
  }
}
