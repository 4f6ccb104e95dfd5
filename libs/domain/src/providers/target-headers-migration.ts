import type { Logger } from '@svc/platform';
import type { SecretCipher } from '../crypto/secret-cipher';
import { passOverDocuments } from '../shared/document-pass';
import { asOrgId } from '../shared/tenancy';
import type { ProviderTargetEntity } from './provider-target.entity';
import type { ProviderTargetRepository } from './provider-target.repository';
import { hasClearCredentialHeader, sealTargetHeaders } from './target-headers';

export interface TargetHeaderSealResult {
  /** Documents that held a credential header in clear, now sealed. */
  sealed: number;
  /** Documents without one, now marked as done (`sealed_headers: {}`). */
  marked: number;
}

/** Attempts per document: a concurrent write (a discovery run stamps `updated_at`) makes the pass read it again. */
const ATTEMPTS = 3;

/**
 * Seals one stored target's credential headers (`sealed_headers`), leaving the other headers in
 * clear: one conditional update (the document still as read), so a replica or a second run that got
 * there first makes it a no-op. Nothing else in the document changes.
 */
export async function sealTargetHeaderDocument(
  repo: ProviderTargetRepository,
  cipher: SecretCipher,
  target: ProviderTargetEntity,
): Promise<'sealed' | 'marked' | 'unchanged'> {
  let current: ProviderTargetEntity | null = target;
  for (let attempt = 0; attempt < ATTEMPTS && current && current.sealed_headers === undefined; attempt++) {
    const orgId = asOrgId(current.org_id);
    if (await repo.sealHeaders(orgId, current._id, current.updated_at, sealTargetHeaders(cipher, orgId, current.headers))) {
      return hasClearCredentialHeader(current) ? 'sealed' : 'marked';
    }
    current = await repo.findById(orgId, current._id);
  }
  return 'unchanged';
}

/**
 * The start-up pass (docs/admin-api-providers.md "Provider targets and discovery"): seals the credential
 * headers of every target stored before they were refused, and marks the others. Safe to run twice
 * and on several replicas at once (conditional updates, by `_id` order); a pass that stops half-way
 * resumes at the next start. Readers accept both shapes meanwhile. Never logs a header value.
 */
export async function sealProviderTargetHeaders(repo: ProviderTargetRepository, cipher: SecretCipher, logger?: Logger): Promise<TargetHeaderSealResult> {
  const result = await passOverDocuments(
    (after) => repo.listUnsealedHeadersAcrossOrgs(after),
    (target) => sealTargetHeaderDocument(repo, cipher, target),
    { sealed: 0, marked: 0 },
  );
  if (result.sealed) logger?.info({ ...result }, 'credential headers of provider targets sealed under the current master key');
  return result;
}
