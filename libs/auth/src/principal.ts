import type { OrgId, OrganizationEntity } from '@svc/domain';
import type { Role } from './scopes';

/** Who is calling, resolved once per request from a gateway key, a runner token or a dashboard JWT. */
export interface Principal {
  kind: 'api_key' | 'dashboard' | 'runner';
  orgId: OrgId;
  organization: Pick<OrganizationEntity, '_id' | 'name' | 'plan' | 'subscription_status'>;
  scopes: string[];
  /** The API key (api_key and runner kinds: the key the session was issued under). */
  keyId: string | null;
  keyName: string | null;
  /** The api_key kind: when that key expires (null = never); what it creates cannot outlive it. */
  keyExpiresAt?: Date | null;
  teamId: string | null;
  /** Dashboard tokens. */
  userId: string | null;
  role: Role | null;
  /** Set while a rotated key is in its grace period. */
  deprecation: { graceRemainingHours: number; replacedBy: string } | null;
}
