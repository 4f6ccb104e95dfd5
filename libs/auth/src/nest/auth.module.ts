import { Global, Module } from '@nestjs/common';
import type { Repositories } from '@svc/domain';
import { APP_CONFIG, AppConfig, InvalidationBus, LOGGER, Logger } from '@svc/platform';
import { INSTANCE_SECRETS, InstanceSecrets, INVALIDATION_BUS, REPOSITORIES } from '@svc/runtime';
import { GatewayKeyAuthenticator } from '../gateway-key-authenticator';
import { createRunnerTokenResolver } from '../runner-token-resolver';
import { TokenService } from '../tokens';
import { ACCESS_TOKEN_REVOCATIONS, StoreAccessTokenRevocations } from './access-token-revocations';
import { GatewayAuthGuard } from './gateway-auth.guard';

/**
 * Authentication shared by every surface of a process: the gateway-key authenticator (one cache
 * per Nest application), the JWT token service, access-token revocations and the admin guard.
 */
@Global()
@Module({
  providers: [
    {
      provide: GatewayKeyAuthenticator,
      inject: [REPOSITORIES, INVALIDATION_BUS, LOGGER],
      useFactory: (repositories: Repositories, invalidation: InvalidationBus, logger: Logger) =>
        new GatewayKeyAuthenticator(repositories, invalidation, logger, { resolveRunnerToken: createRunnerTokenResolver(repositories) }),
    },
    {
      provide: TokenService,
      inject: [APP_CONFIG, INSTANCE_SECRETS],
      useFactory: (config: AppConfig, secrets: InstanceSecrets) =>
        new TokenService({ secret: secrets.jwtSecret, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE }),
    },
    { provide: ACCESS_TOKEN_REVOCATIONS, useClass: StoreAccessTokenRevocations },
    GatewayAuthGuard,
  ],
  exports: [GatewayKeyAuthenticator, TokenService, ACCESS_TOKEN_REVOCATIONS, GatewayAuthGuard],
})
export class AuthModule {}
