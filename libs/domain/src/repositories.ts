import { ApiKeyRepository } from './api-keys/api-key.repository';
import { ApprovalRepository } from './approvals/approval.repository';
import { RefreshTokenRepository } from './auth/refresh-token.repository';
import { RevokedAccessTokenRepository } from './auth/revoked-access-token.repository';
import { BudgetNodeRepository } from './budgets/budget-node.repository';
import { NamedBudgetRepository } from './budgets/named-budget.repository';
import { IdempotencyRecordRepository } from './idempotency/idempotency-record.repository';
import { ModelAliasRepository } from './model-aliases/model-alias.repository';
import { OrganizationRepository } from './organizations/organization.repository';
import { PolicyRepository } from './policies/policy.repository';
import { DiscoveredModelRepository } from './providers/discovered-model.repository';
import { DiscoveryRunRepository } from './providers/discovery-run.repository';
import { ProviderTargetRepository } from './providers/provider-target.repository';
import { RunnerCommandRepository } from './runners/runner-command.repository';
import { RunnerEventRepository } from './runners/runner-event.repository';
import { RunnerSessionRepository } from './runners/runner-session.repository';
import { RunnerRepository } from './runners/runner.repository';
import { ProviderSecretRepository } from './secrets/provider-secret.repository';
import type { DocumentStore } from './store/types';
import { UsageRecordRepository } from './usage/usage-record.repository';
import { UserRepository } from './users/user.repository';
import { ChatIntegrationRepository } from './webhooks/chat-integration.repository';
import { WebhookDeliveryRepository } from './webhooks/webhook-delivery.repository';
import { WebhookRepository } from './webhooks/webhook.repository';

/** Every repository, over one document store. */
export interface Repositories {
  readonly store: DocumentStore;
  readonly organizations: OrganizationRepository;
  readonly users: UserRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly policies: PolicyRepository;
  readonly providerSecrets: ProviderSecretRepository;
  readonly usage: UsageRecordRepository;
  readonly approvals: ApprovalRepository;
  readonly providerTargets: ProviderTargetRepository;
  readonly discoveredModels: DiscoveredModelRepository;
  readonly discoveryRuns: DiscoveryRunRepository;
  readonly modelAliases: ModelAliasRepository;
  readonly budgetNodes: BudgetNodeRepository;
  readonly namedBudgets: NamedBudgetRepository;
  readonly webhooks: WebhookRepository;
  readonly webhookDeliveries: WebhookDeliveryRepository;
  readonly chatIntegrations: ChatIntegrationRepository;
  readonly runners: RunnerRepository;
  readonly runnerSessions: RunnerSessionRepository;
  readonly runnerCommands: RunnerCommandRepository;
  readonly runnerEvents: RunnerEventRepository;
  readonly refreshTokens: RefreshTokenRepository;
  readonly revokedAccessTokens: RevokedAccessTokenRepository;
  readonly idempotency: IdempotencyRecordRepository;
}

/** Opens every collection (creating indexes); await `store.ready()` to know they are in place. */
export function createRepositories(store: DocumentStore): Repositories {
  return {
    store,
    organizations: new OrganizationRepository(store),
    users: new UserRepository(store),
    apiKeys: new ApiKeyRepository(store),
    policies: new PolicyRepository(store),
    providerSecrets: new ProviderSecretRepository(store),
    usage: new UsageRecordRepository(store),
    approvals: new ApprovalRepository(store),
    providerTargets: new ProviderTargetRepository(store),
    discoveredModels: new DiscoveredModelRepository(store),
    discoveryRuns: new DiscoveryRunRepository(store),
    modelAliases: new ModelAliasRepository(store),
    budgetNodes: new BudgetNodeRepository(store),
    namedBudgets: new NamedBudgetRepository(store),
    webhooks: new WebhookRepository(store),
    webhookDeliveries: new WebhookDeliveryRepository(store),
    chatIntegrations: new ChatIntegrationRepository(store),
    runners: new RunnerRepository(store),
    runnerSessions: new RunnerSessionRepository(store),
    runnerCommands: new RunnerCommandRepository(store),
    runnerEvents: new RunnerEventRepository(store),
    refreshTokens: new RefreshTokenRepository(store),
    revokedAccessTokens: new RevokedAccessTokenRepository(store),
    idempotency: new IdempotencyRecordRepository(store),
  };
}
