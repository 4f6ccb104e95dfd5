import { BudgetNodeEntity, formatUsd, roundUsd } from '@svc/domain';
import { GatewayError } from '@svc/platform';
import { ChainContext, StageResult } from '../chain/context';

/**
 * Stage 2.5, hierarchical budgets (DECISIONS.md): a request is charged to the org node, its key's
 * team node and its key node. The counter script reserves the estimate on all of them at once
 * (all or nothing) after stage 2's reservation; any node that would go over its `budget_limit`
 * for its `reset_period` refuses with GW_BUDGET_HIERARCHY_001. A rotated key in its grace period
 * is charged to the key node, which moved to its replacement when it was rotated.
 */
export function nodesForRequest(ctx: ChainContext): BudgetNodeEntity[] {
  const { teamId, keyId, deprecation } = ctx.input.principal;
  const keyIds = [keyId, deprecation?.replacedBy].filter((id): id is string => Boolean(id));
  const pick = (level: BudgetNodeEntity['level'], match: (node: BudgetNodeEntity) => boolean) =>
    ctx.profile.nodes.filter((node) => node.level === level && match(node)).sort((a, b) => a._id.localeCompare(b._id))[0];
  return [
    pick('org', () => true),
    teamId ? pick('team', (node) => node.team_id === teamId) : undefined,
    keyIds.length ? pick('key', (node) => node.key_id !== null && keyIds.includes(node.key_id)) : undefined,
  ].filter((node): node is BudgetNodeEntity => node !== undefined);
}

const PERIOD_WORD = { daily: 'today', weekly: 'this week', monthly: 'this month' } as const;

export function hierarchyRefusal(ctx: ChainContext, node: BudgetNodeEntity, usedUsd: number): StageResult {
  const estimate = ctx.estimate?.estimated_cost ?? 0;
  return {
    outcome: 'BLOCK',
    error: new GatewayError(403, {
      message: `The ${node.level} budget "${node.name}" of ${formatUsd(node.budget_limit)} (${node.reset_period}) would be exceeded: ${formatUsd(usedUsd)} used ${PERIOD_WORD[node.reset_period]}, this request is estimated at ${formatUsd(estimate)}.`,
      type: 'permission_error',
      code: 'budget_hierarchy_exceeded',
      gateway_error_code: 'GW_BUDGET_HIERARCHY_001',
      remediation: `Wait for the ${node.reset_period} reset of the "${node.name}" budget, lower the request cost, or ask an admin to raise the node's budget_limit.`,
    }),
    events: [
      {
        type: 'budget_hierarchy_alert',
        data: {
          node_id: node._id,
          name: node.name,
          level: node.level,
          budget_limit: node.budget_limit,
          spent: roundUsd(usedUsd),
          threshold_pct: 100,
          reset_period: node.reset_period,
          timestamp: ctx.timestamp,
        },
      },
    ],
  };
}
