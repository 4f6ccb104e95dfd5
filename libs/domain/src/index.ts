// Document store
export * from './store/types';
export * from './store/store-failures';
export { openDocumentStore } from './store/open-store';
export type { DocumentStoreConfig } from './store/open-store';
export { EmbeddedDocumentStore } from './store/embedded/embedded-store';
export type { EmbeddedStoreOptions } from './store/embedded/embedded-store';
export { DataDirLockedError } from './store/embedded/dir-lock';
export type { MongoStoreOptions } from './store/mongo/mongo-store';

// Tenancy, ids, repository base
export * from './shared/tenancy';
export * from './shared/ids';
export * from './shared/tenant-repository';

// Money as it is shown
export * from './shared/money';

// Crypto helpers
export * from './crypto/api-key-material';
export * from './crypto/password';
export * from './crypto/secret-cipher';

// Entities and repositories
export * from './organizations/organization.entity';
export * from './organizations/organization.repository';
export * from './users/user.entity';
export * from './users/user.repository';
export * from './api-keys/api-key.entity';
export * from './api-keys/api-key.repository';
export * from './api-keys/api-key-expiry';
export * from './policies/policy.entity';
export * from './policies/policy.repository';
export * from './secrets/provider-secret.entity';
export * from './secrets/provider-secret.repository';
export * from './usage/usage-record.entity';
export * from './usage/usage-populations';
export * from './usage/usage-record.repository';
export * from './approvals/approval.entity';
export * from './approvals/approval.repository';
export * from './providers/provider-target.entity';
export * from './providers/provider-target.repository';
export * from './providers/discovered-model.entity';
export * from './providers/discovered-model.repository';
export * from './providers/discovery-run.entity';
export * from './providers/discovery-run.repository';
export * from './model-aliases/model-alias.entity';
export * from './model-aliases/model-alias.repository';
export * from './budgets/budget-node.entity';
export * from './budgets/budget-node.repository';
export * from './budgets/named-budget.entity';
export * from './budgets/named-budget.repository';
export * from './webhooks/webhook.entity';
export * from './webhooks/webhook.repository';
export * from './webhooks/webhook-url';
export * from './webhooks/webhook-url-migration';
export * from './webhooks/webhook-delivery.entity';
export * from './webhooks/webhook-delivery.repository';
export * from './webhooks/chat-integration.entity';
export * from './webhooks/chat-integration.repository';
export * from './runners/runner.entity';
export * from './runners/runner.repository';
export * from './runners/runner-session.entity';
export * from './runners/runner-session.repository';
export * from './runners/runner-command.entity';
export * from './runners/runner-command.repository';
export * from './runners/runner-event.entity';
export * from './runners/runner-event.repository';
export * from './auth/refresh-token.entity';
export * from './auth/refresh-token.repository';
export * from './auth/revoked-access-token.repository';
export * from './idempotency/idempotency-record.entity';
export * from './idempotency/idempotency-record.repository';
export * from './repositories';

// Bootstrap
export * from './bootstrap/bootstrap';

// Test support: the stores a contract test runs against (embedded always, MongoDB when given a URI)
export * from './testing/stores';
export * from './testing/legacy-webhook';
export * from './testing/legacy-provider-target';
export * from './budgets/budget-period';
export * from './providers/org-provider-targets';
export * from './providers/target-headers';
export * from './providers/target-headers-migration';
