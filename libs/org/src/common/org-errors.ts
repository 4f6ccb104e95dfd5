/** The organization API's refusals live with the services both surfaces share (@svc/org-resources). */
export { orgErrors } from '@svc/org-resources';

/** A percentage or ratio rounded to 2 decimals. */
export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
