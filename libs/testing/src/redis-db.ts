/**
 * The test Redis (TEST_REDIS_URL) with a database of the spec file's own: services on one database
 * share the `events` and delivery queues, so services of spec files running at the same time would
 * take each other's events.
 */
export function testRedisUrl(db: number): string {
  const url = new URL(process.env.TEST_REDIS_URL as string);
  url.pathname = `/${db}`;
  return url.toString();
}
