import { MockProvider, startMockProvider } from '@svc/mock-provider';
import { bootService, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
export type Json = Record<string, any>;

export const PROVIDER_KEY = 'sk-mock-provider-key';

export interface Reply {
  status: number;
  body: Json;
  headers: Headers;
}

export interface CallOptions {
  body?: unknown;
  /** A gateway key, sent in `X-SVC-API-Key` (then no bearer token unless `bearer` is given). */
  key?: string;
  /** A bearer token instead of the Owner's access token. */
  bearer?: string;
}

/**
 * The one-process service (`npm start`) on Redis with a mock provider (format A) and a bootstrap
 * Owner signed in: both surfaces, called over real HTTP with the Owner's access token by default.
 */
export class Standalone {
  private constructor(
    readonly service: TestService,
    readonly mock: MockProvider,
    readonly token: string,
    readonly orgId: string,
  ) {}

  /** `env`: more configuration (CIRCUIT_BREAKER_* ...), over the defaults below. */
  static async boot(owner: { email: string; password: string }, plan: string, env: Record<string, string> = {}): Promise<Standalone> {
    const mock = await startMockProvider({ port: 0, record: false });
    const service = await bootService(SERVICE, {
      REDIS_URL: process.env.TEST_REDIS_URL as string,
      OPENAI_BASE_URL: `${mock.url}/v1`,
      BOOTSTRAP_ADMIN_EMAIL: owner.email,
      BOOTSTRAP_ADMIN_PASSWORD: owner.password,
      BOOTSTRAP_ORG_PLAN: plan,
      ...env,
    });
    const login = await request(service, 'org-api', 'POST', '/api/v1/auth/login', { body: owner }, undefined);
    const token: string = login.body.access_token;
    const orgId: string = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).org_id;
    return new Standalone(service, mock, token, orgId);
  }

  call(surface: 'gateway' | 'org-api', method: string, path: string, options: CallOptions = {}): Promise<Reply> {
    return request(this.service, surface, method, path, options, this.token);
  }

  async stop(): Promise<void> {
    await this.service.stop();
    await this.mock.close();
  }
}

async function request(service: TestService, surface: string, method: string, path: string, options: CallOptions, token: string | undefined): Promise<Reply> {
  const headers: Record<string, string> = { 'X-Provider-Key': PROVIDER_KEY };
  if (options.key) headers['X-SVC-API-Key'] = options.key;
  const bearer = options.bearer ?? (options.key ? undefined : token);
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${service.urls[surface]}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json, headers: res.headers };
}
