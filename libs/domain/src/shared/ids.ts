import { randomBytes } from 'node:crypto';

/** Public id prefixes, one per resource (SPEC.md and DECISIONS.md fix `budget_`, `apr_`, `gw_`, `evt_`). */
export const ID_PREFIXES = {
  organization: 'org_',
  user: 'usr_',
  apiKey: 'key_',
  policy: 'pol_',
  providerSecret: 'sec_',
  usage: 'gw_',
  approval: 'apr_',
  providerTarget: 'tgt_',
  discoveredModel: 'mdl_',
  discoveryRun: 'dsc_',
  modelAlias: 'als_',
  budgetNode: 'node_',
  namedBudget: 'budget_',
  webhook: 'whk_',
  webhookDelivery: 'dlv_',
  event: 'evt_',
  chatIntegration: 'chat_',
  runner: 'run_',
  runnerSession: 'ses_',
  runnerCommand: 'cmd_',
  runnerEvent: 'rev_',
  refreshToken: 'rt_',
  idempotency: 'idem_',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` characters drawn uniformly from [A-Za-z0-9] with crypto randomness. */
export function randomAlphanumeric(length: number): string {
  // Rejection sampling: bytes >= 248 (= 4 * 62) are dropped, so every character is equally likely.
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length + 8)) {
      if (byte >= 248) continue;
      out += ALPHANUMERIC[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Digits in ASCII order, so fixed-width strings sort like the numbers they encode. */
const SORTABLE = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
let lastTime = 0;

function timeComponent(): string {
  // Strictly increasing within the process, so ids made in the same millisecond keep their order.
  lastTime = Math.max(Date.now(), lastTime + 1);
  let n = lastTime;
  let out = '';
  for (let i = 0; i < 9; i += 1) {
    out = SORTABLE[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/**
 * A new public id, e.g. `newId('apiKey')` -> `key_0Ov3rK8dQ...`: the prefix, 9 characters of
 * creation time (ids sort by creation within a process) and 15 random alphanumerics.
 */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}${timeComponent()}${randomAlphanumeric(15)}`;
}
