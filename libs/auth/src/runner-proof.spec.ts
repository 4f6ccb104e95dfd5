import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { issueRunnerProof, MasterKeys, runnerProofKey, verifyRunnerProof } from './runner-proof';

const keys = (current = randomBytes(32), previous: Buffer[] = []): MasterKeys => ({
  current: { version: previous.length + 1, key: current },
  previous: previous.map((key, i) => ({ version: previous.length - i, key })),
});
const binding = { runnerId: 'run_0Ov3rK8dQabcdefghijklmno', sessionId: 'ses_0Ov3rK8dQpqrstuvwxyz0123' };

describe('runner proof (X-Runner-Proof)', () => {
  it('is rp1.<runner>.<session>.<HMAC-SHA256 of runner:session under an HKDF-derived key>', () => {
    const master = randomBytes(32);
    const proof = issueRunnerProof(keys(master), binding);
    const derived = Buffer.from(hkdfSync('sha256', master, 'svc-gateway', 'runner-proof/v1', 32));
    const mac = createHmac('sha256', derived).update(`${binding.runnerId}:${binding.sessionId}`).digest('base64url');
    expect(proof).toBe(`rp1.${binding.runnerId}.${binding.sessionId}.${mac}`);
    expect(runnerProofKey(master).equals(master)).toBe(false);
  });

  it('verifies to the runner and session it is bound to, with or without an expected binding', () => {
    const k = keys();
    const proof = issueRunnerProof(k, binding);
    expect(verifyRunnerProof(k, proof)).toEqual(binding);
    expect(verifyRunnerProof(k, proof, binding)).toEqual(binding);
    expect(verifyRunnerProof(k, proof, { ...binding, sessionId: 'ses_other' })).toBeNull();
    expect(verifyRunnerProof(k, proof, { ...binding, runnerId: 'run_other' })).toBeNull();
  });

  it('refuses forged, tampered and malformed proofs', () => {
    const k = keys();
    const proof = issueRunnerProof(k, binding);
    const [version, runner, , mac] = proof.split('.');
    expect(verifyRunnerProof(k, `${version}.${runner}.ses_someoneelse.${mac}`)).toBeNull();
    expect(verifyRunnerProof(keys(), proof)).toBeNull();
    const flipped = `${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
    expect(verifyRunnerProof(k, proof.replace(mac, flipped))).toBeNull();
    for (const bad of [undefined, null, '', 'rp1', 'rp2.a.b.c', `${proof}.x`, proof.replace('rp1', 'rp0'), 'rp1.run_1.ses_1.short', 'x'.repeat(600)]) {
      expect(verifyRunnerProof(k, bad)).toBeNull();
    }
  });

  it('accepts the MAC only as issued: one spelling of the same 32 bytes, refused in any other', () => {
    const k = keys();
    const proof = issueRunnerProof(k, binding);
    const prefix = proof.slice(0, proof.lastIndexOf('.') + 1);
    const mac = proof.slice(prefix.length);
    const bytes = Buffer.from(mac, 'base64url');
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(mac[42]);
    // The last character carries 2 spare bits: three other characters decode to the same bytes.
    const spare = [1, 2, 3].map((bits) => `${mac.slice(0, 42)}${alphabet[last ^ bits]}`);
    for (const variant of spare) expect(Buffer.from(variant, 'base64url').equals(bytes)).toBe(true);
    const variants = [
      ...spare,
      `${mac}=`,
      bytes.toString('base64'),
      bytes.toString('hex'),
      bytes.toString('hex').toUpperCase(),
      mac.toUpperCase(),
      mac.toLowerCase(),
      ` ${mac}`,
      `${mac.slice(0, 21)} ${mac.slice(21)}`,
    ].filter((variant) => variant !== mac);
    expect(variants.length).toBeGreaterThanOrEqual(9);
    for (const variant of variants) expect({ variant, verified: verifyRunnerProof(k, `${prefix}${variant}`) }).toEqual({ variant, verified: null });
    expect(verifyRunnerProof(k, `${prefix}${mac}`)).toEqual(binding);
  });

  it('keeps verifying proofs of the previous master key during a rotation', () => {
    const old = randomBytes(32);
    const proof = issueRunnerProof(keys(old), binding);
    expect(verifyRunnerProof(keys(randomBytes(32), [old]), proof)).toEqual(binding);
    expect(verifyRunnerProof(keys(randomBytes(32)), proof)).toBeNull();
  });

  it('refuses to bind ids that could break the format', () => {
    expect(() => issueRunnerProof(keys(), { runnerId: 'run.1', sessionId: 'ses_1' })).toThrow(TypeError);
    expect(() => issueRunnerProof(keys(), { runnerId: 'run_1', sessionId: '' })).toThrow(TypeError);
  });
});
