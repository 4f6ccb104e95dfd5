import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { Logger } from '@svc/platform';
import { EmbeddedDocumentStore } from '../store/embedded/embedded-store';
import type { DocumentStore } from '../store/types';

/** A settable clock for TTL tests: both adapters compute expiry against it. */
export interface TestClock {
  now(): number;
  advance(ms: number): void;
}

export function createTestClock(start = Date.now()): TestClock {
  let current = start;
  return {
    now: () => current,
    advance: (ms) => {
      current += ms;
    },
  };
}

let silent: Logger | null = null;

/** A logger that writes nothing (created on first use). */
export function silentLogger(): Logger {
  silent ??= pino({ level: 'silent' });
  return silent;
}

/** One opened store under test. */
export interface StoreUnderTest {
  readonly store: DocumentStore;
  readonly clock: TestClock;
  /** Closes the store and opens the same data again (same directory or database). */
  reopen(): Promise<DocumentStore>;
  /** Closes the store and removes its data (temp directory or database). */
  cleanup(): Promise<void>;
}

export interface StoreTarget {
  readonly name: 'embedded' | 'mongodb';
  open(): Promise<StoreUnderTest>;
}

const embeddedTarget: StoreTarget = {
  name: 'embedded',
  async open() {
    const dir = await mkdtemp(join(tmpdir(), 'svc-domain-'));
    const clock = createTestClock();
    const options = { clock: clock.now, debounceMs: 10 };
    let store = await EmbeddedDocumentStore.open(dir, silentLogger(), options);
    return {
      clock,
      get store() {
        return store;
      },
      async reopen() {
        await store.close();
        store = await EmbeddedDocumentStore.open(dir, silentLogger(), options);
        return store;
      },
      async cleanup() {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
};

function mongoTarget(uri: string): StoreTarget {
  // Loaded here, not at the top: these helpers are exported with the library, and mongoose (with its
  // 17 MB BSON buffer) must not load in a process that never uses MongoDB.
  const { MongoDocumentStore } = require('../store/mongo/mongo-store') as typeof import('../store/mongo/mongo-store');
  return {
    name: 'mongodb',
    async open() {
      const dbName = `svc_test_${process.pid}_${randomBytes(6).toString('hex')}`;
      const clock = createTestClock();
      const options = { clock: clock.now, dbName };
      let store = await MongoDocumentStore.open(uri, silentLogger(), options);
      return {
        clock,
        get store() {
          return store;
        },
        async reopen() {
          await store.close();
          store = await MongoDocumentStore.open(uri, silentLogger(), options);
          return store;
        },
        async cleanup() {
          try {
            await store.dropDatabase();
          } finally {
            await store.close();
          }
        },
      };
    },
  };
}

/**
 * A MongoDB store whose connection never reaches a server (none is opened): mongoose holds each
 * operation and fails it after `bufferTimeoutMs`, so the first index pass of every collection fails
 * and `indexFailures()` lists it. For specs of what a caller does with indexes MongoDB could not build.
 */
export function unreachableMongoStore(bufferTimeoutMs = 30): DocumentStore {
  const mongoose = require('mongoose') as typeof import('mongoose');
  const { MongoDocumentStore } = require('../store/mongo/mongo-store') as typeof import('../store/mongo/mongo-store');
  const connection = mongoose.createConnection();
  (connection as unknown as { config: Record<string, unknown> }).config.bufferTimeoutMS = bufferTimeoutMs;
  return new MongoDocumentStore(connection, silentLogger(), { operationTimeoutMS: bufferTimeoutMs, indexRetry: { firstDelayMs: 600_000 } });
}

/**
 * The stores a contract test runs against: always the embedded store (fresh temp directory per
 * open), and MongoDB too when a URI is given (fresh database per open, dropped on cleanup).
 * Use with `describe.each(storeTargets(process.env.MONGODB_URI))('... ($name)', ...)`.
 */
export function storeTargets(mongodbUri?: string): StoreTarget[] {
  return mongodbUri ? [embeddedTarget, mongoTarget(mongodbUri)] : [embeddedTarget];
}
