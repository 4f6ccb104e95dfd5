import { createHmac } from 'node:crypto';
import { eventUnixTime, GatewayEvent } from '@svc/events';

/** SPEC.md "Webhook delivery" headers. */
export const SIGNATURE_HEADER = 'X-Webhook-Signature';
export const EVENT_HEADER = 'X-Webhook-Event';
export const TIMESTAMP_HEADER = 'X-Webhook-Timestamp';
/** Standard Webhooks (https://www.standardwebhooks.com) headers. */
export const STANDARD_ID_HEADER = 'webhook-id';
export const STANDARD_TIMESTAMP_HEADER = 'webhook-timestamp';
export const STANDARD_SIGNATURE_HEADER = 'webhook-signature';

/** Prefix of Standard Webhooks secrets: `whsec_` followed by the base64 of the key. */
export const STANDARD_SECRET_PREFIX = 'whsec_';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** `sha256=<hex>`: HMAC-SHA256 of the raw body with the webhook's secret (its UTF-8 bytes). */
export function hexSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/**
 * The HMAC key of the Standard Webhooks signature. A secret `whsec_<base64>` (the form the org API
 * generates) is used as the bytes its base64 decodes to, as the Standard Webhooks libraries do;
 * any other secret (chosen by the user at registration) as its UTF-8 bytes, as the OpenAI SDK's
 * verifier does for secrets without the prefix (`new Webhook(secret, { format: 'raw' })` with the
 * standardwebhooks library). A `whsec_` secret whose rest is not base64 is also taken as raw bytes.
 */
export function standardWebhooksKey(secret: string): Buffer {
  if (secret.startsWith(STANDARD_SECRET_PREFIX)) {
    const encoded = secret.slice(STANDARD_SECRET_PREFIX.length);
    if (encoded.length > 0 && BASE64.test(encoded)) return Buffer.from(encoded, 'base64');
  }
  return Buffer.from(secret, 'utf8');
}

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`. */
export function standardWebhooksSignature(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', standardWebhooksKey(secret)).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/**
 * The headers of one delivery attempt of `body` (the event's JSON, byte for byte what is sent).
 * `X-Webhook-Timestamp` is when the event happened (SPEC.md); `webhook-timestamp` is when this
 * attempt is signed, as Standard Webhooks intends (its verifiers refuse timestamps older than five
 * minutes, which a retried or replayed dead letter would otherwise be). `webhook-id` is the event
 * id, the same on every attempt, so receivers drop duplicates by it.
 */
export function deliveryHeaders(event: GatewayEvent, body: string, secret: string, sentAt: Date = new Date()): Record<string, string> {
  const sentSeconds = Math.floor(sentAt.getTime() / 1000);
  return {
    'Content-Type': 'application/json',
    [SIGNATURE_HEADER]: hexSignature(secret, body),
    [EVENT_HEADER]: event.type,
    [TIMESTAMP_HEADER]: String(eventUnixTime(event)),
    [STANDARD_ID_HEADER]: event.id,
    [STANDARD_TIMESTAMP_HEADER]: String(sentSeconds),
    [STANDARD_SIGNATURE_HEADER]: standardWebhooksSignature(secret, event.id, sentSeconds, body),
  };
}
