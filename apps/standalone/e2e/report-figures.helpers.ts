import { asOrgId, generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour, Repositories } from '@svc/domain';
import { TestService } from '@svc/testing';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
export type Json = Record<string, any>;

export const PROVIDER_KEY = 'sk-mock-provider-key';
export const ALL_SCOPES = ['gateway:write', 'admin:read', 'admin:write', 'billing:read'];

/** An organization of its own with keys made through the repositories (their plaintexts returned). */
export async function newOrganization(repos: Repositories, prefix: string): Promise<{ orgId: string; newKey: (name: string, scopes?: string[]) => Promise<{ id: string; key: string }> }> {
  const org = await repos.organizations.create({ name: `${prefix}-${Math.random().toString(36).slice(2)}`, plan: 'enterprise' });
  const newKey = async (name: string, scopes = ALL_SCOPES) => {
    const key = generateApiKey();
    const created = await repos.apiKeys.create(asOrgId(org._id), { name, key_hash: hashApiKey(key), key_prefix: keyDisplayPrefix(key), last_four: keyLastFour(key), scopes });
    return { id: created._id, key };
  };
  return { orgId: org._id, newKey };
}

/** JSON GETs of both surfaces with a gateway key, each expected to answer 200. */
export function reportClient(service: TestService, key: string) {
  const get = async (url: string, headers: Record<string, string>): Promise<Json> => {
    const res = await fetch(url, { headers });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${text}`);
    return JSON.parse(text) as Json;
  };
  const text = async (url: string, headers: Record<string, string>): Promise<string> => {
    const res = await fetch(url, { headers });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${body}`);
    return body;
  };
  return {
    admin: (path: string) => get(`${service.urls.gateway}/gateway/admin${path}`, { 'x-svc-api-key': key }),
    adminText: (path: string) => text(`${service.urls.gateway}/gateway/admin${path}`, { 'x-svc-api-key': key }),
    org: (path: string) => get(`${service.urls['org-api']}/api/v1${path}`, { 'x-api-key': key }),
    orgSend: async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${service.urls['org-api']}/api/v1${path}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const raw = await res.text();
      return { status: res.status, body: raw ? (JSON.parse(raw) as Json) : {} };
    },
  };
}

/** The cells of a CSV without quotes in its cells (RFC 4180 lines, CRLF). */
export function csvObjects(csv: string): Record<string, string>[] {
  const [header, ...rows] = csv.split('\r\n').filter((line) => line !== '');
  const columns = header.split(',');
  return rows.map((row) => Object.fromEntries(row.split(',').map((cell, i) => [columns[i], cell])));
}

/** USD to whole micro-dollars and back: the billing figures' precision. */
export const micros = (usd: number) => Math.round(usd * 1e6);
/** Six decimals: the cost metrics' precision. */
export const six = (usd: number) => Math.round(usd * 1e6) / 1e6;
