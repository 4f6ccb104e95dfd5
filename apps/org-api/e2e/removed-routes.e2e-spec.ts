import { request as httpRequest } from 'node:http';
import { OrgApi, Session } from './org-api.helpers';

const GONE_MESSAGE = 'The /api/v1/admin/agents routes were removed; use GET /api/v1/agents/health and /api/v1/agents/{agent_name}/health';

/**
 * SPEC.md "Versioning": routes under `/api/v1/admin/agents/` return 410, whatever the request carries:
 * the refusal comes before the body is read, so no content type, malformed JSON or size turns it into
 * a 415, 400 or 413, and a huge body is not buffered (docs/org-api-access.md "Routes").
 */
describe('org API: removed /api/v1/admin/agents routes answer 410 whatever the body', () => {
  let api: OrgApi;
  let owner: Session;

  beforeAll(async () => {
    api = await OrgApi.boot();
    owner = await api.loginOwner();
  });
  afterAll(() => api.stop());

  const gone = { status: 410, body: { error: { code: 'GONE', message: GONE_MESSAGE, details: {} } } };

  it.each([
    ['text/plain', 'text/plain', 'hello'],
    ['malformed JSON', 'application/json', '{"model": '],
    ['JSON nested too deep', 'application/json', '['.repeat(5000)],
    ['form', 'application/x-www-form-urlencoded', 'a=1'],
    ['multipart', 'multipart/form-data; boundary=x', '--x--'],
    ['octet-stream', 'application/octet-stream', 'binary'],
    ['malformed content type', 'nonsense', 'x'],
    ['empty content type', '', 'x'],
    ['no content type', undefined, 'no content type at all'],
  ])('answers 410 GONE to a body with %s, on every method and path (with and without a credential)', async (_label, type, body) => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      for (const path of ['/api/v1/admin/agents', '/api/v1/admin/agents/', '/api/v1/admin/agents/a1/run', '/api/v1/admin/agents/health/']) {
        for (const token of [undefined, owner.token]) {
          const headers: Record<string, string> = { ...(type === undefined ? {} : { 'content-type': type }), ...(token ? { authorization: `Bearer ${token}` } : {}) };
          const res = await fetch(`${api.base}${path}?x=1`, { method, headers, body });
          expect([method, path, res.status, await res.json()]).toEqual([method, path, gone.status, gone.body]);
        }
      }
    }
  });

  it('answers 410 to a body far above the 1 MB limit, at once, without reading it', async () => {
    // Announces 200 MB and sends 64 KB: the answer must come without waiting for (or buffering) the rest.
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${api.base}/api/v1/admin/agents/a1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(200 * 1024 * 1024) },
      });
      req.on('response', (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          req.destroy();
          resolve({ status: response.statusCode ?? 0, body: text });
        });
      });
      req.on('error', reject);
      req.write(Buffer.alloc(64 * 1024, 0x20));
    });
    expect({ status: res.status, body: JSON.parse(res.body) }).toEqual(gone);
  });

  it('answers 410 to a chunked body of unknown length', async () => {
    const chunks = async function* () {
      for (let i = 0; i < 40; i += 1) yield new TextEncoder().encode('x'.repeat(64 * 1024));
    };
    const res = await fetch(`${api.base}/api/v1/admin/agents/health`, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: ReadableStream.from(chunks()),
      duplex: 'half',
    } as RequestInit);
    expect({ status: res.status, body: await res.json() }).toEqual(gone);
  });

  it('still answers 410 to GET and HEAD, and leaves the routes next to it alone', async () => {
    const get = await api.call('GET', '/api/v1/admin/agents/health', { token: owner.token });
    expect({ status: get.status, body: get.body }).toEqual(gone);
    expect((await fetch(`${api.base}/api/v1/admin/agents`, { method: 'HEAD' })).status).toBe(410);
    const health = await api.call('GET', '/api/v1/agents/health', { token: owner.token });
    expect(health.status).toBe(200);
    const unsupported = await fetch(`${api.base}/api/v1/admin/costs/budgets`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'text/plain' }, body: 'x' });
    expect(unsupported.status).toBe(415);
    const similar = await api.call('GET', '/api/v1/admin/agentsx', { token: owner.token });
    expect(similar.status).toBe(404);
  });
});
