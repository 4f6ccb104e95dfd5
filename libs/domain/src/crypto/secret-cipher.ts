import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/** An encrypted value as stored: base64 fields plus the version of the master key that sealed it. */
export interface EncryptedValue {
  ciphertext: string;
  iv: string;
  tag: string;
  key_version: number;
}

export interface MasterKey {
  version: number;
  /** 32 bytes. */
  key: Buffer;
}

export interface MasterKeys {
  current: MasterKey;
  /** Older keys that still decrypt (master key rotation). */
  previous?: MasterKey[];
}

export class SecretDecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretDecryptionError';
  }
}

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM for stored secrets (provider keys, webhook signing secrets, chat webhook URLs).
 * The organization id is the associated data, so a record copied into another organization does
 * not decrypt; each record names its key version, so the master key can rotate while older
 * records still decrypt (and `needsReencryption` tells which to re-seal).
 */
export class SecretCipher {
  private readonly keys = new Map<number, Buffer>();
  private readonly current: MasterKey;
  /** HKDF-derived HMAC keys, by `${purpose} ${version}`. */
  private readonly derived = new Map<string, Buffer>();

  constructor(keys: MasterKeys) {
    for (const { version, key } of [keys.current, ...(keys.previous ?? [])]) {
      if (!Number.isInteger(version) || version < 1) throw new Error(`Master key version must be a positive integer, got ${version}`);
      if (key.length !== 32) throw new Error(`Master key version ${version} must be 32 bytes, got ${key.length}`);
      if (this.keys.has(version)) throw new Error(`Master key version ${version} is given twice`);
      this.keys.set(version, key);
    }
    this.current = keys.current;
  }

  get currentVersion(): number {
    return this.current.version;
  }

  /** The versions of every configured key, the current one first. */
  get versions(): number[] {
    return [this.current.version, ...[...this.keys.keys()].filter((version) => version !== this.current.version)];
  }

  /**
   * A lookup hash: HMAC-SHA256 (hex) of `value` under a key derived by HKDF-SHA256 (info = `purpose`)
   * from the master key of `version` (default the current one). A store holding it cannot test guesses
   * without the master key, unlike a plain hash. Another key version gives another hash: a lookup
   * after a rotation computes it under every configured version (`versions`).
   */
  lookupHash(purpose: string, value: string, version = this.current.version): string {
    const id = `${purpose} ${version}`;
    let key = this.derived.get(id);
    if (!key) {
      const master = this.keys.get(version);
      if (!master) throw new SecretDecryptionError(`No master key with version ${version} is configured`);
      key = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), Buffer.from(purpose, 'utf8'), 32));
      this.derived.set(id, key);
    }
    return createHmac('sha256', key).update(value, 'utf8').digest('hex');
  }

  encrypt(orgId: string, plaintext: string): EncryptedValue {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.current.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(orgId, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return {
      ciphertext: ciphertext.toString('base64'),
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      key_version: this.current.version,
    };
  }

  /** Throws SecretDecryptionError on an unknown key version, tampering, or another organization's record. */
  decrypt(orgId: string, record: EncryptedValue): string {
    const key = this.keys.get(record.key_version);
    if (!key) throw new SecretDecryptionError(`No master key with version ${record.key_version} is configured`);
    const iv = Buffer.from(record.iv, 'base64');
    const tag = Buffer.from(record.tag, 'base64');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretDecryptionError('Malformed encrypted record');
    try {
      const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(orgId, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(record.ciphertext, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretDecryptionError('The encrypted record does not decrypt for this organization (tampered or misplaced)');
    }
  }

  needsReencryption(record: EncryptedValue): boolean {
    return record.key_version !== this.current.version;
  }

  /** Decrypts with whichever key sealed it and seals again with the current key. */
  reencrypt(orgId: string, record: EncryptedValue): EncryptedValue {
    return this.encrypt(orgId, this.decrypt(orgId, record));
  }
}
