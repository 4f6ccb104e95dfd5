import { runResetPassword } from '@svc/org';

/**
 * The operator's password reset, bundled beside main.js (`node reset-password.js --email <email>`
 * in the org-api image, `npm run reset-password` in the repository): docs/deploy.md.
 */
runResetPassword(process.argv.slice(2), process).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`reset-password failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
