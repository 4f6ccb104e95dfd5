import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Role, ROLES, TokenService } from '@svc/auth';
import { asOrgId, generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour, OrgId, Repositories } from '@svc/domain';
import { bootService, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
export type Json = Record<string, any>;

export const RUNNERS = '/gateway/admin/runners';

/** The `local` provider is off by default (RUNNER_LOCAL_ENABLED); tests that run real commands turn it on. */
export const LOCAL_ON = { RUNNER_LOCAL_ENABLED: 'true' } as const;

/** Audit events that are not transitions (they carry the version as it is, without a bump). */
const NON_TRANSITIONS = ['command_executed', 'command_failed', 'policy_denied'];

export interface ApiResponse {
  status: number;
  body: Json;
  headers: Headers;
}

/** A caller of the runner API with one credential (a gateway key or a dashboard token). */
export class RunnerApi {
  constructor(
    readonly base: string,
    private readonly headers: Record<string, string>,
  ) {}

  async request(method: string, path: string, body?: unknown, query: Record<string, string> = {}): Promise<ApiResponse> {
    const qs = new URLSearchParams(query).toString();
    const res = await fetch(`${this.base}${RUNNERS}${path}${qs ? `?${qs}` : ''}`, {
      method,
      headers: { ...this.headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {}, headers: res.headers };
  }

  get(path: string, query?: Record<string, string>) {
    return this.request('GET', path, undefined, query);
  }

  post(path: string, body?: unknown, query?: Record<string, string>) {
    return this.request('POST', path, body, query);
  }

  delete(path: string) {
    return this.request('DELETE', path);
  }

  /** Creates a runner and expects it ready. */
  async createRunner(extra: Json = {}): Promise<Json> {
    const res = await this.post('/', { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600, ...extra });
    expect(res.status).toBe(201);
    expect(res.body.state).toBe('ready');
    return res.body;
  }

  /** Starts a session and expects it active. */
  async startSession(runnerId: string, body: Json = {}): Promise<Json> {
    const res = await this.post(`/${runnerId}/start`, body);
    expect(res.status).toBe(200);
    expect(res.body.state).toBe('active');
    return res.body;
  }

  exec(runnerId: string, sessionId: string, argv: string[], timeout_seconds?: number) {
    return this.post(`/${runnerId}/exec`, { argv, ...(timeout_seconds ? { timeout_seconds } : {}) }, { session_id: sessionId });
  }

  /** `[event_type, detail.version]` of the runner's transition events, oldest first. */
  async transitionVersions(runnerId: string): Promise<Array<[string, number]>> {
    const res = await this.get(`/${runnerId}/events`, { limit: '1000' });
    expect(res.status).toBe(200);
    return (res.body.events as Json[])
      .filter((e) => !NON_TRANSITIONS.includes(e.event_type as string))
      .map((e): [string, number] => [e.event_type as string, e.detail.version as number])
      .reverse();
  }

  async eventTypes(runnerId: string): Promise<string[]> {
    const res = await this.get(`/${runnerId}/events`, { limit: '1000' });
    expect(res.status).toBe(200);
    return (res.body.events as Json[]).map((e) => e.event_type as string).reverse();
  }
}

export interface RunnerTestContext {
  service: TestService;
  base: string;
  repos: Repositories;
  orgId: OrgId;
  /** A gateway key with admin:write (every runner permission). */
  admin: RunnerApi;
  key(scopes: string[]): Promise<RunnerApi>;
  /** Signed in as the organization's member of this role. */
  role(role: Role): RunnerApi;
  /** The id of that member. */
  userId(role: Role): string;
  /** The Nest application of the runner control plane (to read in-process state). */
  app(): TestService['apps'][number];
  /** The local provider's session directories live here (RUNNER_WORK_DIR), removed by stop(). */
  workDir: string;
  /** Stops the service and removes its directories. */
  stop(): Promise<void>;
}

/** A gateway key of the organization with these scopes; returns its plaintext. */
export async function seedKey(repos: Repositories, orgId: OrgId, scopes: string[]): Promise<string> {
  const plaintext = generateApiKey();
  await repos.apiKeys.create(orgId, {
    name: `k-${Math.random()}`,
    key_hash: hashApiKey(plaintext),
    key_prefix: keyDisplayPrefix(plaintext),
    last_four: keyLastFour(plaintext),
    scopes,
    ip_allowlist: [],
  });
  return plaintext;
}

/** Boots the runner control plane on free ports with an organization and an admin key. */
export async function bootRunners(env: Record<string, string> = {}): Promise<RunnerTestContext> {
  const workDir = mkdtempSync(join(tmpdir(), 'svc-runner-work-'));
  const service = await bootService(SERVICE, { RUNNER_WORK_DIR: workDir, ...env });
  const repos = service.runtime.repositories;
  const base = service.urls['runner-control-plane'];
  const orgId = asOrgId((await repos.organizations.create({ name: 'Runner Org', plan: 'growth' }))._id);
  const tokens = new TokenService({ secret: service.runtime.secrets.jwtSecret, issuer: service.runtime.config.JWT_ISSUER, audience: service.runtime.config.JWT_AUDIENCE });
  const key = async (scopes: string[]) => new RunnerApi(base, { 'X-SVC-API-Key': await seedKey(repos, orgId, scopes) });
  // One member per role: the guard reads the token's user (and its role) from the store.
  const users = new Map<Role, string>();
  for (const r of ROLES) {
    const user = await repos.users.create(orgId, { email: `${r.toLowerCase()}-${orgId}@example.com`, role: r, password_hash: 'unused', name: null });
    users.set(r, user._id);
  }
  const userId = (r: Role) => users.get(r) as string;
  const role = (r: Role) => {
    const token = tokens.issueAccess({ id: userId(r), org_id: orgId, role: r, email: `${r.toLowerCase()}@example.com` }).token;
    return new RunnerApi(base, { Authorization: `Bearer ${token}` });
  };
  const stop = async () => {
    await service.stop();
    rmSync(workDir, { recursive: true, force: true });
  };
  return { service, base, repos, orgId, admin: await key(['admin:write']), key, role, userId, app: () => service.apps[0], workDir, stop };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` returns a value (or the time is up). */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 5_000, everyMs = 25): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}
