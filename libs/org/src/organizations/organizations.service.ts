import { Inject, Injectable } from '@nestjs/common';
import { DuplicateKeyError, hashPassword, normalizePlan, OrganizationEntity, OrganizationPatch, OrgId, Repositories, UserEntity } from '@svc/domain';
import { APP_CONFIG, AppConfig, ConflictError, InvalidationBus, OrgApiError } from '@svc/platform';
import { INVALIDATION_BUS, REPOSITORIES } from '@svc/runtime';
import type { OrgPrincipal } from '../auth/org-principal';
import { orgErrors } from '../common/org-errors';
import { collection, Collection } from '../common/pagination';
import type { AddMemberDto, UpdateOrganizationDto } from './dto/organization.dto';

export function toOrganizationView(org: OrganizationEntity) {
  return {
    id: org._id,
    name: org.name,
    plan: org.plan,
    subscription_status: org.subscription_status,
    created_at: org.created_at.toISOString(),
    updated_at: org.updated_at.toISOString(),
  };
}

export function toMemberView(user: UserEntity) {
  return {
    id: user._id,
    email: user.email,
    name: user.name,
    role: user.role,
    created_at: user.created_at.toISOString(),
    last_login_at: user.last_login_at ? user.last_login_at.toISOString() : null,
  };
}

export type OrganizationView = ReturnType<typeof toOrganizationView>;
export type MemberView = ReturnType<typeof toMemberView>;

/** DECISIONS.md "More organizations and members". */
@Injectable()
export class OrganizationsService {
  constructor(
    @Inject(REPOSITORIES) private readonly repositories: Repositories,
    @Inject(INVALIDATION_BUS) private readonly invalidation: InvalidationBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async get(orgId: OrgId): Promise<OrganizationView> {
    const org = await this.repositories.organizations.findById(orgId);
    if (!org) throw orgErrors.notFound('Organization', orgId);
    return toOrganizationView(org);
  }

  /** Renames always; changes plan and subscription status only when PLAN_ADMIN_ENABLED=true. */
  async update(orgId: OrgId, input: UpdateOrganizationDto): Promise<OrganizationView> {
    const patch: OrganizationPatch = {};
    if (input.name !== undefined) patch.name = input.name.trim();
    if (input.plan !== undefined || input.subscription_status !== undefined) {
      if (!this.config.PLAN_ADMIN_ENABLED) {
        throw new OrgApiError(403, 'FEATURE_DISABLED', 'Plan and subscription changes are disabled on this deployment (PLAN_ADMIN_ENABLED=false)');
      }
      if (input.plan !== undefined) patch.plan = normalizePlan(input.plan) ?? undefined;
      if (input.subscription_status !== undefined) patch.subscription_status = input.subscription_status;
    }
    const org = Object.keys(patch).length ? await this.repositories.organizations.update(orgId, patch) : await this.repositories.organizations.findById(orgId);
    if (!org) throw orgErrors.notFound('Organization', orgId);
    await this.invalidation.publish('organization', orgId);
    return toOrganizationView(org);
  }

  async addMember(caller: OrgPrincipal, input: AddMemberDto): Promise<MemberView> {
    if (input.role === 'Owner') assertOwner(caller, 'Only an Owner can add another Owner');
    try {
      const user = await this.repositories.users.create(caller.orgId, {
        email: input.email,
        role: input.role,
        password_hash: await hashPassword(input.password),
        name: input.name ?? null,
      });
      return toMemberView(user);
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      const existing = await this.repositories.users.findByEmail(caller.orgId, input.email);
      throw new ConflictError('resource_already_exists', 'A user with this e-mail already exists', {
        resource_type: 'user',
        ...(existing ? { conflicting_id: existing._id } : {}),
      });
    }
  }

  async members(orgId: OrgId, page: { offset: number; limit: number }): Promise<Collection<MemberView>> {
    return collection(await this.repositories.users.list(orgId, page), page, toMemberView);
  }

  /** Removes a member and revokes their refresh tokens; the last Owner cannot be removed. */
  async removeMember(caller: OrgPrincipal, userId: string): Promise<void> {
    const user = await this.repositories.users.findById(caller.orgId, userId);
    if (!user) throw orgErrors.notFound('Member', userId);
    if (user.role === 'Owner') {
      assertOwner(caller, 'Only an Owner can remove an Owner');
      if ((await this.repositories.users.countOwners(caller.orgId)) <= 1) {
        throw orgErrors.conflict('LAST_OWNER', 'The last Owner of an organization cannot be removed');
      }
    }
    await this.repositories.users.deleteById(caller.orgId, userId);
    await this.repositories.refreshTokens.revokeAllForUser(caller.orgId, userId);
  }
}

/**
 * Owners are managed by signed-in Owners only. No API key scope is Owner-level (`admin:write` is
 * what an Admin holds), so an API key can neither add nor remove an Owner.
 */
function assertOwner(caller: OrgPrincipal, message: string): void {
  if (caller.kind === 'dashboard' && caller.role === 'Owner') return;
  throw orgErrors.forbidden(caller.kind === 'dashboard' ? message : `${message}; API keys cannot manage Owners`, { required: 'Owner' });
}
