import { GatewayError } from '@svc/platform';
import { formatUsd, roundUsd } from '@svc/domain';
import { CostEstimate, estimateCost, estimatePassthroughCost } from '../cost/estimate';
import { ALLOW, ChainContext, StageResult } from '../chain/context';

/**
 * Stage 2, cost estimate. In process: input tokens with the model family's tokenizer, output from
 * `max_tokens`/`max_completion_tokens` or 4096 for each answer asked for (`n`, `best_of`), the price table (input at the cache-write price
 * when the body carries a `cache_control` marker, the long-context prices above the model's
 * threshold: `estimateCost`), and the per-request cap
 * (`cost_limit`). A D catch-all call without a prompt (an array, a rerank, a batch job) is estimated
 * from every string of its body, the texts the PII stage scans (`ctx.texts()`, extracted once), plus
 * the max output it names, else none (`estimatePassthroughCost`). The daily and monthly budgets and the daily named budgets with
 * `auto_stop` are checked in the counter script, which reserves the estimate atomically (`budgetRefusal`).
 */
export function estimateStage(ctx: ChainContext): StageResult {
  const { body, endpoint } = ctx.input;
  const estimate =
    endpoint === 'passthrough' ? estimatePassthroughCost(ctx.pricedModel, body, () => ctx.texts(), ctx.flags.prices) : estimateCost(ctx.pricedModel, body, ctx.flags.prices);
  ctx.estimate = estimate;
  const cap = ctx.policy.max_cost_per_request;
  if (estimate.estimated_cost <= cap) return ALLOW;
  return {
    outcome: 'BLOCK',
    error: new GatewayError(403, {
      message: `Estimated cost ${formatUsd(estimate.estimated_cost)} (${estimate.input_tokens} input${writeNote(estimate.cache_write)}${bodyNote(estimate)} + ${estimate.output_tokens} max output tokens${answersNote(estimate)}${longContextNote(estimate.long_context)}) exceeds the per-request limit of ${formatUsd(cap)}.`,
      type: 'permission_error',
      code: 'cost_limit',
      gateway_error_code: 'GW_COST_001',
      remediation: 'Lower max_tokens (or n) or shorten the prompt, use a cheaper model, or ask an admin to raise max_cost_per_request.',
    }),
  };
}

function writeNote(cacheWrite: CostEstimate['cache_write']): string {
  if (cacheWrite === undefined) return '';
  return ` tokens priced as ${cacheWrite === '1h' ? '1-hour' : '5-minute'} cache writes`;
}

function bodyNote(estimate: CostEstimate): string {
  return estimate.body_strings ? ' tokens in the strings of the body' : '';
}

function answersNote(estimate: CostEstimate): string {
  return estimate.answers === undefined ? '' : `: ${estimate.answers} answers of up to ${estimate.output_tokens / estimate.answers} each`;
}

function longContextNote(threshold: CostEstimate['long_context']): string {
  return threshold === undefined ? '' : `, all at the model's long-context prices for prompts above ${threshold} tokens`;
}

export type BudgetRefusalKind = 'daily_budget' | 'auto_stop' | 'monthly_budget';

export interface BudgetState {
  daySpent: number;
  dayReserved: number;
  monthSpent: number;
  monthReserved: number;
}

/** The 403 of a budget the reservation would overshoot, with its `budget.exceeded` event. */
export function budgetRefusal(ctx: ChainContext, kind: BudgetRefusalKind, state: BudgetState): StageResult {
  const estimate = ctx.estimate?.estimated_cost ?? 0;
  const policy = ctx.policy;
  const inFlight = (reserved: number) => (reserved > 0 ? ` and ${formatUsd(reserved)} in flight` : '');
  let message: string;
  let dailyBudget = policy.daily_budget;
  let remediation = 'Wait for the budget period to reset, lower the request cost, or ask an admin to raise the budget.';
  if (kind === 'daily_budget') {
    message = `Daily budget of ${formatUsd(policy.daily_budget)} would be exceeded: ${formatUsd(state.daySpent)} spent${inFlight(state.dayReserved)} today, this request is estimated at ${formatUsd(estimate)}.`;
    remediation = 'The daily budget resets at 00:00 UTC; lower max_tokens or use a cheaper model, or ask an admin to raise daily_budget.';
  } else if (kind === 'auto_stop') {
    const budget = [...ctx.profile.autoStopBudgets].sort((a, b) => a.limit - b.limit)[0];
    dailyBudget = budget?.limit ?? policy.daily_budget;
    message = `Daily budget "${budget?.name ?? 'auto-stop'}" of ${formatUsd(dailyBudget)} is reached (auto_stop): ${formatUsd(state.daySpent)} spent${inFlight(state.dayReserved)} today.`;
    remediation = 'Requests resume at 00:00 UTC; an admin can raise the named budget or turn off its auto_stop.';
  } else {
    message = `Monthly budget of ${formatUsd(policy.monthly_budget)} would be exceeded: ${formatUsd(state.monthSpent)} spent${inFlight(state.monthReserved)} this month, this request is estimated at ${formatUsd(estimate)}.`;
    remediation = 'The monthly budget resets on the 1st (UTC); lower the request cost, or ask an admin to raise monthly_budget.';
  }
  const code = kind === 'monthly_budget' ? 'monthly_budget' : 'daily_budget';
  return {
    outcome: 'BLOCK',
    error: new GatewayError(403, {
      message,
      type: 'permission_error',
      code,
      gateway_error_code: code === 'daily_budget' ? 'GW_COST_002' : 'GW_COST_003',
      remediation,
    }),
    events: [
      {
        type: 'budget.exceeded',
        data: {
          blocked_by: code,
          daily_spent: roundUsd(state.daySpent),
          daily_budget: dailyBudget,
          model: ctx.input.model,
          estimated_cost: roundUsd(estimate),
          timestamp: ctx.timestamp,
        },
      },
    ],
  };
}
