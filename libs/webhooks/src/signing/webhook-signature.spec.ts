import { createHmac } from 'node:crypto';
import OpenAI from 'openai';
import { createEvent, EVENT_SOURCES } from '@svc/events';
import { deliveryHeaders, hexSignature, standardWebhooksKey, standardWebhooksSignature } from './webhook-signature';

const event = createEvent(
  'budget.exceeded',
  'org_sig',
  { blocked_by: 'daily_budget', daily_spent: 10.5, daily_budget: 10, model: 'gpt-4o', estimated_cost: 0.2, timestamp: '2025-01-15T10:00:00.000Z' },
  EVENT_SOURCES.gateway,
  { id: 'evt_0123456789abcdef01234567', time: '2025-01-15T10:00:00.000Z' },
);
const body = JSON.stringify(event);
// The official OpenAI SDK verifies Standard Webhooks signatures (whsec_ secrets base64-decoded, others as UTF-8).
const verifier = new OpenAI({ apiKey: 'unused' }).webhooks;

describe('webhook signatures', () => {
  it('signs the raw body with HMAC-SHA256 of the secret, hex, as sha256=<hex>', () => {
    const expected = createHmac('sha256', 'my-own-signing-secret-123').update(body).digest('hex');
    expect(hexSignature('my-own-signing-secret-123', body)).toBe(`sha256=${expected}`);
    expect(hexSignature('other-secret-of-the-hook', body)).not.toBe(`sha256=${expected}`);
  });

  it('uses the base64-decoded key of whsec_ secrets and the raw bytes of any other secret', () => {
    const key = Buffer.from('a very secret key of thirty two!');
    expect(standardWebhooksKey(`whsec_${key.toString('base64')}`)).toEqual(key);
    expect(standardWebhooksKey('my-own-signing-secret-123')).toEqual(Buffer.from('my-own-signing-secret-123'));
    // whsec_ followed by something that is not base64: the whole secret, as typed.
    expect(standardWebhooksKey('whsec_not-base64!')).toEqual(Buffer.from('whsec_not-base64!'));
    expect(standardWebhooksKey('whsec_')).toEqual(Buffer.from('whsec_'));
  });

  it('signs "<id>.<timestamp>.<body>" as v1,<base64>', () => {
    const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
    const mac = createHmac('sha256', Buffer.from('0123456789abcdef0123456789abcdef')).update(`${event.id}.1736935200.${body}`).digest('base64');
    expect(standardWebhooksSignature(secret, event.id, 1736935200, body)).toBe(`v1,${mac}`);
  });

  it.each([
    ['a generated whsec_ secret', 'whsec_Abcdefghij0123456789Abcdefghij0123456789'],
    ['a secret chosen by the user', 'my-own-signing-secret-123'],
  ])('builds headers a Standard Webhooks verifier accepts (%s)', async (_label, secret) => {
    const sentAt = new Date();
    const headers = deliveryHeaders(event, body, secret, sentAt);
    expect(headers).toMatchObject({
      'Content-Type': 'application/json',
      'X-Webhook-Signature': hexSignature(secret, body),
      'X-Webhook-Event': 'budget.exceeded',
      'X-Webhook-Timestamp': '1736935200',
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
    });
    await expect(verifier.verifySignature(body, headers, secret)).resolves.toBeUndefined();
    await expect(verifier.verifySignature(`${body} `, headers, secret)).rejects.toThrow();
    await expect(verifier.verifySignature(body, headers, 'whsec_b3RoZXIgc2VjcmV0IGJ5dGVzIQ==')).rejects.toThrow();
  });

  it('keeps the event id and X-Webhook-Timestamp across attempts; webhook-timestamp is the signing time', () => {
    const first = deliveryHeaders(event, body, 'my-own-signing-secret-123', new Date('2025-01-15T10:00:01Z'));
    const later = deliveryHeaders(event, body, 'my-own-signing-secret-123', new Date('2025-01-16T09:00:00Z'));
    expect(later['webhook-id']).toBe(first['webhook-id']);
    expect(later['X-Webhook-Timestamp']).toBe(first['X-Webhook-Timestamp']);
    expect(later['X-Webhook-Signature']).toBe(first['X-Webhook-Signature']);
    expect(Number(later['webhook-timestamp']) - Number(first['webhook-timestamp'])).toBe(23 * 3600 - 1);
    expect(later['webhook-signature']).not.toBe(first['webhook-signature']);
  });
});
