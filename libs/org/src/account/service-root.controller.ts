import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SERVICE_VERSION } from '@svc/platform';
import { ServiceRootDto } from './dto/account.dto';

/** The organization API's main routes, as `GET /` lists them. */
const ENDPOINTS: Readonly<Record<string, string>> = Object.freeze({
  login: 'POST /api/v1/auth/login',
  refresh: 'POST /api/v1/auth/refresh',
  logout: 'POST /api/v1/auth/logout',
  profile: 'GET /api/v1/user/profile',
  api_keys: '/api/v1/platform/api-keys',
  webhooks: '/api/v1/admin/webhooks',
  test_delivery: 'POST /api/v1/webhooks/deliver',
  chat_integration: '/api/v1/admin/integrations/chat',
  budgets: '/api/v1/admin/costs/budgets',
  cost_metrics: 'GET /api/v1/admin/metrics/cost-optimization',
  agents_health: 'GET /api/v1/agents/health',
  autopilot_templates: 'GET /api/v1/autopilot/templates',
  runners: 'GET /api/v1/admin/runners',
  organization: '/api/v1/organizations/{org_id}',
  gateway_policy: 'PATCH /api/v1/admin/gateway/policy/{org_id}',
});

/**
 * `GET /` of the organization API: public, like the gateway's (SPEC.md "Versioning": each application
 * reports its `version` on `/`), so a browser or `curl {admin_url}` finds the docs and the routes
 * instead of a 404. Nothing about any organization.
 */
@ApiTags('health')
@Controller()
export class ServiceRootController {
  @Get()
  @ApiOperation({ summary: 'Service description and route map (public)' })
  @ApiOkResponse({ type: ServiceRootDto })
  root(): ServiceRootDto {
    return { service: 'svc-org-api', version: SERVICE_VERSION, status: 'ok', docs: '/docs', health: '/api/v1/health', liveness: '/health', endpoints: { ...ENDPOINTS } };
  }
}
