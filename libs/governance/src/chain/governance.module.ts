import { join } from 'node:path';
import { Module } from '@nestjs/common';
import type { DocumentStore, Repositories } from '@svc/domain';
import { EVENT_PUBLISHER, EventPublisher } from '@svc/events';
import { APP_CONFIG, AppConfig, InvalidationBus, LOGGER, Logger, REDIS, Redis } from '@svc/platform';
import { DOCUMENT_STORE, INSTANCE_SECRETS, InstanceSecrets, INVALIDATION_BUS, REPOSITORIES } from '@svc/runtime';
import { ApprovalsService } from '../approvals/approvals.service';
import { GOVERNANCE } from './contract';
import { ChainGovernanceService } from './governance.service';
import { acquireMemoryStore } from './shared-memory';

/** The embedded mode's counters (budgets, quotas, rate windows), in DATA_DIR. */
export const COUNTER_SNAPSHOT_FILE = 'governance-counters.json';

/**
 * Provides the governance chain as GOVERNANCE (and as ChainGovernanceService, with the extra
 * admin and health views), and the ApprovalsService. Needs RuntimeModule's shared resources.
 * Timers (Redis probe, approval sweep) stop in onModuleDestroy.
 */
@Module({
  providers: [
    {
      provide: ChainGovernanceService,
      inject: [REDIS, REPOSITORIES, EVENT_PUBLISHER, INVALIDATION_BUS, APP_CONFIG, LOGGER, INSTANCE_SECRETS, DOCUMENT_STORE],
      useFactory: (
        redis: Redis | null,
        repositories: Repositories,
        publisher: EventPublisher,
        invalidation: InvalidationBus,
        config: AppConfig,
        logger: Logger,
        secrets: InstanceSecrets,
        store: DocumentStore,
      ) => {
        // The embedded mode's counters are its only ones: they are kept in DATA_DIR across restarts.
        const memory = redis
          ? null
          : acquireMemoryStore(repositories, {
              snapshot: {
                path: join(config.DATA_DIR, COUNTER_SNAPSHOT_FILE),
                onError: (err) => logger.warn({ err }, 'governance counters: could not read or write the snapshot'),
              },
            });
        return new ChainGovernanceService(
          {
            redis,
            repositories,
            publisher,
            invalidation,
            config,
            logger: logger.child({ component: 'governance' }),
            masterKeys: secrets.masterKeys,
            memory: memory?.store,
            onClose: memory?.release,
          },
          // On MongoDB the usage records can be read without loading them: a Redis found without
          // its counters' marker at start is reseeded too (docs/deploy-operating.md "When Redis loses its data").
          { reseedUnseen: store.kind === 'mongodb' },
        );
      },
    },
    { provide: GOVERNANCE, useExisting: ChainGovernanceService },
    { provide: ApprovalsService, inject: [ChainGovernanceService], useFactory: (governance: ChainGovernanceService) => governance.approvals },
  ],
  exports: [GOVERNANCE, ChainGovernanceService, ApprovalsService],
})
export class GovernanceModule {}
