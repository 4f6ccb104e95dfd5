import { BreakerOpenError, BreakerState, ProviderBreaker, UpstreamFailure } from './provider-breaker';
import { BreakerRegistry } from './breaker-registry';

const fail = () => Promise.reject(new UpstreamFailure('503'));
const ok = () => Promise.resolve('ok');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function breaker(recoveryTimeoutMs = 100, failureWindowMs = 60_000) {
  const changes: BreakerState[] = [];
  const b = new ProviderBreaker('p', { failureThreshold: 5, failureWindowMs, recoveryTimeoutMs }, (_p, s) => changes.push(s));
  return { b, changes };
}

describe('ProviderBreaker', () => {
  it('opens after 5 failures in the window and then refuses without calling', async () => {
    const { b, changes } = breaker();
    for (let i = 0; i < 4; i++) await expect(b.run(fail)).rejects.toBeInstanceOf(UpstreamFailure);
    expect(b.state).toBe('closed');
    expect(b.record().failure_count).toBe(4);
    await expect(b.run(fail)).rejects.toBeInstanceOf(UpstreamFailure);
    expect(b.state).toBe('open');
    const action = jest.fn(ok);
    await expect(b.run(action)).rejects.toBeInstanceOf(BreakerOpenError);
    expect(action).not.toHaveBeenCalled();
    expect(changes).toEqual(['open']);
    const record = b.record();
    expect(record).toMatchObject({ provider: 'p', state: 'open', failure_threshold: 5, failure_window_seconds: 60, recovery_timeout_seconds: 0.1 });
    expect(record.retry_after_seconds).toBeGreaterThanOrEqual(0);
    expect(typeof record.last_failure_time).toBe('number');
    b.shutdown();
  });

  it('asks for a retry after at least 1 second while open, also past the recovery time before the half-open timer has run', async () => {
    const { b } = breaker(50);
    for (let i = 0; i < 5; i++) await expect(b.run(fail)).rejects.toThrow();
    // A busy event loop: the recovery time passes, opossum's timer cannot run yet.
    const until = Date.now() + 80;
    while (Date.now() < until);
    expect(b.state).toBe('open');
    const refused = b.run(ok);
    expect(b.record().retry_after_seconds).toBe(1);
    await expect(refused).rejects.toMatchObject({ retryAfterSeconds: 1 });
    b.shutdown();
  });

  it('does not count 4xx-like errors (anything but UpstreamFailure)', async () => {
    const { b } = breaker();
    for (let i = 0; i < 10; i++) await expect(b.run(() => Promise.reject(new Error('400')))).rejects.toThrow('400');
    expect(b.state).toBe('closed');
    expect(b.record().failure_count).toBe(0);
    b.shutdown();
  });

  it('forgets failures older than the window', async () => {
    const { b } = breaker(100, 80);
    for (let i = 0; i < 4; i++) await expect(b.run(fail)).rejects.toThrow();
    await sleep(120);
    await expect(b.run(fail)).rejects.toThrow();
    expect(b.state).toBe('closed');
    b.shutdown();
  });

  it('lets exactly one probe through when half-open; its success closes the breaker', async () => {
    const { b, changes } = breaker(50);
    for (let i = 0; i < 5; i++) await expect(b.run(fail)).rejects.toThrow();
    await sleep(80);
    expect(b.state).toBe('half_open');
    let release: () => void = () => undefined;
    const probe = b.run(() => new Promise<string>((resolve) => (release = () => resolve('probe'))));
    await expect(b.run(ok)).rejects.toBeInstanceOf(BreakerOpenError);
    release();
    await expect(probe).resolves.toBe('probe');
    expect(b.state).toBe('closed');
    await expect(b.run(ok)).resolves.toBe('ok');
    expect(changes).toEqual(['open', 'half_open', 'closed']);
    b.shutdown();
  });

  it('re-opens for another recovery period when the probe fails', async () => {
    const { b } = breaker(50);
    for (let i = 0; i < 5; i++) await expect(b.run(fail)).rejects.toThrow();
    await sleep(80);
    await expect(b.run(fail)).rejects.toBeInstanceOf(UpstreamFailure);
    expect(b.state).toBe('open');
    await expect(b.run(ok)).rejects.toBeInstanceOf(BreakerOpenError);
    await sleep(80);
    await expect(b.run(ok)).resolves.toBe('ok');
    b.shutdown();
  });
});

