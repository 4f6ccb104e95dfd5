/**
 * Sorts on a non-unique field end with `_id`, so MongoDB returns ties in a fixed order (ids sort by
 * creation), as the embedded store does. Checked without a server: every model of a recording
 * store records the sort of each query and answers it with no documents.
 */
import mongoose from 'mongoose';
import { asOrgId } from '../../shared/tenancy';
import { createRepositories } from '../../repositories';
import type { CollectionSpec, DocumentStore, SortSpec, StoredDocument } from '../types';
import { MongoCollection, RawDocument } from './mongo-collection';
import { schemaFor } from './mongo-store';

describe('repository sorts, as sent to MongoDB', () => {
  const connection = mongoose.createConnection();
  afterAll(() => connection.close());
  const sent: { collection: string; sort: SortSpec | undefined }[] = [];

  const store: DocumentStore = {
    kind: 'mongodb',
    collection<T extends StoredDocument>(spec: CollectionSpec<T>) {
      const schema = schemaFor(spec as unknown as CollectionSpec<StoredDocument>);
      for (const op of ['find', 'findOne'] as const) {
        schema.pre(op, function (this: mongoose.Query<unknown, RawDocument>) {
          sent.push({ collection: spec.name, sort: this.getOptions().sort as SortSpec | undefined });
          throw mongoose.skipMiddlewareFunction(op === 'find' ? [] : null);
        });
      }
      const model = connection.models[spec.name] ?? connection.model<RawDocument>(spec.name, schema);
      return new MongoCollection<T>(spec, model, Promise.resolve(), Date.now);
    },
    ready: async () => undefined,
    status: () => 'connected',
    close: async () => undefined,
  };
  const repos = createRepositories(store);
  const org = asOrgId('org_a');
  const range = { from: new Date(0) };

  it.each<[string, () => Promise<unknown>, SortSpec]>([
    ['apiKeys.listByTeam', () => repos.apiKeys.listByTeam(org, 'team_1'), { created_at: -1, _id: -1 }],
    ['webhooks.listActiveForEvent', () => repos.webhooks.listActiveForEvent(org, 'budget.exceeded'), { created_at: 1, _id: 1 }],
    ['budgetNodes.listChildren', () => repos.budgetNodes.listChildren(org, 'node_1'), { created_at: 1, _id: 1 }],
    ['namedBudgets.listAutoStop', () => repos.namedBudgets.listAutoStop(org), { created_at: 1, _id: 1 }],
    ['runnerSessions.findLive', () => repos.runnerSessions.findLive(org, 'run_1'), { started_at: -1, _id: -1 }],
    ['runnerSessions.listExpiredLiveAcrossOrgs', () => repos.runnerSessions.listExpiredLiveAcrossOrgs(), { expires_at: 1, _id: 1 }],
    ['runners.listInStateAcrossOrgs', () => repos.runners.listInStateAcrossOrgs(['running'], new Date()), { updated_at: 1, _id: 1 }],
    ['usage.latencySamples', () => repos.usage.latencySamples(org, range), { created_at: -1, _id: -1 }],
  ])('%s breaks ties by _id', async (_name, query, sort) => {
    sent.length = 0;
    await query();
    expect(sent).toHaveLength(1);
    expect(sent[0].sort).toEqual(sort);
    expect(Object.keys(sent[0].sort ?? {}).at(-1)).toBe('_id');
  });
});
