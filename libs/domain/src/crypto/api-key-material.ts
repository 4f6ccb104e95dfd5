import { hash } from 'node:crypto';
import { randomAlphanumeric } from '../shared/ids';

/** Prefix of the standard gateway key (SPEC.md "Gateway key"). */
export const API_KEY_PREFIX = 'svc_sk_';
const RANDOM_LENGTH = 40;

/** A new gateway key: `svc_sk_` + 40 random alphanumerics. Shown once; only its hash is stored. */
export function generateApiKey(): string {
  return `${API_KEY_PREFIX}${randomAlphanumeric(RANDOM_LENGTH)}`;
}

/**
 * SHA-256 hex of the key: what is stored and looked up (`ApiKeyRepository.findByHash`). Every proxy
 * request hashes its key; the one-shot `crypto.hash` (Node 20.12+) skips the Hash object.
 */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** What a listing may show of a key: its prefix and the first four random characters, e.g. `svc_sk_AbC1`. */
export function keyDisplayPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + 4);
}

export function keyLastFour(key: string): string {
  return key.slice(-4);
}
