// The governance chain runtime: one line in libs/governance/src/index.ts (`export * from './chain';`) exports it.
export * from './contract';
export * from './context';
export * from './governance.module';
export * from './governance.service';
export * from './profile-cache';
export * from './plan-quotas-config';
export { ApprovalsService, MAX_REJECTION_REASON } from '../approvals/approvals.service';
export type { ApprovalsOptions, NewApprovalRequest } from '../approvals/approvals.service';
export * from '../approvals/approval.views';
export { canonicalJson, requestHash } from '../approvals/request-hash';
export { requestTooLarge } from '../stages/0.5-body-size';
export { skillsOf } from '../stages/5.5-skill-allowlist';
export { reasoningTokens, REASONING_EFFORT_TOKENS } from '../stages/1.7-reasoning-cap';
export { MemoryCounterStore } from '../counters/memory-counter-store';
export { RedisCounterStore } from '../counters/redis-counter-store';
export { FailoverCounterStore } from '../counters/failover-counter-store';
export type { CounterStore } from '../counters/types';
