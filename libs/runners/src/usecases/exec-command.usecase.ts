import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import type { CommandStatus, OrgId, RunnerCommandEntity, RunnerEntity, RunnerSessionEntity } from '@svc/domain';
import { invalidRequest } from '@svc/platform';
import { DEFAULT_COMMAND_TIMEOUT_SECONDS } from '../dto/requests';
import { RunnerProviderRegistry } from '../providers/provider-registry';
import { ProtectedPaths } from '../providers/protected-paths';
import { ExecResult, RunnerProvider, SessionGoneError, SessionRef } from '../providers/runner-provider';
import { checkToolPolicy, PolicyDecision } from '../providers/tool-profiles';
import { invalidState, policyDenied, providerError } from '../runner-errors';
import { RunnerFailures, runnerRef } from '../runner-failures';
import { RunnerRecords } from '../runner-records';
import { RUNNER_SETTINGS, RunnerSettings } from '../runner-settings';

/** Longest argv text kept in an audit event. */
const AUDIT_ARGV_CHARS = 1_000;

function auditArgv(argv: readonly string[]): string {
  const text = JSON.stringify(argv);
  return text.length <= AUDIT_ARGV_CHARS ? text : `${text.slice(0, AUDIT_ARGV_CHARS - 1)}…`;
}

/**
 * exec: the runner `running` with this `active` session (409 otherwise). The tool profile decides
 * first, then the protected paths (DATA_DIR, for every profile): a refused command is a
 * `policy_denied` event and 403 `policy_denied`. Then the provider runs it, output goes to the
 * stream as it comes, and the result is recorded (`command_executed` for exit code 0,
 * `command_failed` for another code, a timeout or a command that could not start). A session whose
 * sandbox is gone (a stop or expiry won the race) is `command_failed` and 409 `invalid_state`; a
 * failure of the sandbox itself fails the runner (502 `provider_error`).
 */
@Injectable()
export class ExecCommandUseCase {
  constructor(
    private readonly records: RunnerRecords,
    private readonly providers: RunnerProviderRegistry,
    private readonly failures: RunnerFailures,
    private readonly protectedPaths: ProtectedPaths,
    @Inject(RUNNER_SETTINGS) private readonly settings: RunnerSettings,
  ) {}

  async execute(orgId: OrgId, actor: string, runnerId: string, sessionId: string, argv: string[], timeoutSeconds?: number): Promise<RunnerCommandEntity> {
    const runner = await this.records.loadRunner(orgId, runnerId);
    const session = await this.records.loadSession(orgId, runnerId, sessionId);
    this.records.assertRunner(runner, 'exec');
    this.records.assertSession(session, 'exec');
    if (runner.active_session_id !== session._id) throw invalidState(`Session ${session._id} is not the active session of runner ${runner._id}`);
    if (session.expires_at && session.expires_at.getTime() <= this.records.now().getTime()) {
      throw invalidState(`Session ${session._id} has reached its TTL and is expiring`);
    }
    if (!argv[0]) throw invalidRequest('argv[0] must name the command to run', 'argv');
    const provider = this.providers.get(runner.provider_type);

    const ref: SessionRef = { ...runnerRef(runner), sessionId: session._id };
    const decision = await this.decide(provider, ref, argv);
    if (!decision.allowed) {
      await this.records.audit(orgId, {
        runner,
        session,
        type: 'policy_denied',
        actor,
        detail: { argv: auditArgv(argv), tool_profile: runner.tool_profile, rule: decision.rule, reason: decision.reason },
      });
      throw policyDenied(runner.tool_profile, decision.reason);
    }

    const timeout = timeoutSeconds ?? DEFAULT_COMMAND_TIMEOUT_SECONDS;
    const { repos } = this.records;
    const command = await repos.runnerCommands.create(orgId, { runner_id: runner._id, session_id: session._id, argv, timeout_seconds: timeout }, this.records.now());
    let result: ExecResult;
    try {
      result = await provider.exec({
        ...ref,
        commandId: command._id,
        argv,
        timeoutSeconds: timeout,
        onOutput: (stream, text) => this.records.output(runner._id, session._id, command._id, stream, text),
      });
    } catch (error) {
      const message = (error as Error).message;
      await this.recordNotRun(orgId, runner, session, actor, command._id, argv, message);
      if (error instanceof SessionGoneError) throw invalidState(message);
      await this.failures.fail(orgId, runner._id, session._id, error);
      throw providerError(provider.type, runner._id, message);
    }
    const status: Exclude<CommandStatus, 'running'> = result.timedOut ? 'timed_out' : result.exitCode === 0 ? 'completed' : 'failed';
    const done = await repos.runnerCommands.complete(
      orgId,
      command._id,
      { status, exit_code: result.exitCode, stdout: result.stdout, stderr: result.stderr },
      this.records.now(),
    );
    const recorded = done ?? { ...command, status, exit_code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
    await this.records.audit(orgId, {
      runner,
      session,
      type: status === 'completed' ? 'command_executed' : 'command_failed',
      actor,
      detail: {
        command_id: command._id,
        argv: auditArgv(argv),
        exit_code: result.exitCode,
        status,
        timed_out: result.timedOut,
        truncated: result.truncated,
        duration_ms: recorded.duration_ms,
      },
    });
    return recorded;
  }

  /** The tool profile's decision, then the protected paths' (relative arguments resolved in the session's directory). */
  private async decide(provider: RunnerProvider, ref: SessionRef, argv: string[]): Promise<PolicyDecision> {
    const decision = checkToolPolicy(ref.toolProfile, argv);
    if (!decision.allowed) return decision;
    // A provider with a directory on this host names it; the fake provider runs nothing, so only absolute paths matter.
    const cwd = provider.workingDirectory ? ((await provider.workingDirectory(ref)) ?? join(this.settings.workDir, `svc-runner-${ref.sessionId}`)) : null;
    const reaching = await this.protectedPaths.find(argv, cwd);
    if (reaching === null) return decision;
    return {
      allowed: false,
      rule: 'protected_path',
      reason: `the argument ${reaching} reaches the service's data directory (DATA_DIR) or process, which no runner command may touch`,
    };
  }

  /** A command the provider could not run: recorded as failed, with a `command_failed` event. */
  private async recordNotRun(
    orgId: OrgId,
    runner: RunnerEntity,
    session: RunnerSessionEntity,
    actor: string,
    commandId: string,
    argv: string[],
    message: string,
  ): Promise<void> {
    await this.records.repos.runnerCommands.complete(orgId, commandId, { status: 'failed', exit_code: null, stdout: null, stderr: message }, this.records.now());
    await this.records.audit(orgId, { runner, session, type: 'command_failed', actor, detail: { command_id: commandId, argv: auditArgv(argv), error: message } });
  }
}
