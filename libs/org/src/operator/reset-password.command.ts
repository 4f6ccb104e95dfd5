import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  DataDirLockedError,
  DocumentStore,
  IndexFailure,
  openDocumentStore,
  randomAlphanumeric,
  RefreshTokenRepository,
  RevokedAccessTokenRepository,
  UserRepository,
} from '@svc/domain';
import { AppConfig, ConfigError, createLogger, createRedis, loadConfig, Logger, waitForRedis } from '@svc/platform';
import { LOGIN_FAILURE_WINDOW_SECONDS, LoginThrottle } from '../auth/login-throttle';
import { HiddenPrompt, LineResult, PromptInput } from './password-prompt';
import { PASSWORD_MAX_LENGTH, PasswordReset, PasswordResetError, passwordProblem, resetPassword } from './reset-password.usecase';

export interface CommandIo {
  /** A terminal (`isTTY`, `setRawMode`) is prompted with echo off; anything else is read as a pipe. */
  stdin: PromptInput;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/**
 * Exit codes: 0 done, 1 refused or failed (unknown e-mail, store in use, bad configuration), 2 bad
 * usage (or a typed password refused), 130 interrupted with Ctrl-C at the prompt.
 */
const FAILED = 1;
const USAGE = 2;
const INTERRUPTED = 130;
const REDIS_WAIT_MS = 5_000;
/** More than any password it accepts, so a file piped by mistake is refused rather than read. */
const MAX_STDIN_BYTES = PASSWORD_MAX_LENGTH * 4 + 2;

export const RESET_PASSWORD_USAGE = `Usage: reset-password --email <email> [--password-stdin]

Sets a new password for a user (e.g. the Owner created at the first start), ends all of the
user's sessions and clears the user's login lockouts. Reads the same configuration as the service
(DATA_DIR, or MONGODB_URI and REDIS_URL).

  --email <email>     the user's e-mail
  --password-stdin    read the new password from stdin (one line, ${PASSWORD_MAX_LENGTH} characters at most);
                      at a terminal it is asked for twice, not echoed; without the flag a
                      password is generated and printed once
  --help              this text

The password is never taken as an argument: arguments land in shell history and process lists.
With the embedded store (no MONGODB_URI) stop the service first: it holds DATA_DIR.
`;

class UsageError extends Error {}
class Interrupted extends Error {}

interface Options {
  email: string;
  passwordStdin: boolean;
}

function parseArgs(argv: readonly string[]): Options | 'help' {
  let email: string | undefined;
  let passwordStdin = false;
  for (let i = 0; i < argv.length; i += 1) {
    // `--email=a@b.c` as well as `--email a@b.c`.
    const equals = argv[i].startsWith('--') ? argv[i].indexOf('=') : -1;
    const flag = equals > 0 ? argv[i].slice(0, equals) : argv[i];
    const inline = equals > 0 ? argv[i].slice(equals + 1) : undefined;
    if (flag === '--help' || flag === '-h') return 'help';
    if (flag === '--password-stdin' && inline === undefined) passwordStdin = true;
    else if (flag === '--email') {
      email = inline ?? argv[i + 1];
      if (inline === undefined) i += 1;
      if (!email || email.startsWith('--')) throw new UsageError('--email needs a value: --email <email>');
    } else if (flag === '--password' || flag === '-p') {
      throw new UsageError('the password is not taken as an argument (it would land in shell history and process lists): pipe it with --password-stdin, or leave that out to have one generated');
    } else throw new UsageError(`unknown argument ${argv[i]}`);
  }
  if (!email) throw new UsageError('--email is required: the e-mail of the user whose password to reset');
  return { email, passwordStdin };
}

async function readPassword(stdin: CommandIo['stdin']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > MAX_STDIN_BYTES) throw new UsageError(`stdin holds more than a password (over ${MAX_STDIN_BYTES} bytes)`);
    chunks.push(buffer);
  }
  // One line: the newline `echo` or a file ends it with is not part of the password.
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** At a terminal: the password twice, not echoed. One out of bounds is returned to be refused as from a pipe. */
async function typePassword(io: CommandIo): Promise<string> {
  const prompt = new HiddenPrompt(io.stdin, io.stderr, PASSWORD_MAX_LENGTH);
  try {
    const first = typedLine(await prompt.ask('New password: '));
    if (passwordProblem(first)) return first;
    if (typedLine(await prompt.ask('Repeat it: ')) !== first) throw new UsageError('the two passwords typed differ; nothing was changed');
    return first;
  } finally {
    await prompt.close();
  }
}

function typedLine(result: LineResult): string {
  if (result.kind === 'line') return result.line;
  if (result.kind === 'interrupt') throw new Interrupted();
  if (result.kind === 'too_long') throw new UsageError(`the new password must be at most ${PASSWORD_MAX_LENGTH} characters; nothing was changed`);
  throw new UsageError('the input ended before a password was typed; nothing was changed');
}

/**
 * `npm run reset-password` and `node reset-password.js` in the org-api image (docs/deploy-install.md,
 * "Lost the Owner's password"): resets a user's password on the service's own stores. Returns the
 * exit code; every outcome is a line on stdout (done) or stderr (refused).
 */
