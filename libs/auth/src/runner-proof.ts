import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { InstanceSecrets } from '@svc/runtime';

/**
 * `X-Runner-Proof` (DECISIONS.md "Runner session budget (3)"): an HMAC-SHA256 token bound to a
 * runner id and a session id, issued by the runner control plane when a session starts and checked
 * by the gateway's stage 3 so that LLM calls made from the session are charged to its budget.
 *
 * Format: `rp1.<runner_id>.<session_id>.<mac>` where `mac` is the base64url HMAC-SHA256 of
 * `<runner_id>:<session_id>` under a key derived (HKDF-SHA256, fixed label) from the instance's
 * master encryption key. The ids travel in the token so the gateway learns which session to charge
 * from the header alone; the MAC makes them unforgeable. Tokens made under the previous master key
 * still verify while a rotation is under way.
 */
export const RUNNER_PROOF_HEADER = 'X-Runner-Proof';
export const RUNNER_PROOF_VERSION = 'rp1';

/** HKDF salt and info: a fixed label, so this key is used for nothing else. */
const HKDF_SALT = 'svc-gateway';
const HKDF_INFO = 'runner-proof/v1';
/** Runner and session ids: a prefix and alphanumerics (`run_...`, `ses_...`). */
const ID = /^[A-Za-z0-9_-]{1,128}$/;
/** The MAC as issued: 32 bytes in unpadded base64url, 43 characters (hex, base64 and padding are refused). */
const MAC_SPELLING = /^[A-Za-z0-9_-]{43}$/;

export type MasterKeys = InstanceSecrets['masterKeys'];

export interface RunnerProofBinding {
  runnerId: string;
  sessionId: string;
}

const derived = new WeakMap<Buffer, Buffer>();

/** The proof key of one master key (HKDF-SHA256, 32 bytes), computed once per key. */
export function runnerProofKey(masterKey: Buffer): Buffer {
  let key = derived.get(masterKey);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', masterKey, HKDF_SALT, HKDF_INFO, 32));
    derived.set(masterKey, key);
  }
  return key;
}

function mac(masterKey: Buffer, binding: RunnerProofBinding): Buffer {
  return createHmac('sha256', runnerProofKey(masterKey)).update(`${binding.runnerId}:${binding.sessionId}`, 'utf8').digest();
}

/** Issues the proof of a session with the current master key. */
export function issueRunnerProof(keys: MasterKeys, binding: RunnerProofBinding): string {
  if (!ID.test(binding.runnerId) || !ID.test(binding.sessionId)) throw new TypeError('Runner and session ids must be plain identifiers');
  const signature = mac(keys.current.key, binding).toString('base64url');
  return `${RUNNER_PROOF_VERSION}.${binding.runnerId}.${binding.sessionId}.${signature}`;
}

/**
 * Verifies a proof (constant-time), under the current or a previous master key. Returns the runner
 * and session it is bound to, or null when it is malformed, forged, spelled otherwise than issued
 * (the MAC in another encoding, case or padding, or with the last character's spare bits set) or,
 * with `expected` given, bound to another runner or session.
 */
export function verifyRunnerProof(keys: MasterKeys, proof: string | null | undefined, expected?: RunnerProofBinding): RunnerProofBinding | null {
  if (typeof proof !== 'string' || proof.length > 512) return null;
  const parts = proof.trim().split('.');
  if (parts.length !== 4 || parts[0] !== RUNNER_PROOF_VERSION) return null;
  const [, runnerId, sessionId, signature] = parts;
  if (!ID.test(runnerId) || !ID.test(sessionId) || !MAC_SPELLING.test(signature)) return null;
  if (expected && (expected.runnerId !== runnerId || expected.sessionId !== sessionId)) return null;
  // The spelling is compared, not the decoded bytes: 43 base64url characters carry 258 bits, so four
  // spellings (the last character's two spare bits) decode to the same 32 bytes. Only the one
  // `issueRunnerProof` writes (spare bits zero, no padding) is accepted.
  const given = Buffer.from(signature, 'ascii');
  const binding = { runnerId, sessionId };
  for (const candidate of [keys.current, ...keys.previous]) {
    if (timingSafeEqual(given, Buffer.from(mac(candidate.key, binding).toString('base64url'), 'ascii'))) return binding;
  }
  return null;
}
