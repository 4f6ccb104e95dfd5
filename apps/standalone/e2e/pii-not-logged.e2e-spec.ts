import { Writable } from 'node:stream';
import { MockProvider, startMockProvider } from '@svc/mock-provider';
import { bootService, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- log lines and answers are read field by field
type Json = Record<string, any>;

/** Every log line the service writes, parsed. */
class LogCapture extends Writable {
  lines: Json[] = [];
  private rest = '';
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    const text = this.rest + chunk.toString();
    const parts = text.split('\n');
    this.rest = parts.pop() ?? '';
    for (const part of parts) if (part.trim()) this.lines.push(JSON.parse(part) as Json);
    done();
  }
}

const OWNER = { email: 'owner@example.com', password: 'Owner-password-1' };
// Personal data of a prompt and of a member (test values: a reserved domain, a test card number, an unissued SSN).
const EMAIL = 'jane.roe@example.org';
const CARD = '4111 1111 1111 1111';
const SSN = '123-45-6789';
const MEMBER_EMAIL = 'new.member@example.net';

/**
 * LOG_BODIES at debug level, through `npm start`'s composition over real HTTP: a logged request
 * body keeps its shape and its words, its credentials are `[REDACTED]`, and what the stage 4 PII
 * scan detects is masked (`[REDACTED:email]`, ...), on the proxy's hot path and on the
 * organization API alike.
 */
describe('LOG_BODIES logs no personal data', () => {
  const logs = new LogCapture();
  let mock: MockProvider;
  let service: TestService;
  let owner: Record<string, string>;
  let gatewayKey: string;

  const call = async (surface: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${service.urls[surface]}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json };
  };
  const bodyLine = (path: string) => logs.lines.find((line) => line.msg === 'request body' && line.url === path);

  beforeAll(async () => {
    mock = await startMockProvider({ port: 0, record: false });
    service = await bootService(
      SERVICE,
      {
        REDIS_URL: process.env.TEST_REDIS_URL as string,
        LOG_LEVEL: 'debug',
        LOG_BODIES: 'true',
        OPENAI_BASE_URL: `${mock.url}/v1`,
        BOOTSTRAP_ADMIN_EMAIL: OWNER.email,
        BOOTSTRAP_ADMIN_PASSWORD: OWNER.password,
        BOOTSTRAP_ORG_PLAN: 'enterprise',
      },
      { logDestination: logs },
    );
    const login = await call('org-api', 'POST', '/api/v1/auth/login', {}, OWNER);
    owner = { authorization: `Bearer ${login.body.access_token as string}` };
    const key = await call('org-api', 'POST', '/api/v1/platform/api-keys', owner, { name: 'app', scopes: ['admin:write', 'admin:read', 'gateway:write', 'gateway:read'] });
    expect(key.status).toBe(201);
    gatewayKey = key.body.key;
    // The prompt goes through (flagged), so it is also forwarded as sent.
    expect((await call('gateway', 'POST', '/gateway/admin/policies', { 'x-svc-api-key': gatewayKey }, { pii_action: 'flag' })).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await service.stop();
    await mock.close();
  });

  it('masks the e-mail address, card number and SSN of a prompt and keeps the rest of it', async () => {
    const prompt = `Please draft a polite reply to ${EMAIL} about the Q3 invoice: card ${CARD} was charged twice, SSN ${SSN} on file.`;
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }], metadata: { auth_token: 'tok-Secret-123456789' } };
    const res = await call('gateway', 'POST', '/v1/chat/completions', { 'x-svc-api-key': gatewayKey, 'x-provider-key': 'sk-mock-provider-key' }, body);
    expect(res.status).toBe(200);
    const line = bodyLine('/v1/chat/completions');
    expect(line).toMatchObject({ level: 20, method: 'POST', body: { model: 'gpt-4o-mini', metadata: { auth_token: '[REDACTED]' } } });
    expect(line?.body.messages).toEqual([
      {
        role: 'user',
        content: 'Please draft a polite reply to [REDACTED:email] about the Q3 invoice: card [REDACTED:credit_card] was charged twice, SSN [REDACTED:ssn] on file.',
      },
    ]);
    const all = JSON.stringify(logs.lines);
    for (const value of [EMAIL, CARD, CARD.replace(/ /g, ''), SSN, 'tok-Secret-123456789']) expect(all).not.toContain(value);
  });

  it('masks the members\' e-mail addresses in the organization API\'s logged bodies, passwords still redacted', async () => {
    const profile = await call('org-api', 'GET', '/api/v1/user/profile', owner);
    const path = `/api/v1/organizations/${profile.body.org_id as string}/members`;
    expect((await call('org-api', 'POST', path, owner, { email: MEMBER_EMAIL, password: 'Member-password-1', role: 'Member' })).status).toBe(201);
    expect(bodyLine(path)).toMatchObject({ body: { email: '[REDACTED:email]', password: '[REDACTED]', role: 'Member' } });
    expect(bodyLine('/api/v1/auth/login')).toMatchObject({ body: { email: '[REDACTED:email]', password: '[REDACTED]' } });
    const all = JSON.stringify(logs.lines.filter((line) => line.msg === 'request body'));
    for (const value of [MEMBER_EMAIL, OWNER.email, 'Member-password-1', OWNER.password]) expect(all).not.toContain(value);
  });
});
