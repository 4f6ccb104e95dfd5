import { Module } from '@nestjs/common';
import { AuthModule } from '@svc/auth';
import { GovernanceModule } from '@svc/governance';
import { OrgResourcesModule } from '@svc/org-resources';
import { ModelAliasesController } from './aliases/model-aliases.controller';
import { ModelAliasesService } from './aliases/model-aliases.service';
import { ApprovalsController } from './approvals/approvals.controller';
import { BillingController } from './billing/billing.controller';
import { BillingService } from './billing/billing.service';
import { BudgetNodesController } from './budgets/budget-nodes.controller';
import { BudgetNodesService } from './budgets/budget-nodes.service';
import { AdminApiKeysController } from './keys/api-keys.controller';
import { KeysController } from './keys/keys.controller';
import { RotateKeyUseCase } from './keys/rotate-key.usecase';
import { LatencyController } from './latency/latency.controller';
import { LatencyService } from './latency/latency.service';
import { PoliciesController } from './policies/policies.controller';
import { PoliciesService } from './policies/policies.service';
import { SimulatePolicyUseCase } from './policies/simulation/simulate-policy.usecase';
import { RateLimitsController } from './rate-limits/rate-limits.controller';
import { SecretsController } from './secrets/secrets.controller';
import { SecretsService } from './secrets/secrets.service';
import { DiscoveryService } from './targets/discovery/discovery.service';
import { DiscoveryController, ProviderTargetsController } from './targets/provider-targets.controller';
import { ProviderTargetsService } from './targets/provider-targets.service';
import { UsageController } from './usage/usage.controller';
import { UsageService } from './usage/usage.service';
import { AdminWebhooksController } from './webhooks/webhooks.controller';

/**
 * The gateway admin API under `/gateway/admin` (docs/admin-api.md): policies and their simulation,
 * key rotation, provider secrets, usage, billing, latency, approvals, provider targets and model
 * discovery, model aliases, budget nodes and rate-limit status; and SPEC.md's `/v1/admin/api-keys`
 * and `/v1/admin/webhooks` (the organization API's services, @svc/org-resources, in the gateway's
 * formats). Imported by `apps/gateway-admin` and by `npm start`'s gateway surface. Needs
 * RuntimeModule's shared resources.
 */
@Module({
  imports: [AuthModule, GovernanceModule, OrgResourcesModule],
  controllers: [
    PoliciesController,
    KeysController,
    SecretsController,
    UsageController,
    BillingController,
    LatencyController,
    ApprovalsController,
    ProviderTargetsController,
    DiscoveryController,
    ModelAliasesController,
    BudgetNodesController,
    RateLimitsController,
    AdminApiKeysController,
    AdminWebhooksController,
  ],
  providers: [
    PoliciesService,
    SimulatePolicyUseCase,
    RotateKeyUseCase,
    SecretsService,
    UsageService,
    BillingService,
    LatencyService,
    ProviderTargetsService,
    DiscoveryService,
    ModelAliasesService,
    BudgetNodesService,
  ],
})
export class GatewayAdminModule {}
