import { apiKeyExpired, apiKeyExpiryProblem, boundByCallerExpiry, MAX_API_KEY_LIFETIME_DAYS } from './api-key-expiry';

describe('apiKeyExpiryProblem', () => {
  const now = new Date('2030-06-15T12:00:00Z');
  const FORMAT = 'must be an ISO 8601 timestamp with a time zone, e.g. 2030-01-31T00:00:00Z';

  it.each(['2030-06-15T12:00:01Z', '2030-06-15T14:00:00.5+01:00', '2030-06-16T00:00+0000', '2031-02-28T00:00:00z', '2040-06-12T12:00:00Z'])('accepts %s', (value) => {
    expect(apiKeyExpiryProblem(value, now)).toBeNull();
  });

  it.each([
    ['2030-06-15T12:00:00Z', 'must be in the future'],
    ['2030-06-15T13:00:00+02:00', 'must be in the future'],
    [new Date(now.getTime() + MAX_API_KEY_LIFETIME_DAYS * 86_400_000 + 1000).toISOString(), `must be at most ${MAX_API_KEY_LIFETIME_DAYS} days`],
    ['2031-01-01T00:00:00', FORMAT],
    ['2031-01-01', FORMAT],
    ['2031-02-29T00:00:00Z', FORMAT],
    ['2031-13-01T00:00:00Z', FORMAT],
    ['tomorrow', FORMAT],
    [1_900_000_000_000, FORMAT],
    [{}, FORMAT],
  ])('refuses %j', (value, problem) => {
    expect(apiKeyExpiryProblem(value, now)).toContain(problem);
  });

  it('a key expires at expires_at exactly; no expires_at (older records too) never', () => {
    expect(apiKeyExpired({ expires_at: now }, now)).toBe(true);
    expect(apiKeyExpired({ expires_at: new Date(now.getTime() + 1) }, now)).toBe(false);
    expect(apiKeyExpired({ expires_at: null }, now)).toBe(false);
    expect(apiKeyExpired({}, now)).toBe(false);
  });
});

describe('boundByCallerExpiry', () => {
  const caller = new Date('2030-06-15T12:00:00Z');
  const before = new Date('2030-06-15T11:00:00Z');
  const after = new Date('2030-06-15T12:00:00.001Z');

  it('a caller that never expires (or a dashboard user) gets what it asks, else the default', () => {
    for (const callerExpiresAt of [null, undefined]) {
      expect(boundByCallerExpiry(null, before, callerExpiresAt)).toEqual({ expiresAt: null });
      expect(boundByCallerExpiry(after, null, callerExpiresAt)).toEqual({ expiresAt: after });
      expect(boundByCallerExpiry(undefined, before, callerExpiresAt)).toEqual({ expiresAt: before });
      expect(boundByCallerExpiry(undefined, null, callerExpiresAt)).toEqual({ expiresAt: null });
    }
  });

  it("an expiring caller: left out, the default capped at the caller's expiry; at or before it, as given", () => {
    expect(boundByCallerExpiry(undefined, null, caller)).toEqual({ expiresAt: caller });
    expect(boundByCallerExpiry(undefined, after, caller)).toEqual({ expiresAt: caller });
    expect(boundByCallerExpiry(undefined, before, caller)).toEqual({ expiresAt: before });
    expect(boundByCallerExpiry(before, null, caller)).toEqual({ expiresAt: before });
    expect(boundByCallerExpiry(caller, null, caller)).toEqual({ expiresAt: caller });
  });

  it("an expiring caller: null or a later expires_at is refused, naming the field and the caller's expiry", () => {
    const never = boundByCallerExpiry(null, before, caller);
    expect(never.refused).toContain('expires_at null');
    expect(never.refused).toContain('2030-06-15T12:00:00.000Z');
    const later = boundByCallerExpiry(after, null, caller);
    expect(later.refused).toContain('expires_at 2030-06-15T12:00:00.001Z is after');
    expect(later.refused).toContain('2030-06-15T12:00:00.000Z');
  });
});
