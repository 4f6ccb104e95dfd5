import { GatewayError } from '@svc/platform';
import type { HeaderBag } from './credentials';
import { KeyRefusedError, RefusedKey } from './gateway-key-authenticator';
import type { Principal } from './principal';

/** The identified key of a principal, for a refusal that names it (KeyRefusedError): the proxy meters such refusals. */
export function refusedKeyOf(principal: Principal): RefusedKey {
  return { orgId: principal.orgId, keyId: principal.keyId ?? '', keyName: principal.keyName ?? 'unknown', teamId: principal.teamId };
}

/**
 * `X-Org-ID` is optional (a key or a token acts for its own organization), but one naming another
 * organization is refused, never ignored (docs/admin-api-access.md "Access"): 403 `org_mismatch`, on the
 * gateway admin and the `/v1` routes alike. `key`: the authenticated key's principal, so the refusal
 * is a KeyRefusedError the proxy records under its organization.
 *
 * On the proxy's hot path: one property read (Node's header names are lower case) and no
 * allocation when the header is absent.
 */
export function checkOrgHeader(headers: HeaderBag, orgId: string, credential: 'key' | 'token', key?: Principal): void {
  const raw = headers['x-org-id'];
  if (raw === undefined) return;
  const value = (typeof raw === 'string' ? raw : raw[0])?.trim();
  // Empty counts as absent, as for every other header the gateway reads.
  if (!value || value === orgId) return;
  const body = {
    message: `X-Org-ID names an organization this ${credential} does not belong to`,
    type: 'permission_error',
    code: 'org_mismatch',
    remediation: `Leave X-Org-ID out (the ${credential} acts for its own organization) or send that organization's id.`,
  };
  throw key ? new KeyRefusedError(403, body, refusedKeyOf(key)) : new GatewayError(403, body);
}
