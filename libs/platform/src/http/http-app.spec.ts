import { Body, Controller, Get, Module, Param, Post, Query } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { IsInt, IsString, Max, Min } from 'class-validator';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { ConflictError, GatewayError, OrgApiError } from '../errors/errors';
import { createLogger } from '../logging/logger';
import { LivenessModule } from './health.controller';
import { createHttpApp } from './http-app';
import { closeGracefully } from './lifecycle';
import { API_CONTENT_SECURITY_POLICY, DOCS_CONTENT_SECURITY_POLICY } from './security-headers';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
type Json = Record<string, any>;

class EchoDto {
  @IsString() name!: string;
  @IsInt() @Min(1) @Max(10) count!: number;
}

@Controller('t')
class ProbeController {
  @Post('echo')
  echo(@Body() body: EchoDto) {
    return { name: body.name, count: body.count };
  }
  @Get('gateway-error')
  gatewayError() {
    throw new GatewayError(
      403,
      { message: 'Model x is not allowed', type: 'permission_error', code: 'model_not_allowed', gateway_error_code: 'GW_MODEL_001', remediation: 'Add it' },
      { 'X-Test': 'yes' },
    );
  }
  @Get('org-error')
  orgError() {
    throw new OrgApiError(429, 'RATE_LIMIT_EXCEEDED', 'Too many requests', { retry_after: 12 });
  }
  @Get('conflict')
  conflict() {
    throw new ConflictError('resource_already_exists', 'An API key named ci exists', { resource_type: 'api_key', conflicting_id: 'key_1' });
  }
  @Get('crash')
  crash() {
    throw new Error('database password is hunter22');
  }
  @Get('item/:id')
  item(@Param('id') id: string) {
    return { length: id.length };
  }
  @Get('slow')
  async slow(@Query('ms') ms: string) {
    await new Promise((resolve) => setTimeout(resolve, Number(ms)));
    return { done: true };
  }
}

@Module({ imports: [LivenessModule], controllers: [ProbeController] })
class ProbeModule {}

const logLines: string[] = [];
const logger = createLogger(
  { LOG_LEVEL: 'error' },
  'spec',
  new Writable({
    write(chunk, _e, done) {
      logLines.push(String(chunk));
      done();
    },
  }),
);

async function boot(surface: 'gateway' | 'org', validation?: boolean): Promise<{ app: NestFastifyApplication; url: string }> {
  const app = await createHttpApp(ProbeModule, {
    name: `spec-${surface}`,
    surface,
    logger,
    bodyLimit: 1024,
    docs: { title: 'Spec', description: 'spec', version: '0' },
    validation,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address() as { port: number };
  return { app, url: `http://127.0.0.1:${address.port}` };
}

const post = (url: string, body: string, contentType = 'application/json') =>
  fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body });

