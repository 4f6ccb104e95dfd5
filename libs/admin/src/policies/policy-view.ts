// The policy view is shared with the organization API's policy PATCH: it lives in @svc/governance.
export { PolicyView, tierOf, toPolicyView } from '@svc/governance';
