import { asOrgId, EncryptedValue } from '@svc/domain';
import { OrgApi, Session } from './org-api.helpers';

/** docs/webhooks-chat-anomalies.md "Team chat": one Slack-compatible incoming-webhook URL per organization, stored encrypted. */
describe('org API: team-chat integration', () => {
  let api: OrgApi;
  let owner: Session;
  let other: Session;
  beforeAll(async () => {
    api = await OrgApi.boot();
    owner = await api.loginOwner();
    other = await api.otherOrganization();
  });
  afterAll(() => api.stop());

  it('sets, reads and removes the team-chat integration (URL stored encrypted, same outbound rules)', async () => {
    const chatUrl = 'https://8.8.8.8/services/T000/B000/secretpart';
    const put = await api.call('PUT', '/api/v1/admin/integrations/chat', { token: owner.token, body: { url: chatUrl, events: ['cost.exceeded'] } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id: expect.stringMatching(/^chat_/), kind: 'slack', enabled: true, events: ['budget.exceeded'], url_hint: 'https://8.8.8.8/…part' });
    expect(JSON.stringify(put.body)).not.toContain('secretpart');
    const stored = await api.repos.chatIntegrations.get(asOrgId(owner.orgId));
    expect(api.service.runtime.cipher.decrypt(owner.orgId, stored?.url as EncryptedValue)).toBe(chatUrl);
    expect((await api.call('GET', '/api/v1/admin/integrations/chat', { token: owner.token })).body.id).toBe(put.body.id);
    expect((await api.call('GET', '/api/v1/admin/integrations/chat', { token: other.token })).status).toBe(404);
    const blocked = await api.call('PUT', '/api/v1/admin/integrations/chat', { token: owner.token, body: { url: 'https://169.254.169.254/x' } });
    expect(blocked.body.error).toMatchObject({ code: 'URL_NOT_ALLOWED', details: { reason: 'blocked_address' } });
    expect(blocked.body.error.message).toContain('OUTBOUND_ALLOW_PRIVATE_NETWORKS=true');
    expect((await api.call('PUT', '/api/v1/admin/integrations/chat', { token: owner.token, body: {} })).status).toBe(400);
    expect((await api.call('DELETE', '/api/v1/admin/integrations/chat', { token: owner.token })).status).toBe(204);
    expect((await api.call('DELETE', '/api/v1/admin/integrations/chat', { token: owner.token })).status).toBe(404);
  });
});
