import { PeriodicTask } from './periodic-task';

describe('PeriodicTask', () => {
  it('joins a pass asked for while one is under way, and turns a failure into onError`s result', async () => {
    const task = new PeriodicTask<string>((err) => `failed: ${(err as Error).message}`);
    let runs = 0;
    let finish!: () => void;
    const pass = () =>
      new Promise<string>((resolve) => {
        runs += 1;
        finish = () => resolve(`pass ${runs}`);
      });
    const first = task.once(pass);
    const joined = task.once(pass);
    finish();
    expect(await Promise.all([first, joined])).toEqual(['pass 1', 'pass 1']);
    expect(runs).toBe(1);
    expect(await task.once(() => Promise.reject(new Error('store away')))).toBe('failed: store away');
  });

  it('runs every interval until stopped, and stop waits for the pass under way', async () => {
    const task = new PeriodicTask<number>(() => -1);
    let passes = 0;
    let ended = false;
    task.every(10, async () => {
      passes += 1;
      await new Promise((resolve) => setTimeout(resolve, 30));
      ended = true;
      return passes;
    });
    await new Promise((resolve) => setTimeout(resolve, 15));
    await task.stop();
    expect(ended).toBe(true);
    const after = passes;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(passes).toBe(after);
    task.every(0, async () => 1);
    await task.stop();
  });
});
