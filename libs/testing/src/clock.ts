/**
 * Waits, when the clock is within `marginMs` of the next minute, until just past it: the per-minute
 * limits count in fixed windows of the wall clock, and a test that makes a few requests and expects
 * the last one refused would see it admitted if they straddled a minute boundary.
 */
export async function clearOfMinuteEdge(marginMs = 10_000): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 60_000 - marginMs) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
}
