#!/usr/bin/env node
// `npm run fuzz`: bad input from outside, against the one-process build (`npm start`'s composition)
// on a private data directory with our mock provider upstream. Two sweeps:
//   1. the proxy routes: malformed, mistyped, huge, deeply nested and hostile bodies, odd headers;
//   2. every operation of the gateway(-admin) and organization API OpenAPI documents, as the
//      bootstrap Owner: each field of a valid body replaced by wrong types, nulls, huge values and
//      deep nesting; odd path and query values.
// Any 5xx (but the 502/503 of an unreachable provider), an error answer that is not JSON, or a
// request unanswered after 10 s is a finding; the run exits 1 when there is one.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, root, runMain, startMockProvider, startNode } from '../processes.mjs';

const findings = [];
const statuses = {};
let sent = 0;

/** Sends one request; records its status and, when it is a finding, what was sent and answered. */
async function send(url, { method = 'POST', headers = {}, body } = {}) {
  sent++;
  const started = performance.now();
  try {
    const res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(10_000) });
    const text = await res.text();
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    const upstreamDown = (res.status === 502 || res.status === 503) && /upstream|circuit/.test(text);
    if ((res.status >= 500 && !upstreamDown) || (res.status >= 400 && !text.trimStart().startsWith('{'))) {
      findings.push(`${res.status} ${method} ${url.slice(0, 120)} ${String(body ?? '').slice(0, 120)} -> ${text.slice(0, 200)}`);
    }
  } catch (error) {
    findings.push(`no answer after ${Math.round(performance.now() - started)} ms: ${method} ${url.slice(0, 120)} ${String(body ?? '').slice(0, 120)} (${error.message})`);
  }
}

const deepObject = (levels) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const deepArray = (levels) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
/** One word of letters only: a single piece for the tokenizer, none of it one token. */
function longWord(length) {
  let word = '';
  for (let i = 0; word.length < length; i++) word += ((i * 2_654_435_761) >>> 7).toString(26).replace(/[0-9]/g, 'q');
  return word;
}

const WRONG_VALUES = [null, 123, -1, 1e308, 'x'.repeat(20_000), true, [], {}, [1, 'a', null], { $gt: '' }, '../../etc/passwd', '\u0000', '', -0.5];

