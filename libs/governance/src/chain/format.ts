// USD amounts in messages: `formatUsd` (@svc/domain), shared with event summaries and anomaly alerts.

/** A list of names for messages: `a, b and c`. */
export function listOf(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
