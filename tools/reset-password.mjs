#!/usr/bin/env node
// `npm run reset-password -- --email <email>`: builds the org API (cached by Nx after the first time)
// and runs the reset-password command bundled beside it, the one its image runs (docs/deploy.md).
import { buildAndRun } from './run-bundle.mjs';

buildAndRun('npm run reset-password', 'org-api', 'reset-password.js');
