/** The micro-dollar helpers of the billing figures live with the other money helpers (`@svc/domain`), shared with the cost metrics. */
export { allocateMicros, exactMicros, fromMicros } from '@svc/domain';
