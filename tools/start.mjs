#!/usr/bin/env node
// `npm start`: builds the one-process composition (cached by Nx after the first time) and runs it.
import { buildAndRun } from './run-bundle.mjs';

buildAndRun('npm start', 'standalone', 'main.js');
