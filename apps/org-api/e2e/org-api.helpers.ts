import { asOrgId, hashPassword, OrgRole, Repositories, UsageRecordEntity } from '@svc/domain';
import { bootService, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
export type Json = Record<string, any>;

export const OWNER_EMAIL = 'owner@example.com';
export const OWNER_PASSWORD = 'correct-horse-battery-staple';

export interface Reply {
  status: number;
  body: Json;
  headers: Headers;
}

export interface Session {
  token: string;
  refresh: string;
  orgId: string;
  userId: string;
}

/** The org API booted on free ports with its bootstrap Owner, plus helpers that speak real HTTP. */
export class OrgApi {
  private constructor(
    readonly service: TestService,
    readonly base: string,
  ) {}

  static async boot(env: Record<string, string> = {}): Promise<OrgApi> {
    const service = await bootService(SERVICE, {
      BOOTSTRAP_ADMIN_EMAIL: OWNER_EMAIL,
      BOOTSTRAP_ADMIN_PASSWORD: OWNER_PASSWORD,
      BOOTSTRAP_ORG_PLAN: 'growth',
      ...env,
    });
    return new OrgApi(service, service.urls['org-api']);
  }

  get repos(): Repositories {
    return this.service.runtime.repositories;
  }

  stop(): Promise<void> {
    return this.service.stop();
  }

  async call(method: string, path: string, options: { token?: string; key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.key) headers['x-api-key'] = options.key;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {}, headers: res.headers };
  }

  async login(email: string, password: string): Promise<Session> {
    const res = await this.call('POST', '/api/v1/auth/login', { body: { email, password } });
    if (res.status !== 200) throw new Error(`login ${email}: ${res.status} ${JSON.stringify(res.body)}`);
    const claims = JSON.parse(Buffer.from(String(res.body.access_token).split('.')[1], 'base64url').toString()) as Json;
    return { token: res.body.access_token, refresh: res.body.refresh_token, orgId: claims.org_id, userId: claims.sub };
  }

  loginOwner(): Promise<Session> {
    return this.login(OWNER_EMAIL, OWNER_PASSWORD);
  }

  /** A user of `role` in the organization, created in the store, then logged in. */
  async userWithRole(orgId: string, role: OrgRole, email = `${role.toLowerCase()}-${Math.random().toString(36).slice(2)}@example.com`): Promise<Session> {
    const password = 'member-password-123';
    await this.repos.users.create(asOrgId(orgId), { email, role, password_hash: await hashPassword(password) });
    return this.login(email, password);
  }

  /** A second organization with its own Owner. */
  async otherOrganization(name = 'Other Org'): Promise<Session> {
    const org = await this.repos.organizations.create({ name, plan: 'starter' });
    return this.userWithRole(org._id, 'Owner');
  }

  /** Creates an API key through the API and returns its plaintext and id. */
  async createKey(session: Session, scopes: string[], name = `key-${Math.random().toString(36).slice(2)}`): Promise<{ id: string; key: string }> {
    const res = await this.call('POST', '/api/v1/platform/api-keys', { token: session.token, body: { name, scopes } });
    if (res.status !== 201) throw new Error(`create key: ${res.status} ${JSON.stringify(res.body)}`);
    return { id: res.body.id, key: res.body.key };
  }
}

/** A usage record as the gateway writes it (DECISIONS.md "Usage record"). */
export function usageRecord(orgId: string, fields: Partial<UsageRecordEntity> & { created_at: Date }): UsageRecordEntity {
  return {
    _id: `gw_${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`,
    org_id: orgId,
    key_id: null,
    team_id: null,
    provider: 'openai',
    model: 'gpt-4o-mini',
    endpoint: '/v1/chat/completions',
    stream: false,
    status_code: 200,
    blocked_by: null,
    input_tokens: 100,
    output_tokens: 50,
    estimated_cost: fields.cost ?? 0,
    cost: 0,
    latency_ms: 100,
    // A provider call unless governance refused it (pass `upstream_latency_ms: null` for a request no provider answered).
    upstream_latency_ms: fields.blocked_by ? null : Math.round((fields.latency_ms ?? 100) * 0.8),
    governance_ms: 1,
    agent: null,
    runner_id: null,
    session_id: null,
    replay: {
      estimated_input_tokens: 100,
      max_output_tokens: 4096,
      body_bytes: 200,
      pii_findings: {},
      safety_findings: {},
      security_findings: {},
      skills: [],
      reasoning_tokens: null,
    },
    ...fields,
  };
}
