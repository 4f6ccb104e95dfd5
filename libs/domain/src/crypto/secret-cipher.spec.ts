import { createHash, createHmac, randomBytes } from 'node:crypto';
import { SecretCipher, SecretDecryptionError } from './secret-cipher';

const key1 = randomBytes(32);
const key2 = randomBytes(32);

describe('SecretCipher', () => {
  const cipher = new SecretCipher({ current: { version: 1, key: key1 } });

  it('round-trips a secret, producing base64 fields and the key version', () => {
    const sealed = cipher.encrypt('org_a', 'sk-live-secret');
    expect(sealed.key_version).toBe(1);
    expect(Buffer.from(sealed.iv, 'base64')).toHaveLength(12);
    expect(Buffer.from(sealed.tag, 'base64')).toHaveLength(16);
    expect(sealed.ciphertext).not.toContain('sk-live');
    expect(cipher.decrypt('org_a', sealed)).toBe('sk-live-secret');
  });

  it('uses a fresh IV each time', () => {
    const a = cipher.encrypt('org_a', 'same');
    const b = cipher.encrypt('org_a', 'same');
    expect(a.iv).not.toBe(b.iv);
    expect(a.ciphertext).not.toBe(b.ciphertext);
  });

  it('fails for another organization (the org id is the associated data)', () => {
    const sealed = cipher.encrypt('org_a', 'sk-live-secret');
    expect(() => cipher.decrypt('org_b', sealed)).toThrow(SecretDecryptionError);
  });

  it('fails when the ciphertext or the tag is tampered with', () => {
    const sealed = cipher.encrypt('org_a', 'sk-live-secret');
    const flipped = Buffer.from(sealed.ciphertext, 'base64');
    flipped[0] ^= 1;
    expect(() => cipher.decrypt('org_a', { ...sealed, ciphertext: flipped.toString('base64') })).toThrow(SecretDecryptionError);
    const tag = Buffer.from(sealed.tag, 'base64');
    tag[3] ^= 1;
    expect(() => cipher.decrypt('org_a', { ...sealed, tag: tag.toString('base64') })).toThrow(SecretDecryptionError);
  });

  it('decrypts with previous keys after a rotation and re-seals with the current one', () => {
    const old = cipher.encrypt('org_a', 'sk-old');
    const rotated = new SecretCipher({ current: { version: 2, key: key2 }, previous: [{ version: 1, key: key1 }] });
    expect(rotated.currentVersion).toBe(2);
    expect(rotated.decrypt('org_a', old)).toBe('sk-old');
    expect(rotated.needsReencryption(old)).toBe(true);
    const resealed = rotated.reencrypt('org_a', old);
    expect(resealed.key_version).toBe(2);
    expect(rotated.needsReencryption(resealed)).toBe(false);
    expect(rotated.decrypt('org_a', resealed)).toBe('sk-old');
  });

  it('refuses a record sealed with a key it does not have', () => {
    const newer = new SecretCipher({ current: { version: 2, key: key2 } });
    expect(() => cipher.decrypt('org_a', newer.encrypt('org_a', 'x'))).toThrow(/version 2/);
  });

  it('validates its keys', () => {
    expect(() => new SecretCipher({ current: { version: 1, key: randomBytes(16) } })).toThrow(/32 bytes/);
    expect(() => new SecretCipher({ current: { version: 0, key: key1 } })).toThrow(/positive integer/);
    expect(() => new SecretCipher({ current: { version: 1, key: key1 }, previous: [{ version: 1, key: key2 }] })).toThrow(/twice/);
  });

  describe('lookupHash', () => {
    const rotated = new SecretCipher({ current: { version: 2, key: key2 }, previous: [{ version: 1, key: key1 }] });

    it('is an HMAC under a key derived from the master key: stable for that key, unlike a plain or master-keyed hash', () => {
      const hash = cipher.lookupHash('webhook-url', 'https://hooks.example.com/a?token=t');
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      expect(new SecretCipher({ current: { version: 1, key: key1 } }).lookupHash('webhook-url', 'https://hooks.example.com/a?token=t')).toBe(hash);
      expect(hash).not.toBe(createHash('sha256').update('https://hooks.example.com/a?token=t').digest('hex'));
      expect(hash).not.toBe(createHmac('sha256', key1).update('https://hooks.example.com/a?token=t').digest('hex'));
      expect(cipher.lookupHash('other-purpose', 'https://hooks.example.com/a?token=t')).not.toBe(hash);
    });

    it('hashes under the current key by default and under any configured version on request', () => {
      expect(rotated.versions).toEqual([2, 1]);
      expect(rotated.lookupHash('webhook-url', 'v', 1)).toBe(cipher.lookupHash('webhook-url', 'v'));
      expect(rotated.lookupHash('webhook-url', 'v')).not.toBe(cipher.lookupHash('webhook-url', 'v'));
      expect(() => cipher.lookupHash('webhook-url', 'v', 2)).toThrow(SecretDecryptionError);
    });
  });
});
