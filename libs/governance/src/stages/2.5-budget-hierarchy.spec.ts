import type { BudgetNodeEntity } from '@svc/domain';
import { contextFor } from '../chain/governance.fixtures';
import { hierarchyRefusal, nodesForRequest } from './2.5-budget-hierarchy';

const node = (id: string, level: BudgetNodeEntity['level'], extra: Partial<BudgetNodeEntity> = {}): BudgetNodeEntity => ({
  _id: id,
  org_id: 'org_test',
  name: id,
  level,
  budget_limit: 10,
  reset_period: 'daily',
  parent_id: null,
  team_id: null,
  key_id: null,
  alert_thresholds: [],
  created_at: new Date(),
  updated_at: new Date(),
  ...extra,
});

describe('stage 2.5, hierarchical budgets', () => {
  const nodes = [node('n_org', 'org'), node('n_team', 'team', { team_id: 'team_a' }), node('n_other', 'team', { team_id: 'team_b' }), node('n_key', 'key', { key_id: 'key_test', team_id: 'team_a' })];

  it('charges the org node, the key team node and the key node, in that order', () => {
    const ctx = contextFor({ profile: { nodes } });
    ctx.input.principal.teamId = 'team_a';
    expect(nodesForRequest(ctx).map((n) => n._id)).toEqual(['n_org', 'n_team', 'n_key']);
    const noTeam = contextFor({ profile: { nodes } });
    expect(nodesForRequest(noTeam).map((n) => n._id)).toEqual(['n_org', 'n_key']);
    expect(nodesForRequest(contextFor())).toEqual([]);
  });

  it('charges a rotated key in its grace period to the key node its replacement now holds', () => {
    const moved = [node('n_org', 'org'), node('n_key', 'key', { key_id: 'key_new' })];
    const ctx = contextFor({ profile: { nodes: moved } });
    expect(nodesForRequest(ctx).map((n) => n._id)).toEqual(['n_org']);
    ctx.input.principal.deprecation = { graceRemainingHours: 12, replacedBy: 'key_new' };
    expect(nodesForRequest(ctx).map((n) => n._id)).toEqual(['n_org', 'n_key']);
  });

  it('refuses with GW_BUDGET_HIERARCHY_001 naming the node, and alerts at 100 %', () => {
    const ctx = contextFor({ profile: { nodes } });
    const result = hierarchyRefusal(ctx, nodes[1], 9.9);
    if (result.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(result.error.status).toBe(403);
    expect(result.error.body).toMatchObject({ type: 'permission_error', code: 'budget_hierarchy_exceeded', gateway_error_code: 'GW_BUDGET_HIERARCHY_001' });
    expect(result.error.body.message).toContain('team budget "n_team"');
    expect(result.events?.[0]).toMatchObject({ type: 'budget_hierarchy_alert', data: { node_id: 'n_team', level: 'team', threshold_pct: 100, spent: 9.9, reset_period: 'daily' } });
  });
});
