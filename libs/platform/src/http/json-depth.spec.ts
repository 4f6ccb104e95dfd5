import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth';

/** Objects `levels` deep: {a: {a: ... {}}}. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

describe('nestsDeeperThan', () => {
  it('counts objects and arrays, the outer value being level 1', () => {
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan([[[1, 'x', null]]], 3)).toBe(false);
    expect(nestsDeeperThan([[[[]]]], 3)).toBe(true);
    expect(nestsDeeperThan({ a: [{ b: 'text' }], c: 1 }, 3)).toBe(false);
  });

  it('takes scalars and null as level 0', () => {
    for (const value of [null, 1, 'x', true, undefined]) expect(nestsDeeperThan(value, 0)).toBe(false);
  });

  it('walks a million levels without recursion (a recursive walk overflows the stack)', () => {
    expect(nestsDeeperThan(nested(1_000_000), MAX_JSON_DEPTH)).toBe(true);
    expect(() => JSON.stringify(nested(1_000_000))).toThrow(RangeError);
  });
});
