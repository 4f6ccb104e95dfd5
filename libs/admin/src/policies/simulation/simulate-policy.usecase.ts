import { ApiProperty } from '@nestjs/swagger';
import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { policyOverrides, Repositories } from '@svc/domain';
import { effectivePolicy, GovernancePolicy, STAGE_ORDER } from '@svc/governance';
import { notFound } from '@svc/platform';
import { REPOSITORIES } from '@svc/runtime';
import { validPolicy } from '../policies.service';
import { tierOf } from '../policy-view';
import { ReplayState, simulate, SimulationResult, STAGE_NAMES, REPLAYED_STAGES } from './replay';

/** Most records one simulation replays (the oldest of a larger window are left out). */
export const MAX_REPLAYED_RECORDS = 50_000;

class ReplayedStage {
  @ApiProperty({ enum: STAGE_ORDER })
  stage!: string;
  @ApiProperty()
  name!: string;
}

export class SimulationResponse extends SimulationResult {
  @ApiProperty({ type: 'integer' })
  replay_hours!: number;
  @ApiProperty({ format: 'date-time' })
  from!: string;
  @ApiProperty({ format: 'date-time' })
  to!: string;
  /**
   * True when the window held more than MAX_REPLAYED_RECORDS records: only the newest were
   * replayed, and the spend before the oldest replayed record seeds the budgets.
   */
  @ApiProperty({ description: 'True when the window held more records than one simulation replays: only the newest were replayed' })
  truncated!: boolean;
  /** The policy replayed: the policy in force with the draft's fields over it. */
  @ApiProperty({ type: () => GovernancePolicy, description: "The policy replayed: the policy in force with the draft's fields over it" })
  draft_policy!: GovernancePolicy;
  @ApiProperty({ type: () => GovernancePolicy })
  current_policy!: GovernancePolicy;
  @ApiProperty({ type: () => [ReplayedStage] })
  replayed_stages!: { stage: string; name: string }[];
}

const startOfDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
const startOfMonth = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));

/**
 * `POST /gateway/admin/policies/simulate`: replays the governance decisions of the last
 * `replay_hours` (the usage records of population `governed`) with the draft policy
 * (docs/admin-api-policies.md "Policy simulation"). Read-only: the live policy and the counters are untouched.
 */
@Injectable()
export class SimulatePolicyUseCase {
  constructor(@Inject(REPOSITORIES) private readonly repositories: Repositories) {}

  async execute(principal: Principal, draft: Record<string, unknown>, replayHours: number, now = new Date(), maxRecords = MAX_REPLAYED_RECORDS): Promise<SimulationResponse> {
    // Like POST /policies: fields first (a non-string `org_id` is a 400), then a draft naming another
    // organization is 404, never a simulation of its traffic.
    const overrides = validPolicy(draft, 'draft_policy.');
    if (draft['org_id'] !== undefined && draft['org_id'] !== principal.orgId) throw notFound('Organization', 'draft_policy.org_id');
    const tier = tierOf(principal);
    const stored = policyOverrides(await this.repositories.policies.get(principal.orgId));
    const current = effectivePolicy(tier, stored);
    const policy = effectivePolicy(tier, { ...stored, ...overrides });
    if (Object.prototype.hasOwnProperty.call(draft, 'max_reasoning_tokens') && draft['max_reasoning_tokens'] === null) policy.max_reasoning_tokens = null;

    const from = new Date(now.getTime() - replayHours * 3_600_000);
    const range = { from, to: now };
    const usage = this.repositories.usage;
    // Governance decisions only: a request refused before the chain ran (route, body, key scope) or
    // answered as an idempotent replay was never decided by a policy, and would not be by the draft.
    const [total, newest] = await Promise.all([
      usage.countRange(principal.orgId, range, 'governed'),
      usage.listBefore(principal.orgId, range, null, maxRecords, 'governed'),
    ]);
    const records = newest.reverse();
    const truncated = total > records.length;
    // The budgets start from what was spent before the first replayed record: before the window, or,
    // when only the newest records are replayed, before the oldest of them (to the millisecond).
    const seedAt = truncated && records.length > 0 ? records[0].created_at : from;
    const [daySeed, monthSeed] = await Promise.all([
      usage.totals(principal.orgId, { from: startOfDay(seedAt), to: seedAt }),
      usage.totals(principal.orgId, { from: startOfMonth(seedAt), to: seedAt }),
    ]);
    const state = new ReplayState({
      day: [seedAt.toISOString().slice(0, 10), daySeed.cost],
      month: [seedAt.toISOString().slice(0, 7), monthSeed.cost],
    });
    return {
      replay_hours: replayHours,
      from: from.toISOString(),
      to: now.toISOString(),
      truncated,
      ...simulate(records, policy, state, 5, current),
      draft_policy: policy,
      current_policy: current,
      replayed_stages: REPLAYED_STAGES.map((stage) => ({ stage, name: STAGE_NAMES[stage] })),
    };
  }
}
