// The policy view is shared with the organization API's policy PATCH: it lives in @svc/governance.
export type { PolicyView } from '@svc/governance';
export { tierOf, toPolicyView } from '@svc/governance';
