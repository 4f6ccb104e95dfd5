/**
 * The longest lifetime a gateway key may be given at creation or rotation (about 10 years): far
 * enough for any planned expiry, near enough that a typo (year 20300) is refused, not stored.
 */
export const MAX_API_KEY_LIFETIME_DAYS = 3650;

/** ISO 8601 date and time with an explicit time zone (`Z` or `±hh:mm`); a bare local time is ambiguous. */
const TIMESTAMP_WITH_ZONE = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Why `value` cannot be a key's `expires_at` (a phrase to follow the field name), or null when it
 * can: an ISO 8601 timestamp with a time zone, strictly after `now`, at most
 * MAX_API_KEY_LIFETIME_DAYS ahead. `null` (never expires) is the caller's business.
 */
export function apiKeyExpiryProblem(value: unknown, now = new Date()): string | null {
  const match = typeof value === 'string' ? TIMESTAMP_WITH_ZONE.exec(value) : null;
  const at = match ? Date.parse(value as string) : Number.NaN;
  // Date.parse rolls 2030-02-31 over to March; a day the month does not have is refused instead.
  if (!match || Number.isNaN(at) || Number(match[3]) > new Date(Date.UTC(Number(match[1]), Number(match[2]), 0)).getUTCDate()) {
    return 'must be an ISO 8601 timestamp with a time zone, e.g. 2030-01-31T00:00:00Z';
  }
  if (at <= now.getTime()) return `must be in the future (it is ${new Date(at).toISOString()}, now is ${now.toISOString()})`;
  if (at > now.getTime() + MAX_API_KEY_LIFETIME_DAYS * 86_400_000) return `must be at most ${MAX_API_KEY_LIFETIME_DAYS} days (about 10 years) ahead`;
  return null;
}

/** Whether the key has passed its `expires_at` (absent on keys stored before expiry existed: never). */
export function apiKeyExpired(key: { expires_at?: Date | null }, now: Date): boolean {
  return !!key.expires_at && key.expires_at.getTime() <= now.getTime();
}

/** A body's `expires_at` as a date: undefined when left out, null for "never". */
export function requestedExpiry(value: string | null | undefined): Date | null | undefined {
  return value === undefined || value === null ? value : new Date(value);
}

/**
 * The lifetime rule beside "a key cannot grant scopes it does not hold": a caller whose own key
 * expires (`callerExpiresAt`) cannot create or rotate to a key that outlives it, or a leaked
 * short-lived key could mint a permanent one. `requested` is the body's `expires_at` (undefined when
 * left out: `fallback`, the surface's default, capped at the caller's expiry so a client unaware of
 * expiry keeps working). Returns the expiry to store, or `refused` (a message naming `expires_at`
 * and the caller's expiry) for an explicit null or a later value. Callers without an expiry
 * (dashboard users, keys that never expire) get `requested`, else `fallback`, unchanged.
 */
export function boundByCallerExpiry(
  requested: Date | null | undefined,
  fallback: Date | null,
  callerExpiresAt: Date | null | undefined,
): { expiresAt: Date | null; refused?: undefined } | { refused: string } {
  if (!callerExpiresAt) return { expiresAt: requested === undefined ? fallback : requested };
  const limit = callerExpiresAt.toISOString();
  if (requested === undefined) return { expiresAt: fallback && fallback.getTime() <= callerExpiresAt.getTime() ? fallback : callerExpiresAt };
  if (requested === null) return { refused: `expires_at null (never) would outlive the calling API key, which expires at ${limit}; give an expires_at at or before it` };
  if (requested.getTime() > callerExpiresAt.getTime()) {
    return { refused: `expires_at ${requested.toISOString()} is after the calling API key's own expiry ${limit}; a key cannot create a key that outlives it` };
  }
  return { expiresAt: requested };
}
