import { parseJournal, serializeJournal, tagDates } from './persistence';

describe('embedded store journal lines', () => {
  it('round-trips Dates at any depth, in objects and arrays, without touching the input', () => {
    const at = new Date('2026-11-23T10:00:00.000Z');
    const doc = { _id: 'a', created_at: at, nested: { when: [at, 1, 'x'], deep: { at } }, list: [{ at }], none: null, n: 2 };
    const line = serializeJournal([doc, { _id: 'b', plain: true }]);
    expect(line.split('\n')).toHaveLength(3);
    expect(parseJournal(line)).toEqual([doc, { _id: 'b', plain: true }]);
    expect(doc.created_at).toBe(at);
    expect(doc.nested.when[0]).toBe(at);
  });

  it('copies only what it changes', () => {
    const untouched = { a: { b: [1, 2] }, c: 'd' };
    expect(tagDates(untouched)).toBe(untouched);
    const shared = { x: 1 };
    const tagged = tagDates({ shared, at: new Date(0) }) as Record<string, unknown>;
    expect(tagged.shared).toBe(shared);
    expect(tagged.at).toEqual({ $date: '1970-01-01T00:00:00.000Z' });
  });

  it('drops undefined fields as JSON does', () => {
    expect(parseJournal(serializeJournal([{ _id: 'u', gone: undefined, kept: 0 }]))).toEqual([{ _id: 'u', kept: 0 }]);
  });
});