describe('gateway surface', () => {
  let app: NestFastifyApplication;
  let url: string;
  beforeAll(async () => ({ app, url } = await boot('gateway')));
  afterAll(() => app.close());

  it('answers /health', async () => {
    const res = await fetch(`${url}/health`);
    expect(await res.json() as Json).toEqual({ status: 'ok' });
  });

  it('sends nosniff, the API CSP and Cache-Control: no-store on answers and refusals (tokens, keys and usage stay out of shared caches)', async () => {
    for (const res of [await fetch(`${url}/health`), await post(`${url}/t/echo`, JSON.stringify({ name: 'x', count: 2 })), await fetch(`${url}/nope`), await fetch(`${url}/t/item/%zz`)]) {
      expect({ nosniff: res.headers.get('x-content-type-options'), csp: res.headers.get('content-security-policy'), cache: res.headers.get('cache-control') }).toEqual({
        nosniff: 'nosniff',
        csp: API_CONTENT_SECURITY_POLICY,
        cache: 'no-store',
      });
    }
    const docs = await fetch(`${url}/docs`);
    expect({ csp: docs.headers.get('content-security-policy'), frame: docs.headers.get('x-frame-options') }).toEqual({ csp: DOCS_CONTENT_SECURITY_POLICY, frame: 'DENY' });
  });

  it.each([
    ['unknown route', () => fetch(`${url}/nope`), 404, 'not_found_error', 'not_found'],
    ['malformed JSON', () => post(`${url}/t/echo`, '{"name":'), 400, 'invalid_request_error', 'invalid_json'],
    ['wrong content type', () => post(`${url}/t/echo`, '<x/>', 'application/xml'), 415, 'invalid_request_error', 'unsupported_media_type'],
    ['oversize body', () => post(`${url}/t/echo`, JSON.stringify({ name: 'x'.repeat(2000), count: 1 })), 413, 'invalid_request_error', 'request_too_large'],
    ['failed validation', () => post(`${url}/t/echo`, JSON.stringify({ name: 'x', count: 11 })), 400, 'invalid_request_error', 'invalid_request'],
    ['unknown field', () => post(`${url}/t/echo`, JSON.stringify({ name: 'x', count: 1, extra: 1 })), 400, 'invalid_request_error', 'invalid_request'],
    ['path that is not valid percent-encoding', () => fetch(`${url}/t/item/%zz`), 400, 'invalid_request_error', 'invalid_request'],
    ['path parameter over 512 characters', () => fetch(`${url}/t/item/${'a'.repeat(513)}`), 414, 'invalid_request_error', 'uri_too_long'],
  ])('%s gets the gateway error format', async (_what, call, status, type, code) => {
    const res = await call();
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.headers.get('x-svc-request-id')).toMatch(/^gw_[0-9a-f]{32}$/);
    const body = (await res.json()) as Json;
    expect(body.error).toMatchObject({ type, code });
    expect(typeof body.error.message).toBe('string');
    expect(body.error).toHaveProperty('param');
  });

  it('refuses a body nested deeper than 128 levels with 400 invalid_request (Nest walks bodies recursively)', async () => {
    const res = await post(`${url}/t/echo`, `{"name":${'['.repeat(200)}${']'.repeat(200)},"count":1}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as Json;
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param: null });
    expect(body.error.message).toContain('deeper than 128 levels');
  });

  it('routes a path parameter of 512 characters (a 120-character agent name, percent-encoded, fits)', async () => {
    const res = await fetch(`${url}/t/item/${'a'.repeat(512)}`);
    expect(res.status).toBe(200);
    expect((await res.json()) as Json).toEqual({ length: 512 });
  });

  it('names the failing field as param', async () => {
    const body = (await (await post(`${url}/t/echo`, JSON.stringify({ name: 'x', count: 11 }))).json()) as Json;
    expect(body.error.param).toBe('count');
    expect(body.error.message).toMatch(/count/);
  });

  it('accepts a valid body', async () => {
    const res = await post(`${url}/t/echo`, JSON.stringify({ name: 'x', count: 2 }));
    expect(res.status).toBe(201);
    expect(await res.json() as Json).toEqual({ name: 'x', count: 2 });
  });

  it('renders GatewayError with its codes, remediation and headers', async () => {
    const res = await fetch(`${url}/t/gateway-error`);
    expect(res.status).toBe(403);
    expect(res.headers.get('x-test')).toBe('yes');
    expect(await res.json() as Json).toEqual({
      error: {
        message: 'Model x is not allowed',
        type: 'permission_error',
        param: null,
        code: 'model_not_allowed',
        gateway_error_code: 'GW_MODEL_001',
        remediation: 'Add it',
      },
    });
  });

  it('renders 409 conflicts in the admin conflict shape with the request id', async () => {
    const res = await fetch(`${url}/t/conflict`);
    expect(res.status).toBe(409);
    const body = (await res.json()) as Json;
    expect(body.error).toEqual({
      code: 'resource_already_exists',
      message: 'An API key named ci exists',
      request_id: res.headers.get('x-svc-request-id'),
      resource_type: 'api_key',
      conflicting_id: 'key_1',
    });
  });

  it('hides a crash behind an error id that is logged with the stack', async () => {
    const res = await fetch(`${url}/t/crash`);
    expect(res.status).toBe(500);
    const body = (await res.json()) as Json;
    expect(body.error.type).toBe('api_error');
    expect(body.error.code).toBe('internal_error');
    expect(JSON.stringify(body)).not.toContain('hunter22');
    const errorId = /err_[0-9a-f]{16}/.exec(body.error.message)?.[0];
    expect(errorId).toBeDefined();
    expect(logLines.some((line) => line.includes(errorId as string) && line.includes('stack'))).toBe(true);
  });

  it('logs a crash with its route and the URL with credential query values masked', async () => {
    const res = await fetch(`${url}/t/crash?api_key=sk-query-secret-1&Token=sk-query-secret-2&limit=5`);
    const errorId = /err_[0-9a-f]{16}/.exec(((await res.json()) as Json).error.message)?.[0] as string;
    const line = JSON.parse(logLines.find((entry) => entry.includes(errorId)) as string) as Json;
    expect(line).toMatchObject({ route: '/t/crash', method: 'GET', url: '/t/crash?api_key=[REDACTED]&Token=[REDACTED]&limit=5' });
    expect(logLines.join('')).not.toContain('sk-query-secret');
  });

  it('serves OpenAPI at /docs and /docs/json', async () => {
    expect((await fetch(`${url}/docs`)).status).toBe(200);
    const doc = (await (await fetch(`${url}/docs/json`)).json()) as Json;
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/health', '/t/echo']));
  });
});

/** Writes raw bytes to the server and returns what it answered before closing the connection. */
function rawExchange(url: string, bytes: string): Promise<{ status: number; headers: string; body: Json }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, body] = answer.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: JSON.parse(body) as Json });
    });
  });
}

describe('requests the HTTP parser refuses (before Nest sees them)', () => {
  const hugeHeaders = `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;

  it('answers 431 and 400 in the gateway format, with a request id', async () => {
    const { app, url } = await boot('gateway');
    try {
      const big = await rawExchange(url, hugeHeaders);
      expect(big.status).toBe(431);
      expect(big.body).toEqual({ error: { message: expect.stringContaining('headers'), type: 'invalid_request_error', code: 'headers_too_large', param: null } });
      expect(big.headers).toMatch(/x-svc-request-id: gw_[0-9a-f]{32}/);
      expect(big.headers).toContain(`\r\nx-content-type-options: nosniff\r\ncontent-security-policy: ${API_CONTENT_SECURITY_POLICY}\r\ncache-control: no-store\r\n`);
      const malformed = await rawExchange(url, 'NOT HTTP AT ALL\r\n\r\n');
      expect(malformed.status).toBe(400);
      expect(malformed.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request' });
      expect((await fetch(`${url}/health`)).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('answers in the organization API format on the org surface', async () => {
    const { app, url } = await boot('org');
    try {
      const big = await rawExchange(url, hugeHeaders);
      expect(big.status).toBe(431);
      expect(big.body).toEqual({ error: { code: 'HEADERS_TOO_LARGE', message: expect.stringContaining('headers'), details: {} } });
    } finally {
      await app.close();
    }
  });
});

describe('a surface without DTOs (validation: false)', () => {
  it('installs no ValidationPipe: a body is not checked against its class, while errors keep the surface format', async () => {
    const { app, url } = await boot('gateway', false);
    try {
      const res = await post(`${url}/t/echo`, JSON.stringify({ name: 'x', count: 11, extra: 1 }));
      expect(res.status).toBe(201);
      expect((await res.json()) as Json).toEqual({ name: 'x', count: 11 });
      const malformed = await post(`${url}/t/echo`, '{"name":');
      expect(malformed.status).toBe(400);
      expect(((await malformed.json()) as Json).error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json' });
    } finally {
      await app.close();
    }
  });
});

describe('org surface', () => {
  let app: NestFastifyApplication;
  let url: string;
  beforeAll(async () => ({ app, url } = await boot('org')));
  afterAll(() => app.close());

  it('refuses a body nested deeper than 128 levels with 400 VALIDATION_ERROR', async () => {
    const res = await post(`${url}/t/echo`, `{"name":${'['.repeat(200)}${']'.repeat(200)},"count":1}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('deeper than 128 levels') });
  });

  it.each([
    ['unknown route', () => fetch(`${url}/nope`), 404, 'NOT_FOUND'],
    ['malformed JSON', () => post(`${url}/t/echo`, '{'), 400, 'INVALID_JSON'],
    ['wrong content type', () => post(`${url}/t/echo`, 'x', 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['oversize body', () => post(`${url}/t/echo`, JSON.stringify({ name: 'x'.repeat(2000) })), 413, 'PAYLOAD_TOO_LARGE'],
    ['failed validation', () => post(`${url}/t/echo`, JSON.stringify({ name: 3, count: 1 })), 400, 'VALIDATION_ERROR'],
    ['path that is not valid percent-encoding', () => fetch(`${url}/t/item/%E0%A4%A`), 400, 'VALIDATION_ERROR'],
    ['path parameter over 512 characters', () => fetch(`${url}/t/item/${'a'.repeat(513)}`), 414, 'URI_TOO_LONG'],
  ])('%s gets the organization API error format', async (_what, call, status, code) => {
    const res = await call();
    expect(res.status).toBe(status);
    const body = (await res.json()) as Json;
    expect(body.error.code).toBe(code);
    expect(typeof body.error.message).toBe('string');
    expect(typeof body.error.details).toBe('object');
  });

  it('renders OrgApiError with its details', async () => {
    const res = await fetch(`${url}/t/org-error`);
    expect(res.status).toBe(429);
    expect(await res.json() as Json).toEqual({
      error: { code: 'RATE_LIMIT_EXCEEDED', message: 'Too many requests', details: { retry_after: 12 } },
    });
  });

  it('hides a crash behind an error id', async () => {
    const body = (await (await fetch(`${url}/t/crash`)).json()) as Json;
    expect(body.error.code).toBe('INTERNAL_ERROR');
    expect(body.error.details.error_id).toMatch(/^err_/);
  });
});

describe('graceful shutdown', () => {
  it('finishes an in-flight request and then refuses new connections', async () => {
    const { app, url } = await boot('gateway');
    const inFlight = fetch(`${url}/t/slow?ms=300`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = closeGracefully(app);
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json() as Json).toEqual({ done: true });
    await closed;
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });
});
