import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Logger } from '@svc/platform';
import type { Collection, CollectionSpec, DocumentStore, StoreOptions, StoreStatus, StoredDocument } from '../types';
import { StoreUnavailableError } from '../types';
import { DataDirLock, lockDataDir } from './dir-lock';
import { DeferredCollection } from './deferred-collection';
import { EmbeddedCollection } from './embedded-collection';
import { appendFile, rm } from 'node:fs/promises';
import { appendFileSync, rmSync } from 'node:fs';
import {
  collectionFilePath,
  journalFilePath,
  readCollectionFile,
  parseJournal,
  readJournalFile,
  serializeDocuments,
  serializeJournal,
  writeFileAtomic,
  writeFileAtomicSync,
} from './persistence';

export interface EmbeddedStoreOptions extends StoreOptions {
  /** Quiet period before changes are written (default 100 ms). */
  debounceMs?: number;
  /** How often expired documents are removed (default 60 s). */
  sweepIntervalMs?: number;
}

/**
 * The local document store of a laptop `npm start`: every collection lives in memory and is
 * persisted to `<dir>/<collection>.json`, written atomically (temp file + rename) a short,
 * debounced moment after a change and on `close()`. One process owns a directory: `open` takes
 * the exclusive lock `<dir>/store.lock` (see lockDataDir) and `close` releases it.
 */
export class EmbeddedDocumentStore implements DocumentStore {
  readonly kind = 'embedded' as const;
  readonly directory: string;
  private readonly collections = new Map<string, EmbeddedCollection<StoredDocument>>();
  /** Write-mostly collections, loaded on their first read (see DeferredCollection). */
  private readonly deferred = new Map<string, DeferredCollection<StoredDocument>>();
  private readonly dirty = new Set<string>();
  /** Documents inserted since the last write, to append to the journal (insert-only changes). */
  private readonly appends = new Map<string, unknown[]>();
  /** Collections with another kind of change: rewritten whole (which also empties their journal). */
  private readonly rewrite = new Set<string>();
  /** Documents in each journal, to compact it once it grows. */
  private readonly journaled = new Map<string, number>();
  private readonly clock: () => number;
  private readonly debounceMs: number;
  private flushTimer: NodeJS.Timeout | null = null;
  private readonly sweepTimer: NodeJS.Timeout;
  private writes: Promise<void> = Promise.resolve();
  private closed = false;
  /** How long the last write spent rewriting whole collections (appends are not counted). */
  private lastRewriteMs = 0;

  private constructor(
    directory: string,
    private readonly logger: Logger,
    options: EmbeddedStoreOptions,
    private readonly lock: DataDirLock,
  ) {
    this.directory = directory;
    this.clock = options.clock ?? Date.now;
    this.debounceMs = options.debounceMs ?? 100;
    this.sweepTimer = setInterval(() => this.sweepExpired(), options.sweepIntervalMs ?? 60_000);
    this.sweepTimer.unref();
  }

  static async open(directory: string, logger: Logger, options: EmbeddedStoreOptions = {}): Promise<EmbeddedDocumentStore> {
    const absolute = resolve(directory);
    mkdirSync(absolute, { recursive: true, mode: 0o700 });
    const lock = lockDataDir(absolute);
    return new EmbeddedDocumentStore(absolute, logger, options, lock);
  }

  collection<T extends StoredDocument>(spec: CollectionSpec<T>): Collection<T> {
    this.assertOpen();
    const deferred = this.deferred.get(spec.name);
    if (deferred) return deferred as unknown as Collection<T>;
    const existing = this.collections.get(spec.name);
    if (existing) return existing as unknown as Collection<T>;
    if (spec.deferLoad) {
      const collection = new DeferredCollection<T>(spec, {
        load: (lines) => this.load(spec, lines),
        changed: () => this.markDirty(spec.name, []),
        assertOpen: () => this.assertOpen(),
      });
      this.deferred.set(spec.name, collection as unknown as DeferredCollection<StoredDocument>);
      return collection;
    }
    return this.load(spec, []);
  }

  /** Reads a collection from its file and journal, plus journal `lines` not yet on disk. */
  private load<T extends StoredDocument>(spec: CollectionSpec<T>, lines: readonly string[]): EmbeddedCollection<T> {
    const path = collectionFilePath(this.directory, spec.name);
    const journal = readJournalFile(journalFilePath(this.directory, spec.name)) as T[];
    const unwritten = lines.flatMap((chunk) => parseJournal(chunk)) as T[];
    // A line being appended may already be on disk: one document per _id, the first one wins.
    const byId = new Map<string, T>();
    for (const doc of [...(readCollectionFile(path) as T[]), ...journal, ...unwritten]) if (!byId.has(doc._id)) byId.set(doc._id, doc);
    const documents = [...byId.values()];
    const collection = new EmbeddedCollection<T>(spec, documents, {
      changed: (inserted) => this.markDirty(spec.name, inserted),
      assertOpen: () => this.assertOpen(),
      clock: this.clock,
    });
    this.collections.set(spec.name, collection as unknown as EmbeddedCollection<StoredDocument>);
    if (journal.length) this.markDirty(spec.name); // fold the journal into the collection file
    this.logger.debug({ collection: spec.name, documents: documents.length, path }, 'embedded collection loaded');
    return collection;
  }

  async ready(): Promise<void> {
    // Collections load synchronously and their indexes are in memory: nothing to wait for.
  }

