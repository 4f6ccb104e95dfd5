import { randomBytes } from 'node:crypto';
import { asOrgId, createRepositories, NamedBudgetEntity, NewNamedBudget, OrgId, Repositories, silentLogger, storeTargets, UsageRecordEntity } from '@svc/domain';
import { createEventBus, EventBus, RecordingPublisher } from '@svc/events';
import type { Logger } from '@svc/platform';
import { BudgetEvaluator } from '../budgets/budget-evaluator';

/** Test support for the named-budget specs (no jest globals here): an embedded store and in-process queues. */
export interface BudgetWorld {
  repositories: Repositories;
  publisher: RecordingPublisher;
  bus: EventBus;
  logger: Logger;
  /** An evaluator as one replica would have it (all share the store, the publisher and the bus). */
  evaluator(): BudgetEvaluator;
  newOrg(): Promise<OrgId>;
  budget(orgId: OrgId, input: NewNamedBudget): Promise<NamedBudgetEntity>;
  spend(orgId: OrgId, cost: number, at?: Date): Promise<void>;
  close(): Promise<void>;
}

export async function openBudgetWorld(): Promise<BudgetWorld> {
  const opened = await storeTargets(undefined)[0].open();
  const repositories = createRepositories(opened.store);
  const logger = silentLogger();
  const publisher = new RecordingPublisher();
  const bus = createEventBus({}, logger);
  return {
    repositories,
    publisher,
    bus,
    logger,
    evaluator: () => new BudgetEvaluator(repositories, publisher, bus, logger),
    newOrg: async () => asOrgId((await repositories.organizations.create({ name: `org-${randomBytes(3).toString('hex')}`, plan: 'growth' }))._id),
    budget: (orgId, input) => repositories.namedBudgets.create(orgId, input),
    spend: (orgId, cost, at = new Date()) => repositories.usage.recordBatch([usage(orgId, cost, at)]),
    close: async () => {
      await bus.close();
      await opened.cleanup();
    },
  };
}

function usage(orgId: string, cost: number, at: Date): UsageRecordEntity {
  return {
    _id: `gw_${randomBytes(12).toString('hex')}`,
    org_id: orgId,
    key_id: null,
    team_id: null,
    provider: 'openai',
    model: 'gpt-4o-mini',
    endpoint: '/v1/chat/completions',
    stream: false,
    status_code: 200,
    blocked_by: null,
    input_tokens: 10,
    output_tokens: 10,
    estimated_cost: cost,
    cost,
    latency_ms: 100,
    upstream_latency_ms: 90,
    governance_ms: 1,
    agent: null,
    runner_id: null,
    session_id: null,
    created_at: at,
    replay: {
      estimated_input_tokens: 10,
      max_output_tokens: 4096,
      body_bytes: 100,
      pii_findings: {},
      safety_findings: {},
      security_findings: {},
      skills: [],
      reasoning_tokens: null,
    },
  };
}