export async function runResetPassword(
  argv: readonly string[],
  io: CommandIo,
  env?: NodeJS.ProcessEnv,
  /** The store it works on (tests give one whose index build fails); default: the service's own. */
  openStore: (config: AppConfig, logger: Logger) => Promise<DocumentStore> = openDocumentStore,
): Promise<number> {
  const fail = (message: string, code = FAILED) => {
    io.stderr.write(`reset-password: ${message}\n`);
    return code;
  };
  let options: Options | 'help';
  let config: AppConfig;
  try {
    options = parseArgs(argv);
    if (options === 'help') {
      io.stdout.write(RESET_PASSWORD_USAGE);
      return 0;
    }
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof UsageError) return fail(`${error.message}\n\n${RESET_PASSWORD_USAGE}`, USAGE);
    if (error instanceof ConfigError) return fail(error.message);
    throw error;
  }
  const dataDir = resolve(config.DATA_DIR);
  if (!config.MONGODB_URI && !existsSync(dataDir)) {
    return fail(`DATA_DIR ${dataDir} does not exist: run this where the service keeps its data, with the service's DATA_DIR (or its MONGODB_URI)`);
  }
  const typed = options.passwordStdin && io.stdin.isTTY === true;
  let password: string;
  try {
    if (!options.passwordStdin) password = randomAlphanumeric(24);
    else password = typed ? await typePassword(io) : await readPassword(io.stdin);
  } catch (error) {
    if (error instanceof UsageError) return fail(error.message, USAGE);
    if (error instanceof Interrupted) return fail('interrupted (Ctrl-C); nothing was changed', INTERRUPTED);
    throw error;
  }
  const problem = passwordProblem(password);
  if (problem) return fail(`the new password ${problem}; nothing was changed`, USAGE);

  // Only warnings reach the operator's terminal (on stderr), unless debugging was asked for.
  const logger = createLogger({ LOG_LEVEL: config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace' ? config.LOG_LEVEL : 'warn' }, 'reset-password', io.stderr);
  let store: DocumentStore;
  try {
    store = await openStore(config, logger);
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      const holder = error.holder?.pid ? `process ${error.holder.pid}${error.holder.started_at ? `, since ${error.holder.started_at}` : ''}` : 'another process';
      return fail(`the service is running on DATA_DIR ${dataDir} (${holder}): stop it, then run this again. The embedded store allows one process per directory.`);
    }
    return fail(`cannot open the document store (${config.MONGODB_URI ? 'MONGODB_URI' : `DATA_DIR ${dataDir}`}): ${error instanceof Error ? error.message : String(error)}`);
  }

  let reset: PasswordReset;
  try {
    const repos = { users: new UserRepository(store), refreshTokens: new RefreshTokenRepository(store), revokedAccessTokens: new RevokedAccessTokenRepository(store) };
    await store.ready();
    // The users' unique e-mail index missing, an e-mail may name two users: refused before any change.
    const unbuilt = store.indexFailures?.() ?? [];
    if (unbuilt.length) return fail(indexProblem(unbuilt));
    reset = await resetPassword(repos, options.email, password);
  } catch (error) {
    if (error instanceof PasswordResetError) {
      const where = config.MONGODB_URI ? 'in MongoDB (MONGODB_URI)' : `in the embedded store at ${dataDir} (DATA_DIR)`;
      return fail(error.reason === 'unknown_user' ? `${error.message} ${where}; nothing was changed` : `${error.message}; nothing was changed`, error.reason === 'invalid_password' ? USAGE : FAILED);
    }
    return fail(`the reset did not complete (${error instanceof Error ? error.message : String(error)}); run it again: repeating it is safe`);
  } finally {
    await store.close();
  }
  const lockouts = await clearLockouts(config, logger, reset.email);
  io.stdout.write(
    [
      `reset-password: ${reset.email} (${reset.userId}, ${reset.role} of ${reset.orgId})`,
      options.passwordStdin ? `  password        set from ${typed ? 'the terminal' : 'stdin'}` : `  password        generated (shown once): ${password}`,
      `  sessions        ${reset.sessionsEnded} signed-in session(s) ended; access tokens of ${reset.loginsRevoked} recent login(s) revoked`,
      `  login lockouts  ${lockouts}`,
      `  store           ${config.MONGODB_URI ? 'mongodb (MONGODB_URI)' : `embedded file store in ${dataDir}`}`,
      config.MONGODB_URI ? '' : 'Start the service again, then log in with the new password.',
    ]
      .filter(Boolean)
      .join('\n') + '\n',
  );
  return 0;
}

/** The indexes MongoDB could not build, as the operator reads them (the service logs and retries the same failure). */
function indexProblem(failures: readonly IndexFailure[]): string {
  const lines = failures.map(({ collection, indexes, error }) => `  ${collection}: ${indexes.join(', ')}: ${error instanceof Error ? error.message : String(error)}`);
  return [
    'MongoDB (MONGODB_URI) could not build the indexes the reset relies on; nothing was changed:',
    ...lines,
    'The service logs the same failure ("could not create the indexes of a collection"): fix its cause (duplicate documents',
    'under a unique index, a user without the createIndex privilege), then run this again (docs/deploy-install.md, "Lost the Owner\'s password").',
  ].join('\n');
}

/** Clears the e-mail's lockouts where they are shared (Redis); says where they are otherwise. */
async function clearLockouts(config: AppConfig, logger: Logger, email: string): Promise<string> {
  const minutes = LOGIN_FAILURE_WINDOW_SECONDS / 60;
  if (!config.REDIS_URL) {
    return config.MONGODB_URI
      ? `not reachable from here: without REDIS_URL each running replica counts them in its memory (they end within ${minutes} minutes, or on a restart)`
      : 'none stored: the embedded mode counts them in the service\'s memory, which its restart clears';
  }
  const redis = createRedis(config.REDIS_URL, 'hot-path', 'reset-password');
  try {
    await waitForRedis(redis, REDIS_WAIT_MS);
    const cleared = await new LoginThrottle(redis, logger).clear(email);
    return `${cleared} cleared in Redis`;
  } catch (error) {
    return `NOT cleared: Redis (REDIS_URL) did not answer (${error instanceof Error ? error.message : String(error)}); they end within ${minutes} minutes`;
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}
