import { randomAlphanumeric } from '../shared/ids';
import { asOrgId, OrgId } from '../shared/tenancy';
import { hashPassword } from '../crypto/password';
import { normalizePlan } from '../organizations/organization.entity';
import type { Repositories } from '../repositories';
import { DuplicateKeyError } from '../store/types';
import { normalizeEmail } from '../users/user.entity';

export interface BootstrapConfig {
  BOOTSTRAP_ORG_NAME: string;
  BOOTSTRAP_ADMIN_EMAIL: string;
  BOOTSTRAP_ADMIN_PASSWORD?: string;
  /** A tier or alias (`pro` = starter, `team` = growth). */
  BOOTSTRAP_ORG_PLAN: string;
}

export interface BootstrapResult {
  /** True when this call created the organization and its Owner. */
  created: boolean;
  /** The bootstrap organization: the new one, or the existing admin's; null if that user is gone. */
  orgId: OrgId | null;
  email: string;
  /** Set only when created without a configured password: print it once. */
  generatedPassword?: string;
}

/**
 * DECISIONS.md "Bootstrap": on first start with no users, creates an organization (subscription
 * `active`) and its Owner. Does nothing once any user exists, so every later start is a no-op.
 */
export async function bootstrapFirstOrganization(
  repos: Pick<Repositories, 'organizations' | 'users'>,
  config: BootstrapConfig,
): Promise<BootstrapResult> {
  const email = normalizeEmail(config.BOOTSTRAP_ADMIN_EMAIL);
  if (await repos.users.anyUserExists()) return existing(repos, email);

  const plan = normalizePlan(config.BOOTSTRAP_ORG_PLAN);
  if (!plan) throw new Error(`BOOTSTRAP_ORG_PLAN: unknown plan ${config.BOOTSTRAP_ORG_PLAN}`);
  const generatedPassword = config.BOOTSTRAP_ADMIN_PASSWORD ? undefined : randomAlphanumeric(24);
  const passwordHash = await hashPassword(config.BOOTSTRAP_ADMIN_PASSWORD ?? (generatedPassword as string));

  const organization = await repos.organizations.create({ name: config.BOOTSTRAP_ORG_NAME, plan, subscription_status: 'active' });
  const orgId = asOrgId(organization._id);
  try {
    await repos.users.create(orgId, { email, role: 'Owner', password_hash: passwordHash, name: null });
  } catch (error) {
    // Another instance bootstrapped at the same moment: keep its organization, drop ours.
    await repos.organizations.delete(orgId);
    if (error instanceof DuplicateKeyError) return existing(repos, email);
    throw error;
  }
  return { created: true, orgId, email, ...(generatedPassword ? { generatedPassword } : {}) };
}

async function existing(repos: Pick<Repositories, 'users'>, email: string): Promise<BootstrapResult> {
  const user = await repos.users.findByEmailForLogin(email);
  return { created: false, orgId: user ? asOrgId(user.org_id) : null, email };
}