/** Sweep 1: the proxy routes. */
async function proxySweep(gateway, key) {
  const headers = { 'content-type': 'application/json', 'x-svc-api-key': key, 'x-provider-key': 'sk-fuzz' };
  const chat = (extra) => JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...extra });
  const bodies = [
    '{', '', '[]', 'null', '1', '"text"', deepArray(5_000), `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"x":${deepObject(10_000)}}`,
    '{"model":"gpt-4o-mini","messages":"hi"}', '{"model":"gpt-4o-mini","messages":[1,2]}', '{"model":{"a":1},"messages":[]}', '{"model":"","messages":[]}',
    '{"model":"gpt-4o-mini","messages":[{"role":"user","content":5}]}', '{"model":"gpt-4o-mini","messages":[{"role":"user","content":[null,{"type":"text","text":7}]}]}',
    chat({ max_tokens: -5 }), chat({ max_tokens: 'lots' }), chat({ max_tokens: 1e308 }), chat({ stream: 'yes' }), chat({ stream: true, stream_options: 5 }),
    chat({ tools: 'x' }), chat({ n: 1_000_000 }), chat({ metadata: { session_id: 5 } }), chat({ reasoning_effort: { x: 1 }, max_completion_tokens: -1 }),
    JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: longWord(3 * 1024 * 1024) }] }),
    '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"\\ud800 lone surrogate"}]}',
    '{"model":"gemini-2.5-flash","messages":[{"role":"user","content":[{"type":"image_url","image_url":5}]}]}',
    '{"model":"gemini-2.5-flash","messages":[{"role":"system"}]}', '{"model":"nope/gpt-4o","messages":[{"role":"user","content":"hi"}]}',
    '{"model":"claude-sonnet-4-5","max_tokens":"x","messages":[{"role":"user","content":"hi"}]}',
    '{"model":"claude-sonnet-4-5","max_tokens":5,"system":5,"messages":[{"role":"user","content":[{"type":"tool_result","content":[{"type":"text","text":{}}]}]}]}',
    '{"model":"text-embedding-3-small","input":{"a":1}}', '{"model":"text-embedding-3-small","input":[[1,2],[3],"x",null]}',
  ];
  const routes = ['/v1/chat/completions', '/v1/embeddings', '/v1/messages', '/v1/anthropic/v1/messages', '/v1/gemini/chat/completions', '/v1/openai/chat/completions', '/v1/unknown/chat/completions'];
  const headerSets = [
    headers,
    { ...headers, 'content-type': 'text/plain' },
    { ...headers, 'idempotency-key': 'k'.repeat(5_000) },
    { ...headers, 'x-forwarded-for': 'not-an-ip' },
    { ...headers, 'x-svc-api-key': `svc_sk_${'a'.repeat(10_000)}` },
    // Under Node's 16 KB of headers; over it the server answers 431 and closes while a big body is still being sent.
    { ...headers, 'x-provider-key': 'k'.repeat(12_000) },
    { 'content-type': 'application/json', authorization: 'Bearer ' },
  ];
  for (const route of routes) {
    for (const body of bodies) {
      for (const set of route === '/v1/chat/completions' ? headerSets : [headers]) await send(`${gateway}${route}`, { headers: set, body });
    }
  }
  await send(`${gateway}/v1/models`, { method: 'GET', headers: { 'x-svc-api-key': key, 'x-big': 'b'.repeat(20_000) } });
  for (const [method, path] of [['GET', '/v1/models?api_key='], ['GET', '/v1/models?api_key[]=x'], ['GET', `/v1/approvals/${'x'.repeat(3_000)}/status`], ['DELETE', '/v1/chat/completions'], ['PATCH', '/v1/groq/x'], ['OPTIONS', '/v1/chat/completions']]) {
    await send(`${gateway}${path}`, { method, headers: { 'x-svc-api-key': key } });
  }
}

function resolveSchema(schema, doc) {
  return schema?.$ref ? doc.components?.schemas?.[schema.$ref.split('/').pop()] ?? {} : schema ?? {};
}

/** A plausible value for a schema: its example, first enum value, or a value of its type. */
function sample(schema, doc, depth = 0) {
  const s = resolveSchema(schema, doc);
  if (depth > 4) return null;
  if (s.example !== undefined) return s.example;
  if (s.enum) return s.enum[0];
  switch (s.type) {
    case 'string':
      return s.format === 'date-time' ? new Date().toISOString() : s.format === 'uri' ? 'https://example.com/hook' : s.format === 'email' ? 'fuzz@example.com' : 'fuzz-value';
    case 'number':
    case 'integer':
      return s.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return [sample(s.items, doc, depth + 1)];
    default:
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([name, property]) => [name, sample(property, doc, depth + 1)]));
  }
}

