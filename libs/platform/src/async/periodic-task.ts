/**
 * A background pass run now and then (a sweep): passes never overlap (a pass asked for while one
 * is under way joins it), a failed pass is turned into a result by `onError` (logged, and the next
 * one tries again), and the timer is unref'd so it never holds the process open.
 */
export class PeriodicTask<T> {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<T> | null = null;

  constructor(private readonly onError: (err: unknown) => T) {}

  /** Runs `pass` (or joins the pass under way). Never rejects. */
  once(pass: () => Promise<T>): Promise<T> {
    this.running ??= pass()
      .catch(this.onError)
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  /** Runs `pass` every `intervalMs` from now on; nothing when `intervalMs` is 0 or less. */
  every(intervalMs: number, pass: () => Promise<T>): void {
    if (intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.once(pass), intervalMs);
    this.timer.unref();
  }

  /** No more passes; resolves once the one under way (if any) has ended. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
