import { asOrgId, hashApiKey, ID_PREFIXES, randomAlphanumeric, Repositories } from '@svc/domain';
import { RUNNER_TOKEN_PREFIX } from './credentials';
import type { Principal } from './principal';

/** Scopes of a runner token: it calls the gateway proxy, nothing else (no admin, no runner management). */
export const RUNNER_TOKEN_SCOPES: readonly string[] = ['gateway:write', 'gateway:read'];

/** A principal authenticated by a runner token carries the runner and session it was issued for. */
export interface RunnerPrincipal extends Principal {
  kind: 'runner';
  runner: { runnerId: string; sessionId: string };
}

/** A fresh runner token: `svc_rt_` and 40 random alphanumerics. Store only `hashRunnerToken(token)`. */
export function generateRunnerToken(): string {
  return `${RUNNER_TOKEN_PREFIX}${randomAlphanumeric(40)}`;
}

/** SHA-256 hex of a runner token, the same digest the authenticator computes for every gateway key. */
export function hashRunnerToken(token: string): string {
  return hashApiKey(token);
}

/** The runner and session of a principal authenticated by a runner token; null for any other principal. */
export function runnerSessionOf(principal: Principal): RunnerPrincipal['runner'] | null {
  if (principal.kind !== 'runner') return null;
  const runner = (principal as Partial<RunnerPrincipal>).runner;
  return runner ?? null;
}

export type RunnerTokenResolver = (tokenHash: string, now: Date) => Promise<RunnerPrincipal | null>;

/**
 * The `resolveRunnerToken` of GatewayKeyAuthenticator: a runner token authenticates while its
 * session is `active`, not past `expires_at`, and its runner is `running`. The principal belongs to
 * the session's organization, may call the proxy (`gateway:write`, `gateway:read`) and names the
 * key that created the runner, if a key did. Nothing is cached: a stopped or expired session stops
 * authenticating on the next request.
 */
export function createRunnerTokenResolver(repositories: Pick<Repositories, 'runnerSessions' | 'runners' | 'organizations'>): RunnerTokenResolver {
  return async (tokenHash, now) => {
    const session = await repositories.runnerSessions.findByTokenHash(tokenHash);
    if (!session || session.state !== 'active') return null;
    if (session.expires_at && session.expires_at.getTime() <= now.getTime()) return null;
    const orgId = asOrgId(session.org_id);
    const [runner, organization] = await Promise.all([
      repositories.runners.findById(orgId, session.runner_id),
      repositories.organizations.findById(orgId),
    ]);
    if (!runner || runner.state !== 'running' || runner.active_session_id !== session._id || !organization) return null;
    const createdBy = runner.created_by ?? '';
    return {
      kind: 'runner',
      orgId,
      organization,
      scopes: [...RUNNER_TOKEN_SCOPES],
      keyId: createdBy.startsWith(ID_PREFIXES.apiKey) ? createdBy : null,
      keyName: null,
      teamId: null,
      userId: createdBy.startsWith(ID_PREFIXES.user) ? createdBy : null,
      role: null,
      deprecation: null,
      runner: { runnerId: runner._id, sessionId: session._id },
    };
  };
}