  status(): StoreStatus {
    return 'not_configured';
  }

  /** Removes expired documents from every collection now; returns how many. */
  sweepExpired(): number {
    if (this.closed) return 0;
    let removed = 0;
    for (const collection of this.collections.values()) removed += collection.sweepExpired();
    if (removed) this.logger.debug({ removed }, 'expired documents swept');
    return removed;
  }

  /** Writes every pending change now. */
  flush(): Promise<void> {
    if (this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flushTimer = null;
    }
    // A failed earlier write must not stop later ones; its names are dirty again.
    this.writes = this.writes.catch(() => undefined).then(() => this.writeDirty());
    return this.writes;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.sweepTimer);
    // A clean close folds every journal into its collection file.
    const journaled = [...this.journaled].filter(([, count]) => count > 0).map(([name]) => name);
    for (const name of new Set([...journaled, ...this.appends.keys()])) {
      if (!this.collections.has(name)) continue; // an unloaded deferred collection keeps its journal
      this.rewrite.add(name);
      this.dirty.add(name);
    }
    try {
      await this.flush();
    } catch (error) {
      this.logger.error({ err: error, directory: this.directory }, 'embedded store: final write failed; retrying synchronously');
      this.writeDirtySync();
    } finally {
      this.closed = true;
      this.lock.release();
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreUnavailableError('The embedded document store is closed');
  }

  private markDirty(name: string, inserted?: readonly unknown[]): void {
    // A deferred collection that was never read is only ever appended to (it cannot be rewritten
    // without reading it; its journal is folded when it is loaded).
    const unloaded = this.deferred.has(name) && !this.collections.has(name);
    if (inserted && !this.rewrite.has(name) && (unloaded || (this.journaled.get(name) ?? 0) < 50_000)) {
      const pending = this.appends.get(name) ?? [];
      pending.push(...inserted);
      this.appends.set(name, pending);
    } else {
      this.rewrite.add(name);
      this.appends.delete(name);
    }
    this.dirty.add(name);
    if (this.flushTimer) return;
    // Whole collections are rewritten, so the pace adapts to their size: at most ~2 % of the time
    // goes to rewriting (a large collection is written less often, never less than debounceMs
    // apart, at least every 30 s). Appends (journal lines, usage records) cost what they append and
    // do not slow the pace: timed with them, a busy event loop stretched the delay to seconds and
    // the pending usage lines piled up in memory. close() writes everything, so only a crash can
    // lose that window.
    const delay = Math.min(Math.max(this.debounceMs, this.lastRewriteMs * 50), 30_000);
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.flush().catch((error: unknown) =>
        this.logger.error({ err: error, directory: this.directory }, 'embedded store: write failed; will retry on the next change'),
      );
    }, delay);
    this.flushTimer.unref();
  }

  private async writeDirty(): Promise<void> {
    const rewrites = { ms: 0 };
    try {
      await this.writeDirtyCollections(rewrites);
    } finally {
      this.lastRewriteMs = rewrites.ms;
    }
  }

  private async writeDirtyCollections(rewrites: { ms: number }): Promise<void> {
    const names = [...this.dirty];
    this.dirty.clear();
    for (const [i, name] of names.entries()) {
      const deferred = this.deferred.get(name);
      if (deferred) {
        const lines = deferred.takeLines();
        try {
          if (lines.length) await appendFile(journalFilePath(this.directory, name), lines.join(''), { mode: 0o600 });
          deferred.written();
        } catch (error) {
          deferred.unwritten();
          for (const pending of names.slice(i)) this.dirty.add(pending);
          throw error;
        }
      }
      const collection = this.collections.get(name);
      if (!collection) continue;
      try {
        if (this.rewrite.delete(name)) {
          this.appends.delete(name);
          const started = Date.now();
          try {
            await writeFileAtomic(collectionFilePath(this.directory, name), serializeDocuments(name, collection.snapshot()));
            await rm(journalFilePath(this.directory, name), { force: true });
          } finally {
            rewrites.ms += Date.now() - started;
          }
          this.journaled.set(name, 0);
        } else {
          // Insert-only changes: append them instead of rewriting the whole collection.
          const inserted = this.appends.get(name) ?? [];
          this.appends.delete(name);
          if (inserted.length) await appendFile(journalFilePath(this.directory, name), serializeJournal(inserted), { mode: 0o600 });
          this.journaled.set(name, (this.journaled.get(name) ?? 0) + inserted.length);
        }
      } catch (error) {
        for (const pending of names.slice(i)) {
          this.dirty.add(pending);
          this.rewrite.add(pending);
        }
        throw error;
      }
    }
  }

  private writeDirtySync(): void {
    for (const name of [...this.dirty]) {
      const deferred = this.deferred.get(name);
      if (deferred && !this.collections.has(name)) {
        const lines = deferred.takeLines();
        if (lines.length) appendFileSync(journalFilePath(this.directory, name), lines.join(''), { mode: 0o600 });
        deferred.written();
        this.dirty.delete(name);
        continue;
      }
      const collection = this.collections.get(name);
      if (collection) {
        writeFileAtomicSync(collectionFilePath(this.directory, name), serializeDocuments(name, collection.snapshot()));
        rmSync(journalFilePath(this.directory, name), { force: true });
      }
      this.dirty.delete(name);
      this.rewrite.delete(name);
      this.appends.delete(name);
    }
  }
}
