import { newId } from '../shared/ids';
import { TenantRepository } from '../shared/tenant-repository';
import type { OrgId } from '../shared/tenancy';
import type { DocumentStore } from '../store/types';
import { CommandStatus, RUNNER_COMMANDS, RunnerCommandEntity } from './runner-command.entity';

export interface NewRunnerCommand {
  runner_id: string;
  session_id: string;
  argv: string[];
  timeout_seconds: number;
}

export interface CommandResult {
  status: Exclude<CommandStatus, 'running'>;
  exit_code: number | null;
  stdout: string | null;
  stderr: string | null;
}

export class RunnerCommandRepository extends TenantRepository<RunnerCommandEntity> {
  constructor(store: DocumentStore) {
    super(store, RUNNER_COMMANDS);
    this.defaultSort = { started_at: -1, _id: -1 };
    this.stampsUpdatedAt = false;
  }

  create(orgId: OrgId, input: NewRunnerCommand, now = new Date()): Promise<RunnerCommandEntity> {
    return this.insertIn(orgId, {
      _id: newId('runnerCommand'),
      runner_id: input.runner_id,
      session_id: input.session_id,
      argv: [...input.argv],
      timeout_seconds: input.timeout_seconds,
      status: 'running',
      exit_code: null,
      stdout: null,
      stderr: null,
      started_at: now,
      finished_at: null,
      duration_ms: null,
    });
  }

  /** Records the result of a running command; null when it is unknown or already finished. */
  async complete(orgId: OrgId, id: string, result: CommandResult, now = new Date()): Promise<RunnerCommandEntity | null> {
    const running = await this.findOneIn(orgId, { _id: id, status: 'running' });
    if (!running) return null;
    return this.findOneAndUpdateIn(
      orgId,
      { _id: id, status: 'running' },
      { $set: { ...result, finished_at: now, duration_ms: Math.max(0, now.getTime() - running.started_at.getTime()) } },
    );
  }

  listBySession(orgId: OrgId, sessionId: string, limit = 50): Promise<RunnerCommandEntity[]> {
    return this.findIn(orgId, { session_id: sessionId }, { sort: { started_at: -1, _id: -1 }, limit });
  }
}
