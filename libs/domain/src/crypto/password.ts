import type * as Argon2 from '@node-rs/argon2';

/**
 * The Argon2 native module, loaded on first use: only the services that log users in hash
 * passwords, and the gateway proxy, which imports this library too, would map it for nothing.
 */
let argon2: typeof Argon2 | undefined;
const loadArgon2 = (): typeof Argon2 => (argon2 ??= require('@node-rs/argon2') as typeof Argon2);

/** Argon2id with the library's defaults (19 MiB, 2 passes): OWASP's recommended minimum. */
export function hashPassword(password: string): Promise<string> {
  return loadArgon2().hash(password);
}

/** False (never a throw) for a wrong password or a malformed hash. */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await loadArgon2().verify(passwordHash, password);
  } catch {
    return false;
  }
}
