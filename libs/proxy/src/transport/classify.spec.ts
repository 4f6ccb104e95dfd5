import { GatewayError, HostLookupTimeoutError, OutboundBlockedError, undiciErrors } from '@svc/platform';
import { UpstreamFailure } from '../breaker/provider-breaker';
import { upstreamError } from '../pipeline/upstream-errors';
import { classify, UpstreamRequestInvalid } from './upstream-client';

const coded = (code: string) => Object.assign(new Error(`failed: ${code}`), { code });

describe('classify: what undici threw, as the gateway answers it', () => {
  it.each(['ECONNREFUSED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'ERR_SSL_WRONG_VERSION_NUMBER', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_HAS_EXPIRED', 'EPROTO', 'ESERVFAIL', 'EREFUSED'])(
    '%s is a connection failure: 502 upstream_unavailable, counted by the breaker',
    (code) => {
      const classified = classify(coded(code));
      expect(classified).toBeInstanceOf(UpstreamFailure);
      expect(upstreamError(classified, 'lab')).toMatchObject({ status: 502, body: { code: 'upstream_unavailable' } });
    },
  );

  it('a refused address at connect time (also wrapped as a cause) is 502 upstream_address_blocked, not a 500 and not counted', () => {
    const blocked = new OutboundBlockedError('blocked_address', 'resolves to 10.0.0.5 (private range 10.0.0.0/8)', '10.0.0.5', '10.0.0.0/8');
    for (const thrown of [blocked, new Error('connect failed', { cause: blocked })]) {
      const classified = classify(thrown);
      expect(classified).toBe(blocked);
      const answer = upstreamError(classified, 'lab') as GatewayError;
      expect(answer).toBeInstanceOf(GatewayError);
      expect(answer).toMatchObject({ status: 502, body: { type: 'api_error', code: 'upstream_address_blocked' } });
      expect(answer.body.message).toContain('10.0.0.5');
    }
  });

  it('a target host lookup past the connect deadline is 504 upstream_timeout; a name that does not resolve is 502 upstream_unavailable (both counted)', () => {
    const late = new HostLookupTimeoutError('quiet.example', 1_000);
    for (const thrown of [late, new Error('connect failed', { cause: late })]) {
      const classified = classify(thrown);
      expect(classified).toBeInstanceOf(UpstreamFailure);
      expect(upstreamError(classified, 'lab')).toMatchObject({
        status: 504,
        body: { code: 'upstream_timeout', message: 'lab: upstream host lookup timeout (The host quiet.example did not resolve within 1000 ms)' },
      });
    }
    const unknown = classify(new OutboundBlockedError('unresolvable', 'The host gone.example does not resolve'));
    expect(unknown).toBeInstanceOf(UpstreamFailure);
    expect(upstreamError(unknown, 'lab')).toMatchObject({ status: 502, body: { code: 'upstream_unavailable', message: 'lab: upstream connection error (The host gone.example does not resolve)' } });
  });

  it('a header undici will not send is not the provider failing: a provider key 401 invalid_provider_key, another header 502 upstream_request_invalid (neither counted)', () => {
    for (const [header, status, code] of [
      ['authorization', 401, 'invalid_provider_key'],
      ['x-api-key', 401, 'invalid_provider_key'],
      ['x-lab-tenant', 502, 'upstream_request_invalid'],
    ] as const) {
      const classified = classify(new undiciErrors.InvalidArgumentError(`invalid ${header} header`));
      expect(classified).toBeInstanceOf(UpstreamRequestInvalid);
      expect(classified).not.toBeInstanceOf(UpstreamFailure);
      expect(upstreamError(classified, 'lab')).toMatchObject({ status, body: { code } });
    }
  });

  it('an error without a connection code stays what it is (a bug is a 500 with an error id, not a provider failure)', () => {
    const bug = new TypeError('x is not a function');
    expect(classify(bug)).toBe(bug);
    expect(classify(coded('ERR_INVALID_ARG_TYPE'))).not.toBeInstanceOf(UpstreamFailure);
  });
});
