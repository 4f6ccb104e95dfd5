/**
 * Seeds a benchmark DATA_DIR: an enterprise organization with limits high enough that the
 * benchmark measures the gateway, not its refusals, and one gateway key. Prints the key.
 * Usage: node -r @swc-node/register tools/bench/seed.ts <data-dir>
 */
import { asOrgId, createRepositories, generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour, openDocumentStore } from '@svc/domain';
import pino from 'pino';

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  if (!dataDir) throw new Error('usage: seed.ts <data-dir>');
  const store = await openDocumentStore({ DATA_DIR: dataDir }, pino({ level: 'silent' }));
  const repos = createRepositories(store);
  const org = await repos.organizations.create({ name: 'bench', plan: 'enterprise' });
  const orgId = asOrgId(org._id);
  await repos.policies.replace(orgId, {
    rpm_limit: 100_000_000,
    daily_budget: 1_000_000,
    monthly_budget: 10_000_000,
    max_cost_per_request: 1_000,
    hitl_cost_threshold: 1_000,
  });
  const key = generateApiKey();
  await repos.apiKeys.create(orgId, { name: 'bench', key_hash: hashApiKey(key), key_prefix: keyDisplayPrefix(key), last_four: keyLastFour(key), scopes: ['gateway:write', 'gateway:read'] });
  await store.close();
  process.stdout.write(`${key}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
