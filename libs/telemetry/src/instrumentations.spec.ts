import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TracerProvider } from '@opentelemetry/api';
import { tracing } from '@opentelemetry/sdk-node';
import { request } from 'undici';
import { loadInstrumentations } from './instrumentations';

/** The undici CLIENT spans of real requests, as the configured instrumentation records them. */
describe('undici span URL attributes', () => {
  const exporter = new tracing.InMemorySpanExporter();
  const provider = new tracing.BasicTracerProvider({ spanProcessors: [new tracing.SimpleSpanProcessor(exporter)] });
  const instrumentations = loadInstrumentations().flat() as Array<{ instrumentationName: string; setTracerProvider(provider: TracerProvider): void; disable(): void }>;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    for (const instrumentation of instrumentations) {
      if (instrumentation.instrumentationName.includes('undici')) instrumentation.setTracerProvider(provider);
      else instrumentation.disable();
    }
    server = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const instrumentation of instrumentations) instrumentation.disable();
    await provider.shutdown();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => exporter.reset());

  async function attributesOf(path: string): Promise<Record<string, unknown>> {
    const response = await request(`${base}${path}`, { method: 'POST', body: '{}' });
    await response.body.dump();
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    return spans[0].attributes;
  }

  it('drops the path of an incoming webhook whose path is its secret', async () => {
    const attributes = await attributesOf('/hooks/Zr8mQ2vX5kP1wN7t?token=tok-secret-9876');
    expect(attributes).toMatchObject({ 'url.full': `${base}/…`, 'url.path': '/…', 'url.query': '' });
    expect(JSON.stringify(attributes)).not.toMatch(/Zr8mQ2vX5kP1wN7t|tok-secret-9876/);
  });

  it('masks credential query values and keeps an ordinary path', async () => {
    const attributes = await attributesOf('/receiver?token=tok-secret-1234&team=ops');
    expect(attributes).toMatchObject({ 'url.full': `${base}/receiver?token=[REDACTED]&team=ops`, 'url.path': '/receiver', 'url.query': '?token=[REDACTED]&team=ops' });
  });
});
