import { GatewayHarness, postJson, PROVIDER_KEY, startGateway } from './harness';

type Line = Record<string, unknown>;

/** The service's log lines, parsed, as pino writes them. */
class LogCapture {
  readonly lines: Line[] = [];

  write(chunk: string): void {
    for (const text of chunk.split('\n')) if (text.trim()) this.lines.push(JSON.parse(text) as Line);
  }

  requests(): Line[] {
    return this.lines.filter((line) => line.msg === 'request');
  }

  /** The access lines of one request id, once at least one was written (the line follows the answer). */
  async linesOf(requestId: string): Promise<Line[]> {
    for (let waited = 0; waited < 2_000; waited += 10) {
      const found = this.requests().filter((line) => line.request_id === requestId);
      if (found.length) return found;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no access line for ${requestId}; lines: ${JSON.stringify(this.requests())}`);
  }

  raw(): string {
    return JSON.stringify(this.lines);
  }
}

describe('ACCESS_LOG: one info line per request', () => {
  const logs = new LogCapture();
  let gw: GatewayHarness;
  beforeAll(async () => {
    gw = await startGateway({ env: { LOG_LEVEL: 'info', ACCESS_LOG: 'true' }, logs });
  });
  afterAll(() => gw.stop());

  it('a served chat completion: tenant, route, status, tokens and cost, once, and nothing of the prompt or keys', async () => {
    const prompt = 'a prompt the access log must not repeat';
    const res = await postJson(`${gw.url}/v1/chat/completions`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }] }, { 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-svc-request-id') as string;
    const lines = await logs.linesOf(requestId);
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({ level: 30, method: 'POST', path: '/v1/chat/completions', status_code: 200, org_id: gw.orgId, provider: 'openai', model: 'gpt-4o-mini', stream: false, blocked_by: null });
    expect(typeof line.key_id).toBe('string');
    expect(line.input_tokens as number).toBeGreaterThan(0);
    expect(line.cost as number).toBeGreaterThan(0);
    expect(line.latency_ms as number).toBeGreaterThan(0);
    expect(logs.raw()).not.toContain(prompt);
    expect(logs.raw()).not.toContain(gw.key);
    expect(logs.raw()).not.toContain(PROVIDER_KEY);
  });

  it('a request refused at authentication: its status, no tenant; the query string (and a key in it) left out', async () => {
    const res = await postJson(`${gw.url}/v1/chat/completions?api_key=svc_sk_not_a_real_key_1234567890`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(401);
    const [line] = await logs.linesOf(res.headers.get('x-svc-request-id') as string);
    expect(line).toMatchObject({ method: 'POST', path: '/v1/chat/completions', status_code: 401, org_id: null });
    expect(logs.raw()).not.toContain('svc_sk_not_a_real_key');
  });

  it('routes served by the framework (health, a wrong method) get the generic line', async () => {
    const health = await fetch(`${gw.url}/v1/health?verbose=1`);
    expect(health.status).toBe(200);
    const [healthLine] = await logs.linesOf(await lastRequestId(logs, '/v1/health'));
    expect(healthLine).toMatchObject({ method: 'GET', path: '/v1/health', status_code: 200 });
    expect(healthLine).not.toHaveProperty('org_id');

    const wrongMethod = await fetch(`${gw.url}/v1/chat/completions`);
    expect(wrongMethod.status).toBe(405);
    const id = await lastRequestId(logs, '/v1/chat/completions', 405);
    expect(await logs.linesOf(id)).toHaveLength(1);
  });
});

describe('ACCESS_LOG=false', () => {
  const logs = new LogCapture();
  let gw: GatewayHarness;
  beforeAll(async () => {
    gw = await startGateway({ env: { LOG_LEVEL: 'info', ACCESS_LOG: 'false' }, logs });
  });
  afterAll(() => gw.stop());

  it('writes no access line, for the proxy or the framework routes', async () => {
    const res = await postJson(`${gw.url}/v1/chat/completions`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, { 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });
    expect(res.status).toBe(200);
    expect((await fetch(`${gw.url}/v1/health`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(logs.requests()).toEqual([]);
  });
});

/** The request id of the latest access line for `path` (with `status`, when given), waiting for it. */
async function lastRequestId(logs: LogCapture, path: string, status?: number): Promise<string> {
  for (let waited = 0; waited < 2_000; waited += 10) {
    const line = logs.requests().reverse().find((l) => l.path === path && (status === undefined || l.status_code === status));
    if (line) return line.request_id as string;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no access line for ${path}`);
}
