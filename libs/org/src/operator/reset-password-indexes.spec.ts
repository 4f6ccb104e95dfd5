import { Readable } from 'node:stream';
import { DocumentStore, unreachableMongoStore } from '@svc/domain';
import { runResetPassword } from './reset-password.command';

/**
 * A MongoDB store whose indexes could not be built (MongoDB logs it and retries; `ready()` does not
 * reject): the reset is refused with the indexes named, before anything is read or changed.
 */
describe('reset-password on a MongoDB store whose indexes could not be built', () => {
  it('exits 1 naming the collections and indexes, and changes nothing', async () => {
    const out: string[] = [];
    const err: string[] = [];
    let store: DocumentStore | undefined;
    const stdin = Object.assign(Readable.from([]), { isTTY: false });
    const code = await runResetPassword(
      ['--email', 'owner@example.com'],
      { stdin, stdout: { write: (text: string) => out.push(text) }, stderr: { write: (text: string) => err.push(text) } },
      { MONGODB_URI: 'mongodb://127.0.0.1:1/svc_test', LOG_LEVEL: 'silent' },
      async () => (store = unreachableMongoStore()),
    );
    const stderr = err.join('');
    expect({ code, stdout: out.join('') }).toEqual({ code: 1, stdout: '' });
    expect(stderr).toMatch(/^reset-password: MongoDB \(MONGODB_URI\) could not build the indexes the reset relies on; nothing was changed:\n/);
    expect(stderr).toMatch(/^ {2}users: email_unique.*buffering timed out/m);
    expect(stderr).toContain('could not create the indexes of a collection');
    // Refused before the reset: no operation on the users was sent.
    expect(stderr).not.toMatch(/users\.findOne|the reset did not complete/);
    expect(store?.indexFailures?.().map((failure) => failure.collection).sort()).toEqual(['refresh_tokens', 'revoked_access_tokens', 'users']);
  });
});
