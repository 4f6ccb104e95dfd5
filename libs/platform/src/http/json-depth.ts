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
  // One closure per walk, no list of each object's values: this runs on every proxy request's body.
  let childDepth = 0;
  const visit = (child: unknown) => {
    if (typeof child === 'object' && child !== null) {
      pending.push(child);
      depths.push(childDepth);
    }
  };
  while (pending.length > 0) {
    const node = pending.pop() as object;
    const depth = depths.pop() as number;
    if (depth > limit) return true;
    childDepth = depth + 1;
    if (Array.isArray(node)) for (const child of node) visit(child);
    else for (const key in node) visit((node as Record<string, unknown>)[key]);
  }
  return false;
}

/** The message of the 400 for a body nested deeper than MAX_JSON_DEPTH. */
export const TOO_DEEP_MESSAGE = `The body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`;

/**
 * The message of the 400 for a body that is not JSON, from `JSON.parse`'s error without the piece
 * of the body V8 quotes in it (`Unexpected token 'b', ..."password":bootstrap-"... is not valid
 * JSON`): a password or key in a malformed body must not come back in the answer (nor reach a
 * proxy's or client's log of it). The position, where V8 gives one, is kept.
 */
export function jsonSyntaxMessage(error: unknown): string {
  const raw = error instanceof Error ? error.message : '';
  const message = raw.replace(/, (?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/, '');
  return message && !message.includes('"') ? `Body is not valid JSON: ${message}` : 'Body is not valid JSON';
}
