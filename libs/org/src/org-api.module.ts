import { Module } from '@nestjs/common';
import { AuthModule } from '@svc/auth';
import { OrgResourcesModule } from '@svc/org-resources';
import { APP_CONFIG, AppConfig, LOGGER, Logger, Redis, REDIS } from '@svc/platform';
import { AccountController } from './account/account.controller';
import { ServiceRootController } from './account/service-root.controller';
import { AgentsController, RemovedAgentsController } from './agents/agents.controller';
import { AdminKeysController } from './api-keys/admin-keys.controller';
import { ApiKeysController } from './api-keys/api-keys.controller';
import { AuthController } from './auth/auth.controller';
import { AuthService } from './auth/auth.service';
import { LoginThrottle } from './auth/login-throttle';
import { OrgAuthGuard } from './auth/org-auth.guard';
import { OrgJwtStrategy } from './auth/org-jwt.strategy';
import { OrgRateLimiter } from './auth/org-rate-limiter';
import { AutopilotController } from './autopilot/autopilot.controller';
import { BudgetEvaluator } from './budgets/budget-evaluator';
import { BudgetsController } from './budgets/budgets.controller';
import { BudgetsService } from './budgets/budgets.service';
import { GatewayPolicyController } from './gateway-policy/gateway-policy.controller';
import { GatewayPolicyService } from './gateway-policy/gateway-policy.service';
import { MetricsController } from './metrics/metrics.controller';
import { MetricsService } from './metrics/metrics.service';
import { OrganizationsController } from './organizations/organizations.controller';
import { OrganizationsService } from './organizations/organizations.service';
import { RunnersController } from './runners/runners.controller';
import { ChatIntegrationService } from './webhooks/chat-integration.service';
import { ChatIntegrationController, WebhooksController, WebhookTestController } from './webhooks/webhooks.controller';

/**
 * The organization API (`/api/v1`, docs/org-api.md): one module that `apps/org-api` and
 * `apps/standalone` import. Every controller runs behind OrgAuthGuard.
 */
@Module({
  imports: [AuthModule, OrgResourcesModule],
  controllers: [
    ServiceRootController,
    AuthController,
    AccountController,
    ApiKeysController,
    AdminKeysController,
    WebhooksController,
    WebhookTestController,
    ChatIntegrationController,
    BudgetsController,
    MetricsController,
    AgentsController,
    RemovedAgentsController,
    AutopilotController,
    RunnersController,
    OrganizationsController,
    GatewayPolicyController,
  ],
  providers: [
    OrgJwtStrategy,
    OrgAuthGuard,
    {
      provide: OrgRateLimiter,
      inject: [REDIS, APP_CONFIG, LOGGER],
      useFactory: (redis: Redis | null, config: AppConfig, logger: Logger) => new OrgRateLimiter(redis, config.ORG_API_RATE_LIMIT_RPM, logger),
    },
    {
      provide: LoginThrottle,
      inject: [REDIS, LOGGER],
      useFactory: (redis: Redis | null, logger: Logger) => new LoginThrottle(redis, logger),
    },
    AuthService,
    ChatIntegrationService,
    BudgetEvaluator,
    BudgetsService,
    MetricsService,
    OrganizationsService,
    GatewayPolicyService,
  ],
})
export class OrgApiModule {}
