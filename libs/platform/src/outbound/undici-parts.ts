import type * as Undici from 'undici';

/**
 * The parts of undici the gateway's outbound calls use, required from their own files.
 * `require('undici')` loads all of undici: fetch, WebSocket, EventSource, caches, cookies, mocks,
 * proxy agents and their interceptors, which the services never call: the gateway idled 10-11 MB
 * higher in resident memory with it (4.9 MB of heap against 1.8 MB for these parts). What undici's
 * own entry does for these is done here: its dispatchers get the `request`/`stream`/`pipeline`/
 * `connect`/`upgrade` methods from `lib/api` (the same assignment, of the same functions, so loading
 * the whole of undici later changes nothing). undici is pinned in package.json;
 * `undici-parts.spec.ts` checks each part against what undici's entry exports, so an upgrade that
 * moves a file fails the tests, not a deployment.
 */
const Dispatcher = require('undici/lib/dispatcher/dispatcher') as typeof Undici.Dispatcher;
Object.assign(Dispatcher.prototype, require('undici/lib/api') as object);

export const Agent = require('undici/lib/dispatcher/agent') as typeof Undici.Agent;
export type Agent = Undici.Agent;
export const undiciErrors = require('undici/lib/core/errors') as typeof Undici.errors;
export const buildConnector = require('undici/lib/core/connect') as typeof Undici.buildConnector;
export type { Dispatcher, buildConnector as BuildConnector } from 'undici';
