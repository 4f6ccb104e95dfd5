import { defineCollection } from '../store/types';

export type CommandStatus = 'running' | 'completed' | 'failed' | 'timed_out';

export interface RunnerCommandEntity {
  /** `cmd_...` */
  _id: string;
  org_id: string;
  runner_id: string;
  session_id: string;
  argv: string[];
  timeout_seconds: number;
  status: CommandStatus;
  exit_code: number | null;
  stdout: string | null;
  stderr: string | null;
  started_at: Date;
  finished_at: Date | null;
  duration_ms: number | null;
}

export const RUNNER_COMMANDS = defineCollection<RunnerCommandEntity>('runner_commands', [
  { fields: { org_id: 1, session_id: 1, started_at: -1 }, comment: 'commands of a session, newest first' },
]);
