import pino from 'pino';
import { createRedis, OrgApiError, Redis, waitForRedis } from '@svc/platform';
import { LoginThrottle } from './login-throttle';
import { OrgRateLimiter } from './org-rate-limiter';

const logger = pino({ level: 'silent' });
const unique = () => `org_${Math.random().toString(36).slice(2)}`;

describe.each(['memory', 'redis'] as const)('throttling (%s)', (mode) => {
  let redis: Redis | null = null;
  beforeAll(async () => {
    if (mode === 'redis') {
      redis = createRedis(process.env.TEST_REDIS_URL as string, 'hot-path', 'org-throttle-spec');
      await waitForRedis(redis);
    }
  });
  afterAll(async () => {
    await redis?.quit();
  });

  it('counts requests per organization per minute and refuses above the limit', async () => {
    const limiter = new OrgRateLimiter(redis, 3, logger);
    const org = unique();
    const start = Date.UTC(2030, 0, 1, 12, 0, 10);
    const decisions = [];
    for (let i = 0; i < 4; i += 1) decisions.push(await limiter.hit(org, start + i));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions[3]).toMatchObject({ count: 4, limit: 3, remaining: 0, retryAfter: 50, resetAt: Date.UTC(2030, 0, 1, 12, 1) / 1000 });
    expect((await limiter.hit(unique(), start)).allowed).toBe(true);
    expect((await limiter.hit(org, start + 60_000)).count).toBe(1);
  });

  it('locks an e-mail and address out after 5 failures, with retry_after, until a success clears it', async () => {
    const throttle = new LoginThrottle(redis, logger);
    const email = `${unique()}@example.com`;
    for (let i = 0; i < 5; i += 1) await throttle.attempt(email, '10.0.0.1');
    const error = await throttle.attempt(email, '10.0.0.1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrgApiError);
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMIT_EXCEEDED' });
    const retryAfter = (error as OrgApiError).details.retry_after as number;
    expect(retryAfter).toBeGreaterThan(880);
    expect(retryAfter).toBeLessThanOrEqual(900);
    await expect(throttle.attempt(email, '10.0.0.2')).resolves.toBeUndefined();
    await expect(throttle.attempt(email.toUpperCase(), '10.0.0.1')).rejects.toBeInstanceOf(OrgApiError);
    await throttle.recordSuccess(email, '10.0.0.1');
    await expect(throttle.attempt(email, '10.0.0.1')).resolves.toBeUndefined();
  });

  it("clears an e-mail's lockouts from every address (an operator's reset), and no other e-mail's", async () => {
    const throttle = new LoginThrottle(redis, logger);
    const email = `${unique()}@example.com`;
    const other = `${unique()}@example.com`;
    for (const [address, ip] of [[email, '10.0.0.1'], [email, '10.0.0.2'], [other, '10.0.0.1']]) {
      for (let i = 0; i < 6; i += 1) await throttle.attempt(address, ip).catch(() => undefined);
    }
    // With Redis, the reset tool is another process: its own throttle finds the counts there.
    const tool = mode === 'redis' ? new LoginThrottle(redis, logger) : throttle;
    expect(await tool.clear(` ${email.toUpperCase()}`)).toBe(2);
    await expect(throttle.attempt(email, '10.0.0.1')).resolves.toBeUndefined();
    await expect(throttle.attempt(email, '10.0.0.2')).resolves.toBeUndefined();
    await expect(throttle.attempt(other, '10.0.0.1')).rejects.toBeInstanceOf(OrgApiError);
    expect(await tool.clear(`${unique()}@example.com`)).toBe(0);
  });

  it('holds the limit for parallel attempts: of 50 at once, 5 pass', async () => {
    const throttle = new LoginThrottle(redis, logger);
    const email = `${unique()}@example.com`;
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => throttle.attempt(email, '10.0.0.9').then(() => 'counted', () => 'refused')));
    expect(outcomes.filter((outcome) => outcome === 'counted')).toHaveLength(5);
  });
});
