import { contextFor } from '../chain/governance.fixtures';
import { bodySizeStage, requestTooLarge } from './0.5-body-size';

describe('stage 0.5, body size', () => {
  it('allows a body up to the effective limit', () => {
    expect(bodySizeStage(contextFor({ profile: { tier: 'free' }, input: { bodyBytes: 1024 * 1024 } })).outcome).toBe('ALLOW');
  });

  it('refuses a larger body with 413 naming the limit in bytes and MB', () => {
    const result = bodySizeStage(contextFor({ profile: { policy: { max_body_bytes: 512 * 1024 } }, input: { bodyBytes: 600_000 } }));
    if (result.outcome !== 'BLOCK') throw new Error('expected BLOCK');
    expect(result.error.status).toBe(413);
    expect(result.error.body).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large' });
    expect(result.error.body.message).toBe('The request body of 600000 bytes exceeds the maximum size of 524288 bytes (0.5 MB).');
    expect(result.error.body.remediation).toContain('max_body_bytes');
  });

  it('words the error without a size when the proxy refuses by Content-Length alone', () => {
    expect(requestTooLarge(1048576).body.message).toBe('The request body exceeds the maximum size of 1048576 bytes (1 MB).');
  });
});
