// The mock upstream (tools/mock-provider) for the admin specs.
export { startMockProvider } from '@svc/mock-provider';
export type { MockProvider } from '@svc/mock-provider';