/** Sweep 2: every operation of an OpenAPI document. Signing out or changing the password would end the sweep's session. */
async function openApiSweep(base, doc, auth) {
  for (const [rawPath, operations] of Object.entries(doc.paths ?? {})) {
    if (/logout|refresh|password/.test(rawPath)) continue;
    for (const [verb, operation] of Object.entries(operations)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(verb)) continue;
      const method = verb.toUpperCase();
      const withId = (id) => rawPath.replace(/\{[^}]+\}/g, id);
      for (const id of ['%', '..%2F..', 'x'.repeat(3_000), '%C3%A9%00', '-1']) await send(`${base}${withId(id)}`, { method, headers: auth });
      const path = withId('fuzz_id');
      for (const query of (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name)) {
        for (const value of ['-1', 'abc', '1e400', '', '9'.repeat(400), '2026-99-99']) await send(`${base}${path}?${query}=${encodeURIComponent(value)}`, { method, headers: auth });
      }
      if (!['POST', 'PUT', 'PATCH'].includes(method)) continue;
      const json = { ...auth, 'content-type': 'application/json' };
      for (const body of ['{', '[]', 'null', deepArray(20_000), `{"a":${deepObject(20_000)}}`]) await send(`${base}${path}`, { method, headers: json, body });
      const valid = sample(operation.requestBody?.content?.['application/json']?.schema, doc);
      if (!valid || typeof valid !== 'object' || Array.isArray(valid)) continue;
      await send(`${base}${path}`, { method, headers: json, body: JSON.stringify(valid) });
      for (const field of Object.keys(valid)) {
        for (const wrong of WRONG_VALUES) await send(`${base}${path}`, { method, headers: json, body: JSON.stringify({ ...valid, [field]: wrong }) });
      }
    }
  }
}

async function main() {
  const build = spawnSync('npx', ['nx', 'build', 'standalone', '--output-style=static'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NX_TUI: 'false', NX_DAEMON: 'false' } });
  if (build.status !== 0) throw new Error('nx build standalone failed');
  const [mockPort, gatewayPort, orgPort] = [await freePort(), await freePort(), await freePort()];
  await startMockProvider(mockPort);
  const mock = `http://127.0.0.1:${mockPort}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-fuzz-'));
  const password = `fuzz-${Math.random().toString(36).slice(2)}-password`;
  const service = await startNode(['dist/apps/standalone/main.js'], {
    DATA_DIR: dataDir,
    // FUZZ_REDIS_URL: the same sweeps with Redis counters and BullMQ queues (embedded otherwise).
    REDIS_URL: process.env.FUZZ_REDIS_URL ?? '',
    HOST: '127.0.0.1',
    GATEWAY_PORT: String(gatewayPort),
    ORG_API_PORT: String(orgPort),
    LOG_LEVEL: 'error',
    BOOTSTRAP_ADMIN_PASSWORD: password,
    BOOTSTRAP_ORG_PLAN: 'enterprise',
    ORG_API_RATE_LIMIT_RPM: '1000000',
    OPENAI_BASE_URL: `${mock}/v1`,
    ANTHROPIC_BASE_URL: mock,
    GEMINI_BASE_URL: mock,
  }, 'is running');
  const gateway = `http://127.0.0.1:${gatewayPort}`;
  const org = `http://127.0.0.1:${orgPort}`;
  try {
    const login = await (await fetch(`${org}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@example.com', password }) })).json();
    if (!login.access_token) throw new Error(`login failed: ${JSON.stringify(login)}`);
    const auth = { authorization: `Bearer ${login.access_token}` };
    const created = await (await fetch(`${org}/api/v1/platform/api-keys`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'fuzz', scopes: ['gateway:write', 'gateway:read'] }) })).json();
    if (!created.key) throw new Error(`could not create a gateway key: ${JSON.stringify(created)}`);
    await proxySweep(gateway, created.key);
    for (const base of [gateway, org]) await openApiSweep(base, await (await fetch(`${base}/docs/json`)).json(), auth);
  } finally {
    const errors = service.output().split('\n').filter((line) => line.includes('"level":50'));
    for (const line of errors.slice(0, 5)) findings.push(`logged error: ${line.slice(0, 400)}`);
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write(`${sent} requests; statuses ${JSON.stringify(statuses)}\n`);
  if (findings.length > 0) {
    process.stdout.write(`${findings.length} finding(s):\n${findings.map((f) => `  ${f}`).join('\n')}\n`);
    return 1;
  }
  process.stdout.write('no findings: every bad request got a documented 4xx (or an upstream 502/503)\n');
  return 0;
}

runMain(main);
