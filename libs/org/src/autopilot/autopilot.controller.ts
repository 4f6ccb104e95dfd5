import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiCollectionResponse } from '@svc/platform';
import { OrgAuthGuard } from '../auth/org-auth.guard';
import { NoQueryDto } from '../common/no-query';
import { OrgRoute } from '../common/org-access';
import { orgErrors } from '../common/org-errors';
import { Collection, PageQueryDto, pageOf } from '../common/pagination';
import { AutopilotTemplateDto } from './dto/autopilot-template.dto';
import { AUTOPILOT_TEMPLATES, AutopilotTemplate } from './templates';

@ApiTags('autopilot')
@Controller('api/v1/autopilot/templates')
@UseGuards(OrgAuthGuard)
export class AutopilotController {
  @Get()
  @OrgRoute({ summary: 'Ready-made governance policy templates', level: 'read', scopes: [], description: 'Each template holds gateway policy fields, named budgets and the events worth subscribing to.' })
  @ApiCollectionResponse(AutopilotTemplateDto)
  list(@Query() query: PageQueryDto): Collection<AutopilotTemplate> {
    const page = pageOf(query);
    return { items: AUTOPILOT_TEMPLATES.slice(page.offset, page.offset + page.limit), total: AUTOPILOT_TEMPLATES.length, ...page };
  }

  @Get(':template_id')
  @OrgRoute({ summary: 'One template', level: 'read', scopes: [] })
  @ApiOkResponse({ type: AutopilotTemplateDto })
  get(@Param('template_id') id: string, @Query() _query: NoQueryDto): AutopilotTemplate {
    const template = AUTOPILOT_TEMPLATES.find((t) => t.id === id);
    if (!template) throw orgErrors.notFound('Template', id);
    return template;
  }
}
