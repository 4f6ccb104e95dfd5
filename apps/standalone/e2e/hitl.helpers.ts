import { Json, PROVIDER_KEY, Reply, Standalone } from './standalone.helpers';

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
export const chat = (content: string, extra: Json = {}) => ({ model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user' as const, content }], ...extra });
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A call to the gateway surface with `key` (and the provider key), its JSON body parsed (a stream's SSE as `{ text }`). */
export async function callGateway(s: Standalone, method: string, path: string, key: string, body?: unknown): Promise<Reply> {
  const headers = { 'X-SVC-API-Key': key, 'X-Provider-Key': PROVIDER_KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  const res = await fetch(`${s.service.urls.gateway}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed: Json;
  try {
    parsed = (text ? JSON.parse(text) : {}) as Json;
  } catch {
    // A stream's SSE text.
    parsed = { text };
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/**
 * A requester key and a reviewer key (a key cannot approve its own request) on an organization
 * whose HITL threshold holds every request, and what the HITL e2e specs do with them.
 */
export class HitlClient {
  requester = '';
  reviewer = '';

  constructor(readonly s: Standalone) {}

  async init(): Promise<void> {
    this.requester = await this.newKey(['gateway:write', 'gateway:read']);
    this.reviewer = await this.newKey(['admin:read', 'admin:write']);
    expect((await this.s.call('gateway', 'POST', '/gateway/admin/policies', { body: { hitl_cost_threshold: 0.0000001 } })).status).toBeLessThan(300);
  }

  private async newKey(scopes: string[]): Promise<string> {
    const res = await this.s.call('org-api', 'POST', '/api/v1/platform/api-keys', { body: { name: `k-${Math.random().toString(36).slice(2)}`, scopes } });
    expect(res.status).toBe(201);
    return res.body.key as string;
  }

  gw(method: string, path: string, key: string, body?: unknown): Promise<Reply> {
    return callGateway(this.s, method, path, key, body);
  }

  send(body: Json): Promise<Reply> {
    return this.gw('POST', '/v1/chat/completions', this.requester, body);
  }

  details(id: string): Promise<Reply> {
    return this.gw('GET', `/gateway/admin/approvals/${id}`, this.reviewer);
  }

  /** Held (202), then approved by the reviewer: the approval's id. */
  async approved(body: Json): Promise<string> {
    const pending = await this.send(body);
    expect(pending.status).toBe(202);
    const id = pending.body.approval_id as string;
    expect((await this.gw('POST', `/gateway/admin/approvals/${id}/approve`, this.reviewer, {})).status).toBe(200);
    return id;
  }

  /** Requests of the mock provider whose body carries `marker`. */
  upstream(marker: string): number {
    return this.s.mock.requests.filter((r) => JSON.stringify(r.body ?? '').includes(marker)).length;
  }

  /** The approval is approved and unused again (given back), and the admin view says so. */
  async expectReleased(id: string): Promise<void> {
    expect((await this.details(id)).body).toMatchObject({ status: 'approved', consumed_at: null, consumed_by: null, used_at: null, released_at: expect.stringMatching(ISO) });
  }

  /** Used for good by a re-submission (`requestId` when given: its `X-SVC-Request-ID`). */
  async expectConsumed(id: string, requestId?: string): Promise<void> {
    expect((await this.details(id)).body).toMatchObject({
      status: 'approved',
      consumed_at: expect.stringMatching(ISO),
      consumed_by: requestId ?? expect.stringMatching(/^gw_/),
      used_at: expect.stringMatching(ISO),
    });
  }
}

