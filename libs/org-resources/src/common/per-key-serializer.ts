/**
 * Runs the tasks of one key one after the other, in this process (tasks of different keys run
 * freely): a check-then-write per organization (count, then insert) cannot interleave with
 * another one of the same organization. A failed task does not stop the next.
 */
export class PerKeySerializer {
  /** The settled end of each key's chain; removed once the chain is idle. */
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const result = (this.tails.get(key) ?? Promise.resolve()).then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
