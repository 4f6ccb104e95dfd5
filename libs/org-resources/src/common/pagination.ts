/** A collection response of the organization API (SPEC.md "Collections and pagination"). */
export interface Collection<T> {
  items: T[];
  total: number;
  offset: number;
  limit: number;
}

/** Maps a repository page to the API's collection shape. */
export function collection<E, T>(page: { items: E[]; total: number }, request: { offset: number; limit: number }, map: (item: E) => T): Collection<T> {
  return { items: page.items.map(map), total: page.total, offset: request.offset, limit: request.limit };
}
