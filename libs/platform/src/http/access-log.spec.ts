import { Controller, Get, Module } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { createLogger } from '../logging/logger';
import { claimAccessLog } from './access-log';
import { createHttpApp } from './http-app';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- log lines are asserted field by field
type Json = Record<string, any>;

@Controller()
class PagesController {
  @Get('page')
  page() {
    return { ok: true };
  }
  /** Answers after the client has had time to leave. */
  @Get('slow')
  async slow() {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { ok: true };
  }
}

@Module({ controllers: [PagesController] })
class PagesModule {}

async function boot(options: { level: 'info' | 'warn'; accessLog: boolean }) {
  const lines: Json[] = [];
  const logger = createLogger(
    { LOG_LEVEL: options.level },
    'spec',
    new Writable({
      write(chunk, _e, done) {
        lines.push(JSON.parse(String(chunk)) as Json);
        done();
      },
    }),
  );
  const app: NestFastifyApplication = await createHttpApp(PagesModule, { name: 'spec', surface: 'org', logger, accessLog: options.accessLog, validation: false });
  // Like the proxy: a hook that takes `/own/` over, answers itself and writes its own line.
  app.getHttpAdapter().getInstance().addHook('onRequest', (request, reply, done) => {
    if (!request.url.startsWith('/own/')) return done();
    reply.hijack();
    claimAccessLog(reply.raw);
    reply.raw.writeHead(204).end();
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  const requestLines = async (count: number) => {
    for (let waited = 0; waited < 2_000 && lines.filter((l) => l.msg === 'request').length < count; waited += 10) await new Promise((r) => setTimeout(r, 10));
    return lines.filter((l) => l.msg === 'request');
  };
  return { app, url, lines, requestLines };
}

describe('the access line (ACCESS_LOG)', () => {
  it('one line per answer: id, method, path without the query, status, latency', async () => {
    const { app, url, requestLines } = await boot({ level: 'info', accessLog: true });
    try {
      expect((await fetch(`${url}/page?api_key=svc_sk_secret_in_query`)).status).toBe(200);
      expect((await fetch(`${url}/missing`)).status).toBe(404);
      const lines = await requestLines(2);
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatchObject({ level: 30, method: 'GET', path: '/page', status_code: 200 });
      expect(lines[0].request_id).toMatch(/^req_/);
      expect(typeof lines[0].latency_ms).toBe('number');
      expect(lines[1]).toMatchObject({ path: '/missing', status_code: 404 });
      expect(JSON.stringify(lines)).not.toContain('svc_sk_secret_in_query');
    } finally {
      await app.close();
    }
  });

  it('499 for a client that left before the answer', async () => {
    const { app, url, requestLines } = await boot({ level: 'info', accessLog: true });
    try {
      await new Promise<void>((resolve) => {
        const req = httpRequest(`${url}/slow`);
        req.on('error', () => resolve());
        req.end();
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 50);
      });
      const [line] = await requestLines(1);
      expect(line).toMatchObject({ path: '/slow', status_code: 499 });
    } finally {
      await app.close();
    }
  });

  it('no generic line for a response whose handler claimed it', async () => {
    const { app, url, requestLines } = await boot({ level: 'info', accessLog: true });
    try {
      expect((await fetch(`${url}/own/thing`)).status).toBe(204);
      expect((await fetch(`${url}/page`)).status).toBe(200);
      await requestLines(1);
      await new Promise((r) => setTimeout(r, 50));
      expect((await requestLines(1)).map((l) => l.path)).toEqual(['/page']);
    } finally {
      await app.close();
    }
  });

  it.each([
    ['ACCESS_LOG off', 'info', false],
    ['ACCESS_LOG on, logger above info', 'warn', true],
  ] as const)('nothing with %s', async (_name, level, accessLog) => {
    const { app, url, lines } = await boot({ level, accessLog });
    try {
      expect((await fetch(`${url}/page`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 50));
      expect(lines.filter((l) => l.msg === 'request')).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
