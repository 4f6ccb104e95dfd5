import type { Logger } from '@svc/platform';
import { EmbeddedDocumentStore, EmbeddedStoreOptions } from './embedded/embedded-store';
import { MongoDocumentStore, MongoStoreOptions } from './mongo/mongo-store';
import type { DocumentStore } from './types';

export interface DocumentStoreConfig {
  MONGODB_URI?: string;
  DATA_DIR: string;
}

/** MongoDB when `MONGODB_URI` is set, otherwise the embedded file store under `DATA_DIR`. */
export async function openDocumentStore(
  config: DocumentStoreConfig,
  logger: Logger,
  options: EmbeddedStoreOptions & MongoStoreOptions = {},
): Promise<DocumentStore> {
  if (config.MONGODB_URI) {
    return MongoDocumentStore.open(config.MONGODB_URI, logger.child({ store: 'mongodb' }), options);
  }
  return EmbeddedDocumentStore.open(config.DATA_DIR, logger.child({ store: 'embedded' }), options);
}
