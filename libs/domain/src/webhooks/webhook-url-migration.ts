import type { Logger } from '@svc/platform';
import { SecretCipher, SecretDecryptionError } from '../crypto/secret-cipher';
import { passOverDocuments } from '../shared/document-pass';
import { asOrgId } from '../shared/tenancy';
import { DuplicateKeyError } from '../store/types';
import type { WebhookEntity } from './webhook.entity';
import type { WebhookRepository } from './webhook.repository';
import { openWebhookUrl, sealWebhookUrl } from './webhook-url';

export interface WebhookUrlResealResult {
  /** Documents whose URL was stored in clear, now sealed. */
  sealed: number;
  /** Documents sealed under a previous master key, now sealed (and hashed) under the current one. */
  rehashed: number;
  /** Left as they were: their key is gone, or another webhook of the org has the same URL (logged). */
  skipped: number;
}

/**
 * Seals one stored webhook's URL under the current key (its clear `url`, or a sealed one under an
 * older key version): one conditional update, so a replica or a second run that got there first
 * makes it a no-op. Returns what happened; never throws for a document it cannot reseal.
 */
export async function resealWebhookUrl(
  repo: WebhookRepository,
  cipher: SecretCipher,
  webhook: WebhookEntity,
  logger?: Logger,
): Promise<'sealed' | 'rehashed' | 'skipped' | 'unchanged'> {
  const orgId = asOrgId(webhook.org_id);
  const log = { org_id: webhook.org_id, webhook_id: webhook._id };
  try {
    const sealed = sealWebhookUrl(cipher, orgId, openWebhookUrl(cipher, orgId, webhook));
    if (!(await repo.resealUrl(orgId, webhook._id, webhook.url, sealed))) return 'unchanged';
    return typeof webhook.url === 'string' ? 'sealed' : 'rehashed';
  } catch (err) {
    if (err instanceof DuplicateKeyError) {
      logger?.warn(log, 'webhook URL left as stored: another webhook of the organization has the same URL');
      return 'skipped';
    }
    if (err instanceof SecretDecryptionError) {
      logger?.warn({ ...log, key_version: typeof webhook.url === 'string' ? null : webhook.url.key_version }, 'webhook URL left as stored: its key is not configured');
      return 'skipped';
    }
    throw err;
  }
}

/**
 * The start-up pass (docs/webhooks-outbound.md "Receiver URLs at rest"): seals every webhook URL stored in
 * clear, and seals again (with a new `url_hash`) every URL sealed under a previous master key, so
 * that after a rotation the hashes are the current key's and the previous key can be retired. Safe
 * to run twice and on several replicas at once (conditional updates, by `_id` order); a pass that
 * stops half-way resumes at the next start. Readers accept both shapes meanwhile.
 */
export async function resealWebhookUrls(repo: WebhookRepository, cipher: SecretCipher, logger?: Logger): Promise<WebhookUrlResealResult> {
  const stale = cipher.versions.filter((version) => version !== cipher.currentVersion);
  const result = await passOverDocuments(
    (after) => repo.listUrlsToResealAcrossOrgs(stale, after),
    (webhook) => resealWebhookUrl(repo, cipher, webhook, logger),
    { sealed: 0, rehashed: 0, skipped: 0 },
  );
  if (result.sealed || result.rehashed || result.skipped) logger?.info({ ...result }, 'webhook URLs sealed under the current master key');
  return result;
}
