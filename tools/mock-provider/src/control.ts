/**
 * HTTP control routes under `/__mock/`, so a separate process (the benchmark) can steer the mock:
 *
 * - `GET  /__mock/health`              → `{ ok: true }`
 * - `GET  /__mock/behavior`            → `{ behavior: [...] }` (rules with remaining counters)
 * - `POST /__mock/behavior`            body: one rule, a list of rules, or `null` / `[]` to clear
 * - `GET  /__mock/requests`            → `{ count, total, requests }` (`?since=<seq>` for newer ones only)
 * - `DELETE /__mock/requests`          → clears the record
 * - `GET  /__mock/config`, `POST /__mock/config` body `{ record?, maxRecords?, validKeys?, requireAuth? }`
 * - `POST /__mock/reset`               → clears record, behaviour and config changes
 */
import type { ServerResponse } from 'node:http';
import { writeBody } from './exchange';
import type { MockConfig, MockProvider } from './types';

function send(res: ServerResponse, status: number, body: unknown): void {
  writeBody(res, status, body);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Validates a config object from JSON. */
export function parseConfig(input: unknown): MockConfig {
  if (!isObject(input)) throw new Error('invalid config: expected an object');
  const out: MockConfig = {};
  for (const [key, value] of Object.entries(input)) {
    switch (key) {
      case 'record':
      case 'requireAuth':
        if (typeof value !== 'boolean') throw new Error(`invalid config: ${key} must be a boolean`);
        out[key] = value;
        break;
      case 'maxRecords':
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
          throw new Error('invalid config: maxRecords must be an integer >= 0');
        }
        out.maxRecords = value;
        break;
      case 'validKeys':
        if (value !== null && !(Array.isArray(value) && value.every((k) => typeof k === 'string'))) {
          throw new Error('invalid config: validKeys must be a list of strings or null');
        }
        out.validKeys = value as string[] | null;
        break;
      default:
        throw new Error(`invalid config: unknown field ${key}`);
    }
  }
  return out;
}

export function handleControl(
  mock: MockProvider,
  method: string,
  path: string,
  query: Record<string, string>,
  body: unknown,
  res: ServerResponse,
): void {
  const route = `${method} ${path.replace(/\/+$/, '')}`;
  try {
    switch (route) {
      case 'GET /__mock/health':
        return send(res, 200, { ok: true });
      case 'GET /__mock/behavior':
        return send(res, 200, { behavior: mock.getBehavior() });
      case 'POST /__mock/behavior':
        mock.setBehavior((body ?? null) as Parameters<MockProvider['setBehavior']>[0]);
        return send(res, 200, { behavior: mock.getBehavior() });
      case 'GET /__mock/requests': {
        const since = Number(query['since']);
        const requests = Number.isFinite(since) ? mock.requests.filter((r) => r.seq > since) : mock.requests;
        return send(res, 200, { count: requests.length, total: mock.totalRequests, requests });
      }
      case 'DELETE /__mock/requests':
        mock.clearRequests();
        return send(res, 200, { ok: true });
      case 'GET /__mock/config':
        return send(res, 200, { config: mock.getConfig() });
      case 'POST /__mock/config':
        mock.configure(parseConfig(body));
        return send(res, 200, { config: mock.getConfig() });
      case 'POST /__mock/reset':
        mock.reset();
        return send(res, 200, { ok: true });
      default:
        return send(res, 404, { error: `unknown control route ${route}` });
    }
  } catch (err) {
    send(res, 400, { error: err instanceof Error ? err.message : String(err) });
  }
}
