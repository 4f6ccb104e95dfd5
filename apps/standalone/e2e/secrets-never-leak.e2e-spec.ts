import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Redis from 'ioredis';
import { MockProvider, startMockProvider } from '@svc/mock-provider';
import { bootService, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read field by field
type Json = Record<string, any>;

/** Every log line the service writes, as written. */
class LogCapture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** A receiver and provider that fails every request with 500 and echoes it: method, URL (query too), headers, body. */
interface Echo {
  server: Server;
  url: string;
  requests: string[];
}

async function startEcho(): Promise<Echo> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const seen = JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() });
      requests.push(seen);
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`echo: ${seen}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, requests };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));
}

/** Every key and value in Redis (BullMQ jobs, their failure reasons and event streams, counters). */
async function redisText(url: string): Promise<string> {
  const redis = new Redis(url);
  const out: string[] = [];
  try {
    for (const key of await redis.keys('*')) {
      const type = await redis.type(key);
      const value =
        type === 'string' ? await redis.get(key)
        : type === 'hash' ? await redis.hgetall(key)
        : type === 'list' ? await redis.lrange(key, 0, -1)
        : type === 'zset' ? await redis.zrange(key, 0, -1)
        : type === 'set' ? await redis.smembers(key)
        : type === 'stream' ? await redis.xrange(key, '-', '+')
        : null;
      out.push(`${key} ${JSON.stringify(value)}`);
    }
  } finally {
    await redis.quit();
  }
  return out.join('\n');
}

/** 32 random characters: every part of it is the secret (no prefix), so any piece of it found somewhere is a leak. */
const random = () => randomBytes(24).toString('base64url');

/**
 * The random part of a secret: a JWT's or a runner proof's signature (their header, claims and
 * ids are not secret), a key without its `svc_sk_` / `svc_rt_` / `whsec_` prefix.
 */
const secretPart = (value: string) => (value.includes('.') ? (value.split('.').at(-1) as string) : value.replace(/^(svc_sk_|svc_rt_|whsec_)/, ''));

/** Pieces of 8 characters, 2 apart: every run of 9 or more characters of the secret contains one. */
function piecesOf(value: string): string[] {
  const part = secretPart(value);
  const pieces: string[] = [];
  for (let at = 0; at + 8 <= part.length; at += 2) pieces.push(part.slice(at, at + 8));
  return pieces;
}

/**
 * The guide's rule end to end: secrets are encrypted at rest and never reach a log line, an error
 * answer or an answer after the one that creates them. `npm start`'s composition at debug level with
 * LOG_BODIES and access lines on, driven over HTTP through logins, keys, provider secrets and targets,
 * proxy calls with each provider key location, upstreams, webhooks and a team chat that fail with
 * 500 and echo the request, and a runner session. Then every log line, every answer, every file of
 * DATA_DIR and every Redis key and value is searched for each secret, whole and for its inner part.
 */
describe('secrets never leak', () => {
  const secrets: Record<string, string> = {
    masterKey: randomBytes(32).toString('base64'),
    jwtSecret: `${random()}${random()}`,
    bootstrapPassword: random(),
    signupPassword: random(),
    memberPassword: random(),
    wrongPassword: random(),
    providerHeaderKey: random(),
    providerBearerKey: random(),
    anthropicKey: random(),
    storedOpenaiKey: random(),
    storedGeminiKey: random(),
    clientGeminiKey: random(),
    targetKey: random(),
    webhookSecret: random(),
    chatSecret: random(),
    targetHeaderToken: random(),
    bodyAuthToken: random(),
  };
  /** Secrets the service makes, and the one answer each may appear in (shown once). */
  const shownOnce: Record<string, string> = {};
  const logs = new LogCapture();
  const answers: { step: string; text: string }[] = [];
  let mock: MockProvider;
  let echo: Echo;
  let service: TestService;
  let org: string;
  let gw: string;

  beforeAll(async () => {
    mock = await startMockProvider({ port: 0, record: false });
    echo = await startEcho();
    service = await bootService(
      SERVICE,
      {
        REDIS_URL: process.env.TEST_REDIS_URL as string,
        LOG_LEVEL: 'debug',
        LOG_BODIES: 'true',
        ACCESS_LOG: 'true',
        MASTER_ENCRYPTION_KEY: secrets.masterKey,
        JWT_SECRET: secrets.jwtSecret,
        BOOTSTRAP_ADMIN_EMAIL: 'owner@example.com',
        BOOTSTRAP_ADMIN_PASSWORD: secrets.bootstrapPassword,
        BOOTSTRAP_ORG_PLAN: 'enterprise',
        SIGNUP_ENABLED: 'true',
        OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_RETRY_BASE_MS: '20',
        OPENAI_BASE_URL: `${mock.url}/v1`,
        ANTHROPIC_BASE_URL: mock.url,
        GEMINI_BASE_URL: echo.url,
        MISTRAL_BASE_URL: `${echo.url}/v1`,
      },
      { logDestination: logs },
    );
    org = service.urls['org-api'];
    gw = service.urls.gateway;
  }, 60_000);
  afterAll(async () => {
    await service.stop();
    await mock.close();
    echo.server.closeAllConnections();
    await new Promise((resolve) => echo.server.close(resolve));
  });

  /** A request over HTTP; its answer (status line, headers, body) is kept for the search. */
  const call = async (step: string, base: string, method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<{ status: number; body: Json }> => {
    const raw = typeof body === 'string';
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
    });
    const text = await res.text();
    answers.push({ step, text: `${res.status} ${JSON.stringify([...res.headers.entries()])} ${text}` });
    let parsed: Json;
    try {
      parsed = text ? (JSON.parse(text) as Json) : {};
    } catch {
      parsed = { text };
    }
    return { status: res.status, body: parsed };
  };
  let owner: Record<string, string>;
  let admin: Record<string, string>;

  it('logins, refresh, sign-up, members and malformed bodies', async () => {
    expect((await call('login-wrong', org, 'POST', '/api/v1/auth/login', {}, { email: 'owner@example.com', password: secrets.wrongPassword })).status).toBe(401);
    const login = await call('login', org, 'POST', '/api/v1/auth/login', {}, { email: 'owner@example.com', password: secrets.bootstrapPassword });
    expect(login.status).toBe(200);
    Object.assign(shownOnce, { accessToken: 'login', refreshToken: 'login' });
    secrets.accessToken = login.body.access_token;
    secrets.refreshToken = login.body.refresh_token;
    const refreshed = await call('refresh', org, 'POST', '/api/v1/auth/refresh', {}, { refresh_token: secrets.refreshToken });
    expect(refreshed.status).toBe(200);
    secrets.refreshedToken = refreshed.body.refresh_token;
    shownOnce.refreshedToken = 'refresh';
    expect((await call('refresh-reuse', org, 'POST', '/api/v1/auth/refresh', {}, { refresh_token: secrets.refreshToken })).status).toBe(401);
    const again = await call('login-again', org, 'POST', '/api/v1/auth/login', {}, { email: 'owner@example.com', password: secrets.bootstrapPassword });
    secrets.ownerToken = again.body.access_token;
    secrets.ownerRefresh = again.body.refresh_token;
    Object.assign(shownOnce, { ownerToken: 'login-again', ownerRefresh: 'login-again' });
    owner = { authorization: `Bearer ${secrets.ownerToken}` };
    expect((await call('signup', org, 'POST', '/api/v1/auth/register', {}, { email: 'new@example.com', password: secrets.signupPassword, org_name: 'Signed up' })).status).toBe(201);
    const orgId = (await call('profile', org, 'GET', '/api/v1/user/profile', owner)).body.org_id as string;
    expect((await call('member', org, 'POST', `/api/v1/organizations/${orgId}/members`, owner, { email: 'member@example.com', password: secrets.memberPassword, role: 'Member' })).status).toBe(201);
    expect((await call('tampered-token', org, 'GET', '/api/v1/user/profile', { authorization: `Bearer ${secrets.accessToken}x` })).status).toBe(401);
    // Malformed JSON: the parser's error must not quote the body back.
    const malformed = await call('login-malformed', org, 'POST', '/api/v1/auth/login', {}, `{"email":"owner@example.com","password":${secrets.bootstrapPassword}}`);
    expect(malformed.body.error.code).toBe('INVALID_JSON');
  });

  it('gateway keys: create, list, rotate, use, revoke', async () => {
    const key = await call('key-create', org, 'POST', '/api/v1/platform/api-keys', owner, { name: 'ops', scopes: ['admin:write', 'admin:read', 'gateway:write', 'gateway:read'] });
    expect(key.status).toBe(201);
    secrets.gatewayKey = key.body.key;
    shownOnce.gatewayKey = 'key-create';
    admin = { 'x-svc-api-key': secrets.gatewayKey };
    const second = await call('key2-create', org, 'POST', '/api/v1/platform/api-keys', owner, { name: 'app', scopes: ['gateway:write'] });
    secrets.rotatedAwayKey = second.body.key;
    shownOnce.rotatedAwayKey = 'key2-create';
    await call('key-list', org, 'GET', '/api/v1/platform/api-keys', owner);
    const rotated = await call('key-rotate', gw, 'POST', `/gateway/admin/keys/${second.body.id}/rotate`, admin, { grace_period_hours: 1 });
    expect(rotated.status).toBe(200);
    secrets.rotatedKey = rotated.body.key;
    shownOnce.rotatedKey = 'key-rotate';
    expect((await call('key-old-use', gw, 'GET', '/v1/models', { 'x-svc-api-key': secrets.rotatedAwayKey })).status).toBe(200);
    expect((await call('key-revoke', org, 'DELETE', `/api/v1/platform/api-keys/${rotated.body.id}`, owner)).status).toBe(204);
    expect((await call('key-revoked-use', gw, 'GET', `/v1/models?api_key=${secrets.rotatedKey}`)).status).toBe(401);
  });

  it('provider keys: stored secrets, a target with a key, each key location, upstreams that echo them', async () => {
    expect((await call('secret-openai', gw, 'POST', '/gateway/admin/secrets', admin, { provider: 'openai', plaintext_key: secrets.storedOpenaiKey })).status).toBe(201);
    expect((await call('secret-gemini', gw, 'POST', '/gateway/admin/secrets', admin, { provider: 'gemini', secret: secrets.storedGeminiKey })).status).toBe(201);
    expect((await call('secret-again', gw, 'POST', '/gateway/admin/secrets', admin, { provider: 'openai', plaintext_key: secrets.storedOpenaiKey })).status).toBe(409);
    await call('secret-list', gw, 'GET', '/gateway/admin/secrets', admin);
    const target = await call('target-create', gw, 'POST', '/gateway/admin/provider-targets', admin, { name: 'Echo lab', provider_id: 'echolab', base_url: `${echo.url}/v1`, api_key: secrets.targetKey, models: ['m1'] });
    expect(target.status).toBe(201);
    expect((await call('target-discover', gw, 'POST', `/gateway/admin/provider-targets/${target.body.id}/discover-models`, admin)).body.error.code).toBe('discovery_failed');
    await call('discovery-history', gw, 'GET', '/gateway/admin/discovery/history', admin);
    expect((await call('target-with-credentials', gw, 'POST', '/gateway/admin/provider-targets', admin, { name: 'Bad', base_url: `http://user:${secrets.targetKey}@127.0.0.1:9/v1` })).status).toBe(400);
    // Target headers are kept and listed in clear: one that carries a credential is refused (logged redacted).
    expect((await call('target-header-credential', gw, 'POST', '/gateway/admin/provider-targets', admin, { name: 'Hdr', base_url: `${echo.url}/v1`, headers: { 'X-Auth-Token': secrets.targetHeaderToken } })).status).toBe(400);

    const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] };
    const gemini = { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hello' }] };
    expect((await call('proxy-x-provider-key', gw, 'POST', '/v1/chat/completions', { ...admin, 'x-provider-key': secrets.providerHeaderKey }, chat)).status).toBe(200);
    expect((await call('proxy-bearer', gw, 'POST', `/v1/chat/completions?api_key=${secrets.gatewayKey}`, { authorization: `Bearer ${secrets.providerBearerKey}` }, chat)).status).toBe(200);
    const messages = { model: 'claude-3-5-haiku-latest', max_tokens: 10, messages: [{ role: 'user', content: 'hello' }] };
    expect((await call('proxy-x-api-key', gw, 'POST', '/v1/messages', { ...admin, 'x-api-key': secrets.anthropicKey, 'anthropic-version': '2023-06-01' }, messages)).status).toBe(200);
    expect((await call('proxy-stored', gw, 'POST', '/v1/chat/completions', admin, chat)).status).toBe(200);
    // A credential field in a forwarded body, under a name no list spells out (LOG_BODIES redacts it by its ending).
    expect((await call('proxy-body-credential', gw, 'POST', '/v1/chat/completions', admin, { ...chat, metadata: { auth_token: secrets.bodyAuthToken } })).status).toBe(200);
    // Upstreams that fail and echo what they got, the key included: Gemini's `?key=` (stored and the
    // client's, whole and streamed), a provider target's key, a D provider's bearer.
    expect((await call('proxy-gemini-stored', gw, 'POST', '/v1/gemini/chat/completions', admin, gemini)).status).toBe(500);
    expect((await call('proxy-gemini-client', gw, 'POST', '/v1/gemini/chat/completions', { ...admin, 'x-provider-key': secrets.clientGeminiKey }, { ...gemini, stream: true })).status).toBe(500);
    expect((await call('proxy-target', gw, 'POST', '/v1/chat/completions', admin, { model: 'echolab/m1', messages: chat.messages })).status).toBe(500);
    expect((await call('proxy-target-stream', gw, 'POST', '/v1/chat/completions', admin, { model: 'echolab/m1', stream: true, messages: chat.messages })).status).toBe(500);
    expect((await call('proxy-mistral', gw, 'POST', '/v1/chat/completions', { ...admin, 'x-provider-key': secrets.providerHeaderKey }, { model: 'mistral/mistral-small', messages: chat.messages })).status).toBe(500);
    const echoed = echo.requests.join('\n');
    for (const name of ['storedGeminiKey', 'clientGeminiKey', 'targetKey', 'providerHeaderKey']) expect(echoed).toContain(secrets[name]);
    const badJson = await call('proxy-malformed', gw, 'POST', '/v1/chat/completions', { ...admin, 'x-provider-key': secrets.providerHeaderKey }, `{"model":"gpt-4o","api_key":${secrets.providerHeaderKey}}`);
    expect(badJson.body.error.code).toBe('invalid_json');
  });

  it('webhooks and the team chat, with receivers that fail and echo the request', async () => {
    const hook = await call('webhook-create', org, 'POST', '/api/v1/admin/webhooks', owner, { url: `${echo.url}/hook`, events: ['guardrail.triggered'], secret: secrets.webhookSecret });
    expect(hook.status).toBe(201);
    const generated = await call('webhook-create-generated', org, 'POST', '/api/v1/admin/webhooks', owner, { url: `${echo.url}/hook2`, events: ['budget.exceeded'] });
    secrets.generatedWebhookSecret = generated.body.secret;
    shownOnce.generatedWebhookSecret = 'webhook-create-generated';
    await call('webhook-get', org, 'GET', `/api/v1/admin/webhooks/${hook.body.id}`, owner);
    expect((await call('webhook-test-delivery', org, 'POST', '/api/v1/webhooks/deliver', { 'x-api-key': secrets.gatewayKey }, { webhook_id: hook.body.id })).status).toBe(202);
    const chatPath = `/services/T000/B000/${secrets.chatSecret}`;
    expect((await call('chat-put', org, 'PUT', '/api/v1/admin/integrations/chat', owner, { url: `${echo.url}${chatPath}`, events: [], enabled: true })).status).toBe(200);
    // A blocked prompt is a guardrail.triggered event: delivered to the webhook and posted to the chat.
    const pii = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'card 4111 1111 1111 1111, ssn 123-45-6789' }] };
    expect((await call('proxy-pii', gw, 'POST', '/v1/chat/completions', { ...admin, 'x-provider-key': secrets.providerHeaderKey }, pii)).status).toBe(403);
    let chat: Json = {};
    let deliveries: Json[] = [];
    for (let waited = 0; waited < 15_000; waited += 100) {
      chat = (await call('chat-get', org, 'GET', '/api/v1/admin/integrations/chat', owner)).body;
      deliveries = (await call('webhook-deliveries', org, 'GET', `/api/v1/admin/webhooks/${hook.body.id}/deliveries`, owner)).body.items as Json[];
      if (chat.last_error && deliveries.length === 2 && deliveries.every((d) => d.status === 'dead_letter')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(chat.last_error).toMatch(/^HTTP 500: echo: /);
    expect(deliveries.map((d) => d.error)).toEqual([expect.stringMatching(/^HTTP 500: echo: /), expect.stringMatching(/^HTTP 500: echo: /)]);
    expect(echo.requests.some((request) => request.includes(secrets.chatSecret))).toBe(true);
  }, 30_000);

  it('a runner session and its token, metrics, the OpenAPI documents, logout', async () => {
    const runner = await call('runner-create', gw, 'POST', '/gateway/admin/runners', admin, { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600 });
    const session = await call('runner-start', gw, 'POST', `/gateway/admin/runners/${runner.body.runner_id}/start`, admin, {});
    expect(session.status).toBe(200);
    Object.assign(secrets, { runnerToken: session.body.runner_token, runnerProof: session.body.runner_proof });
    Object.assign(shownOnce, { runnerToken: 'runner-start', runnerProof: 'runner-start' });
    expect((await call('runner-exec', gw, 'POST', `/gateway/admin/runners/${runner.body.runner_id}/exec?session_id=${session.body.session_id}`, admin, { argv: ['echo', 'hi'] })).status).toBe(200);
    const fromSession = { 'x-svc-api-key': secrets.runnerToken, 'x-runner-id': runner.body.runner_id, 'x-session-id': session.body.session_id, 'x-runner-proof': secrets.runnerProof, 'x-provider-key': secrets.providerHeaderKey };
    expect((await call('runner-proxy', gw, 'POST', '/v1/chat/completions', fromSession, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
    await call('runner-get', gw, 'GET', `/gateway/admin/runners/${runner.body.runner_id}`, admin);
    await call('runner-events', gw, 'GET', `/gateway/admin/runners/${runner.body.runner_id}/events`, admin);
    await call('usage', gw, 'GET', '/gateway/admin/usage', admin);
    expect((await call('metrics', gw, 'GET', '/metrics')).status).toBe(200);
    expect((await call('openapi-gateway', gw, 'GET', '/docs/json')).status).toBe(200);
    expect((await call('openapi-org', org, 'GET', '/docs/json')).status).toBe(200);
    expect((await call('logout', org, 'POST', '/api/v1/auth/logout', owner, { refresh_token: secrets.ownerRefresh })).status).toBe(204);
    // The gateway's upstream is down: the failure is logged with its cause.
    echo.server.closeAllConnections();
    await new Promise((resolve) => echo.server.close(resolve));
    expect((await call('proxy-gemini-down', gw, 'POST', '/v1/gemini/chat/completions', admin, { model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(502);
  });

  it('no secret is in a log line, an answer (but its creation), a file of DATA_DIR or Redis', async () => {
    const places: Record<string, string> = {
      logs: logs.text,
      'DATA_DIR': filesUnder(service.dataDir).map((file) => `${file}\n${readFileSync(file, 'utf8')}`).join('\n'),
      redis: await redisText(process.env.TEST_REDIS_URL as string),
    };
    for (const answer of answers) places[`answer ${answer.step}`] = answer.text;
    expect(logs.text.split('\n').length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const [name, value] of Object.entries(secrets)) {
      expect(secretPart(value).length).toBeGreaterThanOrEqual(32);
      // Any 9 characters of it: the whole value, or a piece (a parser's error quotes 10 characters of a body).
      const pieces = piecesOf(value);
      for (const [place, text] of Object.entries(places)) {
        if (place === `answer ${shownOnce[name]}`) continue;
        const at = pieces.map((piece) => text.indexOf(piece)).find((index) => index >= 0);
        if (at !== undefined) found.push(`${name} in ${place}: …${text.slice(Math.max(0, at - 80), at + 60)}…`);
      }
    }
    expect(found).toEqual([]);
  });
});
