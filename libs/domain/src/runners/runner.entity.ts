import { defineCollection } from '../store/types';

export const RUNNER_STATES = ['provisioning', 'ready', 'running', 'stopped', 'failed', 'terminated'] as const;
export type RunnerState = (typeof RUNNER_STATES)[number];
export const TOOL_PROFILES = ['locked', 'web_automation', 'full_vm_tools'] as const;
export type ToolProfile = (typeof TOOL_PROFILES)[number];

/** A managed runner (SPEC.md "Runner"); `version` is bumped by every transition (optimistic concurrency). */
export interface RunnerEntity {
  /** `run_...` */
  _id: string;
  org_id: string;
  name: string | null;
  state: RunnerState;
  provider_type: string;
  tool_profile: ToolProfile;
  ttl_seconds: number;
  runtime_version: string | null;
  image_ref: string | null;
  /** Self-hosted (BYOVM) runners: the machine id, unique per org. */
  machine_id: string | null;
  /** Budget of each session in USD (default 5). */
  session_budget_usd: number;
  active_session_id: string | null;
  version: number;
  error: string | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export const RUNNERS = defineCollection<RunnerEntity>('runners', [
  { fields: { org_id: 1, state: 1, created_at: -1 }, comment: 'runners of an org, optionally by state, newest first' },
  {
    fields: { org_id: 1, machine_id: 1 },
    unique: true,
    name: 'org_machine_unique',
    partialFilterExpression: { machine_id: { $type: 'string' } },
    comment: '409 runner_already_registered: a self-hosted machine registers once per org',
  },
  { fields: { state: 1, updated_at: 1 }, comment: 'reconciler: runners stuck in a state, all orgs' },
]);
