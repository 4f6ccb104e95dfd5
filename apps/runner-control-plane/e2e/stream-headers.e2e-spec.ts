import { bootRunners, RUNNERS, RunnerTestContext, seedKey } from './runner-helpers';
import { SseClient } from './sse-client';

/**
 * The runner stream writes its headers itself (the Fastify reply is hijacked), so the
 * `X-Content-Type-Options: nosniff` and the API's `Content-Security-Policy` every other answer of the
 * control plane gets from an onSend hook must be set there too.
 */
const CSP = "default-src 'none'; form-action 'none'; frame-ancestors 'none'";
describe('runner stream: security headers', () => {
  let t: RunnerTestContext;
  let readKey: string;
  beforeAll(async () => {
    t = await bootRunners();
    readKey = await seedKey(t.repos, t.orgId, ['admin:read']);
  });
  afterAll(() => t.stop());

  it('the stream carries nosniff and the CSP beside its SSE headers, as the control plane’s JSON answers do', async () => {
    const runner = await t.admin.createRunner({ provider_type: 'fake' });
    await t.admin.startSession(runner.runner_id);
    const client = await SseClient.open(`${t.base}${RUNNERS}/${runner.runner_id}/stream`, { 'X-SVC-API-Key': readKey });
    try {
      expect(client.response.status).toBe(200);
      expect(client.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(client.response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(client.response.headers.get('content-security-policy')).toBe(CSP);
      await client.waitFor((e) => e.event === 'state_change');
    } finally {
      client.close();
      await client.ended;
    }
    const json = await fetch(`${t.base}${RUNNERS}/${runner.runner_id}`, { headers: { 'X-SVC-API-Key': readKey } });
    expect(json.status).toBe(200);
    expect(json.headers.get('x-content-type-options')).toBe('nosniff');
    expect(json.headers.get('content-security-policy')).toBe(CSP);
  });
});
