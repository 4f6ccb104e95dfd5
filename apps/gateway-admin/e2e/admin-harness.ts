import { Module } from '@nestjs/common';
import { GatewayAdminModule } from '@svc/admin';
import { Role, ROLES, TokenService } from '@svc/auth';
import {
  ApiKeyEntity,
  asOrgId,
  EncryptedValue,
  generateApiKey,
  hashApiKey,
  keyDisplayPrefix,
  keyLastFour,
  newId,
  PlanTier,
  Repositories,
  UsageRecordEntity,
} from '@svc/domain';
import { LivenessModule, SERVICE_VERSION } from '@svc/platform';
import { GatewayProxyModule } from '@svc/proxy';
import type { ServiceDefinition } from '@svc/runtime';
import { bootService, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
export type Json = Record<string, any>;

export interface CallOptions {
  key?: string;
  token?: string;
  body?: unknown;
  /** Sent as is with `Content-Type: application/json` (e.g. `''`: the JSON type and an empty body). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  headers: Headers;
  body: Json;
  text: string;
}

export interface Org {
  id: string;
  /** admin:read, admin:write, billing:read. */
  admin: string;
  adminKey: ApiKeyEntity;
}

export interface AdminHarness {
  service: TestService;
  repos: Repositories;
  url: string;
  /** The organization under test, and another one whose ids must answer 404. */
  org: Org;
  other: Org;
  newOrg(plan?: PlanTier): Promise<Org>;
  newKey(orgId: string, scopes: string[], extra?: { name?: string; team_id?: string | null }): Promise<{ plaintext: string; key: ApiKeyEntity }>;
  /** A dashboard access token of the organization's member with this role (organizations made by newOrg have one per role). */
  token(orgId: string, role: Role): string;
  /** The id of that member. */
  member(orgId: string, role: Role): string;
  call(method: string, path: string, options?: CallOptions): Promise<Reply>;
  seedUsage(orgId: string, records: Partial<UsageRecordEntity>[]): Promise<UsageRecordEntity[]>;
  /** Decrypts a stored secret of the organization (fails the test when there is none). */
  decrypt(orgId: string, value: EncryptedValue | null | undefined): string;
  stop(): Promise<void>;
}

/** The proxy and the admin API in one app (as `npm start` composes them), for tests that go through both. */
@Module({ imports: [LivenessModule, GatewayProxyModule, GatewayAdminModule] })
class GatewayWithAdminModule {}

export const GATEWAY_WITH_ADMIN: ServiceDefinition = {
  name: 'gateway-with-admin',
  version: SERVICE_VERSION,
  surfaces: [{ label: 'gateway-admin', module: GatewayWithAdminModule, port: 'GATEWAY_PORT', surface: 'gateway', rawBodyPrefix: '/v1/', parsedBodyPrefixes: ['/v1/admin/'] }],
};

let sequence = 0;

/** A usage record with defaults; `created_at` defaults to a minute ago. */
export function usageRecord(orgId: string, fields: Partial<UsageRecordEntity> = {}): UsageRecordEntity {
  sequence += 1;
  return {
    _id: `gw_${newId('usage').slice(3)}${sequence}`,
    org_id: orgId,
    key_id: null,
    team_id: null,
    provider: 'openai',
    model: 'gpt-4o-mini',
    endpoint: 'chat',
    stream: false,
    status_code: 200,
    blocked_by: null,
    input_tokens: 100,
    output_tokens: 50,
    estimated_cost: 0.001,
    cost: 0.0005,
    latency_ms: 120,
    // A provider call unless governance refused it (pass `upstream_latency_ms: null` for a request no provider answered).
    upstream_latency_ms: fields.blocked_by ? null : 100,
    governance_ms: 1.5,
    agent: 'agent-a',
    runner_id: null,
    session_id: null,
    created_at: new Date(Date.now() - 60_000),
    replay: {
      estimated_input_tokens: 100,
      max_output_tokens: 256,
      body_bytes: 400,
      pii_findings: {},
      safety_findings: {},
      security_findings: {},
      skills: [],
      reasoning_tokens: null,
    },
    ...fields,
  };
}

/** Boots the gateway-admin app (or another definition) on Redis with two organizations and an admin key each. */
export async function startAdmin(options: { env?: Record<string, string>; definition?: ServiceDefinition } = {}): Promise<AdminHarness> {
  const service = await bootService(options.definition ?? SERVICE, { REDIS_URL: process.env.TEST_REDIS_URL as string, ...options.env });
  const repos = service.runtime.repositories;
  const url = service.urls['gateway-admin'];
  const tokens = new TokenService({ secret: service.runtime.secrets.jwtSecret, issuer: 'svc-org-api', audience: 'svc-gateway' });

  const newKey: AdminHarness['newKey'] = async (orgId, scopes, extra = {}) => {
    const plaintext = generateApiKey();
    const key = await repos.apiKeys.create(asOrgId(orgId), {
      name: extra.name ?? `key-${Math.random().toString(36).slice(2)}`,
      key_hash: hashApiKey(plaintext),
      key_prefix: keyDisplayPrefix(plaintext),
      last_four: keyLastFour(plaintext),
      scopes,
      team_id: extra.team_id ?? null,
    });
    return { plaintext, key };
  };
  // orgId → role → the id of the organization's member with that role (dashboard tokens are issued to them).
  const members = new Map<string, Map<Role, string>>();
  const newOrg = async (plan: PlanTier = 'growth'): Promise<Org> => {
    const org = await repos.organizations.create({ name: `org-${Math.random().toString(36).slice(2)}`, plan });
    const admin = await newKey(org._id, ['admin:read', 'admin:write', 'billing:read', 'gateway:write', 'gateway:read'], { name: 'admin' });
    const byRole = new Map<Role, string>();
    for (const role of ROLES) {
      const user = await repos.users.create(asOrgId(org._id), { email: `${role.toLowerCase()}-${org._id}@example.com`, role, password_hash: 'unused', name: null });
      byRole.set(role, user._id);
    }
    members.set(org._id, byRole);
    return { id: org._id, admin: admin.plaintext, adminKey: admin.key };
  };
  const member = (orgId: string, role: Role): string => {
    const id = members.get(orgId)?.get(role);
    if (!id) throw new Error(`no ${role} member in ${orgId}: members exist in organizations made by newOrg`);
    return id;
  };
  const org = await newOrg();
  const other = await newOrg();

  const call = async (method: string, path: string, opts: CallOptions = {}): Promise<Reply> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers['authorization'] = `Bearer ${opts.token}`;
    else headers['x-svc-api-key'] = opts.key ?? org.admin;
    if (opts.body !== undefined || opts.rawBody !== undefined) headers['content-type'] ??= 'application/json';
    const payload = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
    const res = await fetch(`${url}${path}`, { method, headers, body: payload });
    const text = await res.text();
    let body: Json = {};
    try {
      body = text ? (JSON.parse(text) as Json) : {};
    } catch {
      body = {};
    }
    return { status: res.status, headers: res.headers, body, text };
  };

  return {
    service,
    repos,
    url,
    org,
    other,
    newOrg,
    newKey,
    token: (orgId, role) => tokens.issueAccess({ id: member(orgId, role), org_id: orgId, role, email: `${role.toLowerCase()}-${orgId}@example.com` }).token,
    member,
    call,
    seedUsage: async (orgId, records) => {
      const full = records.map((fields) => usageRecord(orgId, fields));
      await repos.usage.recordBatch(full);
      return full;
    },
    decrypt: (orgId, value) => {
      if (!value) throw new Error('no encrypted value stored');
      return service.runtime.cipher.decrypt(orgId, value);
    },
    stop: () => service.stop(),
  };
}

/** Asserts the status, the gateway error format (and code) and returns the error object. */
export function gatewayError(reply: Reply, status: number, code?: string): Json {
  const error = (reply.body['error'] ?? {}) as Json;
  expect({ status: reply.status, code: code === undefined ? undefined : error['code'], text: reply.status === status ? '' : reply.text }).toEqual({ status, code, text: '' });
  expect(typeof error['message']).toBe('string');
  return error;
}
