import { Module } from '@nestjs/common';
import { BudgetAlertWorker } from './budget-alert.worker';
import { BudgetEvaluator } from './budget-evaluator';

/**
 * The periodic named-budget alert check (BudgetAlertWorker), for the process that runs workers:
 * `apps/webhook-dispatcher` and, in process, `apps/standalone`. The organization API itself
 * evaluates budgets when they are read or written.
 */
@Module({ providers: [BudgetEvaluator, BudgetAlertWorker], exports: [BudgetAlertWorker] })
export class BudgetAlertsModule {}
