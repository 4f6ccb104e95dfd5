import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { OrgAuthGuard } from '../auth/org-auth.guard';
import { Caller, OrgPrincipal } from '../auth/org-principal';
import { NoQueryDto } from '../common/no-query';
import { OrgRoute } from '../common/org-access';
import { Collection, PageQueryDto, pageOf } from '../common/pagination';
import { ApiCollectionResponse } from '@svc/platform';
import { AddMemberDto, MemberDto, OrganizationDto, UpdateOrganizationDto } from './dto/organization.dto';
import { MemberView, OrganizationsService, OrganizationView } from './organizations.service';

const CONTEXT = '`{org_id}` must be the caller\'s organization (404 otherwise).';

@ApiTags('organizations')
@Controller('api/v1/organizations/:org_id')
@UseGuards(OrgAuthGuard)
export class OrganizationsController {
  constructor(private readonly organizations: OrganizationsService) {}

  @Get()
  @OrgRoute({ summary: 'The organization', level: 'read', scopes: ['admin:read'], description: CONTEXT })
  @ApiOkResponse({ type: OrganizationDto })
  get(@Caller() caller: OrgPrincipal, @Query() _query: NoQueryDto): Promise<OrganizationView> {
    return this.organizations.get(caller.orgId);
  }

  @Patch()
  @OrgRoute({
    summary: 'Rename the organization or change its plan',
    level: 'admin',
    scopes: ['admin:write'],
    description: `${CONTEXT} \`plan\` and \`subscription_status\` need PLAN_ADMIN_ENABLED=true (403 \`FEATURE_DISABLED\` otherwise); the change reaches every replica's caches at once.`,
  })
  @ApiOkResponse({ type: OrganizationDto, description: 'The organization' })
  update(@Caller() caller: OrgPrincipal, @Body() body: UpdateOrganizationDto, @Query() _query: NoQueryDto): Promise<OrganizationView> {
    return this.organizations.update(caller.orgId, body);
  }

  @Post('members')
  @HttpCode(201)
  @OrgRoute({
    summary: 'Add a member',
    level: 'admin',
    scopes: ['admin:write'],
    description: `${CONTEXT} Only a signed-in Owner can add an Owner (API keys cannot: 403). A taken e-mail (in any organization): 409 \`resource_already_exists\`.`,
  })
  @ApiCreatedResponse({ type: MemberDto })
  addMember(@Caller() caller: OrgPrincipal, @Body() body: AddMemberDto, @Query() _query: NoQueryDto): Promise<MemberView> {
    return this.organizations.addMember(caller, body);
  }

  @Get('members')
  @OrgRoute({ summary: 'List members, oldest first', level: 'read', scopes: ['admin:read'], description: CONTEXT })
  @ApiCollectionResponse(MemberDto, 'Members, oldest first')
  members(@Caller() caller: OrgPrincipal, @Query() query: PageQueryDto): Promise<Collection<MemberView>> {
    return this.organizations.members(caller.orgId, pageOf(query));
  }

  @Delete('members/:user_id')
  @HttpCode(204)
  @OrgRoute({
    summary: 'Remove a member',
    level: 'admin',
    scopes: ['admin:write'],
    description: `${CONTEXT} Their sessions end: refresh tokens are revoked and access tokens stop working. Only a signed-in Owner removes an Owner (API keys cannot: 403); the last Owner stays (409 \`LAST_OWNER\`).`,
  })
  @ApiNoContentResponse()
  async removeMember(@Caller() caller: OrgPrincipal, @Param('user_id') userId: string, @Query() _query: NoQueryDto): Promise<void> {
    await this.organizations.removeMember(caller, userId);
  }
}
