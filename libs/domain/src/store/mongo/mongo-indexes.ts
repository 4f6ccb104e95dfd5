import type { Logger } from '@svc/platform';

/**
 * Index maintenance of the MongoDB adapter. A collection's declared indexes are created, never
 * synced: mongoose's `syncIndexes` drops every index the running code does not declare, so during a
 * rolling deploy the old replicas dropped the indexes the new version added and the new ones rebuilt
 * them, back and forth. An index is dropped only when it is listed below as obsolete, and only once
 * the index that replaces it exists.
 */

/** An index an earlier version declared, and the declared index that replaced it. */
export interface ObsoleteIndex {
  readonly name: string;
  readonly replacedBy: string;
  /** The change that replaced it (for the reader of this list). */
  readonly since: string;
}

/**
 * Obsolete indexes per collection, in the order they were replaced. Append when a change renames or
 * replaces an index; remove an entry only when no database can still hold it.
 */
export const OBSOLETE_INDEXES: Readonly<Record<string, readonly ObsoleteIndex[]>> = {
  webhooks: [
    { name: 'org_url_unique', replacedBy: 'org_url_hash_unique', since: 'receiver URLs sealed at rest: {org_id, url} became {org_id, url_hash}' },
  ],
};

/** A declared index as mongoose holds it (`schema.indexes()`): its key and its options, `name` included. */
export type DeclaredIndex = [Record<string, unknown>, Record<string, unknown>];

export interface IndexPlan {
  readonly collection: string;
  readonly create: readonly { name: string; fields: Record<string, unknown>; options: Record<string, unknown> }[];
  readonly drop: readonly ObsoleteIndex[];
}

/** What `collection.createIndex` / `dropIndex` need: mongoose's collection of a model is one. */
export interface IndexOperations {
  createIndex(fields: Record<string, unknown>, options: Record<string, unknown>): Promise<unknown>;
  dropIndex(name: string): Promise<unknown>;
}

/** Every declared index is created; an obsolete one is dropped only if its replacement is declared and it is not. */
export function indexPlan(
  collection: string,
  declared: readonly DeclaredIndex[],
  obsolete: readonly ObsoleteIndex[] = OBSOLETE_INDEXES[collection] ?? [],
): IndexPlan {
  const create = declared.map(([fields, options]) => {
    const name = options.name;
    if (typeof name !== 'string' || !name) throw new Error(`an index of ${collection} has no name`);
    return { name, fields, options };
  });
  const names = new Set(create.map((index) => index.name));
  const drop = obsolete.filter((index) => index.name !== '_id_' && !names.has(index.name) && names.has(index.replacedBy));
  return { collection, create, drop };
}

export interface IndexOutcome {
  created: string[];
  dropped: string[];
  failed: { name: string; error: unknown }[];
}

/** MongoDB's IndexNotFound and NamespaceNotFound: the obsolete index (or the collection) is already gone. */
const ALREADY_GONE = new Set([26, 27]);

/**
 * One pass of the plan: each declared index is created on its own (one that fails, say a unique
 * index over duplicates, does not keep the others from being built); then each obsolete index whose
 * replacement now exists is dropped, "not found" counting as done.
 */
export async function applyIndexPlan(operations: IndexOperations, plan: IndexPlan): Promise<IndexOutcome> {
  const outcome: IndexOutcome = { created: [], dropped: [], failed: [] };
  for (const index of plan.create) {
    try {
      await operations.createIndex(index.fields, index.options);
      outcome.created.push(index.name);
    } catch (error) {
      outcome.failed.push({ name: index.name, error });
    }
  }
  const missing = new Set(outcome.failed.map((failure) => failure.name));
  for (const index of plan.drop) {
    if (missing.has(index.replacedBy)) continue;
    try {
      await operations.dropIndex(index.name);
      outcome.dropped.push(index.name);
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (typeof code !== 'number' || !ALREADY_GONE.has(code)) outcome.failed.push({ name: index.name, error });
    }
  }
  return outcome;
}

export interface IndexRetry {
  /** Delay before the first retry (default 30 s); doubled after each failure. */
  firstDelayMs?: number;
  /** Longest delay between retries (default 10 min). */
  maxDelayMs?: number;
}

export interface IndexMaintenance {
  /** Settles (never rejects) when the first pass is over, whether or not it built everything. */
  readonly firstPass: Promise<void>;
  /** What the latest pass could not do (being retried): empty once every index is in place. */
  failures(): readonly { name: string; error: unknown }[];
  /** Cancels the pending retry (the store is closing). */
  stop(): void;
}

/**
 * Runs the plan, and again with a growing delay while an index could not be built or an obsolete one
 * dropped: a failure is logged (`could not create the indexes of a collection`) and retried, and the
 * collection keeps serving meanwhile (without the missing index), rather than refusing every
 * operation until the process restarts.
 */
export function maintainIndexes(operations: IndexOperations, plan: IndexPlan, logger: Logger, retry: IndexRetry = {}): IndexMaintenance {
  const firstDelayMs = retry.firstDelayMs ?? 30_000;
  const maxDelayMs = retry.maxDelayMs ?? 600_000;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let failed: IndexOutcome['failed'] = [];

  const pass = async (attempt: number): Promise<void> => {
    let outcome: IndexOutcome;
    try {
      outcome = await applyIndexPlan(operations, plan);
    } catch (error) {
      outcome = { created: [], dropped: [], failed: [{ name: '*', error }] };
    }
    failed = outcome.failed;
    if (outcome.dropped.length) logger.info({ collection: plan.collection, dropped: outcome.dropped }, 'dropped obsolete indexes');
    if (!outcome.failed.length) {
      if (attempt > 1) logger.info({ collection: plan.collection, attempt }, 'the indexes of a collection are built');
      return;
    }
    if (stopped) return;
    const delay = Math.min(firstDelayMs * 2 ** (attempt - 1), maxDelayMs);
    logger.error(
      { err: outcome.failed[0].error, collection: plan.collection, indexes: outcome.failed.map((f) => f.name), attempt, retry_in_ms: delay },
      'could not create the indexes of a collection',
    );
    timer = setTimeout(() => {
      timer = undefined;
      void pass(attempt + 1);
    }, delay);
    timer.unref();
  };

  return {
    firstPass: pass(1),
    failures: () => failed,
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
