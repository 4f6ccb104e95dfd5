import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { freePort, spawnNode } from '@svc/testing';

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number };
}
interface OtlpSpan {
  name: string;
  kind: number;
  attributes: OtlpAttribute[];
}
interface OtlpExport {
  resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[];
}

/** A local OTLP/HTTP collector: keeps every JSON export posted to /v1/traces. */
class OtlpReceiver {
  readonly bodies: string[] = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<OtlpReceiver> {
    const bodies: string[] = [];
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const raw = Buffer.concat(chunks);
        if (request.url === '/v1/traces') bodies.push((request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8'));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new OtlpReceiver(server, `http://127.0.0.1:${(server.address() as { port: number }).port}`);
    (receiver as { bodies: string[] }).bodies = bodies;
    return receiver;
  }

  spans(): { service: string; scope: string; span: OtlpSpan }[] {
    return this.bodies.flatMap((body) =>
      (JSON.parse(body) as OtlpExport).resourceSpans.flatMap((resource) => {
        const service = resource.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
        return resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => ({ service, scope: scope.scope.name, span })));
      }),
    );
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? value?.intValue;
};

/**
 * OpenTelemetry end to end: `npm start`'s composition with OTEL_EXPORTER_OTLP_ENDPOINT pointing at
 * a local collector. The batch delay is an hour, so spans can only arrive through the flush that
 * graceful shutdown does on SIGTERM.
 */
describe('telemetry', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-otel-'));
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
  });
  afterAll(async () => {
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exports the spans of a request as svc-gateway, with credential query values masked and probes untraced', async () => {
    const [gatewayPort, orgPort] = [await freePort(), await freePort()];
    const service = spawnNode(['-r', '@swc-node/register', 'apps/standalone/src/main.ts'], {
      SWC_NODE_PROJECT: 'tsconfig.base.json',
      GATEWAY_PORT: String(gatewayPort),
      ORG_API_PORT: String(orgPort),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '3600000',
    });
    try {
      await service.waitFor('is running', 120_000);
      expect((await fetch(`http://127.0.0.1:${gatewayPort}/health`)).status).toBe(200);
      const res = await fetch(`http://127.0.0.1:${gatewayPort}/v1/models?api_key=sk-otel-secret-1&limit=5`);
      expect(res.status).toBe(401);
      expect((await fetch(`http://127.0.0.1:${orgPort}/api/v1/user/profile`)).status).toBe(401);
      expect(receiver.bodies).toEqual([]);
    } finally {
      service.child.kill('SIGTERM');
    }
    expect(await service.exited).toBe(0);

    const spans = receiver.spans();
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['svc-gateway']));
    const server = spans.find((s) => s.scope === '@opentelemetry/instrumentation-http' && attribute(s.span, 'url.path') === '/v1/models');
    expect(server?.span.kind).toBe(2); // SERVER
    const serverSpan = server?.span ?? { name: '', kind: 0, attributes: [] };
    expect(attribute(serverSpan, 'url.query')).toBe('api_key=[REDACTED]&limit=5');
    expect(attribute(serverSpan, 'http.response.status_code')).toBe(401);
    const fastify = spans.filter((s) => s.scope === '@fastify/otel');
    expect(fastify.map((s) => attribute(s.span, 'url.path'))).toContain('/v1/models?api_key=[REDACTED]&limit=5');
    expect(spans.some((s) => attribute(s.span, 'url.path') === '/api/v1/user/profile')).toBe(true);
    expect(spans.some((s) => String(attribute(s.span, 'url.path') ?? '').startsWith('/health'))).toBe(false);
    expect(receiver.bodies.join('')).not.toContain('sk-otel-secret');
  }, 180_000);
});
