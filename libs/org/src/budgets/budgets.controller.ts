import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, UseGuards } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { OrgAuthGuard } from '../auth/org-auth.guard';
import { Caller, OrgPrincipal } from '../auth/org-principal';
import { NoQueryDto } from '../common/no-query';
import { OrgRoute } from '../common/org-access';
import { BudgetsService } from './budgets.service';
import { BudgetDto, BudgetListDto, BudgetPageQueryDto, CreateBudgetDto, UpdateBudgetDto } from './dto/budget.dto';

const READ = ['budgets:read', 'costs:read', 'billing:read', 'admin:read'];
const WRITE = ['budgets:write', 'admin:write'];
const CURRENT = '`current` is the organization\'s gateway spend in the budget\'s current UTC period (day, ISO week from Monday, calendar month), from usage records.';

@ApiTags('budgets')
@Controller('api/v1/admin/costs/budgets')
@UseGuards(OrgAuthGuard)
export class BudgetsController {
  constructor(private readonly budgets: BudgetsService) {}

  @Get()
  @OrgRoute({ summary: 'List named budgets', level: 'read', scopes: READ, description: `page (default 1), page_size (default 25, max 200). ${CURRENT}` })
  @ApiOkResponse({ type: BudgetListDto })
  list(@Caller() caller: OrgPrincipal, @Query() query: BudgetPageQueryDto): Promise<BudgetListDto> {
    return this.budgets.list(caller.orgId, query.page ?? 1, query.page_size ?? 25);
  }

  @Post()
  @HttpCode(200)
  @OrgRoute({
    summary: 'Create a named budget',
    level: 'admin',
    scopes: WRITE,
    description: `name 1-120, type daily|weekly|monthly (default monthly), limit > 0, alert thresholds 0-100 and distinct, each alert with at least one channel of email|slack|webhook; null refused; auto_stop on daily budgets only (400 otherwise). ${CURRENT}`,
  })
  @ApiOkResponse({ type: BudgetDto })
  create(@Caller() caller: OrgPrincipal, @Body() body: CreateBudgetDto, @Query() _query: NoQueryDto): Promise<BudgetDto> {
    return this.budgets.create(caller.orgId, body);
  }

  @Get(':budget_id')
  @OrgRoute({ summary: 'One named budget', level: 'read', scopes: READ, description: CURRENT })
  @ApiOkResponse({ type: BudgetDto })
  get(@Caller() caller: OrgPrincipal, @Param('budget_id') id: string, @Query() _query: NoQueryDto): Promise<BudgetDto> {
    return this.budgets.get(caller.orgId, id);
  }

  @Put(':budget_id')
  @OrgRoute({ summary: 'Update a named budget (only the fields sent change)', level: 'admin', scopes: WRITE })
  @ApiOkResponse({ type: BudgetDto })
  update(@Caller() caller: OrgPrincipal, @Param('budget_id') id: string, @Body() body: UpdateBudgetDto, @Query() _query: NoQueryDto): Promise<BudgetDto> {
    return this.budgets.update(caller.orgId, id, body);
  }

  @Delete(':budget_id')
  @HttpCode(204)
  @OrgRoute({ summary: 'Delete a named budget', level: 'admin', scopes: WRITE })
  @ApiNoContentResponse()
  async remove(@Caller() caller: OrgPrincipal, @Param('budget_id') id: string, @Query() _query: NoQueryDto): Promise<void> {
    await this.budgets.remove(caller.orgId, id);
  }
}
