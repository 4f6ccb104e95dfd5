import { createHash } from 'node:crypto';
import { generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour } from './api-key-material';
import { hashPassword, verifyPassword } from './password';

describe('API key material', () => {
  it('generates svc_sk_ keys with 40 random alphanumerics, all different', () => {
    const keys = Array.from({ length: 200 }, () => generateApiKey());
    for (const key of keys) expect(key).toMatch(/^svc_sk_[A-Za-z0-9]{40}$/);
    expect(new Set(keys).size).toBe(keys.length);
    // Every alphanumeric class shows up over 8,000 random characters.
    const chars = keys.map((k) => k.slice(7)).join('');
    expect(chars).toMatch(/[A-Z]/);
    expect(chars).toMatch(/[a-z]/);
    expect(chars).toMatch(/[0-9]/);
  });

  it('hashes with SHA-256 hex', () => {
    expect(hashApiKey('svc_sk_abc')).toBe(createHash('sha256').update('svc_sk_abc').digest('hex'));
    expect(hashApiKey('svc_sk_abc')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('shows a display prefix and the last four characters', () => {
    const key = 'svc_sk_AbC1defghijklmnopqrstuvwxyz0123456789WXYZ';
    expect(keyDisplayPrefix(key)).toBe('svc_sk_AbC1');
    expect(keyLastFour(key)).toBe('WXYZ');
  });
});

describe('password hashing', () => {
  it('hashes with argon2id and verifies only the right password', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(hash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(hash, 'correct horse battery staple')).toBe(true);
    expect(await verifyPassword(hash, 'wrong password')).toBe(false);
    expect(await verifyPassword('not-a-hash', 'anything')).toBe(false);
  });
});
