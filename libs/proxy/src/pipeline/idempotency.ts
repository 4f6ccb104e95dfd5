import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { Principal } from '@svc/auth';
import { Repositories } from '@svc/domain';
import { GatewayError, invalidRequest } from '@svc/platform';
import { REPOSITORIES } from '@svc/runtime';
import type { ProxyReply } from '../http/proxy-io';

/**
 * Whether an answer of this status is stored for replay: below 500 and not 408, 409 or 429. Those
 * three, with the 5xx, are what the OpenAI and Anthropic SDKs retry with the same headers (so the
 * same key): a provider's rate limit or lock timeout is transient, and a stored one would be
 * replayed to every retry for 24 h instead of letting the retry reach the provider.
 */
export function storable(status: number): boolean {
  return status < 500 && status !== 408 && status !== 409 && status !== 429;
}

/**
 * DECISIONS.md "Idempotency-Key" on chat completions: kept 24 h per organization. The same key and
 * body replays the stored answer with `Idempotent-Replayed: true`; another body is 409
 * `idempotency_key_reused`; a request still in flight is 409 `idempotency_key_in_progress`.
 * Streaming answers are not stored. An answer below 500 is stored (the provider's 4xx included), but
 * not one the official SDKs retry (`storable`); a 5xx, a transport failure or a refusal by the gateway
 * releases the key so the request can be retried.
 */
@Injectable()
export class IdempotencyGate {
  static readonly REPLAYED = '\u0000replayed';

  constructor(@Inject(REPOSITORIES) private readonly repositories: Repositories) {}

  /**
   * The key to complete or release later; REPLAYED when the stored answer was sent; undefined
   * without a key. A replay carries `standingHeaders()` (the rate-limit window and today's spend,
   * as every response does; it never rejects) and the stored answer's own headers (the provider's,
   * as first relayed) below them: the gateway's names win, as on the first answer.
   */
  async begin(
    principal: Principal,
    header: string | string[] | undefined,
    body: Buffer,
    reply: ProxyReply,
    standingHeaders: () => Promise<Record<string, string>>,
  ): Promise<string | undefined> {
    if (header === undefined) return undefined;
    const key = Array.isArray(header) ? header[0] : header;
    if (!/^[\x21-\x7e]{1,255}$/.test(key)) throw invalidRequest('Idempotency-Key must be 1 to 255 visible ASCII characters', 'Idempotency-Key');
    const bodyHash = createHash('sha256').update(body).digest('hex');
    const claim = await this.repositories.idempotency.claim(principal.orgId, key, bodyHash);
    if (claim.claimed) return key;
    const record = claim.record;
    if (record.body_hash !== bodyHash) {
      throw new GatewayError(409, {
        message: 'This Idempotency-Key was used with a different request body',
        type: 'invalid_request_error',
        code: 'idempotency_key_reused',
        param: 'Idempotency-Key',
        remediation: 'Use a new Idempotency-Key for a different request.',
      });
    }
    if (record.state !== 'completed' || !record.response) {
      throw new GatewayError(409, {
        message: 'A request with this Idempotency-Key is still in progress',
        type: 'invalid_request_error',
        code: 'idempotency_key_in_progress',
        param: 'Idempotency-Key',
        remediation: 'Wait for the first request to finish, then retry to get its stored answer.',
      });
    }
    const { 'content-type': contentType = 'application/json', ...headers } = record.response.headers;
    reply.setHeaders(await standingHeaders());
    for (const name in headers) reply.defaultHeader(name, headers[name]);
    reply.header('Idempotent-Replayed', 'true');
    reply.send(record.response.status_code, record.response.body, contentType);
    return IdempotencyGate.REPLAYED;
  }

  /** Stores the answer: its status, body, content type and the provider's headers it carried (`forwardResponseHeaders`). */
  async complete(principal: Principal, key: string, status: number, body: { text: string; contentType: string; headers?: Record<string, string> }): Promise<void> {
    await this.repositories.idempotency.complete(principal.orgId, key, {
      status_code: status,
      headers: { ...body.headers, 'content-type': body.contentType },
      body: body.text,
    });
  }

  async release(principal: Principal, key: string): Promise<void> {
    await this.repositories.idempotency.release(principal.orgId, key);
  }
}
