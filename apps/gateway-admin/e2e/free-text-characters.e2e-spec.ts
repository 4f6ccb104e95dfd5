import { asOrgId } from '@svc/domain';
import { AdminHarness, gatewayError, Json, startAdmin } from './admin-harness';

/**
 * Free texts of the gateway admin surface (a model alias's `description`, a rejection's `reason`)
 * refuse what names refuse except tab and line breaks: 400 `invalid_request` with `param` naming the
 * field, nothing stored. A description may run over several lines.
 */
describe('gateway admin: control characters in descriptions and reasons', () => {
  let h: AdminHarness;
  let alias: Json;
  let approvalId: string;
  beforeAll(async () => {
    h = await startAdmin();
    alias = (await h.call('POST', '/gateway/admin/model-aliases', { body: { alias: 'texts', model: 'gpt-4o', description: 'kept' } })).body;
    const approval = await h.repos.approvals.create(asOrgId(h.org.id), {
      model: 'gpt-4o',
      provider: 'openai',
      estimated_cost: 12,
      hitl_threshold: 10,
      retry_after_seconds: 30,
      request_hash: 'hash-texts',
      request_id: 'gw_req_texts',
      key_id: null,
      ttl_ms: 3_600_000,
    });
    approvalId = approval._id;
  });
  afterAll(() => h.stop());

  const BAD = ['\u0000', '\u0008', '\u000b', '\u001b', '\u007f', '\u0085', '\u2028', '\u2029', '\u202e', '\u2066'];

  it.each(BAD.map((c) => [`U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`, c]))(
    'refuses %s with 400 naming the field, and changes nothing',
    async (code, c) => {
      const text = `bad${c}text`;
      const cases: [string, string, Json, string][] = [
        ['POST', '/gateway/admin/model-aliases', { alias: 'texts-new', model: 'gpt-4o', description: text }, 'description'],
        ['PATCH', `/gateway/admin/model-aliases/${alias.id}`, { description: text }, 'description'],
        ['POST', `/gateway/admin/approvals/${approvalId}/reject`, { reason: text }, 'reason'],
      ];
      for (const [method, path, body, param] of cases) {
        const error = gatewayError(await h.call(method, path, { body }), 400, 'invalid_request');
        expect({ path, param: error.param }).toEqual({ path, param });
        expect(error.message).toContain(`${param} must not contain control characters other than tab and line breaks`);
        expect(error.message).toContain(`found ${code} at position 4`);
      }
      const aliases = (await h.call('GET', '/gateway/admin/model-aliases?limit=100')).body.items.filter((a: Json) => a.alias.startsWith('texts'));
      expect(aliases.map((a: Json) => [a.alias, a.description])).toEqual([['texts', 'kept']]);
      expect((await h.call('GET', `/gateway/admin/approvals/${approvalId}`)).body.status).toBe('pending');
    },
  );

  it('accepts tabs and line breaks in a description and a reason', async () => {
    const description = 'Routes the nightly jobs.\r\n\tOwner: data team\nSee the runbook.';
    const patched = await h.call('PATCH', `/gateway/admin/model-aliases/${alias.id}`, { body: { description } });
    expect([patched.status, patched.body.description]).toEqual([200, description]);
    const rejected = await h.call('POST', `/gateway/admin/approvals/${approvalId}/reject`, { body: { reason: 'Too costly.\nRetry with a smaller model.' } });
    expect([rejected.status, rejected.body.status, rejected.body.rejection_reason]).toEqual([200, 'rejected', 'Too costly.\nRetry with a smaller model.']);
  });
});
