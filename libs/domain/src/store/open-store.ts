import type { Logger } from '@svc/platform';
import { EmbeddedDocumentStore, EmbeddedStoreOptions } from './embedded/embedded-store';
import type { MongoStoreOptions } from './mongo/mongo-store';
import type { DocumentStore } from './types';

export interface DocumentStoreConfig {
  MONGODB_URI?: string;
  /** Longest a MongoDB query may run (maxTimeMS); default 10 s. */
  MONGODB_OPERATION_TIMEOUT_MS?: number;
  DATA_DIR: string;
}

/**
 * MongoDB when `MONGODB_URI` is set, otherwise the embedded file store under `DATA_DIR`. The MongoDB
 * adapter (and mongoose) is loaded only when it is used: an embedded process never pays its memory.
 */
export async function openDocumentStore(
  config: DocumentStoreConfig,
  logger: Logger,
  options: EmbeddedStoreOptions & MongoStoreOptions = {},
): Promise<DocumentStore> {
  if (config.MONGODB_URI) {
    const { MongoDocumentStore } = require('./mongo/mongo-store') as typeof import('./mongo/mongo-store');
    const operationTimeoutMS = options.operationTimeoutMS ?? config.MONGODB_OPERATION_TIMEOUT_MS;
    return MongoDocumentStore.open(config.MONGODB_URI, logger.child({ store: 'mongodb' }), { ...options, operationTimeoutMS });
  }
  return EmbeddedDocumentStore.open(config.DATA_DIR, logger.child({ store: 'embedded' }), options);
}
