import { once } from 'node:events';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProviderBreaker } from '../breaker/provider-breaker';
import { ProxyReply } from '../http/proxy-io';
import { providerRegistry } from '../providers/registry';
import { ClientAbortedError, UpstreamClient } from '../transport/upstream-client';
import { exchange } from './upstream-exchange';

/** Two real servers: the provider (an SSE answer that never ends) and the gateway's side, where `exchange` runs. */
describe('exchange of a streamed answer', () => {
  let provider: Server;
  let front: Server;
  let providerUrl: string;
  let providerClosed: Promise<void>;
  let providerRequests = 0;
  const client = new UpstreamClient({ connectTimeoutMs: 1_000, firstByteTimeoutMs: 5_000, totalTimeoutMs: 10_000 });

  beforeAll(async () => {
    provider = createServer((req: IncomingMessage, res: ServerResponse) => {
      providerRequests++;
      providerClosed = new Promise((resolve) => res.once('close', () => resolve()));
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"choices":[]}\n\n'); // and nothing more
    });
    front = createServer();
    provider.listen(0, '127.0.0.1');
    front.listen(0, '127.0.0.1');
    await Promise.all([once(provider, 'listening'), once(front, 'listening')]);
    providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1/chat/completions`;
  });
  afterAll(async () => {
    await client.close();
    for (const server of [provider, front]) {
      server.closeAllConnections();
      server.close();
    }
  });

  const openaiProvider = () => {
    const openai = providerRegistry.get('openai');
    if (!openai) throw new Error('provider openai is not in the registry');
    return openai;
  };

  it('sends nothing upstream for a client that left before the exchange began (during governance), and reports no lost dispatch', async () => {
    const before = providerRequests;
    let lost = false;
    let arrived: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const outcome = new Promise<unknown>((resolve) => {
      front.once('request', (req: IncomingMessage, res: ServerResponse) => {
        req.resume();
        arrived();
        // The exchange begins only once the client has gone, as after a slow governance decision.
        res.once('close', () => {
          exchange({
            provider: openaiProvider(),
            format: 'openai',
            request: { url: providerUrl, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', stream: true, logUrl: providerUrl },
            breaker: new ProviderBreaker('openai'),
            client,
            reply: new ProxyReply(res),
            translate: false,
            model: 'gpt-4o',
            includeUsage: false,
            onLostAfterDispatch: () => (lost = true),
          }).then(resolve, resolve);
        });
      });
    });
    const controller = new AbortController();
    const frontUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}/`;
    const left = fetch(frontUrl, { method: 'POST', body: '{}', signal: controller.signal }).catch((error: unknown) => error);
    await reached;
    controller.abort();
    await left;
    expect(await outcome).toBeInstanceOf(ClientAbortedError);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect([providerRequests - before, lost]).toEqual([0, false]);
  });

  it("ends the provider's answer when the client's stream cannot be started, instead of leaving it unread", async () => {
    const openai = openaiProvider();
    const outcome = new Promise<unknown>((resolve) => {
      front.once('request', (_req: IncomingMessage, res: ServerResponse) => {
        const reply = new ProxyReply(res);
        reply.startStream = () => {
          throw new Error('a header the client cannot be sent');
        };
        exchange({
          provider: openai,
          format: 'openai',
          request: { url: providerUrl, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', stream: true, logUrl: providerUrl },
          breaker: new ProviderBreaker('openai'),
          client,
          reply,
          translate: false,
          model: 'gpt-4o',
          includeUsage: false,
        }).then(resolve, (error: unknown) => {
          res.end();
          resolve(error);
        });
      });
    });
    const frontUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}/`;
    await fetch(frontUrl).then((res) => res.arrayBuffer());
    expect(await outcome).toEqual(new Error('a header the client cannot be sent'));
    // The provider's connection closes at once, long before any deadline.
    await expect(Promise.race([providerClosed.then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('still open'), 2_000))])).resolves.toBe('closed');
  });
});
