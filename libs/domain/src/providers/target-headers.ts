import { isSensitiveLogKey } from '@svc/platform';
import type { EncryptedValue, SecretCipher } from '../crypto/secret-cipher';
import type { ProviderTargetEntity } from './provider-target.entity';

/**
 * Header names that carry a credential however a server spells them (`Authorization`, `X-Auth-Token`,
 * `X-Access-Token`, `Ocp-Apim-Subscription-Key`, `X-Functions-Key`, `X-Client-Secret`), plus every
 * name the logger redacts (`isSensitiveLogKey`). The admin API refuses them in `headers` (a key goes
 * in `api_key`); a target stored before that rule keeps them sealed in `sealed_headers`.
 */
const CREDENTIAL_HEADER = /auth|key|token|secret|passw|credential|cookie|signature/i;

export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_HEADER.test(name) || isSensitiveLogKey(name);
}

/** What the admin API answers for the value of a stored credential header (and takes back to keep it). */
export const MASKED_HEADER_VALUE = '[REDACTED]';

/** A target's headers as stored: the non-secret ones in clear, the credential ones sealed. */
export interface StoredTargetHeaders {
  headers: Record<string, string>;
  sealed_headers: Record<string, EncryptedValue>;
}

/** Splits headers (names lower-cased) into clear ones and credential ones sealed for the organization. */
export function sealTargetHeaders(cipher: SecretCipher, orgId: string, headers: Record<string, string>): StoredTargetHeaders {
  const stored: StoredTargetHeaders = { headers: {}, sealed_headers: {} };
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (isCredentialHeader(lower)) stored.sealed_headers[lower] = cipher.encrypt(orgId, value);
    else stored.headers[lower] = value;
  }
  return stored;
}

/**
 * Every header sent upstream to a target, as it was configured: the clear ones (in a document stored
 * before credentials were sealed, its credential headers too) and the sealed ones opened. A sealed
 * value that does not decrypt (its key is no longer configured) is left out and reported to `onError`.
 */
export function openTargetHeaders(
  cipher: SecretCipher,
  target: Pick<ProviderTargetEntity, 'org_id' | 'headers' | 'sealed_headers'>,
  onError?: (name: string, err: unknown) => void,
): Record<string, string> {
  const headers = { ...target.headers };
  for (const [name, sealed] of Object.entries(target.sealed_headers ?? {})) {
    try {
      headers[name] = cipher.decrypt(target.org_id, sealed);
    } catch (err) {
      onError?.(name, err);
    }
  }
  return headers;
}

/** The headers as the admin API answers them: credential values (sealed, or in clear in an older document) masked. */
export function maskedTargetHeaders(target: Pick<ProviderTargetEntity, 'headers' | 'sealed_headers'>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(target.headers)) headers[name] = isCredentialHeader(name) ? MASKED_HEADER_VALUE : value;
  for (const name of Object.keys(target.sealed_headers ?? {})) headers[name] = MASKED_HEADER_VALUE;
  return headers;
}

/** Whether the stored document still holds a credential header in clear (written before they were sealed). */
export function hasClearCredentialHeader(target: Pick<ProviderTargetEntity, 'headers'>): boolean {
  return Object.keys(target.headers).some(isCredentialHeader);
}
