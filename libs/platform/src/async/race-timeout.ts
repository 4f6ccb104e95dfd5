/**
 * What `work` settles with, or, if `timeoutMs` passes first, what `expired` returns (or throws).
 * The timer is cleared as soon as `work` settles. `unref`: the timer alone does not keep the
 * process running.
 */
export async function raceTimeout<T>(work: Promise<T>, timeoutMs: number, expired: () => T, options: { unref?: boolean } = {}): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<T>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(expired());
      } catch (error) {
        reject(error);
      }
    }, timeoutMs);
    if (options.unref) timer.unref();
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
