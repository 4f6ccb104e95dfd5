import { raceTimeout } from './race-timeout';

describe('raceTimeout', () => {
  const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

  it("settles with the work's value when it comes first, and never calls expired", async () => {
    const expired = jest.fn(() => 'late');
    await expect(raceTimeout(after(5, 'done'), 1_000, expired)).resolves.toBe('done');
    await after(20, null);
    expect(expired).not.toHaveBeenCalled();
  });

  it("passes the work's rejection through", async () => {
    await expect(raceTimeout(Promise.reject(new Error('refused')), 1_000, () => 'late')).rejects.toThrow('refused');
  });

  it('settles with what expired returns once the time is up', async () => {
    await expect(raceTimeout(new Promise<string>(() => undefined), 10, () => 'late')).resolves.toBe('late');
  });

  it('rejects with what expired throws', async () => {
    const expired = (): string => {
      throw new Error('timed out');
    };
    await expect(raceTimeout(new Promise<string>(() => undefined), 10, expired, { unref: true })).rejects.toThrow('timed out');
  });
});
