/**
 * Deepest nesting a JSON body may have (the body itself is level 1), on every surface. Bodies are
 * walked recursively after parsing (Nest's ValidationPipe, class-transformer, the proxy's
 * re-serialization of format-B and provider-C bodies), and a body some thousands of levels deep
 * overflowed the stack: a 500 instead of a 400. Real bodies, JSON schemas of tools included, nest a
 * few dozen levels.
 */
export const MAX_JSON_DEPTH = 128;

/** Whether `value` nests more than `limit` levels of objects and arrays (walked without recursion). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const pending: unknown[] = [value];
  const depths: number[] = [1];
  while (pending.length > 0) {
    const node = pending.pop() as Record<string, unknown> | unknown[];
    const depth = depths.pop() as number;
    if (depth > limit) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        pending.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** The message of the 400 for a body nested deeper than MAX_JSON_DEPTH. */
export const TOO_DEEP_MESSAGE = `The body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`;
