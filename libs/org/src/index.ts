export * from './org-api.module';
export { BudgetAlertsModule } from './budgets/budget-alerts.module';
export { BudgetAlertWorker } from './budgets/budget-alert.worker';
export type { BudgetAlertCheck } from './budgets/budget-alert.worker';
export { runResetPassword, RESET_PASSWORD_USAGE } from './operator/reset-password.command';
export type { CommandIo } from './operator/reset-password.command';
