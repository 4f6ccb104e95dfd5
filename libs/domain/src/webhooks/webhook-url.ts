import type { EncryptedValue, SecretCipher } from '../crypto/secret-cipher';

/** HKDF label of the key that hashes webhook URLs (`url_hash`). */
export const WEBHOOK_URL_HASH_PURPOSE = 'webhook-url';

/** A receiver URL as stored: sealed, plus its keyed hash for the duplicate check and the lookup by URL. */
export interface SealedWebhookUrl {
  url: EncryptedValue;
  url_hash: string;
}

/**
 * The hash input: the organization id with the normalized URL, so the same receiver registered by
 * two organizations does not show as the same hash.
 */
function hashInput(orgId: string, url: string): string {
  return `${orgId}\n${url}`;
}

/** Seals a normalized receiver URL under the current master key, with its hash under the same key version. */
export function sealWebhookUrl(cipher: SecretCipher, orgId: string, url: string): SealedWebhookUrl {
  const sealed = cipher.encrypt(orgId, url);
  return { url: sealed, url_hash: cipher.lookupHash(WEBHOOK_URL_HASH_PURPOSE, hashInput(orgId, url), sealed.key_version) };
}

/**
 * The hashes a stored webhook for this URL may carry: one under each configured key version, the
 * current first (a document hashed before a rotation keeps its hash until it is sealed again).
 */
export function webhookUrlHashes(cipher: SecretCipher, orgId: string, url: string): string[] {
  return cipher.versions.map((version) => cipher.lookupHash(WEBHOOK_URL_HASH_PURPOSE, hashInput(orgId, url), version));
}

/**
 * The receiver URL of a stored webhook: sealed, or a string in a document written before URLs were
 * sealed. Throws SecretDecryptionError when the key that sealed it is no longer configured.
 */
export function openWebhookUrl(cipher: SecretCipher, orgId: string, webhook: { url: EncryptedValue | string }): string {
  return typeof webhook.url === 'string' ? webhook.url : cipher.decrypt(orgId, webhook.url);
}
