import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@svc/auth';
import { AdminQuery } from '../common/admin-query';
import { AdminController, AdminRoute } from '../common/admin-route';
import { BudgetNodesService } from './budget-nodes.service';
import { BudgetNodeList, BudgetNodeView, CreateBudgetNodeDto, UpdateBudgetNodeDto } from './dto/budget-node.dto';

/** SPEC.md `POST /budgets/nodes`, plus list, read, update and delete; each node shows its current spend. */
@AdminController('budgets/nodes', 'budgets')
export class BudgetNodesController {
  constructor(private readonly nodes: BudgetNodesService) {}

  @Post()
  @AdminRoute(
    'admin:write',
    'Create a hierarchical budget node',
    '`name`, `level` (`org`, `team`, `key`), `budget_limit` (> 0 USD), `reset_period` (`daily`, `weekly`, `monthly`); `team_id` for a team node, `key_id` for a key node. 409 `resource_already_exists` when the scope has a node.',
  )
  @ApiCreatedResponse({ type: BudgetNodeView })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateBudgetNodeDto, @Query() _query: AdminQuery): Promise<BudgetNodeView> {
    return this.nodes.create(principal, body);
  }

  @Get()
  @AdminRoute('admin:read', 'List budget nodes with their current spend')
  @ApiOkResponse({ type: BudgetNodeList })
  list(@CurrentPrincipal() principal: Principal, @Query() _query: AdminQuery): Promise<BudgetNodeList> {
    return this.nodes.list(principal);
  }

  @Get(':id')
  @AdminRoute('admin:read', 'One budget node with its current spend')
  @ApiOkResponse({ type: BudgetNodeView })
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Query() _query: AdminQuery): Promise<BudgetNodeView> {
    return this.nodes.get(principal, id);
  }

  @Patch(':id')
  @AdminRoute('admin:write', 'Update a budget node', '`name`, `budget_limit`, `reset_period`, `alert_thresholds`, `parent_id`.')
  @ApiOkResponse({ type: BudgetNodeView })
  update(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: UpdateBudgetNodeDto, @Query() _query: AdminQuery): Promise<BudgetNodeView> {
    return this.nodes.update(principal, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @AdminRoute('admin:write', 'Delete a budget node (its children move up to its parent)')
  async remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Query() _query: AdminQuery): Promise<void> {
    await this.nodes.remove(principal, id);
  }
}
