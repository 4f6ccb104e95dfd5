import { hasScope } from '@svc/auth';

/** Whether an API key's scopes satisfy a route (any one of `anyOf`; write implies read). */
export function keyAllows(granted: readonly string[], anyOf: readonly string[]): boolean {
  if (anyOf.length === 0) return true;
  return anyOf.some(
    (scope) => hasScope(granted, scope) || (scope.endsWith(':read') && hasScope(granted, scope.replace(/:read$/, ':write'))),
  );
}