describe('ProviderBreaker probe released unjudged', () => {
  it('keeps the breaker half-open when the probe ends without an answer (the client went away)', async () => {
    const { b, changes } = breaker(50);
    for (let i = 0; i < 5; i++) await expect(b.run(fail)).rejects.toThrow();
    await sleep(80);
    expect(b.state).toBe('half_open');
    await expect(b.run(() => Promise.reject(new Error('client closed the request')))).rejects.toThrow('client closed');
    expect(b.state).toBe('half_open');
    // The probe slot is free again: the next call is the probe, and its success closes.
    await expect(b.run(ok)).resolves.toBe('ok');
    expect(b.state).toBe('closed');
    expect(changes).toEqual(['open', 'half_open', 'closed']);
    b.shutdown();
  });
});

describe('ProviderBreaker admit and settle (a streamed call, judged at its end)', () => {
  it('holds the probe until it is settled: others are refused meanwhile, and its first outcome decides', async () => {
    const { b, changes } = breaker(50);
    for (let i = 0; i < 5; i++) await expect(b.run(fail)).rejects.toThrow();
    await sleep(80);
    const probe = b.admit();
    // The headers came long ago; the stream has not ended.
    expect(() => b.admit()).toThrow(BreakerOpenError);
    await expect(b.run(ok)).rejects.toBeInstanceOf(BreakerOpenError);
    expect(b.state).toBe('half_open');
    probe.settle('failure');
    probe.settle('success');
    expect(b.state).toBe('open');
    expect(b.record().failure_count).toBe(6);
    await sleep(80);
    const next = b.admit();
    next.settle('success');
    next.settle('failure');
    expect(b.state).toBe('closed');
    expect(changes).toEqual(['open', 'half_open', 'open', 'half_open', 'closed']);
    b.shutdown();
  });

  it('an unjudged probe frees the slot and leaves the breaker half-open', async () => {
    const { b } = breaker(50);
    for (let i = 0; i < 5; i++) await expect(b.run(fail)).rejects.toThrow();
    await sleep(80);
    b.admit().settle('unjudged');
    expect(b.state).toBe('half_open');
    expect(b.record().failure_count).toBe(5);
    b.admit().settle('success');
    expect(b.state).toBe('closed');
    b.shutdown();
  });
});

describe('BreakerRegistry', () => {
  it('judges every known provider, called or not', async () => {
    const registry = new BreakerRegistry({ failureThreshold: 1, failureWindowMs: 60_000, recoveryTimeoutMs: 60_000 }, undefined, ['a', 'b', 'c']);
    expect(registry.records().map((r) => [r.provider, r.state, r.failure_count])).toEqual([
      ['a', 'closed', 0],
      ['b', 'closed', 0],
      ['c', 'closed', 0],
    ]);
    await expect(registry.for('a').run(fail)).rejects.toThrow();
    // One provider down of three is degraded, not unhealthy.
    expect(registry.overall()).toBe('degraded');
    await expect(registry.for('b').run(fail)).rejects.toThrow();
    await expect(registry.for('c').run(fail)).rejects.toThrow();
    expect(registry.overall()).toBe('unhealthy');
    expect(registry.records()).toHaveLength(3);
    registry.shutdown();
  });

  it('reports healthy, degraded and unhealthy from the breakers', async () => {
    const registry = new BreakerRegistry({ failureThreshold: 1, failureWindowMs: 60_000, recoveryTimeoutMs: 60_000 });
    expect(registry.overall()).toBe('healthy');
    await registry.for('a').run(ok);
    await expect(registry.for('b').run(fail)).rejects.toThrow();
    expect(registry.overall()).toBe('degraded');
    await expect(registry.for('a').run(fail)).rejects.toThrow();
    expect(registry.overall()).toBe('unhealthy');
    expect(registry.records().map((r) => r.provider).sort()).toEqual(['a', 'b']);
    registry.shutdown();
  });
});
