import { CanActivate, ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthenticatedRequest, hasScope, RUNNER_PERMISSIONS } from '@svc/auth';
import { featureDisabled, permissionDenied } from '../runner-errors';
import { RUNNER_SETTINGS, RunnerSettings } from '../runner-settings';

export type RunnerPermission = (typeof RUNNER_PERMISSIONS)[number];

const PERMISSIONS = 'svc:runner-permissions';
const ANSWERS_WHEN_DISABLED = 'svc:runner-answers-when-disabled';

/** The runner permissions a route needs (all of them), checked by RunnerAccessGuard with 403 `permission_denied`. */
export const RequireRunnerPermission = (...permissions: RunnerPermission[]) => SetMetadata(PERMISSIONS, permissions);

/** The route still answers when RUNNERS_ENABLED is false (prerequisites). */
export const AnswersWhenRunnersDisabled = () => SetMetadata(ANSWERS_WHEN_DISABLED, true);

/**
 * Runs after GatewayAuthGuard (which authenticated the caller, with no scope of its own to check):
 * 403 `feature_disabled` while the runner flag is off, then SPEC.md's runner RBAC with 403
 * `permission_denied`. `hasScope` maps the caller's scopes: a dashboard role's runner permissions,
 * or a gateway key's `admin:read` (read) and `admin:write` (all). A runner token has neither.
 */
@Injectable()
export class RunnerAccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(RUNNER_SETTINGS) private readonly settings: RunnerSettings,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
    if (!principal) throw new Error('RunnerAccessGuard must run after GatewayAuthGuard');
    const required = this.reflector.getAllAndOverride<RunnerPermission[] | undefined>(PERMISSIONS, targets);
    if (!required?.length) throw new Error(`Route ${context.getHandler().name} declares no runner permission`);
    if (!this.settings.enabled && !this.reflector.getAllAndOverride<boolean | undefined>(ANSWERS_WHEN_DISABLED, targets)) {
      throw featureDisabled();
    }
    const missing = required.find((permission) => !hasScope(principal.scopes, permission));
    if (missing) throw permissionDenied(missing);
    return true;
  }
}
